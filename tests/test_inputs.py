"""Round inputs: malformed cohort and round files fail with the file, the field and the reason."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

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
