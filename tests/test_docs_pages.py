"""The README, the user guide and the speed notes, as pages.

The README is the front door and stays short; the whole text is the guide
(docs/guide.md), and every measurement lives in docs/speed.md. A speed figure
without its machine cannot be checked by anyone, so every table of timings
or ratios states, just above it, the CPU and the date of the run, and every
section that quotes a figure names them. Links between the pages lead to
headings that exist (GitHub and the docs site both resolve them).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from markdown_pages import (
    GUIDE,
    README,
    ROOT,
    SPEED,
    broken_links,
    has_figure,
    names_machine,
    tables,
    undated_sections,
    undated_tables,
)

PAGES = [README, GUIDE, SPEED]
IDS = ["README", "guide", "speed"]

MAX_README_LINES = 520


def test_readme_stays_short() -> None:
    n = len(README.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_README_LINES, f"README.md has {n} lines; the detail belongs in docs/guide.md"


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_every_table_of_speed_figures_names_its_machine(page: Path) -> None:
    assert not undated_tables(page), undated_tables(page)


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_every_section_quoting_a_speed_figure_names_its_machine(page: Path) -> None:
    assert not undated_sections(page), undated_sections(page)


def test_the_readme_has_one_speed_table_and_speed_md_has_the_rest() -> None:
    readme = [t for t in tables(README) if has_figure("\n".join(t.rows))]
    assert len(readme) == 1, [t.rows[0] for t in readme]
    assert not [t for t in tables(GUIDE) if has_figure("\n".join(t.rows))]
    assert len([t for t in tables(SPEED) if has_figure("\n".join(t.rows))]) >= 10


@pytest.mark.parametrize("page", [GUIDE, SPEED], ids=["guide", "speed"])
def test_links_lead_to_files_and_headings(page: Path) -> None:
    """The README's own links are checked in test_readme.py."""
    assert not broken_links(page), broken_links(page)


def test_the_rule_catches_an_undated_table(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text("## Speed\n\nOn a fast machine:\n\n| call | time |\n|---|---|\n"
                    "| `roc_auc` | 5.1 ms |\n", encoding="utf-8")
    assert undated_tables(page) and undated_sections(page)
    page.write_text("## Speed\n\nOn a 2-core AMD EPYC Zen 5, 2026-12-04:\n\n"
                    "| call | time |\n|---|---|\n| `roc_auc` | 5.1 ms |\n", encoding="utf-8")
    assert not undated_tables(page) and not undated_sections(page)
    assert names_machine("Intel Xeon, 2026-12-02") and not names_machine("Zen 5")


def test_the_guide_and_the_speed_notes_are_in_the_docs_and_the_doctests() -> None:
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert "<guide>" in index and "\nspeed\n" in index
    guide = GUIDE.read_text(encoding="utf-8")
    assert "{include} ../README.md\n:start-after:" in guide, "only the one README section"
    assert guide.count(">>> ") > 100, "the guide is the whole text, examples included"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"docs/guide.md"' in pyproject and "--doctest-glob=guide.md" in pyproject
