"""Round inputs: malformed cohort and round files fail with the file, the field and the reason."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from records import inputs
from records.inputs import load_cohort, load_round
from records.io import RecordError
from records.layout import BENCHMARK_DIR

COHORT = json.loads((BENCHMARK_DIR / "models.json").read_text())


def write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "models.json"
    path.write_text(json.dumps(data))
    return path


def test_round0_cohort_has_fourteen_candidates_from_fourteen_companies() -> None:
    cohort = load_cohort(BENCHMARK_DIR / "models.json")
    assert len(cohort.candidates) == 14
    assert len({c.company for c in cohort.candidates}) == 14
    for name in (
        "DeepSeek V4 Pro",
        "Qwen3.7-Max",
        "Step 3.7 Flash",
        "Gemini 3.1 Pro Preview",
        "Devstral 2",
        "Nemotron 3 Ultra",
        "Llama 4 Maverick",
    ):
        assert name in {c.display_name for c in cohort.candidates}


def test_substitution_is_recorded() -> None:
    cohort = load_cohort(BENCHMARK_DIR / "models.json")
    subs = [c for c in cohort.candidates if c.substitution]
    assert [(c.display_name, c.substitution.replaces) for c in subs if c.substitution] == [
        ("Llama 4 Maverick", "Muse Spark 1.1")
    ]


def test_cohort_records_no_preflight_outcome() -> None:
    text = (BENCHMARK_DIR / "models.json").read_text().lower()
    for word in ("qualified", "not testable", "passed", "excluded"):
        assert word not in text


def mutated(change: Any) -> dict[str, Any]:
    data = copy.deepcopy(COHORT)
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda d: d["candidates"].append(
                dict(d["candidates"][0], company="Other", route="x/y")
            ),
            "duplicate key 'claude-opus'",
        ),
        (
            lambda d: d["candidates"].append(dict(d["candidates"][1], key="dup", route="x/y")),
            "duplicate company 'OpenAI'",
        ),
        (
            lambda d: d["candidates"][2].update(route="gemini-no-slash"),
            "field candidates.2.route: Value error, 'gemini-no-slash' has no slash",
        ),
        (
            lambda d: d["candidates"][3].update(reasoning="maximum"),
            "field candidates.3.reasoning: Input should be 'high' or 'default'",
        ),
        (
            lambda d: d["candidates"][0].pop("expected_canonical_slug"),
            "field candidates.0.expected_canonical_slug: Field required",
        ),
        (
            lambda d: d["candidates"][0].update(colour="red"),
            "field candidates.0.colour: Extra inputs are not permitted",
        ),
    ],
)
def test_malformed_cohort_names_file_and_field(tmp_path: Path, change: Any, expected: str) -> None:
    path = write(tmp_path, mutated(change))
    with pytest.raises(RecordError) as info:
        load_cohort(path)
    message = str(info.value)
    assert str(path) in message
    assert expected in message


def test_invalid_json_names_line(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    path.write_text('{"cohort_id": "x",\n  "candidates": [,]}')
    with pytest.raises(RecordError, match=r"models.json: not valid JSON \(line 2"):
        load_cohort(path)


def test_rounds_load_and_unknown_round_is_named() -> None:
    real = load_round("round-0")
    assert real.ceilings.steps == 40 and real.ceilings.wall_clock_minutes == 30
    assert real.requires_api_key and real.gateway.kind == "openrouter"
    with pytest.raises(RecordError, match="no such round 'nope'; known rounds: .*round-0"):
        load_round("nope")


FIXED_CONTROL_CHANGES = [
    ({"ceilings": {"steps": 41}}, "agent step ceiling: 41 (methodology: 40)"),
    ({"ceilings": {"wall_clock_minutes": 60}}, "wall-clock ceiling: 60 min (methodology: 30 min)"),
    ({"probes": 1}, "adapter probes required: 1 (methodology: 3)"),
    ({"probes": 2}, "adapter probes required: 2 (methodology: 3)"),
    ({"node_version": "18.20.4"}, "Node.js: 18.20.4 (methodology: 22+)"),
    ({"opencode_version": "1.17.17"}, "agent: opencode 1.17.17 (methodology: opencode 1.17.18)"),
]


def round_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, source: str, change: dict[str, Any]
) -> Path:
    """A copy of benchmark/rounds/<source>.json as round 'changed', with `change` merged in."""
    data = json.loads((BENCHMARK_DIR / "rounds" / f"{source}.json").read_text())
    for key, value in change.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) else value
    data.update(round_id="changed", cohort=str(BENCHMARK_DIR / data["cohort"]))
    data.pop("advances_from", None)
    rounds = tmp_path / "rounds"
    rounds.mkdir(exist_ok=True)
    path = rounds / "changed.json"
    path.write_text(json.dumps(data))
    monkeypatch.setattr(inputs, "rounds_dir", lambda: rounds)
    return path


@pytest.mark.parametrize(("change", "difference"), FIXED_CONTROL_CHANGES)
@pytest.mark.parametrize("real", ["round-0", "round-1"])
def test_a_real_round_must_keep_the_fixed_controls(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    real: str,
    change: dict[str, Any],
    difference: str,
) -> None:
    path = round_file(monkeypatch, tmp_path, real, change)
    with pytest.raises(RecordError) as refused:
        load_round("changed")
    assert str(path) in str(refused.value) and difference in str(refused.value)
    assert "only a demo or rehearsal round may differ" in str(refused.value)


@pytest.mark.parametrize(("change", "difference"), FIXED_CONTROL_CHANGES)
@pytest.mark.parametrize("marked", ["demo", "round-0-rehearsal"])
def test_a_demo_or_rehearsal_round_may_differ_and_lists_each_difference(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    marked: str,
    change: dict[str, Any],
    difference: str,
) -> None:
    round_file(monkeypatch, tmp_path, marked, change)
    settings = load_round("changed")
    assert [str(d) for d in settings.control_differences] == [difference]


def test_every_round_file_loads_and_the_real_ones_keep_the_fixed_controls() -> None:
    kinds = {}
    for path in sorted((BENCHMARK_DIR / "rounds").glob("*.json")):
        settings = load_round(path.stem, require_cohort=False)
        kinds[path.stem] = settings.kind
        assert settings.control_differences == [], path
    assert {"demo", "demo-round-1", "round-0", "round-0-rehearsal"} <= set(kinds)
    assert kinds["round-0"] == kinds["round-1"] == "real"
