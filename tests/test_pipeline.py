"""End to end: the quick offline demo round through `doit`, then the staleness rules of the
pipeline.

One real run of the README's own command without setup (real OpenCode sessions against the
simulator, real evaluations in Chromium; `demo_build`) into a scratch evidence folder; the
repository's own evidence/ is never touched. The full showcase round: `tests/test_showcase.py`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from demo_build import DemoBuild
from rule_paths import unexercised

from dodo import PIPELINE
from records.inputs import load_cohort, load_round
from records.layout import REPO_ROOT, round_paths
from records.task import DEFAULT_TASK, load_task

TASK = load_task(DEFAULT_TASK)

pytestmark = [pytest.mark.slow, pytest.mark.opencode, pytest.mark.browser]


def doit(env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "doit", *args],
        cwd=REPO_ROOT,
        env=env,
        text=True,
        capture_output=True,
        timeout=3600,
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"doit {' '.join(args)} failed ({proc.returncode}):\n"
            f"{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}"
        )
    return proc


@pytest.fixture(scope="module")
def demo(demo_round: DemoBuild) -> tuple[dict[str, str], Path]:
    """The demo round as `scripts/demo-round` ran it (the shared build; this file alone changes
    its evidence: doit's state there names its absolute paths)."""
    return demo_round.env, demo_round.evidence


def status(env: dict[str, str]) -> dict[str, str]:
    proc = doit(env, "list", "--all", "--status")
    found = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in {"R", "U", "I"}:
            found[parts[1]] = parts[0]
    return found


def leaderboard(evidence: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(round_paths("demo", evidence).leaderboard.read_text())
    return data


def unit_row(board: dict[str, Any], key: str) -> dict[str, Any]:
    return next(u for u in board["units"] if u["model_key"] == key)


def test_calibration_passed_before_spending(demo: tuple[dict[str, str], Path]) -> None:
    _, evidence = demo
    calibration = json.loads(round_paths("demo", evidence).calibration.read_text())
    assert calibration["passed"] is True
    assert calibration["automated_score"] == 26
    assert calibration["checks_executed"] == 15
    assert calibration["hard_gate_failed"] is True
    assert sorted(calibration["missing_core_journeys"]) == ["detail", "enquiry", "filter"]


def test_every_demo_rule_path_ends_in_its_designed_evidence(
    demo: tuple[dict[str, str], Path],
) -> None:
    _, evidence = demo
    board = leaderboard(evidence)
    strong = unit_row(board, "strong-builder")
    assert strong["status"] == "ranked" and strong["automated_score"] == 60
    assert strong["breakdown"]["verification"]["points"] == 5
    assert unit_row(board, "ellipsis-builder")["status"] == "ranked"
    wide = unit_row(board, "wide-footer")
    assert wide["status"] == "gate_failed" and wide["capped"] is True and wide["total"] == 49
    assert [g["id"] for g in wide["gates_failed"]] == ["horizontal-overflow"]
    assert unit_row(board, "identity-swap")["status"] == "invalid"
    not_testable = {row["model_key"]: row["reason_class"] for row in board["not_testable"]}
    assert not_testable == {"flaky-adapter": "adapter_unstable", "missing-route": "catalogue"}
    assert board["standing"] == "final"
    advancing = {
        unit_row(board, k)["candidate_code"] for k in ("strong-builder", "ellipsis-builder")
    }
    assert set(board["advancing"]) == advancing


def test_every_rule_path_its_cast_names_is_exercised(demo: tuple[dict[str, str], Path]) -> None:
    _, evidence = demo
    cast = {c.key for c in load_cohort(load_round("demo").cohort_path).candidates}
    assert unexercised("demo", evidence, cast=cast) == []


def test_site_shows_every_unit(demo: tuple[dict[str, str], Path]) -> None:
    _, evidence = demo
    site = evidence.parent / "build" / "site"
    index = (site / "index.html").read_text()
    assert "Leaderboard" in index or "leaderboard" in index
    board = leaderboard(evidence)
    pages = " ".join(p.read_text() for p in site.rglob("*.html"))
    for row in board["units"]:
        assert row["unit"] in pages


def test_second_run_is_a_noop(demo: tuple[dict[str, str], Path]) -> None:
    env, _ = demo
    start = time.perf_counter()
    proc = doit(env, *PIPELINE)
    elapsed = time.perf_counter() - start
    executed = [line for line in proc.stdout.splitlines() if line.startswith(". ")]
    assert executed == [], f"tasks ran on a second run: {executed}"
    assert elapsed < 30  # generous for a loaded CI machine; the benchmark script measures it


@pytest.mark.parametrize("alone", ["evaluate", "packets", "score", "site"])
def test_a_later_stage_asked_for_alone_is_a_noop(
    demo: tuple[dict[str, str], Path], alone: str
) -> None:
    """`doit site` (or score, packets, evaluate) alone, as the docs and the site suggest: doit
    reaches the evaluations without creating the session tasks first, and must still succeed."""
    env, _ = demo
    proc = doit(env, alone)
    executed = [line for line in proc.stdout.splitlines() if line.startswith(". ")]
    assert executed == [], f"`doit {alone}` ran tasks on a built round: {executed}"


def test_each_evaluation_follows_its_own_session(demo: tuple[dict[str, str], Path]) -> None:
    """In the real build every unit's result.json is written after its own session record (the
    task_dep holds); whether an evaluation also overlaps later sessions depends on doit's other
    slot being free (the controls may hold it), so tests/test_dodo_stage.py checks the graph."""
    _, evidence = demo
    rpaths = round_paths("demo", evidence)
    order = json.loads(rpaths.order.read_text())["order"]
    evaluated = [u for u in order if rpaths.unit(u).result.exists()]
    assert evaluated
    for unit in evaluated:
        paths = rpaths.unit(unit)
        assert paths.result.stat().st_mtime >= paths.session.stat().st_mtime, unit


def test_evaluator_change_reruns_evaluation_not_sessions(demo: tuple[dict[str, str], Path]) -> None:
    env, _ = demo
    source = REPO_ROOT / "evaluator" / "gates.py"
    original = source.read_bytes()
    try:
        source.write_bytes(original + b"\n# staleness probe\n")
        found = status(env)
    finally:
        source.write_bytes(original)
    sessions = {k: v for k, v in found.items() if k.startswith("unit:")}
    evaluations = {k: v for k, v in found.items() if k.startswith("evaluate:")}
    preflights = {k: v for k, v in found.items() if k.startswith("preflight:")}
    assert sessions and set(sessions.values()) == {"U"}
    assert preflights and set(preflights.values()) == {"U"}
    # every scored unit is evaluated again; the invalid one never was, and still is not
    assert evaluations == {
        f"evaluate:{unit}": "U" if unit == "identity-swap-r1" else "R"
        for unit in (
            "ellipsis-builder-r1",
            "identity-swap-r1",
            "strong-builder-r1",
            "wide-footer-r1",
        )
    }


def test_review_sheet_change_rescores_only(demo: tuple[dict[str, str], Path]) -> None:
    env, evidence = demo
    rpaths = round_paths("demo", evidence)
    codes = json.loads((rpaths.packets_dir / "index.json").read_text())["codes"]
    sheet = rpaths.reviews_dir / "reviewer-a.csv"
    sheet.parent.mkdir(parents=True, exist_ok=True)
    sheet.write_text("code,visual,code_quality,notes\n" + f"{codes[0]},15,7,clean\n")
    try:
        found = status(env)
    finally:
        sheet.unlink()
    assert found["score"] == "R"
    assert found["packets"] == "U"
    assert {v for k, v in found.items() if k.startswith(("evaluate:", "unit:"))} == {"U"}


def test_changed_prompt_inside_a_scored_round_is_refused(demo: tuple[dict[str, str], Path]) -> None:
    env, evidence = demo
    prompt = TASK.prompt
    original = prompt.read_bytes()
    before = round_paths("demo", evidence).round_json.read_bytes()
    try:
        prompt.write_bytes(original + b"\n")
        proc = doit(env, "freeze", check=False)
    finally:
        prompt.write_bytes(original)
    assert proc.returncode != 0
    assert "prompt_sha256" in proc.stdout + proc.stderr
    assert "new round" in proc.stdout + proc.stderr
    assert round_paths("demo", evidence).round_json.read_bytes() == before
    # doit forgets a failed task's state, so the restored prompt freezes again: to the same file.
    again = doit(env, "freeze")
    assert again.returncode == 0, again.stdout + again.stderr
    assert round_paths("demo", evidence).round_json.read_bytes() == before


def test_blind_review_in_the_demo(demo: tuple[dict[str, str], Path]) -> None:
    """Scripted sheets give final totals, one third review and the unsealed map, and every packet
    was built (the signing model's redacted packet: `tests/test_showcase.py`)."""
    _, evidence = demo
    rpaths = round_paths("demo", evidence)
    board = leaderboard(evidence)
    scored = [r for r in board["units"] if r["status"] in ("ranked", "gate_failed")]
    assert scored and not any(r["provisional"] for r in scored)
    assert board["code_map"]["sealed"] is False
    assert board["code_map"]["unsealed_by"] == "reviews_complete"
    third = [r for r in scored if r["agreement"]["visual"]["reviewers"] == 3]
    assert [r["model_key"] for r in third] == ["strong-builder"]
    assert third[0]["agreement"]["visual"]["third_review"] is True
    index = json.loads(rpaths.packets_index.read_text())
    assert sorted(index["codes"]) == sorted(r["candidate_code"] for r in scored)
    site = evidence.parent / "build" / "site"
    for path in site.rglob("*"):
        assert "private" not in path.parts and "code-secret" not in path.name


def test_a_row_exported_by_the_reviewer_page_rescores_only(
    demo: tuple[dict[str, str], Path], tmp_path: Path
) -> None:
    from sandbox.netns import loopback_netns_argv

    env, evidence = demo
    rpaths = round_paths("demo", evidence)
    # Codes are drawn from a private secret, so the index's order differs per build: take a
    # packet with screenshots and a video (a failed build's packet has neither).
    code = next(
        c for c in sorted(json.loads(rpaths.packets_index.read_text())["codes"])
        if any((rpaths.packets_dir / c / "screenshots").glob("*"))
        and any((rpaths.packets_dir / c).glob("*.webm"))
    )  # fmt: skip
    out = tmp_path / "observed.json"
    driver = Path(__file__).with_name("reviewer_page_browser.py")
    packet = rpaths.packets_dir / code
    proc = subprocess.run(
        loopback_netns_argv([sys.executable, str(driver), str(packet), str(out)]),
        capture_output=True, text=True, timeout=300, cwd=REPO_ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(out.read_text())
    assert seen["blocked"] == [] and seen["error"] == ""
    sheet = rpaths.reviews_dir / seen["download_name"]
    sheet.write_text(seen["csv"])
    try:
        ran = doit(env, *PIPELINE)
    finally:
        sheet.unlink()
    executed = [line[3:].strip() for line in ran.stdout.splitlines() if line.startswith(". ")]
    assert executed == ["score", "site"], executed
    row = next(r for r in leaderboard(evidence)["units"] if r["candidate_code"] == code)
    assert "review:rev-x" in [c["name"] for c in row["breakdown"]["visual"]["components"]]
