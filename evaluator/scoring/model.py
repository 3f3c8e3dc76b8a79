"""Score records shared by the scoring modules: every number carries where it came from."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Component(Record):
    """One scored part of a dimension and the evidence that produced it."""

    name: str
    points: float
    max_points: float
    reason: str
    sources: list[str] = Field(
        default_factory=list,
        description="evidence, relative to the round folder, e.g. 'units/u/events.jsonl:12'",
    )


class DimensionScore(Record):
    """A dimension's points (None when not measured) and the components that add up to them."""

    points: float | None
    max_points: float
    provisional: bool = False
    components: list[Component] = Field(default_factory=list)
    note: str = ""


def add(*values: float) -> float:
    """Sum of point values, rounded to absorb float noise (points are multiples of 0.25 or so)."""
    return round(sum(values), 6)
