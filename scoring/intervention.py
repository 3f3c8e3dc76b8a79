"""An intervention round's comparison of agents: `intervention.json`, from leaderboard.json alone.

Every model of the cohort ran with every agent the round lists (`agents`, the first the baseline).
A unit counts when its row has a 100-point total (scored: ranked, gate-capped or a model failure);
invalid, superseded or failed evaluations do not. Per model and agent: the mean of its counted
totals. Per agent other than the baseline: the paired difference, model by model (the agent's
mean minus the baseline's, over the models with a total under both), with its 95% t-interval
(`scoring/uncertainty.py`). The difference measures the harness (the agent and its prompts,
tools and loop), not the model: the models are the same on both sides.
"""

from __future__ import annotations

import statistics

from records.evidence.scoring import (
    AgentEffect,
    ArmScore,
    InterventionBoard,
    InterventionModel,
    Leaderboard,
    LeaderboardRow,
)
from scoring.uncertainty import mean_interval


def counted(row: LeaderboardRow) -> bool:
    return row.total is not None and row.status not in ("superseded", "invalid")


def arm_score(agent: str, rows: list[LeaderboardRow]) -> ArmScore:
    scored = [r for r in rows if counted(r)]
    totals = [float(r.total) for r in scored if r.total is not None]
    return ArmScore(
        agent=agent,
        units=[r.unit for r in scored],
        totals=totals,
        mean_total=round(statistics.fmean(totals), 4) if totals else None,
        not_counted=[r.unit for r in rows if not counted(r)],
    )


def effect(agent: str, baseline: str, models: list[InterventionModel]) -> AgentEffect:
    """`agent` minus `baseline`, paired by model."""
    paired: list[str] = []
    differences: list[float] = []
    for model in models:
        arms = {a.agent: a.mean_total for a in model.arms}
        own, base = arms.get(agent), arms.get(baseline)
        if own is not None and base is not None:
            paired.append(model.model_key)
            differences.append(round(own - base, 4))
    found = AgentEffect(agent=agent, baseline=baseline, models=paired, differences=differences)
    if not differences:
        return found
    interval = mean_interval(differences)
    found.mean_difference = round(interval.mean, 4)
    if interval.low is None or interval.high is None:
        return found
    found.low, found.high = round(interval.low, 4), round(interval.high, 4)
    found.separated = "above" if interval.low > 0 else "below" if interval.high < 0 else "overlaps"
    return found


def build_intervention(board: Leaderboard, agents: list[str], sha256: str) -> InterventionBoard:
    """The agents compared on the round's models (`agents`: the round's, the baseline first)."""
    if len(agents) < 2:
        raise ValueError(f"round {board.round_id}: an intervention round lists two or more agents")
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
        baseline=baseline,
        agents=agents,
        models=models,
        effects=[effect(a, baseline, models) for a in agents[1:]],
    )
