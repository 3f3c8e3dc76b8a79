"""Scoring, blind review and ranking (seed: "Score (100)", "Gates", "Advancement").

Entry points: `build_packets(round_id)` and `score_round(round_id)`; or
`python -m scoring packets|score --round R`, `python -m scoring unseal R --reason ...`,
`python -m scoring.packets bundle --reviewer X --round R`.
"""

from records.evidence.scoring import Leaderboard
from scoring.pipeline import build_packets, score_round

__all__ = ["Leaderboard", "build_packets", "score_round"]
