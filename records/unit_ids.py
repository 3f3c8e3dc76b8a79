"""Unit ids, built and parsed here only: `<model>-r<repetition>[-x<replacement>]`.

A unit is one session of one model; its id names its folder (`evidence/<round>/units/<unit>/`).
Repetitions (Round 1 runs three per route) are `-r1`, `-r2`, ...; the documented replacement of a
failed unit adds `-x1` (one replacement per unit).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

UNIT_ID = re.compile(r"^(?P<key>.+)-r(?P<repetition>\d+)(?:-x(?P<replacement>\d+))?$")


@dataclass(frozen=True)
class UnitId:
    model_key: str
    repetition: int = 1
    replacement: int = 0  # 0: the unit itself; n: its n-th documented replacement

    def __str__(self) -> str:
        base = f"{self.model_key}-r{self.repetition}"
        return f"{base}-x{self.replacement}" if self.replacement else base

    @property
    def original(self) -> str:
        """The id of the unit this one replaces (its own id when it is not a replacement)."""
        return unit_id(self.model_key, self.repetition)

    @property
    def is_replacement(self) -> bool:
        return self.replacement > 0

    @classmethod
    def parse(cls, text: str) -> UnitId:
        """`m-r2-x1` → UnitId('m', 2, 1); a malformed id is a ValueError naming it."""
        match = UNIT_ID.match(text)
        if match is None:
            raise ValueError(f"{text!r} is not a unit id (<model>-r<repetition>[-x<n>])")
        return cls(match["key"], int(match["repetition"]), int(match["replacement"] or 0))


def parse_unit(text: str) -> UnitId | None:
    """The parsed id, or None for a folder name that is not a unit id."""
    try:
        return UnitId.parse(text)
    except ValueError:
        return None


def unit_id(model_key: str, repetition: int = 1, replacement: int = 0) -> str:
    """The id of a model's unit for one repetition (and, past 0, its documented replacement)."""
    return str(UnitId(model_key, repetition, replacement))
