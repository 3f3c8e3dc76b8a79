"""Totals, the 49 cap, ranking ties and advancement within three points of fifth."""

from __future__ import annotations

import pytest

from records.evidence.scoring import DimensionScore
from scoring.advancement import Entry, rank
from scoring.totals import DIMENSIONS, total

MAXIMA = dict(zip(DIMENSIONS, (25, 20, 15, 20, 10, 5, 5), strict=True))


def breakdown(**points: float) -> dict[str, DimensionScore]:
    return {
        d: DimensionScore(points=points.get(d, MAXIMA[d]), max_points=MAXIMA[d]) for d in DIMENSIONS
    }


@pytest.mark.parametrize(
    ("points", "gate", "raw", "final", "capped"),
    [
        ({"functional": 20}, True, 95, 49, True),  # a gate failure and 95 raw points
        ({"functional": 20}, False, 95, 95, False),
        ({}, False, 100, 100, False),
        ({"functional": 0, "responsive": 0, "visual": 10}, True, 45, 45, True),
        ({"visual": 12.5, "code": 6.5}, False, 89, 89, False),
    ],
)
def test_total_and_cap(
    points: dict[str, float], gate: bool, raw: float, final: float, capped: bool
) -> None:
    result = total(breakdown(**points), gate)
    assert (result.raw_total, result.total, result.capped) == (raw, final, capped)


def test_provisional_when_a_manual_dimension_is() -> None:
    dims = breakdown()
    dims["visual"] = DimensionScore(points=12, max_points=20, provisional=True)
    assert total(dims, False).provisional


def entries(*totals: float, automated: float = 50, cost: float | None = 1.0) -> list[Entry]:
    return [Entry(f"u{i}", f"C-{i:04d}", t, automated, cost) for i, t in enumerate(totals)]


def test_top_five_plus_within_three_of_fifth() -> None:
    placements, fifth = rank(entries(90, 85, 80, 75, 70, 67.0, 66.9, 60))
    assert fifth == 70
    advanced = {k: p.advanced for k, p in placements.items()}
    assert advanced == {
        "u0": True,
        "u1": True,
        "u2": True,
        "u3": True,
        "u4": True,
        "u5": True,
        "u6": False,
        "u7": False,
    }
    assert placements["u5"].behind_fifth == 3.0 and "within 3 points" in placements["u5"].reason
    assert placements["u6"].behind_fifth == pytest.approx(3.1)


def test_tie_at_fifth_is_ordered_and_disclosed() -> None:
    items = [
        Entry("a", "C-AAAA", 90, 55, 1.0),
        Entry("b", "C-BBBB", 88, 55, 1.0),
        Entry("c", "C-CCCC", 86, 55, 1.0),
        Entry("d", "C-DDDD", 84, 55, 1.0),
        Entry("e", "C-EEEE", 80, 50, 2.0),  # ties on total with f, g, h
        Entry("f", "C-FFFF", 80, 52, 3.0),  # higher automated → before e
        Entry("g", "C-GGGG", 80, 50, 1.5),  # same automated as e, cheaper → before e
        Entry("h", "C-HHHH", 80, 50, None),  # unknown cost → after e
        Entry("i", "C-IIII", 76.9, 60, 0.1),  # 3.1 behind fifth
    ]
    placements, fifth = rank(items)
    order = sorted(placements, key=lambda k: placements[k].rank)
    assert order == ["a", "b", "c", "d", "f", "g", "e", "h", "i"]
    assert fifth == 80
    assert all(placements[k].advanced for k in "abcdfgeh") and not placements["i"].advanced
    assert placements["e"].tied_with == ["C-FFFF", "C-GGGG", "C-HHHH"]
    assert "tied on total" in placements["h"].reason and placements["a"].tied_with == []


def test_fewer_than_five_all_advance() -> None:
    placements, fifth = rank(entries(50, 40))
    assert fifth is None and all(p.advanced for p in placements.values())


def test_float_noise_does_not_break_the_margin() -> None:
    placements, _ = rank(entries(90, 90, 90, 90, 70.3, 0.1 + 0.2 + 67.0))
    assert placements["u5"].advanced  # 67.3000000001 is 3.0 behind 70.3
