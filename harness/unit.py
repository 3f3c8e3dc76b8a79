"""Run one scored experimental unit: one fresh session, recorded completely, never retried.

    run_unit(round_id, model_key, repetition=1) -> SessionRecord

Refuses when the unit already has session.json (evidence is never overwritten). A `.running`
marker without session.json (the runner was killed) is recorded as a harness failure instead of
running a second paid session; a marker that does not validate (or a session log without one)
refuses the unit with what the operator should do: paid work may have begun.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from harness.agents import Agent, agent_for
from harness.freeze import require_round_tools
from harness.invalidation import UnitFacts, assess, check_identity
from harness.preconditions import PreconditionFailed, require_preconditions
from harness.progress import Progress
from harness.reconcile import key_usage, key_usage_after, others_ran, reconcile
from harness.replacement import replacement_record
from harness.session.evidence import (
    MarkerUnreadable,
    end_leftovers,
    evidence_present,
    new_marker,
    now_iso,
    read_marker,
    remove_scratch,
    runner_alive,
    save_trace,
    save_worktree_evidence,
    write_marker,
)
from harness.session.run import SessionOutcome, run_session
from harness.session.sandbox import isolation_for, require_isolation
from harness.session.upstream import Upstream, round_gateway
from harness.session.worktree import create_worktree
from harness.slot_plan import unit_slot
from records.evidence.gateway import summarize
from records.evidence.round import RoundRecord
from records.evidence.session import (
    CostReconciliation,
    Identity,
    Isolation,
    RunningMarker,
    SessionRecord,
    StopStatus,
)
from records.hashing import file_sha256
from records.inputs import Candidate, RoundSettings
from records.interventions import ArmRecord
from records.io import read_record, write_record
from records.layout import UnitPaths
from records.manifest import write_session_manifest
from records.round import Round
from records.slots import SlotRecord
from records.tools import copy_npm_cache
from records.unit_ids import UnitId


class UnitRefused(RuntimeError):
    """The unit must not run now (already recorded, running elsewhere, or out of order)."""


def scratch_root() -> Path:
    return Path(os.environ.get("SITEOS_SCRATCH") or tempfile.gettempdir()) / "siteos-units"


def frozen_hashes(rnd: Round) -> tuple[str, str]:
    path = rnd.paths.round_json
    if not path.exists():
        raise UnitRefused(f"{path} is missing: run the freeze stage before any session")
    inputs = read_record(path, RoundRecord).inputs
    return inputs.prompt_sha256, inputs.starter_tree_sha256


@dataclass(frozen=True)
class _UnitRun:
    """What every step of running (or recording) one unit needs to know about it."""

    rnd: Round
    candidate: Candidate
    unit: str
    repetition: int
    agent: Agent
    paths: UnitPaths
    frozen: tuple[str, str]  # (prompt sha256, starter tree sha256) from round.json
    slot: SlotRecord | None = None  # the slot it runs in (None: recorded from the marker)

    @property
    def settings(self) -> RoundSettings:
        return self.rnd.settings

    @property
    def arm_id(self) -> str:
        """The unit's arm (`-via-<arm>` of its id; "" in a round of one arm)."""
        return UnitId.parse(self.unit).agent

    def frozen_arm_sha256(self) -> str | None:
        """The hash round.json froze for the unit's arm folder (None: an agent arm, or none)."""
        if self.rnd.arm(self.arm_id) is None:
            return None
        frozen = read_record(self.rnd.paths.round_json, RoundRecord).inputs.arms_sha256
        return frozen.get(self.arm_id, "not frozen")

    def arm_record(self, marker: RunningMarker) -> ArmRecord | None:
        """session.json's `arm`: the factor, the arm and its folder's hash then and as frozen."""
        factor = self.settings.factor
        if factor is None:
            return None
        arm = self.rnd.arm(self.arm_id)
        return ArmRecord(
            factor=factor,
            arm=self.arm_id,
            sha256=marker.arm_sha256,
            frozen_sha256=self.frozen_arm_sha256(),
            files=list(arm.files) if arm is not None else [],
        )


def _record(
    run: _UnitRun,
    *,
    marker: RunningMarker,
    stop: StopStatus,
    exit_code: int | None,
    elapsed: float,
    isolation: Isolation,
    outcome: SessionOutcome | None,
    harness_error: str = "",
    replacement_of: str | None = None,
    reconciliation: CostReconciliation | None = None,
) -> SessionRecord:
    settings, candidate, paths, frozen = run.settings, run.candidate, run.paths, run.frozen
    gateway = outcome.gateway if outcome is not None else summarize(paths.gateway)
    limit = outcome.limit_description if outcome is not None else ""
    trace = outcome.trace if outcome is not None else run.agent.read_trace(paths.events)
    identity: Identity = check_identity(
        candidate.route,
        candidate.expected_canonical_slug,
        gateway.observed_models,
        gateway.observed_providers,
        gateway.generation_models,
        [p.name for p in candidate.provider.only] if candidate.provider else None,
    )
    hash_problems = []  # a hash not measured yet (a crash before the worktree) is no mismatch
    if marker.prompt_sha256 is not None and marker.prompt_sha256 != frozen[0]:
        hash_problems.append(f"prompt sha256 {marker.prompt_sha256} != frozen {frozen[0]}")
    if marker.starter_tree_sha256 is not None and marker.starter_tree_sha256 != frozen[1]:
        hash_problems.append(f"starter tree {marker.starter_tree_sha256} != frozen {frozen[1]}")
    arm = run.arm_record(marker)
    if arm is not None and arm.sha256 is not None and arm.sha256 != arm.frozen_sha256:
        hash_problems.append(f"arm {arm.arm} {arm.sha256} != frozen {arm.frozen_sha256}")
    facts = UnitFacts(
        stop_status=stop,
        exit_code=exit_code,
        hash_problems=hash_problems,
        identity=identity,
        gateway=gateway,
        evidence_present=evidence_present(paths),
        agent_errors=trace.errors,
        finished_normally=trace.finished_normally,
        harness_error=harness_error,
        limit_message=limit,
        lingered_seconds=outcome.lingered_seconds if outcome is not None else None,
    )
    verdict = assess(facts)
    return SessionRecord(
        unit=run.unit,
        round_id=settings.round_id,
        model_key=candidate.key,
        repetition=run.repetition,
        replacement_of=replacement_of,
        agent=run.agent.info,
        arm=arm,
        gateway_kind=settings.gateway.kind,
        requested_route=candidate.route,
        expected_slug=candidate.expected_canonical_slug,
        identity=identity,
        steps=gateway.steps,
        stop_status=stop,
        resource_limit=(limit or None) if stop == "resource_limit" else None,
        exit_code=exit_code,
        elapsed_seconds=elapsed,
        lingered_seconds=facts.lingered_seconds,
        tokens=gateway.tokens.counts(),
        cost_usd=gateway.cost_usd,
        cost_reconciliation=reconciliation,
        gateway=gateway,
        ceilings=settings.ceilings,
        isolation=isolation,
        slot=run.slot or marker.slot,
        validity=verdict.validity,
        invalid_reasons=verdict.reasons,
        failure_class=verdict.failure_class,
        failure_detail=verdict.detail,
        attribution=verdict.attribution,
        prompt_sha256=marker.prompt_sha256,
        starter_tree_sha256=marker.starter_tree_sha256,
        frozen_prompt_sha256=frozen[0],
        frozen_starter_tree_sha256=frozen[1],
        worktree_archive_sha256=file_sha256(paths.archive) if paths.archive.exists() else None,
        harness_retries=gateway.retries,
        commands=len(trace.commands),
        evidence_files=evidence_present(paths),
        started_at=marker.started_at,
        finished_at=now_iso(),
    )


def _conclude(run: _UnitRun, record: SessionRecord, scratch: Path) -> SessionRecord:
    """Write session.json (the unit is recorded), then drop the running marker and scratch."""
    write_record(run.paths.session, record)
    run.paths.running_marker.unlink(missing_ok=True)
    remove_scratch(scratch)
    return record


def last_write(root: Path) -> float | None:
    """The latest modification time of anything below `root` (symlinks not followed)."""
    latest: float | None = None
    stack = [root]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                mtime = entry.stat(follow_symlinks=False).st_mtime
            except OSError:
                continue
            latest = mtime if latest is None else max(latest, mtime)
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
    return latest


def elapsed_until_crash(paths: UnitPaths, marker: RunningMarker) -> float:
    """Seconds from the marker's start to the last write the session left (the marker, the agent's
    events and stderr, the gateway log, its worktree and HOME): when it was last seen alive."""
    started = datetime.fromisoformat(marker.started_at).timestamp()
    files = (paths.running_marker, paths.events, paths.agent_stderr, paths.gateway)
    seen = [p.stat().st_mtime for p in files if p.exists()]
    scratch = last_write(Path(marker.scratch))
    seen += [scratch] if scratch is not None else []
    return round(max(0.0, max(seen, default=started) - started), 1)


def crash_isolation(marker: RunningMarker) -> Isolation:
    """The isolation the dead runner chose (written into its marker before the session began)."""
    if marker.isolated is None:  # a marker written before the runner recorded its choice
        return Isolation(level="unsandboxed", details=["isolation not recorded before the crash"])
    return isolation_for(marker.isolated)


def _recover(run: _UnitRun, marker: RunningMarker, replacing: str | None) -> SessionRecord:
    """The runner died mid-session: record a harness failure with the evidence that exists."""
    elapsed = elapsed_until_crash(run.paths, marker)  # before anything here writes to scratch
    end_leftovers(marker)
    worktree = Path(marker.worktree)
    save_worktree_evidence(run.paths, worktree, marker.base_commit)
    save_trace(run.paths, run.agent.read_trace(run.paths.events))
    write_session_manifest(run.paths)
    record = _record(
        run, marker=marker, stop="crashed", exit_code=None,
        elapsed=elapsed, isolation=crash_isolation(marker),
        outcome=None, replacement_of=replacing,
        harness_error=f"the runner was killed mid-session (started {marker.started_at}, last "
        f"seen alive {elapsed:.0f} s later); the unit is not re-run",
    )  # fmt: skip
    return _conclude(run, record, Path(marker.scratch))


def _check_order(rnd: Round, unit: str) -> None:
    order = rnd.order()
    if unit not in order.order:
        raise UnitRefused(f"unit {unit!r} is not in the frozen order of round {rnd.id!r}")
    for earlier in order.order[: order.order.index(unit)]:
        if not rnd.unit(earlier).session.exists():
            raise UnitRefused(
                f"unit {unit!r} runs after {earlier!r} in the frozen order; run that one first"
            )


def run_unit(
    rnd: Round,
    model_key: str,
    repetition: int = 1,
    *,
    replacement: int = 0,
    agent: Agent | None = None,
    check_order: bool = True,
    wall_clock_seconds: float | None = None,
    outage_seconds: float | None = None,
    slot: SlotRecord | None = None,
) -> SessionRecord:
    """Run (or, after a crash, record) the unit `<model_key>-r<repetition>[-x<replacement>]`
    (`model_key` is the entrant's: `<model>-via-<agent>` in an intervention round).

    `slot`: the slot the caller already runs in (a parallel child, pinned at its start); without
    it the unit takes one of the round's slots in this process and its thread is pinned to it
    while the session runs (`harness.slot_plan.unit_slot`)."""
    require_round_tools(rnd)  # a paid session never runs on other tools than the round's
    settings, round_id = rnd.settings, rnd.id
    ceiling = settings.ceilings.wall_clock_seconds
    if settings.kind == "real" and wall_clock_seconds not in (None, ceiling):
        raise UnitRefused(  # the methodology's 30 minutes, as session.json records them
            f"round {round_id!r} is real: its wall-clock ceiling is {ceiling:g} s (a fixed "
            f"control), not {wall_clock_seconds:g} s"
        )
    entrant = rnd.entrant(model_key)
    candidate = entrant.candidate
    agent = agent or agent_for(entrant.agent, f"round {round_id!r}")
    unit = entrant.unit(repetition, replacement)
    paths = rnd.unit(unit)
    if paths.session.exists():
        raise UnitRefused(f"{paths.session} exists: a recorded unit is never run or written again")
    run = _UnitRun(
        rnd, candidate, unit, repetition, agent, paths, frozen_hashes(rnd),
    )  # fmt: skip
    replacing = replacement_record(paths).replaced_unit if replacement else None
    try:  # a marker that does not validate: paid work may have begun, so stop and ask
        marker = read_marker(paths, unit)
    except MarkerUnreadable as exc:
        raise UnitRefused(str(exc)) from exc
    if marker is not None:
        if runner_alive(marker):
            raise UnitRefused(f"unit {unit!r} is running (runner pid {marker.runner_pid})")
        return _recover(run, marker, replacing)
    if not replacement and check_order:
        _check_order(rnd, unit)
    try:  # the spend stage's key check and the calibration passed: checked here, where we spend
        require_preconditions(rnd)
    except PreconditionFailed as exc:
        raise UnitRefused(str(exc)) from exc
    isolated = require_isolation(paid=settings.gateway.kind == "openrouter")
    with contextlib.ExitStack() as stack:
        slotted = replace(run, slot=slot or stack.enter_context(unit_slot(settings)))
        with round_gateway(settings, repetition) as upstream:
            return _execute(
                slotted, isolated, upstream,
                wall_clock_seconds or settings.ceilings.wall_clock_seconds, replacing,
                outage_seconds or settings.ceilings.outage_seconds,
            )  # fmt: skip


def _execute(
    run: _UnitRun,
    isolated: bool,
    upstream: Upstream,
    wall_clock: float,
    replacing: str | None,
    outage_seconds: float,
) -> SessionRecord:
    unit, paths = run.unit, run.paths
    progress = Progress(unit)
    scratch_root().mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f"{unit}-", dir=scratch_root()))
    worktree, home = scratch / "wt", scratch / "home"
    task = run.rnd.task
    prompt = task.prompt.read_bytes()
    # the marker knows the prompt's hash and the isolation from its first write: a crash at any
    # later point records what was measured, never "None" or a sandbox it did not use
    marker = new_marker(unit, scratch, worktree).model_copy(
        update={
            "prompt_sha256": hashlib.sha256(prompt).hexdigest(),
            "isolated": isolated,
            "slot": run.slot,
        }
    )
    paths.root.mkdir(parents=True, exist_ok=True)
    write_marker(paths, marker)
    progress.update("worktree", force=True)
    home.mkdir(parents=True)
    arm = run.rnd.arm(run.arm_id)  # an intervention arm's files join the base commit
    try:
        arm_hash = arm.sha256() if arm is not None else None
        cache = copy_npm_cache(home / ".npm")
        adds = (arm.folder, arm.files) if arm is not None else None
        replaces = arm.replaces if arm is not None else ()
        tree_hash, base = create_worktree(worktree, cache, task.starter, adds, replaces)
    except Exception as exc:  # noqa: BLE001 - recorded as a harness failure
        return _finish_without_session(
            run, marker, f"worktree preparation failed: {exc}", replacing
        )
    marker = marker.model_copy(
        update={"starter_tree_sha256": tree_hash, "base_commit": base, "arm_sha256": arm_hash}
    )
    write_marker(paths, marker)
    changed = (marker.prompt_sha256, tree_hash) != run.frozen or arm_hash != run.frozen_arm_sha256()
    if changed:  # invalid, not a harness failure
        return _finish_without_session(run, marker, "", replacing)

    def started(pid: int) -> None:
        write_marker(paths, marker.model_copy(update={"agent_pgid": pid}))

    usage_before = key_usage(upstream)
    outcome = run_session(
        agent=run.agent, upstream=upstream, candidate=run.candidate, settings=run.settings,
        worktree=worktree, home=home, socket_dir=scratch / "gw",
        files=paths,
        title=unit, prompt=prompt, isolated=isolated, wall_clock_seconds=wall_clock,
        progress=progress, on_start=started, outage_seconds=outage_seconds,
        tool=arm.manifest.tool if arm is not None else None,
    )  # fmt: skip
    gw = outcome.gateway
    progress.update("evidence", gw.steps, gw.cost_estimate_usd, force=True)
    save_worktree_evidence(paths, worktree, base)
    save_trace(paths, outcome.trace)
    write_session_manifest(paths)  # before session.json, whose evidence_files then names it
    reconciliation = reconcile(
        metered=gw.cost_usd,
        before=usage_before,
        after=key_usage_after(upstream, usage_before, gw.cost_usd),
        shared=upstream.paid  # a simulated round gives each unit its own simulator and key
        and others_ran(run.rnd.paths, unit, marker.started_at, now_iso()),
    )  # fmt: skip
    record = _record(
        run, marker=marker, stop=outcome.stop_status,
        exit_code=outcome.process.exit_code, elapsed=outcome.process.elapsed_seconds,
        isolation=outcome.isolation, outcome=outcome, replacement_of=replacing,
        reconciliation=reconciliation,
    )  # fmt: skip
    _conclude(run, record, scratch)
    progress.update(f"{record.stop_status}/{record.validity}", record.steps,
                    record.cost_usd or 0.0, force=True)  # fmt: skip
    return record


def _finish_without_session(
    run: _UnitRun, marker: RunningMarker, why: str, replacing: str | None
) -> SessionRecord:
    """No session ran: a harness failure (`why`), or changed inputs (`why` empty, hash reasons)."""
    write_session_manifest(run.paths)
    record = _record(
        run, marker=marker, stop="not_started", exit_code=None,
        elapsed=0.0, isolation=Isolation(level="unsandboxed", details=["no session started"]),
        outcome=None, harness_error=why, replacement_of=replacing,
    )  # fmt: skip
    return _conclude(run, record, Path(marker.scratch))


def read_session(rnd: Round, unit: str) -> SessionRecord:
    return read_record(rnd.unit(unit).session, SessionRecord)


def record_lost(
    rnd: Round, model_key: str, repetition: int, *, replacement: int = 0, why: str
) -> SessionRecord:
    """The unit ran elsewhere and its runner was lost with the machine (a cluster worker that died
    mid-session): record a harness failure, never a model failure, from what the coordinator
    knows. Refuses a unit already recorded."""
    entrant = rnd.entrant(model_key)
    agent = agent_for(entrant.agent, f"round {rnd.id!r}")
    unit = entrant.unit(repetition, replacement)
    paths = rnd.unit(unit)
    if paths.session.exists():
        raise UnitRefused(f"{paths.session} exists: a recorded unit is never run or written again")
    run = _UnitRun(
        rnd, entrant.candidate, unit, repetition, agent, paths, frozen_hashes(rnd),
    )  # fmt: skip
    replacing = replacement_record(paths).replaced_unit if replacement else None
    lost = Path(tempfile.gettempdir()) / f"siteos-lost-{unit}"  # nothing of it is on this host
    marker = new_marker(unit, lost, lost / "wt")
    paths.root.mkdir(parents=True, exist_ok=True)
    write_session_manifest(paths)
    record = _record(
        run, marker=marker, stop="crashed", exit_code=None, elapsed=0.0,
        isolation=Isolation(level="unsandboxed", details=["lost with its worker: not recorded"]),
        outcome=None, harness_error=why, replacement_of=replacing,
    )  # fmt: skip
    write_record(paths.session, record)
    return record
