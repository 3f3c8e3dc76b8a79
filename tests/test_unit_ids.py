"""Unit ids are built and parsed in one place (`records.unit_ids`)."""

from __future__ import annotations

import pytest

from records.unit_ids import UnitId, parse_unit, unit_id


def test_ids_round_trip_with_repetitions_and_replacements() -> None:
    for key, rep, replacement, text in [
        ("gpt-5-r1", 1, 0, "gpt-5-r1-r1"),  # a model key may itself end in -r<digits>
        ("claude-opus", 3, 0, "claude-opus-r3"),
        ("claude-opus", 2, 1, "claude-opus-r2-x1"),
    ]:
        assert unit_id(key, rep, replacement) == text
        parsed = UnitId.parse(text)
        assert (parsed.model_key, parsed.repetition, parsed.replacement) == (key, rep, replacement)
    assert UnitId.parse("m-r2-x1").original == "m-r2" and UnitId.parse("m-r2").original == "m-r2"


def test_a_folder_that_is_not_a_unit_id_is_named() -> None:
    with pytest.raises(ValueError, match="'notes' is not a unit id"):
        UnitId.parse("notes")
    assert parse_unit("m-rx") is None and parse_unit("m-r1-x") is None
