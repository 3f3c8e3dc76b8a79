"""Traceability: every sentence of the acceptance contract has a clause, every clause an owning
check or gate (or a stated reason why it is not scored), and the committed table is current."""

from __future__ import annotations

from dataclasses import replace
from unittest.mock import patch

from evaluator.check_set import task_checks
from evaluator.checks.spec import Tested
from evaluator.contract import fragments, read_contract
from evaluator.traceability import owners, problems, range_problems, range_table, render
from records.task import DEFAULT_TASK, load_task

TASK = load_task(DEFAULT_TASK)
ATLAS = task_checks(TASK)


def test_every_contract_clause_is_owned_or_says_why_not() -> None:
    assert problems(read_contract(TASK.contract), TASK) == []


def test_the_committed_table_is_current() -> None:
    markdown = read_contract(TASK.contract)
    assert render(markdown, TASK) == markdown, "run: python -m evaluator.traceability"


def test_every_check_and_gate_owns_clauses() -> None:
    for check in ATLAS.checks:
        assert check.clauses, check.id
        assert set(check.clauses) <= set(ATLAS.clause_by_id), check.id
    assert sorted(ATLAS.gate_clauses) == sorted(ATLAS.gate_ids)
    assert len(ATLAS.gate_ids) == 6
    # The two gaps the sweeps closed: the entrance rule and the non-ASCII areas.
    owned = owners(ATLAS)
    assert "reduced-motion" in owned["shell.entrance"][0]
    assert "filter-journey" in owned["business.edge-cases"][0]


def test_a_new_sentence_without_a_clause_is_caught() -> None:
    markdown = read_contract(TASK.contract).replace(
        "- Entrance transitions are finite",
        "- Every page plays a jingle on load.\n- Entrance transitions are finite",
    )
    assert problems(markdown, TASK) == [
        "no clause covers the contract's words: 'Every page plays a jingle on load'"
    ]


def test_reworded_contract_words_are_caught() -> None:
    markdown = read_contract(TASK.contract).replace("at least 3 columns", "at least three columns")
    found = problems(markdown, TASK)
    assert any("catalogue.grid" in p and "not in the contract" in p for p in found), found


def test_fragments_do_not_split_inside_parentheses_or_code() -> None:
    parts = fragments(read_contract(TASK.contract))
    assert any(p.startswith("URL state: query parameters `type`") and "e.g." in p for p in parts)
    whole = "14 venues in `src/data/venues.json` (read-only for sessions; the evaluator reads "
    whole += "the frozen copy in the task's `starter/`)"
    assert whole in parts


def test_every_banded_clause_names_its_tested_points() -> None:
    """The range table lists every range a clause quantifies over with its edges and the points
    its checks test; mobile-nav's band below 768 px is tested at both edges and inside."""
    assert range_problems(ATLAS) == []
    spans = {(c.id, s.over): s for c in ATLAS.clauses for s in c.spans}
    for clause in ("shell.menu", "shell.menu-wide", "shell.overflow", "catalogue.grid"):
        assert (clause, "viewport width") in spans, clause
    assert spans[("shell.menu", "viewport width")].edges == ("360 px", "767 px")
    tested = {(t.clause, t.over): t.points for c in ATLAS.checks for t in c.tested}
    assert tested[("shell.menu", "viewport width")] == ("360 px", "640 px", "767 px")
    assert tested[("shell.menu-wide", "viewport width")] == ("768 px", "1440 px")
    assert tested[("url.restore", "restore")] == ("deep link", "reload", "Back", "Forward")
    table = range_table(TASK)
    row = next(line for line in table.splitlines() if line.startswith("| `shell.menu` "))
    assert "`360 px`, `640 px`, `767 px`" in row and "untested" not in row


def test_an_untested_edge_is_a_problem_and_shows_in_the_table() -> None:
    """A check that drops the band's upper edge (mobile-nav at 360 px alone, as before) leaves
    the edge visible as untested and traceability fails."""
    mobile = next(c for c in ATLAS.checks if c.id == "mobile-nav")
    narrow = Tested("shell.menu", "viewport width", ("360 px",))
    sampled = replace(mobile, tested=[narrow, *mobile.tested[1:]])
    checks = replace(ATLAS, checks=tuple(sampled if c is mobile else c for c in ATLAS.checks))
    assert range_problems(checks) == [
        "clause 'shell.menu': no check tests the edge '767 px' of its viewport width range"
    ]
    with patch("evaluator.traceability.task_checks", return_value=checks):
        row = next(
            line for line in range_table(TASK).splitlines() if line.startswith("| `shell.menu` ")
        )
        assert "**untested: `767 px`**" in row
        assert any("767 px" in p for p in problems(read_contract(TASK.contract), TASK))


def test_tested_points_must_name_a_range_of_the_clause() -> None:
    mobile = next(c for c in ATLAS.checks if c.id == "mobile-nav")
    odd = replace(mobile, tested=[*mobile.tested, Tested("shell.menu", "route", ("/",))])
    checks = replace(ATLAS, checks=tuple(odd if c is mobile else c for c in ATLAS.checks))
    assert range_problems(checks) == [
        "mobile-nav tests 'shell.menu' over 'route': the clause has no such range"
    ]
