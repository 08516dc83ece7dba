"""README.md: its links lead somewhere and the facts it states match the package.

The README's examples run as doctests (pytest's ``--doctest-glob``); this
checks what doctests cannot: that every in-page link (the contents line and
the "which function to call" table) names a heading, that local files it
links exist, and that the version and distribution name it states are the
package's.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def _slug(heading: str) -> str:
    """The anchor GitHub (and myst's heading anchors) give a heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _text() -> str:
    return README.read_text(encoding="utf-8")


def test_in_page_links_name_headings() -> None:
    text = _text()
    headings = {_slug(h) for h in re.findall(r"^#{1,4} (.+)$", text, flags=re.M)}
    links = re.findall(r"\]\(#([^)]+)\)", text)
    assert len(links) >= 20, "the contents line and the table link the sections"
    missing = sorted(set(links) - headings)
    assert not missing, f"links to no heading: {missing}"


def test_local_links_exist() -> None:
    for target in re.findall(r"\]\(([^)#:]+)\)", _text()):
        assert (ROOT / target).exists(), target


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
