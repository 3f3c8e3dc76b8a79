"""Fixtures shared by several test files."""

from __future__ import annotations

from pathlib import Path

import pytest

import harness.freeze as freeze_stage


@pytest.fixture
def frozen_inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`tmp_path` holding a stand-in task prompt and starter tree that the freeze stage reads."""
    prompt = tmp_path / "task-prompt.md"
    prompt.write_bytes(b"Build the site.\n")
    starter = tmp_path / "starter"
    (starter / "src").mkdir(parents=True)
    (starter / "src" / "main.ts").write_text("export {}\n")
    monkeypatch.setattr(freeze_stage, "PROMPT_FILE", prompt)
    monkeypatch.setattr(freeze_stage, "STARTER_DIR", starter)
    return tmp_path


# --- parallel runs (scripts/test: pytest -n 2 --dist loadfile) -------------------------------
# Every test file runs on one worker, so a module-scoped fixture (a whole demo round, a smoke
# round, a gateway) is built once; the site test files share one built round across workers
# through `site_fixture.real_evidence` (a file lock). (`--dist loadgroup` with `xdist_group`
# marks does not group under this pytest: tests of one file ran on both workers, each building
# the whole demo round.) The heaviest files are queued first so they run side by side instead
# of one long file finishing last. Their tests (fixture setup included
# in pytest-timeout's count) get a timeout sized for a loaded two-core machine.
SHARED_GROUPS = {
    "test_site_audit.py": "site-evidence",
    "test_site_browser.py": "site-evidence",
    "test_site_render.py": "site-evidence",
}
HEAVY_FIRST = (
    "test_pipeline.py",
    "test_evaluator_controls.py",
    "site-evidence",
    "test_rehearsal.py",
    "test_session_units.py",
    "test_pipeline_crash.py",
    "test_evaluator_calibration.py",
    "test_evaluator_determinism.py",
)
HEAVY_TIMEOUT_S = 5400


def _group(item: pytest.Item) -> str:
    name = item.path.name
    return SHARED_GROUPS.get(name, name)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {group: i for i, group in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(_group(item), len(rank)))  # stable: file order kept
    for item in items:
        group = _group(item)
        if group in rank and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(HEAVY_TIMEOUT_S))
