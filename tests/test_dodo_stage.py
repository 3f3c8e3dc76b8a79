"""`dodo.stage()` turns what a stage function returns into doit's success or failure."""

from __future__ import annotations

import sys
import types

import pytest

import dodo


@pytest.fixture
def stages(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    module = types.ModuleType("fake_stages")
    module.false = lambda: False  # type: ignore[attr-defined]
    module.true = lambda: True  # type: ignore[attr-defined]
    module.zero = lambda: 0  # type: ignore[attr-defined]
    module.two = lambda: 2  # type: ignore[attr-defined]
    module.record = lambda: object()  # type: ignore[attr-defined]
    module.none = lambda: None  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_stages", module)
    return module


@pytest.mark.parametrize(
    ("name", "ok"),
    [("false", False), ("true", True), ("zero", True), ("two", False), ("record", True),
     ("none", True)],
)  # fmt: skip
def test_stage_results(stages: types.ModuleType, name: str, ok: bool) -> None:
    assert dodo.stage(f"fake_stages:{name}") is ok
