"""What a problem's statement says about an inferred stdin grammar.

The statement's constraints (:mod:`pipeline.verify.testgen.constraints.bounds`) are mapped to the grammar's
variables by the names the Input section gives each line's tokens where its layout reads the
examples, else in the order the section names them; strings get the alphabet the statement
states; and the Input section's counts ("n lines", "n - 1 edges", "n integers", five named
tokens on a line) guide the search for the grammar's shape.
"""

from __future__ import annotations

import re

from pipeline.verify.testgen.constraints.layout import dedupe_tex as _dedupe_tex
from pipeline.verify.testgen.constraints.layout import input_section as _input_section
from pipeline.verify.testgen.stdin.grammar import Grammar, Repeat, Scalar

__all__ = ["count_hints", "layout_names", "stated_alphabet", "stated_bounds"]


_INDEXED = re.compile(r"^([A-Za-z]+)(?:_?\[?(?:i|j|k|1|2|n|m|\d)\]?|_[A-Za-z0-9]{1,3}|\[[^\]]*\])$")


def _constraints():
    """:mod:`pipeline.verify.testgen.constraints.bounds`, or None: without it ranges come from the examples alone."""
    try:
        from pipeline.verify.testgen.constraints import bounds as constraints
    except (ImportError, SyntaxError):
        return None
    return constraints


def _bounds(statement: str) -> list:
    if not statement:
        return []
    cx = _constraints()
    if cx is None:
        return []
    return [b for b in cx.parse_constraints(statement) if b.name not in ("i", "j")]


def stated_alphabet(statement: str, name: str) -> str | None:
    cx = _constraints()
    return None if cx is None else cx.alphabet(statement, name)


def _contains(b, lo: float | None, hi: float | None) -> bool:
    if lo is None:
        return True
    if b.lo is None and b.hi is None:
        return False
    return (b.lo is None or b.lo <= lo) and (b.hi is None or hi <= b.hi)


def _mention(section: str, name: str, indexed: str | None) -> int:
    pats = [re.escape(name)]
    if indexed:
        pats.append(re.escape(indexed) + r"\s*[_\[{]")
    best = len(section) + 1
    for pat in pats:
        m = re.search(r"(?<![A-Za-z0-9_\\])" + pat + r"(?![A-Za-z0-9])", section)
        if m:
            best = min(best, m.start())
    return best


def layout_names(g: Grammar, statement: str) -> dict[int, tuple[str, bool, str]]:
    """Scalar id -> (the name the statement's Input section gives its tokens, a run of them, the
    kind it says), where the section's layout reads every example and gives the scalar one name throughout."""
    from pipeline.verify.testgen.constraints.layout import Invalid, read_layout, rows_of, walk

    layout = read_layout(statement)
    if not layout.items:
        return {}
    names: dict[int, set] = {}
    for text in g.examples:
        at = g.positions(text)
        try:
            read = walk(layout, rows_of(text))
        except Invalid:
            return {}
        for f, toks, _, (row, col), _ in read.tokens:
            for j in range(len(toks)):
                if at is not None and (row, col + j) in at:
                    names.setdefault(at[(row, col + j)], set()).add((f.name, f.count is not None, f.kind) if f.name else None)
    return {sid: next(iter(found)) for sid, found in names.items() if len(found) == 1 and None not in found}


def stated_bounds(g: Grammar, statement: str, named: dict[int, tuple[str, bool, str]]) -> dict[int, object]:
    """Statement bounds for the grammar's scalars: by the names the Input section gives each line's
    tokens where its layout reads the examples, else in the order the section names them."""
    bounds = _bounds(statement)
    if not bounds:
        return {}
    cx = _constraints()
    out: dict[int, object] = {}
    for sid, (name, run, _) in named.items():
        s = g.scalars[sid]
        b = cx.value_bound(bounds, name) if run else (cx.lookup(bounds, name) or cx.value_bound(bounds, name))
        if b is not None and s.kind in ("int", "float") and _contains(b, s.vmin, s.vmax):
            out[sid] = b
            g.names[sid] = name
    section = _input_section(statement)
    names: list[tuple[int, int, str, object, bool]] = []  # (mention, order, name, bound, indexed)
    seen_bases: set[str] = set()
    for order, b in enumerate(bounds):
        if b.name.startswith("|"):
            continue
        m = _INDEXED.match(b.name)
        if m:
            base = m.group(1)
            if base in seen_bases:
                continue
            seen_bases.add(base)
            vb = (cx.value_bound(bounds, base) if cx is not None else None) or b
            names.append((_mention(section, b.name, base), order, base, vb, True))
        else:
            names.append((_mention(section, b.name, None), order, b.name, b, False))
    names.sort(key=lambda x: (x[0], x[1]))
    ptr = 0

    def take(s: Scalar, want_indexed: bool | None) -> None:
        nonlocal ptr
        if s.sid in out:  # named by the layout: the names before it are no one else's
            ptr = next((j + 1 for j in range(ptr, len(names)) if names[j][2] == g.names.get(s.sid)), ptr)
            return
        for j in range(ptr, len(names)):
            _, _, name, b, is_indexed = names[j]
            if want_indexed is not None and is_indexed != want_indexed:
                continue
            if _contains(b, s.vmin, s.vmax):
                out[s.sid] = b
                g.names[s.sid] = name
                ptr = j + 1
                return

    def walk(elems: list, inside: bool) -> None:
        for e in elems:
            if isinstance(e, Repeat):
                walk(e.body, True)
                continue
            for s in e.prefix:
                if s.kind in ("int", "float"):
                    take(s, None if inside else False)  # inside a block, a count may be indexed ("k_i integers")
            if e.vec is not None and e.vec.kind in ("int", "float"):
                take(e.vec, True)

    walk(g.elems, False)
    return out



_VAR = r"(?<![\w])[A-Za-z](?:_\w+)?(?![\w])"


def count_hints(statement: str) -> dict[str, object]:
    """What the input section says about counts: ``n lines`` (a variable number of lines), ``n - 1
    lines`` (one fewer), ``n integers`` (a variable number of values); ``widths``: how many tokens
    the lines have whose tokens it names one by one ("five integers n, l, r, Q_l, Q_r")."""
    from pipeline.verify.testgen.constraints.layout import read_layout

    widths = {len(item) for item in read_layout(statement or "").items
              if isinstance(item, list) and len(item) >= 5 and all(f.name and f.count is None for f in item)}
    t = _input_section(statement or "")
    t = _dedupe_tex(t)
    t = re.sub(r"\\[a-zA-Z]+|[${}\\]", " ", t)
    t = re.sub(r"\s+", " ", t)
    lines_rx = rf"(?:{_VAR})\s*(?:-\s*1\s*)?(?:more |following |next |other |subsequent )?(?:lines|rows|strings|queries|edges|pairs)\b"
    return {
        "lines": bool(re.search(lines_rx, t)),
        "lines_minus": bool(re.search(rf"(?:{_VAR})\s*-\s*1\s*(?:more |following |next |other )?(?:lines|rows|edges)\b", t)),
        "numbers": bool(re.search(rf"(?:{_VAR})\s+(?:space[- ]separated |positive |non-negative |distinct |more )*"
                                  r"(?:integers|numbers|elements|values|words|characters)\b", t)),
        "widths": widths,
    }
