"""Loading a round's evidence for scoring: round settings, cohort and per-unit records."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from records.evidence.agent import AgentTrace
from records.evidence.evaluation import EvaluationResult
from records.evidence.round import OrderRecord
from records.evidence.session import SessionRecord
from records.inputs import Cohort, RoundKind
from records.io import RecordError, read_record, readable
from records.layout import RoundPaths, UnitPaths
from records.round import Round
from records.unit_ids import parse_unit


@dataclass(frozen=True)
class RoundContext:
    round_id: str
    seed: int
    cohort: Cohort
    paths: RoundPaths
    repetitions: int = 1
    kind: RoundKind = "demo"
    arms: tuple[str, ...] = ()
    """An intervention round's agents, the baseline first (empty in a round of one agent)."""

    def rel(self, path: Path) -> str:
        """A path relative to the round folder, as explanations cite it."""
        try:
            return path.relative_to(self.paths.root).as_posix()
        except ValueError:
            return str(path)


def load_context(rnd: Round) -> RoundContext:
    """What scoring needs of the round."""
    settings = rnd.settings
    return RoundContext(
        round_id=rnd.id,
        seed=settings.seed,
        cohort=rnd.cohort,
        paths=rnd.paths,
        repetitions=settings.repetitions,
        kind=settings.kind,
        arms=tuple(a.name for a in settings.agents),
    )


def unit_ids(paths: RoundPaths) -> list[str]:
    """Units with a readable session record, sorted by name (never run order)."""
    return sorted(
        u for u in paths.units_with("session") if readable(paths.unit(u).session, SessionRecord)
    )


def pending_replacements(paths: RoundPaths) -> list[str]:
    """Replacement units created (replacement.json) but not run yet (no session.json)."""
    return [u for u in paths.units_with("replacement") if not paths.unit(u).session.exists()]


def all_unit_ids(paths: RoundPaths) -> list[str]:
    """Every unit of the round, sorted by name: each unit folder (a pending replacement's
    excepted) and each unit of the frozen order, whatever its evidence, so none can vanish."""
    pending = set(pending_replacements(paths))
    found = {name for name in paths.unit_folders() if name not in pending}
    if paths.order.exists():
        found.update(read_record(paths.order, OrderRecord).order)
    return sorted(found)


def superseding(paths: RoundPaths) -> dict[str, str]:
    """Replaced unit -> the documented replacement that holds its place (run or pending).

    A replacement unit is the folder `<unit>-x<k>` holding replacement.json (the harness's
    naming); the highest k stands when there were several.
    """
    found: dict[str, tuple[int, str]] = {}
    for name in paths.units_with("replacement"):
        unit = parse_unit(name)
        if unit is None or not unit.is_replacement:
            continue
        if unit.replacement > found.get(unit.original, (0, ""))[0]:
            found[unit.original] = (unit.replacement, name)
    return {unit: name for unit, (_, name) in found.items()}


@dataclass(frozen=True)
class UnitEvidence:
    unit: str
    paths: UnitPaths
    session: SessionRecord | None
    result: EvaluationResult | None
    result_error: str | None = None
    trace: AgentTrace | None = None
    session_error: str | None = None
    superseded_by: str | None = None

    @property
    def reviewable(self) -> bool:
        """Gets a blind packet: a valid model run the evaluator measured, not superseded."""
        return (
            self.session is not None
            and self.session.validity == "valid"
            and self.session.failure_class in ("none", "model")
            and self.result is not None
            and self.superseded_by is None
        )


def load_unit(paths: RoundPaths, unit: str) -> UnitEvidence:
    """A missing or unreadable session.json or result.json is recorded, not raised; so is the
    documented replacement that supersedes the unit."""
    unit_paths = paths.unit(unit)
    session: SessionRecord | None = None
    session_error: str | None = None
    if not unit_paths.session.exists():
        session_error = "missing"
    else:
        try:
            session = read_record(unit_paths.session, SessionRecord)
        except RecordError as exc:  # the file is named by the caller, relative to the round
            session_error = "unreadable: " + str(exc).removeprefix(f"{unit_paths.session}: ")
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
        trace=load_trace(paths, unit_paths) if session is not None else None,
        session_error=session_error,
        superseded_by=superseding(paths).get(unit),
    )


def load_units(paths: RoundPaths) -> list[UnitEvidence]:
    """Every unit of the round (`all_unit_ids`), none dropped for missing evidence."""
    return [load_unit(paths, u) for u in all_unit_ids(paths)]


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
