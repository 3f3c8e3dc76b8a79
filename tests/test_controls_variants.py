"""Legal variants: positive controls beside the mutants (no browser here; the demo build's controls
stage evaluates them, tests/test_evaluator_controls.py reads its verdicts).

A variant is the task's `variants/<name>.patch`, applied on the reference like a mutant,
run as the control `variant-<name>` and expected to pass (60/60, no failed check, no gate); its
header names the contract clauses it exercises (the traceability table's last column).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from pydantic import TypeAdapter

from evaluator.check_set import task_checks
from evaluator.controls.materialize import materialize_reference
from evaluator.controls.run import (
    all_controls,
    apply_patch,
    describe,
    exercised_clauses,
    expectation,
    mutant_patches,
    variant_patches,
)
from evaluator.traceability import exercised_by, table, variant_problems
from records.controls_stamp import control_inputs, inputs_record
from records.evidence.controls import ControlRow
from records.io import RecordError, write_json
from records.layout import REPO_ROOT
from records.round import Round
from records.task import DEFAULT_TASK, load_task

TASK = load_task(DEFAULT_TASK)
CHECKS = task_checks(TASK)

ROWS = TypeAdapter(list[ControlRow])
MINE = ("native-dialog", "portal-inert", "grid-areas", "staggered-entrance")


def test_the_variants_are_controls_that_must_pass() -> None:
    variants = variant_patches(TASK.variants)
    assert set(MINE) <= set(variants) and len(variants) >= 6  # issue 28: at least six
    controls = all_controls(CHECKS, mutant_patches(TASK.mutants), variants)
    assert [c.kind for c in controls[: len(variants) + 1]] == ["reference"] + ["variant"] * len(
        variants
    )
    assert {c.name for c in controls if c.kind == "variant"} == {f"variant-{v}" for v in variants}
    for control in controls:
        score, failed, gates = expectation(CHECKS, control)
        if control.kind == "mutant":
            assert failed == [control.check] and score < 60
        else:
            assert (score, failed, gates) == (60, [], [])


def test_a_variant_never_expects_a_gate(tmp_path: Path) -> None:
    """Only a mutant's `# expect-gates:` line is an expectation: a variant must pass, whatever its
    header says."""
    patch = tmp_path / "odd.patch"
    patch.write_text(
        "# odd: a variant whose header names a gate\n# expect-gates: core-journey\n"
        "# exercises: dialog.focus\n--- a/x\n+++ b/x\n"
    )
    (variant,) = [c for c in all_controls(CHECKS, {}, {"odd": patch}) if c.kind == "variant"]
    assert expectation(CHECKS, variant) == (60, [], [])
    assert describe(patch) == "odd: a variant whose header names a gate"


def test_the_runner_picks_up_whatever_patches_are_in_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "variants"
    folder.mkdir()
    assert variant_patches(folder) == {}
    shutil.copy(TASK.variants / "grid-areas.patch", folder / "late-arrival.patch")
    assert list(variant_patches(folder)) == ["late-arrival"]
    names = [
        c.name for c in all_controls(CHECKS, mutant_patches(TASK.mutants), variant_patches(folder))
    ]
    assert names[:2] == ["reference", "variant-late-arrival"]


@pytest.mark.parametrize("name", MINE)
def test_each_variant_applies_on_the_reference_and_names_known_clauses(
    tmp_path: Path, name: str
) -> None:
    patch = variant_patches(TASK.variants)[name]
    app = materialize_reference(TASK, tmp_path / "app")
    assert apply_patch(app, patch) is None
    clauses = exercised_clauses(patch)
    assert clauses and set(clauses) <= set(task_checks(TASK).clause_by_id), clauses
    assert describe(patch).startswith(f"{name}: ")


def test_every_variant_file_is_an_input_of_the_controls_stamp(tmp_path: Path) -> None:
    inputs = set(control_inputs(TASK))
    assert {TASK.variants / f"{v}.patch" for v in variant_patches(TASK.variants)} <= inputs
    before = inputs_record(TASK, 1).sha256
    extra = TASK.variants / "zz-stamp-probe.patch"
    try:
        extra.write_text("# zz-stamp-probe: test only\n# exercises: shell.focus\n")
        assert inputs_record(TASK, 1).sha256 != before  # a new variant makes the stamp stale
    finally:
        extra.unlink()
    assert inputs_record(TASK, 1).sha256 == before


def test_rows_of_schema_1_load_with_the_kind_their_name_says(tmp_path: Path) -> None:
    legacy = {  # exactly what run_controls wrote before rows had a kind and a version
        "control": "mutant-axe", "check": "axe", "description": "d", "expected_score": 57,
        "actual_score": 57, "expected_failed_checks": ["axe"], "actual_failed_checks": ["axe"],
        "gates_failed": ["axe-serious"], "expected_gates_failed": ["axe-serious"], "match": True,
        "reason": "", "result": "controls/mutant-axe/result.json", "duration_s": 12.0,
    }  # fmt: skip
    reference = {**legacy, "control": "reference", "check": None, "expected_score": 60}
    rows = ROWS.validate_python([reference, legacy])
    assert [(r.schema_version, r.kind, r.must_pass) for r in rows] == [
        (1, "reference", True),
        (1, "mutant", False),
    ]
    now = ControlRow.model_validate({**legacy, "control": "variant-grid-areas", "kind": "variant"})
    written = json.loads(json.dumps(now.model_dump()))
    assert written["schema_version"] == 2 and written["kind"] == "variant"
    with pytest.raises(ValueError, match="schema_version 3"):
        ROWS.validate_python([{**written, "schema_version": 3}])


def test_the_site_reads_rows_with_their_kind(tmp_path: Path) -> None:
    from records.evidence.controls import read_controls

    path = tmp_path / "controls.json"
    row = ControlRow(
        control="variant-native-dialog", kind="variant", check=None, description="d",
        expected_score=60, actual_score=60, expected_failed_checks=[], actual_failed_checks=[],
        gates_failed=[], match=True,
    )  # fmt: skip
    write_json(path, [row.model_dump()])
    assert [(r.control, r.kind) for r in read_controls(path) or []] == [
        ("variant-native-dialog", "variant")
    ]
    write_json(path, [{**row.model_dump(), "kind": "sidegrade"}])
    with pytest.raises(RecordError, match="kind"):
        read_controls(path)


def test_the_traceability_table_names_the_variants_that_exercise_each_clause() -> None:
    found = exercised_by(TASK.variants)
    assert "native-dialog" in found["dialog.focus"]
    assert "staggered-entrance" in found["shell.entrance"]
    assert "| legal variants that exercise it |" in table(TASK)
    assert variant_problems(TASK.variants, task_checks(TASK)) == []


def test_a_variant_without_clauses_or_with_an_unknown_one_is_a_traceability_problem(
    tmp_path: Path,
) -> None:
    (tmp_path / "bare.patch").write_text("# bare: names nothing\n--- a/x\n+++ b/x\n")
    (tmp_path / "typo.patch").write_text("# typo: a slip\n# exercises: dialog.focs\n--- a/x\n")
    assert variant_problems(tmp_path, task_checks(TASK)) == [
        "variant 'bare' names no clause it exercises (# exercises: <ids>)",
        "variant 'typo' exercises the unknown clause 'dialog.focs'",
    ]
    assert exercised_by(tmp_path) == {"dialog.focs": ["typo"]}


def test_bench_load_compares_verdicts_not_timings() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_load", REPO_ROOT / "scripts/bench_load.py")
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # its dataclass looks its module up
    spec.loader.exec_module(bench)
    base = ControlRow(
        control="mutant-axe", kind="mutant", check="axe", description="d", expected_score=57,
        actual_score=57, expected_failed_checks=["axe"], actual_failed_checks=["axe"],
        gates_failed=["axe-serious"], match=True, duration_s=20.0,
    )  # fmt: skip
    slower = base.model_copy(update={"duration_s": 55.0})
    lost = base.model_copy(update={"actual_failed_checks": ["axe", "dialog-focus"]})
    quiet = bench.Run("quiet", {"mutant-axe": base}, 20.0, 0.5)
    assert bench.compare(quiet, bench.Run("loaded", {"mutant-axe": slower}, 55.0, 1.0)) == []
    assert bench.compare(quiet, bench.Run("loaded", {"mutant-axe": lost}, 55.0, 1.0)) == [
        "mutant-axe"
    ]
    assert bench.compare(quiet, bench.Run("loaded", {}, 1.0, 1.0)) == ["mutant-axe"]


def test_the_calibration_page_shows_variants_beside_mutants_with_their_expectation(
    tmp_path: Path,
) -> None:
    from publish.render import render_docs
    from publish.sources import load_round_evidence

    (tmp_path / "showcase").mkdir()
    common = {"description": "d", "expected_failed_checks": [], "actual_failed_checks": [],
              "gates_failed": [], "match": True}  # fmt: skip
    rows = [
        ControlRow(control="reference", kind="reference", check=None, expected_score=60,
                   actual_score=60, **common),  # type: ignore[arg-type]
        ControlRow(control="variant-native-dialog", kind="variant", check=None,
                   expected_score=60, actual_score=60, **common),  # type: ignore[arg-type]
        ControlRow(control="mutant-axe", kind="mutant", check="axe", expected_score=57,
                   actual_score=57, **common),  # type: ignore[arg-type]
    ]  # fmt: skip
    write_json(tmp_path / "controls.json", [r.model_dump() for r in rows])
    docs = tmp_path / "docs"
    docs.mkdir()
    render_docs(load_round_evidence(Round.load("showcase", tmp_path)), docs)
    page = (docs / "calibration.md").read_text()
    assert "Not a complete, current run" in page  # three rows and no stamp: a partial run
    assert (
        "3 of 3 controls match their expectation: 2 of the 2 that must pass (the reference and "
        "1 legal variant) and 1 of the 1 mutant that must lose exactly their check." in page
    )
    variant = page[page.index("<code>variant-native-dialog</code>") :]
    assert variant.index("legal variant") < variant.index("must pass: 60/60, no gate")
    mutant = page[page.index("<code>mutant-axe</code>") :]
    assert "must lose exactly its check" in mutant.split("</tr>")[0]
