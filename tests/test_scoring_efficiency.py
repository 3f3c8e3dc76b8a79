"""Operational efficiency: the seed's time and cost bands, completion and clean exit."""

from __future__ import annotations

from typing import Any

import pytest
from scoring_support import session

from scoring.efficiency import cost_points, minutes, score_efficiency, time_points


@pytest.mark.parametrize(
    ("elapsed", "points"),
    [
        (0.0, 1.0),
        (19 * 60 + 59, 1.0),
        (20 * 60, 1.0),  # 20:00
        (20 * 60 + 0.5, 0.5),
        (20 * 60 + 1, 0.5),  # 20:01
        (30 * 60, 0.5),  # 30:00
        (30 * 60 + 1, 0.0),  # 30:01
        (45 * 60, 0.0),
    ],
)
def test_time_bands(elapsed: float, points: float) -> None:
    assert time_points(elapsed) == points


@pytest.mark.parametrize(
    ("cost", "points"),
    [
        (0.0, 1.0),
        (5.00, 1.0),
        (5.01, 0.5),
        (10.00, 0.5),
        (10.01, 0.0),
        (None, 0.0),
        (0.1 + 0.2 + 4.7, 1.0),
    ],  # float summation noise around $5.00 stays in the $5 band
)
def test_cost_bands(cost: float | None, points: float) -> None:
    assert cost_points(cost) == points


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({}, {"completion": 2, "time": 1, "clean_exit": 1, "cost": 1}),
        ({"elapsed_seconds": 1201.0, "cost_usd": 5.01}, {"time": 0.5, "cost": 0.5}),
        ({"elapsed_seconds": 1801.0, "cost_usd": 10.01}, {"time": 0, "cost": 0}),
        ({"stop_status": "step_ceiling", "exit_code": 0}, {"completion": 0, "clean_exit": 1}),
        ({"stop_status": "time_ceiling", "exit_code": None}, {"completion": 0, "clean_exit": 0}),
        ({"stop_status": "crashed", "exit_code": 0}, {"completion": 0, "clean_exit": 0}),
        ({"exit_code": 1}, {"completion": 2, "clean_exit": 0}),
        ({"human_intervention": True}, {"completion": 0}),
        # a sandbox limit kill: the model's own doing, neither a completion nor a clean exit
        ({"stop_status": "resource_limit", "exit_code": -9}, {"completion": 0, "clean_exit": 0}),
        ({"stop_status": "resource_limit", "exit_code": 0}, {"completion": 0, "clean_exit": 0}),
        # the runner stops a time-ceiling session a moment after 30:00: counted up to the ceiling
        ({"stop_status": "time_ceiling", "elapsed_seconds": 1800.4}, {"time": 0.5}),
        ({"stop_status": "time_ceiling", "elapsed_seconds": 1803.0}, {"time": 0.5}),
        # an agent the runner ended after its final step: completed, time up to that step, and
        # no clean exit (it did not exit)
        (
            {"exit_code": -15, "elapsed_seconds": 1225.0, "lingered_seconds": 31.0},
            {"completion": 2, "time": 1, "clean_exit": 0},
        ),
    ],
)
def test_efficiency_components(overrides: dict[str, Any], expected: dict[str, float]) -> None:
    score = score_efficiency(session(**overrides))
    got = {c.name: c.points for c in score.components}
    assert {k: got[k] for k in expected} == expected
    assert score.points == sum(got.values())
    assert all(c.sources and c.sources[0].startswith("session.json#") for c in score.components)


def test_full_efficiency_is_five() -> None:
    assert score_efficiency(session()).points == 5.0


@pytest.mark.parametrize(
    ("seconds", "text"), [(1200, "20:00"), (1201, "20:01"), (1801, "30:01"), (1200.5, "20:00.500")]
)
def test_minutes_display(seconds: float, text: str) -> None:
    assert minutes(seconds) == text


def test_a_time_ceiling_stop_says_how_its_time_was_counted() -> None:
    record = session(stop_status="time_ceiling", elapsed_seconds=1800.4)
    assert record.ceilings.wall_clock_seconds == 1800
    time = next(c for c in score_efficiency(record).components if c.name == "time")
    assert time.points == 0.5
    assert "elapsed 30:00.400, counted up to the time ceiling as 30:00" in time.reason
    assert "session.json#ceilings" in time.sources
    completed = session(elapsed_seconds=1800.4)  # no ceiling stop: the elapsed time as recorded
    assert next(c for c in score_efficiency(completed).components if c.name == "time").points == 0


def test_a_lingering_agent_says_how_its_time_was_counted() -> None:
    record = session(exit_code=-15, elapsed_seconds=1225.0, lingered_seconds=31.0)
    parts = {c.name: c for c in score_efficiency(record).components}
    assert "elapsed 20:25, counted up to the agent's final step as 19:54" in parts["time"].reason
    assert "session.json#lingered_seconds" in parts["time"].sources
    assert "did not exit after its final step" in parts["clean_exit"].reason
