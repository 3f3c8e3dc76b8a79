"""One round as one value: its settings, cohort, task and evidence folder, built once.

    rnd = Round.load("demo")            # the round file (benchmark/rounds/demo.json), checked
    rnd.paths.order, rnd.unit("m-r1")   # evidence/demo/..., the layout's paths
    rnd.cohort, rnd.task                # read on first use, then kept
    rnd.units()                         # the frozen order, then the documented replacements
    rnd.entrants()                      # each model with each agent it runs with

A command line or dodo builds it once and hands it down; the stages never read the round file,
the cohort or the task folder again. The files it reads are records (`records/inputs.py`,
`records/task.py`, `records/evidence/round.py`); the evidence it reads is read when asked, since
the round's evidence grows while it runs.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from records.evidence.agent import AgentInfo
from records.evidence.round import OrderRecord, ReplacementRecord
from records.inputs import (
    Candidate,
    Cohort,
    RoundSettings,
    load_cohort,
    load_round,
    round_settings_path,
)
from records.interventions import Arm
from records.io import RecordError, read_record
from records.layout import EVIDENCE_DIR, RoundPaths, UnitPaths
from records.task import Task
from records.unit_ids import entrant_key, split_entrant, unit_id


class OrderMissing(RecordError):
    """The round's order.json is not drawn yet."""


@dataclass(frozen=True)
class Entrant:
    """One model in one arm: what preflight qualifies and the order draws (`key` names its
    preflight folder and prefixes its unit ids: the model's key, `-via-<arm>` in an
    intervention round). `agent` is the agent its sessions run: the arm itself when the round
    varies the agent, the round's one agent otherwise."""

    key: str
    candidate: Candidate
    agent: AgentInfo

    @property
    def arm(self) -> str:
        """The arm's id (`""` in a round of one arm)."""
        return split_entrant(self.key)[1]

    def unit(self, repetition: int = 1, replacement: int = 0) -> str:
        """The id of this entrant's unit for one repetition (and its documented replacement)."""
        return unit_id(self.candidate.key, repetition, replacement, agent=self.arm)


@dataclass(frozen=True)
class Round:
    settings: RoundSettings
    evidence_dir: Path = EVIDENCE_DIR

    @classmethod
    def load(
        cls, round_id: str, evidence_dir: Path = EVIDENCE_DIR, *, require_cohort: bool = True
    ) -> Round:
        """The round of `benchmark/rounds/<round_id>.json` (a bad file raises RecordError naming
        it), its evidence under `evidence_dir/<round_id>/`."""
        return cls(load_round(round_id, require_cohort=require_cohort), evidence_dir)

    @property
    def id(self) -> str:
        return self.settings.round_id

    @property
    def settings_path(self) -> Path:
        return round_settings_path(self.id)

    @functools.cached_property
    def paths(self) -> RoundPaths:
        return RoundPaths(self.evidence_dir / self.id)

    @functools.cached_property
    def cohort(self) -> Cohort:
        return load_cohort(self.settings.cohort_path)

    @functools.cached_property
    def task(self) -> Task:
        return self.settings.load_task()

    @functools.cached_property
    def arms(self) -> list[Arm]:
        """The arm folders of the round's `intervention` (empty: the agent factor or none)."""
        return self.settings.load_arms()

    def arm(self, arm_id: str) -> Arm | None:
        """The folder arm of `arm_id` (None: an agent arm, or no arm)."""
        return next((a for a in self.arms if a.id == arm_id), None)

    def entrants(self) -> list[Entrant]:
        """Every model of the cohort in each arm of the round, cohort order first."""
        settings = self.settings
        if settings.agents:  # the agent factor: each arm is an agent
            pairs = [(a.name, a) for a in settings.agents]
        else:
            pairs = [(arm, settings.agent) for arm in settings.arm_ids] or [("", settings.agent)]
        return [
            Entrant(entrant_key(c.key, arm), c, agent)
            for c in self.cohort.candidates
            for arm, agent in pairs
        ]

    def entrant(self, key: str) -> Entrant:
        """The entrant of `key` (`m` or `m-via-a`), refused when the round has none such."""
        model, agent = split_entrant(key)
        for found in self.entrants():
            if found.key == key:
                return found
        arms = ", ".join(self.settings.arm_ids) or "none"
        raise RecordError(
            f"{self.settings_path}: round {self.id!r} has no entrant {key!r} (model {model!r} "
            f"in cohort {self.settings.cohort}, arm {agent or 'none named'!r}; arms: {arms})"
        )

    def unit(self, unit: str) -> UnitPaths:
        return self.paths.unit(unit)

    def order(self) -> OrderRecord:
        """order.json (OrderMissing until the order is drawn)."""
        path = self.paths.order
        if not path.exists():
            raise OrderMissing(f"{path} missing: freeze the run order (after preflight) first")
        return read_record(path, OrderRecord)

    def replacements(self) -> list[ReplacementRecord]:
        """The documented replacements created so far, by their unit's folder name."""
        return [
            read_record(self.unit(u).replacement, ReplacementRecord)
            for u in self.paths.units_with("replacement")
        ]

    def units(self) -> list[str]:
        """Every unit the round runs: the frozen order, then each documented replacement (empty
        before the order is drawn). The runner and dodo's unit tasks both use this list."""
        if not self.paths.order.exists():
            return []
        return [*self.order().order, *(r.replacement_unit for r in self.replacements())]
