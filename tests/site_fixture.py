"""Evidence for the site tests, produced by the real stages (never invented shapes).

`real_evidence(tmp_path_factory)` returns (round id, evidence folder), made once per test
session, a copy of a finished round's evidence and controls:
- with SITEOS_SITE_EVIDENCE=<evidence folder> (e.g. what `./scripts/demo` wrote, holding
  `demo/leaderboard.json` and `controls.json`), that folder's;
- otherwise the shared demo build's (`demo_build`: the README's own command, real OpenCode
  sessions against the project's simulator, real evaluations in Chromium, the controls, the
  packets and scoring stages).
Either way one reviewer sheet (human input, in the documented CSV format) reviews the first
packet's code and the operator unseals the code map (the scoring stage re-scores), so the site
shows reviewed and pending rows and every unit's media.

`shared_site(tmp_path_factory)` is that round's site beside a repeated round, rendered once per
test session for the tests that only read it (the rounds pages, the browser and the audit).
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from demo_build import demo_build

from publish.render import render_site
from records.evidence.scoring import Leaderboard, ModelLeaderboard, PacketIndex
from records.io import read_record, write_record
from records.layout import round_paths
from records.round import Round
from scoring.aggregate import aggregate_round
from scoring.pipeline import add_claim, unseal_round

_BUILT: dict[Path, tuple[str, Path]] = {}


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
    # the operator's unsealing (its own writer): while the code map is sealed the site shows no
    # unit media beside model names, and these tests look at the media of reviewed and pending rows
    unseal_round(
        Round.load(round_id, evidence), "site tests: every unit's media on its page", "site tests"
    )
    return code


def _once(
    tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], str]
) -> tuple[str, Path]:
    """(what `make` returned, its folder): `make(folder)` runs once per test session.

    Under pytest-xdist the site test files may run on different workers: they share one folder
    beside the workers' own (`<session tmp>/<name>`), and a file lock lets the first worker make
    it while the others wait, so it is made once per test session, not per worker.
    """
    base = tmp_path_factory.getbasetemp() / name
    base.mkdir(exist_ok=True)
    if base in _BUILT:
        return _BUILT[base]
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    shared = base.parent.parent / base.name if base.parent.name == f"popen-{worker}" else base
    shared.mkdir(parents=True, exist_ok=True)
    folder = shared / "made"
    done = shared / "done.txt"
    with (shared.parent / f"{shared.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.is_file():
            value = done.read_text(encoding="utf-8").strip()
        else:
            shutil.rmtree(folder, ignore_errors=True)  # a worker that died mid-way
            folder.mkdir()
            value = make(folder)
            done.write_text(value + "\n", encoding="utf-8")
    _BUILT[base] = (value, folder)
    return _BUILT[base]


def real_evidence(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """(round id, evidence folder) for the site tests; made once per test session."""

    def make(folder: Path) -> str:
        given = os.environ.get("SITEOS_SITE_EVIDENCE")
        source = Path(given) if given else demo_build(tmp_path_factory).pristine
        round_id = copy_given(source, folder / "evidence")
        review_first_packet(round_id, folder / "evidence")
        return round_id

    round_id, folder = _once(tmp_path_factory, "site-evidence", make)
    return round_id, folder / "evidence"


def shared_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, Path]:
    """(round id, evidence folder, built site) that no test changes, rendered once per test
    session: `real_evidence`'s round beside `demo-round-1` (`add_repeated_round`) and a
    `round-0` folder without results, so the rounds and model pages have several rounds."""

    def make(folder: Path) -> str:
        round_id, shared = real_evidence(tmp_path_factory)
        evidence = copy_evidence(shared, folder / "evidence")
        add_repeated_round(round_id, evidence)
        (evidence / "round-0" / "units").mkdir(parents=True)  # not a round with results yet
        render_site(Round.load(round_id, evidence), folder / "build")
        return round_id

    round_id, folder = _once(tmp_path_factory, "site-shared", make)
    return round_id, folder / "evidence", folder / "build" / "site"


def copy_given(source: Path, evidence: Path) -> str:
    """Copy a finished demo round and the controls from `source` (the site build's own doit
    state, the reviewer sheets and their receipts stay behind: in the copy no sheet has arrived,
    so none was receipted and none is missing)."""
    round_id = "demo"
    if (
        not (source / round_id / "leaderboard.json").is_file()
        or not (source / "controls.json").is_file()
    ):
        raise AssertionError(
            f"SITEOS_SITE_EVIDENCE={source}: needs demo/ with a leaderboard.json, and controls.json"
        )
    shutil.copytree(source / round_id, evidence / round_id, ignore=_ignored)
    shutil.copyfile(source / "controls.json", evidence / "controls.json")
    if (source / "controls").is_dir():
        shutil.copytree(source / "controls", evidence / "controls")
    return round_id


def _ignored(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n.startswith(".doit") or n in ("reviews", "review-receipts.json")]


def copy_evidence(source: Path, target: Path) -> Path:
    """A private copy of an evidence folder for a test that changes or breaks files."""
    shutil.copytree(source, target)
    return target


REPEATED_ROUND = "demo-round-1"
# model key -> the quick demo's units whose real rows stand for its three repetitions: one model
# with a gate-failed repetition, one with an invalid one, and one gate-capped in all three
# (ineligible).
REPETITIONS = {
    "strong-builder": ("strong-builder-r1", "ellipsis-builder-r1", "wide-footer-r1"),
    "ellipsis-builder": ("ellipsis-builder-r1", "identity-swap-r1", "strong-builder-r1"),
    "wide-footer": ("wide-footer-r1", "wide-footer-r1", "wide-footer-r1"),
}


def add_repeated_round(round_id: str, evidence: Path) -> ModelLeaderboard:
    """`demo-round-1` evidence beside the demo's: the demo's real leaderboard rows relabelled as
    three repetitions per model (`<model>-r1..r3`), written with the project's writer, then its
    model-leaderboard.json from the real aggregation. Needs the demo round's evidence."""
    demo = read_record(round_paths(round_id, evidence).leaderboard, Leaderboard)
    by_unit = {row.unit: row for row in demo.units}
    missing = sorted({u for units in REPETITIONS.values() for u in units} - set(by_unit))
    if missing:
        raise AssertionError(f"{round_id} has no units {', '.join(missing)}: needs the demo round")
    rows = []
    for key, units in REPETITIONS.items():
        own = by_unit[f"{key}-r1"]
        for repetition, unit in enumerate(units, 1):
            relabel = {"unit": f"{key}-r{repetition}", "model_key": key, "repetition": repetition,
                       "display_name": own.display_name, "route": own.route,
                       "replacement_of": None}  # fmt: skip
            rows.append(by_unit[unit].model_copy(update=relabel))
    board = demo.model_copy(update={"round_id": REPEATED_ROUND, "units": rows, "code_map": None})
    add_claim(board, 3)  # the headline a repeated round's scoring gives these rows
    paths = round_paths(REPEATED_ROUND, evidence)
    paths.root.mkdir(parents=True, exist_ok=True)
    write_record(paths.leaderboard, board)
    models = aggregate_round(paths, 3)
    write_record(paths.model_leaderboard, models)
    return models
