"""The registry of scored checks, one module each, in the contract's table order.

Everything countable about the checks (how many, the maximum, each dimension's share, which
checks carry the core journeys) is derived here from the modules' `CHECK` specs, and must agree
with the rubric (`records/rubric.py`): a disagreement stops the import.
"""

from __future__ import annotations

from evaluator.checks import (
    axe,
    catalogue_listing,
    dialog_focus,
    enquiry_form,
    filter_journey,
    keyboard_focus,
    long_copy,
    media_fallback,
    mobile_nav,
    no_overflow,
    reduced_motion,
    responsive_layout,
    semantics,
    url_state,
    venue_detail,
)
from evaluator.checks.spec import Check
from records.rubric import AUTOMATED_MAX, MAX_AUTOMATED, DimensionId

CHECKS: tuple[Check, ...] = tuple(
    module.CHECK
    for module in (
        catalogue_listing,
        filter_journey,
        url_state,
        venue_detail,
        enquiry_form,
        no_overflow,
        responsive_layout,
        long_copy,
        media_fallback,
        mobile_nav,
        keyboard_focus,
        dialog_focus,
        semantics,
        reduced_motion,
        axe,
    )
)

BY_ID: dict[str, Check] = {check.id: check for check in CHECKS}
CHECK_COUNT = len(CHECKS)
MAX_POINTS = sum(check.points for check in CHECKS)
DIMENSION_POINTS: dict[DimensionId, int] = {
    dimension: sum(c.points for c in CHECKS if c.dimension == dimension)
    for dimension in AUTOMATED_MAX
}
CORE_JOURNEYS: dict[str, str] = {c.journey: c.id for c in CHECKS if c.journey}
"""Core journey -> the check that carries it ({"filter": "filter-journey", ...})."""


def _agree_with_rubric() -> None:
    if len(BY_ID) != CHECK_COUNT:
        raise RuntimeError("evaluator/checks: two checks share an id")
    stray = sorted({c.dimension for c in CHECKS} - set(AUTOMATED_MAX))
    if stray:
        raise RuntimeError(f"evaluator/checks: dimensions not automated in the rubric: {stray}")
    for dimension, points in DIMENSION_POINTS.items():
        if points != AUTOMATED_MAX[dimension]:
            raise RuntimeError(
                f"evaluator/checks: the {dimension} checks sum to {points} points, "
                f"records/rubric.py says {AUTOMATED_MAX[dimension]:g}"
            )
    if MAX_POINTS != MAX_AUTOMATED:
        raise RuntimeError(f"evaluator/checks: {MAX_POINTS} points, rubric {MAX_AUTOMATED}")


_agree_with_rubric()
