"""Structures a statement can promise of an input (a connected graph, a balanced bracket text),
checked alike by the stdin and call validators and the call envelope."""

from __future__ import annotations

from collections.abc import Iterable


def connected(n: int, edges: Iterable[tuple[int, int]], base: int = 0) -> bool:
    """Whether nodes ``base .. base + n - 1`` form one component under ``edges`` (union-find)."""
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        parent[find(a - base)] = find(b - base)
    return len({find(x) for x in range(n)}) == 1


_BRACKETS = {")": "(", "]": "[", "}": "{", ">": "<"}


def balanced(text: str) -> bool:
    """Every bracket closes the one opened last (``()[]{}<>``)."""
    stack: list[str] = []
    for ch in text:
        if ch in "([{<":
            stack.append(ch)
        elif ch in _BRACKETS:
            if not stack or stack.pop() != _BRACKETS[ch]:
                return False
    return not stack
