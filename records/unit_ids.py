"""Unit ids, built and parsed here only: `<model>[-via-<agent>]-r<repetition>[-x<replacement>]`.

A unit is one session of one model; its id names its folder (`evidence/<round>/units/<unit>/`).
Repetitions (Round 1 runs three per route) are `-r1`, `-r2`, ...; the documented replacement of a
failed unit adds `-x1` (one replacement per unit). In an intervention round (a round that lists
`agents`) every model runs with every agent: the entrant `<model>-via-<agent>` (e.g.
`strong-builder-via-claude-code`) names the pair, its preflight folder and its units.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

UNIT_ID = re.compile(r"^(?P<key>.+)-r(?P<repetition>\d+)(?:-x(?P<replacement>\d+))?$")
VIA = "-via-"


def entrant_key(model_key: str, agent: str = "") -> str:
    """The key of a model run by one agent (`m-via-a`), or of the model alone (`m`)."""
    return f"{model_key}{VIA}{agent}" if agent else model_key


def split_entrant(key: str) -> tuple[str, str]:
    """`m-via-a` → ("m", "a"); `m` → ("m", "")."""
    model, _, agent = key.partition(VIA)
    return model, agent


@dataclass(frozen=True)
class UnitId:
    model_key: str
    repetition: int = 1
    replacement: int = 0  # 0: the unit itself; n: its n-th documented replacement
    agent: str = ""  # intervention rounds: the agent arm ("" in a round of one agent)

    @property
    def entrant(self) -> str:
        return entrant_key(self.model_key, self.agent)

    def __str__(self) -> str:
        base = f"{self.entrant}-r{self.repetition}"
        return f"{base}-x{self.replacement}" if self.replacement else base

    @property
    def original(self) -> str:
        """The id of the unit this one replaces (its own id when it is not a replacement)."""
        return unit_id(self.model_key, self.repetition, agent=self.agent)

    @property
    def is_replacement(self) -> bool:
        return self.replacement > 0

    @classmethod
    def parse(cls, text: str) -> UnitId:
        """`m-r2-x1` → UnitId('m', 2, 1); `m-via-a-r1` → UnitId('m', 1, 0, 'a'); a malformed id
        is a ValueError naming it."""
        match = UNIT_ID.match(text)
        if match is None:
            raise ValueError(
                f"{text!r} is not a unit id (<model>[-via-<agent>]-r<repetition>[-x<n>])"
            )
        model, agent = split_entrant(match["key"])
        return cls(model, int(match["repetition"]), int(match["replacement"] or 0), agent)


def parse_unit(text: str) -> UnitId | None:
    """The parsed id, or None for a folder name that is not a unit id."""
    try:
        return UnitId.parse(text)
    except ValueError:
        return None


def unit_id(model_key: str, repetition: int = 1, replacement: int = 0, agent: str = "") -> str:
    """The id of a model's unit for one repetition (and, past 0, its documented replacement), run
    by `agent` in an intervention round."""
    return str(UnitId(model_key, repetition, replacement, agent))
