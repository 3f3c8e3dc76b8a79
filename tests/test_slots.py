"""Slots: a round's declared shape, the plan that cuts this machine into slots and refuses more
than it holds, the pinning a unit's processes inherit, and session.json's record of it."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import pytest
from pydantic import ValidationError
from scoring_support import session

from gateway.client import KeyRateLimit
from harness.session.sandbox import bwrap_available
from harness.slot_plan import (
    Slot,
    SlotPool,
    SlotsRefused,
    derive_parallel,
    interval_seconds,
    machine_cpus,
    max_slots,
    pinned,
    plan_slots,
    round_plan,
    this_machine,
)
from publish.slots import how_run
from records.evidence.session import SessionRecord
from records.inputs import RoundSettings, load_round, rounds_dir
from records.io import read_record, write_json, write_record
from records.slots import GIB, REAL_SLOT, SHARED_SLOT, SlotShape
from sandbox import SandboxSpec, run_sandboxed

TWO_CPUS, MEMORY = [0, 1], 24 * GIB


def settings(round_id: str = "round-0", **update: object) -> RoundSettings:
    return load_round(round_id, require_cohort=False).model_copy(update=update)


def test_every_round_file_loads_with_a_slot_for_its_kind() -> None:
    for path in sorted(rounds_dir().glob("*.json")):
        loaded = load_round(path.stem, require_cohort=False)
        assert loaded.slot_shape.pinned == (loaded.kind == "real"), path.name
    assert settings("round-0").slot_shape == REAL_SLOT
    assert settings("showcase").slot_shape == SHARED_SLOT


def test_a_real_round_must_be_pinned() -> None:
    data = json.loads((rounds_dir() / "round-0.json").read_text())
    with pytest.raises(ValidationError, match=r"slot.pinned: a real round"):
        RoundSettings.model_validate(
            {**data, "slot": {"cpus": 1, "memory_gib": 4, "pinned": False}}
        )
    declared = RoundSettings.model_validate({**data, "slot": {"cpus": 1, "memory_gib": 6}})
    assert declared.slot_shape == SlotShape(cpus=1, memory_gib=6, pinned=True)


def test_pinned_slots_get_distinct_cpus_and_too_many_are_refused_naming_file_and_field() -> None:
    one_cpu = settings(slot=SlotShape(cpus=1, memory_gib=6), max_parallel_sessions=2)
    slots = plan_slots(one_cpu, 2, TWO_CPUS, MEMORY)
    assert slots == [Slot(0, (0,)), Slot(1, (1,))]
    with pytest.raises(
        SlotsRefused, match=r"round-0\.json: fields max_parallel_sessions and slot: 3 pinned"
    ):
        plan_slots(one_cpu, 3, TWO_CPUS, MEMORY)
    nine_gib = settings(slot=SlotShape(cpus=1, memory_gib=9))
    with pytest.raises(SlotsRefused, match=r"18 GiB; this machine holds 2 CPUs"):
        plan_slots(nine_gib, 2, TWO_CPUS, 16 * GIB)
    default = settings()  # the default 2-CPU slot: one fits on two CPUs, two do not
    assert plan_slots(default, 1, TWO_CPUS, MEMORY) == [Slot(0, (0, 1))]
    with pytest.raises(SlotsRefused, match=r"slot \(the default for its kind\)"):
        plan_slots(default, 2, TWO_CPUS, MEMORY)
    assert max_slots(REAL_SLOT, [0, 1, 2, 3, 4, 5, 6, 7], 64 * GIB) == 4


def test_unpinned_slots_share_the_cpus_and_only_their_memory_must_fit() -> None:
    shared = settings("showcase")
    assert plan_slots(shared, 4, TWO_CPUS, MEMORY) == [Slot(k, ()) for k in range(4)]
    with pytest.raises(SlotsRefused, match="memory_gib 8 is more than"):
        plan_slots(shared, 1, TWO_CPUS, 4 * GIB)


def test_a_pinned_thread_starts_processes_on_its_slots_cpus_only() -> None:
    if len(machine_cpus()) < 2:
        pytest.skip("needs two CPUs to tell a slot from the machine")
    cpu = machine_cpus()[-1]

    def allowed() -> str:
        status = subprocess.run(["cat", "/proc/self/status"], capture_output=True, text=True)
        return next(x for x in status.stdout.splitlines() if x.startswith("Cpus_allowed_list"))

    whole = allowed()
    with pinned((cpu,)):
        assert allowed().split()[-1] == str(cpu)
    assert allowed() == whole  # restored


def test_a_pool_hands_each_slot_to_one_holder_at_a_time() -> None:
    pool = SlotPool(REAL_SLOT, [Slot(0, (0,)), Slot(1, (1,))])
    first, second = pool.acquire(), pool.acquire()
    assert {first.index, second.index} == {0, 1} and pool.try_acquire() is None
    got: list[Slot] = []
    waiter = threading.Thread(target=lambda: got.append(pool.acquire()))
    waiter.start()
    waiter.join(timeout=0.3)
    assert waiter.is_alive()  # blocked: every slot is taken
    pool.release(second)
    waiter.join(timeout=5)
    assert got == [second]


def test_session_json_records_the_slot_and_older_files_load(tmp_path: Path) -> None:
    record = Slot(1, (1,)).record(SlotShape(cpus=1, memory_gib=6), this_machine())
    path = tmp_path / "session.json"
    write_record(path, session().model_copy(update={"slot": record}))
    loaded = read_record(path, SessionRecord)
    assert loaded.schema_version == 7 and loaded.slot == record
    assert loaded.slot is not None and loaded.slot.machine.cpu_count >= 1
    legacy = session().model_dump(mode="json")
    legacy["schema_version"] = 5
    legacy.pop("slot")
    write_json(path, legacy)
    assert read_record(path, SessionRecord).slot is None


def test_the_round_page_says_how_it_ran() -> None:
    record = Slot(0, ()).record(SHARED_SLOT, this_machine())
    text = how_run(settings("showcase"), [session().model_copy(update={"slot": record}), None])
    assert "shared CPUs (unpinned)" in text and "not comparable" in text
    assert "1 of 1 sessions recorded their slot" in text and this_machine().hostname in text
    real = how_run(settings("round-0"), [session()])
    assert "2 CPUs, 8 GiB" in real and "recorded no slot" in real and "not comparable" not in real


def test_the_plan_before_spending_names_units_slots_wall_time_and_budget() -> None:
    text = round_plan(settings("round-0"), 8, 80.0)
    assert "8 unit(s), 1 at once in slots of 2 CPUs, 8 GiB" in text
    assert "at most 4 h of sessions (8 wave(s) at the 30-minute ceiling" in text
    assert text.endswith("budget at most $80.00")
    four = settings("showcase", max_parallel_sessions=4)
    assert "at most 1.5 h of sessions (3 wave(s)" in round_plan(four, 12, 1.0)
    if len(machine_cpus()) < 8:
        with pytest.raises(SlotsRefused, match="max_parallel_sessions"):
            round_plan(settings("round-0", max_parallel_sessions=4), 8, 80.0)


def test_the_sandbox_inherits_the_slots_cpus() -> None:
    if len(machine_cpus()) < 2 or not bwrap_available():
        pytest.skip("needs two CPUs and bubblewrap")
    cpu = machine_cpus()[-1]
    spec = SandboxSpec(argv=["grep", "Cpus_allowed_list", "/proc/self/status"], timeout=60)
    with pinned((cpu,)):
        inside = run_sandboxed(spec)
    assert inside.ok and inside.stdout.split()[-1] == str(cpu), inside.describe()


def test_sessions_at_once_are_derived_from_the_bound_the_machine_and_the_rate_limit() -> None:
    eight = [0, 1, 2, 3, 4, 5, 6, 7]
    bounded = settings("round-0", max_parallel_sessions=4)
    live = derive_parallel(bounded, -1, "10s", eight, 64 * GIB)  # -1: no limit stated
    assert (live.machine_slots, live.rate_limit_sessions, live.sessions) == (4, None, 4)
    assert "states no rate limit" in live.basis
    # the recorded live /key (reference api-fixtures.md): 1000 per 1h, noted as deprecated; at one
    # request per second a session would need 3600 an hour, so applied it would cap at 1
    recorded = KeyRateLimit.model_validate(
        {"requests": 1000, "interval": "1h", "note": "This field is deprecated and safe to ignore."}
    )
    assert recorded.deprecated
    ignored = derive_parallel(bounded, recorded.requests, recorded.interval, eight, 64 * GIB,
                              note=recorded.note)  # fmt: skip
    assert (ignored.rate_limit_sessions, ignored.sessions) == (None, 4)
    assert "is not applied: the gateway calls it deprecated" in ignored.basis
    assert derive_parallel(bounded, 1000, "1h", eight, 64 * GIB).sessions == 1
    slow = derive_parallel(bounded, 20, "10s", eight, 64 * GIB)
    assert (slow.rate_limit_sessions, slow.sessions) == (2, 2) and "allows 2" in slow.basis
    here = derive_parallel(bounded, -1, "10s", TWO_CPUS, MEMORY)  # one 2-CPU slot on two CPUs
    assert here.sessions == 1 and "this machine holds 1 slot(s)" in here.basis
    assert interval_seconds("1m") == 60 and interval_seconds("soon") is None


def test_the_round_page_gives_the_derivation_when_the_spend_stage_made_one() -> None:
    bounded = settings("round-0", max_parallel_sessions=4)
    derived = derive_parallel(bounded, 20, "10s", [0, 1, 2, 3, 4, 5, 6, 7], 64 * GIB)
    text = how_run(bounded, [], derived)
    assert text.startswith("up to 2 sessions at once") and "allows 2" in text


def test_an_unpinned_rounds_derivation_and_slot_say_so() -> None:
    shared = derive_parallel(settings("showcase", max_parallel_sessions=4), -1, "10s")
    assert shared.sessions == 4 and "share this machine's CPUs" in shared.basis
    record = Slot(2, ()).record(SHARED_SLOT, this_machine())
    assert record.describe() == "slot 2 (shared CPUs (unpinned), 8 GiB)"
    pinned_record = Slot(1, (2, 3)).record(REAL_SLOT, this_machine())
    assert pinned_record.describe() == "slot 1 (2 CPUs, 8 GiB; CPUs 2,3)"
