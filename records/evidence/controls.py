"""`evidence/controls.json`: the evaluator controls, expected vs actual, one row per control."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from records.base import Root, once_a_bare_list
from records.io import read_record, write_record

ControlKind = Literal["reference", "variant", "mutant"]
"""reference and variant: must score full marks with no gate failed ("must pass"); mutant: must
lose exactly its check ("must lose exactly its check")."""


def kind_of(control: str) -> ControlKind:
    """A control's kind from its name (`reference`, `variant-<name>`, `mutant-<name>`)."""
    if control == "reference":
        return "reference"
    return "variant" if control.startswith("variant-") else "mutant"


class ControlRow(Root):
    """One control. Its `schema_version` dates from when the file was a bare list of rows: 2
    added `kind` (legal variants joined the reference and the mutants); a version-1 row, written
    before, has none and takes the kind its name says (there were no variants then)."""

    schema_version: int = 2
    control: str
    kind: ControlKind
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

    @model_validator(mode="before")
    @classmethod
    def _version_1(cls, data: Any) -> Any:
        """A row with neither a version nor a kind was written before either existed: version 1,
        its kind from its name."""
        if isinstance(data, dict) and not {"schema_version", "kind"} & set(data):
            data = {**data, "schema_version": 1, "kind": kind_of(str(data.get("control", "")))}
        return data

    @property
    def must_pass(self) -> bool:
        """A positive control (the reference or a legal variant): full marks, no gate."""
        return self.kind != "mutant"


class ControlsRecord(Root):
    """`evidence/controls.json`: every control's row, in run order.

    Schema 3 is this object; schemas 1 and 2 were a bare list of rows and still load (as
    schema 2: the rows carry their own versions)."""

    schema_version: int = 3
    controls: list[ControlRow] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _bare_list(cls, data: Any) -> Any:
        return once_a_bare_list(data, "controls", version=2)


def read_controls(path: Path) -> list[ControlRow] | None:
    """The rows of a `controls.json` of any schema (None when there is none yet); a malformed
    file is a RecordError naming it and the field."""
    return read_record(path, ControlsRecord).controls if path.exists() else None


def write_controls(path: Path, rows: list[ControlRow]) -> None:
    write_record(path, ControlsRecord(controls=rows))


class ControlsInputs(Root):
    """`evidence/controls.inputs.json`: what the last full, all-matching controls run judged.

    Written only when every control matched; doit's controls stage is up to date while it exists
    and its hash equals the current inputs' (so a new round's doit state does not re-run them)."""

    schema_version: int = 2
    task: str | None = Field(
        default=None, description="the task whose controls ran (None in schema 1: atlas-rooms)"
    )
    sha256: str = Field(description="files_sha256 of the task folder, evaluator and control code")
    files: int = Field(ge=1, description="how many files the hash covers")
    controls: int = Field(ge=1, description="how many controls matched")
