"""siteos-bench pipeline: `doit list` explains every stage; `doit` runs what is outstanding.

The round is chosen with SITEOS_ROUND (default: the offline `demo` round served by the project's
own OpenRouter simulator). Staleness is by content (md5). Paid stages (preflight, unit) run once
per unit: their targets are never cleaned and never rebuilt; evaluation, scoring and the site are
derived from evidence and rebuild when their inputs change.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from doit import create_after
from doit.tools import config_changed

from records.hashing import file_sha256, tree_files
from records.layout import (
    BUILD_DIR,
    EVIDENCE_DIR,
    REPO_ROOT,
    controls_json,
    evaluator_source_files,
    scoring_source_files,
)
from records.round import Round
from siteos import stages

if TYPE_CHECKING:
    from harness.parallel import Scheduled

ROUND = Round.load(os.environ.get("SITEOS_ROUND", "demo"))
"""The round, built once: every stage is handed this value."""
SITE_INDEX = BUILD_DIR / "site" / "index.html"

# The stages of a round, in order. The evaluator controls are shared by every round: a real round's
# plain `doit` runs them beside its stages; a demo or rehearsal runs them apart (`doit controls`),
# or beside its stages with SITEOS_CONTROLS=1 (`./scripts/demo --full`).
REAL = ROUND.settings.kind == "real"
WITH_CONTROLS = os.environ.get("SITEOS_CONTROLS", "1" if REAL else "0") == "1"
PIPELINE = ["freeze", "calibrate", "catalogue", "spend", "preflight", "order", "unit", "evaluate"]
PIPELINE += ["packets", "score", "site"]

DOIT_CONFIG: dict[str, Any] = {
    "check_file_uptodate": "md5",
    "backend": "json",
    "dep_file": str(EVIDENCE_DIR / f".doit.db.{ROUND.id}.json"),
    "default_tasks": [
        *PIPELINE[:2],
        *(["controls"] if WITH_CONTROLS else []),
        *PIPELINE[2:],
    ],
    "verbosity": 2,
}

RUN_ONCE = [True]  # with targets: up to date once the target exists (paid work never re-runs)


def files_below(*roots: Path, suffixes: tuple[str, ...] | None = None) -> list[str]:
    """file_dep takes files only: every file below the roots (build outputs excluded)."""
    return [
        str(path)
        for root in roots
        for path in tree_files(root, {"node_modules", "dist", ".git", "__pycache__"})
        if suffixes is None or path.suffix in suffixes
    ]


# What an evaluation depends on: the evaluator and sandbox sources, not scoring or the controls.
EVALUATOR_FILES = [str(path) for path in evaluator_source_files()]
SCORING_FILES = [str(path) for path in scoring_source_files()]
STARTER_FILES = files_below(ROUND.task.starter)


def stage(call: Callable[..., object], *args: Any, **kwargs: Any) -> bool:
    """Run one typed stage of `siteos.stages` (it imports its module only now)."""
    return stages.succeeded(call(*args, **kwargs))


def task_freeze() -> dict[str, Any]:
    """Hash prompt, starter, cohort and settings into round.json (refused once units are scored)."""
    return {
        "actions": [(stage, [stages.freeze, ROUND])],
        "file_dep": [
            str(ROUND.task.prompt),
            str(ROUND.settings.cohort_path),
            str(ROUND.settings_path),
            *STARTER_FILES,
            *EVALUATOR_FILES,
        ],
        "targets": [str(ROUND.paths.round_json)],
    }


def calibration_current() -> bool:
    """calibration.json parses and was made by the current evaluator (its `evaluator_sha256`):
    the paid stages refuse any other, so a changed, added or removed evaluator source, or a
    schema-1 record without the digest, runs the calibration again."""
    from records.evidence.evaluation import Calibration
    from records.io import RecordError, read_record
    from records.layout import evaluator_sha256

    try:
        record = read_record(ROUND.paths.calibration, Calibration)
    except RecordError:
        return False
    return record.evaluator_sha256 == evaluator_sha256()


def task_calibrate() -> dict[str, Any]:
    """Evaluate the task's starter: exactly its calibration score (task.json) with the hard gate
    failed, before any spending; again whenever the evaluator changes."""
    return {
        "actions": [(stage, [stages.calibrate, ROUND])],
        "file_dep": [str(ROUND.task.folder / "task.json"), *STARTER_FILES, *EVALUATOR_FILES],
        "uptodate": [calibration_current],
        "targets": [str(ROUND.paths.calibration)],
    }


def controls_current() -> bool:
    """The controls are shared by every round: up to date while `controls.inputs.json` records an
    all-matching run of the current task folder, evaluator and control code (not per-round
    state)."""
    from records.controls_stamp import controls_current as current

    return current()


def task_controls() -> dict[str, Any]:
    """Evaluate the reference and every legal variant (each 60/60, no gate) and one mutant per
    check (each loses exactly its check)."""
    return {
        "actions": [(stage, [stages.controls, ROUND])],
        "uptodate": [controls_current],
        "targets": [str(controls_json())],
    }


def task_catalogue() -> dict[str, Any]:
    """Check the cohort against the gateway's catalogue: ids, slugs, tools, reasoning, prices."""
    simulation = ROUND.settings.simulation
    snapshot = [str(simulation.catalogue_path)] if simulation is not None else []
    return {
        "actions": [(stage, [stages.catalogue, ROUND])],
        "file_dep": [str(ROUND.settings.cohort_path), str(ROUND.settings_path), *snapshot],
        "targets": [str(ROUND.paths.catalogue)],
        "verbosity": 2,
    }


def task_spend() -> dict[str, Any]:
    """Say what the round may spend; refuse a paid round without OPENROUTER_API_KEY, and any round
    whose key's remaining credit is below its maximum spend (GET /key, key-check.json)."""

    def announce() -> bool:
        candidates = len(ROUND.entrants())
        ceiling = ROUND.settings.ceilings.budget_usd
        units = candidates * ROUND.settings.repetitions
        if ROUND.settings.requires_api_key and not os.environ.get("OPENROUTER_API_KEY"):
            print(f"round {ROUND.id!r} spends real money: set OPENROUTER_API_KEY first")
            return False
        kind = "real money" if ROUND.settings.requires_api_key else "nothing (simulated gateway)"
        print(
            f"round {ROUND.id!r} spends {kind}: {candidates} entrants (routes, each with each "
            f"agent) x {ROUND.settings.probes} "
            f"preflight probes, then at most {units} scored units with a ${ceiling:.2f} budget "
            f"ceiling each (at most ${units * ceiling:.2f} for the scored units)"
        )
        from harness.catalogue.stage import price_lines

        for line in price_lines(ROUND):
            print(line)
        return True

    plan = {
        "round": ROUND.id,
        "settings": ROUND.settings.model_dump(mode="json"),
        "routes": [c.route for c in ROUND.cohort.candidates],
        "api_key_set": bool(os.environ.get("OPENROUTER_API_KEY")),
    }
    return {
        "actions": [announce, (stage, [stages.spend, ROUND])],
        "file_dep": [str(ROUND.paths.catalogue)],  # the prices it announces (the catalogue stage's)
        "task_dep": ["calibrate"],
        "uptodate": [config_changed(plan)],  # said again whenever the plan or the key changes
        "verbosity": 2,
    }


def task_preflight() -> Iterator[dict[str, Any]]:
    """Qualify each route (with each agent of an intervention round): catalogue check, then three
    isolated file-edit + shell probes (3/3)."""
    for entrant in ROUND.entrants():
        yield {
            "name": entrant.key,
            "actions": [(stage, [stages.preflight, ROUND, entrant.key])],
            "task_dep": ["freeze", "spend"],
            "targets": [str(ROUND.paths.preflight(entrant.key))],
            "uptodate": RUN_ONCE,
        }


def task_order() -> dict[str, Any]:
    """Draw the run order of the qualified routes from the round seed (once, before any unit)."""
    return {
        "actions": [(stage, [stages.order, ROUND])],
        "file_dep": [str(ROUND.paths.preflight(e.key)) for e in ROUND.entrants()],
        "targets": [str(ROUND.paths.order)],
        "uptodate": RUN_ONCE,
    }


def scheduled_units() -> list[Scheduled]:
    """The units in frozen order, then documented replacements (`harness.parallel.scheduled`,
    the one list the runner also uses)."""
    from harness.parallel import scheduled

    return scheduled(ROUND)


def task_sessions() -> Iterator[dict[str, Any]]:
    """Each unit's one agent session (`unit`), then its evaluation (`evaluate`) once it ends.

    Sessions run in frozen order (with `max_parallel_sessions` > 1, one task starts up to that
    many at once); each evaluation waits for its own session only, so it runs beside the next.
    One creator makes both stages: made apart and created after the order is drawn, doit could
    create the evaluations first (it creates delayed tasks in no fixed order), and each would
    then wait for every session. Before the order exists the units are unknown, so doit creates
    them once it is drawn; after, they are ordinary tasks (`doit list` shows each)."""
    units = scheduled_units()
    sessions = [f"unit:{item.unit}" for item in units]  # what each evaluation waits for
    if ROUND.settings.max_parallel_sessions > 1:
        sessions = ["unit:parallel"] * len(units)
        yield {
            "basename": "unit",
            "name": "parallel",
            "doc": "Run the units' sessions, up to max_parallel_sessions at once",
            "actions": [(stage, [stages.sessions_in_parallel, ROUND])],
            "task_dep": ["order"],
            "targets": [str(ROUND.paths.unit(item.unit).session) for item in units],
            "uptodate": RUN_ONCE,
        }
    else:
        for previous, item in zip([None, *sessions], units, strict=False):
            yield {
                "basename": "unit",
                "name": item.unit,
                "doc": "Run this unit's one session",
                "actions": [
                    (stage, [stages.unit, ROUND, item.key, item.repetition, item.replacement])
                ],
                "task_dep": ["order", *([previous] if previous else [])],
                "targets": [str(ROUND.paths.unit(item.unit).session)],
                "uptodate": RUN_ONCE,
            }
    for session, item in zip(sessions, units, strict=True):
        yield {
            "basename": "evaluate",
            "name": item.unit,
            "doc": "Evaluate this unit's final worktree: sandboxed build, browser checks, gates",
            "actions": [(evaluate_stage, [item.unit])],
            "task_dep": [session],
            "uptodate": [evaluation_current(item.unit)],
        }


def evaluation_digest(unit: str) -> str:
    """What an evaluation depends on: the unit's session record and final worktree archive and
    the evaluator and sandbox sources (names and contents)."""
    paths = ROUND.paths.unit(unit)
    digest = hashlib.sha256()
    named = [("session.json", paths.session), ("worktree.tar.gz", paths.archive)]
    named += [(Path(f).relative_to(REPO_ROOT).as_posix(), Path(f)) for f in EVALUATOR_FILES]
    for name, path in named:
        digest.update(f"{name}\0{file_sha256(path)}\0".encode())
    return digest.hexdigest()


if not ROUND.paths.order.exists():  # the units are known once the order is drawn: made then
    task_sessions = create_after(executed="order", creates=["unit", "evaluate"])(task_sessions)


def nothing_to_evaluate(unit: str) -> str | None:
    """Why the unit's session leaves nothing to evaluate, or None: it left no final worktree, or
    its session record already rules it out of scoring (invalid, a provider outage or a harness
    failure: the seed's "invalidate rather than score"), so no evaluation could change its
    status. A missing or unreadable session record is not a reason: scoring reports it."""
    from records.evidence.session import SessionRecord
    from records.io import RecordError, read_record

    paths = ROUND.paths.unit(unit)
    if not paths.session.exists():
        return None
    if not paths.archive.exists():
        return "no final worktree (its session record says why)"
    try:
        session = read_record(paths.session, SessionRecord)
    except RecordError:
        return None
    if session.scored:
        return None
    return f"{session.validity} ({session.failure_class}): never scored, so not evaluated"


def evaluation_current(unit: str) -> Callable[[Any, dict[str, Any]], bool]:
    """Up to date when the unit's session leaves nothing to evaluate, or while its own
    result.json parses, is the file that evaluation wrote (its SHA-256, saved with doit's state)
    and is from the current inputs (the digest the evaluation saved): a corrupt, deleted or
    swapped result.json is evaluated again."""

    def current(task: Any, values: dict[str, Any]) -> bool:
        paths = ROUND.paths.unit(unit)
        if nothing_to_evaluate(unit) is not None:
            return True
        if not (paths.session.exists() and paths.result.exists()):
            return False
        if values.get("result") != file_sha256(paths.result) or not result_parses(paths.result):
            return False
        return bool(values.get("inputs") == evaluation_digest(unit))

    return current


def result_parses(path: Path) -> bool:
    """The file is a readable EvaluationResult (any schema this checkout reads)."""
    from records.evidence.evaluation import EvaluationResult
    from records.io import readable

    return readable(path, EvaluationResult)


def evaluate_stage(unit: str) -> dict[str, Any] | bool:
    """Evaluate `unit` unless its session leaves nothing to evaluate; the inputs' digest and the
    SHA-256 of the result.json it wrote are saved with doit's state.

    A worktree.tar.gz that is not the archive session.json recorded is not evaluated: the stage
    says so on stderr, naming the file, and the pipeline carries on to scoring, where the unit is
    listed as invalid (evidence altered; `records.archive`). The check runs again on every
    `doit` (it is never up to date), so the message repeats until the evidence is restored."""
    from evaluator.unit_evaluation import ArchiveMismatch

    paths = ROUND.paths.unit(unit)
    if (why := nothing_to_evaluate(unit)) is not None or not paths.archive.exists():
        print(f"{unit}: {why or 'no final worktree'}: nothing to evaluate")
        return {"inputs": None}
    inputs = evaluation_digest(unit)
    try:
        evaluated = stage(stages.evaluate_unit, ROUND, unit)
    except ArchiveMismatch as exc:
        print(f"EVIDENCE ALTERED, {unit} not evaluated: {exc}", file=sys.stderr)
        return {"inputs": inputs, "altered": True}
    if not evaluated:
        return False
    return {"inputs": inputs, "result": file_sha256(paths.result)}


def unit_evidence_files(*attributes: str) -> list[str]:
    """The files (UnitPaths attributes, e.g. "session", "result") of every scheduled unit that
    has them; session.json is always listed, so a unit whose session record is missing stops the
    stage instead of being skipped."""
    return [
        str(path)
        for unit in (item.unit for item in scheduled_units())
        for attribute in attributes
        if (path := getattr(ROUND.paths.unit(unit), attribute)).exists() or attribute == "session"
    ]


@create_after(executed="evaluate")
def task_packets() -> dict[str, Any]:
    """Blind review packets: secret candidate codes, reviewer pages, redaction, identity flags.

    A demo round also turns its scripted, unit-keyed demo review sheets into code-keyed sheets
    (scoring/demo_reviews.py; never for a real round)."""
    from scoring.demo_reviews import demo_sheets

    actions: list[Any] = [(stage, [stages.packets, ROUND])]
    demo = [str(p) for p in demo_sheets(ROUND.id)] if ROUND.settings.kind == "demo" else []
    if demo:
        actions.append((stage, [stages.demo_reviews, ROUND]))
    return {
        "actions": actions,
        "file_dep": [
            *unit_evidence_files("session", "trace", "diff", "progress", "result", "page_text"),
            *demo,
        ],
        "targets": [
            str(ROUND.paths.packets_index),
            str(ROUND.paths.codes),
            *[str(ROUND.paths.reviews_dir / f"{Path(p).stem}.csv") for p in demo],
        ],
    }


def review_sheets() -> list[str]:
    """Every file of the reviews folder: the sheets (.csv, .json in any case) and any other
    file, which the board names as not read."""
    folder = ROUND.paths.reviews_dir
    return files_below(folder) if folder.is_dir() else []


def unit_evaluation_files() -> list[str]:
    """Each scheduled unit's evaluation manifest, screenshots and video: the board checks them
    (scoring/integrity.py), so one deleted or altered rescores the round."""
    found: list[str] = []
    for unit in (item.unit for item in scheduled_units()):
        files = ROUND.paths.unit(unit).evaluation_files
        found += [str(p) for p in (files.manifest, files.video) if p.is_file()]
        found += files_below(files.screenshots) if files.screenshots.is_dir() else []
    return found


@create_after(executed="packets")
def task_score() -> dict[str, Any]:
    """The 100-point score: automated, reviews, verification, efficiency, cap 49, advancement."""
    return {
        "actions": [(stage, [stages.score, ROUND])],
        "file_dep": [
            *unit_evidence_files(
                "session",
                "events",
                "trace",
                "gateway",
                "progress",
                "result",
                "archive",
                "diff",
                "agent_stderr",
                "manifest",
            ),  # fmt: skip
            *unit_evaluation_files(),
            *[str(ROUND.paths.preflight(e.key)) for e in ROUND.entrants()],
            str(ROUND.paths.codes),
            *review_sheets(),
            *[str(p) for p in (ROUND.paths.unsealing,) if p.exists()],
            *SCORING_FILES,
        ],
        "targets": [
            str(ROUND.paths.leaderboard),
            *([str(ROUND.paths.model_leaderboard)] if ROUND.settings.repetitions > 1 else []),
        ],
    }


@create_after(executed="score")
def task_site() -> dict[str, Any]:
    """Render the results site from evidence/ and build it with `mkdocs build --strict`."""
    round_evidence = [  # everything the site may show; packets and private/ never
        path
        for path in files_below(ROUND.paths.root)
        if not Path(path).is_relative_to(ROUND.paths.packets_dir)
        and not Path(path).is_relative_to(ROUND.paths.private_dir)
    ]
    sources = [
        *round_evidence,
        str(ROUND.settings.cohort_path),
        str(ROUND.settings_path),
        *files_below(REPO_ROOT / "site", REPO_ROOT / "publish"),
        str(REPO_ROOT / "mkdocs.yml"),
        *[  # every other round's boards: the rounds and model pages show them
            str(path)
            for name in ("leaderboard.json", "model-leaderboard.json")
            for path in sorted(EVIDENCE_DIR.glob(f"*/{name}"))
            if path.parent != ROUND.paths.root
        ],
    ]
    controls = controls_json()
    return {
        "actions": [(stage, [stages.site, ROUND, BUILD_DIR])],
        "file_dep": sources,
        # the controls' rows by content, not as a file_dep: that would make doit run the
        # controls task (its producer) before every site, and the controls run apart
        "uptodate": [config_changed(file_sha256(controls) if controls.is_file() else "none")],
        "targets": [str(SITE_INDEX)],
    }
