"""A package face whose names load on first use (:pep:`562`).

Why: a package's ``__init__`` that imports what it names makes every import of one of its leaves
(a settings module, a dataclass) pay for the whole package. A face maps each public name to the
module that defines it and imports that module only when the name is first read.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_face(package: str, face: Mapping[str, str]) -> Callable[[str], Any]:
    """The package's module ``__getattr__``: ``face`` maps a name to its module, relative to ``package``.
    A name read once is kept in the package's namespace, so later reads do not come here."""

    def __getattr__(name: str) -> Any:
        if name not in face:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{face[name]}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
