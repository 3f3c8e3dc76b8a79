"""The full tier: the showcase round (the whole scripted cast, every control beside it) as
`./scripts/demo --full` runs it, and what only it shows.

Built once by the README's own command (`demo_build(..., "showcase")`, about half an hour on two
cores), so it runs with `./scripts/test --full` (marker `showcase`), not in the default suite, whose
golden round is the quick demo (`tests/test_pipeline.py`). Every behaviour checked here is also
proved at a cheaper level in the default suite; this tier proves that the showcase site a reader
is pointed to really shows each rule path, and that every evaluator control matches.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from demo_build import DemoBuild, demo_build
from rule_paths import unexercised

from evaluator.check_set import task_checks
from evaluator.controls.run import control_names, mutant_patches, variant_patches
from records.controls_stamp import controls_current
from records.evidence.controls import read_controls
from records.evidence.gateway import read_exchanges
from records.evidence.session import SessionRecord
from records.io import read_record
from records.layout import controls_json, round_paths
from records.task import DEFAULT_TASK, load_task

TASK = load_task(DEFAULT_TASK)

pytestmark = [pytest.mark.showcase, pytest.mark.slow, pytest.mark.opencode, pytest.mark.browser]
ROUND = "showcase"


@pytest.fixture(scope="module")
def showcase(tmp_path_factory: pytest.TempPathFactory) -> DemoBuild:
    return demo_build(tmp_path_factory, ROUND)


@pytest.fixture(scope="module")
def built(showcase: DemoBuild) -> Path:
    return showcase.pristine


def board(evidence: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(round_paths(ROUND, evidence).leaderboard.read_text())
    return data


def unit_row(data: dict[str, Any], key: str) -> dict[str, Any]:
    return next(u for u in data["units"] if u["model_key"] == key and u["status"] != "superseded")


def session(evidence: Path, unit: str) -> SessionRecord:
    return read_record(round_paths(ROUND, evidence).unit(unit).session, SessionRecord)


def test_every_rule_path_listed_on_the_methodology_page_is_exercised(built: Path) -> None:
    assert unexercised(ROUND, built) == []
    replacement = round_paths(ROUND, built).unit("provider-outage-r1-x1")
    record = json.loads(replacement.replacement.read_text())
    assert record["replaced_unit"] == "provider-outage-r1"
    assert record["reason"].startswith("showcase:")


def test_every_cast_member_ends_in_its_designed_evidence(built: Path) -> None:
    data = board(built)
    strong = unit_row(data, "strong-builder")
    assert strong["status"] == "ranked" and strong["automated_score"] == 60
    type_breaker = unit_row(data, "type-breaker")
    assert type_breaker["status"] == "gate_failed" and type_breaker["capped"] is True
    assert "install-build" in [g["id"] for g in type_breaker["gates_failed"]]
    assert unit_row(data, "partial-builder")["breakdown"]["functional"]["points"] > 4
    assert unit_row(data, "idle")["automated_score"] == 26
    assert unit_row(data, "progress-liar")["breakdown"]["verification"]["points"] == 0
    assert unit_row(data, "step-burner")["stop_status"] == "step_ceiling"
    assert unit_row(data, "big-spender")["stop_status"] == "budget_ceiling"
    assert unit_row(data, "process-storm")["stop_status"] == "resource_limit"
    assert unit_row(data, "identity-swap")["status"] == "invalid"
    assert unit_row(data, "auth-lost")["status"] == "harness_failure"
    not_testable = {row["model_key"]: row["reason_class"] for row in data["not_testable"]}
    assert not_testable == {
        "flaky-adapter": "adapter_unstable",
        "missing-route": "catalogue",
        "no-tool-choice": "catalogue",
        "slug-mismatch": "catalogue",
        "no-tools": "catalogue",
    }


def test_all_controls_match(built: Path) -> None:
    rows = read_controls(controls_json(built)) or []
    assert [r.control for r in rows] == control_names(
        task_checks(TASK), mutant_patches(TASK.mutants), variant_patches(TASK.variants)
    )
    bad = [(r.control, r.reason) for r in rows if not r.match]
    assert not bad, bad
    positives = [r for r in rows if r.kind != "mutant"]
    assert [r.control for r in positives] == ["reference"] + [
        f"variant-{v}" for v in sorted(variant_patches(TASK.variants))
    ]
    for row in positives:  # must pass: full marks, nothing failed, no gate
        assert (row.actual_score, row.actual_failed_checks, row.gates_failed) == (60, [], []), row
    assert all(r.kind == "mutant" and r.check for r in rows if r not in positives)
    assert controls_current(built)  # a complete, all-matching run of today's judge


def test_the_signing_models_packet_is_redacted_and_flagged(built: Path) -> None:
    rpaths = round_paths(ROUND, built)
    report = json.loads(rpaths.packet_report.read_text())
    signer = next(p for p in report["packets"] if p["unit"] == "signer-r1")
    assert signer["flags"] == ["text_redacted", "media_shows_identity"]
    assert any(m.startswith("screenshots/") for m in signer["media_showing_identity"])
    packet = rpaths.packets_dir / signer["code"]
    assert "Inkwell" not in (packet / "changes.diff").read_text()
    assert "[redacted]" in (packet / "changes.diff").read_text()


def test_step_ceiling_stop_is_scored_with_status(built: Path) -> None:
    record = session(built, "step-burner-r1")
    assert (record.stop_status, record.validity, record.failure_class) == (
        "step_ceiling", "valid", "model")  # fmt: skip
    assert record.steps == 40 and record.gateway.refused >= 1
    assert record.commands == 40
    diff = round_paths(ROUND, built).unit("step-burner-r1").diff.read_text()
    assert "+step 40" in diff  # the work up to the ceiling is kept


def test_one_transient_503_is_a_disclosed_transport_retry(built: Path) -> None:
    record = session(built, "transient-503-r1")
    assert (record.stop_status, record.validity, record.failure_class) == (
        "completed", "valid", "none")  # fmt: skip
    gw = record.gateway
    assert gw.retries == 0 and gw.transport_retries >= 1 and record.harness_retries == 0
    assert gw.transport_retry_classes == {"upstream_5xx": gw.transport_retries}
    assert gw.error_classes == {"upstream_5xx": 1}
    records = read_exchanges(round_paths(ROUND, built).unit("transient-503-r1").gateway)
    failed, retried = next(
        (a, b) for a, b in zip(records, records[1:], strict=False) if a.status == 503
    )
    assert retried.transport_retry and retried.step == failed.step and retried.status == 200


def test_the_big_spender_ends_within_its_ceiling(built: Path) -> None:
    record = session(built, "big-spender-r1")
    assert record.cost_usd is not None and record.cost_usd <= record.ceilings.budget_usd == 5.0
    assert record.stop_status == "budget_ceiling" and record.validity == "valid"
    assert record.gateway.max_tokens_changes, "the hard budget lowered max_tokens at least once"
