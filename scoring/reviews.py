"""Review ingest and aggregation of the two manual dimensions.

Sheets: one per reviewer in `evidence/<round>/reviews/`, `<reviewer>.csv` (header exactly
`code,visual,code_quality,notes`) or `<reviewer>.json` (a list of objects with those keys). The
reviewer id is the file name without its suffix. Scores are plain numbers (`15`, `15.5`); `visual`
0-20, `code_quality` 0-10; an empty cell (JSON null) means "not reviewed in that dimension"; a row
with both empty is skipped. Every code must be a known candidate code, at most once per sheet.
All problems of all sheets are reported together, each naming file, row and field.

Aggregation per code and dimension, reviews ordered by reviewer id:
- none: `no_reviews`, points 0, provisional;
- one: `awaiting_second_review`, the single score shown, provisional;
- two: if they differ by more than the limit (visual 4, code 3) `awaiting_third_review`: the
  average is shown but provisional until a third sheet scores the code; else the average, final;
- three or more: the median of all, final.
"""

from __future__ import annotations

import csv
import json
import re
import statistics
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from records.evidence.scoring import ManualScore, Review, ReviewerScore
from records.io import RecordError
from records.rubric import REVIEW_RANGES, THIRD_REVIEW_GAP

SHEET_HEADER = ("code", "visual", "code_quality", "notes")
RANGES = REVIEW_RANGES
REVIEWER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
NUMBER = re.compile(r"^\d+(\.\d+)?$")









def _number(value: Any, field: str, where: str, errors: list[str], text_ok: bool) -> float | None:
    """A score from a CSV cell (`text_ok`) or a JSON value (numbers or null only)."""
    if value is None or (text_ok and isinstance(value, str) and not value.strip()):
        return None
    allowed = (int, float, str) if text_ok else (int, float)
    if isinstance(value, bool) or not isinstance(value, allowed):
        errors.append(f"{where}: field {field}: {value!r} is not a number")
        return None
    text = value.strip() if isinstance(value, str) else repr(value)
    if isinstance(value, str) and not NUMBER.match(text):
        errors.append(f"{where}: field {field}: {value!r} is not a number (write e.g. 15 or 15.5)")
        return None
    number = float(text)
    if not 0 <= number <= RANGES[field]:
        errors.append(f"{where}: field {field}: {text} is out of range 0-{RANGES[field]:g}")
        return None
    return number


def _rows(path: Path, errors: list[str]) -> list[tuple[int, dict[str, Any]]]:
    """(row number, raw row); CSV rows count from 2 (the header is row 1), JSON items from 1."""
    if path.suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            errors.append(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})")
            return []
        if not isinstance(data, list):
            errors.append(f"{path}: expected a JSON list of {{{', '.join(SHEET_HEADER)}}} objects")
            return []
        rows = []
        for number, item in enumerate(data, start=1):
            if not isinstance(item, dict):
                errors.append(f"{path}: item {number}: expected an object")
                continue
            extra = sorted(set(item) - set(SHEET_HEADER))
            if extra or "code" not in item:
                problem = f"unknown keys {extra}" if extra else "missing key 'code'"
                errors.append(
                    f"{path}: item {number}: {problem}; keys are {', '.join(SHEET_HEADER)}"
                )
                continue
            rows.append((number, item))
        return rows
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None or tuple(h.strip() for h in header) != SHEET_HEADER:
            errors.append(
                f"{path}: row 1: header must be exactly {','.join(SHEET_HEADER)}, got {header}"
            )
            return []
        rows = []
        for number, values in enumerate(reader, start=2):
            if not any(v.strip() for v in values):
                continue
            if len(values) > len(SHEET_HEADER):  # unquoted commas in notes
                errors.append(
                    f"{path}: row {number}: {len(values)} columns; quote notes containing commas"
                )
                continue
            rows.append((number, dict(zip(SHEET_HEADER, values, strict=False))))
        return rows


def read_sheet(path: Path, known_codes: set[str], errors: list[str]) -> list[Review]:
    reviewer = path.stem
    if not REVIEWER_ID.match(reviewer):
        errors.append(f"{path}: file name: reviewer id {reviewer!r} must be letters, digits, . _ -")
        return []
    label = "item" if path.suffix == ".json" else "row"
    reviews: list[Review] = []
    seen: dict[str, int] = {}
    for number, row in _rows(path, errors):
        where = f"{path}: {label} {number}"
        code = str(row.get("code") or "").strip()
        if code not in known_codes:
            hint = f" (did you mean {code.upper()}?)" if code.upper() in known_codes else ""
            errors.append(f"{where}: field code: unknown candidate code {code!r}{hint}")
            continue
        if code in seen:
            errors.append(f"{where}: field code: {code} already scored in {label} {seen[code]}")
            continue
        seen[code] = number
        text_ok = path.suffix == ".csv"
        visual = _number(row.get("visual"), "visual", where, errors, text_ok)
        quality = _number(row.get("code_quality"), "code_quality", where, errors, text_ok)
        notes = row.get("notes") or ""
        if not isinstance(notes, str):
            errors.append(f"{where}: field notes: must be text")
            continue
        if visual is None and quality is None:
            continue
        reviews.append(
            Review(
                reviewer=reviewer,
                code=code,
                visual=visual,
                code_quality=quality,
                notes=notes,
                source=f"reviews/{path.name}:{number}",
            )
        )
    return reviews


def read_reviews(reviews_dir: Path, known_codes: Iterable[str]) -> list[Review]:
    """Validate and read every sheet; raise one `RecordError` listing every problem."""
    if not reviews_dir.is_dir():
        return []
    codes = set(known_codes)
    errors: list[str] = []
    reviews: list[Review] = []
    owners: dict[str, Path] = {}
    for path in sorted(reviews_dir.iterdir()):
        if path.name.startswith(".") or path.suffix not in (".csv", ".json") or not path.is_file():
            continue
        if path.stem in owners:
            errors.append(
                f"{path}: reviewer {path.stem!r} already has a sheet ({owners[path.stem].name})"
            )
            continue
        owners[path.stem] = path
        reviews += read_sheet(path, codes, errors)
    if errors:
        raise RecordError("invalid review sheets:\n  " + "\n  ".join(errors))
    return reviews


def aggregate(
    reviews: list[Review], code: str, dimension: Literal["visual", "code_quality"]
) -> ManualScore:
    """Aggregate one code's scores in one dimension (rule in the module docstring)."""
    scores = sorted(
        (
            ReviewerScore(reviewer=r.reviewer, score=value, source=r.source)
            for r in reviews
            if r.code == code and (value := getattr(r, dimension)) is not None
        ),
        key=lambda s: s.reviewer,
    )
    result = ManualScore(dimension=dimension, max_points=RANGES[dimension], scores=scores)
    values = [s.score for s in scores]
    limit = THIRD_REVIEW_GAP[dimension]
    if not values:
        result.reason = "no reviews yet: 0 shown, provisional"
        return result
    if len(values) == 1:
        result.points, result.status = values[0], "awaiting_second_review"
        result.reason = f"one review ({values[0]:g}); a second is required: provisional"
        return result
    result.gap = round(abs(values[0] - values[1]), 6)
    result.points = round(statistics.median(values), 6)
    if len(values) == 2 and result.gap > limit:
        result.status = "awaiting_third_review"
        result.reason = (
            f"first two differ by {result.gap:g} (> {limit:g}): awaiting third review; "
            f"average {result.points:g} shown, provisional"
        )
        return result
    result.status = "complete"
    how = "average of two" if len(values) == 2 else f"median of {len(values)}"
    result.reason = f"{how}: {', '.join(f'{v:g}' for v in values)} → {result.points:g}"
    return result
