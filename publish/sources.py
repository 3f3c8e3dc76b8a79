"""Everything the site reads, validated: one round's evidence plus the round's frozen inputs.

Optional files (no leaderboard yet, no reviews, no video) are simply absent from the result;
a file that exists but is malformed raises `RecordError` naming the file and the field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from publish import contracts
from records.evidence.evaluation import Calibration, EvaluationResult
from records.evidence.round import OrderRecord, PreflightRecord, ReplacementRecord, RoundRecord
from records.evidence.scoring import Leaderboard
from records.evidence.session import SessionRecord
from records.inputs import Cohort, RoundSettings, load_cohort, load_round
from records.io import RecordError, describe_validation_error, read_json, read_record
from records.layout import EVIDENCE_DIR, RoundPaths, UnitPaths, controls_json, round_paths

CONTROLS_MODEL = contracts.owner_model(
    "evaluator.controls", ("ControlsRecord", "Controls"), contracts.Controls
)


@dataclass(frozen=True)
class UnitEvidence:
    unit: str
    paths: UnitPaths
    session: SessionRecord | None
    result: EvaluationResult | None
    commands: list[contracts.CommandEntry]
    replacement: ReplacementRecord | None

    @property
    def model_key(self) -> str:
        if self.session is not None:
            return self.session.model_key
        return self.unit.rsplit("-r", 1)[0]


@dataclass(frozen=True)
class RoundEvidence:
    round_id: str
    paths: RoundPaths
    settings: RoundSettings
    cohort: Cohort
    round_record: RoundRecord | None
    calibration: Calibration | None
    calibration_result: EvaluationResult | None
    controls: dict[str, Any] | None
    preflight: dict[str, PreflightRecord]
    order: OrderRecord | None
    leaderboard: Leaderboard | None
    units: dict[str, UnitEvidence] = field(default_factory=dict)


def _validated(path: Path, model: type[BaseModel], data: Any) -> dict[str, Any]:
    try:
        return model.model_validate(data).model_dump(mode="json")
    except ValidationError as exc:
        raise RecordError(describe_validation_error(path, exc)) from exc


def _optional_dict(
    path: Path, model: type[BaseModel], list_key: str | None = None
) -> dict[str, Any] | None:
    if not path.exists():
        return None
    data = read_json(path)
    if list_key is not None and isinstance(data, list):
        data = {list_key: data}
    return _validated(path, model, data)


def load_commands(path: Path) -> list[contracts.CommandEntry]:
    """`commands.json`: a list of commands, or an object holding one under `commands`."""
    if not path.exists():
        return []
    data = read_json(path)
    items = data.get("commands") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise RecordError(f"{path}: expected a list of commands (or {{'commands': [...]}})")
    entries: list[contracts.CommandEntry] = []
    for index, item in enumerate(items):
        try:
            entries.append(contracts.CommandEntry.model_validate(item))
        except ValidationError as exc:
            raise RecordError(
                describe_validation_error(path, exc) + f"\n  (command #{index})"
            ) from exc
    return entries


def load_unit(paths: UnitPaths) -> UnitEvidence:
    replacement = paths.root / "replacement.json"
    return UnitEvidence(
        unit=paths.root.name,
        paths=paths,
        session=read_record(paths.session, SessionRecord) if paths.session.exists() else None,
        result=read_record(paths.result, EvaluationResult) if paths.result.exists() else None,
        commands=load_commands(paths.commands),
        replacement=read_record(replacement, ReplacementRecord) if replacement.exists() else None,
    )


def load_round_evidence(round_id: str, evidence_dir: Path = EVIDENCE_DIR) -> RoundEvidence:
    """Read and validate every file of one round the site shows."""
    paths = round_paths(round_id, evidence_dir)
    if not paths.root.is_dir():
        raise RecordError(f"{paths.root}: no evidence for round {round_id!r}")
    settings = load_round(round_id)
    preflight = {
        file.parent.name: read_record(file, PreflightRecord)
        for file in sorted(paths.preflight_dir.glob("*/preflight.json"))
    }
    units = {
        folder.name: load_unit(paths.unit(folder.name))
        for folder in sorted(paths.units_dir.iterdir() if paths.units_dir.is_dir() else [])
        if folder.is_dir()
    }
    calibration = None
    if paths.calibration.exists():
        calibration = read_record(paths.calibration, Calibration)
    calibration_result = None
    if calibration is not None and (paths.root / calibration.result).is_file():
        calibration_result = read_record(paths.root / calibration.result, EvaluationResult)
    return RoundEvidence(
        round_id=round_id,
        paths=paths,
        settings=settings,
        cohort=load_cohort(settings.cohort_path),
        round_record=read_record(paths.round_json, RoundRecord)
        if paths.round_json.exists()
        else None,
        calibration=calibration,
        calibration_result=calibration_result,
        controls=_optional_dict(controls_json(evidence_dir), CONTROLS_MODEL, list_key="controls"),
        preflight=preflight,
        order=read_record(paths.order, OrderRecord) if paths.order.exists() else None,
        leaderboard=read_record(paths.leaderboard, Leaderboard)
        if paths.leaderboard.exists()
        else None,
        units=units,
    )
