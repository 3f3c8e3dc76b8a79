"""A throwaway checks package for the "add a check" recipe (docs/architecture.md): the atlas-rooms
checks with `semantics` swapped for a toy check of the same dimension and points, so the rubric
still agrees. A task whose task.json names this package is judged by it."""

from __future__ import annotations

from evaluator.checks import CHECK_GATES, PROBES, load_data  # the atlas gates and data
from evaluator.checks import CHECKS as ATLAS
from evaluator.checks.spec import Check
from toy_checks import landmarks

CHECKS: tuple[Check, ...] = tuple(landmarks.CHECK if c.id == "semantics" else c for c in ATLAS)

__all__ = ["CHECKS", "CHECK_GATES", "PROBES", "load_data"]
