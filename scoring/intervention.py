"""An intervention round's comparison of arms: `intervention.json`, from leaderboard.json alone.

Every model of the cohort ran in every arm of the round's one factor: each agent the round lists
(`agents`), or each arm folder of its `intervention` (a method, starter or tools arm, whose
manifest and frozen hash the board repeats); the first arm is the baseline. A unit counts when
its row has a 100-point total (scored: ranked, gate-capped or a model failure); invalid,
superseded or failed evaluations do not. Per model and arm: the mean of its counted totals and
of their metered costs. Per arm other than the baseline: the paired difference, model by model
(the arm's mean minus the baseline's, over the models with a value under both), in total and in
cost, each with its 95% t-interval (`scoring/uncertainty.py`). The models are the same on both
sides: the difference measures the factor (the agent's harness, the method, ...), not the model.
"""

from __future__ import annotations

import statistics

from records.evidence.scoring import (
    AgentEffect,
    ArmInfo,
    ArmScore,
    InterventionBoard,
    InterventionModel,
    Leaderboard,
    LeaderboardRow,
)
from records.interventions import Factor
from scoring.uncertainty import DIFFERENCE_BOUNDS, mean_interval


def counted(row: LeaderboardRow) -> bool:
    return row.total is not None and row.status not in ("superseded", "invalid")


def arm_score(agent: str, rows: list[LeaderboardRow]) -> ArmScore:
    scored = [r for r in rows if counted(r)]
    totals = [float(r.total) for r in scored if r.total is not None]
    costs = [float(r.cost_usd) for r in scored if r.cost_usd is not None]
    return ArmScore(
        agent=agent,
        units=[r.unit for r in scored],
        totals=totals,
        mean_total=round(statistics.fmean(totals), 4) if totals else None,
        costs=costs,
        mean_cost_usd=round(statistics.fmean(costs), 6) if costs else None,
        not_counted=[r.unit for r in rows if not counted(r)],
    )


def _paired(
    models: list[InterventionModel], agent: str, baseline: str, cost: bool
) -> tuple[list[str], list[float]]:
    """The models with a value under both arms, and each one's difference (arm minus baseline)."""
    paired: list[str] = []
    differences: list[float] = []
    for model in models:
        values = {a.agent: (a.mean_cost_usd if cost else a.mean_total) for a in model.arms}
        own, base = values.get(agent), values.get(baseline)
        if own is not None and base is not None:
            paired.append(model.model_key)
            differences.append(round(own - base, 6 if cost else 4))
    return paired, differences


def effect(agent: str, baseline: str, models: list[InterventionModel]) -> AgentEffect:
    """`agent` (an arm) minus `baseline`, paired by model, in total and in cost."""
    paired, differences = _paired(models, agent, baseline, cost=False)
    found = AgentEffect(agent=agent, baseline=baseline, models=paired, differences=differences)
    found.cost_models, found.cost_differences = _paired(models, agent, baseline, cost=True)
    if found.cost_differences:
        spent = mean_interval(found.cost_differences)
        found.mean_cost_difference = round(spent.mean, 6)
        if spent.low is not None and spent.high is not None:
            found.cost_low, found.cost_high = round(spent.low, 6), round(spent.high, 6)
    if not differences:
        return found
    interval = mean_interval(differences, bounds=DIFFERENCE_BOUNDS)
    found.mean_difference = round(interval.mean, 4)
    if interval.low is None or interval.high is None:
        return found
    found.low, found.high = round(interval.low, 4), round(interval.high, 4)
    found.clipped = interval.clipped
    found.separated = "above" if interval.low > 0 else "below" if interval.high < 0 else "overlaps"
    return found


def build_intervention(
    board: Leaderboard,
    agents: list[str],
    sha256: str,
    factor: Factor = "agent",
    arms: list[ArmInfo] | None = None,
) -> InterventionBoard:
    """The arms compared on the round's models (`agents`: the round's arms, the baseline first;
    `arms`: a folder factor's arms as the board shows them)."""
    if len(agents) < 2:
        raise ValueError(f"round {board.round_id}: an intervention round lists two or more arms")
    by_model: dict[str, list[LeaderboardRow]] = {}
    for row in board.units:
        by_model.setdefault(row.model_key, []).append(row)
    models = [
        InterventionModel(
            model_key=key,
            display_name=found[0].display_name,
            arms=[arm_score(a, [r for r in found if r.agent == a]) for a in agents],
        )
        for key, found in sorted(by_model.items())
    ]
    baseline = agents[0]
    return InterventionBoard(
        round_id=board.round_id,
        leaderboard_sha256=sha256,
        standing=board.standing,
        factor=factor,
        baseline=baseline,
        agents=agents,
        arms=list(arms or []),
        models=models,
        effects=[effect(a, baseline, models) for a in agents[1:]],
    )
