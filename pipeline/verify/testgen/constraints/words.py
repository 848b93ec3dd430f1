"""The phrases of a statement that back a property no number states.

A short example list proves little ("[1, 3]" is sorted by chance), and a few letters do not make
an alphabet; the statement's word for it does ("sorted in ascending order", "lowercase English
letters"). Each phrase test generation looks for is named here, once; callers ask :func:`says`.
Phrases marked *lower* are matched against the statement already lower-cased by the caller.
"""

from __future__ import annotations

import re

PHRASES: dict[str, re.Pattern[str]] = {
    # character classes
    "lowercase": re.compile(r"(?i)lower[\s-]*case"),
    "lowercase_letters": re.compile(r"(?i)lower[\s-]*case|small\s+(?:english\s+|latin\s+)?letters"),
    "uppercase": re.compile(r"(?i)upper[\s-]*case|capital"),
    # the input's structure
    "graph": re.compile(r"(?i)\b(?:edges?|vertex|vertices|graph|tree|roads?)\b"),
    "test_cases": re.compile(r"(?i)test[\s-]*cases?|\btests\b|\bqueries\b"),
    # order and uniqueness of a list (lower)
    "sorted": re.compile(r"\bsorted\b|ascending|increasing|decreasing"),
    "strictly_increasing": re.compile(r"strictly increasing|distinct|unique"),
    "distinct": re.compile(r"\bdistinct\b|\bunique\b"),
    # LeetCode's tree lists (lower)
    "binary_tree": re.compile(r"binary tree"),
    "binary_search_tree": re.compile(r"binary search tree|\bbsts?\b"),  # not "substring"
}


def says(text: str | None, phrase: str) -> bool:
    """Whether the statement ``text`` uses the named phrase (a key of :data:`PHRASES`)."""
    return bool(PHRASES[phrase].search(text or ""))


def mentions(text: str | None, name: str) -> bool:
    """Whether the statement names ``name`` as a word of its own (not inside another name or a TeX command)."""
    return bool(text) and re.search(rf"(?<![\w\\]){re.escape(name)}(?!\w)", text) is not None
