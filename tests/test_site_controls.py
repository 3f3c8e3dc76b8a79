"""A demo or rehearsal round that sets a fixed control otherwise discloses it on its pages: the
banner on every page, the plain-text label of the evidence viewers, and the rounds page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from publish.banner import round_banner, round_label, task_title
from publish.render import environment
from publish.rounds import RoundSummary
from publish.sources import RoundEvidence
from records import inputs
from records.fixed_controls import SUMMARY
from records.hashing import file_sha256
from records.inputs import load_cohort, load_round
from records.layout import BENCHMARK_DIR, round_paths

DIFFERENCES = (
    "agent step ceiling: 20 (methodology: 40)",
    "wall-clock ceiling: 10 min (methodology: 30 min)",
    "adapter probes required: 1 (methodology: 3)",
)


def demo_evidence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, changed: bool) -> RoundEvidence:
    """The demo round's settings (20 steps, 10 minutes, 1 probe when `changed`), nothing run."""
    data = json.loads((BENCHMARK_DIR / "rounds" / "demo.json").read_text())
    if changed:
        data["ceilings"].update(steps=20, wall_clock_minutes=10)
        data["probes"] = 1
    data.update(round_id="quick-demo", cohort=str(BENCHMARK_DIR / data["cohort"]))
    rounds = tmp_path / "rounds"
    rounds.mkdir()
    (rounds / "quick-demo.json").write_text(json.dumps(data))
    monkeypatch.setattr(inputs, "rounds_dir", lambda: rounds)
    settings = load_round("quick-demo")
    return RoundEvidence(
        round_id="quick-demo", paths=round_paths("quick-demo", tmp_path / "evidence"),
        settings=settings, cohort=load_cohort(settings.cohort_path), round_record=None,
        calibration=None, calibration_result=None, controls=None, controls_current=False,
        preflight={}, order=None,
        leaderboard=None,
    )  # fmt: skip


def rounds_page(evidence: RoundEvidence) -> str:
    summary = RoundSummary(
        evidence.round_id, evidence.settings, None, None, True, evidence.paths.leaderboard
    )
    template = environment().get_template("rounds.md.j2")
    return template.render(rounds=[summary], unit_pages=[], model_pages=set(), short={},
                           dimensions=[])  # fmt: skip


def test_every_difference_from_the_fixed_controls_is_on_the_rounds_pages(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    evidence = demo_evidence(monkeypatch, tmp_path, changed=True)
    banner, label, page = round_banner(evidence, []), round_label(evidence), rounds_page(evidence)
    for difference in DIFFERENCES:
        assert difference in banner and difference in label and difference in page
    assert "Differs from the methodology&#x27;s fixed controls" in banner
    assert "Differs from the methodology's fixed controls" in label


def test_a_round_that_keeps_the_fixed_controls_says_so_and_lists_none(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    evidence = demo_evidence(monkeypatch, tmp_path, changed=False)
    assert "Differs" not in round_banner(evidence, []) and "Differs" not in round_label(evidence)
    page = rounds_page(evidence)
    assert f"the methodology's: {SUMMARY}" in page and "differ from" not in page


def test_the_task_is_named_only_while_its_prompt_is_the_frozen_one(tmp_path: Path) -> None:
    """The standing line names the task by the prompt's first heading only when the prompt file
    still has the bytes the round froze; otherwise by its hashes alone."""
    prompt = tmp_path / "task-prompt.md"
    prompt.write_text("# Atlas Rooms: finish the venue-hire website\n\nBuild it.\n")
    frozen = file_sha256(prompt)
    assert task_title(frozen, prompt) == "Atlas Rooms: finish the venue-hire website"
    prompt.write_text("# Atlas Rooms, version two\n")
    assert task_title(frozen, prompt) is None
