"""Run config for the UI's launchpad, derived from the libraries' own config dataclasses.

One definition per setting: each stage's dataclass (``VerifyConfig``, ``DifficultyConfig``, ...)
is the source of truth, and ``run_config_for`` turns its simple fields into a Dagster ``Config``
class with the same names and defaults, so bad values fail at launch with the setting's name
(a ``Literal`` becomes a choice the launchpad offers and checks).
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, TypeVar

import dagster as dg
from pydantic import create_model

T = TypeVar("T")
_SIMPLE = (int, float, str, bool)


def _exposable(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation in _SIMPLE:
        return True
    if origin is typing.Literal:
        return all(isinstance(a, str) for a in args)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        return all(a is type(None) or _exposable(a) for a in args)
    if origin is list:
        return all(a in _SIMPLE for a in args)
    if origin is dict:
        return all(a in _SIMPLE for a in args)
    return False


def run_config_for(cls: type, name: str | None = None) -> type[dg.Config]:
    """A ``dg.Config`` subclass exposing ``cls``'s simple fields with their defaults."""
    hints = typing.get_type_hints(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        annotation = hints[f.name]
        if not _exposable(annotation):
            continue
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
            default = f.default_factory()  # type: ignore[misc]
        else:
            default = ...
        fields[f.name] = (annotation, default)
    return create_model(name or f"{cls.__name__}RunConfig", __base__=dg.Config, **fields)  # type: ignore[call-overload]


def to_dataclass(cls: type[T], config: dg.Config, **extra: Any) -> T:
    """The library dataclass from a run config built by :func:`run_config_for`."""
    values = {k: v for k, v in config.model_dump().items() if k in {f.name for f in dataclasses.fields(cls)}}
    return cls(**values, **extra)
