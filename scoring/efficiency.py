"""Operational efficiency (5 points) from `session.json`.

- 2: completion without intervention: `stop_status == "completed"` (no step/time/budget ceiling,
  no sandbox limit, no crash) and no human intervention.
- 1: elapsed ≤ 20:00 (1200 s); 0.5 when > 1200 s and ≤ 30:00 (1800 s); else 0. Seconds are
  compared unrounded except for float noise (rounded to the millisecond): 1200.0 earns 1,
  1200.001 earns 0.5. A `time_ceiling` stop's time is counted up to the round's wall-clock
  ceiling: the runner stops the agent a fraction of a second after the ceiling (its poll and the
  kill), and that overshoot is the runner's, not the model's, so a stop at the 30-minute ceiling
  recorded as 1800.4 s counts 30:00 and earns 0.5 (it took the whole 20-30 band, no more).
  An agent that logged its final step and did not exit (`lingered_seconds`: the runner ended it)
  is counted up to its final step: the wait for an exit that never came is not the model's.
- 1: clean exit: exit code 0, not crashed and not stopped at a sandbox limit (`resource_limit`);
  an agent the runner had to end after its final step did not exit cleanly.
- 1: cost ≤ $5.00; 0.5 when ≤ $10.00; else 0. The cost is `session.cost_usd`, which the harness
  takes from the gateway record (never the agent's estimate), rounded to 1e-9 USD against float
  summation noise. Unknown cost earns 0.
"""

from __future__ import annotations

from records.evidence.scoring import Component, DimensionScore
from records.evidence.session import SessionRecord
from scoring.model import add

FULL_TIME_S = 20 * 60
HALF_TIME_S = 30 * 60
FULL_COST_USD = 5.0
HALF_COST_USD = 10.0


def minutes(seconds: float) -> str:
    """`m:ss`, with milliseconds only when present: 1200 → 20:00, 1200.5 → 20:00.500."""
    total = round(seconds, 3)
    whole_minutes, rest = divmod(total, 60)
    text = f"{int(whole_minutes)}:{int(rest):02d}"
    return text if rest == int(rest) else f"{text}.{round((rest - int(rest)) * 1000):03d}"


def time_points(elapsed_seconds: float) -> float:
    elapsed = round(elapsed_seconds, 3)
    if elapsed <= FULL_TIME_S:
        return 1.0
    return 0.5 if elapsed <= HALF_TIME_S else 0.0


def cost_points(cost_usd: float | None) -> float:
    if cost_usd is None:
        return 0.0
    cost = round(cost_usd, 9)
    if cost <= FULL_COST_USD:
        return 1.0
    return 0.5 if cost <= HALF_COST_USD else 0.0


def counted_seconds(session: SessionRecord) -> float:
    """The elapsed time the time component judges: a time-ceiling stop counts up to the ceiling,
    an agent that lingered after its final step up to that step."""
    if session.stop_status == "time_ceiling":
        return min(session.elapsed_seconds, session.ceilings.wall_clock_seconds)
    if session.lingered_seconds is not None:
        return max(0.0, round(session.elapsed_seconds - session.lingered_seconds, 3))
    return session.elapsed_seconds


def score_efficiency(session: SessionRecord, source: str = "session.json") -> DimensionScore:
    """Operational efficiency out of 5, each component citing its session.json fields."""
    finished = session.stop_status == "completed" and not session.human_intervention
    lingered = session.lingered_seconds
    clean = (
        session.exit_code == 0
        and session.stop_status not in ("crashed", "resource_limit")
        and lingered is None
    )
    counted = counted_seconds(session)
    capped = counted != session.elapsed_seconds
    up_to = "the agent's final step" if lingered is not None else "the time ceiling"
    cost = session.cost_usd
    components = [
        Component(
            name="completion",
            points=2.0 if finished else 0.0,
            max_points=2.0,
            reason=f"stop_status {session.stop_status}; human intervention: "
            + ("recorded" if session.human_intervention else session.human_intervention_basis),
            sources=[
                f"{source}#stop_status",
                f"{source}#human_intervention",
                f"{source}#human_intervention_basis",
            ],
        ),
        Component(
            name="time",
            points=time_points(counted),
            max_points=1.0,
            reason=f"elapsed {minutes(session.elapsed_seconds)}"
            + (f", counted up to {up_to} as {minutes(counted)}" if capped else "")
            + " (≤ 20:00 earns 1, ≤ 30:00 0.5)",
            sources=[f"{source}#elapsed_seconds"]
            + ([f"{source}#lingered_seconds"] if capped and lingered is not None else [])
            + (
                [f"{source}#stop_status", f"{source}#ceilings"]
                if capped and lingered is None
                else []
            ),
        ),
        Component(
            name="clean_exit",
            points=1.0 if clean else 0.0,
            max_points=1.0,
            reason=f"exit code {session.exit_code}, stop_status {session.stop_status}"
            + (
                f"; the agent did not exit after its final step (the runner ended it "
                f"{lingered:g} s later)"
                if lingered is not None
                else ""
            ),  # fmt: skip
            sources=[f"{source}#exit_code", f"{source}#stop_status"]
            + ([f"{source}#lingered_seconds"] if lingered is not None else []),
        ),
        Component(
            name="cost",
            points=cost_points(cost),
            max_points=1.0,
            reason=(f"gateway cost ${cost:.4f}" if cost is not None else "gateway cost unknown")
            + " (≤ $5.00 earns 1, ≤ $10.00 earns 0.5)",
            sources=[f"{source}#cost_usd"],
        ),
    ]
    return DimensionScore(
        points=add(*(c.points for c in components)), max_points=5.0, components=components
    )
