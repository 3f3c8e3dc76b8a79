"""Everything the site reads, validated: one round's evidence plus the round's frozen inputs.

Optional files (no leaderboard yet, no reviews, no video) are simply absent from the result;
a file that exists but is malformed raises `RecordError` naming the file and the field, except a
unit's session.json, result.json and trace.json: those are read as absent, so the unit stays on
the site as the leaderboard lists it (invalid, evidence missing with the file named; evaluation
failed) instead of failing the whole site.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from records.controls_stamp import controls_current
from records.evidence.agent import AgentTrace
from records.evidence.controls import ControlRow, read_controls
from records.evidence.evaluation import Calibration, EvaluationResult
from records.evidence.round import OrderRecord, PreflightRecord, ReplacementRecord, RoundRecord
from records.evidence.scoring import (
    InterventionBoard,
    Leaderboard,
    ModelLeaderboard,
    UnitStatus,
)
from records.evidence.session import SessionRecord
from records.hashing import file_sha256
from records.inputs import Cohort, RoundSettings
from records.io import RecordError, read_record
from records.layout import RoundPaths, UnitPaths, controls_json
from records.round import Round
from records.unit_ids import parse_unit
from scoring import provisional_statuses

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class UnitEvidence:
    unit: str
    paths: UnitPaths
    session: SessionRecord | None
    result: EvaluationResult | None
    trace: AgentTrace | None  # the trajectory; None when trace.json is absent or unreadable
    replacement: ReplacementRecord | None

    @property
    def model_key(self) -> str:
        if self.session is not None:
            return self.session.model_key
        parsed = parse_unit(self.unit)
        return parsed.model_key if parsed else self.unit


@dataclass(frozen=True)
class RoundEvidence:
    round_id: str
    paths: RoundPaths
    settings: RoundSettings
    cohort: Cohort
    round_record: RoundRecord | None
    calibration: Calibration | None
    calibration_result: EvaluationResult | None
    controls: list[ControlRow] | None
    controls_current: bool  # a complete, all-matching run of today's controls and judge
    preflight: dict[str, PreflightRecord]
    order: OrderRecord | None
    leaderboard: Leaderboard | None
    model_leaderboard: ModelLeaderboard | None = None  # a repeated round's ranking by model
    intervention: InterventionBoard | None = None  # an intervention round's agents compared
    units: dict[str, UnitEvidence] = field(default_factory=dict)
    # before scoring has run: each unit's (status, reasons) as scoring will give them
    provisional: dict[str, tuple[UnitStatus, list[str]]] = field(default_factory=dict)


def _tolerant(path: Path, model: type[M]) -> M | None:
    """The record at `path`; None when absent or unreadable (the leaderboard names the file)."""
    if not path.exists():
        return None
    try:
        return read_record(path, model)
    except RecordError:
        return None


def load_unit(paths: UnitPaths) -> UnitEvidence:
    replacement = paths.replacement
    session = _tolerant(paths.session, SessionRecord)
    result = _tolerant(paths.result, EvaluationResult)
    return UnitEvidence(
        unit=paths.root.name,
        paths=paths,
        session=session,
        result=result,
        trace=_tolerant(paths.trace, AgentTrace),
        replacement=read_record(replacement, ReplacementRecord) if replacement.exists() else None,
    )


def _intervention(paths: RoundPaths, round_id: str) -> InterventionBoard | None:
    """intervention.json when scoring wrote one (an intervention round); a malformed file, one
    of another round or one built from another leaderboard.json raises RecordError naming it."""
    path = paths.intervention
    if not path.exists():
        return None
    board = read_record(path, InterventionBoard)
    if board.round_id != round_id:
        raise RecordError(f"{path}: field round_id: {board.round_id!r} is not round {round_id!r}")
    if not paths.leaderboard.exists() or file_sha256(paths.leaderboard) != board.leaderboard_sha256:
        raise RecordError(
            f"{path}: field leaderboard_sha256: built from another leaderboard.json than "
            f"{paths.leaderboard} (score the round again)"
        )
    return board


def load_round_evidence(rnd: Round) -> RoundEvidence:
    """Read and validate every file of one round the site shows."""
    paths, round_id, evidence_dir, settings = rnd.paths, rnd.id, rnd.evidence_dir, rnd.settings
    if not paths.root.is_dir():
        raise RecordError(f"{paths.root}: no evidence for round {round_id!r}")
    preflight = {
        key: read_record(paths.preflight(key), PreflightRecord) for key in paths.preflight_keys()
    }
    units = {name: load_unit(paths.unit(name)) for name in paths.unit_folders()}
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
        cohort=rnd.cohort,
        round_record=read_record(paths.round_json, RoundRecord)
        if paths.round_json.exists()
        else None,
        calibration=calibration,
        calibration_result=calibration_result,
        controls=read_controls(controls_json(evidence_dir)),
        controls_current=controls_current(evidence_dir),
        preflight=preflight,
        order=read_record(paths.order, OrderRecord) if paths.order.exists() else None,
        leaderboard=read_record(paths.leaderboard, Leaderboard)
        if paths.leaderboard.exists()
        else None,
        model_leaderboard=read_record(paths.model_leaderboard, ModelLeaderboard)
        if paths.model_leaderboard.exists()
        else None,
        intervention=_intervention(paths, round_id),
        units=units,
        provisional={} if paths.leaderboard.exists() else provisional_statuses(rnd),
    )
