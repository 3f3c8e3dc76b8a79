"""Every round with results in the evidence folder, summarised for the rounds and model pages.

A round has results once `<evidence>/<round>/leaderboard.json` exists, and its round file
`benchmark/rounds/<round>.json` must exist too; a folder without leaderboard.json is not a round
with results yet. A leaderboard of an unknown round, or a malformed leaderboard or model
leaderboard, raises `RecordError` naming the file: nothing is silently skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from publish.banner import KIND_LABELS
from publish.slots import how_run
from publish.sources import RoundEvidence
from records import fixed_controls
from records.evidence.gateway import KeyCheck
from records.evidence.scoring import Leaderboard, LeaderboardRow, ModelLeaderboard
from records.evidence.session import SessionRecord
from records.inputs import RoundSettings, load_round, round_settings_path
from records.io import RecordError, read_record
from records.layout import RoundPaths, round_paths

KIND_NOTES = {
    "demo": "scripted models",
    "rehearsal": "simulated models, never results",
    "real": "real models through the paid gateway",
}
SCORED = ("ranked", "gate_failed")
APART = ("provider_outage", "harness_failure", "evaluation_failed")


@dataclass(frozen=True)
class RoundSummary:
    """One round as the rounds page lists it: its settings and its leaderboards."""

    round_id: str
    settings: RoundSettings
    leaderboard: Leaderboard | None
    model_leaderboard: ModelLeaderboard | None
    current: bool  # the round this site is built for
    source: Path  # its leaderboard.json (named by errors about it)
    sessions: tuple[SessionRecord | None, ...] = ()  # its units' session records
    key_check: KeyCheck | None = None  # the spend stage's record (sessions at once, derived)

    @property
    def how_run(self) -> str:
        """Sessions at once, slots, shape and machines (`publish.slots.how_run`)."""
        derived = self.key_check.parallel if self.key_check is not None else None
        return how_run(self.settings, self.sessions, derived)

    @property
    def kind(self) -> str:
        return self.settings.kind

    @property
    def kind_label(self) -> str:
        label = KIND_LABELS.get(self.kind, f"{self.kind.title()} round")
        return f"{label} ({KIND_NOTES[self.kind]})" if self.kind in KIND_NOTES else label

    @property
    def control_differences(self) -> list[str]:
        """Each fixed control of the methodology this round sets otherwise (demo/rehearsal only)."""
        return [str(d) for d in self.settings.control_differences]

    @property
    def fixed_controls(self) -> str:
        return fixed_controls.SUMMARY

    @property
    def repetitions(self) -> int:
        return self.settings.repetitions

    @property
    def baseline(self) -> str:
        """An intervention round's baseline arm ("" in a round of one arm)."""
        arms = self.settings.arm_ids
        return arms[0] if arms else ""

    @property
    def repeated(self) -> bool:
        return self.repetitions > 1

    @property
    def standing(self) -> str:
        return self.leaderboard.standing if self.leaderboard else "not scored yet"

    @property
    def standing_reason(self) -> str:
        if self.leaderboard is None:
            return "scoring has not run for this round yet"
        return self.leaderboard.standing_reason

    @property
    def scored(self) -> list[LeaderboardRow]:
        """Ranked units by rank, then gate-failed units by total (the board's own order)."""
        rows = self.leaderboard.units if self.leaderboard else []
        return [r for r in rows if r.status in SCORED]

    def count(self, *statuses: str) -> int:
        rows = self.leaderboard.units if self.leaderboard else []
        return sum(r.status in statuses for r in rows)

    @property
    def invalid(self) -> int:
        return self.count("invalid")

    @property
    def apart(self) -> int:
        return self.count(*APART)

    @property
    def superseded(self) -> int:
        """Units a documented replacement supersedes (kept, never counted twice)."""
        return self.count("superseded")

    @property
    def not_testable(self) -> int:
        return len(self.leaderboard.not_testable) if self.leaderboard else 0

    @property
    def build_command(self) -> str:
        return f"SITEOS_ROUND={self.round_id} doit site"


def _same_round(path: Path, found: str, expected: str) -> None:
    if found != expected:
        raise RecordError(f"{path}: field round_id: {found!r} does not match its folder")


def other_round(paths: RoundPaths) -> RoundSummary:
    """A round other than the site's own, from its leaderboard files and round file."""
    settings_file = round_settings_path(paths.round_id)
    if not settings_file.is_file():
        raise RecordError(
            f"{paths.leaderboard}: round {paths.round_id!r} has no round file {settings_file}"
        )
    settings = load_round(paths.round_id, require_cohort=False)
    board = read_record(paths.leaderboard, Leaderboard)
    _same_round(paths.leaderboard, board.round_id, paths.round_id)
    models = None
    if paths.model_leaderboard.exists():
        models = read_record(paths.model_leaderboard, ModelLeaderboard)
        _same_round(paths.model_leaderboard, models.round_id, paths.round_id)
    sessions = tuple(
        read_record(path, SessionRecord) if (path := paths.unit(unit).session).exists() else None
        for unit in paths.unit_folders()
    )
    return RoundSummary(paths.round_id, settings, board, models, False, paths.leaderboard, sessions)


def load_rounds(current: RoundEvidence) -> list[RoundSummary]:
    """The site's own round first (even before it is scored), then every other round with a
    leaderboard.json beside it in the evidence folder, by round id."""
    evidence_dir = current.paths.root.parent
    path = current.paths.key_check
    own_key_check = read_record(path, KeyCheck) if path.exists() else None
    own = RoundSummary(
        current.round_id,
        current.settings,
        current.leaderboard,
        current.model_leaderboard,
        True,
        current.paths.leaderboard,
        tuple(unit.session for unit in current.units.values()),
        own_key_check,
    )
    others = [
        other_round(round_paths(folder.name, evidence_dir))
        for folder in sorted(evidence_dir.iterdir())
        if folder.is_dir() and folder.name != current.round_id
        if (folder / "leaderboard.json").is_file()
    ]
    return [own, *others]
