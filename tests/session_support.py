"""Helpers for the session tests: a frozen demo round in a scratch evidence folder, plus test-only
scripted models added to the demo cohort (the escape artist, a lean identity swap, outage and a
quick finisher).

Usable from pytest (pass `monkeypatch.setattr`) and from a child process (plain setattr).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import harness.freeze as freeze_stage
import harness.preflight
import harness.session.upstream
import harness.unit
import records.inputs
import records.round
from gateway.simulator import Simulator
from harness.spend import check_spend
from records import layout
from records.evidence.evaluation import Calibration
from records.evidence.round import OrderRecord
from records.inputs import Candidate, Cohort, load_cohort, load_round
from records.io import write_record
from records.round import Round
from records.simulator_scripts import load_script
from records.task import DEFAULT_TASK, load_task

CALIBRATION = load_task(DEFAULT_TASK).spec.calibration_score

REPO = Path(__file__).resolve().parent.parent
ESCAPE_SCRIPT = REPO / "benchmark" / "demo" / "models" / "escape-artist.json"
CATALOGUE = {
    "pricing": {"prompt": "0.000001", "completion": "0.000002"},
    "supported_parameters": ["max_tokens", "tools", "tool_choice"],
    "provider_name": "Demo Cloud",
}
BASH = {"name": "bash", "arguments": {"command": "echo working >> notes.txt", "description": "x"}}
EXTRA: dict[str, dict[str, Any]] = {
    "swap-lite": {
        "schema_version": 1,
        "description": "Answers the second request as another model.",
        "catalogue": {"id": "demo-mirror/lite-1", "canonical_slug": "demo-mirror/lite-1",
                      "name": "Mirror lite", **CATALOGUE},
        "session": {"turns": [{"tool_calls": [BASH]},
                              {"text": "Done.", "model": "demo-mirror/cheaper-0"}]},
    },
    "outage-lite": {
        "schema_version": 1,
        "description": "One good turn, then 503 on every request.",
        "catalogue": {"id": "demo-stormgate/lite-1", "canonical_slug": "demo-stormgate/lite-1",
                      "name": "Stormgate lite", **CATALOGUE},
        "session": {"turns": [{"tool_calls": [BASH]},
                              {"error": {"kind": "http", "status": 503}}],
                    "after_last": "repeat_last"},
    },
    "quick-lite": {
        "schema_version": 1,
        "description": "One shell command, then done.",
        "catalogue": {"id": "demo-brisk/lite-1", "canonical_slug": "demo-brisk/lite-1",
                      "name": "Brisk lite", **CATALOGUE},
        "session": {"turns": [{"tool_calls": [BASH]}, {"text": "Done."}]},
    },
    "probe-404": {
        "schema_version": 1,
        "description": "Its provider has no endpoint for the probe's parameters.",
        "catalogue": {"id": "demo-void/lite-1", "canonical_slug": "demo-void/lite-1",
                      "name": "Void lite", **CATALOGUE},
        "session": {"turns": [{"text": "Done."}]},
        "probe": {"behaviour": {"turns": [{"error": {"kind": "http", "status": 404,
                  "message": "No endpoints found that can handle the requested parameters."}}],
                  "after_last": "repeat_last"}},
    },
    "slow-lite": {
        "schema_version": 1,
        "description": "A slow worker: one shell command every four seconds, forever (its 40 "
                       "steps need 160 s, past a 120 s wall clock however fast the machine).",
        "catalogue": {"id": "demo-sloth/lite-1", "canonical_slug": "demo-sloth/lite-1",
                      "name": "Sloth lite", **CATALOGUE},
        "session": {"turns": [{"tool_calls": [BASH], "delay_seconds": 4.0}],
                    "after_last": "repeat_last"},
    },
}  # fmt: skip


def _candidate(key: str, script: dict[str, Any], path: Path) -> Candidate:
    cat = script["catalogue"]
    return Candidate(
        key=key, company=f"Test {key}", display_name=cat["name"], route=cat["id"],
        expected_canonical_slug=cat["canonical_slug"], reasoning="default",
        scripted_model=str(path),
    )  # fmt: skip


def install(scratch: Path, setattr: Callable[[Any, str, Any], None]) -> dict[str, Path]:
    """Add the test candidates to the demo cohort and simulator; returns their script files."""
    scripts = {"escape-artist": ESCAPE_SCRIPT}
    scratch.mkdir(parents=True, exist_ok=True)
    for key, data in EXTRA.items():
        path = scratch / f"{key}.json"
        path.write_text(json.dumps(data))
        scripts[key] = path
    extra = [_candidate(k, json.loads(p.read_text()), p) for k, p in scripts.items()]

    def cohort(path: Path) -> Cohort:
        base = load_cohort(path)
        return Cohort(cohort_id=base.cohort_id, description=base.description,
                      candidates=[*base.candidates, *extra])  # fmt: skip

    def simulator(
        cohort_path: Path, variations: dict[str, str] | None = None, **kwargs: Any
    ) -> Simulator:
        sim = Simulator.from_cohort(cohort_path, variations, **kwargs)
        for path in scripts.values():
            script = load_script(path)
            sim.models[script.catalogue.id] = script
        return sim

    setattr(records.round, "load_cohort", cohort)
    setattr(harness.session.upstream, "Simulator", _SimulatorShim(simulator))
    return scripts


class _SimulatorShim:
    def __init__(self, factory: Callable[..., Simulator]) -> None:
        self.from_cohort = factory


def freeze_demo(evidence: Path) -> None:
    """round.json for the showcase round in `evidence`."""
    load_round("showcase")
    freeze_stage.freeze(Round.load("showcase", evidence))


@contextmanager
def demo_round(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh evidence folder with the demo round frozen and the test candidates installed.

    SITEOS_SCRATCH points into pytest's temp folder; every patch is undone on exit. For the
    module-scoped `evidence` fixtures of the session and preflight tests.
    """
    with pytest.MonkeyPatch.context() as mp:
        evidence = tmp_path_factory.mktemp("evidence")
        mp.setenv("SITEOS_SCRATCH", str(tmp_path_factory.mktemp("scratch")))
        freeze_demo(evidence)
        install(tmp_path_factory.mktemp("scripts"), mp.setattr)
        pass_preconditions(evidence)
        yield evidence


def pass_preconditions(evidence: Path, round_id: str = "showcase") -> None:
    """What the unit stage demands before it spends: the spend stage's key check (its own writer,
    against the simulator) and a passing calibration verdict. The calibration record is the one
    `evaluator.calibration.calibrate` writes for a starter at the reference score; running the
    starter's evaluation here would cost each session module a minute of CPU (its own test:
    test_evaluator_calibration.py)."""
    check_spend(Round.load(round_id, evidence))
    write_record(
        layout.round_paths(round_id, evidence).calibration,
        Calibration(
            round_id=round_id, passed=True, checks_executed=15,
            automated_score=CALIBRATION, expected_score=CALIBRATION,
            evaluator_sha256=layout.evaluator_sha256(), hard_gate_failed=True,
            missing_core_journeys=["filter", "detail", "enquiry"],
            install_ok=True, build_ok=True, failed_checks=[], expected_failed_checks=[],
            reasons=[], result="calibration/result.json", duration_s=0.0,
        ),
    )  # fmt: skip


def order_units(rnd: Round, units: list[str]) -> None:
    """Write the round's frozen order (order.json) as `units`, for a test that runs units
    without drawing it (`run_unit(..., check_order=False)`): scoring counts only the order's
    units and their documented replacements."""
    keys = list(dict.fromkeys(u.rsplit("-r", 1)[0] for u in units))
    write_record(
        rnd.paths.order,
        OrderRecord(
            round_id=rnd.id, seed=rnd.settings.seed, drawn_at="2026-11-30T00:00:00Z",
            qualified=keys, not_testable=[], order=units,
        ),
    )  # fmt: skip


@contextmanager
def agent_round(
    tmp_path_factory: pytest.TempPathFactory, round_id: str, agent: dict[str, str]
) -> Iterator[tuple[Path, pytest.MonkeyPatch]]:
    """A frozen round `round_id` naming `agent` (the showcase round's settings otherwise, its
    round file in a scratch rounds folder), its preconditions passed and the test candidates
    installed: (its evidence folder, the patch context, for more patches)."""
    with pytest.MonkeyPatch.context() as mp:
        rounds = tmp_path_factory.mktemp("rounds")
        settings = json.loads((records.inputs.rounds_dir() / "showcase.json").read_text())
        settings.update(round_id=round_id, agent=agent)
        settings.pop("opencode_version", None)
        (rounds / f"{round_id}.json").write_text(json.dumps(settings))
        mp.setattr(records.inputs, "rounds_dir", lambda: rounds)
        mp.setenv("SITEOS_SCRATCH", str(tmp_path_factory.mktemp("scratch")))
        install(tmp_path_factory.mktemp("scripts"), mp.setattr)
        evidence = tmp_path_factory.mktemp("evidence")
        yield evidence, mp
