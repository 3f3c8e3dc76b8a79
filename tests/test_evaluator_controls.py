"""Controls: the reference scores 60/60 with no gate failing and each of the 15 mutants loses
exactly its own check (python -m evaluator controls). About 15 minutes on two cores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.checks import CHECKS
from evaluator.controls.run import mutant_patches, run_controls

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_every_check_has_a_mutant() -> None:
    assert sorted(mutant_patches()) == sorted(c.id for c in CHECKS)


@pytest.mark.timeout(3600)  # sixteen full evaluations; the benchmark script measures the speed
def test_all_controls_match(tmp_path: Path) -> None:
    code = run_controls(evidence_dir=tmp_path)
    rows = json.loads((tmp_path / "controls.json").read_text())
    assert len(rows) == 16
    bad = [(r["control"], r["reason"]) for r in rows if not r["match"]]
    assert code == 0 and not bad, bad
