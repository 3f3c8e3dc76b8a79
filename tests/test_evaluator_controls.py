"""Controls: the reference and every legal variant score full marks with no gate failing and each
mutant loses exactly its own check and fails exactly the gates it names — as the demo round's
controls stage ran them (`run_controls` through doit, in the shared demo build)."""

from __future__ import annotations

from pathlib import Path

import pytest
from demo_build import DemoBuild

from evaluator.checks import CHECKS
from evaluator.controls.run import (
    check_of,
    control_names,
    expected_gates,
    mutant_patches,
    touches_dependencies,
    variant_patches,
)
from publish.sources import load_controls
from records.layout import controls_json

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_every_check_has_a_mutant() -> None:
    patches = mutant_patches()
    assert sorted({check_of(m) for m in patches}) == sorted(c.id for c in CHECKS)
    assert expected_gates(patches["axe"]) == ["axe-serious"]
    assert expected_gates(patches["venue-detail"]) == []  # a renamed term: the journey holds


def test_mutants_share_the_reference_install(tmp_path: Path) -> None:
    """Controls hard-link one install of the reference: no shipped mutant may change the
    dependencies, and one that did would be given its own install."""
    assert not [m for m, patch in mutant_patches().items() if touches_dependencies(patch)]
    bump = tmp_path / "deps.patch"
    bump.write_text(
        "# a new dependency\n--- a/package.json\n+++ b/package.json\n@@ -1 +1 @@\n-{}\n+{ }\n"
    )
    assert touches_dependencies(bump)


def test_all_controls_match(demo_round: DemoBuild) -> None:
    rows = load_controls(controls_json(demo_round.pristine)) or []
    assert [r.control for r in rows] == control_names(mutant_patches(), variant_patches())
    bad = [(r.control, r.reason) for r in rows if not r.match]
    assert not bad, bad
    positives = [r for r in rows if r.kind != "mutant"]
    assert [r.control for r in positives] == ["reference"] + [
        f"variant-{v}" for v in sorted(variant_patches())
    ]
    for row in positives:  # must pass: full marks, nothing failed, no gate
        assert (row.actual_score, row.actual_failed_checks, row.gates_failed) == (60, [], []), row
    assert all(r.kind == "mutant" and r.check for r in rows if r not in positives)
