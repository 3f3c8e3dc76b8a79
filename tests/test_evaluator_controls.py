"""Controls: the reference and every legal variant score full marks with no gate failing and each
mutant loses exactly its own check and fails exactly the gates it names — as the demo round's
controls stage ran them (`run_controls` through doit, in the shared demo build)."""

from __future__ import annotations

from pathlib import Path

import pytest
from demo_build import BUILD_CONTROLS, DemoBuild

from evaluator.check_set import task_checks
from evaluator.checks import CHECKS
from evaluator.controls.run import (
    check_of,
    control_names,
    expected_gates,
    mutant_patches,
    touches_dependencies,
    variant_patches,
)
from records.controls_stamp import controls_current
from records.evidence.controls import read_controls
from records.io import read_json
from records.layout import controls_json
from records.task import DEFAULT_TASK, load_task

TASK = load_task(DEFAULT_TASK)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_every_check_has_a_mutant() -> None:
    patches = mutant_patches(TASK.mutants)
    assert sorted({check_of(m) for m in patches}) == sorted(c.id for c in CHECKS)
    assert expected_gates(patches["axe"]) == ["axe-serious"]
    assert expected_gates(patches["venue-detail"]) == []  # a renamed term: the journey holds


def test_mutants_share_the_reference_install(tmp_path: Path) -> None:
    """Controls hard-link one install of the reference: no shipped mutant may change the
    dependencies, and one that did would be given its own install."""
    assert not [
        m for m, patch in mutant_patches(TASK.mutants).items() if touches_dependencies(patch)
    ]
    bump = tmp_path / "deps.patch"
    bump.write_text(
        "# a new dependency\n--- a/package.json\n+++ b/package.json\n@@ -1 +1 @@\n-{}\n+{ }\n"
    )
    assert touches_dependencies(bump)


def test_the_controls_the_build_ran_match(demo_round: DemoBuild) -> None:
    """A partial run: its rows are exactly the controls asked for, each matches its expectation,
    and it is not taken for a complete run (no stamp: the controls stage stays outstanding)."""
    rows = read_controls(controls_json(demo_round.pristine)) or []
    assert read_json(controls_json(demo_round.pristine))["schema_version"] == 3  # typed, versioned
    order = control_names(
        task_checks(TASK), mutant_patches(TASK.mutants), variant_patches(TASK.variants)
    )
    assert [r.control for r in rows] == sorted(BUILD_CONTROLS, key=order.index)
    bad = [(r.control, r.reason) for r in rows if not r.match]
    assert not bad, bad
    for row in rows:
        if row.kind == "mutant":
            assert row.check and row.actual_failed_checks == [row.check], row
        else:  # must pass: full marks, nothing failed, no gate
            assert (row.actual_score, row.actual_failed_checks, row.gates_failed) == (60, [], [])
    assert not controls_current(demo_round.pristine)
