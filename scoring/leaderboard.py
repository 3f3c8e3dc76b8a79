"""`evidence/<round>/leaderboard.json`: every unit's status, score breakdown and advancement.

Units: the frozen order's and the documented replacements (`scoring.evidence.round_units`);
every other unit folder is listed in `units_outside_order`, never a row.

Statuses, decided in this order:
- `superseded`: a documented replacement holds this unit's place (run or pending); the row is
  kept with `superseded_by` and the status its own evidence gives (`own_status`), never scored,
  ranked or advanced, so one model holds one place;
- `invalid` (evidence missing): the session record is missing or unreadable; listed with the
  file named (`evidence_missing`), never dropped;
- `provider_outage`, `harness_failure`: session failure class; listed apart, never scored;
- `invalid`: the session is invalid (reasons shown), or its evidence is not what its writers
  wrote (`scoring.integrity`: a file its manifests list gone or hashing otherwise, a manifest
  missing, trace.json unreadable, the worktree archive not the one session.json recorded; for
  evidence before manifests, a required file gone or events.jsonl cut) (`evidence_missing`
  names each file); never ranked, never replaceable;
- `evaluation_failed`: no usable result.json (missing or unreadable), a result that is not the
  task's or the frozen judge's (`scoring.result_check`), or the result's `evaluation_failures`
  (an evaluator error, a gate probe's own failure, a check not executed on a submission that
  installed and built); listed apart, never scored as a model failure. A failed install or
  build is the model's own: `gate_failed`;
- `gate_failed`: scored, total capped at 49, ineligible for ranking and advancement;
- `ranked`: scored and gate-eligible.
Ceiling stops (`step_ceiling`, `time_ceiling`, `budget_ceiling`) and sandbox-limit stops
(`resource_limit`) are scored; `stop_status` shows them (who caused a session's end, and so its
failure class, is `harness.attribution`'s table, recorded in session.json). A scored row is
provisional while any manual dimension lacks its required reviews.

Standing: `final` only when every gate-eligible row is final, no documented replacement is
pending, no unit's evaluation failed and every receipted review sheet is still there
(`scoring.receipts.receipt_problems`); until then no unit advances (`advanced` false,
`advancing` empty) and the advancement the current totals would give is kept as `projected` /
`advancing_projected`, with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import get_args

from records.evidence.round import RoundRecord
from records.evidence.scoring import (
    Advancement,
    Breakdown,
    CodesRecord,
    Explanation,
    FrozenVersions,
    GateFailure,
    Leaderboard,
    LeaderboardRow,
    NotTestable,
    Review,
    ReviewSheetProblem,
    ReviewState,
    Standing,
    Tie,
    UnitOutsideOrder,
    UnitStatus,
)
from records.evidence.session import SessionRecord
from records.io import RecordError, read_json, read_record
from records.result_check import Judge, frozen_judge, result_problems
from records.unit_ids import entrant_key, parse_unit
from scoring.advancement import TIE_RULE, Entry, rank
from scoring.efficiency import minutes, score_efficiency
from scoring.evidence import (
    RoundContext,
    UnitEvidence,
    load_units,
    pending_replacements,
    round_units,
)
from scoring.receipts import receipt_problems, unrecognised_review_files
from scoring.reviews import aggregate
from scoring.totals import GATE_CAP, automated_dimensions, manual_dimension, total
from scoring.verification import score_verification

STATUS_ORDER = get_args(UnitStatus)  # the board lists statuses in the record's order


@dataclass(frozen=True)
class Verdict:
    status: UnitStatus
    reasons: list[str]
    not_run: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def _evidence_reason(ctx: RoundContext, path: Path, why: str) -> str:
    """One problem of `scoring.integrity` as a status reason naming the file."""
    rel = ctx.rel(path)
    kind, _, detail = why.partition(": ")
    if kind == "altered":
        return f"required evidence altered: {rel}: {detail}"
    if kind == "missing":
        return f"required evidence missing: {rel}" + (f" ({detail})" if detail else "")
    return f"required evidence missing: {rel} ({why})"


def _status(ctx: RoundContext, unit: UnitEvidence, judge: Judge) -> Verdict:
    """The unit's status from its own evidence (superseding is decided by the caller)."""
    s = unit.session
    if s is None:
        source = ctx.rel(unit.paths.session)
        why = unit.session_error or "missing"
        return Verdict("invalid", [f"required evidence missing: {source} ({why})"], [], [source])
    if s.failure_class == "provider_outage":
        return Verdict("provider_outage", [s.failure_detail or "provider outage"])
    if s.failure_class == "harness":
        return Verdict("harness_failure", [s.failure_detail or "harness failure"])
    if s.validity != "valid":
        return Verdict("invalid", list(s.invalid_reasons) or ["session marked invalid"])
    problems = unit.integrity.problems if unit.integrity is not None else []
    if problems:
        reasons = [_evidence_reason(ctx, path, why) for path, why in problems]
        return Verdict("invalid", reasons, [], [ctx.rel(path) for path, _ in problems])
    if unit.result is None:
        return Verdict("evaluation_failed", [unit.result_error or "no evaluation result"])
    manifest = unit.integrity.manifest if unit.integrity is not None else None
    wrong = result_problems(unit.result, judge, manifest)
    if wrong:
        source = ctx.rel(unit.paths.result)
        return Verdict("evaluation_failed", [f"{source}: not a result of the round's task and "
                                             f"judge: {'; '.join(wrong)}"])  # fmt: skip
    failures = unit.result.evaluation_failures
    if failures:
        return Verdict("evaluation_failed", failures, unit.result.checks_not_executed)
    if unit.result.hard_gate_failed:
        failed = [g.id for g in unit.result.gates if g.failed]
        return Verdict("gate_failed", [f"hard gate failed: {', '.join(failed) or 'unnamed'}"])
    return Verdict("ranked", [])


def provisional_statuses(ctx: RoundContext) -> dict[str, tuple[UnitStatus, list[str]]]:
    """Each unit's status and reasons as the leaderboard will give them, for a board shown
    before scoring has run (the site reads these; it never derives a status itself)."""
    found: dict[str, tuple[UnitStatus, list[str]]] = {}
    judge = frozen_judge(ctx.paths)
    for unit in load_units(ctx.paths):
        if unit.superseded_by:
            found[unit.unit] = ("superseded", [f"replaced by {unit.superseded_by}"])
        else:
            verdict = _status(ctx, unit, judge)
            found[unit.unit] = (verdict.status, verdict.reasons)
    return found


def _arm(unit: str) -> str:
    """The unit's arm, as its id names it (`<model>-via-<arm>-r<n>`)."""
    parsed = parse_unit(unit)
    return parsed.agent if parsed else ""


def _unrecorded_row(ctx: RoundContext, unit: UnitEvidence, verdict: Verdict) -> LeaderboardRow:
    """The row of a unit without a readable session record: named, invalid, nothing measured."""
    parsed = parse_unit(unit.unit)
    key, repetition = (parsed.model_key, parsed.repetition) if parsed else ("", 0)
    candidate = next((c for c in ctx.cohort.candidates if c.key == key), None)
    return LeaderboardRow(
        unit=unit.unit,
        candidate_code=None,
        model_key=key or unit.unit,
        route=candidate.route if candidate else "",
        display_name=candidate.display_name if candidate else (key or unit.unit),
        agent=parsed.agent if parsed else "",
        repetition=repetition,
        replacement_of=parsed.original if parsed and parsed.is_replacement else None,
        status=verdict.status,
        status_reasons=verdict.reasons,
        evidence_missing=verdict.missing,
        elapsed_seconds=None,
        cost_usd=None,
        tokens=None,
        stop_status="not recorded",
        exit_code=None,
        validity="invalid",
        invalid_reasons=verdict.reasons,
        failure_class="none",
        identity_verdict="not recorded",
        advancement=Advancement(advanced=False, reason=f"not ranked: {verdict.status}"),
    )


def _supersede(ctx: RoundContext, row: LeaderboardRow, by: str) -> LeaderboardRow:
    """The row of a replaced unit: kept with its own status and reasons, never scored."""
    ran = ctx.paths.unit(by).session.exists()
    label = f"superseded by {by}" + ("" if ran else " (documented replacement, not run yet)")
    own = row.status
    row.own_status, row.status, row.superseded_by = own, "superseded", by
    row.status_reasons = [
        f"{label}: the replacement holds this model's place (own status: {own})",
        *row.status_reasons,
    ]
    row.advancement = Advancement(advanced=False, reason=f"not ranked: {label}")
    return row


def _row(
    ctx: RoundContext, unit: UnitEvidence, code: str | None, reviews: list[Review], judge: Judge
) -> tuple[LeaderboardRow, Entry | None]:
    verdict = _status(ctx, unit, judge)
    s = unit.session
    if s is None:
        row = _unrecorded_row(ctx, unit, verdict)
        return (_supersede(ctx, row, unit.superseded_by) if unit.superseded_by else row), None
    try:
        candidate = ctx.cohort.by_key(s.model_key)
    except KeyError as exc:
        raise RecordError(f"{unit.paths.session}: field model_key: {exc.args[0]}") from exc
    status, reasons, not_run = verdict.status, verdict.reasons, verdict.not_run
    session_src = ctx.rel(unit.paths.session)
    row = LeaderboardRow(
        unit=unit.unit,
        candidate_code=code,
        model_key=s.model_key,
        route=s.requested_route,
        display_name=candidate.display_name,
        agent=_arm(unit.unit) if ctx.arms else "",
        repetition=s.repetition,
        replacement_of=s.replacement_of,
        status=status,
        status_reasons=reasons,
        evidence_missing=verdict.missing,
        checks_not_executed=not_run,
        elapsed_seconds=s.elapsed_seconds,
        cost_usd=s.cost_usd,
        billed_usd=s.cost_reconciliation.billed_usd if s.cost_reconciliation else None,
        cost_gap_flagged=s.cost_reconciliation.flagged if s.cost_reconciliation else False,
        tokens=s.tokens,
        stop_status=s.stop_status,
        exit_code=s.exit_code,
        validity=s.validity,
        invalid_reasons=list(s.invalid_reasons),
        failure_class=s.failure_class,
        failure_detail=s.failure_detail,
        identity_verdict=s.identity.verdict,
        evidence_check=unit.integrity.checked if unit.integrity is not None else None,
        advancement=Advancement(advanced=False, reason=f"not ranked: {status}"),
        explanations=[
            Explanation(
                field="elapsed_seconds",
                value=minutes(s.elapsed_seconds),
                sources=[f"{session_src}#elapsed_seconds"],
                detail=f"stop: {s.stop_status}",
            ),
            Explanation(
                field="cost_usd",
                value=str(s.cost_usd),
                sources=[f"{session_src}#cost_usd"],
                detail="from the recording gateway proxy, not the agent's estimate",
            ),
            *_billed(s, session_src),
            Explanation(
                field="tokens", value=str(s.tokens.total), sources=[f"{session_src}#tokens"]
            ),
        ],
    )
    if unit.superseded_by:
        return _supersede(ctx, row, unit.superseded_by), None
    if status not in ("ranked", "gate_failed") or unit.result is None or code is None:
        return row, None
    result = unit.result
    result_src = ctx.rel(unit.paths.result)
    dims = automated_dimensions(result, result_src)
    visual = aggregate(reviews, code, "visual")
    quality = aggregate(reviews, code, "code_quality")
    dims["visual"] = manual_dimension(visual)
    dims["code"] = manual_dimension(quality)
    trace = unit.trace
    calls = trace.commands if trace is not None else []
    native_events = unit.paths.root / trace.events if trace is not None else unit.paths.events
    dims["verification"] = score_verification(
        calls,
        unit.paths.progress,
        result,
        events_source=ctx.rel(native_events),
        progress_source=ctx.rel(unit.paths.progress),
        result_source=result_src,
    )
    dims["efficiency"] = score_efficiency(s, source=session_src)
    summed = total(dims, result.hard_gate_failed)
    automated = sum(float(c.points) for c in result.checks)
    if automated != result.automated_score:
        row.status_reasons.append(
            f"{result_src}: automated_score {result.automated_score} differs from the checks' sum "
            f"{automated:g}; the checks' sum is used"
        )
    row.breakdown = Breakdown(**dims)
    row.automated_score = automated
    row.raw_total, row.total = summed.raw_total, summed.total
    row.capped, row.provisional = summed.capped, summed.provisional
    row.reviews = ReviewState(visual=visual.status, code=quality.status)
    row.gates_failed = [GateFailure(id=g.id, reason=g.reason) for g in result.gates if g.failed]
    row.eligible = status == "ranked"
    parts = " + ".join(f"{d} {(dims[d].points or 0):g}" for d in dims)
    cap = f"; capped at {GATE_CAP:g} (hard gate failed)" if summed.capped else ""
    row.explanations.append(
        Explanation(
            field="total",
            value=f"{summed.total:g}",
            sources=[result_src, session_src],
            detail=f"{parts} = {summed.raw_total:g}{cap}"
            + ("; provisional: reviews incomplete" if summed.provisional else ""),
        )
    )
    if not row.eligible:
        failed = ", ".join(g.id for g in row.gates_failed)
        row.advancement = Advancement(
            advanced=False, reason=f"ineligible: hard gate failed ({failed})"
        )
        return row, None
    return row, Entry(unit.unit, code, summed.total, automated, s.cost_usd)


def not_testable(ctx: RoundContext, tested: set[str]) -> list[NotTestable]:
    """Candidates (with each agent, in an intervention round) whose preflight record says not
    testable (absent records are tolerated). `tested`: the entrants that have a unit."""
    rows = []
    arms = ctx.arms or ("",)
    for c, arm in ((c, arm) for c in ctx.cohort.candidates for arm in arms):
        key = entrant_key(c.key, arm)
        path = ctx.paths.preflight(key)
        if key in tested or not path.exists():
            continue
        data = read_json(path)
        if (
            not isinstance(data, dict)
            or data.get("verdict") == "qualified"
            or data.get("qualified")
        ):
            continue
        probes = data.get("probes")
        passed = data.get("probes_passed")
        if not isinstance(probes, list) or not probes:
            passed = None  # no probe ran (the catalogue check stopped it)
        elif passed is None:  # schema 1 records
            passed = sum(bool(isinstance(p, dict) and p.get("passed")) for p in probes)
        rows.append(
            NotTestable(
                model_key=c.key,
                display_name=c.display_name,
                route=c.route,
                agent=arm,
                reason_class=data.get("reason_class"),
                reason=str(data.get("reason") or json.dumps(data.get("verdict"))),
                source=ctx.rel(path),
                probes_passed=passed,
                probes_required=data.get("probes_required"),
            )
        )
    return rows


def standing(
    ctx: RoundContext,
    rows: list[LeaderboardRow],
    sheets_missing: Sequence[ReviewSheetProblem] = (),
) -> tuple[Standing, str, list[str]]:
    """(standing, reason, provisional eligible codes): final only when nothing can still move."""
    eligible = [r for r in rows if r.eligible]
    waiting = [r.candidate_code or r.unit for r in eligible if r.provisional]
    pending = pending_replacements(ctx.paths)
    failed = sorted(r.unit for r in rows if r.status == "evaluation_failed")
    reasons = []
    if waiting:
        reasons.append(
            f"reviews missing for {len(waiting)} of {len(eligible)} gate-eligible unit"
            f"{'s' if len(eligible) != 1 else ''}"
        )
    if pending:
        reasons.append(
            f"{len(pending)} documented replacement unit{'s' if len(pending) != 1 else ''} "
            "not run yet"
        )
    if failed:
        reasons.append(
            f"evaluation failed for {len(failed)} unit{'s' if len(failed) != 1 else ''} "
            f"({', '.join(failed)}): re-evaluate or replace"
        )
    if sheets_missing:
        reasons.append(
            "receipted review sheet"
            + ("s" if len(sheets_missing) != 1 else "")
            + " gone or changed ("
            + ", ".join(p.file for p in sheets_missing)
            + "): restore "
            + ("them" if len(sheets_missing) != 1 else "it")
        )
    if reasons:
        return "provisional", "; ".join(reasons), waiting
    return "final", f"every gate-eligible unit ({len(eligible)}) is final", []


def frozen_versions(ctx: RoundContext) -> FrozenVersions | None:
    """The task's and the judge's versions as the round froze them (None before the freeze)."""
    frozen = ctx.paths.round_json
    if not frozen.is_file():
        return None
    record = read_record(frozen, RoundRecord)
    return FrozenVersions(
        task=record.task,
        prompt_sha256=record.inputs.prompt_sha256,
        starter_tree_sha256=record.inputs.starter_tree_sha256,
        evaluator_sha256=record.evaluator_sha256,
        scoring_sha256=record.scoring_sha256,
    )


def build_leaderboard(
    ctx: RoundContext, units: list[UnitEvidence], codes: CodesRecord, reviews: list[Review]
) -> Leaderboard:
    """Score every unit, rank the eligible ones and decide advancement."""
    rows: list[LeaderboardRow] = []
    entries: list[Entry] = []
    judge = frozen_judge(ctx.paths)
    for unit in units:
        code = next((e.code for e in codes.codes if e.unit == unit.unit), None)
        row, entry = _row(ctx, unit, code, reviews, judge)
        rows.append(row)
        if entry is not None:
            entries.append(entry)
    placements, fifth = rank(entries)
    by_unit = {r.unit: r for r in rows}
    sheets_missing = receipt_problems(ctx.paths)
    state, state_reason, waiting = standing(ctx, rows, sheets_missing)
    final = state == "final"
    for key, placement in placements.items():
        row = by_unit[key]
        row.rank = placement.rank
        row.advancement = Advancement(
            advanced=placement.advanced and final,
            projected=placement.advanced,
            reason=placement.reason if final else f"projected ({state_reason}): {placement.reason}",
            tied_with=placement.tied_with,
            behind_fifth=placement.behind_fifth,
        )
        if ctx.arms:  # the same models under several agents: a comparison, not a selection
            row.advancement = Advancement(
                advanced=False,
                reason="an intervention round compares agents on the same models; no model "
                "advances from it (intervention.json)",
            )
        row.explanations.append(
            Explanation(
                field="rank",
                value=str(placement.rank),
                sources=[],
                detail=f"among {len(entries)} gate-eligible units; tie rule: {TIE_RULE}",
            )
        )
    rows.sort(key=lambda r: (STATUS_ORDER.index(r.status), r.rank or 0, -(r.total or 0), r.unit))
    ties: dict[float, list[str]] = {}
    for entry in entries:
        ties.setdefault(round(entry.total, 6), []).append(entry.code)
    scored = [r for r in rows if r.status in ("ranked", "gate_failed")]
    return Leaderboard(
        round_id=ctx.round_id,
        round_kind=ctx.kind,
        versions=frozen_versions(ctx),
        provisional=any(r.provisional for r in scored),
        standing=state,
        standing_reason=state_reason,
        provisional_codes=waiting,
        fifth_total=fifth,
        advancing=[r.candidate_code for r in rows if r.advancement.advanced and r.candidate_code],
        advancing_projected=[
            r.candidate_code for r in rows if r.advancement.projected and r.candidate_code
        ],
        ties=[
            Tie(total=t, codes=sorted(c))
            for t, c in sorted(ties.items(), reverse=True)
            if len(c) > 1
        ],
        units=rows,
        not_testable=not_testable(ctx, {entrant_key(r.model_key, r.agent) for r in rows}),
        units_outside_order=outside_order(ctx),
        review_sheets_missing=list(sheets_missing),
        review_files_unrecognised=unrecognised_review_files(ctx.paths),
    )


def outside_order(ctx: RoundContext) -> list[UnitOutsideOrder]:
    """Every unit folder that is neither in the frozen order nor a documented replacement."""
    return [
        UnitOutsideOrder(
            unit=name,
            source=ctx.rel(ctx.paths.unit(name).root) + "/",
            reason=reason,
        )
        for name, reason in round_units(ctx.paths).not_in_order.items()
    ]


def _billed(s: SessionRecord, source: str) -> list[Explanation]:
    """The bill beside the metered cost, when the runner could reconcile them."""
    r = s.cost_reconciliation
    if r is None or r.billed_usd is None:
        return []
    gap = f"; gap {r.gap_usd:+.4f} USD, past {r.threshold_usd:g}" if r.flagged else ""
    return [
        Explanation(
            field="billed_usd",
            value=str(r.billed_usd),
            sources=[f"{source}#cost_reconciliation"],
            detail=f"the key's usage over the session beside the metered cost{gap}",
        )
    ]
