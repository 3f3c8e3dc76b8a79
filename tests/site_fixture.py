"""Evidence for the site tests, produced by the real stages (never invented shapes).

`real_evidence(base)` returns (round id, evidence folder), built once per test session:
- with SITEOS_SITE_EVIDENCE=<evidence folder> (e.g. what `./scripts/demo` wrote, holding
  `demo/leaderboard.json` and `controls.json`), a copy of that round's evidence;
- otherwise the `demo-smoke` round run through doit into `base` (real OpenCode sessions against
  the project's simulator, real evaluations in Chromium, the packets and scoring stages) plus two
  evaluator controls (the reference and one mutant) from `python -m evaluator controls`.
Either way one reviewer sheet (human input, in the documented CSV format) reviews the first
packet's code and the scoring stage re-scores, so the site shows reviewed and pending rows.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

from records.evidence.scoring import PacketIndex
from records.io import read_record
from records.layout import REPO_ROOT, round_paths
from scoring.pipeline import score_round

CONTROLS = "reference,mutant-axe"
_BUILT: dict[Path, tuple[str, Path]] = {}


def _run(argv: list[str], env: dict[str, str], timeout: int = 3600) -> None:
    proc = subprocess.run(
        argv, cwd=REPO_ROOT, env=env, text=True, capture_output=True, timeout=timeout
    )
    if proc.returncode != 0:
        raise AssertionError(
            f"{' '.join(argv)} failed ({proc.returncode}):\n"
            f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
        )


def smoke_round(evidence: Path) -> str:
    """Run the demo-smoke round and two controls into `evidence` with the real stages."""
    env = dict(os.environ, SITEOS_EVIDENCE_DIR=str(evidence), SITEOS_ROUND="demo-smoke")
    from dodo import PIPELINE

    stages = [s for s in PIPELINE if s != "site"]  # the site is what the tests build
    _run([sys.executable, "-m", "doit", "-n", "2", "-P", "thread", *stages], env)
    _run([sys.executable, "-m", "evaluator", "controls", "--only", CONTROLS], env)
    return "demo-smoke"


def review_first_packet(round_id: str, evidence: Path) -> str | None:
    """A reviewer sheet for the first blind packet (if any unit got one), then the scoring
    stage again."""
    paths = round_paths(round_id, evidence)
    index = read_record(paths.packets_dir / "index.json", PacketIndex)
    if not index.codes:
        return None
    code = index.codes[0]
    paths.reviews_dir.mkdir(parents=True, exist_ok=True)
    for reviewer, visual, quality in (("rev-a", 14, 7), ("rev-b", 15, 6)):
        (paths.reviews_dir / f"{reviewer}.csv").write_text(
            f"code,visual,code_quality,notes\n{code},{visual},{quality},clear hierarchy\n"
        )
    score_round(round_id, evidence)
    return code


def real_evidence(base: Path) -> tuple[str, Path]:
    """(round id, evidence folder) for the site tests; built once per `base`.

    Under pytest-xdist the site test files may run on different workers: they share one folder
    beside the workers' own (`<session tmp>/<base name>`), and a file lock lets the first worker
    build it while the others wait, so the round is built once per test session, not per worker.
    """
    if base in _BUILT:
        return _BUILT[base]
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    shared = base.parent.parent / base.name if base.parent.name == f"popen-{worker}" else base
    shared.mkdir(parents=True, exist_ok=True)
    evidence = shared / "evidence"
    built = shared / "built-round.txt"
    with (shared.parent / f"{shared.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if built.is_file():
            round_id = built.read_text(encoding="utf-8").strip()
        else:
            shutil.rmtree(evidence, ignore_errors=True)  # a worker that died mid-build
            given = os.environ.get("SITEOS_SITE_EVIDENCE")
            round_id = copy_given(Path(given), evidence) if given else smoke_round(evidence)
            review_first_packet(round_id, evidence)
            built.write_text(round_id + "\n", encoding="utf-8")
    _BUILT[base] = (round_id, evidence)
    return _BUILT[base]


def copy_given(source: Path, evidence: Path) -> str:
    """Copy a finished demo (or demo-smoke) round and the controls from `source`."""
    round_id = next(
        (r for r in ("demo", "demo-smoke") if (source / r / "leaderboard.json").is_file()), None
    )
    if round_id is None or not (source / "controls.json").is_file():
        raise AssertionError(
            f"SITEOS_SITE_EVIDENCE={source}: needs demo/ or demo-smoke/ with a leaderboard.json, "
            "and controls.json"
        )
    shutil.copytree(source / round_id, evidence / round_id, ignore=_ignored)
    shutil.copyfile(source / "controls.json", evidence / "controls.json")
    if (source / "controls").is_dir():
        shutil.copytree(source / "controls", evidence / "controls")
    return round_id


def _ignored(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n.startswith(".doit") or n == "reviews"]


def copy_evidence(source: Path, target: Path) -> Path:
    """A private copy of an evidence folder for a test that changes or breaks files."""
    shutil.copytree(source, target)
    return target
