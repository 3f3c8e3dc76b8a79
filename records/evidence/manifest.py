"""`manifest.json`: the files a unit's evidence must hold, each with its SHA-256, listed by the
writer that wrote them, when it wrote them.

Two of them per unit, one per writer:
- `units/<unit>/manifest.json` (`part` session): written by the runner (`harness/unit.py`) just
  before session.json, so session.json's `evidence_files` names it: the session's events, trace,
  gateway log, diff, worktree archive, PROGRESS.md and the agent's stderr, those present;
- `units/<unit>/evaluation/manifest.json` (`part` evaluation): written by the unit's evaluation
  (`evaluator/unit_evaluation.py`) after result.json: the result, its screenshots and video, with
  the digest of the evaluator that wrote them (it moves to `history/` with its evaluation).

Scoring verifies them (`records/manifest.py`): a listed file missing or not hashing the same makes
the unit "evidence missing" with the file named. Schema 1.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from records.base import Record, Root

ManifestPart = Literal["session", "evaluation"]


class ManifestFile(Record):
    path: str = Field(description="relative to the manifest's folder, e.g. 'screenshots/a.png'")
    sha256: str
    bytes: int = Field(ge=0)


class EvidenceManifest(Root):
    schema_version: int = 1
    unit: str
    part: ManifestPart
    evaluator_sha256: str | None = Field(
        default=None,
        description="part evaluation: records.layout.evaluator_sha256() of the evaluator that "
        "wrote the result (scoring compares it with the digest the round froze)",
    )
    files: list[ManifestFile]
