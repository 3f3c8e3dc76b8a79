"""Review ingest: validation with precise errors, medians, and the third-review rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from records.evidence.scoring import Review
from records.io import RecordError
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
            '[{"code": "C-AAAA", "visual": "9", "code_quality": 1}]',
            "item 1: field visual: '9' is not a number",
        ),
        (
            "a.json",
            '[{"code": "C-AAAA", "visual": true, "code_quality": 1}]',
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
