"""Failure attribution: what is replaceable (provider outage, harness, evaluator), what is invalid.

Records are written with the real writers; `python -m harness replace` is the operator's command.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from scoring_support import CHECKS, result, session, write_events

from harness.invalidation import INPUTS_CHANGED, UnitFacts, assess, check_identity
from harness.replacement import ReplacementRefused, create_replacement
from records.evidence.evaluation import EvaluationResult
from records.evidence.gateway import GatewaySummary
from records.evidence.round import ReplacementRecord
from records.evidence.session import HUMAN_INTERVENTION_BASIS
from records.io import read_record, write_record
from records.layout import round_paths

ROUND = "showcase"
FROZEN = {"frozen_prompt_sha256": "a" * 64, "frozen_starter_tree_sha256": "b" * 64}
SAME = {"prompt_sha256": "a" * 64, "starter_tree_sha256": "b" * 64}


def record_unit(evidence: Path, key: str, evaluation: Any = None, **overrides: Any) -> str:
    paths = round_paths(ROUND, evidence).unit(f"{key}-r1")
    paths.root.mkdir(parents=True)
    write_record(paths.session, session(key, **{**FROZEN, **SAME, **overrides}))
    write_events(paths.events, [("npm run build", 0)])
    if evaluation is not None:
        paths.result.parent.mkdir(parents=True, exist_ok=True)
        write_record(paths.result, evaluation)
    return paths.root.name


def probe_crashed() -> EvaluationResult:
    """A result whose root-page probe failed inside the evaluator (the gate is not failed)."""
    data = result().model_dump(mode="json")
    data["gates"][1] = {"id": "root-page", "failed": False, "status": "evaluator_error",
                        "reason": "the probe crashed"}  # fmt: skip
    return EvaluationResult.model_validate(data)


def replace(evidence: Path, unit: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", "replace", unit, "--reason", "demo reason",
         "--round", ROUND],
        env=dict(os.environ, SITEOS_EVIDENCE_DIR=str(evidence)),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_changed_inputs_are_invalid_not_a_harness_failure() -> None:
    identity = check_identity("a/b", "a/b", [], [], [])
    verdict = assess(
        UnitFacts(
            stop_status="not_started", exit_code=None,
            hash_problems=["prompt sha256 x != frozen y"], identity=identity,
            gateway=GatewaySummary(), evidence_present=[],
        )
    )  # fmt: skip
    assert (verdict.validity, verdict.failure_class) == ("invalid", "none")
    assert verdict.reasons[:2] == ["prompt/starter: prompt sha256 x != frozen y", INPUTS_CHANGED]
    assert not any("harness failure" in r for r in verdict.reasons)
    assert "refused to start" in INPUTS_CHANGED and "not replaceable" in INPUTS_CHANGED


def test_a_changed_input_session_is_not_replaceable(tmp_path: Path) -> None:
    unit = record_unit(
        tmp_path, "partial-builder", validity="invalid", stop_status="not_started",
        exit_code=None, prompt_sha256="c" * 64, invalid_reasons=[INPUTS_CHANGED],
    )  # fmt: skip
    proc = replace(tmp_path, unit)
    assert proc.returncode == 2, proc.stderr
    assert "prompt or starter differs from the frozen round" in proc.stderr
    assert "create a new round" in proc.stderr


@pytest.mark.parametrize(
    ("key", "overrides", "evaluation", "expected"),
    [
        ("provider-outage", {"failure_class": "provider_outage", "validity": "invalid"}, None,
         "provider_outage"),
        ("idle", {"failure_class": "harness", "validity": "invalid", "stop_status": "crashed"},
         None, "harness"),
        ("strong-builder", {}, result(evaluator_error="Chromium crashed"), "evaluator"),
        ("progress-liar", {}, result(not_executed=("axe",)), "evaluator"),
        ("signer", {}, probe_crashed(), "evaluator"),  # a gate probe's own failure
    ],
)  # fmt: skip
def test_the_command_replaces_exactly_what_the_methodology_allows(
    tmp_path: Path, key: str, overrides: dict[str, Any], evaluation: Any, expected: str
) -> None:
    unit = record_unit(tmp_path, key, evaluation, **overrides)
    proc = replace(tmp_path, unit)
    assert proc.returncode == 0, proc.stderr
    target = round_paths(ROUND, tmp_path).unit(f"{unit}-x1").root / "replacement.json"
    record = read_record(target, ReplacementRecord)
    assert (record.replaced_unit, record.failure_class) == (unit, expected)
    assert record.reason.startswith("demo reason")
    with pytest.raises(ReplacementRefused, match="one replacement"):
        create_replacement(ROUND, unit, "again", evidence_dir=tmp_path)


@pytest.mark.parametrize(
    ("key", "overrides", "evaluation"),
    [
        ("strong-builder", {}, result()),  # scored: the model's result stands
        ("type-breaker", {}, result(not_executed=tuple(c[0] for c in CHECKS),
                                    gates=("install-build",), build_ok=False)),  # its own build
        ("step-burner", {"stop_status": "step_ceiling", "failure_class": "model"}, result()),
        ("identity-swap", {"validity": "invalid", "invalid_reasons": ["identity contradicts"]},
         result()),
    ],
)  # fmt: skip
def test_model_failures_and_invalid_runs_are_refused(
    tmp_path: Path, key: str, overrides: dict[str, Any], evaluation: Any
) -> None:
    unit = record_unit(tmp_path, key, evaluation, **overrides)
    proc = replace(tmp_path, unit)
    assert proc.returncode == 2 and "only provider outages, harness failures and evaluator" in (
        proc.stderr
    )
    assert not round_paths(ROUND, tmp_path).unit(f"{unit}-x1").root.exists()


def test_no_human_intervention_is_recorded_as_a_construction_not_a_measurement() -> None:
    record = session("idle")
    assert record.human_intervention is False
    assert record.human_intervention_basis == HUMAN_INTERVENTION_BASIS
    assert HUMAN_INTERVENTION_BASIS == "none possible (no TTY, stdin closed)"


def test_if_absent_makes_the_command_safe_to_repeat(tmp_path: Path) -> None:
    unit = record_unit(tmp_path, "provider-outage", failure_class="provider_outage")
    assert replace(tmp_path, unit).returncode == 0
    again = replace(tmp_path, unit)
    assert again.returncode == 2 and "already has its one replacement" in again.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "replace", unit, "--reason", "x", "--round", ROUND,
         "--if-absent"],
        env=dict(os.environ, SITEOS_EVIDENCE_DIR=str(tmp_path)),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0 and "already replaces provider-outage-r1" in proc.stdout
    record = read_record(
        round_paths(ROUND, tmp_path).unit(f"{unit}-x1").root / "replacement.json",
        ReplacementRecord,
    )
    assert record.reason == "demo reason"  # unchanged by the repeat


@pytest.mark.parametrize(
    ("result_text", "detail"),
    [(None, "evaluation/result.json missing"),
     ('{"app_dir": "/app", ', "evaluation/result.json unreadable"),
     ('{"app_dir": "/app"}', "evaluation/result.json unreadable")],
)  # fmt: skip
def test_a_missing_or_unreadable_result_is_an_evaluator_failure_and_replaceable(
    tmp_path: Path, result_text: str | None, detail: str
) -> None:
    """The leaderboard lists such a unit as evaluation failed: the command agrees, and a parse
    error is reported in the record, never a refusal."""
    unit = record_unit(tmp_path, "strong-builder")
    if result_text is not None:
        result_path = round_paths(ROUND, tmp_path).unit(unit).result
        result_path.parent.mkdir(parents=True)
        result_path.write_text(result_text)
    proc = replace(tmp_path, unit)
    assert proc.returncode == 0, proc.stderr
    target = round_paths(ROUND, tmp_path).unit(f"{unit}-x1").replacement
    record = read_record(target, ReplacementRecord)
    assert record.failure_class == "evaluator" and f"[{detail}" in record.reason


@pytest.mark.parametrize(
    ("overrides", "lose", "why"),
    [({"validity": "invalid", "invalid_reasons": ["identity contradicts the freeze: x"]}, None,
      "identity contradicts the freeze"),
     ({}, "events", "required evidence missing: events.jsonl"),
     ({"evidence_files": ["events.jsonl", "worktree.tar.gz"]}, None,
      "required evidence missing: worktree.tar.gz")],
)  # fmt: skip
def test_an_invalid_run_is_refused_even_when_its_evaluation_failed(
    tmp_path: Path, overrides: dict[str, Any], lose: str | None, why: str
) -> None:
    """The leaderboard lists these as invalid before it looks at the evaluation."""
    unit = record_unit(tmp_path, "strong-builder", result(evaluator_error="Chromium died"),
                       **overrides)  # fmt: skip
    if lose is not None:
        getattr(round_paths(ROUND, tmp_path).unit(unit), lose).unlink()
    proc = replace(tmp_path, unit)
    assert proc.returncode == 2 and why in proc.stderr, proc.stderr
    assert not round_paths(ROUND, tmp_path).unit(f"{unit}-x1").root.exists()


def test_an_unreadable_session_record_is_refused_with_its_file_named(tmp_path: Path) -> None:
    unit = record_unit(tmp_path, "provider-outage", failure_class="provider_outage")
    session_path = round_paths(ROUND, tmp_path).unit(unit).session
    session_path.write_text("{")
    proc = replace(tmp_path, unit)
    assert proc.returncode == 2 and str(session_path) in proc.stderr
    assert "Traceback" not in proc.stderr
