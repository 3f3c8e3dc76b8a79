"""Controls: the reference solution must score full marks with no gate failing, and each mutant (one
small, realistic defect, `mutants/<check-id>.patch` or `mutants/<check-id>--<variant>.patch`,
applied with `patch -p1` on top of the reference) must lose exactly its own check's points while
every other check still passes, and fail exactly the gates its header names
(`# expect-gates: core-journey`; none when absent).

    python -m evaluator controls [--only reference,mutant-url-state]

writes evidence/controls.json ([{control, check, expected_score, actual_score,
expected_failed_checks, actual_failed_checks, gates_failed, match, reason}]) and each control's
evaluator output under evidence/controls/<control>/; exits non-zero on any mismatch.

Every control is a full evaluation (a private copy, check, build, browser, all checks) except the
install: no mutant touches package.json or the lockfile, so the reference's dependencies are
installed once (`npm ci --offline` in the build sandbox) and every control gets a hard-linked copy
of that node_modules (its install log says so); if that one install fails, each control installs
for itself. Only the reference keeps video, trace and screenshots; the mutants keep result.json,
logs and axe.json.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from evaluator.build import make_workspace, run_step, timed_copy
from evaluator.checks import BY_ID
from evaluator.evaluate import evaluate
from records.evidence.controls import ControlRow, ControlsInputs
from records.evidence.evaluation import MAX_AUTOMATED
from records.hashing import files_sha256, tree_files
from records.io import RecordError, read_json, read_record, write_json, write_record
from records.layout import (
    EVIDENCE_DIR,
    REPO_ROOT,
    STARTER_DIR,
    EvaluationPaths,
    controls_dir,
    controls_inputs_json,
    controls_json,
    evaluator_source_files,
)

MUTANTS_DIR = Path(__file__).resolve().parent / "mutants"


GATES_HEADER = "expect-gates:"


def mutant_patches(mutants_dir: Path = MUTANTS_DIR) -> dict[str, Path]:
    """mutant name -> patch file, for every `<check-id>[--<variant>].patch` in `mutants_dir`."""
    return {p.stem: p for p in sorted(mutants_dir.glob("*.patch"))}


def check_of(mutant: str) -> str:
    """The check a mutant must fail: its name up to `--`."""
    return mutant.split("--", 1)[0]


def _header(patch: Path) -> list[str]:
    lines = []
    for line in patch.read_text(encoding="utf-8").splitlines():
        if line.startswith(("--- ", "diff ", "Index:")):
            break
        lines.append(line.lstrip("# ").strip())
    return [x for x in lines if x]


def describe(patch: Path) -> str:
    """The patch's leading comment lines (before the first diff header), minus expectations."""
    return " ".join(x for x in _header(patch) if not x.startswith(GATES_HEADER))


def expected_gates(patch: Path) -> list[str]:
    """The gates the mutant must fail (its `# expect-gates: a, b` header line)."""
    for line in _header(patch):
        if line.startswith(GATES_HEADER):
            return sorted(g.strip() for g in line[len(GATES_HEADER) :].split(",") if g.strip())
    return []


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


def _mutant_order(mutant: str) -> tuple[int, str]:
    """Mutants in the registry's check order, variants after their check's plain mutant."""
    ids = list(BY_ID)
    check = check_of(mutant)
    return (ids.index(check) if check in ids else len(ids), mutant)


def control_inputs() -> list[Path]:
    """What decides every control's verdict: the starter, the evaluator's sources and the
    controls themselves (reference overlay, mutants)."""
    skip = {"node_modules", "dist", ".git", "__pycache__"}
    files = {*tree_files(STARTER_DIR, skip), *evaluator_source_files()}
    files.update(tree_files(Path(__file__).resolve().parent, skip))
    return sorted(files)


def inputs_record(controls: int) -> ControlsInputs:
    files = control_inputs()
    digest = files_sha256(files, REPO_ROOT)
    return ControlsInputs(sha256=digest, files=len(files), controls=controls)


def controls_current(evidence_dir: Path = EVIDENCE_DIR) -> bool:
    """True while controls.json holds an all-matching full run of exactly the current inputs."""
    stamp = controls_inputs_json(evidence_dir)
    if not controls_json(evidence_dir).is_file() or not stamp.is_file():
        return False
    try:
        recorded = read_record(stamp, ControlsInputs)
    except RecordError:
        return False
    return recorded.sha256 == inputs_record(recorded.controls).sha256


def control_names(patches: dict[str, Path]) -> list[str]:
    """Every control in run order: the reference, then one per mutant."""
    return ["reference"] + [f"mutant-{m}" for m in sorted(patches, key=_mutant_order)]


DEPENDENCY_FILES = ("package.json", "package-lock.json")


def install_once(reference: Path) -> tuple[Path, Path] | None:
    """`npm ci --offline` of the reference in the build sandbox, once for every control; returns
    (workspace root to remove, its node_modules), or None when the install failed."""
    workspace = make_workspace("siteos-controls-deps-")
    timed_copy(reference, workspace)
    result = run_step(workspace, "install")
    if not result.ok:
        print(f"shared install failed ({result.describe()}); each control installs", flush=True)
        shutil.rmtree(workspace.root, ignore_errors=True)
        return None
    return workspace.root, workspace.app / "node_modules"


def touches_dependencies(patch: Path) -> bool:
    """Whether the patch changes package.json or the lockfile (then it needs its own install)."""
    text = patch.read_text(encoding="utf-8")
    return any(
        f"/{name}" in line
        for line in text.splitlines()
        if line.startswith(("+++ ", "--- "))
        for name in DEPENDENCY_FILES
    )


def default_base() -> Callable[[Path], object]:
    from evaluator.controls.materialize import materialize_reference  # type: ignore[import-not-found,unused-ignore]

    base: Callable[[Path], object] = materialize_reference
    return base


def run_controls(
    only: list[str] | None = None,
    *,
    evidence_dir: Path = EVIDENCE_DIR,
    base: Callable[[Path], object] | None = None,
    mutants_dir: Path = MUTANTS_DIR,
    out_json: Path | None = None,
    out_dir: Path | None = None,
) -> int:
    materialize = base or default_base()
    patches = mutant_patches(mutants_dir)
    unknown = sorted(m for m in patches if check_of(m) not in BY_ID)
    if unknown:
        print(f"mutants for unknown checks: {unknown}", file=sys.stderr)
        return 2
    order = control_names(patches)
    controls: list[tuple[str, str | None]] = [("reference", None)]
    controls += [(f"mutant-{m}", m) for m in sorted(patches, key=_mutant_order)]
    missing = [check for check in BY_ID if check not in {check_of(m) for m in patches}]
    if only:
        controls = [c for c in controls if c[0] in only]
    out_json = out_json or controls_json(evidence_dir)
    out_dir = out_dir or controls_dir(evidence_dir)
    rows: list[ControlRow] = []
    shared: tuple[Path, Path] | None = None
    with tempfile.TemporaryDirectory(prefix="siteos-controls-") as tmp:
        reference = Path(tmp) / "reference"
        materialize(reference)
        shared = install_once(reference)
        try:
            _run_each(controls, patches, reference, Path(tmp), out_dir, shared, rows)
        finally:
            if shared is not None:
                shutil.rmtree(shared[0], ignore_errors=True)
    table = [r.model_dump() for r in rows]
    if only and out_json.exists():
        # A partial run updates its rows in the existing table, keeping the others.
        fresh = {row["control"]: row for row in table}
        old = [row for row in read_json(out_json) if row.get("control") not in fresh]
        table = sorted(
            old + table, key=lambda r: order.index(r["control"]) if r["control"] in order else 99
        )
    stamp = controls_inputs_json(out_json.parent)
    stamp.unlink(missing_ok=True)  # rewritten below only by a full run where every control matched
    write_json(out_json, table)
    bad = [r.control for r in rows if not r.match]
    if not only and not bad and not missing:
        write_record(stamp, inputs_record(len(rows)))
    if missing and not only:
        print(f"no mutant yet for: {', '.join(missing)}", file=sys.stderr)
    print(f"wrote {out_json}: {len(rows) - len(bad)}/{len(rows)} controls match")
    return 1 if bad or (missing and not only) else 0


def _run_each(
    controls: list[tuple[str, str | None]],
    patches: dict[str, Path],
    reference: Path,
    tmp: Path,
    out_dir: Path,
    shared: tuple[Path, Path] | None,
    rows: list[ControlRow],
) -> None:
    """Evaluate every control, appending its row to `rows`."""
    for name, mutant in controls:
        check = check_of(mutant) if mutant else None
        app = tmp / name
        if mutant is not None:
            shutil.copytree(
                reference,
                app,
                symlinks=True,
                ignore=shutil.ignore_patterns("node_modules", "dist"),
            )
        else:
            app = reference
        expected_failed = [check] if check else []
        expected = MAX_AUTOMATED - (BY_ID[check].points if check else 0)
        description = describe(patches[mutant]) if mutant else "the reference solution"
        gates_expected = expected_gates(patches[mutant]) if mutant else []
        row = ControlRow(
            control=name,
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
        problem = apply_patch(app, patches[mutant]) if mutant else None
        if problem:
            row.reason = problem
            rows.append(row)
            print(f"{name:28} MISMATCH {problem}", flush=True)
            continue
        full = mutant is None
        deps = (
            None
            if shared is None or (mutant and touches_dependencies(patches[mutant]))
            else shared[1]
        )
        result = evaluate(
            app, out_dir / name, video=full, trace=full, screenshots=full, node_modules=deps
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
