"""What a statement's Input section says, line by line: names, counts, kinds, and guarantees.

Codeforces, AtCoder and CodeChef statements describe their input in a handful of phrasings:
"The first line contains five integers n, l, r, Q_l, Q_r (...)", "The second line contains n
integers w_1, ..., w_n", "Each of the next m lines contains two integers u and v", "The first line
of each test case contains ...", "a string s of length n", "7 zeroes and ones". :func:`read_layout`
turns the sentences it understands into a :class:`Layout`: lines of :class:`Field` s and
repeated :class:`Block` s. It stops at the first sentence about lines it does not understand, so
a layout describes a prefix of the input and never guesses the rest. :func:`guarantees` reads
what the section promises about named values: distinct, a permutation, sorted, a tree, a
connected graph, a regular bracket sequence.

The statement readers the grammar inference uses live here too: the section itself
(:func:`input_section`), CodeChef's doubled math (:func:`dedupe_tex`) and "the sum of n over all
test cases" (:func:`sum_bounds`). Nothing here raises on any text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Block", "Field", "Invalid", "Layout", "Read", "dedupe_tex", "evaluate", "guarantees", "input_section",
           "read_layout", "rows_of", "sum_bounds", "walk"]


# ----------------------------------------------------------------------------- the section
_SECTION_END = re.compile(r"(?i)(?:output|constraints?|examples?|samples?|sample\s+(?:input|test).*|notes?|subtasks?|scoring)"
                          r"(?:\s+(?:format|specification|data))?\s*\d*:?")


def input_section(statement: str) -> str:
    """The statement's input specification (where it names the input's variables in order)."""
    lines = statement.splitlines()
    start = None
    for i, line in enumerate(lines):
        t = line.strip().strip("-=#*_: ").strip()
        if start is None and re.fullmatch(r"(?i)input(?:\s+(?:format|specification|data))?", t):
            start = i + 1
        elif start is not None and _SECTION_END.fullmatch(t):
            return "\n".join(lines[start:i])
    return "\n".join(lines[start:]) if start is not None else statement


def dedupe_tex(text: str) -> str:
    """CodeChef statements in TACO write math twice, plain then TeX: ``N$N$``, ``106$10^6$`` (a lost
    superscript). Keep the TeX."""
    def keep_tex(m: re.Match) -> str:
        plain, tex = m.group(1), m.group(2)
        a, b = re.search(r"\w", plain), re.search(r"\w", tex)
        return f" {tex} " if a and b and a.group(0) == b.group(0) else m.group(0)

    return re.sub(r"(?<![\w$])([^\s$]{1,40})\$([^$\n]{1,80})\$", keep_tex, text)


_SUM_VAR_RE = re.compile(r"(?i)(?:\bsum\s+of\s+(?:all\s+|the\s+)?(?:values\s+of\s+)?|[∑Σ]\s*(?:_\S*\s+)?)([A-Za-z])(?:_i)?(?![A-Za-z0-9])")
_SUM_BOUND_RE = re.compile(r"(?i)(?:≤|<=|<|does\s+not\s+exceed|doesn't\s+exceed|not\s+exceed|(?:is|are)\s+at\s+most|at\s+most|"
                           r"(?:is\s+)?less\s+than(?:\s+or\s+equal\s+to)?|no\s+more\s+than|not\s+(?:greater|more)\s+than|up\s+to)"
                           r"\s*([0-9][0-9 *^().,]*)")


def _number_text(text: str) -> int | None:
    from pipeline.verify.testgen.constraints.bounds import parse_constraints

    t = text.strip().rstrip(".,;$ ")
    for b in parse_constraints(f"0 ≤ x ≤ {t}"):
        if b.name == "x" and b.hi is not None:
            return int(b.hi)
    return None


def sum_bounds(statement: str) -> dict[str, int]:
    """``{"n": 200000}`` for "the sum of n over all test cases does not exceed 2·10^5" (several phrasings)."""
    t = dedupe_tex(statement)
    t = re.sub(r"\\(?:text|mathrm|mathit|operatorname)\s*\{([^{}]*)\}", r" \1 ", t)
    t = re.sub(r"\\(?:leq?|leqslant)(?![a-zA-Z])", " ≤ ", t)
    t = re.sub(r"\\(?:cdot|times)(?![a-zA-Z])|[⋅·×∙]", " * ", t)
    t = re.sub(r"\\sum(?![a-zA-Z])", " ∑ ", t)
    t = re.sub(r"[${}~\\]", " ", t)
    out: dict[str, int] = {}
    for sentence in re.split(r"\n|(?<=[a-z])\.\s", t):
        names = _SUM_VAR_RE.findall(sentence)
        if not names:
            continue
        m = _SUM_BOUND_RE.search(sentence, _SUM_VAR_RE.search(sentence).end())
        if m is None:
            continue
        value = _number_text(re.sub(r"\s+", " ", m.group(1)))
        if value is None or value < 2:
            continue
        for name in names:
            out.setdefault(name, value)
    return out


# ----------------------------------------------------------------------------- the layout
@dataclass
class Field:
    """One token, or a run of ``count`` tokens, of a line. ``kind``: ``int``, ``float``, ``str`` or
    ``chars`` (``count`` characters: one token of that length, or that many one-character tokens).
    ``length``: a string's stated length; ``alphabet``: characters the phrase itself names."""

    name: str | None
    kind: str
    count: str | None = None
    length: str | None = None
    alphabet: str | None = None


@dataclass
class Block:
    """``count`` times the lines of ``body`` (the next n lines, T test cases)."""

    count: str
    body: list
    cases: bool = False
    partial: bool = False  # the section stopped inside it: only its first lines of the first time are known


@dataclass
class Layout:
    """The lines the section describes, in order; ``complete``: it describes every line."""

    items: list = field(default_factory=list)
    complete: bool = False


_WORDS = {"a": 1, "an": 1, "one": 1, "single": 1, "a single": 1, "the": 1, "two": 2, "three": 3, "four": 4, "five": 5,
          "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "pair of": 2, "a pair of": 2}
_NAME = r"[A-Za-z][A-Za-z0-9']*(?:_\{?[A-Za-z0-9,+\-]{1,6}\}?|\[[^\]\s]{1,6}\])?"
_EXPR = r"(?:\d+\s*\*?\s*)?[A-Za-z](?:_?\{?[A-Za-z0-9]{1,3}\}?)?(?:\s*[-+]\s*\d+)?|\d+"
_ADJ = (r"(?:(?:space|blank|whitespace)[- ]separated|separated\s+by\s+(?:a\s+)?(?:single\s+)?spaces?|positive|non-?negative|"
        r"non-?zero|distinct|natural|decimal|real|whole|signed|unsigned|other|more|different|pairwise\s+distinct|"
        r"(?:lower|upper)[- ]?case|small|latin|english)\s+")
_KINDS = [
    (r"integers?|bits|ints?", "int"),
    (r"numbers?|values?|elements?", "num"),
    (r"real\s+numbers?|reals|floats?|floating[- ]point\s+numbers?|decimals?", "float"),
    (r"strings?|words?|names?|lines?\s+of\s+text|sequences?\s+of\s+characters", "str"),
    (r"characters?|symbols?|letters?|digits|chars", "chars"),
]
_COUNT_RE = re.compile(rf"(?i)^(?P<cnt>a\s+single|a\s+pair\s+of|pair\s+of|an?|one|single|two|three|four|five|six|seven|eight|nine|"
                       rf"ten|the|{_EXPR})\s+")
_KNOWN_KIND = re.compile(r"(?i)(?:real\s+numbers?|floating[- ]point\s+numbers?|zeroe?s\s+and\s+ones|ones\s+and\s+zeroe?s|"
                         r"binary\s+(?:strings?|digits?|numbers?)|lines?\s+of\s+text|sequences?\s+of\s+characters|integers?|bits|"
                         r"ints?|numbers?|values?|elements?|reals|floats?|decimals?|strings?|words?|names?|characters?|symbols?|"
                         r"letters?|digits|chars)(?![a-z])")
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7}
_VERB = r"(?:contains?|containing|consists?\s+of|consisting\s+of|has|holds|will\s+contain|gives?|describes?|is|are|comprises?)"
_OF_WHAT = (r"(?:\s+of\s+(?:the\s+)?(?:input(?:\s+(?:data|file))?|each\s+test\s*-?\s*case|each\s+test|each\s+testcase|"
            r"the\s+test\s*case|the\s+description|each\s+query|a\s+test\s*case|each\s+data\s*set))?")
_CASES = r"(?:test\s*-?\s*cases?|testcases?|tests?|data\s*sets?|scenarios?|games?|queries)"
_LINE_RE = re.compile(rf"(?i)^(?:the\s+)?(?P<ord>first|second|third|fourth|fifth|sixth|seventh|next|following|last|only|single)\s+"
                      rf"(?:input\s+)?line(?P<of>{_OF_WHAT})\s+{_VERB}\s+(?P<what>.+)$")
_ONLY_RE = re.compile(r"(?i)^(?:the\s+)?(?:input|input\s+data|input\s+file)\s+(?:contains|consists\s+of)\s+"
                      r"(?:(?:a\s+single|one|only\s+one|exactly\s+one)\s+line\s+(?:containing|that\s+contains|with)\s+)?(?P<what>.+)$")
_EACH_RE = re.compile(rf"(?i)^(?:(?:each|every)\s+of\s+(?:the\s+)?|(?:the\s+)?[ij]-?th\s+of\s+(?:the\s+)?|(?:the\s+)?)\s*(?:next|following|subsequent|remaining|last)\s+"
                      rf"(?P<cnt>{_EXPR})\s+lines?(?:\s+of\s+(?:the\s+)?input)?\s+(?:each\s+)?{_VERB}\s+(?P<what>.+)$")
_FOLLOW_RE = re.compile(rf"(?i)^(?:then\s+|next\s+|after\s+that\s*,?\s+)?(?P<cnt>{_EXPR})\s+lines?\s+follows?\s*"
                        rf"(?:[,.;:—–-]*\s*(?:each|every|the\s+i-th)\s+(?:of\s+them\s+|one\s+|line\s+)?{_VERB}\s+(?P<what>.+))?$")
_THEN_FOLLOW_RE = re.compile(rf"(?i)^then\s+follows?\s+(?P<cnt>{_EXPR})\s+lines?\s*,?\s*(?:each\s+)?{_VERB}\s+(?P<what>.+)$")
_EACH_LINE_RE = re.compile(rf"(?i)^(?:each|every|the\s+i-th)\s+(?:such\s+)?(?:line|of\s+(?:them|these\s+lines)|one)\s+(?:of\s+them\s+)?{_VERB}\s+(?P<what>.+)$")
_CASE_OPEN_RE = re.compile(rf"(?i)(?:each|every)\s+{_CASES}\s+(?:consists?\s+of|contains?|is\s+described|has)|"
                           rf"descriptions?\s+of\s+(?:the\s+)?(?:\S+\s+)?{_CASES}|{_CASES}\s+follows?|"
                           rf"(?:then\s+)?(?:the\s+)?{_CASES}\s+(?:then\s+)?follows?")
_STRUCTURAL = re.compile(rf"(?i)\blines?\b|{_CASES}")


def _clean(text: str) -> str:
    from pipeline.verify.testgen.constraints.bounds import plain_text

    t = plain_text(dedupe_tex(text))
    t = re.sub(r"(?<=\w)\s*…\s*|\s*(?:\.\.\.|…)\s*", " … ", t)
    t = t.replace("``", '"').replace("''", '"')
    return re.sub(r"[ \t]+", " ", t)


def _sentences(section: str) -> list[str]:
    out = []
    for para in re.split(r"\n+", section):
        para = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", para.strip())
        depth, start = 0, 0
        for i, ch in enumerate(para):
            depth += ch in "([" and 1 or 0
            depth -= ch in ")]" and 1 or 0
            if ch == "." and depth <= 0 and (i + 1 == len(para) or para[i + 1] == " ") and not re.search(r"\d$", para[start:i]):
                out.append(para[start:i].strip())
                start = i + 1
        if para[start:].strip():
            out.append(para[start:].strip())
    return [s for s in out if s]


def _what(text: str) -> str:
    """The part of a line's description that says what it holds: before the bounds and the prose."""
    t = re.sub(r"\([^()]*(?:\([^()]*\)[^()]*)*\)", " ", text)  # (1 ≤ n ≤ 10^5)
    t = re.split(r"\s+[—–]\s*|\s+-\s+(?!\d)|\s*[—–]\s*|,\s+(?:the|which|where|denoting|representing|describing|separated|each)\b|"
                 r"\s+(?:where|denoting|representing|describing|which|that|such\s+that|respectively|meaning|indicating|"
                 r"describes|denotes|is|are|—)\b|[;:]", t, maxsplit=1)[0]
    return re.sub(r"\s+", " ", t).strip(" ,.")


def _count(word: str) -> str | None:
    w = re.sub(r"\s+", " ", word.strip().lower())
    if w in _WORDS:
        return str(_WORDS[w])
    if re.fullmatch(_EXPR, word.strip()):
        return re.sub(r"\s+", "", word.strip())
    return None


def _names(text: str) -> list[str] | None:
    """``n, l, r, Q_l and Q_r`` -> the names; ``a_1, a_2, …, a_n`` -> ``["a_1", "…", "a_n"]``."""
    parts = [p.strip() for p in re.split(r"\s*,\s*|\s+and\s+|\s+", text.strip()) if p.strip()]
    if not parts:
        return []
    if all((re.fullmatch(_NAME, p) and _VARIABLE.fullmatch(p)) or p == "…" for p in parts):
        return parts
    return None


_VARIABLE = re.compile(r"[A-Za-z]{1,3}[0-9']*(?:_.*|\[.*)?|[A-Z][A-Za-z]{0,5}")  # n, xi, Q_l, a[i], bg; not "edges"
_INDEXED = re.compile(r"^([A-Za-z][A-Za-z0-9']*?)(?:_\{?([A-Za-z0-9,+\-]{1,6})\}?|\[([^\]]{1,6})\])$")


def _run(names: list[str]) -> tuple[str, str | None] | None:
    """``a_1, …, a_n`` -> ``("a", "n")``; ``a_i`` alone -> ``("a", None)``."""
    if not names:
        return None
    firsts = [_INDEXED.match(n) for n in names if n != "…"]
    if not firsts or any(m is None for m in firsts) or len({m.group(1) for m in firsts}) != 1:
        return None
    base = firsts[0].group(1)
    last = firsts[-1].group(2) or firsts[-1].group(3)
    if "…" in names and last and re.fullmatch(r"[A-Za-z]\w{0,2}|\d+", last):
        return base, last
    return (base, None) if len(firsts) == 1 else None


_BINARY = r"(?i)(?:zeroe?s\s+and\s+ones|ones\s+and\s+zeroe?s|binary\s+(?:strings?|digits?|numbers?))"


def _fields(what: str) -> list[Field] | None:
    """The fields of a line from what it holds; None where the phrase is not understood."""
    w = _what(what)
    w = re.sub(r"(?i)^(?:exactly|only|precisely|just)\s+", "", w)
    w = re.sub(r"(?i)^(?:a|the)\s+(?:sequence|list|array|permutation|set|description)\s+(?:of|consisting\s+of)\s+", "", w)
    binary = re.search(r"(?i)zeroe?s\s+and\s+ones|ones\s+and\s+zeroe?s|binary", w)
    m = _COUNT_RE.match(w) or re.match(r"(?i)(?P<cnt>)(?=(?:string|word|integer|number|real|binary|sequence|permutation)s?\b)", w)
    if m is None:
        return _bare_names(w)
    cnt = m.group("cnt") or "1"
    phrase = _phrase(w[m.end():])
    if phrase is None:
        return None
    kind_text, names_text, length = phrase
    kind = _kind_of(kind_text, binary)
    if kind is None:
        return None
    count = _count(cnt)
    if count is None:
        return None
    names = _names(names_text) if names_text else []
    if names is None:
        return None
    alphabet = "01" if binary else None
    if kind == "chars":
        return _char_fields(count, names, alphabet)
    if kind == "str":
        return _string_fields(count, names, length, alphabet)
    return _value_fields(kind, count, names)


def _bare_names(w: str) -> list[Field] | None:
    """``n and m``: names whose kinds the phrase leaves unsaid."""
    m2 = re.fullmatch(rf"(?i)(?P<names>{_NAME}(?:\s*(?:,|and)\s*{_NAME}){{0,9}})", w)
    if m2:
        names = _names(m2.group("names")) or []
        return [Field(n, "any") for n in names] if names else None
    return None


def _phrase(rest: str) -> tuple[str, str | None, str | None] | None:
    """What follows a line's count: the kind's words, the names (None: none), a stated length;
    None where it is not understood."""
    rest = _skip_adjectives(rest)
    k = _KNOWN_KIND.match(rest)
    if k is None:
        return None
    kind_text, rest = k.group(0).strip().lower(), rest[k.end():].strip()
    length = None
    ln = re.search(rf"(?i)\s*\bof\s+(?:length|size)\s+({_EXPR})$", rest)
    if ln:
        length, rest = ln.group(1), rest[:ln.start()]
    if rest and _names(rest) is None:
        return None
    return kind_text, rest or None, length


def _skip_adjectives(rest: str) -> str:
    """The phrase past its adjectives: known ones, or up to two plain words before a kind ("the initial string s")."""
    for _ in range(6):
        a = re.match(rf"(?i){_ADJ}", rest)
        if a is None and not _KNOWN_KIND.match(rest):
            a = re.match(r"[a-z]{3,}\s+(?=(?:[a-z]{3,}\s+)?(?:strings?|integers?|numbers?|words?)\b)", rest)
        if a is None:
            break
        rest = rest[a.end():]
    return rest


def _kind_of(kind_text: str, binary: re.Match | None) -> str | None:
    """A field's kind from the words that name it ("zeroes and ones" in a binary phrase: characters)."""
    kind = next((k for rx, k in _KINDS if re.fullmatch(rx, kind_text)), None)
    if binary and re.fullmatch(_BINARY, kind_text):
        kind = "chars" if not re.search("string|number", kind_text) else "str"
    elif kind_text in ("binary string", "binary strings"):
        kind = "str"
    return kind


def _char_fields(count: str, names: list[str], alphabet: str | None) -> list[Field]:
    """``count`` characters: one string of that length, or a single character."""
    name = names[0] if len(names) == 1 else None
    return [Field(name, "str", length=count if count != "1" else None, alphabet=alphabet) if count != "1" else
            Field(name, "chars", count="1", alphabet=alphabet)]


def _string_fields(count: str, names: list[str], length: str | None, alphabet: str | None) -> list[Field] | None:
    """One string (of a stated length), one per name, or a run of ``count``."""
    if count == "1":
        return [Field(names[0] if names else None, "str", length=re.sub(r"\s+", "", length) if length else None,
                      alphabet=alphabet)]
    if names and len(names) == int(count) if count.isdigit() else False:
        return [Field(n, "str") for n in names]
    run = _run(names) if names else None
    return [Field(run[0] if run else None, "str", count=count)] if (not names or run) else None


def _value_fields(kind: str, count: str, names: list[str]) -> list[Field] | None:
    """Numbers: a few, one field each (or one run ``a_1 … a_k``), else one run of ``count``."""
    if count.isdigit() and int(count) <= 10:
        k = int(count)
        if not names:
            return [Field(None, kind) for _ in range(k)]
        if len(names) == k and "…" not in names:
            return [Field(n, kind) for n in names]
        run = _run(names)
        if run is not None and (run[1] is None or run[1] == count or run[1].isdigit()):
            return [Field(run[0], kind, count=count)]
        return None
    run = _run(names) if names else None
    if names and run is None:
        return None
    return [Field(run[0] if run else None, kind, count=count)]


def read_layout(statement: str) -> Layout:
    """The lines the Input section describes, as far as its sentences are understood."""
    try:
        return _read(statement or "")
    except Exception:  # noqa: BLE001 - contract: never raise on a statement; a reader bug costs the layout
        return Layout()


def _read(statement: str) -> Layout:
    section = input_section(statement)
    if section is statement or not section.strip():
        return Layout()
    reader = _Reader(_sentences(_clean(section)))
    while reader.i < len(reader.sents):
        s = reader.sents[reader.i]
        reader.i += 1
        if not reader.step(s):
            return _stop(reader.top, reader.case_block)
    return reader.finish()


# a sentence that speaks of lines or test cases without describing one ("it is guaranteed", "the sum of")
_ASIDE = re.compile(r"(?i)^(?:it\s+is\s+guaranteed|note|all\s|the\s+sum|there\s+(?:is|are)|"
                    r"each\s+\w+\s+(?:is|are)\b|(?:the\s+)?\w+\s+(?:is|are)\s+(?:numbered|given))")


class _Reader:
    """The section's sentences read in order: where lines go (the top, or the test-case block), and
    how many lines each of those holds so far (keyed by the list's id)."""

    def __init__(self, sents: list[str]) -> None:
        self.sents = sents
        self.i = 0  # the next sentence
        self.top: list = []
        self.scope = self.top
        self.ordinal = {id(self.top): 0}
        self.case_block: Block | None = None

    def step(self, s: str) -> bool:
        """Read one sentence; False where the reading stops at it."""
        for form in (self._line, self._only, self._repeated, self._cases):
            done = form(s)
            if done is not None:
                return done
        return not _STRUCTURAL.search(s) or bool(_ASIDE.match(s))

    def _open_cases(self) -> bool:
        """Start the test-case block (False: no single count read before it)."""
        count = _case_count(self.top)
        if count is None:
            return False
        self.case_block = Block(count, [], cases=True)
        self.top.append(self.case_block)
        self.ordinal[id(self.case_block.body)] = 0
        return True

    def _line(self, s: str) -> bool | None:
        """A line by its place: "The first line (of each test case) contains ..."."""
        m = _LINE_RE.match(s)
        if not m:
            return None
        if re.search(_CASES, m.group("of") or "", re.I):
            if self.case_block is None and not self._open_cases():
                return False
            self.scope = self.case_block.body
        fields = _fields(m.group("what"))
        word = m.group("ord").lower()
        if fields is None or (word in _ORDINALS and _ORDINALS[word] != self.ordinal[id(self.scope)] + 1):
            return False
        self.scope.append(fields)
        self.ordinal[id(self.scope)] += 1
        return True

    def _only(self, s: str) -> bool | None:
        """The only line, where none is read yet: "The input contains ..."."""
        m = _ONLY_RE.match(s)
        if not (m and not self.top):
            return None
        fields = _fields(m.group("what"))
        if fields is None:
            return False
        self.top.append(fields)
        self.ordinal[id(self.top)] = 1
        return True

    def _repeated(self, s: str) -> bool | None:
        """Repeated lines: "Each of the next m lines contains ...", or "m lines follow." and the next
        sentence says what each holds."""
        m = _EACH_RE.match(s) or _THEN_FOLLOW_RE.match(s) or _FOLLOW_RE.match(s)
        if not m:
            return None
        what = m.groupdict().get("what")
        if not what and self.i < len(self.sents) and _EACH_LINE_RE.match(self.sents[self.i]):
            what = _EACH_LINE_RE.match(self.sents[self.i]).group("what")
            self.i += 1
        fields = _fields(what) if what else None
        count = _count(m.group("cnt"))
        if fields is None or count is None:
            return False
        self.scope.append(Block(count, [fields]))
        self.ordinal[id(self.scope)] += 1
        return True

    def _cases(self, s: str) -> bool | None:
        """The test-case block opens: "Each test case consists of ..."."""
        if not (_CASE_OPEN_RE.search(s) and self.case_block is None and self.top):
            return None
        if not self._open_cases():
            return False
        self.scope = self.case_block.body
        return True

    def finish(self) -> Layout:
        """Every sentence read: the layout is complete (a test-case block with no line is left out)."""
        if self.case_block is not None and not self.case_block.body:
            self.top.remove(self.case_block)
            return Layout(self.top)
        return Layout(self.top, complete=bool(self.top))


def _stop(top: list, case_block: Block | None) -> Layout:
    """The layout read so far: a test-case block it stopped inside is known for its first lines only."""
    if case_block is not None:
        if not case_block.body:
            top.remove(case_block)
        else:
            case_block.partial = True
    return Layout(top)


def _case_count(top: list) -> str | None:
    """The name of the test-case count: the last single field read before the cases begin."""
    if not top or not isinstance(top[-1], list) or len(top[-1]) != 1 or top[-1][0].count is not None:
        return None
    f = top[-1][0]
    if f.name is None:
        f.name = "__cases"
    return f.name


# ----------------------------------------------------------------------------- evaluation
def evaluate(expr: str, env: dict[str, int]) -> int | None:
    """``n``, ``n-1``, ``2n``, ``4*n``, ``7``: its value from the names read so far (None: unknown)."""
    m = re.fullmatch(r"(?:(\d+)\*?)?([A-Za-z](?:_?\{?[A-Za-z0-9]{1,3}\}?)?)?([-+]\d+)?", expr.replace(" ", ""))
    if m is None:
        return None
    if m.group(2) is None:
        return int(m.group(1)) if m.group(1) and not m.group(3) else None
    value = lookup(env, m.group(2))
    if value is None:
        return None
    return int(m.group(1) or 1) * value + int(m.group(3) or 0)


def canon(name: str) -> str:
    return re.sub(r"[\s_{}]", "", name)


def lookup(env: dict[str, int], name: str) -> int | None:
    """A name's value: exact, then without ``_``/braces, then ignoring case."""
    if name in env:
        return env[name]
    c = canon(name)
    for k, v in env.items():
        if canon(k) == c:
            return v
    for k, v in env.items():
        if canon(k).lower() == c.lower():
            return v
    return None


# ----------------------------------------------------------------------------- reading a text along it
_INT = re.compile(r"[+-]?\d+")
_NUM = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


class Invalid(Exception):
    """The text is not one the problem allows: ``args`` are the reason and what broke it."""


class _Stop(Exception):
    """The layout cannot say more (a count it cannot evaluate): what was read is checked."""


def rows_of(text: str) -> list[list[str]]:
    """The tokens of each line, trailing empty lines left out."""
    rows = [line.split() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while rows and not rows[-1]:
        rows.pop()
    return rows


class Read:
    """One walk of a text along the statement's layout: the tokens of each named field, with the
    test case they belong to, and each string's stated length."""

    def __init__(self) -> None:
        # per field read: the field, its tokens, the test case, (row, first column), a string's stated length
        self.tokens: list[tuple[Field, list[str], int, tuple[int, int], int | None]] = []
        self.cases = 0
        self.complete = True


def walk(layout: Layout, rows: list[list[str]]) -> Read:
    """The text's rows read along the layout; raises :class:`Invalid` where they do not fit it
    (a line with other than its stated tokens, a line too many or too few)."""
    read = Read()
    try:
        end = _walk(layout.items, rows, 0, {}, read, 0)
    except _Stop:
        read.complete = False
        return read
    if layout.complete and end != len(rows):
        raise Invalid("line_count")
    read.complete = layout.complete
    return read


def _walk(items: list, rows: list[list[str]], pos: int, env: dict, read: Read, case: int) -> int:
    for item in items:
        if isinstance(item, Block):
            pos = _walk_block(item, rows, pos, env, read, case)
        else:
            pos = _walk_line(item, rows, pos, env, read, case)
    return pos


def _walk_block(item: Block, rows: list[list[str]], pos: int, env: dict, read: Read, case: int) -> int:
    """The block's lines, as many times as its count says (each time a test case of its own, for cases)."""
    k = evaluate(item.count, env)
    if k is None:
        raise _Stop
    if k < 0:
        raise Invalid("count")
    for _ in range(k):
        if item.cases:
            read.cases += 1
        pos = _walk(item.body, rows, pos, dict(env), read, read.cases if item.cases else case)
        if item.partial:
            raise _Stop  # what follows the known lines of a test case is not known
    return pos


def _walk_line(item: list, rows: list[list[str]], pos: int, env: dict, read: Read, case: int) -> int:
    """One line's fields read from row ``pos``; the row after it."""
    counts = _counts(item, env)
    if pos >= len(rows):
        if all(f.count is not None for f in item) and not any(counts):
            return pos  # an empty list at the very end, its line left out
        raise Invalid("line_count")
    toks = rows[pos]
    j = 0
    for f, k in zip(item, counts):
        taken = toks[j:j + k]
        if len(taken) != k:
            raise Invalid("line_tokens")
        if (f.kind == "int" and not all(map(_INT.fullmatch, taken))) or (
                f.kind in ("float", "num") and not all(map(_NUM.fullmatch, taken))):
            raise Invalid("token_kind")
        length = evaluate(f.length, env) if f.length else None
        if f.length and length is None:
            raise _Stop
        read.tokens.append((f, taken, case, (pos, j), length))
        if f.name and f.count is None and len(taken[0]) <= 18 and _INT.fullmatch(taken[0]):
            env[f.name] = int(taken[0])
        j += k
    if j != len(toks):
        raise Invalid("line_tokens")
    return pos + 1


def _counts(item: list, env: dict) -> list[int]:
    """How many tokens each field of a line takes (raises :class:`_Stop` where a count is unknown)."""
    counts = []
    for f in item:
        k = 1 if f.count is None else evaluate(f.count, env)
        if k is None:
            raise _Stop
        counts.append(k)
    return counts


# ----------------------------------------------------------------------------- guarantees
_NEGATED = re.compile(r"(?i)\bnot\s+(?:necessarily|guaranteed)|\bneed\s+not\b|\bmay\b|\bcan\s+be\b|\bmight\b|\bdon't\b|\bdoes\s+not\b|"
                      r"\bisn't\b|\baren't\b|\bnot\s+all\b|\bor\s+not\b|\bwhether\b|\bif\b")


def guarantees(statement: str) -> dict[str, object]:
    """What the Input section promises: ``distinct``/``permutation``/``sorted``/``strict`` ->
    the base names it says so of; ``tree``, ``connected``, ``simple`` (no loops or repeated
    edges), ``brackets`` (a regular bracket sequence) -> True."""
    out: dict[str, object] = {"distinct": set(), "permutation": set(), "sorted": set(), "strict": set()}
    section = _clean(input_section(statement or ""))
    for s in _sentences(section):
        if _NEGATED.search(s):
            continue
        names = {m.group(1) for m in re.finditer(rf"(?<![\w\\])({_NAME})", s)}
        bases = {(_INDEXED.match(n).group(1) if _INDEXED.match(n) else n) for n in names if len(n) <= 8}
        bases = {b for b in bases if len(b) <= 3 or b.isupper()}
        if re.search(r"(?i)\bpermutation\b", s):
            out["permutation"] |= bases
        if re.search(r"(?i)\b(?:pairwise\s+)?distinct\b|\bdifferent\b|\bunique\b", s) and not re.search(r"(?i)\b(?:i|j)\s*≠", s):
            out["distinct"] |= bases
        if re.search(r"(?i)strictly\s+increasing|increasing\s+order|ascending\s+order", s) and not re.search(r"(?i)non-?\s*decreasing", s):
            out["strict"] |= bases
        elif re.search(r"(?i)non-?\s*decreasing|sorted|non-?\s*descending", s):
            out["sorted"] |= bases
        if re.search(r"(?i)\b(?:form|forms|is|are|describe|describes|represent|represents)\s+(?:a|an|the)\s+(?:\w+\s+)?tree\b|"
                     r"\bgiven\s+(?:\w+\s+)?tree\b|\bedges\s+of\s+(?:a|the)\s+tree", s):
            out["tree"] = True
        if re.search(r"(?i)\b(?:is|are|be|remains?)\s+connected\b|\bconnected\s+graph|"
                     r"\bpossible\s+to\s+(?:get|reach|travel|go)\s+from\s+(?:any|each|every)|\bcan\s+reach\s+(?:any|every)", s):
            out["connected"] = True
        if re.search(r"(?i)no\s+(?:multiple|duplicate|repeated|parallel)\s+edges|at\s+most\s+one\s+(?:road|edge)|"
                     r"no\s+(?:two|pair\s+of)\s+\w+\s+(?:is|are)\s+connected\s+by\s+more\s+than\s+one|no\s+self[- ]?loops", s):
            out["simple"] = True
        if re.search(r"(?i)\b(?:regular|balanced|correct|valid)\s+(?:bracket|parenthes)", s):
            out["brackets"] = True
    return out
