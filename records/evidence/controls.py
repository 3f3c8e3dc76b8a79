"""`evidence/controls.json`: the evaluator controls, expected vs actual, one row per control."""

from __future__ import annotations

from pydantic import Field

from records.base import Record, Root


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


class ControlsInputs(Root):
    """`evidence/controls.inputs.json`: what the last full, all-matching controls run judged.

    Written only when every control matched; doit's controls stage is up to date while it exists
    and its hash equals the current inputs' (so a new round's doit state does not re-run them)."""

    sha256: str = Field(description="files_sha256 of the starter, evaluator and control files")
    files: int = Field(ge=1, description="how many files the hash covers")
    controls: int = Field(ge=1, description="how many controls matched")
