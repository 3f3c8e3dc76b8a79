"""A check judged on another check's settled visit (`shared_visits`) says exactly what it says on
its own visit: same verdict, same diagnostics, same page and viewport.

The reference with two controls' mutations at once (the long venue name cut with an ellipsis,
card titles cut short), built once; the browser phase then runs the checks that judge
no-overflow's visits with no-overflow (shared) and without it (each loads its own pages).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.build import Workspace, copy_app, run_step
from evaluator.controls import materialize
from evaluator.controls.run import apply_patch
from evaluator.evaluate import run_browser_phase
from records.evidence.evaluation import CheckResult, PhaseRecord
from records.task import DEFAULT_TASK, load_task

TASK = load_task(DEFAULT_TASK)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

JUDGES = ["catalogue-listing", "long-copy", "responsive-layout", "semantics", "axe"]


def _said(check: CheckResult) -> tuple[bool, list[tuple[str, str, str | None, str | None]]]:
    return check.passed, [(d.expected, d.seen, d.url, d.viewport) for d in check.diagnostics]


def test_a_shared_visit_judges_like_the_checks_own_visit(tmp_path: Path) -> None:
    app = materialize.materialize_reference(TASK, tmp_path / "app")
    for mutant in ("long-copy", "catalogue-listing"):
        assert apply_patch(app, TASK.mutants / f"{mutant}.patch") is None
    workspace = Workspace(tmp_path / "ws")
    workspace.root.mkdir()
    copy_app(app, workspace)
    for step in ("install", "build"):
        assert run_step(workspace, step).ok

    def phase(out: str, only: list[str]) -> PhaseRecord:
        record, _ = run_browser_phase(
            workspace.dist, tmp_path / out, data_file=TASK.data,
            checks_package=TASK.spec.checks, only=only, video=False, trace=False,
            screenshots=False, lanes=1,
        )  # fmt: skip
        return record

    shared = phase("shared", ["no-overflow", *JUDGES])
    own = phase("own", JUDGES)
    assert shared.complete and own.complete, (shared.error, own.error)
    assert shared.timings["shared_visits_s"] > 0 and own.timings["shared_visits_s"] == 0
    by_id = {c.id: c for c in shared.checks}
    for check in own.checks:
        assert _said(by_id[check.id]) == _said(check), check.id
    failed = sorted(c.id for c in own.checks if not c.passed)
    assert failed == ["catalogue-listing", "long-copy"]
