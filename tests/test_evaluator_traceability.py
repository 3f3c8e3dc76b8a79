"""Traceability: every sentence of the acceptance contract has a clause, every clause an owning
check or gate (or a stated reason why it is not scored), and the committed table is current."""

from __future__ import annotations

from evaluator.check_set import task_checks
from evaluator.contract import fragments, read_contract
from evaluator.traceability import owners, problems, render
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
