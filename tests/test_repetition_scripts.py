"""A simulated round may vary a model's behaviour by repetition (`repetition_scripts`)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from gateway.simulator import Simulator
from harness.session.upstream import repetition_variations
from records.inputs import RoundSettings, load_round
from records.io import RecordError, read_record
from records.layout import BENCHMARK_DIR
from records.simulator_scripts import load_script

ROUND_FILE = BENCHMARK_DIR / "rounds" / "demo-round-1.json"
MODELS = BENCHMARK_DIR / "demo" / "models"


def test_demo_round_1_varies_two_models_by_repetition() -> None:
    settings = load_round("demo-round-1", require_cohort=False)
    assert settings.repetitions == 3 and settings.max_parallel_sessions == 4
    assert repetition_variations(settings, 1) == {}
    assert repetition_variations(settings, 2) == {"one-pass": "demo/models/partial-builder.json"}
    assert repetition_variations(settings, 3) == {
        "one-pass": "demo/models/strong-builder.json",
        "ellipsis-builder": "demo/models/strong-builder.json",
    }
    assert repetition_variations(settings, None) == {}


def test_a_repetition_outside_the_round_or_a_paid_round_is_refused(tmp_path: Path) -> None:
    data = json.loads(ROUND_FILE.read_text())
    data["repetition_scripts"]["one-pass"]["4"] = "demo/models/idle.json"
    path = tmp_path / "demo-round-1.json"
    path.write_text(json.dumps(data))
    with pytest.raises(RecordError, match=r"repetition_scripts\['one-pass'\]: repetitions \[4\]"):
        read_record(path, RoundSettings)
    paid = json.loads(ROUND_FILE.read_text())
    paid.update(gateway={"kind": "openrouter", "base_url": "https://openrouter.ai/api/v1"})
    paid.update(kind="real", requires_api_key=True)
    path.write_text(json.dumps(paid))
    with pytest.raises(RecordError, match="repetition_scripts needs the simulator gateway"):
        read_record(path, RoundSettings)


def test_the_varied_repetition_keeps_the_route_and_changes_the_behaviour(
    tmp_path: Path,
) -> None:
    """With a variation the one-pass route answers with the partial builder's session; its
    catalogue entry, identity and usage stay the one-pass model's; other routes are untouched."""
    demo = json.loads((BENCHMARK_DIR / "showcase-cohort.json").read_text())
    keep = [c for c in demo["candidates"] if c["key"] in ("one-pass", "strong-builder")]
    cohort = tmp_path / "cohort.json"
    cohort.write_text(json.dumps({**demo, "cohort_id": "varied", "candidates": keep}))
    one_pass = load_script(MODELS / "one-pass.json")
    partial = load_script(MODELS / "partial-builder.json")
    strong = load_script(MODELS / "strong-builder.json")

    plain = Simulator.from_cohort(cohort)
    assert plain.models[one_pass.catalogue.id] == one_pass

    varied = Simulator.from_cohort(cohort, {"one-pass": "demo/models/partial-builder.json"})
    served = varied.models[one_pass.catalogue.id]
    assert served.session == partial.session != one_pass.session
    assert served.catalogue == one_pass.catalogue and served.identity == one_pass.identity
    assert served.usage == one_pass.usage
    assert varied.models[strong.catalogue.id] == strong
    with varied:  # the route is served under its own id and canonical slug
        listed = httpx.get(f"{varied.base_url}/models", timeout=10).json()["data"]
    assert one_pass.catalogue.id in {m["id"] for m in listed}

    with pytest.raises(RecordError, match="no candidate nobody to vary"):
        Simulator.from_cohort(cohort, {"nobody": "demo/models/idle.json"})
