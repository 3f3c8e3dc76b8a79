"""The checks that judge a task: the Python package its task.json names (`checks`). It exports

- `CHECKS`: one `Check` spec per module, in the contract's order;
- `PROBES`: gate id -> a probe (`probe(ctx) -> None | why it failed`) run before the checks;
- `CHECK_GATES`: gate id -> the check whose run decides it (`horizontal-overflow` reads the
  overflow the check recorded, `axe-serious` the check's violations);
- `load_data(path)`: the task's frozen data (task.json `data`), handed to every check;
- `CLAUSES` (`evaluator.contract.Clause`s: every requirement of the task's contract.md) and
  `GATE_CLAUSES` (gate id -> the clauses it owns), which the traceability table is made of;
- optionally `GATE_ORDER`, the order result.json lists the gates in.

Everything countable about them (how many, the maximum, each dimension's share, which checks
carry the core journeys) is derived here and must agree with the rubric (`records/rubric.py`)
and with the task's own record (its journeys): a disagreement refuses the set, naming it.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator.checks.spec import Check, Probe
from evaluator.contract import Clause
from records.rubric import AUTOMATED_MAX, MAX_AUTOMATED, DimensionId
from records.task import Task


class CheckSetRefused(RuntimeError):
    """A task's checks disagree with the rubric or with its task.json."""


@dataclass(frozen=True)
class CheckSet:
    """One task's checks package, as the evaluator uses it."""

    package: str
    checks: tuple[Check, ...]
    probes: Mapping[str, Probe] = field(default_factory=dict, compare=False)
    check_gates: Mapping[str, str] = field(default_factory=dict)
    load_data: Callable[[Path], Any] = field(default=lambda path: None, compare=False)
    clauses: tuple[Clause, ...] = ()
    gate_clauses: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    gate_order: tuple[str, ...] = ()

    @functools.cached_property
    def gate_ids(self) -> list[str]:
        """Every gate of the task, in `gate_order` (then install-build, the probes' gates,
        core-journey, the checks' gates)."""
        found = ["install-build", *self.probes, "core-journey", *self.check_gates]
        first = [g for g in self.gate_order if g in found]
        return first + [g for g in found if g not in first]

    @functools.cached_property
    def clause_by_id(self) -> dict[str, Clause]:
        return {clause.id: clause for clause in self.clauses}

    @functools.cached_property
    def by_id(self) -> dict[str, Check]:
        return {check.id: check for check in self.checks}

    @functools.cached_property
    def ids(self) -> list[str]:
        return [check.id for check in self.checks]

    @property
    def max_points(self) -> int:
        return sum(check.points for check in self.checks)

    @functools.cached_property
    def core_journeys(self) -> dict[str, str]:
        """Core journey -> the check that carries it ({"filter": "filter-journey", ...})."""
        return {c.journey: c.id for c in self.checks if c.journey}

    def dimension_points(self) -> dict[DimensionId, int]:
        return {d: sum(c.points for c in self.checks if c.dimension == d) for d in AUTOMATED_MAX}

    def problems(self) -> list[str]:
        """How the set disagrees with the rubric (empty when it agrees)."""
        where = f"{self.package}.CHECKS"
        found = []
        if len(self.by_id) != len(self.checks):
            found.append(f"{where}: two checks share an id")
        stray = sorted({c.dimension for c in self.checks} - set(AUTOMATED_MAX))
        if stray:
            found.append(f"{where}: dimensions not automated in the rubric: {stray}")
        for dimension, points in self.dimension_points().items():
            if points != AUTOMATED_MAX[dimension]:
                found.append(
                    f"{where}: the {dimension} checks sum to {points} points, "
                    f"records/rubric.py says {AUTOMATED_MAX[dimension]:g}"
                )
        if self.max_points != MAX_AUTOMATED:
            found.append(f"{where}: {self.max_points} points, rubric {MAX_AUTOMATED}")
        for gate, check in self.check_gates.items():
            if check not in self.by_id:
                found.append(f"{self.package}.CHECK_GATES: {gate} reads unknown check {check!r}")
        stray_gates = sorted(set(self.gate_order) ^ set(self.gate_ids)) if self.gate_order else []
        if stray_gates:
            found.append(f"{self.package}.GATE_ORDER: does not list the gates {stray_gates}")
        unknown = sorted(set(self.gate_clauses) - set(self.gate_ids))
        if unknown:
            found.append(f"{self.package}.GATE_CLAUSES: unknown gates {unknown}")
        if len(self.clause_by_id) != len(self.clauses):
            found.append(f"{self.package}.CLAUSES: two clauses share an id")
        return found


@functools.cache
def check_set(package: str) -> CheckSet:
    """The checks of `package` (its `CHECKS`), refused unless they agree with the rubric."""
    module = importlib.import_module(package)
    found = CheckSet(
        package,
        tuple(module.CHECKS),
        probes=dict(getattr(module, "PROBES", {})),
        check_gates=dict(getattr(module, "CHECK_GATES", {})),
        load_data=module.load_data,
        clauses=tuple(getattr(module, "CLAUSES", ())),
        gate_clauses={g: tuple(c) for g, c in getattr(module, "GATE_CLAUSES", {}).items()},
        gate_order=tuple(getattr(module, "GATE_ORDER", ())),
    )
    problems = found.problems()
    if problems:
        raise CheckSetRefused("; ".join(problems))
    return found


def task_checks(task: Task) -> CheckSet:
    """The checks that judge `task`, refused unless its task.json's journeys are theirs."""
    found = check_set(task.spec.checks)
    if found.core_journeys != task.spec.journeys:
        raise CheckSetRefused(
            f"{task.folder / 'task.json'}: journeys {task.spec.journeys} are not those of "
            f"{task.spec.checks} ({found.core_journeys})"
        )
    unknown = sorted(set(task.spec.calibration_passes) - set(found.ids))
    if unknown:
        raise CheckSetRefused(
            f"{task.folder / 'task.json'}: calibration_passes names unknown checks {unknown}"
        )
    return found
