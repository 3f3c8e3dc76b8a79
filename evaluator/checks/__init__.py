"""The atlas-rooms task's checks package (its task.json names it): the scored checks, one module
each, in the contract's table order; the gate probes and the gates a check decides; the loader of
the venue data; the contract's clauses and the gates' (`clauses.py`). `evaluator.check_set`
derives what is countable about the checks (how many, the maximum, each dimension's share, the
core journeys) and refuses a set that disagrees with the rubric (`records/rubric.py`) or the
task.json.
"""

from __future__ import annotations

from evaluator.checks import (
    axe,
    catalogue_listing,
    dialog_focus,
    enquiry_form,
    filter_journey,
    gate_probes,
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
from evaluator.checks.clauses import CLAUSES, GATE_CLAUSES
from evaluator.checks.spec import Check, Probe
from evaluator.data import load_venues as load_data

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

PROBES: dict[str, Probe] = {
    "root-page": gate_probes.root_page,
    "keyboard-enquiry": gate_probes.keyboard_enquiry,
}
"""The gates decided by a probe before the checks (in this order)."""
CHECK_GATES = {"horizontal-overflow": "no-overflow", "axe-serious": "axe"}
"""The gates decided by a check's run."""
GATE_ORDER = (
    "install-build",
    "root-page",
    "core-journey",
    "horizontal-overflow",
    "keyboard-enquiry",
    "axe-serious",
)
"""The methodology's order of the six gates."""

__all__ = ["CHECKS", "CHECK_GATES", "CLAUSES", "GATE_CLAUSES", "GATE_ORDER", "PROBES", "load_data"]
