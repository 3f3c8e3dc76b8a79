"""Fixtures shared by several test files."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from cpu_profile import TreeSampler
from demo_build import (
    FOLDER_ENV,
    PID,
    DemoBuild,
    demo_build,
    start_in_background,
    stop_background,
)
from task_support import stand_in_task

from sandbox.monitor import machine_busy_seconds


@pytest.fixture
def frozen_inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`tmp_path` holding `tasks/atlas-rooms/`: a stand-in task (prompt, starter tree) that the
    freeze stage reads in place of the real one."""
    stand_in_task(tmp_path / "tasks", monkeypatch, b"Build the site.\n")
    return tmp_path


# --- parallel runs (scripts/test: pytest -n 2 --dist loadfile) -------------------------------
# Every test file runs on one worker, so a module-scoped fixture (a gateway, a smoke round) is
# built once. (`--dist loadgroup` with `xdist_group` marks does not group under this pytest.)
# The demo round is built once per session by `demo_build` (the README's own command): with
# SITEOS_TEST_BACKGROUND_DEMO=1 (scripts/test, whole suite) the controller starts it in the
# background as the session begins, the independent heavy files are queued first and the files
# that read the build last, so neither worker waits while the other has work. Tests of those
# files (fixture setup included in pytest-timeout's count) get a timeout sized for a loaded
# two-core machine.
HEAVY_FIRST = (
    "test_showcase.py",  # the full tier only: builds the showcase round in the foreground
    "test_site_intervention.py",  # builds the demo intervention round in the foreground
    "test_method_round.py",  # the full tier only: builds the demo method round in the foreground
    "test_tools_round.py",  # the full tier only: builds the demo tools round in the foreground
    "test_starter_round.py",  # the full tier only: builds the demo starter round in the foreground
    "test_rehearsal.py",
    "test_session_units.py",
    "test_evaluator_independent.py",
    "test_parallel_sessions.py",
    "test_evaluator_hostile.py",
)
READS_THE_DEMO_BUILD = (  # the longest first: they start as soon as the build ends
    "test_site_audit.py",
    "test_site_browser.py",
    "test_pipeline.py",
    "test_pipeline_crash.py",
    "test_evidence_integrity.py",
    "test_evaluator_controls.py",
    "test_evaluator_calibration.py",
    "test_site_render.py",
    "test_site_rounds.py",
    "test_evaluator_determinism.py",
    "test_demo_units.py",
)
HEAVY_TIMEOUT_S = 5400
_BACKGROUND: list[DemoBuild] = []
_STARTED: list[tuple[float, float]] = []  # (monotonic, machine busy CPU s) as the session began
_SAMPLERS: list[TreeSampler] = []  # this process's CPU profile (`cpu_profile.py`)
_CPU_BY_FILE: dict[str, float] = {}  # the controller's sum of every process's profile
GOLDEN = "the golden round (built in the background)"


def _rank(item: pytest.Item) -> int:
    name = item.path.name
    if name in HEAVY_FIRST:
        return HEAVY_FIRST.index(name)
    if name in READS_THE_DEMO_BUILD:
        return len(HEAVY_FIRST) + 1 + READS_THE_DEMO_BUILD.index(name)
    return len(HEAVY_FIRST)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=_rank)  # stable: the order inside a file is kept
    for item in items:
        heavy = item.path.name in HEAVY_FIRST + READS_THE_DEMO_BUILD
        if heavy and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(HEAVY_TIMEOUT_S))


def pytest_configure(config: pytest.Config) -> None:
    is_worker = hasattr(config, "workerinput")
    if not is_worker:
        _STARTED.append((time.monotonic(), machine_busy_seconds()))
    wanted = os.environ.get("SITEOS_TEST_BACKGROUND_DEMO") == "1"
    if not is_worker and wanted and not os.environ.get(FOLDER_ENV):
        _BACKGROUND.append(start_in_background())
        _start_sampler(int((_BACKGROUND[0].folder / PID).read_text()), GOLDEN)
    elif is_worker or not config.getoption("numprocesses", None):
        _start_sampler(os.getpid(), "(collection)")


def _start_sampler(root: int, label: str) -> None:
    _SAMPLERS.append(TreeSampler(root, label))
    _SAMPLERS[0].start()


def _add_profile(totals: dict[str, float]) -> None:
    for label, cpu in totals.items():
        _CPU_BY_FILE[label] = _CPU_BY_FILE.get(label, 0.0) + cpu


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> object:
    if _SAMPLERS:
        _SAMPLERS[0].label = item.path.name
    try:
        return (yield)
    finally:
        if _SAMPLERS:
            _SAMPLERS[0].label = "(between tests)"


NO_SKIPS_ENV = "SITEOS_TEST_NO_SKIPS"
"""Set by scripts/test after its setup: every binary and namespace a test needs is there, so a
test that skips (a `skipif` guard, `pytest.skip`, `importorskip`) fails instead of passing."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport:
    report: pytest.TestReport = yield
    if report.skipped and not hasattr(report, "wasxfail") and os.environ.get(NO_SKIPS_ENV) == "1":
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} skipped under scripts/test ({NO_SKIPS_ENV}=1), whose setup installs "
            f"everything the suite needs: {reason}"
        )
    return report


def pytest_sessionfinish(session: pytest.Session) -> None:
    if not _SAMPLERS:
        return
    totals = _SAMPLERS.pop().stop()
    if hasattr(session.config, "workerinput"):
        session.config.workeroutput["cpu_by_file"] = totals  # type: ignore[attr-defined]
    else:
        _add_profile(totals)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    _add_profile(getattr(node, "workeroutput", {}).get("cpu_by_file", {}))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """How busy the machine's cores were over the session (`/proc/stat`, every process: tests,
    Chromium, OpenCode, the demo build): near 100% means only less CPU makes the suite faster,
    well below means waiting (the critical path) does."""
    if not _STARTED:
        return
    started, busy = _STARTED[0]
    wall = time.monotonic() - started
    cpu = machine_busy_seconds() - busy
    cores = os.cpu_count() or 1
    terminalreporter.write_line(
        f"machine CPU over the session: {cpu / 60:.1f} busy CPU min in {wall / 60:.1f} min on "
        f"{cores} cores ({100 * cpu / (wall * cores):.0f}% busy)"
    )
    if _CPU_BY_FILE:
        ranked = sorted(_CPU_BY_FILE.items(), key=lambda kv: -kv[1])
        counted = sum(_CPU_BY_FILE.values())
        terminalreporter.write_line(
            f"CPU by test file ({counted / 60:.1f} CPU min counted; tests/cpu_profile.py):"
        )
        for label, seconds in ranked[:25]:
            terminalreporter.write_line(f"  {seconds:7.1f} s  {label}")
        rest = sum(seconds for _, seconds in ranked[25:])
        terminalreporter.write_line(f"  {rest:7.1f} s  {len(ranked[25:])} other files")


def pytest_unconfigure(config: pytest.Config) -> None:
    while _BACKGROUND:
        stop_background(_BACKGROUND.pop())


@pytest.fixture(scope="session")
def demo_round(tmp_path_factory: pytest.TempPathFactory) -> DemoBuild:
    """The demo round as the README's command builds it (see `demo_build`)."""
    return demo_build(tmp_path_factory)
