"""Scoring trusts only what the frozen round allows (issue 49): faults injected into copies of a
real round.

Each test copies the golden round's pristine evidence (the quick demo round, built once by the
README's own command: `tests/demo_build.py`), injects one fault with plain file operations (or,
where the fault is a judge's own mistake, with the evaluator's own manifest writer), scores the
copy with the real scoring stage (`scoring.score_round`) and reads the board: the faulted unit
gets the methodology's answer with the file or reason named, and every other unit keeps the total
and rank the intact round gives it. The intact round is scored once as the baseline.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from demo_build import DemoBuild

from harness.replacement import create_replacement
from publish.render import render_docs
from publish.sources import load_round_evidence
from records.evidence.evaluation import EvaluationResult
from records.evidence.manifest import EvidenceManifest
from records.evidence.review_receipts import ReviewReceipts
from records.evidence.scoring import Leaderboard, LeaderboardRow
from records.evidence.session import SessionRecord
from records.io import read_record, write_record
from records.manifest import write_evaluation_manifest
from records.round import Round
from scoring import score_round

pytestmark = [pytest.mark.slow, pytest.mark.opencode, pytest.mark.browser]

ROUND = "demo"


def copy_round(demo_round: DemoBuild, folder: Path) -> Round:
    shutil.copytree(demo_round.pristine, folder)
    return Round.load(ROUND, folder)


@pytest.fixture(scope="module")
def baseline(demo_round: DemoBuild, tmp_path_factory: pytest.TempPathFactory) -> Leaderboard:
    """The intact round, scored by today's scoring: final, every unit checked by its manifests."""
    board = score_round(copy_round(demo_round, tmp_path_factory.mktemp("intact") / "evidence"))
    assert board.standing == "final", board.standing_reason
    assert len(ranked(board)) >= 2
    assert board.units_outside_order == [] and board.review_sheets_missing == []
    assert {r.evidence_check for r in board.units} == {"manifest"}
    return board


@pytest.fixture
def rnd(demo_round: DemoBuild, tmp_path: Path) -> Round:
    """A fresh copy of the golden round to inject one fault into."""
    return copy_round(demo_round, tmp_path / "evidence")


def ranked(board: Leaderboard) -> list[LeaderboardRow]:
    return sorted((r for r in board.units if r.status == "ranked"), key=lambda r: r.rank or 0)


def row(board: Leaderboard, unit: str) -> LeaderboardRow:
    return next(r for r in board.units if r.unit == unit)


def top(baseline: Leaderboard) -> str:
    return ranked(baseline)[0].unit


def others_unchanged(board: Leaderboard, baseline: Leaderboard, faulted: str) -> None:
    """Every other unit keeps its status, total and order; one bad unit moves nothing else."""
    before = [(r.unit, r.status, r.total) for r in ranked(baseline) if r.unit != faulted]
    after = [(r.unit, r.status, r.total) for r in ranked(board) if r.unit != faulted]
    assert after == before
    assert [r.unit for r in board.units if r.unit != faulted] == [
        r.unit for r in baseline.units if r.unit != faulted
    ]


def evidence_missing(board: Leaderboard, unit: str, file: str) -> LeaderboardRow:
    found = row(board, unit)
    assert (found.status, found.evidence_missing) == ("invalid", [file]), found.status_reasons
    assert (
        found.status_reasons[0].startswith("required evidence ")
        and file in (found.status_reasons[0])
    )
    assert found.total is None and found.rank is None and not found.advancement.projected
    return found


# --- a result is validated against its task before it is counted ---------------------------


def with_failed_check(baseline: Leaderboard, rnd: Round) -> tuple[str, str]:
    """A scored unit and one check it failed (the demo's cast has such units)."""
    for found in baseline.units:
        if found.status not in ("ranked", "gate_failed"):
            continue
        result = read_record(rnd.unit(found.unit).result, EvaluationResult)
        failed = [c.id for c in result.checks if not c.passed]
        if failed:
            return found.unit, failed[0]
    raise AssertionError("the golden round has no scored unit with a failed check")


def extra_check(data: dict[str, Any], _: str) -> None:
    data["checks"].append({**data["checks"][0], "id": "bonus-check", "points": 5, "max_points": 5,
                           "passed": True, "executed": True, "diagnostics": []})  # fmt: skip


def duplicated_check(data: dict[str, Any], _: str) -> None:
    passed = next(c for c in data["checks"] if c["passed"] and c["dimension"] == "functional")
    data["checks"].append(dict(passed))


def points_over_maximum(data: dict[str, Any], _: str) -> None:
    passed = next(c for c in data["checks"] if c["passed"] and c["dimension"] == "functional")
    passed["points"] = passed["max_points"] + 10


def renamed_failed_check(data: dict[str, Any], failed: str) -> None:
    next(c for c in data["checks"] if c["id"] == failed)["id"] = f"{failed}-v2"


def dropped_failed_check(data: dict[str, Any], failed: str) -> None:
    data["checks"] = [c for c in data["checks"] if c["id"] != failed]


RESULT_FAULTS: dict[str, tuple[Callable[[dict[str, Any], str], None], str]] = {
    "extra check id": (extra_check, "checks the task does not have: bonus-check"),
    "duplicated check": (duplicated_check, "check ids listed more than once: "),
    "points over a check's maximum": (points_over_maximum, "points above its maximum"),
    "renamed failed check": (renamed_failed_check, "task checks missing from the result: "),
    "dropped failed check": (dropped_failed_check, "task checks missing from the result: "),
}


def rewrite_result(
    rnd: Round, unit: str, change: Callable[[dict[str, Any]], None], *, by_the_judge: bool
) -> None:
    """Change `unit`'s result.json; `by_the_judge`: as an evaluator that wrote it so would have,
    its manifest written by the evaluation's own writer with the judge's digest (else the file
    alone changed after the evaluation)."""
    paths = rnd.unit(unit)
    data = json.loads(paths.result.read_text())
    change(data)
    paths.result.write_text(json.dumps(data, indent=2))
    if by_the_judge:
        judge = read_record(paths.evaluation_files.manifest, EvidenceManifest).evaluator_sha256
        assert judge is not None
        write_evaluation_manifest(paths, read_record(paths.result, EvaluationResult), judge)


@pytest.mark.parametrize("fault", list(RESULT_FAULTS))
def test_a_result_that_is_not_the_tasks_is_an_evaluation_failure_never_a_larger_total(
    rnd: Round, baseline: Leaderboard, fault: str
) -> None:
    """Injected: result.json of a scored unit changed as a faulty judge would write it (its
    evaluation manifest rewritten to match). Old boards counted it: an extra check gave 61/60
    automated and five points more, a duplicated one or points over a maximum more than the
    dimension holds; a renamed or dropped failed check passed unseen."""
    change, reason = RESULT_FAULTS[fault]
    if fault in ("renamed failed check", "dropped failed check"):
        unit, failed = with_failed_check(baseline, rnd)
    else:
        unit, failed = top(baseline), ""
    rewrite_result(rnd, unit, lambda data: change(data, failed), by_the_judge=True)
    board = score_round(rnd)
    found = row(board, unit)
    assert found.status == "evaluation_failed", (found.status, found.total)
    assert found.total is None and found.rank is None and found.automated_score is None
    assert found.status_reasons[0].startswith(f"units/{unit}/evaluation/result.json: not a result")
    assert reason in found.status_reasons[0]
    assert board.standing == "provisional" and f"evaluation failed for 1 unit ({unit})" in (
        board.standing_reason
    )
    others_unchanged(board, baseline, unit)


def test_a_result_that_is_not_the_tasks_is_replaceable(rnd: Round, baseline: Leaderboard) -> None:
    """The replacement command reads the same rule: such a unit gets its one documented
    replacement, which then holds the model's place (pending until it runs)."""
    unit = top(baseline)
    rewrite_result(rnd, unit, lambda data: extra_check(data, ""), by_the_judge=True)
    record = create_replacement(ROUND, unit, "the result has a check the task does not have",
                                evidence_dir=rnd.evidence_dir)  # fmt: skip
    assert record.failure_class == "evaluator"
    board = score_round(rnd)
    found = row(board, unit)
    assert (found.status, found.own_status) == ("superseded", "evaluation_failed")
    assert "1 documented replacement unit not run yet" in board.standing_reason


def test_a_result_judged_by_another_evaluator_than_the_frozen_one_is_not_counted(
    rnd: Round, baseline: Leaderboard
) -> None:
    """Injected: the evaluation's manifest names an evaluator digest other than round.json's."""
    unit = top(baseline)
    paths = rnd.unit(unit)
    result = read_record(paths.result, EvaluationResult)
    write_evaluation_manifest(paths, result, "0" * 64)
    found = row(score_round(rnd), unit)
    assert found.status == "evaluation_failed"
    assert "judged by evaluator 000000000000, the round froze " in found.status_reasons[0]


def test_a_result_changed_after_its_evaluation_is_evidence_altered(
    rnd: Round, baseline: Leaderboard
) -> None:
    """Injected: five points added to a check of result.json by hand (the manifest untouched)."""
    unit = top(baseline)
    rewrite_result(rnd, unit, lambda data: extra_check(data, ""), by_the_judge=False)
    board = score_round(rnd)
    found = evidence_missing(board, unit, f"units/{unit}/evaluation/result.json")
    assert found.status_reasons[0].startswith(
        f"required evidence altered: units/{unit}/evaluation/result.json: SHA-256 "
    )
    others_unchanged(board, baseline, unit)


# --- the frozen order is the only source of units ----------------------------------------------


@pytest.mark.parametrize("folder", ["second repetition", "replacement without replacement.json"])
def test_a_unit_folder_outside_the_frozen_order_is_named_and_never_ranked(
    rnd: Round, baseline: Leaderboard, folder: str
) -> None:
    """Injected: a ranked unit's folder copied as `<model>-r2` (a one-repetition round) or as
    `<unit>-x1` with no replacement.json. Old boards ranked the copy beside the original and
    both advanced."""
    unit = top(baseline)
    name = unit.removesuffix("-r1") + "-r2" if folder == "second repetition" else f"{unit}-x1"
    shutil.copytree(rnd.unit(unit).root, rnd.unit(name).root)
    record = read_record(rnd.unit(name).session, SessionRecord)
    write_record(rnd.unit(name).session, record.model_copy(update={"unit": name}))
    board = score_round(rnd)
    assert name not in {r.unit for r in board.units}
    [outside] = board.units_outside_order
    assert (outside.unit, outside.source) == (name, f"units/{name}/")
    assert outside.reason.startswith("not in the frozen order (order.json)")
    assert f"units/{name}/replacement.json missing" in outside.reason
    assert row(board, unit).status == "ranked" and row(board, unit).superseded_by is None
    others_unchanged(board, baseline, "")
    assert board.standing == baseline.standing and board.advancing == baseline.advancing


# --- evidence completeness is checked per unit ------------------------------------------------


def cut_mid_line(path: Path) -> None:
    """Truncate `path` in the middle of a line (as a full disk or a killed copy leaves it)."""
    data = path.read_bytes()
    cut = data.rindex(b"\n", 0, len(data) // 2) + 40
    assert data[cut - 1 : cut] != b"\n"
    path.write_bytes(data[:cut])


def first_screenshot(rnd: Round, unit: str) -> str:
    result = read_record(rnd.unit(unit).result, EvaluationResult)
    return f"units/{unit}/evaluation/{result.screenshots[0].path}"


@pytest.mark.parametrize(
    "fault",
    ["video deleted", "screenshot deleted", "trace.json cut mid-line", "events.jsonl cut mid-line",
     "session manifest deleted", "evaluation manifest deleted"],
)  # fmt: skip
def test_a_missing_or_altered_file_makes_that_unit_evidence_missing(
    rnd: Round, baseline: Leaderboard, fault: str
) -> None:
    """Old boards ranked a unit without its video or screenshots unflagged, stopped scoring the
    whole round on a trace.json cut mid-line, and never noticed an events.jsonl cut mid-line."""
    unit = top(baseline)
    paths = rnd.unit(unit)
    files = {
        "video deleted": f"units/{unit}/evaluation/video.webm",
        "screenshot deleted": first_screenshot(rnd, unit),
        "trace.json cut mid-line": f"units/{unit}/trace.json",
        "events.jsonl cut mid-line": f"units/{unit}/events.jsonl",
        "session manifest deleted": f"units/{unit}/manifest.json",
        "evaluation manifest deleted": f"units/{unit}/evaluation/manifest.json",
    }
    target = rnd.paths.root / files[fault]
    if "cut mid-line" in fault:
        cut_mid_line(target)
    else:
        target.unlink()
    board = score_round(rnd)
    found = evidence_missing(board, unit, files[fault])
    if fault == "trace.json cut mid-line":
        assert "(unreadable: not valid JSON" in found.status_reasons[0]
    if fault == "events.jsonl cut mid-line":
        assert f"required evidence altered: {files[fault]}: SHA-256 " in found.status_reasons[0]
    assert paths.session.exists()
    others_unchanged(board, baseline, unit)


def as_before_manifests(rnd: Round, unit: str) -> None:
    """The unit's evidence as the runner wrote it before manifests: none, and session.json's
    evidence_files without one."""
    paths = rnd.unit(unit)
    paths.manifest.unlink()
    paths.evaluation_files.manifest.unlink()
    record = read_record(paths.session, SessionRecord)
    files = [f for f in record.evidence_files if f != "manifest.json"]
    write_record(paths.session, record.model_copy(update={"evidence_files": files}))


def test_evidence_written_before_manifests_still_scores_checked_by_the_files_present(
    rnd: Round, baseline: Leaderboard
) -> None:
    unit = top(baseline)
    as_before_manifests(rnd, unit)
    board = score_round(rnd)
    found = row(board, unit)
    assert (found.status, found.total, found.evidence_check) == (
        "ranked", row(baseline, unit).total, "files_present")  # fmt: skip
    others_unchanged(board, baseline, "")


@pytest.mark.parametrize("fault", ["events.jsonl cut mid-line", "video deleted"])
def test_evidence_written_before_manifests_is_still_checked(
    rnd: Round, baseline: Leaderboard, fault: str
) -> None:
    """Without a manifest, events.jsonl cut mid-line shows as more lines that are not JSON than
    trace.json counted when it was read from them; a file result.json names must exist."""
    unit = top(baseline)
    as_before_manifests(rnd, unit)
    if fault == "video deleted":
        file = f"units/{unit}/evaluation/video.webm"
        (rnd.paths.root / file).unlink()
        evidence_missing(score_round(rnd), unit, file)
        return
    file = f"units/{unit}/events.jsonl"
    cut_mid_line(rnd.paths.root / file)
    found = evidence_missing(score_round(rnd), unit, file)
    assert (
        "(truncated or altered: 1 lines are not JSON, trace.json counted 0"
        in (found.status_reasons[0])
    )


# --- reviews by receipt -----------------------------------------------------------------------


def receipted_sheets(rnd: Round) -> list[Path]:
    receipts = read_record(rnd.paths.review_receipts, ReviewReceipts)
    sheets = [rnd.paths.root / r.file for r in receipts.latest_sheets().values()]
    assert sheets and all(s.is_file() for s in sheets)
    return sheets


def test_a_receipted_sheet_that_disappears_makes_the_standing_provisional(
    rnd: Round, baseline: Leaderboard
) -> None:
    """Injected: a fourth reviewer's sheet (a copy of the first's) arrives and is receipted, the
    board stays final; then it is deleted. Old boards stayed final with other totals and no word
    of it (the receipts still listed the sheet)."""
    fourth = rnd.paths.reviews_dir / "demo-d.csv"
    shutil.copyfile(receipted_sheets(rnd)[0], fourth)
    assert score_round(rnd).standing == "final"
    fourth.unlink()
    board = score_round(rnd)
    assert board.standing == "provisional" and board.advancing == []
    assert "receipted review sheet gone or changed (reviews/demo-d.csv)" in board.standing_reason
    [gone] = board.review_sheets_missing
    assert gone.file == "reviews/demo-d.csv"
    assert "now gone: its reviews are not counted" in gone.problem
    assert [(r.unit, r.total) for r in ranked(board)] == [
        (r.unit, r.total) for r in ranked(baseline)
    ]  # the totals are the three sheets' again, provisional until it is restored


def test_sheet_discovery_is_case_insensitive(rnd: Round, baseline: Leaderboard) -> None:
    """Injected: every sheet saved as `.CSV`. Old boards ignored them without a message."""
    for sheet in receipted_sheets(rnd):
        sheet.rename(sheet.with_suffix(sheet.suffix.upper()))
    board = score_round(rnd)
    assert (board.standing, board.review_sheets_missing) == ("final", [])
    assert [(r.unit, r.total) for r in ranked(board)] == [
        (r.unit, r.total) for r in ranked(baseline)
    ]


def test_an_unrecognised_file_in_the_reviews_folder_is_named(
    rnd: Round, baseline: Leaderboard
) -> None:
    (rnd.paths.reviews_dir / "carol.txt").write_text("C-XXXX,18,9,\n")
    board = score_round(rnd)
    [unread] = board.review_files_unrecognised
    assert unread.file == "reviews/carol.txt" and "not a review sheet" in unread.problem
    assert board.standing == baseline.standing


# --- the board's page names what it did not count ---------------------------------------------


def test_the_boards_page_names_what_was_not_counted_and_renders_without_the_lost_media(
    rnd: Round, baseline: Leaderboard, tmp_path: Path
) -> None:
    """The site renders from the faulted round (a stray unit folder, a file in reviews/ that is
    no sheet, a ranked unit's video deleted): the leaderboard page names the first two, the unit
    is listed as evidence missing with its page built from what is left."""
    unit = top(baseline)
    shutil.copytree(rnd.unit(unit).root, rnd.unit(f"{unit}-x1").root)
    (rnd.paths.reviews_dir / "carol.txt").write_text("C-XXXX,18,9,\n")
    rnd.unit(unit).evaluation_files.video.unlink()
    score_round(rnd)
    docs = tmp_path / "docs"
    docs.mkdir()
    render_docs(load_round_evidence(rnd), docs)
    page = (docs / "leaderboard.md").read_text()
    assert "## Not counted: files the frozen round does not allow" in page
    assert f"<code>units/{unit}-x1/</code>" in page and "<code>reviews/carol.txt</code>" in page
    assert f"units/{unit}/evaluation/video.webm" in page  # the evidence-missing badge names it
    assert (docs / "units" / f"{unit}.md").is_file()
    anchors = re.findall(r'id="([^"]+)"', page) + re.findall(r"\{ #([\w-]+) \}", page)
    assert sorted(anchors) == sorted(set(anchors)), "an anchor named twice on the board's page"
