"""Reading the repository's Markdown pages for the tests: headings, links, tables.

Fenced code blocks are left out of everything here: a ``#`` comment in a shell
block is no heading, and a program's printed output is no speed figure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
GUIDE = ROOT / "docs" / "guide.md"
SPEED = ROOT / "docs" / "speed.md"

# A speed figure: a time ("5.1 ms", "16.3-18.6 µs", "4.26 s", "8 min") or a
# ratio ("68.5x", "1.25-1.34x"); the number must not be part of a word or a
# longer number, so "float64" and "2**18 scores" are not figures.
TIME = re.compile(r"(?<![\w.*])\d[\d,]*(?:\.\d+)?\s?(?:ms|µs|us|ns|s|min)\b")
RATIO = re.compile(r"(?<![\w.*])\d[\d,]*(?:\.\d+)?x\b")
# The machine a figure was measured on: a CPU (its family or its maker's line)
# and the date of the run.
CPU = re.compile(r"\b(?:Zen ?\d|EPYC|Ryzen|Xeon|Intel|Core i\d|Apple M\d|Graviton|Neoverse)\b")
DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")


def slug(heading: str) -> str:
    """The anchor GitHub (and myst's heading anchors) give a heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def prose_lines(path: Path) -> list[str]:
    """The file's lines, with every line of a fenced code block blanked."""
    out, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append("")
        else:
            out.append("" if fenced else line)
    return out


def is_heading(line: str) -> bool:
    return re.match(r"#{1,6} ", line) is not None


def headings(path: Path) -> set[str]:
    return {slug(line.split(" ", 1)[1]) for line in prose_lines(path) if is_heading(line)}


def links(path: Path) -> list[str]:
    """Every Markdown link target of the file (images included)."""
    text = "\n".join(prose_lines(path))
    return re.findall(r"\]\(([^)\s]+)\)", text)


def is_url(target: str) -> bool:
    return re.match(r"[a-z][a-z0-9+.-]*:", target) is not None


def broken_links(path: Path) -> list[str]:
    """Local links of ``path`` to no file, or to no heading of the file they name."""
    broken = []
    for target in links(path):
        if is_url(target):
            continue
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists():
            broken.append(target)
        elif anchor and dest.suffix == ".md" and anchor not in headings(dest):
            broken.append(target)
    return broken


@dataclass
class Table:
    start: int  # the index of its first line in prose_lines()
    rows: list[str]


def tables(path: Path) -> list[Table]:
    found: list[Table] = []
    lines = prose_lines(path)
    for i, line in enumerate(lines):
        if line.startswith("|") and (i == 0 or not lines[i - 1].startswith("|")):
            j = i
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            found.append(Table(i, lines[i:j]))
    return found


def has_figure(text: str) -> bool:
    return TIME.search(text) is not None or RATIO.search(text) is not None


def names_machine(text: str) -> bool:
    return CPU.search(text) is not None and DATE.search(text) is not None


# How far above a table of figures its machine and date may be stated.
LOOKBACK = 12


def undated_tables(path: Path) -> list[str]:
    """Tables of speed figures whose machine is not named just above them.

    A table holding a time or a ratio needs a CPU and a date in the lines above
    it: at most LOOKBACK lines up, and not beyond its section's heading (the
    heading itself counts).
    """
    lines = prose_lines(path)
    bad = []
    for table in tables(path):
        if not has_figure("\n".join(table.rows)):
            continue
        above: list[str] = []
        for line in reversed(lines[max(0, table.start - LOOKBACK):table.start]):
            above.append(line)
            if is_heading(line):
                break
        if not names_machine("\n".join(above)):
            bad.append(f"{path.name} line {table.start + 1}: {table.rows[0]}")
    return bad


def undated_sections(path: Path) -> list[str]:
    """Sections (heading to heading) that state a speed figure but name no CPU
    and date anywhere in them."""
    sections: list[list[str]] = [[]]
    for line in prose_lines(path):
        if is_heading(line):
            sections.append([])
        sections[-1].append(line)
    return [f"{path.name}: {s[0] if s else '(top)'}" for s in sections
            if has_figure("\n".join(s)) and not names_machine("\n".join(s))]
