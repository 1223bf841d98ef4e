"""The README and the docs pages: every relative link resolves, every ``#anchor`` names a
heading of its target, and the README stays short and speaks of the software.

Anchors follow GitHub's rule for heading ids: lowercase, punctuation other than ``-`` and
spaces dropped, each space turned into ``-``, and ``-1``, ``-2``, ... appended to repeated
headings. Links inside code spans and fenced code blocks are not links and are skipped.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "config" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

README_MAX_LINES = 150
# Words of the history of the work, not of the software: issue and session numbers, work
# "in progress" or done "so far", dates of runs.
PROCESS_WORDS = re.compile(r"[Ii]ssue [0-9]|[Ss]ession [0-9]|in progress|20[0-9]{2}-[0-9]{2}-[0-9]{2}|so far")

_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"`+[^`]*`+")
_LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def _prose_lines(text):
    """The lines outside fenced code blocks, with their 1-based numbers."""
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def github_slug(heading):
    """GitHub's id for a heading's text (markdown emphasis and code marks removed first)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading: its text
    text = text.replace("`", "").replace("*", "").replace("<ins>", "").replace("</ins>", "")
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)  # \w keeps letters and digits of any script
    return text.replace(" ", "-")


def anchors(path):
    """Every heading id of a markdown file, duplicates numbered as GitHub does."""
    seen = {}
    ids = set()
    for _, line in _prose_lines(path.read_text(encoding="utf-8")):
        match = _HEADING.match(line)
        if not match:
            continue
        slug = github_slug(match.group(2))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        ids.add(slug if count == 0 else f"{slug}-{count}")
    return ids


def _blank(match):
    return " " * len(match.group(0))


def relative_links(path):
    """(line number, target) for every relative link and image of a markdown file; a link's
    text may run over several lines."""
    text = path.read_text(encoding="utf-8")
    prose = dict(_prose_lines(text))
    # fenced lines become empty (line numbers stay), code spans become blanks of equal length
    lines = [_CODE_SPAN.sub(_blank, prose.get(n, "")) for n in range(1, len(text.splitlines()) + 1)]
    joined = "\n".join(lines)
    found = []
    for pattern in (_LINK, _IMAGE):
        for match in pattern.finditer(joined):
            target = match.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):  # http:, mailto:, ...
                continue
            found.append((joined.count("\n", 0, match.start()) + 1, match.start(), target))
    return [(number, target) for number, _, target in sorted(found)]


def test_the_slug_rule_matches_githubs():
    assert github_slug("How long the default run takes") == "how-long-the-default-run-takes"
    assert github_slug("Speed beside the authors' code") == "speed-beside-the-authors-code"
    assert github_slug("TIcE: thesis Tables 3.3-3.4 and Figures 3.1-3.4") == (
        "tice-thesis-tables-33-34-and-figures-31-34"
    )
    assert github_slug("KM1 / KM2") == "km1--km2"
    assert github_slug("PU Extra Trees (`pu_lib.trees`)") == "pu-extra-trees-pu_libtrees"


def test_the_link_finder_sees_links_and_skips_code(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n[a](b.md) and [c](d.md#e), `[not](code.md)`, [web](https://x.org)\n"
        "```\n[not](fenced.md)\n```\n![img](fig.png) [two\nlines](f.md#g)\n",
        encoding="utf-8",
    )
    assert [t for _, t in relative_links(page)] == ["b.md", "d.md#e", "fig.png", "f.md#g"]
    assert anchors(page) == {"title"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page):
    broken = []
    for number, target in relative_links(page):
        file_part, _, anchor = target.partition("#")
        dest = (page.parent / file_part).resolve() if file_part else page
        where = f"{page.relative_to(ROOT)}:{number}: {target}"
        if not dest.exists():
            broken.append(f"{where} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{where} (no heading with id {anchor!r} in {dest.name})")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move detail to docs/"


def test_readme_speaks_of_the_software_not_the_work():
    hits = [
        f"README.md:{number}: {line.strip()}"
        for number, line in enumerate((ROOT / "README.md").read_text(encoding="utf-8").splitlines(), start=1)
        if PROCESS_WORDS.search(line)
    ]
    assert not hits, "process words in the README:\n" + "\n".join(hits)
