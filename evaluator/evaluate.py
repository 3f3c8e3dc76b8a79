"""`evaluate(app_dir, out_dir)`: the whole evaluation of one submission, writing result.json."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

from evaluator.build import (
    LOG_CAP,
    STEP_COMMANDS,
    Workspace,
    link_node_modules,
    make_workspace,
    run_step,
    timed_copy,
    write_log,
)
from evaluator.check_set import CheckSet, task_checks
from evaluator.gates import capped, compute_gates, evaluator_errors, journey_statuses
from records.evidence.evaluation import (
    CheckResult,
    Diagnostic,
    EvaluationResult,
    PhaseRecord,
    StepLog,
    Timings,
)
from records.io import RecordError, read_record, write_record
from records.layout import REPO_ROOT, EvaluationPaths
from records.task import Task
from records.tools import NODE, node_path_env
from sandbox import loopback_netns_argv, run_process

BROWSER_PHASE_TIMEOUT_S = 900.0


def node_version() -> str | None:
    try:
        out = subprocess.run([str(NODE), "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def run_browser_phase(
    dist: Path,
    out_dir: Path,
    *,
    data_file: Path,
    checks_package: str,
    only: list[str] | None = None,
    video: bool = True,
    trace: bool = True,
    screenshots: bool = True,
    timeout: float = BROWSER_PHASE_TIMEOUT_S,
    check_budget: float | None = None,
    lanes: int | None = None,
) -> tuple[PhaseRecord, str]:
    """Run the browser phase in a loopback-only network namespace; returns (phase data, log)."""
    phase_json = EvaluationPaths(out_dir).phase
    phase_json.unlink(missing_ok=True)
    argv = [
        sys.executable,
        "-m",
        "evaluator.browser_phase",
        "--dist",
        str(dist),
        "--out",
        str(out_dir),
        "--phase-json",
        str(phase_json),
        "--data",
        str(data_file),
        "--checks",
        checks_package,
    ]
    if only:
        argv += ["--only", ",".join(only)]
    if not video:
        argv.append("--no-video")
    if not trace:
        argv.append("--no-trace")
    if not screenshots:
        argv.append("--no-screenshots")
    if check_budget is not None:
        argv += ["--check-budget", str(check_budget)]

    if lanes is not None:
        argv += ["--lanes", str(lanes)]
    result = run_process(
        loopback_netns_argv(argv),
        cwd=REPO_ROOT,
        env=node_path_env(),
        timeout=timeout,
        output_cap=LOG_CAP,
    )
    log = f"# {result.describe()}\n--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}"
    try:
        phase = read_record(phase_json, PhaseRecord) if phase_json.exists() else PhaseRecord()
    except RecordError as exc:
        phase = PhaseRecord(error=f"the browser phase left an unreadable file: {exc}"[:2000])
    phase_json.unlink(missing_ok=True)
    if not phase.complete and phase.error is None:
        ended = "timed out" if result.timed_out else f"ended early ({result.describe()})"
        phase = phase.model_copy(update={"error": f"the browser phase {ended}"})
    return phase, log


def _not_run(checks: CheckSet, reason: str) -> list[CheckResult]:
    diagnostic = Diagnostic(expected="the check runs", seen=reason)
    return [c.result([diagnostic], executed=False) for c in checks.checks]


def _reuse_install(node_modules: Path, workspace: Workspace, files: EvaluationPaths) -> StepLog:
    """The install step as a hard-linked copy of `node_modules`, logged like a real step."""
    seconds = link_node_modules(node_modules, workspace)
    instead = " ".join(STEP_COMMANDS["install"])
    command = f"cp -al {node_modules} node_modules (reused instead of: {instead})"
    summary = f"reused an installed node_modules in {seconds:.1f} s"
    log = files.log("install")
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(f"$ {command}\n# {summary}\n", encoding="utf-8")
    return StepLog(
        name="install",
        command=command,
        exit_code=0,
        ok=True,
        timed_out=False,
        output_capped=False,
        duration_s=seconds,
        log=files.relative(log),
        summary=summary,
    )


def evaluate(
    app_dir: Path,
    out_dir: Path,
    *,
    task: Task,
    video: bool = True,
    trace: bool = True,
    screenshots: bool = True,
    keep_workspace: bool = False,
    check_budget: float | None = None,
    browser_timeout: float = BROWSER_PHASE_TIMEOUT_S,
    node_modules: Path | None = None,
    lanes: int | None = None,
) -> EvaluationResult:
    """Evaluate the app in `app_dir`, judged as `task`, into `out_dir`. `node_modules`: an
    installed node_modules to hard-link in place of `npm ci` (the controls: one install for the
    reference and every mutant, whose lockfile is the reference's); the install step then records
    the reuse.
    `lanes`: how many checks the browser phase runs at once (default: by cores)."""
    start = time.monotonic()
    checks = task_checks(task)
    app_dir = app_dir.resolve()
    out_dir = out_dir.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    files = EvaluationPaths(out_dir)
    for stale_dir in (files.screenshots, files.logs):
        shutil.rmtree(stale_dir, ignore_errors=True)
    for stale in (files.video, files.trace, files.axe, files.result, files.manifest):
        stale.unlink(missing_ok=True)
    timings = Timings()
    workspace: Workspace = make_workspace()
    steps: list[StepLog] = []
    evaluator_error: str | None = None
    phase = PhaseRecord()
    try:
        timings.copy_s = timed_copy(app_dir, workspace, npm_cache=node_modules is None)
        ok = {"install": False, "check": False, "build": False}
        if node_modules is not None:
            steps.append(_reuse_install(node_modules, workspace, files))
            ok["install"] = True
            timings.install_s = steps[-1].duration_s
        for name in ("install", "check", "build"):
            if name != "install" and not ok["install"]:
                break
            if name == "install" and node_modules is not None:
                continue
            result = run_step(workspace, name)
            log = files.relative(files.log(name))
            write_log(files.log(name), result)
            ok[name] = result.ok
            setattr(timings, f"{name}_s", result.duration)
            steps.append(
                StepLog(
                    name=name,
                    command=" ".join(result.argv),
                    exit_code=result.exit_code,
                    ok=result.ok,
                    timed_out=result.timed_out,
                    output_capped=result.output_capped,
                    duration_s=result.duration,
                    log=log,
                    summary=result.describe(),
                )
            )
        has_dist = (workspace.dist / "index.html").is_file()
        build_ok = ok["build"] and has_dist
        failed_steps = [s for s in steps if not s.ok]
        if failed_steps:
            build_reason = "; ".join(f"{s.name}: {s.summary}" for s in failed_steps)
        elif not has_dist:
            build_reason = "npm run build succeeded but produced no dist/index.html"
        else:
            build_reason = ""
        if ok["install"] and build_ok:
            t0 = time.monotonic()
            phase, log = run_browser_phase(
                workspace.dist,
                out_dir,
                data_file=task.data,
                checks_package=checks.package,
                video=video,
                trace=trace,
                screenshots=screenshots,
                check_budget=check_budget,
                timeout=browser_timeout,
                lanes=lanes,
            )
            files.logs.mkdir(parents=True, exist_ok=True)
            files.log("browser").write_text(log, encoding="utf-8")
            timings.browser_s = round(time.monotonic() - t0, 3)
            evaluator_error = phase.error
            results = list(phase.checks)
            ran = {c.id for c in results}
            for missing in _not_run(
                checks, f"not run: {evaluator_error or 'the browser phase ended early'}"
            ):
                if missing.id not in ran:
                    results.append(missing)
            results.sort(key=lambda c: checks.ids.index(c.id))
        else:
            results = _not_run(checks, f"not run: {build_reason}")
        timings.checks_s = float(phase.timings.get("checks_s", 0.0))
        timings.evidence_s = float(phase.timings.get("evidence_s", 0.0))
        gates = compute_gates(
            install_ok=ok["install"],
            build_ok=build_ok,
            build_reason=build_reason,
            probes=phase.probes,
            checks=results,
            journeys=checks.core_journeys,
            max_overflow=phase.facts.max_overflow,
            probe_gates=list(checks.probes),
            check_gates=checks.check_gates,
            order=checks.gate_ids,
        )
    finally:
        if not keep_workspace:
            shutil.rmtree(workspace.root, ignore_errors=True)
    score = sum(c.points for c in results)
    hard = any(g.failed for g in gates)
    journeys = journey_statuses(results, checks.core_journeys)
    errors = evaluator_errors(evaluator_error, gates, results, built=ok["install"] and build_ok)
    versions: dict[str, str | None] = {"chromium": None, "playwright": None, "axe-core": None}
    versions.update(phase.versions)
    versions["node"] = node_version()
    timings.total_s = round(time.monotonic() - start, 3)
    record = EvaluationResult(
        app_dir=str(app_dir),
        automated_score=score,
        capped_score=capped(score, hard),
        checks=results,
        gates=gates,
        hard_gate_failed=hard,
        core_journeys=journeys,
        checks_executed=sum(1 for c in results if c.executed),
        evaluator_error="; ".join(errors)[:2000] or None,
        evaluator_errors=errors,
        install_ok=ok["install"],
        check_ok=ok["check"],
        build_ok=build_ok,
        steps=steps,
        timings=timings,
        tool_versions=versions,
        screenshots=phase.screenshots,
        video=phase.video,
        axe_report=phase.axe,
        trace=phase.trace,
        blocked_requests=phase.blocked_requests,
        unsettled=phase.facts.unsettled,
    )
    write_record(files.result, record)
    return record


def summary(result: EvaluationResult) -> str:
    lines = [
        f"automated score {result.automated_score}/{result.max_automated}"
        f" (capped {result.capped_score}); hard gate failed: {result.hard_gate_failed}",
        f"install {result.install_ok} check {result.check_ok} build {result.build_ok};"
        f" {result.checks_executed}/{len(result.checks)} checks executed;"
        f" {result.timings.total_s:.1f} s",
    ]
    for check in result.checks:
        mark = "PASS" if check.passed else ("FAIL" if check.executed else "NOT RUN")
        lines.append(f"  {mark:7} {check.id:18} {check.points}/{check.max_points}")
        for diag in check.diagnostics[:3]:
            lines.append(f"           expected {diag.expected}; saw {diag.seen}"[:400])
    for gate in result.gates:
        if gate.failed:
            lines.append(f"  GATE    {gate.id}: {gate.reason}"[:400])
    if result.evaluator_error:
        lines.append(f"  EVALUATOR ERROR: {result.evaluator_error}")
    return "\n".join(lines)
