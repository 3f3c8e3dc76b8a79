"""The demo starter round end to end (scripts/demo-starter's stages, built by
`tests/demo_build.py`): three scripted models with OpenCode on the plain starter and on the starter
with a Storybook catalogue, through the simulator; every unit evaluated and scored; the arms
compared model by model in intervention.json, in total and in cost; the site's "Starter arms
compared" page.

Only Ferncroft Catalogue 1 lists the components first and reuses the starter's VenueMedia once it
finds the catalogue's stories, so its paired difference is non-zero and every other one is zero in
total; the arm's files (its package.json and lockfile included) are the worktree's starting point,
never the model's diff, and the evaluator judges the site's build, never the catalogue's.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest
from arm_round_support import arms_page, check_paired_difference, compared_arms, round_fixtures

from records.evidence.evaluation import EvaluationResult
from records.evidence.round import RoundRecord
from records.evidence.session import SessionRecord
from records.io import read_record
from records.layout import RoundPaths
from records.unit_ids import UnitId

pytestmark = [pytest.mark.full, pytest.mark.opencode, pytest.mark.browser, pytest.mark.slow]
ROUND = "demo-starter"
ARMS = ["plain", "storybook"]
MODELS = ["catalogue-reader", "strong-builder", "wide-footer"]

evidence, paths = round_fixtures(ROUND)


def test_every_unit_records_its_arm_and_starts_from_the_arms_files(paths: RoundPaths) -> None:
    frozen = read_record(paths.round_json, RoundRecord)
    assert frozen.factor == "starter" and sorted(frozen.inputs.arms_sha256) == ARMS
    units = paths.units_with("session")
    assert sorted(units) == sorted(f"{m}-via-{a}-r1" for m in MODELS for a in ARMS)
    for unit in units:
        session = read_record(paths.unit(unit).session, SessionRecord)
        arm = UnitId.parse(unit).agent
        assert session.validity == "valid" and session.agent.name == "opencode", unit
        assert session.arm is not None and (session.arm.factor, session.arm.arm) == ("starter", arm)
        assert session.arm.sha256 == session.arm.frozen_sha256 == frozen.inputs.arms_sha256[arm]
        diff = paths.unit(unit).diff.read_text()
        with tarfile.open(fileobj=io.BytesIO(paths.unit(unit).archive.read_bytes())) as tar:
            names = {Path(n).relative_to("worktree").as_posix() for n in tar.getnames()[1:]}
            lock = tar.extractfile("worktree/package.json")
            assert lock is not None
            package = lock.read().decode()
        stories = "src/components/VenueMedia.stories.tsx"
        assert (stories in names) == (arm == "storybook"), unit
        assert ('"storybook:build"' in package) == (arm == "storybook"), unit
        # the arm's files (stories, .storybook/, package.json and its lockfile) are the base
        for path in (".stories.tsx", ".storybook/", "package.json", "package-lock.json"):
            assert path not in diff, (unit, path)
        # a catalogue build (catalogue-reader runs one) is in neither the diff nor the archive
        assert "storybook-static" not in diff and not any("storybook-static" in n for n in names)
        result = read_record(paths.unit(unit).result, EvaluationResult)
        assert result.install_ok and result.build_ok, unit  # the arm's lockfile installs offline


def test_the_catalogue_reader_reuses_the_starters_media_only_with_the_catalogue(
    paths: RoundPaths,
) -> None:
    def media(unit: str) -> bool:
        result = read_record(paths.unit(unit).result, EvaluationResult)
        return next(c for c in result.checks if c.id == "media-fallback").passed

    assert media("catalogue-reader-via-storybook-r1")
    assert not media("catalogue-reader-via-plain-r1")
    reader = paths.unit("catalogue-reader-via-storybook-r1").diff.read_text()
    assert "src/components/VenueCard.tsx" not in reader  # the starter's card kept as it was
    plain = paths.unit("catalogue-reader-via-plain-r1").diff.read_text()
    assert "src/components/VenueCard.tsx" in plain and "VenueMedia" in plain
    trace = paths.unit("catalogue-reader-via-storybook-r1").trace.read_text()
    assert "npm run storybook:build" in trace and "Storybook build completed" in trace


def test_the_arms_are_compared_in_total_and_in_cost(paths: RoundPaths) -> None:
    found, rows = compared_arms(paths, "starter", ARMS)
    assert found.arms[0].files == [] and "package-lock.json" in found.arms[1].files
    (storybook,) = found.effects
    assert storybook.agent == "storybook" and storybook.models == MODELS
    by_model = dict(zip(storybook.models, storybook.differences, strict=True))
    assert by_model["catalogue-reader"] > 0
    assert by_model["strong-builder"] == by_model["wide-footer"] == 0
    check_paired_difference(storybook, rows, "catalogue-reader", "plain")


def test_the_site_shows_the_factor_the_arms_their_hashes_and_the_differences(
    evidence: Path, tmp_path: Path
) -> None:
    site, page, found = arms_page(evidence, tmp_path, ROUND, "starter")
    assert "Storybook catalogue − Plain starter" in page
    assert "No placebo arm" in page and "placebo arm has the same shape" not in page
    assert "Ferncroft" in page and "Quillstone" not in page
    assert found.effects[0].low is not None
    index = (site / "index.html").read_text()
    assert "the starter arms compared" in index.lower()
