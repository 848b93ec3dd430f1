"""Where each kind of child finds its descriptors: one enum per child layout.

Why named: the fork server places a child's descriptors at 0, 1, 2, ... (``ForkServer._spawn``)
and the code the child runs reads them by number. Both sides read the numbers from here, so a
layout changes in one place, and the wiring says what each descriptor is.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping


class Layout(enum.IntEnum):
    """A child's descriptors in order; a member's value is the fd number the child finds it at."""

    @classmethod
    def arrange(cls, fds: Mapping[str, int]) -> list[int]:
        """``fds`` (by member name, lower case) in this layout's order. Only trailing members may be
        absent (an optional descriptor such as the judge's prefetched calls)."""
        names = [m.name.lower() for m in cls]
        present = [name for name in names if name in fds]
        if names[:len(present)] != present or set(fds) - set(names):
            raise ValueError(f"{cls.__name__} takes {names}, got {sorted(fds)}")
        return [fds[name] for name in present]


class Program(Layout):
    """A ``stdin`` program or a checker, alone on its input."""

    STDIN = 0
    STDOUT = 1
    STDERR = 2
    CODE = 3


class Judge(Layout):
    """An assert block's judge: it runs the test code and calls the candidate through two pipes,
    writing a byte on ``TICKS`` per call it sends."""

    STDIN = 0
    STDOUT = 1
    STDERR = 2
    REPORT = 3
    TEST = 4
    FROM_CANDIDATE = 5
    TO_CANDIDATE = 6
    TICKS = 7
    PREFETCH = 8  # optional: the calls the test is predicted to make first


class Served(Layout):
    """An assert block's candidate: it answers the judge's requests."""

    STDIN = 0
    STDOUT = 1
    STDERR = 2
    CODE = 3
    FROM_JUDGE = 4
    TO_JUDGE = 5


class Fed(Layout):
    """A candidate fed its steps (lifted asserts, a call test's cases), a byte on ``TICKS`` per reply."""

    STDIN = 0
    STDOUT = 1
    STDERR = 2
    CODE = 3
    STEPS = 4
    REPLIES = 5
    TICKS = 6
