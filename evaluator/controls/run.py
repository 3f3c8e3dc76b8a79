"""Controls: the reference solution must score full marks with no gate failing; each legal variant
(`variants/<name>.patch`: a correct implementation that differs from the reference in a way the
contract allows, applied with `patch -p1` on top of it) must too ("must pass"); and each mutant
(one small, realistic defect, `mutants/<check-id>.patch` or `mutants/<check-id>--<variant>.patch`)
must lose exactly its own check's points while every other check still passes, and fail exactly
the gates its header names (`# expect-gates: core-journey`; none when absent) ("must lose exactly
its check"). A patch's leading `#` lines describe it; a variant's `# exercises: <clause ids>` line
names the contract clauses it exercises (the traceability table shows them).

    python -m evaluator controls [--only reference,variant-native-dialog,mutant-url-state]

writes evidence/controls.json (`ControlsRecord`, schema 3: {schema_version, controls: [{control,
kind, check, expected_score, actual_score, expected_failed_checks, actual_failed_checks,
gates_failed, match, reason, ...}]}, kind: reference, variant or mutant) and each control's
evaluator output under evidence/controls/<control>/; exits non-zero on any mismatch.

Every control is a full evaluation (a private copy, check, build, browser, all checks) except the
install: no mutant touches package.json or the lockfile, so the reference's dependencies are
installed once (`npm ci --offline` in the build sandbox) and every control gets a hard-linked copy
of that node_modules (its install log says so); if that one install fails, each control installs
for itself. Only the reference keeps video, trace and screenshots; the variants and mutants keep
result.json, logs and axe.json.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from evaluator.build import make_workspace, run_step, timed_copy
from evaluator.check_set import CheckSet, task_checks
from evaluator.controls.patches import (
    check_of,
    describe,
    exercised_clauses,
    expected_gates,
    mutant_patches,
    touches_dependencies,
    variant_patches,
)
from evaluator.evaluate import evaluate
from records.controls_stamp import inputs_record
from records.evidence.controls import ControlKind, ControlRow, read_controls, write_controls
from records.evidence.evaluation import MAX_AUTOMATED
from records.io import write_record
from records.layout import (
    EVIDENCE_DIR,
    EvaluationPaths,
    controls_dir,
    controls_inputs_json,
    controls_json,
)
from records.task import Task

__all__ = [
    "check_of",
    "describe",
    "exercised_clauses",
    "expected_gates",
    "mutant_patches",
    "run_controls",
    "touches_dependencies",
    "variant_patches",
]


def apply_patch(app: Path, patch: Path) -> str | None:
    """Apply `patch` to `app`; None on success, else why it did not apply."""
    proc = subprocess.run(
        [
            "patch",
            "-p1",
            "--batch",
            "--forward",
            "--no-backup-if-mismatch",
            "-d",
            str(app),
            "-i",
            str(patch),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if proc.returncode != 0:
        return f"patch did not apply: {(proc.stdout + proc.stderr).strip()[:500]}"
    return None


def _mutant_order(ids: list[str], mutant: str) -> tuple[int, str]:
    """Mutants in the task's check order, a check's further mutants after its plain one."""
    check = check_of(mutant)
    return (ids.index(check) if check in ids else len(ids), mutant)


@dataclass(frozen=True)
class Control:
    """One control: its name in controls.json, its kind, the patch applied on the reference (none
    for the reference) and, for a mutant, the check it must fail."""

    name: str
    kind: ControlKind
    patch: Path | None = None
    check: str | None = None


def all_controls(
    checks: CheckSet, mutants: dict[str, Path], variants: dict[str, Path]
) -> list[Control]:
    """Every control in run order: the reference, each variant, then each mutant in check order."""
    return [
        Control("reference", "reference"),
        *(Control(f"variant-{v}", "variant", variants[v]) for v in sorted(variants)),
        *(
            Control(f"mutant-{m}", "mutant", mutants[m], check_of(m))
            for m in sorted(mutants, key=lambda m: _mutant_order(checks.ids, m))
        ),
    ]


def expectation(checks: CheckSet, control: Control) -> tuple[int, list[str], list[str]]:
    """(score, failed checks, failed gates) a control must get: the reference and a variant full
    marks with nothing failed; a mutant the maximum less its check's points, that check alone
    failed, and the gates its `# expect-gates:` line names."""
    if control.kind != "mutant" or control.check is None or control.patch is None:
        return MAX_AUTOMATED, [], []
    points = checks.by_id[control.check].points
    return MAX_AUTOMATED - points, [control.check], expected_gates(control.patch)


def control_names(
    checks: CheckSet, patches: dict[str, Path], variants: dict[str, Path] | None = None
) -> list[str]:
    """Every control's name in run order (see `all_controls`)."""
    return [c.name for c in all_controls(checks, patches, variants or {})]


def install_once(reference: Path) -> tuple[Path, Path] | None:
    """`npm ci --offline` of the reference in the build sandbox, once for every control; returns
    (workspace root to remove, its node_modules), or None when the install failed or installed
    nothing (an app without dependencies)."""
    workspace = make_workspace("siteos-controls-deps-")
    timed_copy(reference, workspace)
    result = run_step(workspace, "install")
    if not result.ok:
        print(f"shared install failed ({result.describe()}); each control installs", flush=True)
        shutil.rmtree(workspace.root, ignore_errors=True)
        return None
    if not (workspace.app / "node_modules" / ".package-lock.json").is_file():
        shutil.rmtree(workspace.root, ignore_errors=True)  # no dependencies: nothing to share
        return None
    return workspace.root, workspace.app / "node_modules"


def default_base(task: Task) -> Callable[[Path], object]:
    from evaluator.controls.materialize import materialize_reference  # type: ignore[import-not-found,unused-ignore]

    def base(dest: Path) -> object:
        return materialize_reference(task, dest)

    return base


def run_controls(
    only: list[str] | None = None,
    *,
    task: Task,
    evidence_dir: Path = EVIDENCE_DIR,
    base: Callable[[Path], object] | None = None,
    mutants_dir: Path | None = None,
    variants_dir: Path | None = None,
    out_json: Path | None = None,
    out_dir: Path | None = None,
) -> int:
    """Run the task's controls (its reference, variants and mutants; `mutants_dir` and
    `variants_dir` replace the task's folders, `base` its reference)."""
    materialize = base or default_base(task)
    checks = task_checks(task)
    patches = mutant_patches(mutants_dir or task.mutants)
    unknown = sorted(m for m in patches if check_of(m) not in checks.by_id)
    if unknown:
        print(f"mutants for unknown checks: {unknown}", file=sys.stderr)
        return 2
    controls = all_controls(checks, patches, variant_patches(variants_dir or task.variants))
    order = [c.name for c in controls]
    missing = [check for check in checks.ids if check not in {check_of(m) for m in patches}]
    if only:
        unheard = sorted(set(only) - set(order))
        if unheard:
            print(f"no such controls: {', '.join(unheard)}", file=sys.stderr)
            return 2
        controls = [c for c in controls if c.name in only]
    out_json = out_json or controls_json(evidence_dir)
    out_dir = out_dir or controls_dir(evidence_dir)
    rows: list[ControlRow] = []
    shared: tuple[Path, Path] | None = None
    with tempfile.TemporaryDirectory(prefix="siteos-controls-") as tmp:
        reference = Path(tmp) / "reference"
        materialize(reference)
        shared = install_once(reference)
        try:
            _run_each(task, checks, controls, reference, Path(tmp), out_dir, shared, rows)
        finally:
            if shared is not None:
                shutil.rmtree(shared[0], ignore_errors=True)
    table = list(rows)
    if only and out_json.exists():
        # A partial run updates its rows in the existing table, keeping the others.
        fresh = {row.control for row in table}
        old = [row for row in read_controls(out_json) or [] if row.control not in fresh]
        table = sorted(
            old + table, key=lambda r: order.index(r.control) if r.control in order else 99
        )
    stamp = controls_inputs_json(out_json.parent)
    stamp.unlink(missing_ok=True)  # rewritten below only by a full run where every control matched
    write_controls(out_json, table)
    bad = [r.control for r in rows if not r.match]
    if not only and not bad and not missing:
        write_record(stamp, inputs_record(task, len(rows)))
    if missing and not only:
        print(f"no mutant yet for: {', '.join(missing)}", file=sys.stderr)
    print(f"wrote {out_json}: {len(rows) - len(bad)}/{len(rows)} controls match")
    return 1 if bad or (missing and not only) else 0


def _run_each(
    task: Task,
    checks: CheckSet,
    controls: list[Control],
    reference: Path,
    tmp: Path,
    out_dir: Path,
    shared: tuple[Path, Path] | None,
    rows: list[ControlRow],
) -> None:
    """Evaluate every control, appending its row to `rows`."""
    for control in controls:
        name, check, patch = control.name, control.check, control.patch
        app = tmp / name
        if patch is not None:
            shutil.copytree(
                reference,
                app,
                symlinks=True,
                ignore=shutil.ignore_patterns("node_modules", "dist"),
            )
        else:
            app = reference
        expected, expected_failed, gates_expected = expectation(checks, control)
        description = describe(patch) if patch else "the reference solution"
        row = ControlRow(
            control=name,
            kind=control.kind,
            check=check,
            description=description,
            expected_score=expected,
            actual_score=None,
            expected_failed_checks=expected_failed,
            actual_failed_checks=[],
            gates_failed=[],
            expected_gates_failed=gates_expected,
            match=False,
        )
        problem = apply_patch(app, patch) if patch else None
        if problem:
            row.reason = problem
            rows.append(row)
            print(f"{name:28} MISMATCH {problem}", flush=True)
            continue
        full = patch is None
        deps = None if shared is None or (patch and touches_dependencies(patch)) else shared[1]
        result = evaluate(
            app,
            out_dir / name,
            task=task,
            video=full,
            trace=full,
            screenshots=full,
            node_modules=deps,
        )
        row.actual_score = result.automated_score
        row.actual_failed_checks = result.failed_checks
        row.gates_failed = [g.id for g in result.gates if g.failed]
        row.result = str(EvaluationPaths(out_dir / name).result.relative_to(out_dir.parent))
        row.duration_s = result.timings.total_s
        reasons = []
        if result.automated_score != expected:
            reasons.append(f"score {result.automated_score}, expected {expected}")
        if sorted(result.failed_checks) != sorted(expected_failed):
            reasons.append(f"failed checks {result.failed_checks}, expected {expected_failed}")
        if sorted(row.gates_failed) != gates_expected:
            reasons.append(f"gates failed {row.gates_failed}, expected {gates_expected}")
        if result.evaluator_errors:
            reasons.append(f"evaluator errors: {result.evaluator_errors}")
        for failed in result.checks:
            if not failed.passed and failed.id not in expected_failed:
                for diag in failed.diagnostics[:2]:
                    reasons.append(f"{failed.id}: expected {diag.expected}; saw {diag.seen}")
        row.match = not reasons
        row.reason = "; ".join(reasons)[:2000]
        rows.append(row)
        status = "match" if row.match else "MISMATCH " + row.reason[:300]
        print(
            f"{name:28} {result.automated_score:2}/{MAX_AUTOMATED}"
            f" {result.timings.total_s:5.1f}s {status}",
            flush=True,
        )
