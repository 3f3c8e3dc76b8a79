"""Round 0 → Round 1: the next cohort is exactly the final leaderboard's advancers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.advance import AdvanceRefused, advance, main
from records.evidence.gateway import Tokens
from records.evidence.scoring import Advancement, Leaderboard, LeaderboardRow
from records.hashing import file_sha256
from records.inputs import load_cohort, load_round
from records.io import RecordError, read_record, write_record
from records.layout import BENCHMARK_DIR, round_paths

SOURCE = load_cohort(load_round("round-0").cohort_path)


def row(key: str, code: str, total: float, advanced: bool, projected: bool) -> LeaderboardRow:
    candidate = SOURCE.by_key(key)
    return LeaderboardRow(
        unit=f"{key}-r1", candidate_code=code, model_key=key, route=candidate.route,
        display_name=candidate.display_name, repetition=1, status="ranked", total=total,
        eligible=True, advancement=Advancement(advanced=advanced, projected=projected, reason="r"),
        elapsed_seconds=60.0, cost_usd=1.0, tokens=Tokens(), stop_status="completed",
        exit_code=0, validity="valid", failure_class="none", identity_verdict="consistent",
    )  # fmt: skip


def write_board(evidence: Path, final: bool) -> tuple[Path, list[str]]:
    keys = [c.key for c in SOURCE.candidates][:7]
    advancing = keys[:6]  # the sixth within three points of fifth
    rows = [
        row(k, f"C-{i:04d}", 90.0 - i, k in advancing and final, k in advancing)
        for i, k in enumerate(keys)
    ]
    codes = [r.candidate_code for r in rows if r.advancement.projected and r.candidate_code]
    board = Leaderboard(
        round_id="round-0", provisional=not final,
        standing="final" if final else "provisional",
        standing_reason="" if final else "reviews missing for 2 of 7 gate-eligible units",
        fifth_total=86.0, advancing=codes if final else [], advancing_projected=codes, units=rows,
    )  # fmt: skip
    path = round_paths("round-0", evidence).leaderboard
    write_record(path, board)
    return path, advancing


def test_round_1_cohort_is_exactly_round_0s_final_advancers(tmp_path: Path) -> None:
    board, advancing = write_board(tmp_path / "evidence", final=True)
    out = tmp_path / "round-1-cohort.json"
    cohort = advance("round-0", "round-1", evidence_dir=tmp_path / "evidence", out=out)
    written = load_cohort(out)
    assert written == cohort and written.schema_version == 3
    assert [c.key for c in written.candidates] == advancing
    # frozen slugs and policies copied unchanged from the source cohort
    assert written.candidates == [SOURCE.by_key(k) for k in advancing]
    provenance = written.advanced_from
    assert provenance is not None
    assert provenance.round_id == "round-0" and provenance.standing == "final"
    assert provenance.leaderboard_sha256 == file_sha256(board)
    assert provenance.source_cohort_sha256 == file_sha256(load_round("round-0").cohort_path)
    assert not provenance.allow_provisional
    assert (provenance.tag is None) == (provenance.tag_commit is None)
    # advancing again from a re-scored board with the same advancers leaves the file as it is
    # (a frozen round holds its hash); a different set is refused
    written_bytes = out.read_bytes()
    board.write_text(board.read_text().replace('"standing_reason": ""', '"standing_reason": " "'))
    assert advance("round-0", "round-1", evidence_dir=tmp_path / "evidence", out=out) == written
    assert out.read_bytes() == written_bytes
    write_board(tmp_path / "evidence", final=True)
    data = out.read_text().replace(f'"key": "{advancing[0]}"', '"key": "renamed"')
    out.write_text(data)
    with pytest.raises(AdvanceRefused, match="never changed"):
        advance("round-0", "round-1", evidence_dir=tmp_path / "evidence", out=out)


def test_a_provisional_round_0_is_refused_unless_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evidence = tmp_path / "evidence"
    _, advancing = write_board(evidence, final=False)
    out = tmp_path / "round-1-cohort.json"
    with pytest.raises(AdvanceRefused, match="provisional .*--allow-provisional"):
        advance("round-0", "round-1", evidence_dir=evidence, out=out)
    assert not out.exists()
    assert main(["round-0", "--to", "round-1", "--evidence", str(evidence)]) == 2
    assert "advance refused" in capsys.readouterr().err
    cohort = advance("round-0", "round-1", allow_provisional=True, evidence_dir=evidence, out=out)
    assert [c.key for c in cohort.candidates] == advancing
    assert cohort.advanced_from is not None and cohort.advanced_from.allow_provisional
    assert cohort.advanced_from.standing == "provisional"


def test_round_1_settings_and_the_missing_cohort_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    zero, one = load_round("round-0"), load_round("round-1", require_cohort=False)
    assert one.repetitions == 3 and one.advances_from == "round-0"
    assert one.ceilings == zero.ceilings and one.agent == zero.agent
    assert (one.probes, one.node_version, one.kind) == (zero.probes, zero.node_version, zero.kind)
    (tmp_path / "rounds").mkdir()
    shutil.copy(BENCHMARK_DIR / "rounds" / "round-1.json", tmp_path / "rounds")
    monkeypatch.setattr("records.inputs.BENCHMARK_DIR", tmp_path)
    with pytest.raises(RecordError, match=r"run python -m harness.advance round-0 --to round-1"):
        load_round("round-1")


def test_a_sealed_board_names_units_and_still_advances_exactly_them(tmp_path: Path) -> None:
    """A sealed board masks codes into unit ids (scoring/sealing.py); advance reads either."""
    evidence = tmp_path / "evidence"
    path, advancing = write_board(evidence, final=True)
    board = read_record(path, Leaderboard)
    for r in board.units:
        r.candidate_code = None
    board.advancing = [f"{k}-r1" for k in advancing]
    write_record(path, board)
    cohort = advance("round-0", "round-1", evidence_dir=evidence, out=tmp_path / "c.json")
    assert [c.key for c in cohort.candidates] == advancing


def test_the_agents_round_is_refused_until_round_1_has_a_champion_cohort(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The intervention round on the champion cohort (benchmark/rounds/round-2-agents.json): a
    real round of OpenCode (the baseline, the fixed controls kept), Claude Code, Codex CLI, Gemini
    CLI and GitHub Copilot CLI on the models advancing from Round 1; refused until Round 1's model
    leaderboard advances them."""
    agents = load_round("round-2-agents", require_cohort=False)
    assert agents.kind == "real" and agents.advances_from == "round-1"
    assert [a.name for a in agents.agents_run] == [
        "opencode", "claude-code", "codex", "gemini-cli", "copilot"]  # fmt: skip
    assert agents.agent == load_round("round-0").agent and not agents.control_differences
    with pytest.raises(RecordError, match=r"run python -m harness.advance round-1 --to round-2"):
        load_round("round-2-agents")
    with pytest.raises(RecordError, match=r"round-1-cohort.json does not exist yet"):
        advance("round-1", "round-2-agents", evidence_dir=tmp_path, out=tmp_path / "c.json")


def test_the_method_round_is_refused_until_round_1_has_a_champion_cohort(tmp_path: Path) -> None:
    """The method intervention on the champion cohort (benchmark/rounds/round-2-method.json): a
    real round of OpenCode in each method arm (none, placebo, tracer-bullets, openspec,
    spec-kit), the fixed controls
    kept; refused until Round 1's model leaderboard advances its models."""
    method = load_round("round-2-method", require_cohort=False)
    assert method.kind == "real" and method.advances_from == "round-1"
    assert method.factor == "method"
    assert method.arm_ids == ["none", "placebo", "tracer-bullets", "openspec", "spec-kit"]
    assert method.agent == load_round("round-0").agent and not method.control_differences
    with pytest.raises(RecordError, match=r"run python -m harness.advance round-1 --to round-2"):
        load_round("round-2-method")
    with pytest.raises(RecordError, match=r"round-1-cohort.json does not exist yet"):
        advance("round-1", "round-2-method", evidence_dir=tmp_path, out=tmp_path / "c.json")
