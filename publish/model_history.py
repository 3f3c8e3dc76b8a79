"""One model across every listed round: what each round's leaderboards say about it.

A model appears in a round when the round's leaderboard has a unit of it or lists it as not
testable. A single-repetition round counts the model's unit (its documented replacement when one
ran; in an intervention round, its unit with the baseline agent); a repeated round counts the
model's row of `model-leaderboard.json`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from publish.rounds import RoundSummary
from publish.views import agent_label
from records.evidence.scoring import LeaderboardRow, ModelRow, NotTestable
from records.io import RecordError

SAFE_KEY = re.compile(r"^[a-z0-9][a-z0-9._-]*$")  # a model page's file name
STATUS_LABELS = {
    "ranked": "ranked",
    "gate_failed": "gate-capped",
    "invalid": "invalid",
    "provider_outage": "provider outage",
    "harness_failure": "harness failure",
    "evaluation_failed": "evaluator failure",
    "ineligible": "ineligible",
    "incomplete": "incomplete",
    "missing": "missing",
    "replacement_pending": "replacement pending",
    "superseded": "superseded",
}


@dataclass(frozen=True)
class Appearance:
    """One model in one round."""

    round: RoundSummary
    units: list[LeaderboardRow]  # this model's unit rows, by repetition (originals first)
    model_row: ModelRow | None = None  # a repeated round's ranking by model
    not_testable: NotTestable | None = None

    @property
    def counted(self) -> LeaderboardRow | None:
        """The unit that stands for the model in a single-repetition round: never a superseded
        one while its documented replacement has a row (the replacement holds the place)."""
        baseline = self.round.baseline  # an intervention round: the baseline agent's unit
        own = [r for r in self.units if r.agent == baseline] if baseline else []
        standing = [r for r in own or self.units if r.status != "superseded"]
        replacements = [r for r in standing if r.replacement_of]
        if replacements:
            return max(replacements, key=lambda r: r.unit)
        if standing:
            return standing[0]
        return self.units[0] if self.units else None  # superseded, its replacement not run yet

    @property
    def rank(self) -> int | None:
        if self.round.repeated:
            return self.model_row.rank if self.model_row else None
        return self.counted.rank if self.counted else None

    @property
    def total(self) -> float | None:
        """The unit's total, or the mean total of a repeated round."""
        if self.model_row is not None:
            return self.model_row.mean_total
        return None if self.round.repeated or self.counted is None else self.counted.total

    @property
    def status(self) -> str:
        if self.not_testable is not None:
            reason = self.not_testable.reason_class
            agent = self.not_testable.agent
            return (
                "not testable"
                + (f" with {agent_label(agent)}" if agent else "")
                + (f" ({reason.replace('_', ' ')})" if reason else "")
            )
        if self.model_row is not None:
            return STATUS_LABELS.get(self.model_row.status, self.model_row.status)
        if self.round.repeated:
            return "not ranked by model yet"
        counted = self.counted
        return STATUS_LABELS.get(counted.status, counted.status) if counted else "no result"

    @property
    def status_reason(self) -> str:
        if self.not_testable is not None:
            return self.not_testable.reason
        if self.model_row is not None:  # e.g. "no score for r2 provider_outage"
            return self.model_row.status_reason.replace("_", " ")
        counted = self.counted
        return "; ".join([*counted.status_reasons, *counted.invalid_reasons]) if counted else ""

    @property
    def advances(self) -> bool:
        if self.model_row is not None:
            return self.model_row.advancement.advanced
        return bool(self.counted and not self.round.repeated and self.counted.advancement.advanced)

    @property
    def projected(self) -> bool:
        if self.model_row is not None:
            return self.model_row.advancement.projected
        counted = self.counted
        return bool(counted and not self.round.repeated and counted.advancement.projected)

    @property
    def repetitions(self) -> int:
        return 0 if self.not_testable is not None else self.round.repetitions


@dataclass
class ModelHistory:
    key: str
    display_name: str
    appearances: list[Appearance] = field(default_factory=list)


def _history(
    found: dict[str, ModelHistory], key: str, name: str, where: RoundSummary
) -> ModelHistory:
    if not SAFE_KEY.match(key):
        raise RecordError(f"{where.source}: model_key {key!r} is not a lowercase key")
    return found.setdefault(key, ModelHistory(key, name or key))


def model_histories(rounds: list[RoundSummary]) -> dict[str, ModelHistory]:
    """model key -> its appearances, in the order of `rounds`; by display name, then key."""
    found: dict[str, ModelHistory] = {}
    for summary in rounds:
        board = summary.leaderboard
        if board is None:
            continue
        units: dict[str, list[LeaderboardRow]] = {}
        for row in board.units:
            units.setdefault(row.model_key, []).append(row)
        models = summary.model_leaderboard
        by_model = {m.model_key: m for m in models.models} if models else {}
        for key, rows in units.items():
            rows.sort(key=lambda r: (r.repetition, r.replacement_of is not None, r.unit))
            history = _history(found, key, rows[0].display_name, summary)
            history.appearances.append(Appearance(summary, rows, by_model.get(key)))
        for entry in board.not_testable:
            history = _history(found, entry.model_key, entry.display_name, summary)
            history.appearances.append(Appearance(summary, [], not_testable=entry))
    ordered = sorted(found.values(), key=lambda h: (h.display_name.casefold(), h.key))
    return {history.key: history for history in ordered}
