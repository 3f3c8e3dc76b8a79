"""Calibration: evaluate the deliberately incomplete starter and demand the frozen outcome.

Passes only when the starter installs and builds, every check executes (no browser/runtime
failure), the task's core journeys are detected missing, the hard gate fails and the automated
score is exactly the task's calibration score (task.json). Writes
evidence/<round>/calibration.json (with the digest of the evaluator's sources that made it) and
the evaluator's output in evidence/<round>/calibration/; a re-run (`doit forget`, a kill) first
moves the earlier ones to evidence/<round>/history/<utc-stamp>/, never replacing them. Exit code
0 only when it passes.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from evaluator.check_set import task_checks
from evaluator.evaluate import evaluate, summary
from records.evidence.evaluation import Calibration, EvaluationResult
from records.io import move_to_history, write_record
from records.layout import (
    EvaluationPaths,
    evaluator_sha256,
)
from records.round import Round
from records.rubric import MAX_AUTOMATED
from records.task import Task


def judge(result: EvaluationResult, task: Task) -> list[str]:
    """Every calibration condition that does not hold for `task`'s starter, as a sentence."""
    checks = task_checks(task)
    expected = task.spec.calibration_score
    passes = set(task.spec.calibration_passes)
    reasons: list[str] = []
    if not result.install_ok:
        reasons.append("the starter did not install (npm ci --offline failed)")
    if not result.build_ok:
        reasons.append("the starter did not build (npm run build failed)")
    if result.evaluator_error:
        reasons.append(f"evaluator error: {result.evaluator_error}")
    not_run = [c.id for c in result.checks if not c.executed]
    if not_run or len(result.checks) != len(checks.checks):
        reasons.append(
            f"only {result.checks_executed}/{len(checks.checks)} checks executed (not run: "
            f"{', '.join(not_run) or 'none'})"
        )
    missing = [j for j, status in result.core_journeys.items() if status == "failed"]
    if sorted(missing) != sorted(checks.core_journeys):
        found = [j for j in checks.core_journeys if j not in missing]
        reasons.append(f"core journeys not detected as missing: {', '.join(found)}")
    if not result.hard_gate_failed:
        reasons.append("the hard gate did not fail")
    if result.automated_score != expected:
        reasons.append(
            f"automated score {result.automated_score}/{MAX_AUTOMATED}, "
            f"expected exactly {expected}/{MAX_AUTOMATED}"
        )
    for check in result.checks:
        should = check.id in passes
        if check.passed != should and check.executed:
            how = "passed" if check.passed else "failed"
            detail = f": {check.diagnostics[0].seen}" if check.diagnostics else ""
            reasons.append(
                f"check {check.id} {how} on the starter (contract: "
                f"{'pass' if should else 'fail'}){detail}"
            )
    return reasons


def materialize(task: Task, dest: Path) -> None:
    try:
        from evaluator.controls.materialize import materialize_starter  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        shutil.copytree(
            task.starter, dest, ignore=shutil.ignore_patterns("node_modules", "dist"), symlinks=True
        )
        return
    materialize_starter(task, dest)


def calibrate(rnd: Round) -> int:
    paths, task = rnd.paths, rnd.task
    checks = task_checks(task)
    expected = task.spec.calibration_score
    out = paths.calibration_dir
    judge_sha256 = evaluator_sha256()  # the evaluator that makes this calibration
    kept = move_to_history([paths.calibration, out], paths.history)  # write-once: never replaced
    if kept is not None:
        print(f"calibration: the earlier calibration is kept in {kept}")
    with tempfile.TemporaryDirectory(prefix="siteos-starter-") as tmp:
        app = Path(tmp) / "app"
        materialize(task, app)
        result = evaluate(app, out, task=task)
    reasons = judge(result, task)
    missing = [j for j, status in result.core_journeys.items() if status == "failed"]
    record = Calibration(
        round_id=rnd.id,
        evaluator_sha256=judge_sha256,
        passed=not reasons,
        automated_score=result.automated_score,
        expected_score=expected,
        checks_executed=result.checks_executed,
        checks_total=len(checks.checks),
        journeys=list(task.spec.journeys),
        hard_gate_failed=result.hard_gate_failed,
        missing_core_journeys=missing,
        install_ok=result.install_ok,
        build_ok=result.build_ok,
        failed_checks=result.failed_checks,
        expected_failed_checks=[c for c in checks.ids if c not in task.spec.calibration_passes],
        reasons=reasons,
        result=str(EvaluationPaths(out).result.relative_to(paths.root)),
        duration_s=result.timings.total_s,
    )
    write_record(paths.calibration, record)
    print(summary(result))
    if reasons:
        print(f"calibration FAILED ({paths.calibration}):", file=sys.stderr)
        for reason in reasons:
            print(f"  - {reason}", file=sys.stderr)
        return 1
    print(f"calibration passed: exactly {expected}/{MAX_AUTOMATED}, wrote {paths.calibration}")
    return 0
