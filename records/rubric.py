"""The 100-point rubric of the methodology, defined once: dimensions, maxima, cap, review rules.

Everything that states a maximum (the evaluator's 60, the review ranges, the cap at 49, the
advancement margin) reads it from here; templates and tests too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DimensionId = Literal[
    "functional", "responsive", "accessibility", "visual", "code", "verification", "efficiency"
]
Source = Literal["evaluator", "review", "harness"]


@dataclass(frozen=True)
class Dimension:
    id: DimensionId
    title: str
    points: float
    source: Source
    evidence: str


DIMENSIONS: tuple[Dimension, ...] = (
    Dimension(
        "functional",
        "Functional correctness",
        25.0,
        "evaluator",
        "Automated journeys, URL state, validation and state transitions",
    ),
    Dimension(
        "responsive",
        "Responsive/content resilience",
        20.0,
        "evaluator",
        "360/768/1440 geometry, long copy, local/missing media and mobile navigation",
    ),
    Dimension(
        "accessibility",
        "Accessibility",
        15.0,
        "evaluator",
        "Keyboard, focus containment/return, semantics, reduced motion and axe",
    ),
    Dimension(
        "visual", "Visual craft", 20.0, "review", "Two blind reviews of screenshots and video"
    ),
    Dimension("code", "Code quality", 10.0, "review", "Two blind reviews of the anonymized diff"),
    Dimension(
        "verification",
        "Verification discipline",
        5.0,
        "harness",
        "Objectively observed check/build commands and truthful progress evidence",
    ),
    Dimension(
        "efficiency",
        "Operational efficiency",
        5.0,
        "harness",
        "Intervention-free completion, clean exit, elapsed time and fixed cost bands",
    ),
)
BY_DIMENSION = {d.id: d for d in DIMENSIONS}
DIMENSION_IDS: tuple[DimensionId, ...] = tuple(d.id for d in DIMENSIONS)
MAX_TOTAL = sum(d.points for d in DIMENSIONS)
AUTOMATED_MAX = {d.id: d.points for d in DIMENSIONS if d.source == "evaluator"}
MAX_AUTOMATED = int(sum(AUTOMATED_MAX.values()))
REVIEW_MAX = sum(d.points for d in DIMENSIONS if d.source == "review")

GATE_CAP = 49.0
"""Any hard-gate failure caps the total here."""

CALIBRATION_SCORE = 26
"""The automated score the deliberately incomplete starter must get, exactly."""

REVIEW_RANGES = {
    "visual": BY_DIMENSION["visual"].points,
    "code_quality": BY_DIMENSION["code"].points,
}
THIRD_REVIEW_GAP = {"visual": 4.0, "code_quality": 3.0}

ADVANCE_TOP = 5
ADVANCE_MARGIN = 3.0
TIE_RULE = (
    "higher total, then higher automated score, then lower gateway cost (unknown last), "
    "then candidate code A-Z"
)

assert MAX_TOTAL == 100.0 and MAX_AUTOMATED == 60
