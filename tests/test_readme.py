"""The README reads in two minutes and loses nothing: its length, its two quick-start commands, the
safety sentences it keeps, and the pages its detail moved to (their links, the demo's cast, the
dated timings table)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rule_paths import SHOWCASE, table

from records.layout import REPO_ROOT

README = REPO_ROOT / "README.md"
PERFORMANCE = REPO_ROOT / "docs" / "performance.md"
DEMO_README = REPO_ROOT / "benchmark" / "demo" / "README.md"
PAGES = (
    README,
    PERFORMANCE,
    DEMO_README,
    REPO_ROOT / "tests" / "README.md",
    REPO_ROOT / "docs" / "running-a-round.md",
)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`]*`")


def prose(text: str) -> str:
    """The text without fenced blocks and code spans (where brackets are not links)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors of a Markdown page."""
    headings = re.findall(r"^#+\s+(.+)$", FENCE.sub("", page.read_text()), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def section(text: str, heading: str) -> str:
    return text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]


def table_rows(text: str) -> list[list[str]]:
    """The body rows of the page's Markdown tables, cells stripped."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows]
    return [row for row in cells if not set("".join(row)) <= set("-:")][1:]


def test_the_readme_is_at_most_120_lines() -> None:
    assert len(README.read_text().splitlines()) <= 120


def test_quick_start_is_exactly_the_two_commands() -> None:
    block = section(README.read_text(), "Quick start").split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == ["./scripts/demo", "./scripts/test"]


def test_the_readme_keeps_its_safety_sentences() -> None:
    text = " ".join(README.read_text().split())
    for sentence in (
        "reaches only the recording proxy; never written anywhere",
        "nothing the pipeline starts talks beyond loopback",
        "paid evidence is never deleted",
    ):
        assert sentence in text, sentence


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    for target in LINK.findall(prose(page.read_text())):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name}: {target}"
        if anchor:
            assert anchor in anchors(linked), f"{page.name}: {target}"


def test_the_demo_cast_names_every_candidate_and_its_rule_paths() -> None:
    cohort = json.loads((REPO_ROOT / "benchmark" / "showcase-cohort.json").read_text())
    quick = json.loads((REPO_ROOT / "benchmark" / "demo-cohort.json").read_text())
    shown: dict[str, set[str]] = {}
    for row in table(SHOWCASE):
        for name in row.names:
            shown.setdefault(name, set()).add(row.id)
    cast = {
        row[0].strip("`"): set(re.findall(r"`([^`]+)`", row[3]))
        for row in table_rows(section(DEMO_README.read_text(), "The cast"))
    }
    assert list(cast) == [c["key"] for c in cohort["candidates"]]
    assert cast == {key: shown.get(key, set()) for key in cast}
    quick_sentence = " ".join(section(DEMO_README.read_text(), "The quick demo").split())
    named = re.findall(r"`([a-z0-9-]+)`", quick_sentence)
    assert sorted(c["key"] for c in quick["candidates"]) == sorted(k for k in named if k in cast)


def test_every_timing_row_is_dated_and_names_a_command() -> None:
    rows = table_rows(PERFORMANCE.read_text())
    assert len(rows) >= 20
    for row in rows:
        assert len(row) == 5, row
        assert re.match(r"\d{4}-\d{2}-\d{2}", row[2]), row
        assert row[4], row
        for script in re.findall(r"scripts/[\w.-]+", row[4]):
            assert (REPO_ROOT / script).exists(), script
