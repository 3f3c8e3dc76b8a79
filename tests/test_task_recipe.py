"""The "add a task" recipe (docs/architecture.md), proved with a throwaway task: a folder
(task.json, prompt, starter, reference, one mutant per check, data) and its checks package
(tests/toy_task/). Nothing else changes: its controls, its calibration and a round naming it run
through the same stages as atlas-rooms."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

import records.inputs
import records.task
from evaluator import traceability
from evaluator.calibration import calibrate
from evaluator.check_set import task_checks
from evaluator.controls.run import run_controls
from harness.freeze import freeze
from records.evidence.controls import read_controls
from records.evidence.evaluation import Calibration
from records.io import read_record
from records.layout import controls_json, round_paths
from records.round import Round
from records.task import load_task

pytestmark = [pytest.mark.browser, pytest.mark.slow]
TESTS = Path(__file__).resolve().parent
PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Toy Shop</title></head>
<body>
<main>
<h1>Toy Shop</h1>
<p>Welcome.</p>
</main>
</body>
</html>
"""
GREETED = PAGE.replace("<p>Welcome.</p>", "<p>Welcome.</p>\n<p>Hello, visitor!</p>")
MUTANTS = {  # check -> (what the reference's page becomes, the gates it must fail)
    "greeting": (PAGE, ["core-journey"]),
    "fits": (GREETED.replace("</main>", '<div style="width:2000px">wide</div>\n</main>'),
             ["horizontal-overflow"]),
    "titled": (GREETED.replace('<html lang="en">', "<html>"), []),
}  # fmt: skip
CONTRACT = """# Toy Shop

## Requirements

- The home page shows the greeting of `data.json`.
- It fits a 360 px screen without sideways scrolling.
- It names its language and has one heading.
- `npm run build` writes the site to `dist/`.
"""
PACKAGE = {"name": "toy", "version": "1.0.0", "private": True,
           "scripts": {"check": "node -e 0", "build": "node build.js"}}  # fmt: skip
LOCK = {"name": "toy", "version": "1.0.0", "lockfileVersion": 3, "requires": True,
        "packages": {"": {"name": "toy", "version": "1.0.0"}}}  # fmt: skip
BUILD = "const fs = require('fs');\nfs.mkdirSync('dist', { recursive: true });\n" \
        "fs.copyFileSync('index.html', 'dist/index.html');\n"  # fmt: skip


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def make_toy_task(tasks: Path) -> Path:
    """`tasks/toy/`: everything a task is, written the way a task author would."""
    folder = tasks / "toy"
    spec = {"schema_version": 1, "id": "toy", "version": "0.1", "title": "Toy Shop: greet",
            "calibration_score": 35, "calibration_passes": ["fits", "titled"],
            "journeys": {"greet": "greeting"}, "viewports": [360, 768, 1440],
            "checks": "toy_task", "data": "data.json"}  # fmt: skip
    write(folder / "task.json", json.dumps(spec))
    write(folder / "prompt.md", "# Toy Shop: greet\n\nShow the greeting of data.json.\n")
    write(folder / "contract.md", CONTRACT)
    write(folder / "data.json", json.dumps({"greeting": "Hello, visitor!"}))
    for name, text in {"index.html": PAGE, "build.js": BUILD, "package.json": json.dumps(PACKAGE),
                       "package-lock.json": json.dumps(LOCK)}.items():  # fmt: skip
        write(folder / "starter" / name, text)
    write(folder / "reference" / "index.html", GREETED)
    for check, (page, gates) in MUTANTS.items():
        before, after = GREETED.splitlines(keepends=True), page.splitlines(keepends=True)
        diff = difflib.unified_diff(before, after, "a/index.html", "b/index.html")
        header = f"# {check}: the reference without it\n"
        header += f"# expect-gates: {', '.join(gates)}\n" if gates else ""
        write(folder / "mutants" / f"{check}.patch", header + "".join(diff))
    (folder / "variants").mkdir()
    return folder


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The toy task in its own tasks folder, its checks importable by the browser phase, and a
    round file naming it (the showcase round's settings otherwise)."""
    make_toy_task(tmp_path / "tasks")
    monkeypatch.setattr(records.task, "TASKS_DIR", tmp_path / "tasks")
    monkeypatch.setenv("PYTHONPATH", str(TESTS))
    rounds = tmp_path / "rounds"
    settings = json.loads((records.inputs.rounds_dir() / "showcase.json").read_text())
    settings.update(round_id="toy-round", task="toy")
    write(rounds / "toy-round.json", json.dumps(settings))
    monkeypatch.setattr(records.inputs, "rounds_dir", lambda: rounds)
    return tmp_path


def test_a_new_task_runs_its_controls_calibration_and_freeze(toy: Path) -> None:
    task = load_task("toy")
    assert task_checks(task).ids == ["greeting", "fits", "titled"]
    evidence = toy / "evidence"
    assert run_controls(task=task, evidence_dir=evidence) == 0
    rows = read_controls(controls_json(evidence)) or []
    assert [r.control for r in rows] == [
        "reference", "mutant-greeting", "mutant-fits", "mutant-titled"
    ]  # fmt: skip
    assert all(r.match for r in rows), [(r.control, r.reason) for r in rows]
    assert rows[0].actual_score == 60 and rows[1].gates_failed == ["core-journey"]
    record = freeze(Round.load("toy-round", evidence))
    assert record.task is not None and (record.task.id, record.task.version) == ("toy", "0.1")
    assert calibrate(Round.load("toy-round", evidence)) == 0
    calibration = read_record(round_paths("toy-round", evidence).calibration, Calibration)
    assert (calibration.automated_score, calibration.expected_score) == (35, 35)
    assert calibration.missing_core_journeys == calibration.journeys == ["greet"]
    assert calibration.checks_total == 3 and calibration.hard_gate_failed


def test_a_new_task_has_its_traceability_table(toy: Path, capsys: pytest.CaptureFixture) -> None:
    task = load_task("toy")
    assert traceability.main(["--task", "toy", "--check"]) == 1  # no table yet
    assert traceability.main(["--task", "toy"]) == 0
    table = task.contract.read_text()
    assert "4 clauses: 3 owned by a check, 1 by a gate alone, 0 not scored" in table
    assert "| `home.build` | `npm run build` writes the site to `dist/` | — (a gate) |" in table
    assert traceability.main(["--task", "toy", "--check"]) == 0
    task.contract.write_text(table.replace("- It names", "- It sings.\n- It names"))
    assert traceability.main(["--task", "toy", "--check"]) == 1
    assert "no clause covers the contract's words: 'It sings'" in capsys.readouterr().err
