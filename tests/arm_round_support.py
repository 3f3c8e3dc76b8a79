"""What the demo method, starter and tools rounds' end-to-end tests check alike: the arms as
intervention.json compares them (the factor, the baseline, each arm's frozen hash) and the arms
page of the rendered site (each arm's title and hash), the paired difference of the model that
reacts to an arm, and the round built once per test module."""

from __future__ import annotations

from pathlib import Path

import pytest
from demo_build import demo_build
from site_fixture import copy_evidence

from publish.render import render_site
from records.evidence.round import RoundRecord
from records.evidence.scoring import AgentEffect, InterventionBoard, Leaderboard, LeaderboardRow
from records.io import read_record
from records.layout import RoundPaths
from records.round import Round


def compared_arms(
    paths: RoundPaths, factor: str, arms: list[str]
) -> tuple[InterventionBoard, dict[tuple[str, str], LeaderboardRow]]:
    """intervention.json, checked against the round (its factor, baseline first, every arm with
    the hash round.json froze), and the leaderboard's rows by (model, arm)."""
    board = read_record(paths.leaderboard, Leaderboard)
    found = read_record(paths.intervention, InterventionBoard)
    frozen = read_record(paths.round_json, RoundRecord).inputs.arms_sha256
    assert (found.schema_version, found.factor, found.baseline) == (4, factor, arms[0])
    assert found.agents == arms == [a.id for a in found.arms]
    assert {a.id: a.sha256 for a in found.arms} == frozen
    assert {r.agent for r in board.units} == set(arms)
    return found, {(r.model_key, r.agent): r for r in board.units}


def arms_page(
    evidence: Path, tmp_path: Path, round_id: str, factor: str
) -> tuple[Path, str, InterventionBoard]:
    """The built site of a copy of the round, its arms page (titled for the factor, naming each
    arm with its hash, with the cost differences) and intervention.json."""
    copy = copy_evidence(evidence, tmp_path / "evidence")
    site = render_site(Round.load(round_id, copy), tmp_path / "build")
    page = (site / "agents.html").read_text()
    found = read_record(RoundPaths(copy / round_id).intervention, InterventionBoard)
    assert f"{factor.capitalize()} arms compared" in page and f"the <b>{factor}</b>" in page
    assert "In cost:" in page and "95% interval (cost)" in page
    for arm in found.arms:
        assert arm.title in page and arm.sha256 is not None and arm.sha256[:12] in page
    return site, page, found


def round_fixtures(round_id: str) -> tuple[object, object]:
    """The module's `evidence` (the round built once, as its demo command builds it) and `paths`
    (its RoundPaths) fixtures: `evidence, paths = round_fixtures(ROUND)`."""

    @pytest.fixture(scope="module")
    def evidence(tmp_path_factory: pytest.TempPathFactory) -> Path:
        return demo_build(tmp_path_factory, round_id=round_id).pristine

    @pytest.fixture(scope="module")
    def paths(evidence: Path) -> RoundPaths:
        return RoundPaths(evidence / round_id)

    return evidence, paths


def check_paired_difference(
    effect: AgentEffect,
    rows: dict[tuple[str, str], LeaderboardRow],
    model: str,
    baseline: str,
) -> None:
    """The effect's paired difference for `model` is its row in the effect's arm less its row in
    the baseline, in total and in cost (the arm costs it more), and the effect has a mean cost
    difference with its interval."""
    arm, base = rows[model, effect.agent], rows[model, baseline]
    assert arm.total is not None and base.total is not None
    totals = dict(zip(effect.models, effect.differences, strict=True))
    assert totals[model] == pytest.approx(arm.total - base.total)
    costs = dict(zip(effect.cost_models, effect.cost_differences, strict=True))
    spent = (arm.cost_usd or 0) - (base.cost_usd or 0)
    assert costs[model] == pytest.approx(spent, abs=1e-6) and spent > 0
    assert effect.mean_cost_difference is not None and effect.cost_low is not None
