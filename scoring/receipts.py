"""Receiving review sheets: each sheet and each review is receipted when first validated.

    receive_reviews(paths, known_codes) -> list[Review]   (each with its receipt batches)
    receipt_problems(paths) -> [sheet gone or changed]     (the board is provisional while any)

Every scoring run reads the sheets strictly (scoring/reviews.py). Each sheet that validates gets a
sheet receipt for its content (sha256) and a review receipt for every (code, dimension) it scores
for the first time, in one new batch per run, recorded atomically in `review-receipts.json`
(records/evidence/review_receipts.py) before any error is raised: a good sheet's receipt never
waits for another reviewer's bad one. The file only grows; a review keeps its first receipt when
its sheet changes (a sheet content other than the reviewer's last receipted one, an earlier one
included, gets a new sheet receipt). A sheet the receipts list must still be there, hashing as its
last receipt: one that is gone is named on the board, whose standing stays provisional. Reviews
come back with `received` set, so the third-review gap compares the first two reviews received
(scoring/reviews.py), not the alphabetically first two reviewers.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Literal

from records.evidence.review_receipts import ReviewReceipt, ReviewReceipts, SheetReceipt
from records.evidence.scoring import Review, ReviewSheetProblem
from records.hashing import file_sha256
from records.io import read_record, write_record
from records.layout import RoundPaths
from scoring.reviews import raise_sheet_errors, read_sheets, sheet_files

DIMENSIONS: tuple[Literal["visual", "code_quality"], ...] = ("visual", "code_quality")


def load_receipts(paths: RoundPaths) -> ReviewReceipts:
    """The round's receipts (an unreadable file raises `RecordError`: never silently restarted)."""
    if not paths.review_receipts.exists():
        return ReviewReceipts(round_id=paths.round_id)
    return read_record(paths.review_receipts, ReviewReceipts)


def receive_reviews(
    paths: RoundPaths, known_codes: Iterable[str], now: str | None = None
) -> list[Review]:
    """Validate every sheet, receipt what is new, and return the reviews in receipt order terms.

    Raises `RecordError` listing every problem of every bad sheet (after receipting the others)."""
    valid, errors = read_sheets(paths.reviews_dir, known_codes)
    receipts = load_receipts(paths)
    batch = receipts.last_batch + 1
    stamp = now or datetime.now(UTC).isoformat(timespec="seconds")
    latest = {reviewer: r.sha256 for reviewer, r in receipts.latest_sheets().items()}
    new_sheets: list[SheetReceipt] = []
    new_reviews: list[ReviewReceipt] = []
    for path, reviews in valid.items():
        sha = file_sha256(path)
        if latest.get(path.stem) != sha:  # new, changed, or back to an earlier content
            file = f"{paths.reviews_dir.name}/{path.name}"
            new_sheets.append(
                SheetReceipt(
                    reviewer=path.stem, file=file, sha256=sha, batch=batch, received_at=stamp
                )
            )
        for review in reviews:
            for dimension in DIMENSIONS:
                if getattr(review, dimension) is None:
                    continue
                if receipts.batch_of(review.reviewer, review.code, dimension) is None:
                    new_reviews.append(
                        ReviewReceipt(
                            reviewer=review.reviewer, code=review.code, dimension=dimension,
                            batch=batch, received_at=stamp, sheet_sha256=sha,
                        )
                    )  # fmt: skip
    if new_sheets or new_reviews:
        receipts = receipts.model_copy(
            update={
                "sheets": [*receipts.sheets, *new_sheets],
                "reviews": [*receipts.reviews, *new_reviews],
            }
        )
        write_record(paths.review_receipts, receipts)
    raise_sheet_errors(errors)
    return [
        review.model_copy(update={"received": _batches(receipts, review)})
        for reviews in valid.values()
        for review in reviews
    ]


def receipt_problems(paths: RoundPaths) -> list[ReviewSheetProblem]:
    """Each reviewer's last receipted sheet that is gone or no longer hashes as receipted (after
    `receive_reviews`, only a sheet that is gone or no longer validates): its reviews are not
    counted, so the standing cannot be final."""
    receipts = load_receipts(paths)
    current = {path.stem: path for path in sheet_files(paths.reviews_dir)[0]}
    problems = []
    for reviewer, receipt in receipts.latest_sheets().items():
        path = current.get(reviewer)
        when = f"receipted in batch {receipt.batch} ({receipt.received_at})"
        if path is None:
            problems.append(
                ReviewSheetProblem(
                    file=receipt.file,
                    problem=f"{when}, now gone: its reviews are not counted; restore it",
                )
            )
        elif (sha := file_sha256(path)) != receipt.sha256:
            problems.append(
                ReviewSheetProblem(
                    file=f"{paths.reviews_dir.name}/{path.name}",
                    problem=f"SHA-256 {sha} differs from {receipt.sha256} {when}",
                )
            )
    return problems


def unrecognised_review_files(paths: RoundPaths) -> list[ReviewSheetProblem]:
    """Each entry of the reviews folder that is no sheet (`sheet_files`): named, never read."""
    return [
        ReviewSheetProblem(
            file=f"{paths.reviews_dir.name}/{path.name}",
            problem="not a review sheet (a sheet is <reviewer>.csv or <reviewer>.json): not read",
        )
        for path in sheet_files(paths.reviews_dir)[1]
    ]


def _batches(receipts: ReviewReceipts, review: Review) -> dict[str, int]:
    found = {d: receipts.batch_of(review.reviewer, review.code, d) for d in DIMENSIONS}
    return {d: b for d, b in found.items() if b is not None and getattr(review, d) is not None}
