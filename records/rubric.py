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

REVIEW_RANGES = {
    "visual": BY_DIMENSION["visual"].points,
    "code_quality": BY_DIMENSION["code"].points,
}
THIRD_REVIEW_GAP = {"visual": 4.0, "code_quality": 3.0}


@dataclass(frozen=True)
class Criterion:
    """One line of the reviewers' rubric (docs/review-rubric.md says what each level means)."""

    id: str
    dimension: Literal["visual", "code_quality"]
    title: str
    points: float
    looks_for: str


REVIEW_CRITERIA: tuple[Criterion, ...] = (
    Criterion("layout", "visual", "Layout and hierarchy", 4.0,
              "clear reading order, grouping and emphasis; the primary action is obvious"),
    Criterion("typography", "visual", "Typography and colour", 4.0,
              "type scale, measure and contrast; a coherent, purposeful palette"),
    Criterion("states", "visual", "States and microcopy", 4.0,
              "empty, error, loading and success states; labels and messages that help"),
    Criterion("responsive", "visual", "Responsiveness", 4.0,
              "each of 360, 768 and 1440 px composed for its width, not merely squeezed"),
    Criterion("motion", "visual", "Motion", 4.0,
              "transitions that explain change, are brief, and never get in the way"),
    Criterion("structure", "code_quality", "Structure", 3.0,
              "components and modules with one job each; no duplication or dead code"),
    Criterion("naming", "code_quality", "Naming and readability", 2.0,
              "names that say what things are; code a colleague reads without a guide"),
    Criterion("correctness", "code_quality", "Types and correctness", 3.0,
              "precise types (no any/casts to silence errors); state and URL handled soundly"),
    Criterion("markup", "code_quality", "Accessibility in markup", 2.0,
              "semantic elements, labels, roles only where needed, focus handled in code"),
)  # fmt: skip

ADVANCE_TOP = 5
ADVANCE_MARGIN = 3.0
TIE_RULE = (
    "higher total, then higher automated score, then lower gateway cost (unknown last), "
    "then candidate code A-Z"
)

assert MAX_TOTAL == 100.0 and MAX_AUTOMATED == 60
assert all(
    sum(c.points for c in REVIEW_CRITERIA if c.dimension == d) == REVIEW_RANGES[d]
    for d in REVIEW_RANGES
)
