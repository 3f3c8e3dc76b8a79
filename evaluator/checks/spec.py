"""A check as a spec: its points, the contract clauses it owns and the function that runs it.

Each check module exports one `CHECK = Check(...)`; a task's checks package lists them in its
`CHECKS` (`evaluator/checks/__init__.py` for atlas-rooms) and `evaluator.check_set` derives the
maxima, the dimension splits and the core journeys from these specs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from records.evidence.evaluation import CheckResult, Diagnostic, Dimension

if TYPE_CHECKING:
    from evaluator.checks.base import CheckContext
    from evaluator.data import VenueData

Collectors = dict[str, Callable[["CheckContext"], Any]]
Placement = Literal["", "visits", "sweep", "after-visits"]
"""Where the browser phase's lane plan puts a check beside the core journeys
(`evaluator.browser_phase.plan_lanes`): "visits" (its settled visits are what other checks'
`shared_visits` judge: first on its lane), "sweep" (a long sweep: with the journeys on two lanes,
first on the last lane on three), "after-visits" (on the visits' lane after them when no
screenshots are taken: balances the lanes), or "" (anywhere)."""


@dataclass(frozen=True)
class Tested:
    """The points at which a check tests one range of a clause (`Span.over` of that clause):
    the span's edges and the interior points it adds, with why those (`why`)."""

    clause: str
    over: str
    points: tuple[str, ...]
    why: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "points", tuple(self.points))


Probe = Callable[["CheckContext"], "str | None"]
"""A gate probe: None when the page passes, else why it failed."""


@dataclass(frozen=True)
class Check:
    """One scored check.

    `doc` is the module docstring ("<id>: what it proves"); `clauses` are the ids of the contract
    clauses it owns (`evaluator/contract.py`); `journey` names the core journey the check carries
    ("filter", "detail", "enquiry") and `journey_critical` says which of its assertions, failing,
    mean the visitor cannot complete that journey (those diagnostics fail the core-journey gate);
    `shared_visits(data)` lists the settled states it can judge on another check's visit;
    `placement` says where the lane plan puts it (`Placement`), for the lanes' balance only;
    `tested` names the points it tests in each range its clauses quantify over (`Tested`).
    """

    id: str
    dimension: Dimension
    points: int
    run: Callable[[CheckContext], None]
    doc: str
    clauses: Sequence[str] = ()
    journey: str | None = None
    journey_critical: str = ""
    shared_visits: Callable[[VenueData], Collectors] | None = field(default=None, compare=False)
    placement: Placement = ""
    tested: Sequence[Tested] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "clauses", tuple(self.clauses))
        object.__setattr__(self, "tested", tuple(self.tested))
        foreign = [t.clause for t in self.tested if t.clause not in self.clauses]
        if foreign:
            raise ValueError(
                f"check {self.id}: names tested points of clauses it does not own: {foreign}"
            )
        if self.points < 1:
            raise ValueError(f"check {self.id}: points must be at least 1, not {self.points}")
        if not self.doc.strip().startswith(f"{self.id}"):
            raise ValueError(f"check {self.id}: its docstring must start with its id")
        if bool(self.journey) != bool(self.journey_critical):
            raise ValueError(
                f"check {self.id}: a core-journey check states its journey-critical assertions "
                "(and only a core-journey check does)"
            )
        if len(set(self.clauses)) != len(self.clauses):
            raise ValueError(f"check {self.id}: a clause is listed twice")

    @property
    def proves(self) -> str:
        """The docstring after its id, as one line."""
        doc = " ".join(self.doc.split())
        return doc.split(": ", 1)[1] if ": " in doc else doc

    def result(
        self, diagnostics: list[Diagnostic], executed: bool = True, duration_s: float = 0.0
    ) -> CheckResult:
        """This check's result: all its points when it ran without a diagnostic, else none."""
        passed = executed and not diagnostics
        return CheckResult(
            id=self.id,
            dimension=self.dimension,
            points=self.points if passed else 0,
            max_points=self.points,
            executed=executed,
            passed=passed,
            diagnostics=diagnostics,
            proves=self.proves,
            duration_s=duration_s,
        )
