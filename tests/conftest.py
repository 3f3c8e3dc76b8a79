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
