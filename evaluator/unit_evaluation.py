"""Evaluate one recorded unit: unpack its final worktree archive and run the evaluator on it."""

from __future__ import annotations

import tarfile
import tempfile
from pathlib import Path

from evaluator.evaluate import evaluate
from records.evidence.evaluation import EvaluationResult
from records.layout import EVIDENCE_DIR, round_paths


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


def evaluate_unit(round_id: str, unit: str, evidence_dir: Path = EVIDENCE_DIR) -> EvaluationResult:
    """Evaluate `units/<unit>/worktree.tar.gz` into `units/<unit>/evaluation/`."""
    paths = round_paths(round_id, evidence_dir).unit(unit)
    if not paths.archive.exists():
        raise NoWorktree(f"{paths.archive}: missing; the unit has no final tree to evaluate")
    with tempfile.TemporaryDirectory(prefix="siteos-unit-") as scratch:
        app = unpack_worktree(paths.archive, Path(scratch))
        return evaluate(app, paths.evaluation)
