"""Review ingest and aggregation of the two manual dimensions.

Sheets: one per reviewer in `evidence/<round>/reviews/`, `<reviewer>.csv` (header exactly
`code,visual,code_quality,notes`) or `<reviewer>.json` (a list of objects with exactly those keys);
the suffix in any case (`alice.CSV`). The reviewer id is the file name without its suffix. Any
other file there is no sheet: it is not read, and the leaderboard names it
(`review_files_unrecognised`), never ignoring it silently. Scores are plain numbers (`15`, `15.5`);
`visual` 0-20, `code_quality` 0-10; an empty cell (JSON null) means "not reviewed in that
dimension"; a row with both empty is skipped. Every code must be a known candidate code, at most
once per sheet.

Strict reading: the bytes must be UTF-8 (a UTF-8 byte-order mark is dropped) or UTF-16 with a
byte-order mark; anything else is refused with the file and line named. CSV is read in strict mode
(a stray or unterminated quote is an error, never a field that swallows later rows) and every row
must have all four columns (a short row is an error, not blank scores). A notes cell that spans
lines beginning with a known code is refused as an unterminated quote too.

All problems of all sheets are reported together, each naming file, row and field, and a bad sheet
stops scoring (`RecordError`): no sheet is scored partially and no row is dropped silently. The
sheets that did validate are still receipted (scoring/receipts.py).

Aggregation per code and dimension, reviews in the order received (receipt batch, then reviewer id
within a batch; reviews without a receipt last, by reviewer id):
- none: `no_reviews`, points 0, provisional;
- one: `awaiting_second_review`, the single score shown, provisional;
- two: if they differ by more than the limit (visual 4, code 3) `awaiting_third_review`: the
  average is shown but provisional until a third sheet scores the code; else the average, final;
- three or more: the median of all, final; the gap shown is still the first two received's.
"""

from __future__ import annotations

import codecs
import csv
import io
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
SAVE_AS = "save the sheet as UTF-8 (or UTF-16 with a byte-order mark)"


def decode_sheet(path: Path, data: bytes, errors: list[str]) -> str | None:
    """The sheet's text: UTF-8 (BOM dropped) or UTF-16 with a BOM; else an error naming the line."""
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        errors.append(f"{path}: encoding: UTF-32 is not accepted; {SAVE_AS}")
        return None
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    else:
        encoding = "utf-8-sig"
        if b"\x00" in data:
            line = data[: data.index(b"\x00")].count(b"\n") + 1
            errors.append(
                f"{path}: line {line}: encoding: NUL bytes (UTF-16 without a byte-order mark?); "
                + SAVE_AS
            )
            return None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        byte = data[exc.start : exc.start + 1].hex()
        name = "UTF-16" if encoding == "utf-16" else "UTF-8"
        errors.append(
            f"{path}: line {line}: encoding: byte 0x{byte} at offset {exc.start} is not {name}; "
            + SAVE_AS
        )
        return None


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


Rows = list[tuple[int, int, dict[str, Any]]]
"""(row or item number, line it starts on (the source cited), raw row)."""


def _json_rows(path: Path, text: str, errors: list[str]) -> Rows:
    try:
        data = json.loads(text)
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
        missing = [k for k in SHEET_HEADER if k not in item]
        if extra or missing:
            problem = f"unknown keys {extra}" if extra else f"missing keys {missing}"
            errors.append(
                f"{path}: item {number}: {problem}; every item has exactly "
                f"{', '.join(SHEET_HEADER)} (null: not reviewed)"
            )
            continue
        rows.append((number, number, item))
    return rows


def _quoted_field(line: str) -> int:
    """Index of the field of `line` whose quoting goes wrong (a stray or unclosed quote)."""
    field, quoted, i = 0, False, 0
    while i < len(line):
        char = line[i]
        if quoted and char == '"':
            if line[i + 1 : i + 2] == '"':
                i += 1
            elif line[i + 1 : i + 2] in (",", ""):
                quoted = False
            else:
                return field
        elif not quoted and char == '"' and (i == 0 or line[i - 1] == ","):
            quoted = True
        elif not quoted and char == ",":
            field += 1
        i += 1
    return field


def _field_name(index: int) -> str:
    return SHEET_HEADER[index] if index < len(SHEET_HEADER) else f"column {index + 1}"


ROW_LIKE = re.compile(r'^\s*"?(?P<code>[^,"]+)"?\s*,\s*(\d+(\.\d+)?)?\s*,\s*(\d+(\.\d+)?)?\s*(,|$)')


def _swallowed(notes: str, codes: set[str]) -> str | None:
    """A later line of a multi-line notes cell that reads like a row of a known code (code, score,
    score): the sign of a quote left open in the notes above it."""
    for line in notes.splitlines()[1:]:
        match = ROW_LIKE.match(line)
        if match and match.group("code").strip() in codes:
            return line.strip()
    return None


def _csv_rows(path: Path, text: str, codes: set[str], errors: list[str]) -> Rows:
    """CSV rows count from 2 (the header is row 1); a quoted notes cell may span lines."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    lines = text.splitlines()
    rows: Rows = []
    number, start = 0, 1
    try:
        for number, values in enumerate(reader, start=1):
            where = f"{path}: row {number}" + (f" (line {start})" if start != number else "")
            first_line, start = start, reader.line_num + 1
            if number == 1:
                if tuple(v.strip() for v in values) != SHEET_HEADER:
                    errors.append(
                        f"{where}: header must be exactly {','.join(SHEET_HEADER)}, got {values}"
                    )
                    return []
                continue
            if not any(v.strip() for v in values):
                continue
            if len(values) != len(SHEET_HEADER):
                field = _field_name(min(len(values), len(SHEET_HEADER) - 1))
                hint = (
                    "quote notes containing commas"
                    if len(values) > len(SHEET_HEADER)
                    else "write every column, leaving a score empty for 'not reviewed'"
                )
                errors.append(
                    f"{where}: field {field}: {len(values)} columns, expected "
                    f"{len(SHEET_HEADER)} ({','.join(SHEET_HEADER)}); {hint}"
                )
                continue
            row = dict(zip(SHEET_HEADER, values, strict=True))
            if (later := _swallowed(row["notes"], codes)) is not None:
                errors.append(
                    f"{where}: field notes: runs on over later lines that look like rows "
                    f"({later!r}): an unterminated quote? Close it; write a quote inside notes "
                    'as ""'
                )
                continue
            rows.append((number, first_line, row))
    except csv.Error as exc:
        row_number = number + 1
        line = lines[start - 1] if 0 < start <= len(lines) else ""
        unclosed = "end of data" in str(exc)
        problem = (
            "a quote opened here is never closed (it would swallow every later row)"
            if unclosed
            else f"a stray quote ({exc})"
        )
        errors.append(
            f"{path}: row {row_number} (line {start}): field "
            f'{_field_name(_quoted_field(line))}: {problem}; quote a whole cell as "..." and '
            'write a quote inside it as ""'
        )
    return rows


def read_sheet(path: Path, known_codes: set[str], errors: list[str]) -> list[Review]:
    """Every review of one sheet; problems are appended to `errors` (file, row and field)."""
    reviewer = path.stem
    if not REVIEWER_ID.match(reviewer):
        errors.append(f"{path}: file name: reviewer id {reviewer!r} must be letters, digits, . _ -")
        return []
    text = decode_sheet(path, path.read_bytes(), errors)
    if text is None:
        return []
    if path.suffix.lower() == ".json":
        label, raw_rows = "item", _json_rows(path, text, errors)
    else:
        label, raw_rows = "row", _csv_rows(path, text, known_codes, errors)
    reviews: list[Review] = []
    seen: dict[str, int] = {}
    for number, line, row in raw_rows:
        where = f"{path}: {label} {number}" + (f" (line {line})" if line != number else "")
        code = str(row.get("code") or "").strip()
        if code not in known_codes:
            hint = f" (did you mean {code.upper()}?)" if code.upper() in known_codes else ""
            errors.append(f"{where}: field code: unknown candidate code {code!r}{hint}")
            continue
        if code in seen:
            errors.append(f"{where}: field code: {code} already scored in {label} {seen[code]}")
            continue
        seen[code] = number
        text_ok = path.suffix.lower() == ".csv"
        visual = _number(row.get("visual"), "visual", where, errors, text_ok)
        quality = _number(row.get("code_quality"), "code_quality", where, errors, text_ok)
        notes = row.get("notes")
        if notes is None and not text_ok:
            notes = ""
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
                source=f"reviews/{path.name}:{line}",
            )
        )
    return reviews


SHEET_SUFFIXES = (".csv", ".json")


def sheet_files(reviews_dir: Path) -> tuple[list[Path], list[Path]]:
    """(the sheets of the reviews folder, every other entry but hidden ones), sorted. A sheet is a
    file whose suffix is .csv or .json in any case (`alice.CSV` is alice's sheet)."""
    if not reviews_dir.is_dir():
        return [], []
    sheets: list[Path] = []
    other: list[Path] = []
    for path in sorted(reviews_dir.iterdir()):
        if path.name.startswith("."):
            continue
        is_sheet = path.is_file() and path.suffix.lower() in SHEET_SUFFIXES
        (sheets if is_sheet else other).append(path)
    return sheets, other


def read_sheets(
    reviews_dir: Path, known_codes: Iterable[str]
) -> tuple[dict[Path, list[Review]], list[str]]:
    """(every sheet that validated -> its reviews, every problem of the others)."""
    codes = set(known_codes)
    errors: list[str] = []
    valid: dict[Path, list[Review]] = {}
    owners: dict[str, Path] = {}
    for path in sheet_files(reviews_dir)[0]:
        if path.stem in owners:
            errors.append(
                f"{path}: reviewer {path.stem!r} already has a sheet ({owners[path.stem].name})"
            )
            continue
        owners[path.stem] = path
        own: list[str] = []
        reviews = read_sheet(path, codes, own)
        if own:
            errors += own
        else:
            valid[path] = reviews
    return valid, errors


def raise_sheet_errors(errors: list[str]) -> None:
    if errors:
        raise RecordError(
            "invalid review sheets (scoring stops until they are fixed; no sheet is scored "
            "partially):\n  " + "\n  ".join(errors)
        )


def read_reviews(reviews_dir: Path, known_codes: Iterable[str]) -> list[Review]:
    """Validate and read every sheet; raise one `RecordError` listing every problem."""
    valid, errors = read_sheets(reviews_dir, known_codes)
    raise_sheet_errors(errors)
    return [review for reviews in valid.values() for review in reviews]


def _receipt_order(
    review: Review, dimension: Literal["visual", "code_quality"]
) -> tuple[bool, int, str]:
    batch = review.received.get(dimension)
    return (batch is None, batch or 0, review.reviewer)


def aggregate(
    reviews: list[Review], code: str, dimension: Literal["visual", "code_quality"]
) -> ManualScore:
    """Aggregate one code's scores in one dimension (rule in the module docstring)."""
    received = sorted(
        (r for r in reviews if r.code == code and getattr(r, dimension) is not None),
        key=lambda r: _receipt_order(r, dimension),
    )
    scores = [
        ReviewerScore(reviewer=r.reviewer, score=getattr(r, dimension), source=r.source)
        for r in received
    ]
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
            f"the first two received differ by {result.gap:g} (> {limit:g}): awaiting third "
            f"review; average {result.points:g} shown, provisional"
        )
        return result
    result.status = "complete"
    how = "average of two" if len(values) == 2 else f"median of {len(values)}"
    result.reason = f"{how}: {', '.join(f'{v:g}' for v in values)} → {result.points:g}"
    return result
