"""Value and size ranges from a problem statement's constraints.

Statements state their input ranges as comparison chains in many notations: LeetCode's
``1 <= nums.length <= 10^5`` and ``-10^4 <= nums[i] <= 10^4``, Codeforces/TACO's
``1 ≤ n ≤ 2·10^5`` or ``$1 \\le a_i \\le 10^{9}$``, several names sharing a range
(``1 ≤ a, b ≤ 100``), chains through other names (``1 ≤ l ≤ r ≤ n``: only numeric ends are
kept, ``0 ≤ k < n`` gives k a lower bound only), and a few phrases ("The number of nodes in the
tree is in the range [0, 10^4]", "The length of t doesn't exceed 5·10^5"). :func:`parse_constraints`
turns them into :class:`Bound` records; :func:`size_bound` and :func:`value_bound` find the size
and element ranges of an argument under the names statements use for them. :func:`alphabet`
reads "s consists of lowercase English letters" style character sets.

LeetCodeDataset's statements lost their superscripts (``10^4`` reads ``104``, ``2^31 - 1`` reads
``231 - 1``); when a statement has no explicit power at all, such tokens are read as powers.
Example, sample, note and output sections are skipped (``n = 5`` in an example is no bound).
Nothing here raises on any text: what does not parse is skipped.
"""

from __future__ import annotations

import html
import math
import re
import string
from dataclasses import dataclass

__all__ = ["Bound", "alphabet", "lookup", "parse_constraints", "plain_text", "size_bound", "value_bound"]

Number = int | float


@dataclass(frozen=True)
class Bound:
    """``lo <= name <= hi``; None where that side is unknown (or only symbolic)."""

    name: str
    lo: Number | None
    hi: Number | None


# --- text normalization --------------------------------------------------------------------

_TEX = [
    (r"\\leqslant|\\leq|\\le(?![a-zA-Z])", " ≤ "),
    (r"\\geqslant|\\geq|\\ge(?![a-zA-Z])", " ≥ "),
    (r"\\lt(?![a-zA-Z])", " < "),
    (r"\\gt(?![a-zA-Z])", " > "),
    (r"\\neq?(?![a-zA-Z])", " ≠ "),
    (r"\\cdot(?![a-zA-Z])|\\times(?![a-zA-Z])|\\ast(?![a-zA-Z])", " * "),
    (r"\\[lc]?dots(?![a-zA-Z])|\\ldotp", " … "),
    (r"\\left(?![a-zA-Z])|\\right(?![a-zA-Z])|\\big+[lr]?(?![a-zA-Z])|\\Big+[lr]?(?![a-zA-Z])", ""),
    (r"\\[lr]?vert(?![a-zA-Z])|\\mid(?![a-zA-Z])|\\lvert|\\rvert", "|"),
    (r"\\(?:mathrm|text|mathit|mathbf|textbf|texttt|operatorname|mathtt|bf|it|rm)(?![a-zA-Z])", ""),
]
_TEX_RE = [(re.compile(p), r) for p, r in _TEX]
_UNICODE = {
    "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2002": " ", "\u2003": " ", "\u200b": "",
    "≦": "≤", "⩽": "≤", "≧": "≥", "⩾": "≥", "−": "-", "·": "*", "⋅": "*", "×": "*", "∙": "*",
    "∗": "*", "＜": "<", "＞": ">",
}
_UNICODE_RE = re.compile("|".join(map(re.escape, _UNICODE)))


def _normalize(text: str) -> str:
    t = html.unescape(text)
    t = _UNICODE_RE.sub(lambda m: _UNICODE[m.group(0)], t)
    t = re.sub(r"(?<=\d)\\[,;:!]\s*(?=\d{3})", "", t)  # 200\,000
    t = re.sub(r"\\[,;:! ]", " ", t)
    for pattern, repl in _TEX_RE:
        t = pattern.sub(repl, t)
    t = re.sub(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"((\1)/(\2))", t)
    t = re.sub(r"\\(?:sum|prod|limits|displaystyle|quad|qquad|in|notin|forall|exists|mathcal|mathbb)(?![a-zA-Z])", " ", t)
    t = t.replace("$", " ")
    t = re.sub(r"\^\s*\{([^{}]*)\}", r"^(\1)", t)  # 10^{5}
    t = re.sub(r"_\s*\{([^{}]*)\}", lambda m: "_" + re.sub(r"\W", "", m.group(1)), t)  # a_{i}
    t = t.replace("{", " ").replace("}", " ").replace("\\", " ")
    t = t.replace("<=", "≤").replace("=<", "≤").replace(">=", "≥").replace("=>", "≥").replace("!=", "≠")
    t = t.replace("==", " ≡ ")
    t = re.sub(r"(?<=\d)\s*[xX]\s*(?=\d)", " * ", t)  # 2 x 10^5
    return t


def plain_text(text: str) -> str:
    """Math as plain text (TeX and Unicode comparisons as ``≤ ≥``, ``\\cdot`` as ``*``, ``a_{i}`` as ``a_i``)."""
    return _normalize(text)


_POWER_RE = re.compile(r"\d\s*\^\s*\(?\s*-?\d|\d\s*\*\*\s*\d|\d[eE][+-]?\d")


def _deflatten(text: str) -> str:
    """LeetCodeDataset's lost superscripts: 104 -> 10^4, -231 -> -2^31, 2 * 105 -> 2 * 10^5, 220 - 1 -> 2^20 - 1."""
    t = re.sub(r"(?<![\d.,])10([2-9]|1[0-8])(?![\d.]|,\d)", r"10^\1", text)
    t = re.sub(r"(?<![\d.,^])2([2-9]|[1-5]\d|6[0-4])(?=\s*-\s*1\b)", r"2^\1", t)  # 220 - 1 -> 2^20 - 1
    return re.sub(r"(?<![\d.,^])2(31|32|63|64)(?![\d.]|,\d)", r"2^\1", t)


# section headers whose contents are no constraints (examples, notes, output specification)
_HEADER_RE = re.compile(r"^[\s\-=#*_:.]*([A-Za-z][A-Za-z ]{0,30}?)\s*\d*[\s\-=#*_:.]*$")
_DROP_HEADERS = re.compile(r"(?i)^(examples?|sample|sample (input|output|test|tests|case|cases)s?|notes?|explanations?|output|"
                           r"output format|output specification|follow ?up|hint|hints|illustration|image|subtasks?|scoring)$")
_KEEP_HEADERS = re.compile(r"(?i)^(constraints?|input|input format|input specification|"
                           r"problem|statement|description|task|limits?)$")
_CONSTRAINT_HEADER = re.compile(r"(?i)^constraints?$")


def _relevant_text(text: str) -> tuple[str, str]:
    """The constraints section(s) and the rest, both without example / sample / note / output / subtask sections."""
    kept: list[str] = []
    constraints: list[str] = []
    dropping = in_constraints = False
    for line in text.splitlines():
        stripped = line.strip()
        match = _HEADER_RE.match(stripped) if stripped else None
        if match is None and re.match(r"(?i)^\W*(example|sample)s?\s*\d*\s*:", stripped) and len(stripped) < 40:
            dropping = True
            continue
        if re.match(r"(?i)^\W*subtask", stripped):
            continue  # ``Subtask 1 (10 points): N ≤ 1000``: narrower than the problem's own bounds
        if re.match(r"(?i)^\W*follow[\s-]*up", stripped):
            dropping = True
            continue
        if match:
            title = re.sub(r"\s+", " ", match.group(1)).strip()
            if _DROP_HEADERS.match(title):
                dropping, in_constraints = True, False
                continue
            if _KEEP_HEADERS.match(title):
                dropping, in_constraints = False, bool(_CONSTRAINT_HEADER.match(title))
                continue
        if not dropping:
            (constraints if in_constraints else kept).append(line)
    return "\n".join(constraints), "\n".join(kept)


# --- tokens and terms ----------------------------------------------------------------------

_TOKEN_RE = re.compile(
    r"""(?P<num>\d{1,3}(?:,\d{3})+(?![\d,]\d)|\d{1,3}(?:\ \d{3})+(?!\d)|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|\.\d+)
      |(?P<name>[A-Za-z_][A-Za-z0-9_']*(?:\[[^\[\]\s]{0,20}\]|\.[A-Za-z_][A-Za-z0-9_]*(?:\(\))?|\([A-Za-z_][\w.\[\]]{0,30}\))*)
      |(?P<op>\*\*|[-+*/^()|,])
      |(?P<other>\S)""",
    re.X,
)
_MAX_BITS = 4096  # numbers past 2**4096 are no bound anyone states; skip them rather than compute


class _Fail(Exception):
    pass


class _TooBig(_Fail):
    """A number too large to compute: the whole term is dropped, not a shorter prefix of it."""


def _tokens(text: str) -> list[tuple[str, str]]:
    return [(m.lastgroup or "other", m.group(0)) for m in _TOKEN_RE.finditer(text)]


def _glued(text: str) -> list[bool]:
    """Per token: whether it is a name or number written right after a name or number (``4n``)."""
    out, prev_end, prev_word = [], -1, False
    for m in _TOKEN_RE.finditer(text):
        word = m.lastgroup in ("num", "name")
        call = m.group(0) == "(" and prev_word  # max(m, n)
        out.append((word or call) and prev_word and m.start() == prev_end)
        prev_end, prev_word = m.end(), word
    return out


def _number(text: str) -> Number:
    s = text.replace(",", "").replace(" ", "")
    if re.fullmatch(r"\d+", s):
        return int(s)
    m = re.fullmatch(r"(\d*)(?:\.(\d+))?[eE]([+-]?\d+)", s)
    if m:
        whole, frac, exp = m.group(1) or "0", m.group(2) or "", int(m.group(3))
        if abs(exp) > 400:
            raise _TooBig
        mant = int(whole + frac)
        exp -= len(frac)
        if exp >= 0:
            return mant * 10**exp
        value = mant / 10 ** (-exp)
        return int(value) if value.is_integer() and mant % 10 ** (-exp) == 0 else value
    return float(s)


class _Expr:
    """Recursive descent over tokens: + - * / ^ ** ( ) | |, numbers, names (symbolic)."""

    def __init__(self, toks: list[tuple[str, str]]):
        self.toks, self.i, self.symbolic = toks, 0, False

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise _Fail
        self.i += 1
        return tok

    def parse(self) -> Number | None:
        value = self.sum()
        if self.i != len(self.toks):
            raise _Fail
        return None if self.symbolic else value

    def sum(self) -> Number | None:
        value = self.product()
        while self.peek() in (("op", "+"), ("op", "-")):
            op, rhs = self.take()[1], self.product()
            value = None if value is None or rhs is None else (value + rhs if op == "+" else value - rhs)
        return value

    def product(self) -> Number | None:
        value = self.unary()
        while self.peek() in (("op", "*"), ("op", "/")):
            op, rhs = self.take()[1], self.unary()
            if value is None or rhs is None:
                value = None
            elif op == "*":
                value = value * rhs
            elif rhs == 0:
                raise _Fail
            elif isinstance(value, int) and isinstance(rhs, int) and value % rhs == 0:
                value = value // rhs
            else:
                value = value / rhs
        return value

    def unary(self) -> Number | None:
        if self.peek() in (("op", "-"), ("op", "+")):
            op = self.take()[1]
            value = self.unary()
            return None if value is None else (-value if op == "-" else value)
        return self.power()

    def power(self) -> Number | None:
        base = self.atom()
        if self.peek() in (("op", "^"), ("op", "**")):
            self.take()
            exp = self.unary()
            if base is None or exp is None:
                return None
            if isinstance(base, int) and isinstance(exp, int) and exp >= 0:
                if abs(base) > 1 and exp * math.log2(abs(base)) > _MAX_BITS:
                    raise _TooBig
                return base**exp
            try:
                value = float(base) ** float(exp)
            except (OverflowError, ZeroDivisionError):
                raise _Fail from None
            if isinstance(value, complex) or math.isinf(value) or math.isnan(value):
                raise _Fail
            return value
        return base

    def atom(self) -> Number | None:
        kind, text = self.take()
        if kind == "num":
            return _number(text)
        if kind == "name":
            self.symbolic = True
            return None
        if (kind, text) in (("op", "("), ("op", "|")):  # (x) and |x|
            value = self.sum()
            if self.take() != ("op", ")" if text == "(" else "|"):
                raise _Fail
            return value if text == "(" or value is None else abs(value)
        raise _Fail


@dataclass
class _Term:
    names: list[str]  # names sharing this position of the chain
    value: Number | None  # numeric value (None: names or a symbolic expression)


def _term(toks: list[tuple[str, str]]) -> _Term | None:
    """A whole token run as a term: a list of names (``a, b``) or an expression; None if neither."""
    if not toks or len(toks) > 40:
        return None
    names: list[str] = []
    i = 0
    while i < len(toks):
        if toks[i][0] == "name":
            names.append(toks[i][1])
            i += 1
        elif toks[i] == ("op", "|") and i + 2 < len(toks) and toks[i + 1][0] == "name" and toks[i + 2] == ("op", "|"):
            names.append(f"|{toks[i + 1][1]}|")
            i += 3
        else:
            names = []
            break
        if i < len(toks):
            if toks[i] != ("op", ","):
                names = []
                break
            i += 1
            if i == len(toks):
                names = []
                break
    if names:
        return _Term(names=[_clean_name(n) for n in names], value=None)
    try:
        value = _Expr(toks).parse()
    except _TooBig:
        raise
    except (_Fail, ValueError, OverflowError, ZeroDivisionError, RecursionError, TypeError):
        return None
    if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):
        return None
    return _Term(names=[], value=value)


_TOO_BIG = _Term([], None)


def _safe_term(toks: list[tuple[str, str]]) -> _Term | None:
    """:func:`_term`, with :data:`_TOO_BIG` for a number too large to compute."""
    try:
        return _term(toks)
    except _TooBig:
        return _TOO_BIG


_STOP_WORDS = {"and", "or", "the", "of", "an", "is", "are", "if", "then", "where", "for", "all", "each",
               "with", "that", "to", "in", "on", "be", "it", "not", "than", "at", "most", "least", "while"}


def _valid_term(term: _Term | None) -> bool:
    return term is not None and not any(n.lower() in _STOP_WORDS for n in term.names)


def _tail_term(toks: list[tuple[str, str]], glued: list[bool]) -> _Term | None:
    """The longest run at the end of ``toks`` that is a term (the left side of an operator)."""
    best = None
    for start in range(len(toks) - 1, max(-1, len(toks) - 16), -1):
        run = toks[start:]
        if run[0][0] == "op" and run[0][1] not in ("-", "(", "|", "+"):
            continue
        if glued[start]:  # ``2n``: a part of a product
            continue
        term = _safe_term(run)
        if term is _TOO_BIG:
            return None
        if _valid_term(term) and (term.value is not None or len(term.names) <= 1 or start == 0):
            best = term
    return best


def _head_term(toks: list[tuple[str, str]], glued: list[bool]) -> _Term | None:
    """The longest run at the start of ``toks`` that is a term (the right side of an operator)."""
    best = None
    for end in range(1, min(len(toks), 16) + 1):
        if end < len(toks) and glued[end]:  # ``4n``: a part of a product
            continue
        term = _safe_term(toks[:end])
        if term is _TOO_BIG:
            return None
        if _valid_term(term) and (term.value is not None or len(term.names) <= 1):
            best = term
    return best


def _clean_name(name: str) -> str:
    return re.sub(r"\s+", "", name).rstrip("'")


# --- chains --------------------------------------------------------------------------------

_CMP_RE = re.compile(r"≤|≥|<|>|≠|≡|(?<![=!<>])=(?![=])")
_ASC, _DESC = {"≤", "<"}, {"≥", ">"}


def _chains(line: str) -> list[tuple[list[_Term], list[str]]]:
    """Comparison chains in a line: terms t0..tk and the operators between them."""
    parts = _CMP_RE.split(line)
    ops = _CMP_RE.findall(line)
    if not ops:
        return []
    seg_toks = [_tokens(p) for p in parts]
    seg_glued = [_glued(p) for p in parts]
    chains: list[tuple[list[_Term], list[str]]] = []
    terms: list[_Term] = []
    chain_ops: list[str] = []

    def close() -> None:
        nonlocal terms, chain_ops
        if chain_ops and len(terms) == len(chain_ops) + 1:
            chains.append((terms, chain_ops))
        terms, chain_ops = [], []

    for j, op in enumerate(ops):
        left = seg_toks[j]
        if not terms:
            term = _tail_term(left, seg_glued[j])
            if term is None:
                continue
            terms = [term]
        right = seg_toks[j + 1]
        last = j == len(ops) - 1
        full = None if last else _safe_term(right)
        if full is _TOO_BIG:
            close()
            continue
        if full is not None:
            terms.append(full)
            chain_ops.append(op)
            continue
        head = _head_term(right, seg_glued[j + 1])
        if head is not None and op in ("≡", "=") and _one_of(parts[j + 1]):
            head = None  # ``x == 0 or 1``: a set of values, no range
        if head is not None:
            terms.append(head)
            chain_ops.append(op)
        close()
        if not last:
            tail = _tail_term(right, seg_glued[j + 1])
            if tail is not None:
                terms = [tail]
    close()
    return chains


def _one_of(segment: str) -> bool:
    """``== 0 or 1``, ``== 0 if ...``: an equality that is no range."""
    return bool(re.match(r"\s*-?[\w.^*]+\s*(?:,\s*-?[\w.^*]+\s*)*(?:,\s*)?\bor\b", segment)
                or re.match(r"\s*[-\w.^*()]+\s+(?:if|when|for|unless|where|except|only)\b", segment))


def _int_adjust(value: Number, delta: int) -> Number:
    return value + delta if isinstance(value, int) else value


def _monotone_pieces(terms: list[_Term], ops: list[str]) -> list[tuple[list[_Term], list[str]]]:
    """A chain split at ``≠`` and where its direction turns (the turning term in both pieces)."""
    pieces: list[tuple[list[_Term], list[str]]] = []
    cur_t, cur_o, direction = [terms[0]], [], None
    for term, op in zip(terms[1:], ops):
        d = "asc" if op in _ASC else "desc" if op in _DESC else None
        if op == "≠" or (d and direction and d != direction):
            pieces.append((cur_t, cur_o))
            cur_t, cur_o, direction = [cur_t[-1]] if op != "≠" else [term], [], None
            if op == "≠":
                continue
        direction = direction or d
        cur_t.append(term)
        cur_o.append(op)
    pieces.append((cur_t, cur_o))
    return pieces


def _term_bounds(p_terms: list[_Term], p_ops: list[str], i: int) -> tuple[Number | None, Number | None]:
    """Term ``i``'s numeric ends in an ascending piece (lower: left of it or equal; upper: right or equal); as written where they cross."""
    lo = hi = None
    for j, v in enumerate(t.value for t in p_terms):
        if v is None or j == i:
            continue
        between = p_ops[j:i] if j < i else p_ops[i:j]
        equal = all(o in ("=", "≡") for o in between)
        if j < i or equal:  # lower bound: from the left, or equal to it
            cand = _int_adjust(v, 1) if "<" in between else v
            lo = cand if lo is None else max(lo, cand)
        if j > i or equal:
            cand = _int_adjust(v, -1) if "<" in between else v
            hi = cand if hi is None else min(hi, cand)
    if lo is not None and hi is not None and lo > hi:
        return _unadjusted(p_terms, p_ops, i)
    return lo, hi


def _equalities_read(p_terms: list[_Term], p_ops: list[str]) -> bool:
    """Whether a piece of equalities alone is read: ``==`` always (``n == nums.length``), a single ``=`` only between sizes and numbers."""
    return not any(o == "=" for o in p_ops) or all(
        any(re.search(r"(\.length|\.size|length)$", n) for n in t.names) or t.value is not None for t in p_terms)


def _chain_bounds(terms: list[_Term], ops: list[str], out: list[Bound], aliases: list[tuple[str, str]]) -> None:
    """Bounds of the names in one monotone chain (``≤``/``<``/``=`` after orienting)."""
    for p_terms, p_ops in _monotone_pieces(terms, ops):
        if not p_ops:
            continue
        has_ineq = any(o in _ASC | _DESC for o in p_ops)
        if any(o in _DESC for o in p_ops):
            p_terms, p_ops = p_terms[::-1], [{">": "<", "≥": "≤"}.get(o, o) for o in p_ops[::-1]]
        if not has_ineq and not _equalities_read(p_terms, p_ops):
            continue
        for i, term in enumerate(p_terms):
            lo, hi = _term_bounds(p_terms, p_ops, i) if term.names else (None, None)
            out.extend(Bound(name, lo, hi) for name in term.names if lo is not None or hi is not None)
        aliases.extend((a.names[0], b.names[0]) for a, op, b in zip(p_terms, p_ops, p_terms[1:])
                       if op in ("≡", "=") and len(a.names) == 1 and len(b.names) == 1)


def _unadjusted(terms: list[_Term], ops: list[str], i: int) -> tuple[Number | None, Number | None]:
    """Strict bounds as written, as floats (``0 < p < 1`` is a real-valued range)."""
    lows = [float(t.value) for t in terms[:i] if t.value is not None]
    highs = [float(t.value) for t in terms[i + 1:] if t.value is not None]
    return (max(lows) if lows else None), (min(highs) if highs else None)


# --- phrases -------------------------------------------------------------------------------

# phrases: the subject is the sentence text before the verb (see _subject_before)
_RANGE_RE = re.compile(
    r"(?i)\s(?:is|are|will be|lies|lie|must be|should be)\s+(?:always\s+)?(?:in|within|from)\s+"
    r"(?:the\s+)?(?:range|interval|segment)?\s*(?:of\s*)?(?P<open>[\[(])\s*(?P<lo>[^,\[\]()]{1,40}?)\s*[,;]\s*(?P<hi>[^,\[\]()]{1,40}?)\s*(?P<close>[\])])")
_AT_MOST_RE = re.compile(
    r"(?i)\s(?:(?:does\s+not|doesn't|do\s+not|don't|will\s+not|won't|can\s+not|cannot|can't|shall\s+not)\s+exceed"
    r"|(?:is|are)\s+(?:at\s+most|not\s+(?:greater|more|larger)\s+than|no\s+(?:more|greater|larger)\s+than))"
    r"\s+(?P<hi>[^.\n;:,]{1,40}?)(?=\s*(?:[.;,\n)]|$|\s[a-z]))")
_BETWEEN_RE = re.compile(
    r"(?i)\s(?:is|are|will\s+be|must\s+be|should\s+be|lies|lie)\s+(?:an?\s+)?(?:integers?|numbers?|values?)?\s*"
    r"(?:between|from)\s+(?P<lo>-?\s*[\d][\d,.^*() ]{0,30}?)\s+(?:and|to)\s+(?P<hi>-?\s*[\d][\d,.^*()]*(?:\s\d{3})*)(?=[\s.,;)]|$)")
_SENTENCE_END = re.compile(r"[\n;:]|\.(?!\w)")


def _subject_before(text: str, pos: int) -> str:
    """The sentence text before ``pos`` (at most 100 characters)."""
    chunk = text[max(0, pos - 100):pos]
    ends = list(_SENTENCE_END.finditer(chunk))
    return chunk[ends[-1].end():] if ends else chunk


_NODES_RE = re.compile(r"(?i)\bnumber of (?:nodes|vertices|elements)\b")
_LENGTH_OF_RE = re.compile(r"(?i)^(?:the\s+)?(?:length|size)\s+of\s+(?:the\s+)?(?:string\s+|array\s+|list\s+)?([A-Za-z_]\w*)$")


def _subject(text: str) -> str | None:
    subj = re.sub(r"\s+", " ", text).strip(" -—–(,")
    subj = re.sub(r"(?i)^(?:and|also|it is guaranteed that|guaranteed that|note that)\s+", "", subj)
    if _NODES_RE.search(subj):
        return "nodes"
    m = _LENGTH_OF_RE.match(subj)
    if m:
        return f"{m.group(1)}.length"
    m = re.match(r"(?i)^(?:the\s+)?(?:value|values)\s+of\s+(?:each|every|all|the)\s+nodes?$", subj)
    if m:
        return "node.val"
    m = re.match(r"(?i)^(?:each|every|all|the)?\s*(?:element|elements|value|values|integer|integers)?\s*(?:of|in)?\s*([A-Za-z_][\w.\[\]]*)$", subj)
    if m and m.group(1).lower() not in _STOP_WORDS and len(m.group(1)) <= 30:
        word = _clean_name(m.group(1))
        if re.match(r"(?i)^(?:each|every|all)\s+(?:element|value|integer)s?\s+(?:of|in)\s+", subj):
            return f"{word}[i]"
        return word
    return None


def _value_of(text: str) -> Number | None:
    term = _safe_term(_tokens(text))
    return term.value if term is not None else None


def _phrase_bounds(text: str, out: list[Bound], aliases: list[tuple[str, str]]) -> None:
    for m in _RANGE_RE.finditer(text):
        name = _subject(_subject_before(text, m.start()))
        if not name:
            continue
        lo, hi = _value_of(m.group("lo")), _value_of(m.group("hi"))
        if lo is not None and m.group("open") == "(":
            lo = _int_adjust(lo, 1)
        if hi is not None and m.group("close") == ")":
            hi = _int_adjust(hi, -1)
        if lo is not None or hi is not None:
            out.append(Bound(name, lo, hi))
    for m in _BETWEEN_RE.finditer(text):
        name = _subject(_subject_before(text, m.start()))
        lo, hi = _value_of(m.group("lo").strip()), _value_of(m.group("hi").strip().rstrip(".,"))
        if name and (lo is not None or hi is not None):
            out.append(Bound(name, lo, hi))
    for m in _AT_MOST_RE.finditer(text):
        name = _subject(_subject_before(text, m.start()))
        hi = _value_of(m.group("hi").strip())
        if name and hi is not None:
            out.append(Bound(name, None, hi))
    for m in re.finditer(r"(?i)number of nodes in (?:the|each|this)? ?(?:binary )?(?:tree|(?:linked )?list|graph)s? is ([A-Za-z_]\w*)\s*[.\n]", text):
        aliases.append(("nodes", m.group(1)))


# --- merging -------------------------------------------------------------------------------


def _merge(bounds: list[Bound]) -> list[Bound]:
    """One bound per name, first-seen order: the intersection of what is stated about it (a chain
    through other names, ``0 ≤ k < n``, adds a weaker bound on ``n`` than ``2 ≤ n``); where the
    statements contradict each other, the first one."""
    merged: dict[str, Bound] = {}
    for b in bounds:
        old = merged.get(b.name)
        if old is None:
            merged[b.name] = b
            continue
        lo = old.lo if b.lo is None else b.lo if old.lo is None else max(old.lo, b.lo)
        hi = old.hi if b.hi is None else b.hi if old.hi is None else min(old.hi, b.hi)
        if lo is not None and hi is not None and lo > hi:
            continue
        merged[b.name] = Bound(b.name, lo, hi)
    return list(merged.values())


def _apply_aliases(bounds: list[Bound], aliases: list[tuple[str, str]]) -> list[Bound]:
    by_name = {b.name: b for b in bounds}
    for _ in range(3):
        changed = False
        for a, b in aliases:
            for src, dst in ((a, b), (b, a)):
                if src in by_name and dst not in by_name:
                    by_name[dst] = Bound(dst, by_name[src].lo, by_name[src].hi)
                    changed = True
        if not changed:
            break
    return list(by_name.values())


def parse_constraints(statement: str) -> list[Bound]:
    """Every bound the statement states, one per name (merged: widest known ends)."""
    try:
        return _parse(statement if isinstance(statement, str) else str(statement or ""))
    except Exception:  # noqa: BLE001 - contract: never raise on any statement text; a parse bug costs bounds, not the caller
        return []


def _parse(statement: str) -> list[Bound]:
    if not statement:
        return []
    raw = _normalize(statement)
    result: list[Bound] = []
    aliases: list[tuple[str, str]] = []
    mentioned: set[str] = set()
    constraints, rest = _relevant_text(raw)
    for first, text in ((True, constraints), (False, rest)):  # the rest only for names the Constraints section does not mention
        if not _POWER_RE.search(text):
            text = _deflatten(text)
        found: list[Bound] = []
        names: set[str] = set()
        for line in text.splitlines():
            if len(line) > 2000 or not _CMP_RE.search(line):
                continue
            try:
                for terms, ops in _chains(line):
                    names.update(n for t in terms for n in t.names)
                    _chain_bounds(terms, ops, found, aliases)
            except (ValueError, TypeError, IndexError, OverflowError, RecursionError):
                continue  # an odd line costs its own bounds only
        _phrase_bounds(text, found, aliases)
        result.extend(b for b in _merge(found) if b.name not in mentioned)
        if first:
            mentioned |= names | {b.name for b in found} | {_clean_name(t) for k, t in _tokens(text) if k == "name"}
    return _apply_aliases(result, aliases)


# --- lookups -------------------------------------------------------------------------------


def _canon(name: str) -> str:
    return re.sub(r"[\s_{}]", "", name).lower()


def lookup(bounds: list[Bound], name: str) -> Bound | None:
    """The bound named ``name``: exact, then ignoring case, then ignoring ``_``/braces (``a_{i}`` ~ ``ai``)."""
    if not bounds or not name:
        return None
    for b in bounds:
        if b.name == name:
            return b
    lower = name.lower()
    for b in bounds:
        if b.name.lower() == lower:
            return b
    canon = _canon(name)
    for b in bounds:
        if _canon(b.name) == canon:
            return b
    return None


_NODE_PARAMS = re.compile(r"(?i)^(root\d*|head\d*|l\d|list\d*|lists|node\d*|tree\d*|original|cloned|target_?node|p|q)$")


def _first(bounds: list[Bound], patterns: list[str]) -> Bound | None:
    for pattern in patterns:
        rx = re.compile(pattern)
        for b in bounds:
            if rx.fullmatch(b.name):
                return b
    for pattern in patterns:
        rx = re.compile(pattern, re.I)
        for b in bounds:
            if rx.fullmatch(b.name):
                return b
    return None


def size_bound(bounds: list[Bound], name: str, depth: int = 0) -> Bound | None:
    """The size range of argument ``name``: ``name.length``, ``len(name)``, ``name.size``, ``|name|``,
    "length of name"; for tree/list parameters (``root``, ``head``, ...) "the number of nodes".

    ``depth=1`` gives the size of the rows (``grid[i].length``), ``depth=2`` one level deeper.
    """
    try:
        if not bounds or not name:
            return None
        n = re.escape(name)
        idx = r"(?:\[[A-Za-z0-9_]+\])"
        pre = rf"{n}{idx}{{{depth}}}" if depth else n
        patterns = [rf"{pre}\.length(?:\(\))?", rf"len\({pre}\)", rf"{pre}\.size(?:\(\))?", rf"\|{pre}\|",
                    rf"length\({pre}\)", rf"size\({pre}\)"]
        found = _first(bounds, patterns)
        if found is None and depth == 0 and _NODE_PARAMS.match(name):
            found = lookup(bounds, "nodes")
        return found
    except re.error:
        return None


def _diagonal(name: str) -> bool:
    """``a[i][i]``: a bound on some elements only."""
    idx = re.findall(r"\[([^\]]*)\]", name)
    return len(idx) != len(set(idx))


def value_bound(bounds: list[Bound], name: str) -> Bound | None:
    """The element range of argument ``name``: ``name[i]``, ``name[i][j]``, ``a_i``, ``a[i]``, ``|a_i|``
    (as ``-hi..hi``), ``node.val`` for tree/list parameters; for a scalar, its own bound (or ``|name|``)."""
    try:
        if not bounds or not name:
            return None
        n = re.escape(name)
        idx = r"(?:\[[A-Za-z_][A-Za-z0-9_]*\])"
        elements = [b for b in bounds if not _diagonal(b.name)]
        found = _first(elements, [rf"{n}{idx}+", rf"{n}_[A-Za-z][A-Za-z0-9]{{0,2}}", rf"{n}{idx}+\.val"])
        if found is not None:
            return Bound(found.name, found.lo, found.hi)
        absolute = _first(bounds, [rf"\|{n}{idx}+\|", rf"\|{n}_[A-Za-z0-9]{{1,3}}\|"])
        if absolute is None and _NODE_PARAMS.match(name):
            found = _first(bounds, [r"node\.val", r"nodes?\.val(?:ue)?", r"\w+\.val"])
            if found is not None:
                return found
        if absolute is None:
            found = lookup(bounds, name)
            if found is not None:
                return found
            absolute = _first(bounds, [rf"\|{n}\|"])
        if absolute is not None and absolute.hi is not None and absolute.hi >= 0:
            return Bound(absolute.name, -absolute.hi, absolute.hi)
        return None
    except re.error:
        return None


# --- character sets ------------------------------------------------------------------------

_CLASSES = [
    (r"lower[\s-]*case(?:\s+english)?(?:\s+latin)?\s+letters|english\s+lower[\s-]*case\s+letters|small\s+(?:english\s+|latin\s+)?letters", string.ascii_lowercase),
    (r"upper[\s-]*case(?:\s+english)?(?:\s+latin)?\s+letters|english\s+upper[\s-]*case\s+letters|capital\s+(?:english\s+|latin\s+)?letters", string.ascii_uppercase),
    (r"digits?|numbers", string.digits),
]


_CONSISTS_RE = re.compile(r"(?i)(?P<subj>[^.\n]{0,80}?)\s+(?:only\s+)?consists?\s+(?:only\s+)?of\s+"
                          r"""(?P<what>(?:'[^'\n]'|"[^"\n]"|[^.\n]){1,160})""")


def alphabet(statement: str, name: str) -> str | None:
    """The characters ``name`` (or ``name[i]``) may contain per "name consists of ..."; None if unstated."""
    try:
        text = _normalize(statement or "")
        n = re.escape(name)
        chars: set[str] = set()
        for m in _CONSISTS_RE.finditer(text):
            subj = m.group("subj")
            if not re.search(rf"(?<![\w\[]){n}(?:\[[a-z]\])*(?![\w\[])", subj):
                continue
            what = m.group("what").lower()
            if re.search(r"lower[\s-]*case|small", what) or re.search(r"upper[\s-]*case|capital", what):
                for pattern, cls in _CLASSES[:2]:
                    if re.search(pattern, what):
                        chars.update(cls)
            elif re.search(r"(?:english|latin)\s+letters|\bletters\b", what):
                chars.update(string.ascii_letters)
            if re.search(r"lower[\s-]*case and upper[\s-]*case|upper[\s-]*case and lower[\s-]*case|both lower", what):
                chars.update(string.ascii_letters)
            if re.search(_CLASSES[2][0], what):
                chars.update(string.digits)
            if re.search(r"\bspaces?\b", what):
                chars.add(" ")
            for single, double in re.findall(r"'(.)'|\"(.)\"", m.group("what")):
                chars.add(single or double)
        if not chars:
            m = re.search(rf"(?i)(?<!\w){n}\s+is\s+a\s+binary\s+string", text)
            if m:
                return "01"
        return "".join(sorted(chars)) or None
    except (re.error, TypeError):
        return None
