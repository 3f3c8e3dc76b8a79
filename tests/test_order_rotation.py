"""Round 1's rotated order: each model early, middle and late once across three repetitions."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from harness import order as run_order
from records.evidence.round import OrderRecord
from records.io import read_record, write_json
from records.unit_ids import unit_id


def positions(units: list[str], key: str, repetitions: int) -> list[int]:
    """The 0-based position of `key` within each repetition's block of the run order."""
    n = len(units) // repetitions
    return [units[(r - 1) * n :][:n].index(unit_id(key, r)) for r in range(1, repetitions + 1)]


def covers_thirds(classes: list[set[int]]) -> bool:
    """The three repetitions can be assigned early, middle and late, one each."""
    return any(
        0 in classes[a] and 1 in classes[b] and 2 in classes[c]
        for a, b, c in itertools.permutations(range(3))
    )


@pytest.mark.parametrize("n", range(3, 15))
def test_every_model_runs_early_middle_and_late_once(n: int) -> None:
    keys = [f"model-{i:02d}" for i in range(n)]
    units = run_order.draw(keys, seed=20261215 + n, repetitions=3)
    assert len(units) == 3 * n and len(set(units)) == 3 * n
    base = run_order.base_order(keys, 20261215 + n)
    for r in range(1, 4):  # each repetition is a rotation of the seeded base order
        block = [u.removesuffix(f"-r{r}") for u in units[(r - 1) * n : r * n]]
        by = run_order.shift(r, n, 3)
        assert block == base[by:] + base[:by]
    for key in keys:
        classes = [run_order.position_classes(p, n) for p in positions(units, key, 3)]
        assert covers_thirds(classes), f"n={n}: {key} at {positions(units, key, 3)} misses a third"
        if n % 3 == 0:  # thirds are whole positions: exactly one position per third
            assert sorted(min(c) for c in classes) == [0, 1, 2]
            assert all(len(c) == 1 for c in classes)


def test_position_classes_split_the_run_into_thirds() -> None:
    assert [run_order.position_classes(p, 6) for p in range(6)] == [{0}, {0}, {1}, {1}, {2}, {2}]
    # 4 positions: slot 1 covers [1, 2) which straddles the first third's end at 4/3
    assert [run_order.position_classes(p, 4) for p in range(4)] == [{0}, {0, 1}, {1, 2}, {2}]
    # the ⌈n/3⌉ shift would not do: for n = 4 it rotates by 2 twice and lands back on the start
    assert [run_order.shift(r, 4, 3) for r in (1, 2, 3)] == [0, 1, 3]


def test_a_missing_model_fails_the_property() -> None:
    """The property check is not vacuous: an unrotated order leaves models in one third."""
    n = 6
    units = [unit_id(f"m{i}", r) for r in (1, 2, 3) for i in range(n)]
    classes = [run_order.position_classes(p, n) for p in positions(units, "m0", 3)]
    assert classes == [{0}, {0}, {0}] and not covers_thirds(classes)
    # and the ⌈n/3⌉ rotation fails it for n = 4 (shifts 0, 2, 4 ≡ 0)
    ceil_units = [unit_id(k, r) for r, by in ((1, 0), (2, 2), (3, 0)) for k in run_order.rotated(
        ["a", "b", "c", "d"], by)]  # fmt: skip
    assert not covers_thirds([run_order.position_classes(p, 4) for p in
                              positions(ceil_units, "a", 3)])  # fmt: skip


def test_order_json_writes_the_rule_and_old_files_load(tmp_path: Path) -> None:
    keys = ["a", "b", "c", "d"]
    record = OrderRecord(
        round_id="round-1", seed=5, drawn_at="t", qualified=keys, not_testable=[],
        order=run_order.draw(keys, 5, 3), base_order=run_order.base_order(keys, 5),
        shifts=[run_order.shift(r, 4, 3) for r in (1, 2, 3)], rule=run_order.ROTATION_RULE,
    )  # fmt: skip
    assert record.schema_version == 2 and "rotated left by round((r-1)*n/R)" in record.rule
    old = tmp_path / "order.json"
    write_json(old, {"round_id": "round-0", "seed": 1, "drawn_at": "t", "qualified": ["a"],
                     "not_testable": [], "order": ["a-r1"]})  # fmt: skip
    legacy = read_record(old, OrderRecord)
    assert legacy.order == ["a-r1"] and legacy.base_order == [] and legacy.rule == ""
