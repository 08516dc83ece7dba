"""README.md: its links lead somewhere and the facts it states match the package.

The README's examples run as doctests (pytest's ``--doctest-glob``); this
checks what doctests cannot: that every in-page link (the contents line and
the "which function to call" table) names a heading, that local files it
links exist, and the headings it links in the user guide (docs/guide.md)
and the speed notes (docs/speed.md) too, and that the version and
distribution name it states are the package's.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from markdown_pages import GUIDE, README, ROOT, SPEED, broken_links, headings, links


def _text() -> str:
    return README.read_text(encoding="utf-8")


def test_in_page_links_name_headings() -> None:
    in_page = [t[1:] for t in links(README) if t.startswith("#")]
    assert len(in_page) >= 20, "the contents line and the table link the sections"
    missing = sorted(set(in_page) - headings(README))
    assert not missing, f"links to no heading: {missing}"


def test_local_links_exist() -> None:
    """Files, and the headings of the guide and the speed notes it links."""
    assert not broken_links(README), broken_links(README)
    for page in (GUIDE, SPEED):
        rel = page.relative_to(ROOT).as_posix()
        anchors = [t.partition("#")[2] for t in links(README) if t.startswith(f"{rel}#")]
        assert set(anchors) <= headings(page), sorted(set(anchors) - headings(page))
    into_guide = [t for t in links(README) if t.startswith("docs/guide.md#")]
    assert len(into_guide) >= 12, "each section of the README leads to its whole text"
    assert "docs/speed.md" in links(README)


def test_version_and_distribution_name_are_the_packages() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    text = _text()
    assert f"This is version {project['version']} " in text
    assert f"pip install {project['name']}" in text
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## {re.escape(project['version'])}\b", changelog, flags=re.M)


@pytest.mark.parametrize("heading", ["Which function to call"])
def test_the_way_in_comes_before_the_first_section(heading: str) -> None:
    text = _text()
    first_section = text.index("\n## ", text.index("```bash"))
    assert text.index(f"## {heading}") == first_section + 1
