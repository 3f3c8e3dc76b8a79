"""Loading a round's evidence for scoring: round settings, cohort and per-unit records."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from records.evidence.agent import AgentTrace
from records.evidence.evaluation import EvaluationResult
from records.evidence.round import OrderRecord, ReplacementRecord, RoundRecord
from records.evidence.scoring import ArmInfo
from records.evidence.session import SessionRecord
from records.image_tool import ImageTool
from records.inputs import Cohort, RoundKind
from records.interventions import Factor
from records.io import RecordError, read_record, readable
from records.layout import RoundPaths, UnitPaths
from records.round import Round
from records.unit_ids import parse_unit
from scoring.integrity import MANIFEST, Integrity, check_evidence


@dataclass(frozen=True)
class RoundContext:
    round_id: str
    seed: int
    cohort: Cohort
    paths: RoundPaths
    repetitions: int = 1
    kind: RoundKind = "demo"
    arms: tuple[str, ...] = ()
    """An intervention round's arms (agents, or the arms of its factor), the baseline first
    (empty in a round of one arm)."""
    factor: Factor = "agent"
    """The factor the arms vary (`agent` in a round of one arm too: nothing varies)."""
    arm_info: tuple[ArmInfo, ...] = ()
    """A method, starter or tools factor's arms as intervention.json shows them."""

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
        arms=tuple(settings.arm_ids),
        factor=settings.factor or "agent",
        arm_info=tuple(arm_info(rnd)),
    )


def tool_words(tool: ImageTool | None) -> str:
    """A tools arm's command in words ("" for none)."""
    if tool is None:
        return ""
    if tool.backend == "placeholder":
        return f"{tool.command}: writes a plain placeholder image locally (no model, cost 0)"
    return (
        f"{tool.command}: asks {tool.route} for the image through the unit's recording proxy "
        f"(chat/completions with image output, at most {tool.max_tokens} output tokens a call), "
        "metered against the unit's budget"
    )


def arm_info(rnd: Round) -> list[ArmInfo]:
    """The round's folder arms (none for the agent factor): each manifest with the hash round.json
    froze for its folder (None before the freeze)."""
    if not rnd.arms:
        return []
    path = rnd.paths.round_json
    frozen = read_record(path, RoundRecord).inputs.arms_sha256 if path.exists() else {}
    found = []
    for arm in rnd.arms:
        made = arm.manifest.generated
        found.append(
            ArmInfo(
                id=arm.id,
                title=arm.manifest.title,
                adds=arm.manifest.adds,
                baseline=arm.manifest.baseline,
                placebo=arm.manifest.placebo,
                source=arm.manifest.source,
                generated=f"{made.tool} {made.version} ({made.command})" if made else "",
                files=list(arm.files),
                tool=tool_words(arm.manifest.tool),
                sha256=frozen.get(arm.id),
            )
        )
    return found


@dataclass(frozen=True)
class RoundUnits:
    """Which units the round has: the frozen order's, then each documented replacement (as
    `records.round.Round.units()` lists them for the runner), and every other unit folder with
    why it is none of them (reported, never scored or ranked)."""

    units: list[str]
    replacements: dict[str, str]
    """replacement unit -> the unit it replaces (documented by its replacement.json)."""
    not_in_order: dict[str, str]
    """unit folder -> why it is not a unit of the round."""


def round_units(paths: RoundPaths) -> RoundUnits:
    """The frozen order (order.json; none before it is drawn), then each replacement folder whose
    replacement.json is readable, names that folder and replaces a unit of the frozen order (the
    harness never replaces a replacement); any other unit folder is listed apart, with why."""
    order = read_record(paths.order, OrderRecord).order if paths.order.exists() else []
    replacements: dict[str, str] = {}
    outside: dict[str, str] = {}
    for name in (n for n in paths.unit_folders() if n not in order):
        reason = _not_a_replacement(paths, name, order)
        if reason:
            outside[name] = reason
        else:
            record = read_record(paths.unit(name).replacement, ReplacementRecord)
            replacements[name] = record.replaced_unit
    return RoundUnits([*order, *replacements], replacements, outside)


def _not_a_replacement(paths: RoundPaths, name: str, order: list[str]) -> str:
    """Why the folder `name` is no documented replacement of a unit in `order` ('' when it is)."""
    record_path = paths.unit(name).replacement
    rel = record_path.relative_to(paths.root).as_posix()
    if not record_path.exists():
        return f"not in the frozen order (order.json) and no documented replacement ({rel} missing)"
    try:
        record = read_record(record_path, ReplacementRecord)
    except RecordError as exc:
        return f"not in the frozen order; {rel} unreadable: " + str(exc).removeprefix(
            f"{record_path}: "
        )
    if record.replacement_unit != name:
        return f"not in the frozen order; {rel} names replacement unit {record.replacement_unit!r}"
    if record.replaced_unit not in order:
        return (
            f"not in the frozen order; {rel} replaces {record.replaced_unit!r}, which is not in "
            "it either"
        )
    return ""


def unit_ids(paths: RoundPaths) -> list[str]:
    """The round's units (`round_units`) with a readable session record, sorted by name (never
    run order)."""
    return sorted(
        u for u in round_units(paths).units if readable(paths.unit(u).session, SessionRecord)
    )


def pending_replacements(paths: RoundPaths) -> list[str]:
    """Documented replacement units not run yet (no session.json)."""
    return [u for u in round_units(paths).replacements if not paths.unit(u).session.exists()]


def all_unit_ids(paths: RoundPaths) -> list[str]:
    """Every unit of the round (`round_units`; a pending replacement's excepted), sorted by name,
    whatever its evidence, so none can vanish."""
    pending = set(pending_replacements(paths))
    return sorted(u for u in round_units(paths).units if u not in pending)


def superseding(paths: RoundPaths) -> dict[str, str]:
    """Replaced unit -> the documented replacement that holds its place (run or pending).

    A replacement unit is the folder `<unit>-x<k>` holding replacement.json (the harness's
    naming); the highest k stands when there were several.
    """
    found: dict[str, tuple[int, str]] = {}
    for name in round_units(paths).replacements:
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
    trace_error: str | None = None
    integrity: Integrity | None = None
    """Whether its files are what their writers wrote (None: no readable session record)."""

    @property
    def evidence_intact(self) -> bool:
        return self.integrity is not None and not self.integrity.problems

    @property
    def reviewable(self) -> bool:
        """Gets a blind packet: a valid model run the evaluator measured, its evidence intact,
        not superseded."""
        return (
            self.session is not None
            and self.session.validity == "valid"
            and self.session.failure_class in ("none", "model")
            and self.result is not None
            and self.evidence_intact
            and self.superseded_by is None
        )


def load_unit(paths: RoundPaths, unit: str, superseded_by: str | None = None) -> UnitEvidence:
    """A missing or unreadable session.json, trace.json or result.json is recorded, not raised,
    and so is each problem of the unit's evidence (`scoring.integrity`): one bad unit never stops
    the round. `superseded_by`: the documented replacement holding its place (`superseding`)."""
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
    trace: AgentTrace | None = None
    trace_error: str | None = None
    integrity: Integrity | None = None
    if session is not None:
        try:
            trace = load_trace(paths, unit_paths, manifested=MANIFEST in session.evidence_files)
        except TraceUnreadable as exc:
            trace_error = str(exc)
        integrity = check_evidence(unit_paths, session, trace, trace_error, result)
    return UnitEvidence(
        unit=unit,
        paths=unit_paths,
        session=session,
        result=result,
        result_error=error,
        trace=trace,
        session_error=session_error,
        superseded_by=superseded_by,
        trace_error=trace_error,
        integrity=integrity,
    )


def load_units(paths: RoundPaths) -> list[UnitEvidence]:
    """Every unit of the round (`all_unit_ids`), none dropped for missing evidence."""
    replaced = superseding(paths)
    return [load_unit(paths, u, replaced.get(u)) for u in all_unit_ids(paths)]


class TraceUnreadable(RecordError):
    """The unit's trace.json does not parse (truncated, altered): that unit's problem alone."""


def load_trace(
    paths: RoundPaths, unit: UnitPaths, *, manifested: bool = False
) -> AgentTrace | None:
    """The unit's neutral trace (None when the unit has neither trace nor events). A trace.json
    that does not parse raises `TraceUnreadable`. A unit with native events but no trace predates
    traces unless its manifest lists one (`manifested`; the missing file is then that unit's
    problem): the whole round is rebuilt with `retrace`."""
    if unit.trace.exists():
        try:
            return read_record(unit.trace, AgentTrace)
        except RecordError as exc:
            raise TraceUnreadable(
                "unreadable: " + str(exc).removeprefix(f"{unit.trace}: ")
            ) from exc
    if unit.events.exists() and not manifested:
        raise RecordError(
            f"{unit.trace}: missing beside {unit.events.name} (recorded before traces existed): "
            f"rebuild it with `python -m harness.agents retrace {paths.round_id}`"
        )
    return None
