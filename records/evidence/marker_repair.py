"""`units/<unit>/marker-repair.json`: the operator wrote back a `.running` marker that did not
validate (harness/marker_repair.py), so the unit could be recorded instead of run a second time."""

from __future__ import annotations

from pydantic import Field

from records.base import Root


class MarkerRepair(Root):
    unit: str
    repaired_at: str = Field(description="UTC, ISO 8601, seconds")
    by: str
    reason: str = Field(description="the operator's words: how they know no runner is alive")
    problem: str = Field(description="why the unit was refused: the marker's error")
    kept_as: str | None = Field(
        description="the unreadable marker, renamed beside it and never deleted; None: missing"
    )
    kept_sha256: str | None = None
    scratch: str | None = Field(
        description="the dead run's scratch folder when exactly one was found (its worktree is "
        "archived on recovery); None: not found, no worktree is saved"
    )
    started_at_estimate: str = Field(
        description="the oldest modification time of the unit's session logs (the marker's own "
        "start time is lost): the recorded elapsed time counts from it"
    )
