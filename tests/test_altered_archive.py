"""A worktree archive that is not the one the runner recorded (issue 29).

The runner's own writers make the archive (`save_worktree_evidence`) and record its SHA-256 in
session.json (`harness.unit` stores `file_sha256(paths.archive)`); the fault injected is one byte
appended to worktree.tar.gz after the session. Such a unit is invalid with the archive named
(evidence missing/altered), not an evaluation failure: never evaluated, scored or replaced, and
doit's evaluate stage says so and carries on to scoring instead of stopping the round.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from scoring_support import make_round, make_unit, result, session

import dodo
from harness.parallel import Scheduled
from harness.session.evidence import save_worktree_evidence
from records.evidence.session import SessionRecord
from records.hashing import file_sha256
from records.io import write_record
from records.layout import UnitPaths
from records.round import Round
from scoring.evidence import RoundContext
from scoring.pipeline import score_context

EVIDENCE_FILES = ["events.jsonl", "trace.json", "worktree.diff",
                  "worktree.tar.gz", "PROGRESS.md"]  # fmt: skip


def record_archive(paths: UnitPaths, tmp_path: Path, record: SessionRecord) -> None:
    """worktree.tar.gz as the runner saves it, and session.json holding its SHA-256."""
    tree = tmp_path / "tree" / paths.root.name
    tree.mkdir(parents=True)
    (tree / "index.html").write_text("<!doctype html><title>Venues</title>\n")
    save_worktree_evidence(paths, tree, None)
    recorded = record.model_copy(
        update={
            "worktree_archive_sha256": file_sha256(paths.archive),
            "evidence_files": EVIDENCE_FILES,
        }  # fmt: skip
    )
    write_record(paths.session, recorded)


def alter(paths: UnitPaths) -> None:
    with paths.archive.open("ab") as handle:
        handle.write(b"\0")


def recorded_unit(
    ctx: RoundContext, tmp_path: Path, key: str, evaluated: bool
) -> tuple[str, UnitPaths]:
    record = session(key)
    unit = make_unit(ctx, key, record, result() if evaluated else None)
    paths = ctx.paths.unit(unit)
    record_archive(paths, tmp_path, record)
    return unit, paths


@pytest.mark.parametrize("evaluated", [False, True], ids=["before-evaluation", "after"])
def test_an_altered_archive_is_invalid_with_the_file_named(tmp_path: Path, evaluated: bool) -> None:
    """Before its evaluation (no result.json: it was an 'evaluation failed', replaceable) or
    after it (a result of the archive as it was)."""
    ctx = make_round(tmp_path)
    unit, paths = recorded_unit(ctx, tmp_path, "strong-builder", evaluated)
    intact, _ = recorded_unit(ctx, tmp_path, "signer", evaluated=True)
    alter(paths)
    rows = {r.unit: r for r in score_context(ctx).units}
    row = rows[unit]
    archive = f"units/{unit}/worktree.tar.gz"
    assert (row.status, row.evidence_missing) == ("invalid", [archive]), row
    assert row.status_reasons[0].startswith(f"required evidence altered: {archive}: SHA-256 ")
    assert "recorded in session.json" in row.status_reasons[0]
    assert row.rank is None and row.total is None and not row.advancement.advanced
    assert rows[intact].status == "ranked"  # the recorded archive, unaltered, is scored


def replace(evidence: Path, unit: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", "replace", unit, "--reason", "evaluator failed",
         "--round", "test"],
        env=dict(os.environ, SITEOS_EVIDENCE_DIR=str(evidence)),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_harness_replace_refuses_an_altered_archive(tmp_path: Path) -> None:
    ctx = make_round(tmp_path)
    unit, paths = recorded_unit(ctx, tmp_path, "strong-builder", evaluated=False)
    alter(paths)
    proc = replace(tmp_path, unit)
    assert proc.returncode == 2, proc.stderr
    assert "required evidence altered: worktree.tar.gz: SHA-256" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not ctx.paths.unit(f"{unit}-x1").root.exists()


def test_an_unaltered_unit_without_a_result_stays_replaceable(tmp_path: Path) -> None:
    """The control: the same unit, archive intact, is an evaluator failure and replaceable."""
    ctx = make_round(tmp_path)
    unit, _ = recorded_unit(ctx, tmp_path, "strong-builder", evaluated=False)
    proc = replace(tmp_path, unit)
    assert proc.returncode == 0, proc.stderr
    assert ctx.paths.unit(f"{unit}-x1").replacement.exists()


def test_doit_evaluate_names_the_altered_archive_and_carries_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real evaluate stage (`evaluate_unit` on this evidence folder) refuses before it
    unpacks anything; doit's task succeeds with the alteration saved, so scoring runs, and the
    score task depends on the archive, so a later alteration rebuilds the board."""
    monkeypatch.setattr(dodo, "ROUND", Round(dodo.ROUND.settings, tmp_path))
    paths = dodo.ROUND.unit("strong-builder-r1")
    record_archive(paths, tmp_path, session("strong-builder"))
    alter(paths)
    values = dodo.evaluate_stage("strong-builder-r1")
    assert isinstance(values, dict) and values["altered"] is True
    err = capsys.readouterr().err
    assert "EVIDENCE ALTERED, strong-builder-r1 not evaluated" in err
    assert f"{paths.archive}: SHA-256" in err
    assert not paths.result.exists()
    assert dodo.evaluation_current("strong-builder-r1")(None, values) is False  # checked again
    monkeypatch.setattr(dodo, "scheduled_units", lambda: [Scheduled.of("strong-builder-r1")])
    assert str(paths.archive) in dodo.task_score()["file_dep"]  # the board follows the archive
