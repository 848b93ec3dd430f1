"""Deployment settings from the environment, checked when the definitions load.

Every resource field can be set as ``MICROCODER_<RESOURCE>_<FIELD>`` (for example
``MICROCODER_SAMPLER_BACKEND=openai``); the launchpad's run config still overrides it per run.
Checking here means a typo fails when ``dagster dev`` or ``microcoder run`` loads the code,
with the variable's name, rather than an hour into a run.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TypeVar

import dagster as dg
from pydantic import ValidationError

from pipeline.paths import SettingError, data_root

ENV_PREFIX = "MICROCODER_"
R = TypeVar("R", bound=dg.ConfigurableResource)


def env_name(section: str, field: str) -> str:
    return f"{ENV_PREFIX}{section}_{field}".upper()


def from_env(cls: type[R], section: str, environ: Mapping[str, str] | None = None) -> R:
    """``cls()`` with each field overridden by its ``MICROCODER_<SECTION>_<FIELD>`` variable."""
    environ = os.environ if environ is None else environ
    names = {field: env_name(section, field) for field in cls.model_fields}
    values = {field: environ[name] for field, name in names.items() if name in environ}
    try:
        return cls(**values)
    except ValidationError as err:
        problems = []
        for error in err.errors():
            field = str(error["loc"][0]) if error["loc"] else ""
            message = error["msg"].removeprefix("Value error, ")
            if field in values:
                problems.append(f"{names[field]}={values[field]!r}: {message}")
            else:  # a rule over several fields (the defaults themselves are valid)
                problems.append(f"{section} ({env_name(section, '*')}): {message}")
        raise SettingError("bad configuration: " + "; ".join(problems)) from None


def check_data_root() -> str:
    """``MICROCODER_DATA`` must name a filesystem fsspec knows (a local path, s3://, gs://, ...)."""
    root = data_root()
    if "://" in root:
        import fsspec

        protocol = root.split("://", 1)[0]
        try:
            fsspec.get_filesystem_class(protocol)
        except (ValueError, ImportError) as err:
            raise SettingError(f"MICROCODER_DATA={root!r}: {err}") from None
    return root
