"""Review ingest: validation with precise errors, medians, and the third-review rule."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest

from records.evidence.review_receipts import ReviewReceipts
from records.evidence.scoring import Review
from records.io import RecordError, read_record
from records.layout import RoundPaths, round_paths
from scoring.receipts import receive_reviews
from scoring.reviews import aggregate, read_reviews

CODES = {"C-AAAA", "C-BBBB"}


def review(
    reviewer: str, visual: float | None, quality: float | None, code: str = "C-AAAA"
) -> Review:
    return Review(
        reviewer=reviewer,
        code=code,
        visual=visual,
        code_quality=quality,
        source=f"reviews/{reviewer}.csv:2",
    )


@pytest.mark.parametrize(
    ("scores", "points", "status"),
    [
        ([15, 11], 13, "complete"),  # visual gap 4: no third review
        ([15, 10], 12.5, "awaiting_third_review"),  # visual gap 5
        ([15, 10, 11], 11, "complete"),  # median of three
        ([15], 15, "awaiting_second_review"),
        ([], 0, "no_reviews"),
        ([14.5, 10.5], 12.5, "complete"),  # 4.0 exactly
    ],
)
def test_visual_aggregation(scores: list[float], points: float, status: str) -> None:
    reviews = [review(f"r{i}", s, None) for i, s in enumerate(scores)]
    result = aggregate(reviews, "C-AAAA", "visual")
    assert (result.points, result.status) == (points, status)
    assert result.provisional == (status != "complete")


@pytest.mark.parametrize(
    ("scores", "points", "status"),
    [([8, 5], 6.5, "complete"), ([8, 4], 6, "awaiting_third_review"), ([8, 4, 7], 7, "complete")],
)
def test_code_aggregation(scores: list[float], points: float, status: str) -> None:
    reviews = [review(f"r{i}", None, s) for i, s in enumerate(scores)]
    result = aggregate(reviews, "C-AAAA", "code_quality")
    assert (result.points, result.status) == (points, status)


def write(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / "reviews"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text)
    return folder


def test_csv_and_json_sheets_are_read(tmp_path: Path) -> None:
    write(
        tmp_path,
        "alice.csv",
        'code,visual,code_quality,notes\nC-AAAA,15,8,"tidy, clear"\nC-BBBB,,,\n',
    )
    folder = write(
        tmp_path,
        "bob.json",
        json.dumps([{"code": "C-AAAA", "visual": 12.5, "code_quality": 7, "notes": ""}]),
    )
    got = read_reviews(folder, CODES)
    assert [(r.reviewer, r.code, r.visual, r.code_quality) for r in got] == [
        ("alice", "C-AAAA", 15, 8),
        ("bob", "C-AAAA", 12.5, 7),
    ]
    assert got[0].notes == "tidy, clear" and got[0].source == "reviews/alice.csv:2"


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("a.csv", "code,visual,notes\nC-AAAA,1,\n", "a.csv: row 1: header must be exactly"),
        ("a.csv", "code,visual,code_quality,notes\nC-ZZZZ,1,1,\n", "row 2: field code: unknown"),
        ("a.csv", "code,visual,code_quality,notes\nc-aaaa,1,1,\n", "did you mean C-AAAA?"),
        (
            "a.csv",
            "code,visual,code_quality,notes\nC-AAAA,21,1,\n",
            "row 2: field visual: 21 is out of range 0-20",
        ),
        (
            "a.csv",
            "code,visual,code_quality,notes\nC-AAAA,1,10.5,\n",
            "row 2: field code_quality: 10.5 is out of range 0-10",
        ),
        (
            "a.csv",
            "code,visual,code_quality,notes\nC-AAAA,good,1,\n",
            "row 2: field visual: 'good' is not a number",
        ),
        (
            "a.csv",
            "code,visual,code_quality,notes\nC-AAAA,1,1,\nC-AAAA,2,2,\n",
            "row 3: field code: C-AAAA already scored in row 2",
        ),
        (
            "a.json",
            '[{"code": "C-AAAA", "visual": "9", "code_quality": 1, "notes": ""}]',
            "item 1: field visual: '9' is not a number",
        ),
        (
            "a.json",
            '[{"code": "C-AAAA", "visual": true, "code_quality": 1, "notes": null}]',
            "item 1: field visual: True is not a number",
        ),
        ("a.json", '{"code": "C-AAAA"}', "expected a JSON list"),
        ("a.json", '[{"code": "C-AAAA", "score": 1}]', "item 1: unknown keys ['score']"),
        ("bad name!.csv", "code,visual,code_quality,notes\n", "reviewer id 'bad name!'"),
    ],
)
def test_invalid_sheets_name_file_row_and_field(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    folder = write(tmp_path, name, text)
    with pytest.raises(RecordError) as caught:
        read_reviews(folder, CODES)
    assert message in str(caught.value)
    assert name in str(caught.value)


def test_one_sheet_per_reviewer(tmp_path: Path) -> None:
    write(tmp_path, "alice.csv", "code,visual,code_quality,notes\n")
    folder = write(tmp_path, "alice.json", "[]")
    with pytest.raises(RecordError, match="reviewer 'alice' already has a sheet"):
        read_reviews(folder, CODES)


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    folder = write(tmp_path, "a.csv", "code,visual,code_quality,notes\nC-ZZZZ,1,1,\nC-AAAA,99,1,\n")
    with pytest.raises(RecordError) as caught:
        read_reviews(folder, CODES)
    assert "row 2" in str(caught.value) and "row 3" in str(caught.value)


FOUR = "code,visual,code_quality,notes\n"
GOOD_ROWS = "C-AAAA,15,8,fine\nC-BBBB,12,7,ok\n"


def sheet_bytes(text: str, encoding: str) -> bytes:
    if encoding == "utf-8-bom":
        return codecs.BOM_UTF8 + text.encode()
    return text.encode(encoding)  # "utf-16" writes its byte-order mark


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-bom", "utf-16"])
def test_utf8_with_or_without_bom_and_utf16_with_bom_are_read(
    tmp_path: Path, encoding: str
) -> None:
    folder = tmp_path / "reviews"
    folder.mkdir()
    (folder / "alice.csv").write_bytes(sheet_bytes(FOUR + "C-AAAA,15,8,café, quoted\n", encoding))
    with pytest.raises(RecordError, match="row 2: field notes: 5 columns"):
        read_reviews(folder, CODES)
    (folder / "alice.csv").write_bytes(sheet_bytes(FOUR + 'C-AAAA,15,8,"café, ok"\n', encoding))
    [review] = read_reviews(folder, CODES)
    assert (review.visual, review.code_quality, review.notes) == (15, 8, "café, ok")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            (FOUR + "C-AAAA,15,8,caf\xe9\n").encode("latin-1"),
            "alice.csv: line 2: encoding: byte 0xe9 at offset 46 is not UTF-8",
        ),
        ((FOUR + GOOD_ROWS).encode("utf-16-le"), "alice.csv: line 1: encoding: NUL bytes"),
        (codecs.BOM_UTF32_LE + (FOUR).encode("utf-32-le"), "alice.csv: encoding: UTF-32"),
    ],
)
def test_other_encodings_are_refused_naming_the_file_and_line(
    tmp_path: Path, data: bytes, message: str
) -> None:
    folder = tmp_path / "reviews"
    folder.mkdir()
    (folder / "alice.csv").write_bytes(data)
    with pytest.raises(RecordError) as caught:  # not a bare UnicodeDecodeError
        read_reviews(folder, CODES)
    assert message in str(caught.value) and str(folder / "alice.csv") in str(caught.value)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (  # the quote never closes: it would swallow every later row into one notes cell
            'C-AAAA,15,8,"tidy\nC-BBBB,12,7,ok\n',
            "row 2 (line 2): field notes: a quote opened here is never closed",
        ),
        (  # a later quote closes it, then text follows: strict mode stops there
            'C-AAAA,15,8,"tidy\nC-BBBB,12,7,"ok"\n',
            "row 2 (line 2): field notes: a stray quote",
        ),
        ('C-AAAA,"15,8,ok\n', "row 2 (line 2): field visual: a quote opened here is never closed"),
        (  # a later lone quote ends the cell cleanly: the swallowed row is still caught
            'C-AAAA,15,8,"tidy\nC-BBBB,12,7,"\n',
            "row 2: field notes: runs on over later lines that look like rows ('C-BBBB,12,7,')",
        ),
        ("C-AAAA,15,8\n", "row 2: field notes: 3 columns, expected 4"),
        ("C-AAAA,15\n", "row 2: field code_quality: 2 columns, expected 4"),
        ("C-BBBB,12,7,ok\nC-AAAA\n", "row 3: field visual: 1 columns, expected 4"),
    ],
)
def test_broken_quotes_and_short_rows_are_errors_not_lost_rows(
    tmp_path: Path, rows: str, message: str
) -> None:
    folder = write(tmp_path, "alice.csv", FOUR + rows)
    with pytest.raises(RecordError) as caught:
        read_reviews(folder, CODES)
    assert message in str(caught.value) and str(folder / "alice.csv") in str(caught.value)


def test_a_quoted_note_may_span_lines_and_cites_the_line_it_starts_on(tmp_path: Path) -> None:
    note = "first\nC-BBBB, which I compared, is weaker"  # names a code, but reads as no row
    folder = write(tmp_path, "alice.csv", FOUR + f'C-AAAA,15,8,"{note}"\nC-BBBB,12,7,\n')
    first, second = read_reviews(folder, CODES)
    assert first.notes == note and first.source == "reviews/alice.csv:2"
    assert second.source == "reviews/alice.csv:4"


def test_a_json_item_must_name_every_column(tmp_path: Path) -> None:
    folder = write(tmp_path, "bob.json", json.dumps([{"code": "C-AAAA", "visual": 12}]))
    with pytest.raises(RecordError, match=r"item 1: missing keys \['code_quality', 'notes'\]"):
        read_reviews(folder, CODES)


def test_a_bad_sheet_stops_scoring_with_every_problem_but_the_good_ones_are_receipted(
    tmp_path: Path,
) -> None:
    paths = round_paths("r", tmp_path)
    paths.reviews_dir.mkdir(parents=True)
    (paths.reviews_dir / "alice.csv").write_text(FOUR + GOOD_ROWS)
    (paths.reviews_dir / "bob.csv").write_text(FOUR + 'C-AAAA,15,8,"tidy\nC-BBBB,12,7,ok\n')
    with pytest.raises(RecordError) as caught:
        receive_reviews(paths, CODES, now="2026-12-01T10:00:00+00:00")
    assert "bob.csv: row 2 (line 2): field notes" in str(caught.value)
    receipts = read_record(paths.review_receipts, ReviewReceipts)
    assert [(s.reviewer, s.batch) for s in receipts.sheets] == [("alice", 1)]
    assert {(r.reviewer, r.code, r.dimension) for r in receipts.reviews} == {
        ("alice", c, d) for c in CODES for d in ("visual", "code_quality")
    }


def sheet(paths: RoundPaths, reviewer: str, visual: float, quality: float) -> None:
    text = FOUR + f"C-AAAA,{visual:g},{quality:g},\n"
    (paths.reviews_dir / f"{reviewer}.csv").write_text(text)


def test_the_gap_is_between_the_first_two_reviews_received_not_the_first_two_ids(
    tmp_path: Path,
) -> None:
    """zoe and yann arrive first (10 and 11: within 4), amy third with 16: the first two received
    agree, so no third review was needed, and the gap shown is theirs (1), not amy's (6 or 5)."""
    paths = round_paths("r", tmp_path)
    paths.reviews_dir.mkdir(parents=True)
    sheet(paths, "zoe", 10, 5)
    receive_reviews(paths, CODES, now="2026-12-01T10:00:00+00:00")
    sheet(paths, "yann", 11, 5)
    receive_reviews(paths, CODES, now="2026-12-02T10:00:00+00:00")
    sheet(paths, "amy", 16, 9)
    reviews = receive_reviews(paths, CODES, now="2026-12-03T10:00:00+00:00")
    visual = aggregate(reviews, "C-AAAA", "visual")
    assert [s.reviewer for s in visual.scores] == ["zoe", "yann", "amy"]
    assert (visual.gap, visual.points, visual.status) == (1, 11, "complete")
    code = aggregate(reviews, "C-AAAA", "code_quality")
    assert (code.gap, code.points, code.status) == (0, 5, "complete")
    # amy's sheet alone and zoe's: the two received differ by 6, a third review is awaited
    (paths.reviews_dir / "yann.csv").unlink()
    two = aggregate(receive_reviews(paths, CODES), "C-AAAA", "visual")
    assert [s.reviewer for s in two.scores] == ["zoe", "amy"]
    assert (two.gap, two.status) == (6, "awaiting_third_review")


def test_a_review_keeps_its_first_receipt_and_the_file_only_grows(tmp_path: Path) -> None:
    paths = round_paths("r", tmp_path)
    paths.reviews_dir.mkdir(parents=True)
    sheet(paths, "zoe", 10, 5)
    receive_reviews(paths, CODES, now="2026-12-01T10:00:00+00:00")
    sheet(paths, "amy", 12, 5)
    receive_reviews(paths, CODES, now="2026-12-02T10:00:00+00:00")
    before = paths.review_receipts.read_bytes()
    receive_reviews(paths, CODES, now="2026-12-03T10:00:00+00:00")  # nothing new: unchanged
    assert paths.review_receipts.read_bytes() == before
    sheet(paths, "zoe", 9, 5)  # zoe corrects her score: still the first received
    reviews = receive_reviews(paths, CODES, now="2026-12-04T10:00:00+00:00")
    receipts = read_record(paths.review_receipts, ReviewReceipts)
    assert [(s.reviewer, s.batch) for s in receipts.sheets] == [("zoe", 1), ("amy", 2), ("zoe", 3)]
    assert receipts.batch_of("zoe", "C-AAAA", "visual") == 1
    assert [s.reviewer for s in aggregate(reviews, "C-AAAA", "visual").scores] == ["zoe", "amy"]


def test_sheets_received_together_are_ordered_by_reviewer_id(tmp_path: Path) -> None:
    paths = round_paths("r", tmp_path)
    paths.reviews_dir.mkdir(parents=True)
    for reviewer, visual in (("zoe", 10), ("amy", 16), ("bob", 11)):
        sheet(paths, reviewer, visual, 5)
    reviews = receive_reviews(paths, CODES, now="2026-12-01T10:00:00+00:00")
    visual = aggregate(reviews, "C-AAAA", "visual")
    assert [s.reviewer for s in visual.scores] == ["amy", "bob", "zoe"] and visual.gap == 5


def test_an_unreadable_receipts_file_stops_scoring(tmp_path: Path) -> None:
    paths = round_paths("r", tmp_path)
    paths.reviews_dir.mkdir(parents=True)
    sheet(paths, "zoe", 10, 5)
    paths.review_receipts.write_text("{")
    with pytest.raises(RecordError, match="review-receipts.json: not valid JSON"):
        receive_reviews(paths, CODES)
    assert paths.review_receipts.read_text() == "{"
