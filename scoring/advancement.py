"""Ranking and advancement of gate-eligible units.

Tie rule (documented, applied in order): higher total; higher automated score (the deterministic
60); lower gateway cost (unknown cost last); candidate code alphabetically. Units with equal totals
are disclosed as ties whatever the tie-break decided.

Advancement: the top five ranked units, plus every eligible unit whose total is within 3 points of
the fifth-ranked total (difference ≤ 3.0 after rounding to 1e-6). With five or fewer eligible
units, all advance.
"""

from __future__ import annotations

from dataclasses import dataclass

from records.rubric import ADVANCE_MARGIN, ADVANCE_TOP, TIE_RULE

TOP = ADVANCE_TOP
MARGIN = ADVANCE_MARGIN


@dataclass(frozen=True)
class Entry:
    key: str
    code: str
    total: float
    automated: float
    cost_usd: float | None


@dataclass(frozen=True)
class Placement:
    rank: int
    advanced: bool
    reason: str
    tied_with: list[str]
    behind_fifth: float | None


def sort_key(entry: Entry) -> tuple[float, float, bool, float, str]:
    """The tie rule as a sort key."""
    cost = entry.cost_usd
    return (-round(entry.total, 6), -entry.automated, cost is None, cost or 0.0, entry.code)


def rank(entries: list[Entry]) -> tuple[dict[str, Placement], float | None]:
    """Placements by entry key, and the fifth-ranked total (None with fewer than five)."""
    ordered = sorted(entries, key=sort_key)
    fifth = ordered[TOP - 1].total if len(ordered) >= TOP else None
    placements: dict[str, Placement] = {}
    for position, entry in enumerate(ordered, start=1):
        tied = [e.code for e in ordered if e is not entry and round(e.total - entry.total, 6) == 0]
        behind = round(fifth - entry.total, 6) if fifth is not None else None
        if position <= TOP:
            advanced, reason = True, f"top {TOP} (rank {position})"
        elif behind is not None and behind <= MARGIN:
            advanced, reason = True, f"within {MARGIN:g} points of fifth ({behind:g} behind)"
        else:
            advanced, reason = False, f"{behind:g} points behind fifth (more than {MARGIN:g})"
        if tied:
            reason += f"; tied on total with {', '.join(tied)}, ordered by: {TIE_RULE}"
        placements[entry.key] = Placement(position, advanced, reason, tied, behind)
    return placements, fifth
