"""Controls: the reference scores full marks with no gate failing and each mutant loses exactly
its own check and fails exactly the gates it names (python -m evaluator controls). About 20
minutes on two cores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.checks import CHECKS
from evaluator.controls.run import (
    check_of,
    expected_gates,
    mutant_patches,
    run_controls,
    touches_dependencies,
)

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


@pytest.mark.timeout(5400)  # one full evaluation per control; the benchmark measures the speed
def test_all_controls_match(tmp_path: Path) -> None:
    code = run_controls(evidence_dir=tmp_path)
    rows = json.loads((tmp_path / "controls.json").read_text())
    assert len(rows) == 1 + len(mutant_patches())
    bad = [(r["control"], r["reason"]) for r in rows if not r["match"]]
    assert code == 0 and not bad, bad
