"""Scoring, blind review and ranking (seed: "Score (100)", "Gates", "Advancement").

Entry points: `build_packets(rnd)` and `score_round(rnd)` (a `records.round.Round`); or
`python -m scoring packets|score --round R`, `python -m scoring unseal R --reason ...`,
`python -m scoring.packets bundle --reviewer X --round R`.
"""

from records.evidence.scoring import Leaderboard, UnitStatus
from records.round import Round
from scoring.claims import RULES as CLAIM_RULES
from scoring.claims import agent_label
from scoring.evidence import load_context
from scoring.leaderboard import provisional_statuses as _provisional
from scoring.pipeline import build_packets, score_round

__all__ = [
    "CLAIM_RULES",
    "Leaderboard",
    "agent_label",
    "build_packets",
    "provisional_statuses",
    "score_round",
]


def provisional_statuses(rnd: Round) -> dict[str, tuple[UnitStatus, list[str]]]:
    """Each unit's status and reasons as scoring will give them, before it has run."""
    return _provisional(load_context(rnd))
