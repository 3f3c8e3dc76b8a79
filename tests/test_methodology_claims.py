"""The methodology page states the rules with the numbers and names the code uses."""

from __future__ import annotations

import dodo
from harness.replacement import REPLACEABLE
from harness.session.process import PROXY_CEILING_GRACE_SECONDS
from records.evidence.session import HUMAN_INTERVENTION_BASIS
from records.inputs import load_round
from records.layout import REPO_ROOT

PAGE = (REPO_ROOT / "site" / "docs" / "methodology.md").read_text()
FLAT = " ".join(PAGE.split())  # table cells and wrapped lines read as one line


def test_the_proxy_refuses_a_step_not_a_request() -> None:
    steps = load_round("round-0").ceilings.steps
    assert f"refuses **step** {steps + 1}" in FLAT and f"request {steps + 1}" not in FLAT
    assert "retried request repeats its step" in FLAT
    assert f"{PROXY_CEILING_GRACE_SECONDS:g} s grace" in FLAT


def test_calibration_command_is_named_as_this_repository_runs_it() -> None:
    assert "`npm run calibrate`" in FLAT and "it is `doit calibrate`" in FLAT
    assert callable(dodo.task_calibrate)


def test_human_intervention_is_stated_as_by_construction() -> None:
    assert f"**{HUMAN_INTERVENTION_BASIS}**" in FLAT
    assert "it is not measured" in FLAT


def test_replaceable_failures_match_the_replacement_command() -> None:
    assert REPLACEABLE == ("provider_outage", "harness")  # plus evaluator failures from result.json
    assert "accepts exactly these three: a provider outage, a harness failure, an evaluator" in FLAT
    assert "python -m harness replace <unit>" in FLAT


def test_inputs_and_tool_versions_are_described_as_enforced() -> None:
    assert "From the frozen run order on (`order.json`" in FLAT
    assert "`node_version` and agent version are compared with the installed ones" in FLAT
    assert "No advancement is announced on provisional totals" in FLAT
    assert "the literal **2/3**" in FLAT


def test_the_page_lists_the_claims_each_round_kind_may_make() -> None:
    """The rules scoring applies (scoring/claims.py) are the ones the page states, word for word."""
    from scoring import CLAIM_RULES

    assert "## What each round may claim" in PAGE and "## How sure the reviews are" in PAGE
    for shape, rule in CLAIM_RULES.items():
        assert rule in FLAT, shape
    assert "it plans a round, it is not a result" in FLAT


def test_the_page_cites_the_seeds_paths_of_the_task_files() -> None:
    assert (
        "a clean copy of `app-starter/` and the exact bytes of `benchmark/task-prompt.md`" in FLAT
    )
    assert (REPO_ROOT / "app-starter" / "package.json").is_file()
    assert (REPO_ROOT / "benchmark" / "task-prompt.md").is_file()


def test_no_template_words_a_headline_itself() -> None:
    """Every board headline is leaderboard.json's claim: no template says winner or champion."""
    templates = REPO_ROOT / "site" / "templates"
    for path in sorted(templates.glob("*.j2")):
        text = path.read_text()
        for word in ("Winner", "winner", "Champion:", "Top unit"):
            assert word not in text, f"{path.name}: {word!r}"
