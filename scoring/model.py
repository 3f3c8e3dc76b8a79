"""Score records shared by the scoring modules: every number carries where it came from."""

from __future__ import annotations


def add(*values: float) -> float:
    """Sum of point values, rounded to absorb float noise (points are multiples of 0.25 or so)."""
    return round(sum(values), 6)
