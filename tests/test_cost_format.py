"""How the arms page writes a cost difference and its interval (publish/agents.py)."""

from __future__ import annotations

import pytest

from publish.agents import cost_interval, signed_cost


@pytest.mark.parametrize(
    ("value", "shown"),
    [(None, "—"), (0.0, "$0"), (0.0074, "+$0.0074"), (-0.5, "−$0.50"), (1234.5, "+$1,234.50")],
)
def test_a_cost_difference_is_signed_in_cents_or_four_places_below_one(
    value: float | None, shown: str
) -> None:
    assert signed_cost(value) == shown


@pytest.mark.parametrize(
    ("low", "high", "shown"),
    [
        (-0.0081, 0.0131, "−$0.0081 to +$0.0131"),  # not "to +$0.01"
        (-0.25, 0.0042, "−$0.2500 to +$0.0042"),
        (0.0, 0.0, "$0 to $0"),
        (0.02, 0.75, "+$0.02 to +$0.75"),
        (None, 0.1, "—"),
    ],
)
def test_both_ends_of_a_cost_interval_have_the_same_places(
    low: float | None, high: float | None, shown: str
) -> None:
    assert cost_interval(low, high) == shown
