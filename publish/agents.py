"""An intervention round's arms compared, for the "Agents compared" page (agents.md; "Method
arms compared" and so on when the round varies a method, starter or tools factor).

Every number comes from the round's `intervention.json` (scoring/intervention.py: each model's
counted totals, mean and mean cost per arm, each arm's paired difference from the baseline in
total and in cost with their 95% intervals, a folder arm's title, what it adds and its frozen
hash) or from a leaderboard row (each unit's total, status, cost and time) or a unit's session
record (its steps); nothing is computed here beyond putting them side by side. The routes not
testable in an arm are leaderboard.json's `not_testable` rows that name that arm.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from publish.sources import RoundEvidence
from publish.views import Row, agent_label, fmt_points
from records.evidence.round import PreflightRecord
from records.evidence.scoring import AgentEffect, ArmInfo, InterventionBoard, NotTestable
from records.unit_ids import entrant_key, parse_unit

SEPARATED = {
    "above": "the interval lies wholly above zero: on these models {agent} scored higher than "
    "{baseline}",
    "below": "the interval lies wholly below zero: on these models {agent} scored lower than "
    "{baseline}",
    "overlaps": "the interval includes zero: these runs cannot tell {agent} apart from {baseline}",
    "unknown": "no interval: fewer than two models have a total under both arms",
}
"""What each `separated` value of an AgentEffect says, in words."""


def signed(value: float | None) -> str:
    """A difference with its sign (`+1.5`, `−2`, `0`); `—` when there is none."""
    if value is None:
        return "—"
    if value == 0:
        return "0"
    return ("+" if value > 0 else "−") + fmt_points(abs(value))


def signed_cost(value: float | None, places: int | None = None) -> str:
    """A cost difference in USD with its sign (`+$0.0123`, `−$0.50`, `$0`); `—` when none.
    Cents, or four places below a cent (`places` fixes them)."""
    if value is None:
        return "—"
    if value == 0:
        return "$0"
    size = abs(value)
    if places is None:
        places = 2 if size >= 0.01 else 4
    return ("+" if value > 0 else "−") + "$" + f"{size:,.{places}f}"


def cost_interval(low: float | None, high: float | None) -> str:
    """A cost interval with both ends to the same places (`−$0.0081 to +$0.0131`, not `to
    +$0.01`): four when either end is below a cent; `—` when there is none."""
    if low is None or high is None:
        return "—"
    places = 4 if any(0 < abs(v) < 0.01 for v in (low, high)) else 2
    return f"{signed_cost(low, places)} to {signed_cost(high, places)}"


@dataclass(frozen=True)
class UnitCell:
    """One unit of one model with one agent, as the leaderboard row and session give it."""

    row: Row
    counted: bool  # intervention.json counts its total
    steps: int | None

    @property
    def run(self) -> str:
        """`r1`, `r2-x1`: the unit's repetition (and replacement), short."""
        parsed = parse_unit(self.row.unit)
        if parsed is None:
            return self.row.unit
        return f"r{parsed.repetition}" + (f"-x{parsed.replacement}" if parsed.replacement else "")


@dataclass(frozen=True)
class ArmCell:
    """One model with one agent."""

    agent: str
    label: str
    mean_total: float | None
    totals: list[float]
    units: list[UnitCell]
    not_testable: NotTestable | None = None
    mean_cost_usd: float | None = None


@dataclass(frozen=True)
class Difference:
    """One model's difference for one arm against the baseline (None: not paired), in total and
    in metered cost (USD)."""

    agent: str
    value: float | None
    why_not: str = ""
    cost: float | None = None


@dataclass(frozen=True)
class ModelLine:
    model_key: str
    display_name: str
    arms: list[ArmCell]
    differences: list[Difference]


@dataclass(frozen=True)
class EffectLine:
    effect: AgentEffect
    label: str
    baseline_label: str

    @property
    def verdict(self) -> str:
        words = SEPARATED[self.effect.separated]
        return words.format(agent=self.label, baseline=self.baseline_label)


@dataclass(frozen=True)
class Untestable:
    entry: NotTestable
    preflight: PreflightRecord | None

    @property
    def label(self) -> str:
        return agent_label(self.entry.agent)


@dataclass
class AgentsView:
    board: InterventionBoard
    baseline: str
    baseline_label: str
    agents: list[tuple[str, str]]  # (arm, its label: an agent's product name), the baseline first
    models: list[ModelLine] = field(default_factory=list)
    effects: list[EffectLine] = field(default_factory=list)
    untestable: list[Untestable] = field(default_factory=list)
    factor: str = "agent"
    arms: list[ArmInfo] = field(default_factory=list)  # a folder factor's arms (title, hash, ...)

    @property
    def noun(self) -> str:
        """What an arm is called in sentences: `agent`, or `method arm`, `starter arm`, ..."""
        return "agent" if self.factor == "agent" else f"{self.factor} arm"


def arm_labels(board: InterventionBoard) -> dict[str, str]:
    """Each arm's label: an agent's product name, or a folder arm's title."""
    titles = {a.id: a.title for a in board.arms}
    if board.factor == "agent":
        return {a: agent_label(a) for a in board.agents}
    return {a: titles.get(a, a) for a in board.agents}


def _why_unpaired(agent: str, baseline: str, arms: list[ArmCell]) -> str:
    """Why a model has no paired difference for `agent`, in words."""
    missing = [a.label for a in arms if a.agent in (agent, baseline) and a.mean_total is None]
    return f"no counted total with {' or '.join(missing)}" if missing else "not paired"


def agents_view(evidence: RoundEvidence, rows: list[Row]) -> AgentsView | None:
    """The comparison page's content; None when the round has no intervention.json yet."""
    board = evidence.intervention
    if board is None:
        return None
    by_unit = {r.unit: r for r in rows}
    leaderboard = evidence.leaderboard
    untestable = [n for n in (leaderboard.not_testable if leaderboard else []) if n.agent]
    blocked = {(n.model_key, n.agent): n for n in untestable}
    effects = {e.agent: e for e in board.effects}
    labels = arm_labels(board)
    view = AgentsView(
        board=board,
        baseline=board.baseline,
        baseline_label=labels.get(board.baseline, board.baseline),
        agents=[(a, labels[a]) for a in board.agents],
        effects=[
            EffectLine(e, labels.get(e.agent, e.agent), labels.get(e.baseline, e.baseline))
            for e in board.effects
        ],
        untestable=[
            Untestable(n, evidence.preflight.get(entrant_key(n.model_key, n.agent)))
            for n in untestable
        ],
        factor=board.factor,
        arms=list(board.arms),
    )
    for model in board.models:
        arms = []
        for arm in model.arms:
            units = []
            for name in [*arm.units, *arm.not_counted]:
                row = by_unit.get(name)
                if row is None:  # intervention.json and leaderboard.json disagree: not shown
                    continue
                unit = evidence.units.get(name)
                session = unit.session if unit is not None else None
                units.append(UnitCell(row, name in arm.units, session.steps if session else None))
            arms.append(
                ArmCell(
                    agent=arm.agent,
                    label=labels.get(arm.agent, arm.agent),
                    mean_total=arm.mean_total,
                    totals=list(arm.totals),
                    units=units,
                    not_testable=blocked.get((model.model_key, arm.agent)),
                    mean_cost_usd=arm.mean_cost_usd,
                )
            )
        differences = []
        for agent in board.agents[1:]:
            effect = effects.get(agent)
            paired = dict(zip(effect.models, effect.differences, strict=True)) if effect else {}
            spent = zip(effect.cost_models, effect.cost_differences, strict=True) if effect else []
            costs = dict(spent)
            value = paired.get(model.model_key)
            why = "" if value is not None else _why_unpaired(agent, board.baseline, arms)
            differences.append(Difference(agent, value, why, costs.get(model.model_key)))
        view.models.append(ModelLine(model.model_key, model.display_name, arms, differences))
    return view
