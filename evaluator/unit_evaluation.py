"""Evaluate one recorded unit: unpack its final worktree archive and run the evaluator on it."""

from __future__ import annotations

import tarfile
import tempfile
from pathlib import Path

from evaluator.evaluate import evaluate
from records.archive import archive_altered
from records.evidence.evaluation import EvaluationResult
from records.evidence.session import SessionRecord
from records.io import move_to_history, read_record
from records.layout import UnitPaths, evaluator_sha256
from records.manifest import write_evaluation_manifest
from records.round import Round

UNIT_LANES = 1
"""The browser phase's lanes for a round's unit: one. A round evaluates its units beside its
sessions and each other (`doit -n 2`), so the cores are full without lanes, and each lane is a
Chromium and a Playwright of its own. Measured (evaluator/README.md, "Speed"): two evaluations at
once took the same wall time on one lane each as on three and 10-17% less CPU; the quick demo
round 110 s either way, 168 busy CPU s against 195. A lone evaluation (the controls,
calibration, the command line) keeps a lane per core. Where a unit's evaluation finds the cores
idle (a live round's sessions mostly wait on the gateway) one lane costs it about 5 s (a browser
phase of 17 s against 12), beside sessions of minutes. The lanes change no verdict (`plan_lanes`;
the determinism test judges the reference on three lanes and on one)."""


class NoWorktree(RuntimeError):
    """The unit left no worktree archive (it never started, or crashed before any work)."""


def unpack_worktree(archive: Path, dest: Path) -> Path:
    """Extract `worktree.tar.gz` with the safe `data` filter (no links or paths outside `dest`)."""
    with tarfile.open(archive, mode="r:gz") as tar:
        tar.extractall(dest, filter="data")
    root = dest / "worktree"
    if not root.is_dir():
        raise NoWorktree(f"{archive}: no top-level worktree/ folder inside the archive")
    return root


class ArchiveMismatch(RuntimeError):
    """worktree.tar.gz is not the archive the runner recorded: evidence altered or corrupt."""


def check_archive(paths: UnitPaths) -> None:
    """Refuse an archive whose SHA-256 differs from the one session.json recorded (session.json
    schema 3; an older record has no hash, so there is nothing to check)."""
    if not paths.session.exists():
        return
    altered = archive_altered(paths, read_record(paths.session, SessionRecord))
    if altered:
        raise ArchiveMismatch(
            f"{paths.archive}: {altered} ({paths.session}): the unit's evidence was altered, so "
            "it is not evaluated; the leaderboard lists it as invalid (evidence missing/altered)"
        )


def evaluate_unit(rnd: Round, unit: str) -> EvaluationResult:
    """Evaluate `units/<unit>/worktree.tar.gz` into `units/<unit>/evaluation/`, once the archive
    is the one its session recorded; an earlier evaluation moves to `history/<utc-stamp>/`. The
    evaluation's manifest (result, screenshots, video, the evaluator's digest) is written last."""
    paths = rnd.unit(unit)
    if not paths.archive.exists():
        raise NoWorktree(f"{paths.archive}: missing; the unit has no final tree to evaluate")
    check_archive(paths)
    kept = move_to_history([paths.evaluation], paths.history)  # a re-evaluation keeps the earlier
    if kept is not None:
        print(f"{unit}: the earlier evaluation is kept in {kept}")
    judge = evaluator_sha256()  # the evaluator that judges, as the manifest records it
    with tempfile.TemporaryDirectory(prefix="siteos-unit-") as scratch:
        app = unpack_worktree(paths.archive, Path(scratch))
        result = evaluate(app, paths.evaluation, task=rnd.task, lanes=UNIT_LANES)
    write_evaluation_manifest(paths, result, judge)
    return result
