"""The browser phase's lane plan: every selected check once, the core journeys together on lane 0
(one recorded page), and each check that judges no-overflow's shared visits after it on its lane."""

from __future__ import annotations

import pytest

from evaluator.browser_phase import plan_lanes
from evaluator.check_set import check_set
from evaluator.checks import CHECKS


@pytest.mark.parametrize("lanes", [1, 2, 3, 4])
@pytest.mark.parametrize("screenshots", [False, True])
def test_every_check_runs_once_with_its_shared_visits_before_it(lanes: int, screenshots: bool):
    plan = plan_lanes(list(CHECKS), lanes, screenshots)
    assert 1 <= len(plan) <= lanes
    ids = [c.id for lane in plan for c in lane]
    assert sorted(ids) == sorted(c.id for c in CHECKS)
    core = set(check_set("evaluator.checks").core_journeys.values())
    assert core <= {c.id for c in plan[0]}
    (visits,) = [lane for lane in plan if any(c.id == "no-overflow" for c in lane)]
    sharers = [c for c in CHECKS if c.shared_visits]
    assert sharers, "the contract's checks include ones that judge shared visits"
    order = [c.id for c in visits]
    for check in sharers:
        assert order.index(check.id) > order.index("no-overflow"), check.id


def test_three_lanes_split_the_long_sweeps():
    plan = plan_lanes(list(CHECKS), 3)
    assert [lane[0].id for lane in plan[1:]] == ["no-overflow", "url-state"]
    with_shots = plan_lanes(list(CHECKS), 3, screenshots=True)
    assert "reduced-motion" in [c.id for c in with_shots[2]]
    assert "reduced-motion" in [c.id for c in plan[1]]


def test_a_subset_keeps_only_nonempty_lanes():
    only = [c for c in CHECKS if c.id in ("axe", "no-overflow")]
    assert [[c.id for c in lane] for lane in plan_lanes(only, 3)] == [["no-overflow", "axe"]]
