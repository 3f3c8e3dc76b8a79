"""`evidence/controls.json`: the evaluator controls, expected vs actual, one row per control."""

from __future__ import annotations

from records.base import Record


class ControlRow(Record):
    """One control; the file is a bare list of rows (see ROOTS in tests/test_records_schema.py)."""

    control: str
    check: str | None
    description: str
    expected_score: int
    actual_score: int | None
    expected_failed_checks: list[str]
    actual_failed_checks: list[str]
    gates_failed: list[str]
    expected_gates_failed: list[str] = []
    match: bool
    reason: str = ""
    result: str | None = None
    duration_s: float = 0.0
