"""Presentation of evidence for the templates: leaderboard rows, badges and number formats."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from publish.sources import RoundEvidence, UnitEvidence
from records.evidence.scoring import Component, DimensionScore, LeaderboardRow
from scoring.advancement import MARGIN

DIMENSIONS = (
    ("functional", "Functional", 25),
    ("responsive", "Responsive", 20),
    ("accessibility", "Accessibility", 15),
    ("visual", "Visual craft", 20),
    ("code", "Code quality", 10),
    ("verification", "Verification", 5),
    ("efficiency", "Efficiency", 5),
)
SHORT_LABELS = {
    "functional": "Func.",
    "responsive": "Resp.",
    "accessibility": "A11y",
    "visual": "Visual",
    "code": "Code",
    "verification": "Verif.",
    "efficiency": "Effic.",
}
STOP_LABELS = {
    "step_ceiling": "stopped at the step ceiling",
    "time_ceiling": "stopped at the time ceiling",
    "budget_ceiling": "stopped at the budget ceiling",
    "crashed": "crashed",
}
GROUPS = {
    "ranked": "scored",
    "gate_failed": "scored",
    "invalid": "invalid",
    "provider_outage": "apart",
    "harness_failure": "apart",
    "evaluation_failed": "apart",
}
APART_LABELS = {
    "provider_outage": "provider outage",
    "harness_failure": "harness failure",
    "evaluation_failed": "evaluator failure",
}


@dataclass(frozen=True)
class Badge:
    label: str
    tone: str  # ok | warn | bad | info | muted
    title: str = ""


@dataclass
class Row:
    """One leaderboard row, flattened for the templates."""

    unit: str
    model_key: str
    display_name: str
    company: str
    route: str
    code: str | None
    status: str
    total: float | None
    raw_total: float | None
    breakdown: dict[str, float | None]
    capped: bool
    provisional: bool
    eligible: bool
    advances: bool
    rank: int | None
    elapsed_seconds: float | None
    cost_usd: float | None
    tokens: int | None
    stop_status: str | None
    validity: str
    invalid_reasons: list[str]
    failure_class: str
    explanations: list[str]
    status_reasons: list[str] = field(default_factory=list)
    advancement_reason: str = ""
    dimension_notes: dict[str, list[str]] = field(default_factory=dict)
    reviews: str = ""
    group: str = "scored"  # scored | invalid | apart
    badges: list[Badge] = field(default_factory=list)


def fmt_duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    whole = int(round(seconds))
    return f"{whole // 60:d}:{whole % 60:02d}"


def fmt_cost(usd: float | None) -> str:
    return "—" if usd is None else f"${usd:,.2f}"


def fmt_points(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:g}" if value == int(value) else f"{value:.1f}"


def fmt_int(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def token_total(tokens: Any) -> int | None:
    """Tokens as a number, or a {prompt, completion, ...} record totalled as prompt + completion."""
    if tokens is None:
        return None
    if isinstance(tokens, int | float):
        return int(tokens)
    if isinstance(tokens, dict):
        if "total" in tokens:
            return int(tokens["total"])
        return int(tokens.get("prompt", 0)) + int(tokens.get("completion", 0))
    total = getattr(tokens, "total", None)
    return int(total) if total is not None else None


def parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def badges(row: Row) -> list[Badge]:
    out: list[Badge] = []
    if row.advances:
        out.append(Badge("advances", "ok", row.advancement_reason or "within the advancement rule"))
    if row.group == "invalid":
        out.append(Badge("invalid", "bad", "; ".join(row.invalid_reasons or row.status_reasons)))
    if row.status in APART_LABELS:
        out.append(Badge(APART_LABELS[row.status], "info", "not a model-quality failure"))
    if row.capped or row.status == "gate_failed":
        out.append(
            Badge("gate-capped", "warn", "a hard gate failed: ineligible, total capped at 49")
        )
    if row.provisional:
        out.append(Badge("provisional", "muted", row.reviews or "reviews incomplete"))
    if row.stop_status in STOP_LABELS:
        out.append(
            Badge(STOP_LABELS[row.stop_status], "warn", "the work at the ceiling was scored")
        )
    return out


def _finish(row: Row) -> Row:
    row.group = GROUPS.get(row.status, "scored")
    row.badges = badges(row)
    return row


def _component(item: Component) -> str:
    return f"{item.name}: {item.points:g}/{item.max_points:g} — {item.reason}"


def row_from_leaderboard(data: LeaderboardRow, evidence: RoundEvidence) -> Row:
    cohort = {c.key: c for c in evidence.cohort.candidates}
    candidate = cohort.get(data.model_key)
    breakdown: dict[str, float | None] = {}
    notes: dict[str, list[str]] = {}
    if data.breakdown is not None:
        for key, _, _ in DIMENSIONS:
            dim: DimensionScore = getattr(data.breakdown, key)
            breakdown[key] = dim.points
            notes[key] = [_component(c) for c in dim.components] + ([dim.note] if dim.note else [])
    explanations = [
        f"{e.field} = {e.value}"
        + (f" — {e.detail}" if e.detail else "")
        + (f" (from {', '.join(e.sources)})" if e.sources else "")
        for e in data.explanations
    ]
    reviews = ""
    if data.reviews is not None:
        reviews = f"visual review: {data.reviews.visual}; code review: {data.reviews.code}".replace(
            "_", " "
        )
    return _finish(
        Row(
            unit=data.unit,
            model_key=data.model_key,
            display_name=data.display_name or (candidate.display_name if candidate else ""),
            company=candidate.company if candidate else "",
            route=data.route,
            code=data.candidate_code,
            status=data.status,
            total=data.total,
            raw_total=data.raw_total,
            breakdown=breakdown,
            capped=data.capped,
            provisional=data.provisional,
            eligible=data.eligible,
            advances=data.advancement.advanced,
            rank=data.rank,
            elapsed_seconds=data.elapsed_seconds,
            cost_usd=data.cost_usd,
            tokens=data.tokens.total,
            stop_status=data.stop_status,
            validity=data.validity,
            invalid_reasons=list(data.invalid_reasons),
            failure_class=data.failure_class,
            explanations=explanations,
            status_reasons=list(data.status_reasons),
            advancement_reason=data.advancement.reason,
            dimension_notes=notes,
            reviews=reviews,
        )
    )


def row_from_unit(unit: UnitEvidence, evidence: RoundEvidence) -> Row:
    """Before scoring has run: the evaluator's points only, always provisional."""
    session, result = unit.session, unit.result
    cohort = {c.key: c for c in evidence.cohort.candidates}
    candidate = cohort.get(unit.model_key)
    breakdown: dict[str, float | None] = {}
    if result is not None:
        for check in result.checks:
            breakdown[check.dimension] = (breakdown.get(check.dimension) or 0) + check.points
    return _finish(
        Row(
            unit=unit.unit,
            model_key=unit.model_key,
            display_name=candidate.display_name if candidate else unit.model_key,
            company=candidate.company if candidate else "",
            route=session.requested_route if session else (candidate.route if candidate else ""),
            code=None,
            status=_unscored_status(unit),
            total=float(result.capped_score) if result else None,
            raw_total=float(result.automated_score) if result else None,
            breakdown=breakdown,
            capped=bool(result and result.hard_gate_failed),
            provisional=True,
            eligible=bool(result and not result.hard_gate_failed),
            advances=False,
            rank=None,
            elapsed_seconds=session.elapsed_seconds if session else None,
            cost_usd=session.cost_usd if session else None,
            tokens=session.tokens.total if session else None,
            stop_status=session.stop_status if session else None,
            validity=session.validity if session else "valid",
            invalid_reasons=list(session.invalid_reasons) if session else [],
            failure_class=session.failure_class if session else "none",
            explanations=["Scoring has not run yet: automated evaluator points only."],
        )
    )


def _unscored_status(unit: UnitEvidence) -> str:
    session, result = unit.session, unit.result
    if session is not None and session.failure_class == "provider_outage":
        return "provider_outage"
    if session is not None and session.failure_class == "harness":
        return "harness_failure"
    if session is not None and session.validity != "valid":
        return "invalid"
    if result is None or result.evaluator_error or any(not c.executed for c in result.checks):
        return "evaluation_failed"
    return "gate_failed" if result.hard_gate_failed else "ranked"


def leaderboard_rows(evidence: RoundEvidence) -> list[Row]:
    """Rows in rank order: ranked first, then unranked scored, invalid, then listed-apart rows."""
    if evidence.leaderboard is not None:
        rows = [row_from_leaderboard(item, evidence) for item in evidence.leaderboard.units]
    else:
        rows = [row_from_unit(unit, evidence) for unit in evidence.units.values()]
    order = {"scored": 0, "invalid": 1, "apart": 2}
    return sorted(
        rows,
        key=lambda r: (
            order[r.group],
            r.rank is None,
            r.rank or 0,
            -(r.total if r.total is not None else -1),
            r.unit,
        ),
    )


def cutoff(evidence: RoundEvidence) -> float | None:
    """The advancement line: fifth place's total minus the margin (None with fewer than five)."""
    board = evidence.leaderboard
    if board is None or board.fifth_total is None:
        return None
    return round(board.fifth_total - MARGIN, 6)
