"""The 100-point total: automated 60 + visual 20 + code 10 + verification 5 + efficiency 5.

Automated dimensions are the sums of the evaluator's checks per dimension (functional 25,
responsive 20, accessibility 15). Any hard-gate failure caps the total at 49: `capped` is true
whenever a hard gate failed (the cap is in force) and `raw_total` keeps the uncapped sum.
"""

from __future__ import annotations

from dataclasses import dataclass

from records.evidence.evaluation import EvaluationResult
from records.evidence.scoring import Component, DimensionScore, ManualScore
from records.rubric import AUTOMATED_MAX, DIMENSION_IDS, GATE_CAP
from scoring.model import add

DIMENSIONS = DIMENSION_IDS


def automated_dimensions(result: EvaluationResult, source: str) -> dict[str, DimensionScore]:
    """Functional, responsive and accessibility points, one component per check."""
    out: dict[str, DimensionScore] = {}
    for dimension, max_points in AUTOMATED_MAX.items():
        checks = [c for c in result.checks if c.dimension == dimension]
        components = [
            Component(
                name=c.id,
                points=float(c.points),
                max_points=float(c.max_points),
                reason=("passed" if c.passed else "failed" if c.executed else "not executed")
                + (
                    f": {c.diagnostics[0].expected}; seen {c.diagnostics[0].seen}"
                    if c.diagnostics
                    else ""
                ),
                sources=[f"{source}#checks[{c.id}]"],
            )
            for c in checks
        ]
        out[dimension] = DimensionScore(
            points=add(*(c.points for c in components)),
            max_points=max_points,
            components=components,
        )
    return out


def manual_dimension(score: ManualScore) -> DimensionScore:
    return DimensionScore(
        points=score.points,
        max_points=score.max_points,
        provisional=score.provisional,
        components=[
            Component(
                name=f"review:{s.reviewer}",
                points=s.score,
                max_points=score.max_points,
                reason="blind review",
                sources=[s.source],
            )
            for s in score.scores
        ],
        note=score.reason,
    )


@dataclass(frozen=True)
class Total:
    raw_total: float
    total: float
    capped: bool
    provisional: bool


def total(breakdown: dict[str, DimensionScore], hard_gate_failed: bool) -> Total:
    """Sum the seven dimensions; cap at 49 when a hard gate failed."""
    raw = add(*(breakdown[d].points or 0.0 for d in DIMENSIONS))
    return Total(
        raw_total=raw,
        total=min(raw, GATE_CAP) if hard_gate_failed else raw,
        capped=hard_gate_failed,
        provisional=any(breakdown[d].provisional for d in DIMENSIONS),
    )
