"""The golden round: the quick demo round, built once per test session by the README's own
command and shared (the full showcase round is built the same way by `tests/test_showcase.py`).

`scripts/demo-round` (quick start (a) without setup: doit's default tasks — freeze, calibration,
catalogue, spend, preflight, order, units, evaluation, packets, scoring, site) runs into
`<folder>/evidence` up to scoring, beside a run of two of the evaluator controls by their own
command (`BUILD_CONTROLS`: the reference and a mutant; all of them run in the full tier); then
`scripts/demo-round` again builds the site once, with the controls' rows on its calibration page,
and the finished evidence is copied to `<folder>/pristine`, which no test changes.

- `test_pipeline.py` owns `<folder>/evidence` (doit's state there names its absolute paths, so
  the staleness tests run in place);
- the controls, calibration and site tests read `<folder>/pristine` (the site tests copy it).

`scripts/test` starts the build in the background when the session begins (`conftest.py`), so
both workers run the independent tests meanwhile and the tests that read the build are queued
last. Run alone (e.g. `pytest tests/test_pipeline.py`), the first test that needs it builds it
in the foreground.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from records.layout import REPO_ROOT

BUILD_CONTROLS = ("reference", "mutant-venue-detail")
"""The controls the quick build runs: the reference (also determinism's first judgement,
`test_evaluator_determinism.py`) and the mutant that a layout-bound text reading would miss (the
mutant's path through the controls stage). The legal variants run in the full tier; the one a
judge once failed (a drop cap) is read in a real browser by `test_reader_text.py`, which is what
that judge got wrong."""
FOLDER_ENV = "SITEOS_TEST_DEMO_BUILD"
"""The shared build's folder (set by `start_in_background`; inherited by the xdist workers)."""
BUILD_TIMEOUT_S = 80 * 60
LOG = "build.log"
RC = "build.rc"
PID = "build.pid"


@dataclass(frozen=True)
class DemoBuild:
    folder: Path
    round_id: str = "demo"  # or "showcase": the whole cast, every control beside it

    @property
    def evidence(self) -> Path:
        """Where the round ran; only `test_pipeline.py` uses (and changes) it."""
        return self.folder / "evidence"

    @property
    def pristine(self) -> Path:
        """A copy of the finished evidence that no test changes."""
        return self.folder / "pristine"

    @property
    def env(self) -> dict[str, str]:
        env = dict(os.environ, SITEOS_EVIDENCE_DIR=str(self.evidence), SITEOS_ROUND=self.round_id)
        env["SITEOS_CONTROLS"] = "1" if self.round_id == "showcase" else "0"
        return env


def stages_through_scoring() -> list[str]:
    """doit's stages up to and including scoring, in order (the site not among them). dodo is
    imported only here: the conftest imports this module in every worker of every tier."""
    from dodo import PIPELINE

    return PIPELINE[: PIPELINE.index("score") + 1]


def _script(build: DemoBuild) -> list[str]:
    """The build as one shell command: the round (the quick one up to scoring beside three
    controls, then the rest: the site, which shows the controls' rows), the pristine copy, then
    the exit code."""
    log, rc = build.folder / LOG, build.folder / RC
    demo = f'bash "{REPO_ROOT}/scripts/demo-round" >> "{log}" 2>&1'
    if build.round_id == "demo":
        controls = ",".join(BUILD_CONTROLS)
        scored = " ".join(stages_through_scoring())
        demo = (
            f'mkdir -p "{build.evidence}" && {{ "{sys.executable}" -m evaluator controls'
            f' --only {controls} > "{build.folder}/controls.log" 2>&1 & }}'
            f' && bash "{REPO_ROOT}/scripts/demo-round" {scored} >> "{log}" 2>&1 && {{ wait $! ||'
            f' echo "controls: exit $? (see test_evaluator_controls.py)" >> "{log}"; }}'
            f" && {demo}"
        )
    body = (
        f"{demo}"
        f' && cp -a "{build.evidence}" "{build.pristine}"; rc=$?;'
        f' echo "demo build: exit $rc after $SECONDS s" >> "{log}";'
        f' echo $rc > "{rc}.tmp" && mv "{rc}.tmp" "{rc}"'
    )
    return ["bash", "-c", body]


def start_in_background() -> DemoBuild:
    """Start the quick build in a fresh folder; the workers find it through FOLDER_ENV."""
    build = DemoBuild(Path(tempfile.mkdtemp(prefix="siteos-demo-build-")))
    proc = subprocess.Popen(
        _script(build), cwd=REPO_ROOT, env=build.env, start_new_session=True,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    (build.folder / PID).write_text(f"{proc.pid}\n")
    os.environ[FOLDER_ENV] = str(build.folder)
    return build


def stop_background(build: DemoBuild) -> None:
    """Kill a build still running at the end of the session (its whole process group) and
    remove its folder."""
    pid_file = build.folder / PID
    if pid_file.is_file() and not (build.folder / RC).is_file():
        with contextlib.suppress(OSError, ValueError):
            os.killpg(int(pid_file.read_text()), 9)
    shutil.rmtree(build.folder, ignore_errors=True)


def _failure(build: DemoBuild, why: str) -> AssertionError:
    log = build.folder / LOG
    tail = log.read_text(errors="replace")[-6000:] if log.is_file() else "(no log)"
    return AssertionError(f"the shared demo build {why} ({build.folder}):\n{tail}")


def _wait(build: DemoBuild) -> DemoBuild:
    deadline = time.monotonic() + BUILD_TIMEOUT_S
    pid = int((build.folder / PID).read_text())
    rc_file = build.folder / RC
    while not rc_file.is_file():
        if time.monotonic() > deadline:
            raise _failure(build, f"did not finish in {BUILD_TIMEOUT_S // 60} minutes")
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            if not rc_file.is_file():
                raise _failure(build, "died without an exit code") from None
        time.sleep(2)
    return _finished(build)


def _finished(build: DemoBuild) -> DemoBuild:
    """The build, once its recorded exit code says it succeeded."""
    rc = (build.folder / RC).read_text().strip()
    if rc != "0":
        raise _failure(build, f"failed (exit {rc})")
    return build


def _build_here(base: Path, round_id: str) -> DemoBuild:
    """No background build: build in the foreground into `base`, once (a file lock lets
    another process of the same session wait for it)."""
    build = DemoBuild(base, round_id)
    base.mkdir(parents=True, exist_ok=True)
    with (base.parent / f"{base.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (build.folder / RC).is_file():
            shutil.rmtree(build.evidence, ignore_errors=True)
            shutil.rmtree(build.pristine, ignore_errors=True)
            proc = subprocess.run(_script(build), cwd=REPO_ROOT, env=build.env, timeout=5400)
            (build.folder / PID).write_text("0\n")
            if proc.returncode != 0:
                raise _failure(build, f"could not run (exit {proc.returncode})")
    return _finished(build)


def demo_build(tmp_path_factory: pytest.TempPathFactory, round_id: str = "demo") -> DemoBuild:
    """The finished shared build of `round_id`: waits for the background one (the quick demo), or
    builds it now."""
    folder = os.environ.get(FOLDER_ENV)
    if folder and round_id == "demo":
        return _wait(DemoBuild(Path(folder)))
    base = tmp_path_factory.getbasetemp()
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and base.name == f"popen-{worker}":
        base = base.parent  # shared by the workers of this session
    return _build_here(base / f"{round_id}-build", round_id)
