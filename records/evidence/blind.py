"""Blind-review records: the code secret, the code map, the packets' private report, unsealing.

Everything here except `unsealing.json` lives in `evidence/<round>/private/` (records/layout.py):
it links codes to units and must never reach a packet, a bundle or the site before unsealing.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from records.base import Record

CodeScheme = Literal["secret-hmac", "seed-hash"]
SECRET_SCHEME = "C- + 4 chars of HMAC-SHA256(secret, 'siteos-code:<unit>:<attempt>')"
LEGACY_SCHEME = "C- + 4 chars of sha256('siteos-code:<seed>:<unit>:<attempt>')"


class CodeSecret(Record):
    """`private/code-secret.json`: 32 bytes of OS randomness, drawn when codes are first needed."""

    schema_version: int = 1
    round_id: str
    secret_hex: str = Field(pattern=r"^[0-9a-f]{64}$")
    created_at: str
    scheme: str = SECRET_SCHEME


class CodeEntry(Record):
    unit: str
    code: str
    scheme: CodeScheme = Field(
        default="secret-hmac",
        description="seed-hash: drawn by the schema-1 formula from the public seed (recomputable)",
    )

    @property
    def recomputable(self) -> bool:
        return self.scheme == "seed-hash"


class CodesRecord(Record):
    """`private/codes.json`: the code -> unit map (never part of a packet or the sealed site).

    Schema 2: codes come from the private secret. Schema 1 files (`<round>/codes.json`, no
    `schema_version`) load with every entry marked `seed-hash`: anyone can recompute them from the
    round file, so the round is not blind for those units; they are kept (codes are never redrawn)
    and reported as recomputable.
    """

    schema_version: int = 2
    round_id: str
    seed: int | None = Field(default=None, description="schema 1 only: the public round seed")
    scheme: str = SECRET_SCHEME
    migrated_from: str | None = Field(default=None, description="the schema-1 file, if any")
    codes: list[CodeEntry] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, data: Any) -> Any:
        if isinstance(data, dict) and "schema_version" not in data:
            entries = [
                {**e, "scheme": "seed-hash"} if isinstance(e, dict) else e
                for e in data.get("codes", [])
            ]
            data = {**data, "schema_version": 1, "codes": entries}
        return data

    def code_of(self, unit: str) -> str:
        for entry in self.codes:
            if entry.unit == unit:
                return entry.code
        raise KeyError(f"no candidate code for unit {unit!r}")

    def unit_of(self, code: str) -> str:
        for entry in self.codes:
            if entry.code == code:
                return entry.unit
        raise KeyError(f"unknown candidate code {code!r}")

    @property
    def recomputable(self) -> list[CodeEntry]:
        return [e for e in self.codes if e.recomputable]


RedactionSource = Literal["diff", "progress", "file_name"]
PageField = Literal[
    "title", "visible_text", "alt", "aria_label", "title_attribute", "placeholder", "meta"
]
PacketFlag = Literal["text_redacted", "media_shows_identity", "page_text_missing"]


class Redaction(Record):
    """One identity string replaced by the mask in a packet's text."""

    file: str = Field(description="packet-relative file; line 0 means its name")
    line: int
    found: str
    source: RedactionSource


class PageHit(Record):
    """An identity string in the DOM text a screenshot was taken from."""

    screenshot: str = Field(description="packet-relative screenshot")
    url: str
    field: PageField
    found: str


class PacketReportEntry(Record):
    code: str
    unit: str
    flags: list[PacketFlag] = Field(default_factory=list)
    redactions: list[Redaction] = Field(default_factory=list)
    page_hits: list[PageHit] = Field(default_factory=list)
    media_showing_identity: list[str] = Field(
        default_factory=list,
        description="packet files (screenshots, video.webm) the operator must look at and decide",
    )
    media_sha256: str | None = Field(
        default=None, description="the packet's screenshots and video as the packet stage wrote"
    )


class PacketReport(Record):
    """`private/packet-report.json`: what the packet stage redacted and what it flagged."""

    schema_version: int = 1
    round_id: str
    identity_strings: int = Field(description="how many identity strings were searched for")
    packets: list[PacketReportEntry] = Field(default_factory=list)

    @property
    def flagged(self) -> list[PacketReportEntry]:
        return [p for p in self.packets if p.flags]


MediaVerdict = Literal["approved", "redacted"]


class MediaDecision(Record):
    """The operator's decision on a packet whose screenshots or video show an identity."""

    code: str
    decision: MediaVerdict = Field(
        description="approved: looked at, may go to reviewers as it is; redacted: the operator "
        "replaced the flagged media in packets/<code>/ with redacted copies"
    )
    reason: str = Field(min_length=1)
    by: str = Field(min_length=1)
    decided_at: str
    media_sha256: str = Field(
        description="the packet's screenshots and video.webm as decided on: a rebuilt packet "
        "whose media differ is withheld again until a new decision"
    )


class MediaDecisions(Record):
    """`private/media-decisions.json`: every decision, in the order made (the last one counts)."""

    schema_version: int = 1
    round_id: str
    decisions: list[MediaDecision] = Field(default_factory=list)

    def latest(self, code: str) -> MediaDecision | None:
        return next((d for d in reversed(self.decisions) if d.code == code), None)


class Unsealing(Record):
    """`unsealing.json`: the operator revealed the code map before every review was in."""

    schema_version: int = 1
    round_id: str
    reason: str = Field(min_length=1)
    by: str = Field(min_length=1)
    unsealed_at: str
    reviews_complete: bool = Field(description="whether every scored row had its reviews then")


class CodeMap(Record):
    """On leaderboard.json: whether the code -> model map is shown, and why."""

    sealed: bool
    reason: str
    unsealed_by: Literal["reviews_complete", "operator"] | None = None
    unsealing: str | None = Field(default=None, description="'unsealing.json' when the operator")
    recomputable_units: list[str] = Field(
        default_factory=list, description="units whose code was drawn by the public formula"
    )
    note: str = (
        "while sealed, candidate_code is empty, every other field that names candidate codes "
        "names unit ids instead, and per-reviewer scores are withheld"
    )


class DemoReviewRow(Record):
    unit: str
    visual: float | None = None
    code_quality: float | None = None
    notes: str = ""


class DemoReviewSheet(Record):
    """`benchmark/demo/reviews/<reviewer>.json`: a SCRIPTED demo review, keyed by unit because the
    demo's codes are secret and drawn at packet time; `python -m scoring.demo_reviews` turns it into
    `reviews/<reviewer>.csv` through the private map, for demo rounds only. Never a real review."""

    schema_version: int = 1
    scripted: Literal[True] = Field(description="always true: says this is no human review")
    rounds: list[str] = Field(min_length=1, description="the demo rounds it applies to")
    note: str = ""
    rows: list[DemoReviewRow]
