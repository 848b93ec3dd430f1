"""The README stays a newcomer's guide and the docs stay whole: README.md is at most 300 lines and
keeps the two commands; every relative link (and image) in README.md and docs/*.md reaches a file
that exists, and a ``#anchor`` a heading of that file (GitHub's heading ids); every docs page is
linked from the README. Reads files only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_README_LINES = 300
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks, with inline code spans removed."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(CODE_SPAN.sub("", line))
    return lines


def slug(heading: str) -> str:
    """GitHub's id for a heading: markup and punctuation dropped, lower case, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in prose_lines(path.read_text()):
        if m := HEADING.match(line):
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


def relative_links(path: Path) -> list[str]:
    return [target for line in prose_lines(path.read_text()) for target in LINK.findall(line)
            if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target)]  # http:, https:, mailto: are not checked


def test_readme_is_a_short_guide():
    text = README.read_text()
    assert len(text.splitlines()) <= MAX_README_LINES
    for command in ("scripts/main.sh", "scripts/test.sh", "microcoder run", ".ci/run"):
        assert command in text, command


def test_the_slug_is_githubs():
    assert slug("Hidden tests: Verify's test generation") == "hidden-tests-verifys-test-generation"
    assert slug("GPU training and Ray clusters") == "gpu-training-and-ray-clusters"
    assert slug("The `sampler` resource, v2.0") == "the-sampler-resource-v20"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    broken = []
    for target in relative_links(page):
        file_part, _, anchor = target.partition("#")
        dest = (page.parent / file_part).resolve() if file_part else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert broken == []


def test_every_docs_page_is_linked_from_the_readme():
    linked = {(README.parent / t.partition("#")[0]).resolve() for t in relative_links(README)}
    assert [str(p.relative_to(ROOT)) for p in PAGES[1:] if p.resolve() not in linked] == []
