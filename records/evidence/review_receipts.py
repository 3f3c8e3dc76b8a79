"""`review-receipts.json`: when each reviewer sheet, and each review in it, was received.

A sheet is received when a scoring run first validates it (a file's mtime is not evidence: a copy
or a checkout changes it). Scoring runs that record something new are numbered (`batch`); sheets
first validated in the same run were received together. The file only grows: a changed sheet adds
a sheet receipt, a review keeps its first receipt, nothing is removed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from records.base import Record, Root

Dimension = Literal["visual", "code_quality"]


class SheetReceipt(Record):
    """One content of one reviewer's sheet, the first time a scoring run validated it."""

    reviewer: str
    file: str = Field(description="relative to the round folder, e.g. 'reviews/alice.csv'")
    sha256: str
    batch: int = Field(ge=1)
    received_at: str = Field(description="UTC, ISO 8601, seconds")


class ReviewReceipt(Record):
    """The first time a validated sheet of `reviewer` scored `code` in `dimension`."""

    reviewer: str
    code: str
    dimension: Dimension
    batch: int = Field(ge=1)
    received_at: str
    sheet_sha256: str = Field(description="the sheet content that first held the score")


class ReviewReceipts(Root):
    round_id: str
    sheets: list[SheetReceipt] = Field(default_factory=list)
    reviews: list[ReviewReceipt] = Field(default_factory=list)

    @property
    def last_batch(self) -> int:
        batches = [r.batch for r in self.sheets] + [r.batch for r in self.reviews]
        return max(batches, default=0)

    def latest_sheets(self) -> dict[str, SheetReceipt]:
        """Each reviewer's last receipted sheet content."""
        return {receipt.reviewer: receipt for receipt in self.sheets}

    def batch_of(self, reviewer: str, code: str, dimension: Dimension) -> int | None:
        for receipt in self.reviews:
            if (receipt.reviewer, receipt.code, receipt.dimension) == (reviewer, code, dimension):
                return receipt.batch
        return None
