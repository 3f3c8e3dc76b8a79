"""Loading a round's evidence for scoring: round settings, cohort and per-unit records."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from records.evidence.agent import AgentTrace
from records.evidence.evaluation import EvaluationResult
from records.evidence.session import SessionRecord
from records.inputs import Cohort, load_cohort, load_round
from records.io import RecordError, read_record
from records.layout import EVIDENCE_DIR, RoundPaths, UnitPaths, round_paths


@dataclass(frozen=True)
class RoundContext:
    round_id: str
    seed: int
    cohort: Cohort
    paths: RoundPaths
    repetitions: int = 1

    def rel(self, path: Path) -> str:
        """A path relative to the round folder, as explanations cite it."""
        try:
            return path.relative_to(self.paths.root).as_posix()
        except ValueError:
            return str(path)


def load_context(round_id: str, evidence_dir: Path | None = None) -> RoundContext:
    settings = load_round(round_id)
    return RoundContext(
        round_id=round_id,
        seed=settings.seed,
        cohort=load_cohort(settings.cohort_path),
        paths=round_paths(round_id, evidence_dir or EVIDENCE_DIR),
        repetitions=settings.repetitions,
    )


def unit_ids(paths: RoundPaths) -> list[str]:
    """Units with a session record, sorted by name (never run order)."""
    return sorted(p.parent.name for p in paths.units_dir.glob("*/session.json"))


@dataclass(frozen=True)
class UnitEvidence:
    unit: str
    paths: UnitPaths
    session: SessionRecord
    result: EvaluationResult | None
    result_error: str | None = None
    trace: AgentTrace | None = None

    @property
    def reviewable(self) -> bool:
        """Gets a blind packet: a valid model run the evaluator measured."""
        return (
            self.session.validity == "valid"
            and self.session.failure_class in ("none", "model")
            and self.result is not None
        )


def load_unit(paths: RoundPaths, unit: str) -> UnitEvidence:
    """session.json must be valid; a missing or broken result.json is recorded, not raised."""
    unit_paths = paths.unit(unit)
    session = read_record(unit_paths.session, SessionRecord)
    result: EvaluationResult | None = None
    error: str | None = None
    if unit_paths.result.exists():
        try:
            result = read_record(unit_paths.result, EvaluationResult)
        except RecordError as exc:
            error = str(exc)
    else:
        error = "evaluation/result.json missing"
    return UnitEvidence(
        unit=unit,
        paths=unit_paths,
        session=session,
        result=result,
        result_error=error,
        trace=load_trace(paths, unit_paths),
    )


def load_trace(paths: RoundPaths, unit: UnitPaths) -> AgentTrace | None:
    """The unit's neutral trace; a unit with native events but no trace predates traces."""
    if unit.trace.exists():
        return read_record(unit.trace, AgentTrace)
    if unit.events.exists():
        raise RecordError(
            f"{unit.trace}: missing beside {unit.events.name} (recorded before traces existed): "
            f"rebuild it with `python -m harness.agents retrace {paths.round_id}`"
        )
    return None
