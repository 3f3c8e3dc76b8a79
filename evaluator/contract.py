"""A task contract's clauses: every requirement of the task's `contract.md`, quoted.

A task's checks package lists its `CLAUSES` (atlas-rooms: `evaluator/checks/clauses.py`), each
quoting the contract's own words (whitespace-normalised; a table row reads "cell: cell; cell").
Checks and gates name the clauses they own (`Check.clauses`, the package's `GATE_CLAUSES`); a
clause nobody owns states why it is not scored. The traceability table in the contract is
generated from these (`python -m evaluator.traceability`), and a test fails when a sentence of
the contract has no clause, a clause no owner and no reason, or the table is stale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

UNSCORED_SECTIONS = ("The ", "Traceability")
"""Sections that are not requirements: the scoring tables (headings "The 15 scored checks…")
and the generated traceability table. "The business" is a requirement section."""


@dataclass(frozen=True)
class Span:
    """A range a clause quantifies over, as the contract states it: what varies (`over`: "viewport
    width", "filter control", "route") and the points any test of the clause must include (`edges`:
    both ends of a band, or every member of a finite set the contract enumerates)."""

    over: str
    edges: tuple[str, ...]


@dataclass(frozen=True)
class Clause:
    id: str
    text: str
    not_scored: str = ""
    """Why no check or gate owns it (empty when one does)."""
    spans: tuple[Span, ...] = ()
    """The ranges the clause quantifies over (a band, every control of a kind, every state); its
    owning check names the points it tests in each (`Check.tested`), the traceability's range
    table lists them and fails on an edge no check tests."""


def _requirement_lines(markdown: str) -> list[str]:
    """The contract's requirement text: sections other than the scoring tables and the
    traceability table, headings and table headers dropped, a table row as "cell: cell; cell"."""
    lines = markdown.splitlines()
    out: list[str] = []
    keep = False
    for i, line in enumerate(lines):
        if line.startswith("## "):
            title = line[3:].strip()
            keep = title == "The business" or not title.startswith(UNSCORED_SECTIONS)
            continue
        if not keep or line.startswith("# ") or line.lstrip().startswith("<!--"):
            continue
        if line.startswith("|"):
            following = lines[i + 1] if i + 1 < len(lines) else ""
            if re.fullmatch(r"\|[-:| ]+\|", line) or re.fullmatch(r"\|[-:| ]+\|", following):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            out.append(f"{cells[0]}: {'; '.join(cells[1:])}.")
            continue
        out.append(re.sub(r"^\s*- ", "", line))
    return out


def normalise(text: str) -> str:
    return " ".join(text.split())


def requirement_text(markdown: str) -> str:
    """The contract's requirements as one whitespace-normalised string."""
    return normalise(" ".join(_requirement_lines(markdown)))


def fragments(markdown: str) -> list[str]:
    """The requirement text cut into sentences and `;`-separated clauses (never inside
    parentheses or code spans), each without its closing punctuation."""
    text = requirement_text(markdown)
    parts: list[str] = []
    depth, code, start = 0, False, 0
    for i, char in enumerate(text):
        if char == "`":
            code = not code
        elif not code and char in "([":
            depth += 1
        elif not code and char in ")]":
            depth = max(0, depth - 1)
        elif not code and depth == 0 and char in ".;" and text[i + 1 : i + 2] in (" ", ""):
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def read_contract(path: Path) -> str:
    return path.read_text(encoding="utf-8")
