"""The 15 scored checks (60 points), one module each, in the contract's table order."""

from __future__ import annotations

from types import ModuleType

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

CHECKS: list[ModuleType] = [
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
]

CORE_JOURNEYS = {"filter": "filter-journey", "detail": "venue-detail", "enquiry": "enquiry-form"}

BY_ID = {module.ID: module for module in CHECKS}


def proves(module: ModuleType) -> str:
    """The check's docstring after its id, as one line."""
    doc = " ".join((module.__doc__ or "").split())
    return doc.split(": ", 1)[1] if ": " in doc else doc
