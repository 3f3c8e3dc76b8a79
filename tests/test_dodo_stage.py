"""`dodo.stage()` turns what a stage function returns into doit's success or failure."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from scoring_support import result, session

import dodo
from harness.parallel import Scheduled
from records.evidence.round import OrderRecord
from records.io import write_record
from records.layout import REPO_ROOT, UnitPaths, round_paths
from records.round import Round
from siteos import stages as siteos_stages


@pytest.mark.parametrize(
    ("returned", "ok"),
    [(False, False), (True, True), (0, True), (2, False), (object(), True), (None, True)],
)
def test_stage_results(returned: object, ok: bool) -> None:
    assert dodo.stage(lambda: returned) is ok


def test_every_stage_dodo_runs_is_a_typed_function() -> None:
    """No "module:function" strings: each action calls a function of siteos.stages (mypy checks
    dodo.py), and each of those exists."""
    source = (REPO_ROOT / "dodo.py").read_text()
    assert '(stage, ["' not in source and 'stage("' not in source
    for name in set(re.findall(r"stages\.(\w+)", source)):
        assert callable(getattr(siteos_stages, name)), name


@pytest.fixture
def unit_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> UnitPaths:
    """dodo's round paths in a scratch evidence folder, with one unit whose session has ended."""
    monkeypatch.setattr(dodo, "ROUND", Round.load("showcase", tmp_path))
    paths = dodo.ROUND.unit("idle-r1")
    paths.root.mkdir(parents=True)
    paths.session.write_text("{}\n")
    return paths


def test_a_unit_without_a_worktree_has_nothing_to_evaluate(
    unit_paths: UnitPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dodo, "stage", lambda *a, **k: pytest.fail("nothing to evaluate"))
    assert dodo.evaluation_current("idle-r1")(None, {}) is True
    assert dodo.evaluate_stage("idle-r1") == {"inputs": None}


@pytest.mark.parametrize(
    ("overrides", "evaluated"),
    [({}, True),
     ({"validity": "invalid", "invalid_reasons": ["identity contradicts the freeze"]}, False),
     ({"validity": "invalid", "failure_class": "provider_outage"}, False),
     ({"validity": "invalid", "failure_class": "harness"}, False)],
)  # fmt: skip
def test_a_unit_the_rules_never_score_is_not_evaluated(
    unit_paths: UnitPaths, monkeypatch: pytest.MonkeyPatch, overrides: dict[str, Any],
    evaluated: bool,
) -> None:  # fmt: skip
    """An invalid session, a provider outage or a harness failure is never scored, whatever its
    tree: its evaluation would cost a browser phase and change nothing."""
    write_record(unit_paths.session, session("idle", **overrides))
    unit_paths.archive.write_bytes(b"tree")
    ran: list[str] = []

    def fake_stage(call: Callable[..., object], *args: str) -> bool:
        ran.append(call.__name__)
        write_record(unit_paths.result, result())
        return True

    monkeypatch.setattr(dodo, "stage", fake_stage)
    assert dodo.evaluation_current("idle-r1")(None, {}) is not evaluated
    values = dodo.evaluate_stage("idle-r1")
    assert ran == (["evaluate_unit"] if evaluated else [])
    assert (values == {"inputs": None}) is not evaluated


def test_an_evaluation_is_current_only_for_the_inputs_it_saved(
    unit_paths: UnitPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    unit_paths.archive.write_bytes(b"tree")
    current = dodo.evaluation_current("idle-r1")
    assert current(None, {}) is False  # never evaluated
    ran: list[tuple[str, ...]] = []

    def fake_stage(call: Callable[..., object], *args: str) -> bool:
        ran.append((call.__name__, *args))
        write_record(unit_paths.result, result())  # what the evaluator writes
        return True

    monkeypatch.setattr(dodo, "stage", fake_stage)
    values = dodo.evaluate_stage("idle-r1")
    assert ran == [("evaluate_unit", dodo.ROUND, "idle-r1")]
    assert isinstance(values, dict) and current(None, values) is True
    unit_paths.archive.write_bytes(b"another tree")
    assert current(None, values) is False
    unit_paths.archive.write_bytes(b"tree")
    unit_paths.result.unlink()
    assert current(None, values) is False


@pytest.mark.parametrize(
    "damage",
    [lambda path: path.write_text(path.read_text()[:-40]),  # truncated: not JSON
     lambda path: path.write_text('{"app_dir": "/app"}'),  # JSON, not a result
     lambda path: write_record(path, result(failed=("axe",)))],  # another, valid result
)  # fmt: skip
def test_a_damaged_or_swapped_result_is_evaluated_again(
    unit_paths: UnitPaths, monkeypatch: pytest.MonkeyPatch, damage: Any
) -> None:
    """An evaluation is current only while its own result.json parses and is the file it
    wrote, for the same inputs; doit then re-evaluates instead of trusting the file."""
    unit_paths.archive.write_bytes(b"tree")
    monkeypatch.setattr(
        dodo, "stage", lambda *a: bool(write_record(unit_paths.result, result())) or True
    )
    values = dodo.evaluate_stage("idle-r1")
    assert isinstance(values, dict)
    current = dodo.evaluation_current("idle-r1")
    assert current(None, values) is True
    damage(unit_paths.result)
    assert current(None, values) is False


@pytest.mark.parametrize(("parallel", "dep"), [(1, "unit:{unit}"), (4, "unit:parallel")])
def test_each_evaluation_waits_for_its_own_session_only(
    monkeypatch: pytest.MonkeyPatch, parallel: int, dep: str
) -> None:
    """One delayed creator makes the sessions and the evaluations, so no evaluation can be created
    before the session it waits for (doit creates delayed tasks in no fixed order)."""
    settings = dodo.ROUND.settings.model_copy(update={"max_parallel_sessions": parallel})
    monkeypatch.setattr(dodo, "ROUND", Round(settings, dodo.ROUND.evidence_dir))
    units = [Scheduled.of("idle-r1"), Scheduled.of("signer-r1")]
    monkeypatch.setattr(dodo, "scheduled_units", lambda: units)
    tasks = list(dodo.task_sessions())
    sessions = [f"unit:{t['name']}" for t in tasks if t["basename"] == "unit"]
    evaluations = [t for t in tasks if t["basename"] == "evaluate"]
    assert [t["name"] for t in evaluations] == ["idle-r1", "signer-r1"]
    assert [t["task_dep"] for t in evaluations] == [[dep.format(unit=u.unit)] for u in units]
    assert set(sessions) >= {d for t in evaluations for d in t["task_dep"]}
    if parallel == 1:  # the sessions themselves run one after another, in frozen order
        assert [t["task_dep"] for t in tasks[:2]] == [["order"], ["order", "unit:idle-r1"]]


@pytest.mark.parametrize("drawn", [False, True])
def test_units_are_tasks_once_the_order_is_drawn(tmp_path: Path, drawn: bool) -> None:
    """Before the order exists, `unit` and `evaluate` are made by one delayed creator (doit lists
    the stages only); once it exists, each unit's session and evaluation is a task of its own."""
    order = round_paths("demo", tmp_path).order
    if drawn:
        record = OrderRecord(
            round_id="demo", seed=1, drawn_at="2026-12-05T00:00:00+00:00",
            qualified=["strong-builder"], not_testable=[], order=["strong-builder-r1"],
        )  # fmt: skip
        write_record(order, record)
    env = dict(os.environ, SITEOS_EVIDENCE_DIR=str(tmp_path), SITEOS_ROUND="demo")
    code = (
        "import dodo; print(getattr(dodo.task_sessions, 'doit_create_after', None) is None);"
        "print(sorted({t['basename'] for t in dodo.task_sessions()}))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    plain, stages = proc.stdout.splitlines()
    assert plain == str(drawn)
    assert stages == str(["evaluate", "unit"] if drawn else [])


def test_the_site_reads_the_controls_without_running_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """controls.json is the controls task's target: as a file_dep of the site it would make doit
    run every control before each site build. The site depends on its content instead."""
    controls = tmp_path / "controls.json"
    monkeypatch.setattr(dodo, "controls_json", lambda: controls)
    monkeypatch.setattr(dodo, "ROUND", Round.load("demo", tmp_path))

    def site_task() -> dict[str, Any]:
        task: dict[str, Any] = dodo.task_site()
        assert str(controls) not in task["file_dep"] and "controls" not in task.get("task_dep", [])
        return task

    def configured(task: dict[str, Any]) -> Any:
        return task["uptodate"][0].config

    absent = configured(site_task())
    controls.write_text('[{"control": "reference"}]\n')
    written = configured(site_task())
    controls.write_text('[{"control": "variant-drop-cap"}]\n')
    assert len({str(absent), str(written), str(configured(site_task()))}) == 3


@pytest.mark.parametrize(
    ("round_id", "asked", "with_controls"),
    [("round-0", None, True), ("demo", None, False), ("round-0-rehearsal", None, False),
     ("demo", "1", True), ("round-0", "0", False)],
)  # fmt: skip
def test_a_real_rounds_plain_doit_runs_the_controls_a_demo_only_when_asked(
    round_id: str, asked: str | None, with_controls: bool
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SITEOS_CONTROLS"}
    env["SITEOS_ROUND"] = round_id
    if asked is not None:
        env["SITEOS_CONTROLS"] = asked
    code = "import dodo; print('controls' in dodo.DOIT_CONFIG['default_tasks'])"
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == str(with_controls)
