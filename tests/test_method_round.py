"""The demo method round end to end (scripts/demo-method's stages, built by `tests/demo_build.py`):
three scripted models with OpenCode in each method arm (none, placebo, tracer-bullets) through the
simulator; every unit evaluated and scored; the arms compared model by model in
intervention.json, in total and in cost; the site's "Method arms compared" page.

Only Quillstone Reader 2 reads AGENTS.md and changes its work for the tracer-bullets method, so
its paired difference is non-zero there and every other one is zero in total; the arm's files are
the worktree's starting point, never the model's diff.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest
from arm_round_support import arms_page, check_paired_difference, compared_arms, round_fixtures

from records.evidence.round import RoundRecord
from records.evidence.session import SessionRecord
from records.io import read_record
from records.layout import RoundPaths
from records.unit_ids import UnitId

pytestmark = [pytest.mark.full, pytest.mark.opencode, pytest.mark.browser, pytest.mark.slow]
ROUND = "demo-method"
ARMS = ["none", "placebo", "tracer-bullets"]
MODELS = ["method-reader", "strong-builder", "wide-footer"]

evidence, paths = round_fixtures(ROUND)


def test_every_unit_records_its_arm_and_starts_from_the_arms_files(paths: RoundPaths) -> None:
    frozen = read_record(paths.round_json, RoundRecord)
    assert frozen.factor == "method" and sorted(frozen.inputs.arms_sha256) == sorted(ARMS)
    units = paths.units_with("session")
    assert sorted(units) == sorted(f"{m}-via-{a}-r1" for m in MODELS for a in ARMS)
    for unit in units:
        session = read_record(paths.unit(unit).session, SessionRecord)
        arm = UnitId.parse(unit).agent
        assert session.schema_version == 7 and session.validity == "valid", unit
        assert session.agent.name == "opencode"
        assert session.arm is not None and (session.arm.factor, session.arm.arm) == ("method", arm)
        assert session.arm.sha256 == session.arm.frozen_sha256 == frozen.inputs.arms_sha256[arm]
        diff = paths.unit(unit).diff.read_text()
        with tarfile.open(fileobj=io.BytesIO(paths.unit(unit).archive.read_bytes())) as tar:
            names = {Path(n).relative_to("worktree").as_posix() for n in tar.getnames()[1:]}
        assert ("AGENTS.md" in names) == (arm != "none"), unit
        assert "AGENTS.md" not in diff, unit  # the arm's file is the base, not the model's work


def test_the_arms_are_compared_in_total_and_in_cost(paths: RoundPaths) -> None:
    found, rows = compared_arms(paths, "method", ARMS)
    assert [a.files for a in found.arms] == [[], ["AGENTS.md"], ["AGENTS.md"]]
    placebo, tracer = found.effects
    assert (placebo.agent, tracer.agent) == ("placebo", "tracer-bullets")
    assert placebo.models == tracer.models == MODELS
    assert placebo.differences == [0.0, 0.0, 0.0]  # nobody works otherwise for neutral text
    by_model = dict(zip(tracer.models, tracer.differences, strict=True))
    assert by_model["method-reader"] > 0 and by_model["strong-builder"] == 0
    assert by_model["wide-footer"] == 0
    check_paired_difference(tracer, rows, "method-reader", "none")


def test_the_site_shows_the_factor_the_arms_their_hashes_and_the_differences(
    evidence: Path, tmp_path: Path
) -> None:
    site, page, found = arms_page(evidence, tmp_path, ROUND, "method")
    tracer = found.effects[1]
    assert "Tracer bullets and deep modules − No method" in page
    assert tracer.low is not None
    index = (site / "index.html").read_text()
    assert "the method arms compared" in index.lower()
