"""Every stage setting, nested ones included, is in the launchpad, and a launched value reaches
the library's dataclass.

Generic over names: the stages are found in the definitions (which op takes which ``Config``
class, and which dataclass ``run_config_for`` built that class from); the expected settings
are the dataclasses' own fields, walked recursively.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import dagster as dg
import pytest

from assets.config import (
    UnexpressibleSetting,
    changes_config_for,
    changes_from,
    excluded_settings,
    retyped_fields,
    run_config_for,
    source_dataclass,
    to_dataclass,
)


@dataclass(frozen=True)
class Stage:
    job: dg.JobDefinition
    op: str
    config_cls: type[dg.Config]
    settings: type  # the library dataclass the op's config mirrors

    def __str__(self) -> str:
        return f"{self.job.name}:{self.op}"


def _config_class(op_def: dg.OpDefinition) -> type[dg.Config] | None:
    """The ``Config`` class an op (an asset's compute function) takes as ``config``, if any."""
    fn = op_def.compute_fn.decorated_fn  # type: ignore[union-attr]
    param = inspect.signature(fn, eval_str=True).parameters.get("config")  # Dagster's name for it
    annotation = param.annotation if param is not None else None
    return annotation if isinstance(annotation, type) and issubclass(annotation, dg.Config) else None


def _stages() -> list[Stage]:
    from assets.definitions import defs

    stages = []
    for job in defs.resolve_all_job_defs():
        for node in job.nodes:
            config_cls = _config_class(node.definition)  # type: ignore[arg-type]
            if config_cls is not None:
                settings = source_dataclass(config_cls)
                assert settings is not None, f"{node.name} takes {config_cls.__name__}, not built by run_config_for"
                stages.append(Stage(job, node.name, config_cls, settings))
    return sorted(stages, key=str)  # a stable order for the test ids


STAGES = _stages()
SETTINGS = sorted({s.settings for s in STAGES}, key=lambda c: c.__name__)


def _optional_inner(annotation: Any) -> Any:
    args = typing.get_args(annotation)
    return next((a for a in args if a is not type(None)), None) if type(None) in args else None


def _nested(annotation: Any) -> type | None:
    annotation = _optional_inner(annotation) or annotation
    return annotation if dataclasses.is_dataclass(annotation) else None


def _setting_paths(cls: type, prefix: str = "") -> set[str]:
    """Every field of ``cls`` as a dotted path, nested dataclasses' fields included."""
    hints = typing.get_type_hints(cls)
    paths = set()
    for f in dataclasses.fields(cls):
        if f.init:
            paths.add(prefix + f.name)
            if nested := _nested(hints[f.name]):
                paths |= _setting_paths(nested, f"{prefix}{f.name}.")
    return paths


def _op_config(stage: Stage) -> dg.Field:
    """The op's ``config`` field of the job's run config schema: what the launchpad offers."""
    ops = stage.job.run_config_schema.config_type.fields["ops"].config_type  # type: ignore[attr-defined]
    return ops.fields[stage.op].config_type.fields["config"]


def _launchpad_paths(config_type: Any, prefix: str = "") -> set[str]:
    """Every field of a config schema as a dotted path, through nested (and optional) sections."""
    while isinstance(config_type, dg.Noneable):
        config_type = config_type.inner_type
    paths = set()
    for name, fld in getattr(config_type, "fields", {}).items():
        paths |= {prefix + name, *_launchpad_paths(fld.config_type, f"{prefix}{name}.")}
    return paths


def test_the_stages_are_found():
    """Guards the generic tests below against finding nothing (or nothing nested)."""
    assert len(SETTINGS) >= 5, [s.__name__ for s in SETTINGS]
    assert any("." in path for cls in SETTINGS for path in _setting_paths(cls)), "no stage has a nested section"


@pytest.mark.parametrize("stage", STAGES, ids=str)
def test_every_stage_setting_is_in_the_launchpad(stage: Stage):
    excluded = excluded_settings(stage.config_cls)
    assert all(why.strip() for why in excluded.values()), excluded
    expected = {p for p in _setting_paths(stage.settings) if p.split(".")[0] not in excluded}
    missing = expected - _launchpad_paths(_op_config(stage).config_type)
    assert not missing, f"{stage}: {stage.settings.__name__} settings missing from the launchpad: {sorted(missing)}"


@pytest.mark.parametrize("stage", STAGES, ids=str)
def test_launchpad_defaults_are_the_library_defaults(stage: Stage):
    """Launching without edits builds the dataclass's own defaults, nested sections included."""
    schema = _op_config(stage)
    assert schema.default_provided, f"{stage}: the launchpad shows no defaults"
    config = stage.config_cls(**schema.default_value)  # what Dagster builds for the op
    default = stage.settings()
    retyped = {name: getattr(default, name) for name in retyped_fields(stage.config_cls)}
    assert to_dataclass(stage.settings, config, **retyped) == default


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda c: c.__name__)
def test_run_config_round_trips_to_the_dataclass(settings: type):
    assert to_dataclass(settings, run_config_for(settings)()) == settings()


# -- a launch with overrides ---------------------------------------------------------------------

_SEQUENCE_ITEMS = {int: [20, 10], float: [2.0, 1.0], str: ["20", "10"]}
_SIMPLE_VALUES = {int: 7, float: 0.5, str: "x", bool: True}


def _changed(value: Any) -> Any:
    return (not value) if isinstance(value, bool) else value + 1 if isinstance(value, (int, float)) else None


def _override(annotation: Any, default: Any) -> tuple[Any, Any] | None:
    """``(launchpad value, expected dataclass value)`` for a structured field, None for a simple one.

    Keys and items come in descending order, so a launch that sorted them would show.
    """
    annotation = _optional_inner(annotation) or annotation
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if dataclasses.is_dataclass(annotation):
        base = default if dataclasses.is_dataclass(default) else annotation()
        changes = {f.name: _changed(getattr(base, f.name)) for f in dataclasses.fields(base)}
        changes = {k: v for k, v in changes.items() if v is not None}
        return changes, dataclasses.replace(base, **changes)
    if origin in (dict, Mapping) and args[1] in _SIMPLE_VALUES:
        value = {"20": _SIMPLE_VALUES[args[1]], "10": _SIMPLE_VALUES[args[1]]}
        return value, value
    if origin in (tuple, list) and args:
        item, container = args[0], (tuple if origin is tuple else list)
        if typing.get_origin(item) is tuple:  # (key, value) pairs: an ordered map in the launchpad
            key, val = typing.get_args(item)
            value = {"20": _SIMPLE_VALUES[val], "10": _SIMPLE_VALUES[val]}
            return value, container((key(k), v) for k, v in value.items())
        if item in _SEQUENCE_ITEMS:
            return _SEQUENCE_ITEMS[item], container(_SEQUENCE_ITEMS[item])
    return None


def _overrides(stage: Stage) -> dict[str, tuple[Any, Any]]:
    hints, default = typing.get_type_hints(stage.settings), stage.settings()
    skip = retyped_fields(stage.config_cls) | set(excluded_settings(stage.config_cls))
    found = {f.name: _override(hints[f.name], getattr(default, f.name))
             for f in dataclasses.fields(stage.settings) if f.init and f.name not in skip}
    return {name: pair for name, pair in found.items() if pair is not None}


def _launch(stage: Stage, run_config: dict) -> dg.Config:
    """Runs ``run_config`` through Dagster's launch path (schema, defaults, Config class) with an
    op named like the stage's and taking the same Config class; returns what the op received."""
    received: list[dg.Config] = []

    def probe(config) -> None:
        received.append(config)

    probe.__annotations__ = {"config": stage.config_cls, "return": None}
    job = dg.GraphDefinition(name="probe", node_defs=[dg.op(name=stage.op)(probe)]).to_job()
    assert job.execute_in_process(run_config=run_config).success
    return received[0]


STRUCTURED = list({s.settings: s for s in STAGES if _overrides(s)}.values())


def test_a_nested_setting_is_among_the_overrides():
    assert any(_nested(typing.get_type_hints(s.settings)[n]) for s in STRUCTURED for n in _overrides(s))


@pytest.mark.parametrize("stage", STRUCTURED, ids=str)
def test_launched_overrides_reach_the_library_dataclass(stage: Stage):
    """Nested sections, maps, pairs and tuples set in the launchpad arrive typed as the library's."""
    overrides = _overrides(stage)
    run_config = {"ops": {stage.op: {"config": {name: value for name, (value, _) in overrides.items()}}}}
    assert dg.validate_run_config(stage.job, run_config)  # the real job accepts it
    config = _launch(stage, run_config)
    default = stage.settings()
    settings = to_dataclass(stage.settings, config,
                            **{name: getattr(default, name) for name in retyped_fields(stage.config_cls)})
    for name, (_, expected) in overrides.items():
        assert getattr(settings, name) == expected, name
        assert type(getattr(settings, name)) is type(expected), name


# -- run_config_for on its own -------------------------------------------------------------------


@dataclass(frozen=True)
class _Inner:
    min_tests: int = 1
    names: tuple[str, ...] = ("a", "b")


@dataclass
class _Outer:
    inner: _Inner = field(default_factory=lambda: _Inner(min_tests=3))  # not the class default
    schedule: tuple[tuple[int, float], ...] | None = ((1, 0.8), (50, 1.2))
    weights: Mapping[str, float] | None = None
    files: list[str] = field(default_factory=list)


@dataclass
class _Odd:
    size: int = 1
    tags: set[str] = field(default_factory=set)


def test_nested_defaults_come_from_the_parent_default():
    config = run_config_for(_Outer)()
    assert config.inner.min_tests == 3 and config.schedule == {"1": 0.8, "50": 1.2}
    assert to_dataclass(_Outer, config) == _Outer()
    assert run_config_for(_Outer)().files is not config.files  # no shared mutable default


def test_pairs_come_back_with_their_key_type():
    config = run_config_for(_Outer)(schedule={"10": 0.5, "2": 1.0}, inner={"names": ["z"]})
    assert to_dataclass(_Outer, config) == _Outer(schedule=((10, 0.5), (2, 1.0)), inner=_Inner(min_tests=3, names=("z",)))
    with pytest.raises(ValueError, match=r"_Outer\.schedule"):
        to_dataclass(_Outer, run_config_for(_Outer)(schedule={"first": 0.5}))


def test_an_unexpressible_setting_is_refused_by_name_unless_excluded_with_a_reason():
    with pytest.raises(UnexpressibleSetting, match=r"_Odd\.tags"):
        run_config_for(_Odd)
    config_cls = run_config_for(_Odd, exclude={"tags": "a set has no launchpad form"})
    assert excluded_settings(config_cls) == {"tags": "a set has no launchpad form"}
    assert "tags" not in config_cls.model_fields
    assert to_dataclass(_Odd, config_cls(size=2)) == _Odd(size=2)
    with pytest.raises(ValueError, match="unknown"):
        run_config_for(_Odd, exclude={"tag": "typo"})


def test_a_retyped_field_must_be_passed_explicitly():
    class Typed(run_config_for(_Outer)):  # type: ignore[misc]
        schedule: str = "1:0.8"

    assert retyped_fields(Typed) == {"schedule"}
    with pytest.raises(ValueError, match="schedule"):
        to_dataclass(_Outer, Typed())
    assert to_dataclass(_Outer, Typed(), schedule=((1, 0.8),)).schedule == ((1, 0.8),)


def test_to_dataclass_refuses_another_stages_config():
    from pipeline.filter import FilterConfig
    from pipeline.verify import VerifyConfig

    with pytest.raises(TypeError, match="generated from FilterConfig, not VerifyConfig"):
        to_dataclass(VerifyConfig, run_config_for(FilterConfig)())


@dataclass(frozen=True)
class _Algorithm:
    rule: typing.Literal["fixed", "diversity"] = "diversity"
    lr: float = 1e-6
    schedule: tuple[tuple[int, float], ...] | None = None
    candidates: tuple[float, ...] = (0.6, 1.2)


def test_a_section_of_changes_launches_only_what_was_set():
    """``changes_config_for``: every field, empty unless set (a preset fills the rest); a choice
    is text (Dagster has no optional choice) and the values come back in the dataclass's types."""
    section = changes_config_for(_Algorithm, "AlgorithmChangesProbe", descriptions={"lr": "empty: 1e-6"})
    assert section.model_fields["lr"].description == "empty: 1e-6"

    def probe(config) -> None:
        received.append(config)

    received: list[dg.Config] = []
    probe.__annotations__ = {"config": section, "return": None}
    job = dg.GraphDefinition(name="changes", node_defs=[dg.op(name="train")(probe)]).to_job()
    launched = {"rule": "fixed", "schedule": {"1": 0.8, "40": 1.2}, "candidates": [0.9]}
    assert job.execute_in_process(run_config={"ops": {"train": {"config": launched}}}).success
    assert changes_from(_Algorithm, received[0]) == {"rule": "fixed", "schedule": ((1, 0.8), (40, 1.2)), "candidates": (0.9,)}
    assert job.execute_in_process().success  # nothing set: no changes
    assert changes_from(_Algorithm, received[1]) == {}
    with pytest.raises(TypeError, match="not a section of changes to _Outer"):
        changes_from(_Outer, received[0])
