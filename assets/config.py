"""Run config for the UI's launchpad, derived from the libraries' own config dataclasses.

One definition per setting: each stage's dataclass (``VerifyConfig``, ``DifficultyConfig``, ...)
is the source of truth, and ``run_config_for`` turns every one of its fields into a Dagster
``Config`` class with the same names and defaults, so bad values fail at launch with the
setting's name. What the launchpad can show:

- ``int``, ``float``, ``str``, ``bool``, and a ``Literal`` of strings (a choice it offers and checks);
- a nested dataclass: a nested section with its own defaults (``quality.min_tests``);
- ``list[X]`` / ``tuple[X, ...]`` of simple values: a list (a tuple comes back as a tuple);
- ``Mapping[str, X]`` / ``dict[str, X]`` of simple values: a map;
- a sequence of ``(key, value)`` pairs (difficulty buckets, a temperature schedule): an ordered
  map, keys as text (``{"easy": 0.75}``), converted back to the declared key type;
- ``Optional`` of any of these but a ``Literal``.

Anything else raises naming the field, unless the caller excludes it and says why; an excluded
field keeps the dataclass default (or what the caller passes to :func:`to_dataclass`).

A dataclass whose values come from somewhere else first (an algorithm preset) is exposed by
:func:`changes_config_for` instead: the same fields, each empty by default, and
:func:`changes_from` returns only those the user filled in, for the library to apply.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections import abc
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

import dagster as dg
from pydantic import Field, create_model

T = TypeVar("T")
_SIMPLE = (int, float, str, bool)
_PAIR_KEYS = (str, int)
_UNIONS = (typing.Union, types.UnionType)
_SEQUENCES = (list, tuple, abc.Sequence)
_MAPPINGS = (dict, abc.Mapping)
_SOURCES: dict[type, type] = {}  # generated Config class -> the dataclass it mirrors
_EXCLUDED: dict[type, dict[str, str]] = {}  # generated Config class -> {field: why not shown}
_CHANGES_SOURCES: dict[type, type] = {}  # generated changes section -> the dataclass it changes


class UnexpressibleSetting(TypeError):
    """A dataclass field the launchpad cannot show (its message names the field)."""


def run_config_for(cls: type, name: str | None = None, exclude: Mapping[str, str] | None = None) -> type[dg.Config]:
    """A ``dg.Config`` subclass exposing every field of dataclass ``cls``, nested ones included.

    ``exclude`` maps a top-level field to the reason it is not in the launchpad (the reason is
    for the reader of the call site; the field keeps its dataclass default).
    """
    unknown = set(exclude or {}) - {f.name for f in dataclasses.fields(cls)}
    if unknown:
        raise ValueError(f"run_config_for({cls.__name__}): exclude names unknown fields {sorted(unknown)}")
    model = _model(cls, None, name or f"{cls.__name__}RunConfig", set(exclude or {}))
    _EXCLUDED[model] = dict(exclude or {})
    return model


def source_dataclass(config_cls: type) -> type | None:
    """The dataclass a Config class (or a subclass of one) was generated from, else None."""
    generated = _generated(config_cls)
    return None if generated is None else _SOURCES[generated]


def excluded_settings(config_cls: type) -> dict[str, str]:
    """The top-level fields ``run_config_for`` was told to leave out, with the reasons given."""
    generated = _generated(config_cls)
    return dict(_EXCLUDED.get(generated, {})) if generated is not None else {}


def retyped_fields(config_cls: type) -> set[str]:
    """Fields a subclass of a generated class declares with another type (a schedule typed as
    text): :func:`to_dataclass` cannot convert them, the caller passes them itself."""
    generated = _generated(config_cls)
    if generated is None:
        return set()
    ours, theirs = generated.model_fields, config_cls.model_fields  # type: ignore[attr-defined]
    return {n for n in ours if n in theirs and theirs[n].annotation != ours[n].annotation}


def to_dataclass(cls: type[T], config: dg.Config, **extra: Any) -> T:
    """The library dataclass from a run config built by :func:`run_config_for`.

    Nested sections become nested dataclasses, lists become tuples where the field is a tuple,
    maps of pairs become pairs again; ``extra`` sets (or overrides) fields directly.
    """
    source = source_dataclass(type(config))
    if source is not None and source is not cls:  # e.g. a Filter run config handed to VerifyConfig
        raise TypeError(f"{type(config).__name__} was generated from {source.__name__}, not {cls.__name__}")
    retyped = retyped_fields(type(config)) - set(extra)
    if retyped:
        raise ValueError(f"{type(config).__name__} re-types {sorted(retyped)}: pass them to to_dataclass")
    left_out = {name: why for name, why in excluded_settings(type(config)).items() if name not in extra}
    missing = [name for name in left_out if _required(cls, name)]
    if missing:  # not in the launchpad and no default: only the caller can give it
        raise ValueError(f"{cls.__name__} needs {missing}, which the launchpad leaves out ({left_out}): pass them to to_dataclass")
    hints = typing.get_type_hints(cls)
    given = type(config).model_fields
    values = {
        f.name: _from_launchpad(hints[f.name], getattr(config, f.name), f"{cls.__name__}.{f.name}")
        for f in dataclasses.fields(cls)
        if f.init and f.name in given and f.name not in extra
    }
    return cls(**values, **extra)


def changes_config_for(cls: type, name: str, exclude: Mapping[str, str] | None = None,
                       descriptions: Mapping[str, str] | None = None) -> type[dg.Config]:
    """A ``dg.Config`` section of changes to a ``cls`` built elsewhere: every field of ``cls``
    (bar ``exclude``), empty by default, so what the user leaves empty keeps the preset's value.

    A choice (``Literal``) is offered as text, since Dagster has no optional choice: ``cls``
    itself must check it. ``descriptions`` maps a field to its launchpad description.
    """
    hints = typing.get_type_hints(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if not f.init or f.name in (exclude or {}):
            continue
        where = f"{cls.__name__}.{f.name}"
        annotation = _optional_inner(hints[f.name]) or hints[f.name]
        if _nested_dataclass(annotation)[0] is not None:
            raise UnexpressibleSetting(f"{where}: a nested dataclass has no form as a change")
        kind = str if typing.get_origin(annotation) is Literal else _launchpad_type(annotation, where)
        fields[f.name] = (kind | None, Field(default=None, description=(descriptions or {}).get(f.name)))
    model = create_model(name, __base__=dg.Config, **fields)  # type: ignore[call-overload]
    _CHANGES_SOURCES[model] = cls
    return model


def changes_from(cls: type, config: dg.Config) -> dict[str, Any]:
    """The fields a :func:`changes_config_for` section sets, in ``cls``'s own field types."""
    generated = next((c for c in type(config).__mro__ if c in _CHANGES_SOURCES), None)
    if generated is None or _CHANGES_SOURCES[generated] is not cls:
        raise TypeError(f"{type(config).__name__} is not a section of changes to {cls.__name__}")
    hints = typing.get_type_hints(cls)
    return {name: _from_launchpad(hints[name], value, f"{cls.__name__}.{name}")
            for name in type(config).model_fields if (value := getattr(config, name)) is not None}


def _required(cls: type, name: str) -> bool:
    field = next(f for f in dataclasses.fields(cls) if f.name == name)
    return field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING  # type: ignore[misc]


def _generated(config_cls: type) -> type | None:
    return next((c for c in config_cls.__mro__ if c in _SOURCES), None)


# -- dataclass -> Config -----------------------------------------------------------------------


def _model(cls: type, defaults: Any, name: str, exclude: set[str]) -> type[dg.Config]:
    """The Config class for ``cls``; ``defaults`` (an instance) overrides the field defaults,
    so a nested section shows the values its parent actually defaults to."""
    hints = typing.get_type_hints(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if not f.init or f.name in exclude:
            continue
        default = _field_default(f) if defaults is None else getattr(defaults, f.name)
        fields[f.name] = _pydantic_field(hints[f.name], default, f"{cls.__name__}.{f.name}")
    model = create_model(name, __base__=dg.Config, **fields)  # type: ignore[call-overload]
    _SOURCES[model] = cls
    return model


def _field_default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
        return f.default_factory()  # type: ignore[misc]
    return dataclasses.MISSING


def _pydantic_field(annotation: Any, default: Any, where: str) -> tuple[Any, Any]:
    """``(annotation, default)`` for ``create_model``: the launchpad's type and default value."""
    nested, optional = _nested_dataclass(annotation)
    if nested is not None:
        model = _model(nested, default if dataclasses.is_dataclass(default) else None,
                       f"{nested.__name__}RunConfig", set())
        kind = (model | None) if optional else model
        if default is dataclasses.MISSING:
            return kind, ...
        # a factory, not a shared (possibly frozen) instance; Dagster shows the section's defaults
        return kind, (None if default is None else Field(default_factory=model))
    kind = _launchpad_type(annotation, where)
    # lists and maps are plain defaults: pydantic copies them per instance, and Dagster only
    # shows a plain default in the launchpad (a factory's value stays hidden)
    return kind, (... if default is dataclasses.MISSING else _to_launchpad(annotation, default))


def _nested_dataclass(annotation: Any) -> tuple[type | None, bool]:
    """The dataclass ``annotation`` is (or is an Optional of), and whether it is Optional."""
    if dataclasses.is_dataclass(annotation):
        return annotation, False
    inner = _optional_inner(annotation)
    if inner is not None and dataclasses.is_dataclass(inner):
        return inner, True
    return None, False


def _launchpad_type(annotation: Any, where: str) -> Any:
    """The pydantic type Dagster can show for a non-dataclass field type; raises naming ``where``."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation in _SIMPLE:
        return annotation
    if origin is Literal and all(isinstance(a, str) for a in args):
        return annotation
    inner = _optional_inner(annotation)
    if inner is not None and typing.get_origin(inner) is not Literal:  # Dagster has no optional choice
        return _launchpad_type(inner, where) | None
    if (pair := _pair_types(annotation)) is not None:
        return dict[str, pair[1]]  # type: ignore[valid-type]
    if (item := _item_type(annotation)) is not None:
        return list[item]  # type: ignore[valid-type]
    if origin in _MAPPINGS and args and args[0] in (str, int) and args[1] in _SIMPLE:
        return dict[str, args[1]]  # type: ignore[valid-type]  # launchpad keys are text
    raise UnexpressibleSetting(
        f"{where}: type {annotation!r} has no launchpad form; change the type or pass "
        f"run_config_for(..., exclude={{{where.rsplit('.', 1)[-1]!r}: 'why'}})"
    )


def _optional_inner(annotation: Any) -> Any:
    """``X`` for ``X | None`` (one X only), else None."""
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in _UNIONS and len(args) == 2 and type(None) in args:
        return next(a for a in args if a is not type(None))
    return None


def _item_type(annotation: Any) -> Any:
    """``X`` for ``list[X]``, ``Sequence[X]`` or ``tuple[X, ...]`` with a simple ``X``, else None."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is tuple:
        args = args[:1] if len(args) == 2 and args[1] is Ellipsis else ()
    if origin in _SEQUENCES and len(args) == 1 and args[0] in _SIMPLE:
        return args[0]
    return None


def _pair_types(annotation: Any) -> tuple[type, type] | None:
    """``(K, V)`` for a sequence of ``tuple[K, V]`` pairs (K text or int, V simple), else None."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is tuple:
        args = args[:1] if len(args) == 2 and args[1] is Ellipsis else ()
    if origin not in _SEQUENCES or len(args) != 1 or typing.get_origin(args[0]) is not tuple:
        return None
    pair = typing.get_args(args[0])
    if len(pair) == 2 and pair[0] in _PAIR_KEYS and pair[1] in _SIMPLE:
        return pair[0], pair[1]
    return None


def _to_launchpad(annotation: Any, value: Any) -> Any:
    """A dataclass default as the launchpad shows it (fresh lists and maps, pairs as a map)."""
    if value is None:
        return None
    annotation = _optional_inner(annotation) or annotation
    if _pair_types(annotation) is not None:
        return {str(k): v for k, v in value}
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (list, tuple)):
        return list(value)
    return value


# -- Config -> dataclass -----------------------------------------------------------------------


def _from_launchpad(annotation: Any, value: Any, where: str) -> Any:
    """A launchpad value back in the dataclass field's own type."""
    if value is None:
        return None
    annotation = _optional_inner(annotation) or annotation
    if dataclasses.is_dataclass(annotation):
        return to_dataclass(annotation, value)  # type: ignore[arg-type]
    origin = typing.get_origin(annotation)
    if (pair := _pair_types(annotation)) is not None:
        try:
            pairs = [(pair[0](k), v) for k, v in value.items()]
        except ValueError as err:
            raise ValueError(f"{where}: keys must be {pair[0].__name__}, got {list(value)}") from err
        return tuple(pairs) if origin in (tuple, abc.Sequence) else pairs
    if origin is tuple or origin is abc.Sequence:
        return tuple(value)
    if origin is list:
        return list(value)
    if origin in _MAPPINGS:
        key_type = (typing.get_args(annotation) or (str,))[0]
        try:
            return {key_type(k): v for k, v in value.items()}
        except ValueError as err:
            raise ValueError(f"{where}: keys must be {key_type.__name__}, got {list(value)}") from err
    return value
