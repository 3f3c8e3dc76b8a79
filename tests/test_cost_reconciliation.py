"""Cost reconciliation (`harness/reconcile.py`): the metered cost beside the key's usage over the
session, flagged past a threshold, not measurable when another unit spent on the same key; the
board keeps the metered cost and shows the bill beside it. The session path through real OpenCode
is in `tests/test_session_units.py` (`under-reporter`)."""

from __future__ import annotations

import time
from pathlib import Path

from scoring_support import make_round, make_unit, result, session

from gateway.simulator import Simulator
from harness.reconcile import THRESHOLD_USD, key_usage, key_usage_after, others_ran, reconcile
from harness.session.upstream import Upstream
from records.io import write_record
from records.layout import round_paths
from scoring.pipeline import score_context


def test_the_bill_is_the_key_usage_over_the_session() -> None:
    agreed = reconcile(metered=0.25, before=3.0, after=3.25, shared=False)
    assert (agreed.billed_usd, agreed.gap_usd, agreed.flagged) == (0.25, 0.0, False)
    under = reconcile(metered=0.25, before=3.0, after=5.5, shared=False)  # billed 10x
    assert (under.billed_usd, under.gap_usd, under.flagged) == (2.5, 2.25, True)
    small = reconcile(metered=0.001, before=0.0, after=0.001 + THRESHOLD_USD, shared=False)
    assert not small.flagged  # within the absolute threshold
    big = reconcile(metered=100.0, before=0.0, after=104.0, shared=False)
    assert big.threshold_usd == 5.0 and not big.flagged  # within 5 % of a large cost


def test_a_shared_key_or_an_unknown_usage_is_not_measurable_never_guessed() -> None:
    for case in (
        reconcile(metered=0.25, before=3.0, after=9.0, shared=True),
        reconcile(metered=0.25, before=None, after=9.0, shared=False),
        reconcile(metered=None, before=3.0, after=3.25, shared=False),
    ):
        assert case.gap_usd is None and not case.flagged
    shared = reconcile(metered=0.25, before=3.0, after=9.0, shared=True)
    assert shared.billed_usd is None and shared.shared_key


def test_another_unit_running_or_ending_in_the_window_shares_the_key(tmp_path: Path) -> None:
    rpaths = round_paths("r", tmp_path)
    window = ("2026-12-05T08:00:00+00:00", "2026-12-05T08:20:00+00:00")
    assert not others_ran(rpaths, "a-r1", *window)
    before = session("idle", unit="b-r1", started_at="2026-12-05T07:00:00+00:00",
                     finished_at="2026-12-05T07:59:59+00:00")  # fmt: skip
    write_record(rpaths.unit("b-r1").session, before)
    assert not others_ran(rpaths, "a-r1", *window)
    during = before.model_copy(update={"unit": "c-r1", "finished_at": "2026-12-05T08:05:00+00:00"})
    write_record(rpaths.unit("c-r1").session, during)
    assert others_ran(rpaths, "a-r1", *window)
    rpaths.unit("c-r1").session.unlink()
    rpaths.unit("d-r1").root.mkdir(parents=True)
    rpaths.unit("d-r1").running_marker.write_text("{}")
    assert others_ran(rpaths, "a-r1", *window)


def test_the_key_usage_is_read_from_the_gateway() -> None:
    with Simulator([], api_key="sk-reconcile-test") as sim:
        upstream = Upstream("simulator", sim.base_url, "sk-reconcile-test")
        assert key_usage(upstream) == 0.0
        sim.key.charge(0.5)
        assert key_usage_after(upstream, 0.0, 0.5, settle_seconds=0) == 0.5
    assert key_usage(Upstream("openrouter", "http://127.0.0.1:9/api/v1", "x")) is None


def test_a_key_that_charged_the_metered_cost_is_read_once() -> None:
    """The metered cost is rounded to 1e-8 USD, the key's usage is not: a bill that equals the
    metered cost before rounding must not look like a lagging key (a 10 s wait per unit)."""
    with Simulator([], api_key="sk-reconcile-test") as sim:
        upstream = Upstream("simulator", sim.base_url, "sk-reconcile-test")
        sim.key.charge(0.0123456786)  # metered: round(0.0123456786, 8) = 0.01234568
        started = time.monotonic()
        assert key_usage_after(upstream, 0.0, round(0.0123456786, 8), settle_seconds=5) > 0
        assert time.monotonic() - started < 2


def test_the_board_keeps_the_metered_cost_and_shows_the_bill_beside_it(tmp_path: Path) -> None:
    ctx = make_round(tmp_path)
    bill = reconcile(metered=1.25, before=0.0, after=12.5, shared=False)
    make_unit(ctx, "strong-builder", session("strong-builder", cost_reconciliation=bill), result())
    make_unit(ctx, "one-pass", evaluation=result())
    rows = {r.model_key: r for r in score_context(ctx).units}
    flagged, plain = rows["strong-builder"], rows["one-pass"]
    assert (flagged.cost_usd, flagged.billed_usd, flagged.cost_gap_flagged) == (1.25, 12.5, True)
    said = next(e for e in flagged.explanations if e.field == "billed_usd")
    assert said.sources == ["units/strong-builder-r1/session.json#cost_reconciliation"]
    assert "gap +11.2500 USD" in (said.detail or "")
    assert (plain.billed_usd, plain.cost_gap_flagged) == (None, False)
    assert not [e for e in plain.explanations if e.field == "billed_usd"]
