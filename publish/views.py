"""Presentation of evidence for the templates: leaderboard rows, badges and number formats."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from publish.sources import RoundEvidence, UnitEvidence
from records.evidence.scoring import Component, DimensionScore, LeaderboardRow
from records.rubric import ADVANCE_MARGIN as MARGIN
from records.rubric import DIMENSIONS as RUBRIC
from records.rubric import GATE_CAP, MAX_AUTOMATED
from records.unit_ids import parse_unit
from scoring import agent_label as agent_label  # re-exported: the pages name agents by it

DIMENSIONS = tuple((d.id, d.title, int(d.points)) for d in RUBRIC)
REVIEW_DIMENSIONS = tuple(d.id for d in RUBRIC if d.source == "review")
HARNESS_MAX = int(sum(d.points for d in RUBRIC if d.source == "harness"))
ACHIEVABLE_WITHOUT_REVIEW = MAX_AUTOMATED + HARNESS_MAX
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
    "resource_limit": "stopped at a sandbox limit",
    "crashed": "crashed",
}
GROUPS = {
    "ranked": "scored",
    "gate_failed": "scored",
    "invalid": "invalid",
    "provider_outage": "apart",
    "harness_failure": "apart",
    "evaluation_failed": "apart",
    "superseded": "superseded",
}
APART_LABELS = {
    "provider_outage": "provider outage",
    "harness_failure": "harness failure",
    "evaluation_failed": "evaluator failure",
}
REVIEW_WAIT = {
    "no_reviews": "pending",
    "awaiting_second_review": "awaiting a second review",
    "awaiting_third_review": "awaiting a third review",
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
    automated: float | None = None
    review_points: float | None = None
    review_state: str = "pending"  # pending | partial | complete | not_scored
    review_note: str = ""
    review_spread: str = ""  # e.g. "2 / 1": the reviewers' spread in points, visual / code
    review_spread_note: str = ""
    projected: bool = False
    status_reasons: list[str] = field(default_factory=list)
    advancement_reason: str = ""
    dimension_notes: dict[str, list[Component]] = field(default_factory=dict)
    explanation_sources: list[tuple[str, list[str]]] = field(default_factory=list)
    reviews: str = ""
    group: str = "scored"  # scored | invalid | apart | superseded
    badges: list[Badge] = field(default_factory=list)
    order: int = 0
    superseded_by: str | None = None  # the documented replacement holding this unit's place
    replaces: str | None = None  # the unit this documented replacement stands for
    evidence_missing: list[str] = field(default_factory=list)
    evidence_check: str | None = None  # leaderboard.json 7: "manifest" or "files_present"
    gates_failed: list[tuple[str, str]] = field(default_factory=list)  # (gate id, reason)
    billed_usd: float | None = None  # the key's usage over the session, beside cost_usd
    cost_gap_flagged: bool = False
    has_page: bool = True  # False: no evidence folder, so no unit page to link
    agent: str = ""  # an intervention round: the agent that ran the unit (its arm)
    rank_under_reviews: str = ""  # best-worst rank over its reviewers' range ("" not checked)

    @property
    def name(self) -> str:
        return self.display_name or self.model_key

    @property
    def agent_label(self) -> str:
        return agent_label(self.agent)

    @property
    def label(self) -> str:
        """The model's name, and in an intervention round the agent that ran it (two units of
        one model are then told apart wherever a page names a unit by its model)."""
        return f"{self.name} via {self.agent_label}" if self.agent else self.name

    @property
    def cap_changed_total(self) -> bool:
        return bool(
            self.capped
            and self.raw_total is not None
            and self.total is not None
            and self.raw_total > self.total
        )

    @property
    def reasons(self) -> list[str]:
        """Status and invalidity reasons, each said once."""
        return distinct([*self.status_reasons, *self.invalid_reasons])


def distinct(items: list[Any]) -> list[str]:
    """Non-empty texts, each said once: a text contained in another one is dropped."""
    texts = [" ".join(prose(i).split()) for i in items if i]
    unique = [t for n, t in enumerate(texts) if t not in texts[:n]]
    return [t for t in unique if not any(t != o and t in o for o in unique)]


def fmt_duration(seconds: float | None) -> str:
    """m:ss with its unit (`0:08 min` is eight seconds)."""
    if seconds is None:
        return "—"
    whole = int(round(seconds))
    return f"{whole // 60:d}:{whole % 60:02d} min"


def fmt_cost(usd: float | None) -> str:
    if usd is None:
        return "unknown"
    return f"${usd:,.2f}" if usd >= 0.01 or usd == 0 else f"${usd:.4f}"


def fmt_points(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:g}" if value == int(value) else f"{value:.1f}"


def fmt_int(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


_LITERAL = re.compile(r"\[[^\[\]]*\]|\{[^{}]*\}")


def _plain(value: Any) -> str:
    if isinstance(value, list | tuple | set):
        return ", ".join(_plain(v) for v in value) or "none"
    if isinstance(value, dict):
        return ", ".join(f"{_plain(k)}: {_plain(v)}" for k, v in value.items()) or "none"
    return str(value)


def prose(text: object) -> str:
    """Evidence text for people: Python list/dict literals become plain words."""

    def replace(match: re.Match[str]) -> str:
        try:
            value = ast.literal_eval(match.group(0))
        except (ValueError, SyntaxError):
            return match.group(0)
        return _plain(value) if isinstance(value, list | dict | tuple | set) else match.group(0)

    return _LITERAL.sub(replace, str(text))


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
    elif row.projected:
        out.append(
            Badge("would advance", "muted", "on the current, provisional totals; not yet final")
        )
    if row.superseded_by:
        out.append(
            Badge(
                f"superseded by {row.superseded_by}",
                "muted",
                "a documented replacement holds this model's place: kept for the record, never "
                "scored, ranked or advanced",
            )
        )
    if row.replaces:
        out.append(Badge(f"replaces {row.replaces}", "info", "the one documented replacement unit"))
    if row.group == "invalid":
        out.append(Badge("invalid", "bad", "; ".join(row.reasons)))
    if row.evidence_missing:
        out.append(Badge("evidence missing", "bad", ", ".join(row.evidence_missing)))
    elif row.evidence_check == "files_present":
        out.append(
            Badge(
                "no evidence manifest",
                "muted",
                "recorded before evidence manifests: its files were checked to be present, not "
                "against the SHA-256 each had when written",
            )
        )
    if row.status in APART_LABELS:
        out.append(Badge(APART_LABELS[row.status], "info", "not a model-quality failure"))
    if row.capped or row.status == "gate_failed":
        names = ", ".join(gate for gate, _ in row.gates_failed)
        why = "; ".join(f"{gate}: {reason}" for gate, reason in row.gates_failed if reason)
        out.append(
            Badge(
                f"gate-capped: {names}" if names else "gate-capped",
                "warn",
                f"a hard gate failed: ineligible, total capped at {GATE_CAP:g}"
                + (f" ({why})" if why else ""),
            )
        )
    if row.provisional and row.group == "scored":
        out.append(Badge("provisional", "muted", row.reviews or "reviews incomplete"))
    if row.stop_status in STOP_LABELS:
        scored = "limit" if row.stop_status == "resource_limit" else "ceiling"
        out.append(
            Badge(STOP_LABELS[row.stop_status], "warn", f"the work at the {scored} was scored")
        )
    return out


NEVER_SCORED = ("invalid", "provider_outage", "harness_failure", "superseded")
"""Statuses no review can change: such a unit gets no blind packet (an evaluation failure may
still be evaluated again, so its review stays pending)."""


def _finish(row: Row) -> Row:
    row.group = GROUPS.get(row.status, "scored")
    if row.status in NEVER_SCORED:
        row.review_state, row.review_note = "not_scored", "not reviewed: never scored"
    row.badges = badges(row)
    return row


def _review(data: LeaderboardRow) -> tuple[float | None, str, str]:
    """Review points (visual + code), their state and what is still awaited."""
    if data.breakdown is None or data.reviews is None:
        return None, "pending", ""
    states = [data.reviews.visual, data.reviews.code]
    if all(s == "no_reviews" for s in states):
        return None, "pending", "no reviews yet"
    points = sum((getattr(data.breakdown, d).points or 0.0) for d in REVIEW_DIMENSIONS)
    waiting = sorted({REVIEW_WAIT[s] for s in states if s in REVIEW_WAIT and s != "no_reviews"})
    if any(s == "no_reviews" for s in states):
        waiting.insert(0, "one dimension not reviewed")
    return points, "complete" if not waiting else "partial", "; ".join(waiting)


def _spread(data: LeaderboardRow) -> tuple[str, str]:
    """The reviewers' spread (highest minus lowest, in points) per review dimension, short and
    in words; empty when no dimension has two reviews yet."""
    agreement = data.agreement
    if agreement is None or (agreement.visual.spread is None and agreement.code.spread is None):
        return "", ""
    parts = (("visual", agreement.visual), ("code", agreement.code))
    short = " / ".join("—" if d.spread is None else fmt_points(d.spread) for _, d in parts)
    words = "; ".join(
        f"{name}: {d.reviewers} reviewers"
        + ("" if d.spread is None else f", {fmt_points(d.spread)} points apart")
        + (" (a third review settled it)" if d.third_review else "")
        for name, d in parts
    )
    return short, f"How far the blind reviewers' scores lie apart. {words}."


def row_from_leaderboard(data: LeaderboardRow, evidence: RoundEvidence) -> Row:
    cohort = {c.key: c for c in evidence.cohort.candidates}
    candidate = cohort.get(data.model_key)
    breakdown: dict[str, float | None] = {}
    notes: dict[str, list[Component]] = {}
    if data.breakdown is not None:
        for key, _, _ in DIMENSIONS:
            dim: DimensionScore = getattr(data.breakdown, key)
            breakdown[key] = dim.points
            notes[key] = list(dim.components)
            if dim.note:
                notes[key].append(
                    Component(name="note", points=0, max_points=0, reason=dim.note, sources=[])
                )
    explanations = [
        f"{e.field} = {e.value}" + (f" — {e.detail}" if e.detail else "") for e in data.explanations
    ]
    reviews = ""
    if data.reviews is not None:
        reviews = f"visual review: {data.reviews.visual}; code review: {data.reviews.code}".replace(
            "_", " "
        )
    review_points, review_state, review_note = _review(data)
    review_spread, review_spread_note = _spread(data)
    if data.breakdown is not None and review_state == "pending":
        for key in REVIEW_DIMENSIONS:
            breakdown[key] = None
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
            projected=bool(getattr(data.advancement, "projected", False)),
            rank=data.rank,
            elapsed_seconds=data.elapsed_seconds,
            cost_usd=data.cost_usd,
            tokens=data.tokens.total if data.tokens is not None else None,
            stop_status=data.stop_status,
            validity=data.validity,
            invalid_reasons=list(data.invalid_reasons),
            failure_class=data.failure_class,
            explanations=explanations,
            explanation_sources=[
                (f"{e.field} = {e.value}" + (f" — {e.detail}" if e.detail else ""), e.sources)
                for e in data.explanations
            ],
            automated=data.automated_score,
            review_points=review_points,
            review_state=review_state,
            review_note=review_note,
            review_spread=review_spread,
            review_spread_note=review_spread_note,
            status_reasons=list(data.status_reasons),
            advancement_reason=data.advancement.reason,
            dimension_notes=notes,
            reviews=reviews,
            superseded_by=data.superseded_by,
            replaces=data.replacement_of,
            evidence_missing=list(data.evidence_missing),
            evidence_check=data.evidence_check,
            gates_failed=[(g.id, g.reason) for g in data.gates_failed],
            billed_usd=data.billed_usd,
            cost_gap_flagged=data.cost_gap_flagged,
            agent=data.agent,
            rank_under_reviews=_rank_under_reviews(data, evidence),
        )
    )


def _rank_under_reviews(data: LeaderboardRow, evidence: RoundEvidence) -> str:
    """The unit's best-worst rank with every unit's reviews at either end of its reviewers'
    range (leaderboard.json `review_stability`, when it ranks units)."""
    board = evidence.leaderboard
    found = board.review_stability if board is not None else None
    if found is None or found.level != "unit" or data.rank is None:
        return ""
    key = data.candidate_code or data.unit
    mine = next((r for r in found.ranks if r.key == key), None)
    return f"{mine.best_rank}-{mine.worst_rank}" if mine is not None else ""


def row_from_unit(unit: UnitEvidence, evidence: RoundEvidence) -> Row:
    """Before scoring has run: the evaluator's points only, always provisional."""
    session, result = unit.session, unit.result
    cohort = {c.key: c for c in evidence.cohort.candidates}
    candidate = cohort.get(unit.model_key)
    status, reasons = evidence.provisional.get(unit.unit, ("invalid", ["not found by scoring"]))
    parsed = parse_unit(unit.unit)
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
            status=status,
            status_reasons=reasons,
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
            automated=float(result.automated_score) if result else None,
            superseded_by=superseded_by(unit, evidence),
            replaces=unit.replacement.replaced_unit if unit.replacement else None,
            gates_failed=[(g.id, g.reason) for g in result.gates if g.failed] if result else [],
            agent=parsed.agent if parsed and evidence.settings.is_intervention else "",
        )
    )


def superseded_by(unit: UnitEvidence, evidence: RoundEvidence) -> str | None:
    """The documented replacement (run or pending) that holds this unit's place, if any."""
    found = [
        other.unit
        for other in evidence.units.values()
        if other.replacement is not None and other.replacement.replaced_unit == unit.unit
    ]
    return max(found) if found else None


def tie_key(row: Row) -> tuple[Any, ...]:
    """The documented tie rule (records.rubric.TIE_RULE) as a sort key."""
    return (
        -(row.total if row.total is not None else -1.0),
        -(row.automated if row.automated is not None else -1.0),
        row.cost_usd is None,
        row.cost_usd or 0.0,
        row.code or "~",
        row.unit,
    )


def leaderboard_rows(evidence: RoundEvidence) -> list[Row]:
    """Rows in rank order: ranked first, then the other scored rows by the tie rule, invalid,
    then the rows listed apart; `order` is each row's position (the stable sort's tiebreak)."""
    if evidence.leaderboard is not None:
        rows = [row_from_leaderboard(item, evidence) for item in evidence.leaderboard.units]
    else:
        finished = [u for u in evidence.units.values() if u.session is not None]
        rows = [row_from_unit(unit, evidence) for unit in finished]
    group = {"scored": 0, "invalid": 1, "apart": 2, "superseded": 3}
    ordered = sorted(
        rows,
        key=lambda r: (group[r.group], r.rank is None, r.rank or 0, *tie_key(r)),
    )
    for index, row in enumerate(ordered):
        row.order = index
    return ordered


def cutoff(evidence: RoundEvidence) -> float | None:
    """The advancement line: fifth place's total minus the margin (None with fewer than five)."""
    board = evidence.leaderboard
    if board is None or board.fifth_total is None:
        return None
    return round(board.fifth_total - MARGIN, 6)
