"""The demo tools round end to end (scripts/demo-tools's stages, built by `tests/demo_build.py`):
three scripted models with OpenCode in each tools arm (none, placebo, image-model) through the
simulator; every unit evaluated and scored; the arms compared model by model in intervention.json,
in total and in cost; the site's "Tools arms compared" page and the unit page's image calls.

Only Prismwell Maker 1 reads AGENTS.md and, told of `siteos-image`, makes a hero image and shows it
on the home page: with the placebo's command a local placeholder (no gateway call), with the image
model's an image call through the unit's proxy, whose cost is in the unit's cost.
"""

from __future__ import annotations

import hashlib
import io
import tarfile
from pathlib import Path

import pytest
from arm_round_support import arms_page, compared_arms, round_fixtures

from records.evidence.gateway import read_exchanges
from records.evidence.round import RoundRecord
from records.evidence.session import SessionRecord
from records.io import read_record
from records.layout import RoundPaths
from records.unit_ids import UnitId

pytestmark = [pytest.mark.full, pytest.mark.opencode, pytest.mark.browser, pytest.mark.slow]
ROUND = "demo-tools"
ARMS = ["none", "placebo", "image-model"]
MODELS = ["image-maker", "strong-builder", "wide-footer"]
HERO = "public/media/hero.png"
IMAGE_COST = 0.0387  # one image call on the simulator's google/gemini-2.5-flash-image

evidence, paths = round_fixtures(ROUND)


def archive(paths: RoundPaths, unit: str) -> dict[str, bytes]:
    """The unit's final worktree: relative path -> bytes (files only)."""
    with tarfile.open(fileobj=io.BytesIO(paths.unit(unit).archive.read_bytes())) as tar:
        return {
            Path(m.name).relative_to("worktree").as_posix(): tar.extractfile(m).read()  # type: ignore[union-attr]
            for m in tar.getmembers()
            if m.isfile()
        }


def test_every_unit_records_its_arm_and_only_the_maker_uses_the_tool(paths: RoundPaths) -> None:
    frozen = read_record(paths.round_json, RoundRecord)
    assert frozen.factor == "tools" and sorted(frozen.inputs.arms_sha256) == sorted(ARMS)
    units = paths.units_with("session")
    assert sorted(units) == sorted(f"{m}-via-{a}-r1" for m in MODELS for a in ARMS)
    for unit in units:
        session = read_record(paths.unit(unit).session, SessionRecord)
        model, arm = UnitId.parse(unit).model_key, UnitId.parse(unit).agent
        assert session.validity == "valid", unit
        assert session.arm is not None and (session.arm.factor, session.arm.arm) == ("tools", arm)
        assert session.arm.sha256 == session.arm.frozen_sha256 == frozen.inputs.arms_sha256[arm]
        files = archive(paths, unit)
        assert ("AGENTS.md" in files) == (arm != "none"), unit
        assert "AGENTS.md" not in paths.unit(unit).diff.read_text(), unit
        made = model == "image-maker" and arm != "none"
        assert (HERO in files) == made, unit  # the others never use the command
        gateway = session.gateway
        calls = 1 if made and arm == "image-model" else 0
        assert (gateway.image_requests, gateway.images) == (calls, calls), unit
        if made:
            assert HERO in paths.unit(unit).diff.read_text()  # the model's work, in its diff
            assert 'src="/media/hero.png"' in files["src/pages/HomePage.tsx"].decode()


def test_the_image_call_is_recorded_metered_and_in_the_unit_cost(paths: RoundPaths) -> None:
    unit = "image-maker-via-image-model-r1"
    session = read_record(paths.unit(unit).session, SessionRecord)
    (call,) = [x for x in read_exchanges(paths.unit(unit).gateway) if x.kind == "image"]
    hero = archive(paths, unit)[HERO]
    assert (
        call.step is None
        and call.refused is None
        and call.requested_model == ("google/gemini-2.5-flash-image")
    )
    assert call.images[0].bytes == len(hero)
    assert call.images[0].sha256 == hashlib.sha256(hero).hexdigest()  # the file is the image
    assert call.cost_usd == pytest.approx(IMAGE_COST, abs=1e-4)
    assert session.gateway.image_cost_usd == pytest.approx(call.cost_usd)
    exchanges = read_exchanges(paths.unit(unit).gateway)
    chat = sum(x.cost_usd or 0 for x in exchanges if x.kind == "chat")
    assert call.cost_usd is not None
    assert session.cost_usd == pytest.approx(chat + call.cost_usd, abs=1e-6)
    placebo = archive(paths, "image-maker-via-placebo-r1")[HERO]
    assert placebo != hero  # the placebo's is a local placeholder, not the route's image


def test_the_arms_are_compared_in_total_and_in_cost(paths: RoundPaths) -> None:
    found, rows = compared_arms(paths, "tools", ARMS)
    assert [a.files for a in found.arms] == [[], ["AGENTS.md"], ["AGENTS.md"]]
    tools = [a.tool for a in found.arms]
    assert tools[0] == "" and "placeholder" in tools[1] and "gemini-2.5-flash-image" in tools[2]
    placebo, image = found.effects
    assert (placebo.agent, image.agent) == ("placebo", "image-model")
    for effect in (placebo, image):
        by_model = dict(zip(effect.models, effect.differences, strict=True))
        assert by_model["strong-builder"] == 0 and by_model["wide-footer"] == 0
    drawn = dict(zip(image.cost_models, image.cost_differences, strict=True))
    placed = dict(zip(placebo.cost_models, placebo.cost_differences, strict=True))
    maker = [rows["image-maker", a].cost_usd or 0 for a in ARMS]
    assert drawn["image-maker"] == pytest.approx(maker[2] - maker[0], abs=1e-6)
    assert placed["image-maker"] > 0  # two more steps
    # the image model's arm costs the placebo's plus the image (the steps' tokens nearly equal)
    assert drawn["image-maker"] - placed["image-maker"] == pytest.approx(IMAGE_COST, abs=2e-3)
    assert image.mean_cost_difference is not None and image.cost_low is not None


def test_the_site_shows_the_tools_the_hashes_and_the_image_calls(
    evidence: Path, tmp_path: Path
) -> None:
    site, page, found = arms_page(evidence, tmp_path, ROUND, "tools")
    assert "Command: siteos-image: asks google/gemini-2.5-flash-image" in page
    assert "an image model" in page
    unit = next(site.rglob("image-maker-via-image-model-r1.html")).read_text()
    assert "Image calls" in unit and "1 call by the arm" in unit and "image call: 1 image" in unit
    other = next(site.rglob("image-maker-via-none-r1.html")).read_text()
    assert "Image calls" not in other
