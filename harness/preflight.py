"""Preflight per route: catalogue check, then isolated file-edit + shell probes (3/3 qualifies).

    run_preflight(rnd, key) -> PreflightRecord   # key: the model (or <model>-via-<agent>)

Each probe is a fresh tiny git worktree and a fresh agent session under the same proxy policy,
sandbox and agent config as scoring. Anything short of all probes passing is "not testable" with
a reason class: `catalogue` (id absent, slug differs, tools/tool_choice not advertised),
`route_provider` (gateway/provider errors or a contradicting identity during a probe),
`adapter_unstable` (the model did not edit the file and run the command through the agent).
Every probe runs, even after a failure, and each is recorded: the record shows the real fraction
(e.g. 2/3), and only 3/3 qualifies (2/3 is insufficient: intermittent tool execution would
confound the scored run).
"""

from __future__ import annotations

import secrets
import tempfile
from pathlib import Path

from gateway.client import OpenRouterClient
from harness.agents import Agent, agent_for
from harness.catalogue.check import check_candidate
from harness.catalogue.live import catalogue_from_client
from harness.invalidation import check_identity
from harness.preconditions import require_preconditions
from harness.session.evidence import now_iso, remove_scratch, save_trace
from harness.session.run import run_session
from harness.session.sandbox import isolation_for, require_isolation
from harness.session.upstream import Upstream, round_gateway
from harness.session.worktree import final_diff, git_init
from harness.unit import scratch_root
from records.evidence.gateway import read_exchanges
from records.evidence.round import CatalogueCheck, NotTestableClass, PreflightRecord, ProbeRecord
from records.inputs import Candidate, RoundSettings
from records.io import atomic_write_bytes, read_record, write_record
from records.layout import ProbePaths
from records.round import Round

PROBE_WALL_CLOCK = 300.0
PROBE_OUTAGE_SECONDS = 60.0
PROBE_FILE = "probe.txt"


def probe_prompt(n: int, text: str) -> bytes:
    return (
        f"PREFLIGHT PROBE {n}\nPROBE FILE: {PROBE_FILE}\nPROBE TEXT: {text}\n\n"
        f"This is a short tool check. Replace the whole content of {PROBE_FILE} with exactly the "
        f"line `{text}` using your file editing tool, then run `cat {PROBE_FILE}` in the shell, "
        "then reply with one short sentence.\n"
    ).encode()


def check_catalogue(upstream: Upstream, candidate: Candidate) -> CatalogueCheck:
    """The gateway's `/models` through the same check as `python -m harness.catalogue check`:
    the exact id listed, canonical_slug equal to the frozen slug, tools and tool_choice advertised.

    The verdict is the check's route gate; an input mismatch (the frozen reasoning policy against
    the route's documented reasoning) is recorded in the detail but is not the model's failure
    (the round's catalogue stage refuses such a cohort before anything is spent)."""
    with OpenRouterClient(upstream.base_url, upstream.api_key) as client:
        pinned = [candidate.route] if candidate.provider else []
        route = check_candidate(candidate, catalogue_from_client(client, pinned=pinned))
    gate = [f"{m.field}: {m.detail}" for m in route.mismatches if m.kind != "input"]
    inputs = [f"input {m.field}: {m.detail}" for m in route.mismatches if m.kind == "input"]
    return CatalogueCheck(
        route=candidate.route, expected_slug=candidate.expected_canonical_slug,
        present=route.present, canonical_slug=route.canonical_slug,
        slug_matches=route.slug_matches, supported_parameters=route.supported_parameters,
        tools_supported=route.tools and route.tool_choice, passed=route.gate_passed,
        detail="; ".join([*gate, *inputs]),
    )  # fmt: skip


def _probe_worktree(root: Path, n: int) -> str:
    root.mkdir(parents=True)
    (root / PROBE_FILE).write_text(f"probe {n} pending\n")
    (root / "README.md").write_text("A scratch folder for a tool check.\n")
    return git_init(root)


def run_probe(
    n: int,
    *,
    agent: Agent,
    upstream: Upstream,
    candidate: Candidate,
    settings: RoundSettings,
    probe_dir: Path,
    isolated: bool,
    wall_clock_seconds: float = PROBE_WALL_CLOCK,
    outage_seconds: float = PROBE_OUTAGE_SECONDS,
) -> ProbeRecord:
    """One isolated probe; its events, gateway log and commands go to `probe_dir`."""
    files = ProbePaths(probe_dir)
    probe_dir.mkdir(parents=True, exist_ok=True)
    scratch_root().mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f"{candidate.key}-probe{n}-", dir=scratch_root()))
    try:
        worktree, home = scratch / "wt", scratch / "home"
        base = _probe_worktree(worktree, n)
        home.mkdir()
        text = f"probe {n} ok {secrets.token_hex(4)}"
        outcome = run_session(
            agent=agent, upstream=upstream, candidate=candidate, settings=settings,
            worktree=worktree, home=home, socket_dir=scratch / "gw",
            files=files,
            title=f"{candidate.key}-probe-{n}", prompt=probe_prompt(n, text),
            isolated=isolated, wall_clock_seconds=wall_clock_seconds,
            outage_seconds=outage_seconds,
        )  # fmt: skip
        atomic_write_bytes(files.diff, final_diff(worktree, base))
        save_trace(files, outcome.trace)
        content = (worktree / PROBE_FILE).read_text(errors="replace")
        edited = text in content and any(e.endswith(PROBE_FILE) for e in outcome.trace.edits)
        ran = any(c.status == "completed" and c.exit_code == 0 for c in outcome.trace.commands)
        gw = outcome.gateway
        identity = check_identity(
            candidate.route,
            candidate.expected_canonical_slug,
            gw.observed_models,
            gw.observed_providers,
            gw.generation_models,
            [p.name for p in candidate.provider.only] if candidate.provider else None,
        )
        passed = (
            edited
            and ran
            and outcome.stop_status == "completed"
            and outcome.process.exit_code == 0
            and identity.verdict == "consistent"
        )
        detail = [] if passed else [f"stop {outcome.stop_status}, exit {outcome.process.exit_code}"]
        if not edited:
            detail.append(f"{PROBE_FILE} not edited to the probe text through an edit tool")
        if not ran:
            detail.append("no shell command completed with exit 0")
        if gw.error_classes:
            said = [x.error_message for x in read_exchanges(files.gateway) if x.error_class]
            seen = sorted({m for m in said if m})[:2]
            detail.append(
                f"gateway errors {gw.error_classes}" + (f": {'; '.join(seen)}" if seen else "")
            )
        if identity.verdict == "contradicts":
            detail.append(f"identity contradicts: {identity.contradictions}")
        record = ProbeRecord(
            probe=n, passed=passed, file_edited=edited, command_ran=ran,
            stop_status=outcome.stop_status, exit_code=outcome.process.exit_code,
            elapsed_seconds=outcome.process.elapsed_seconds, steps=gw.steps,
            identity_verdict=identity.verdict, observed_models=identity.observed_models,
            upstream_errors=gw.upstream_errors, error_classes=sorted(gw.error_classes),
            cost_usd=gw.cost_usd if gw.cost_usd is not None else gw.cost_estimate_usd,
            detail="; ".join(detail),
        )  # fmt: skip
        write_record(files.record, record)
        return record
    finally:
        remove_scratch(scratch)


def failure_class(failed: list[ProbeRecord]) -> NotTestableClass:
    """route_provider when any failed probe saw gateway errors or a contradicting identity."""
    if any(p.error_classes or p.identity_verdict == "contradicts" for p in failed):
        return "route_provider"
    return "adapter_unstable"


def probes_verdict(probes: list[ProbeRecord], required: int) -> tuple[NotTestableClass | None, str]:
    """(reason class, reason) of a probe series; (None, "") only when all `required` passed."""
    failed = [p for p in probes if not p.passed]
    passed = len(probes) - len(failed)
    if not failed and passed == required:
        return None, ""
    details = "; ".join(f"probe {p.probe}: {p.detail}" for p in failed)
    return (
        failure_class(failed),
        f"{passed}/{required} probes passed ({required}/{required} required)"
        + (f"; {details}" if details else ""),
    )


def run_preflight(rnd: Round, key: str, *, agent: Agent | None = None) -> PreflightRecord:
    """Qualify one entrant: a route, run by the round's agent (in an intervention round, the
    route with one of its agents, `<model>-via-<agent>`). The record is written once; a second
    call returns it."""
    settings, round_id, paths = rnd.settings, rnd.id, rnd.paths
    entrant = rnd.entrant(key)
    candidate, model_key = entrant.candidate, entrant.key
    target = paths.preflight(model_key)
    if target.exists():
        return read_record(target, PreflightRecord)
    agent = agent or agent_for(entrant.agent, f"round {round_id!r}")
    isolated = require_isolation(paid=settings.gateway.kind == "openrouter")
    started = now_iso()
    probes: list[ProbeRecord] = []
    reason_class: NotTestableClass | None = None
    reason = ""
    with round_gateway(settings) as upstream:
        require_preconditions(rnd)  # probes spend: key check, calibration
        catalogue = check_catalogue(upstream, candidate)
        if not catalogue.passed:
            reason_class, reason = "catalogue", catalogue.detail
        else:
            for n in range(1, settings.probes + 1):  # all of them: the record shows 2/3
                probes.append(run_probe(
                    n, agent=agent, upstream=upstream, candidate=candidate, settings=settings,
                    probe_dir=paths.probe_dir(model_key, n), isolated=isolated,
                    outage_seconds=PROBE_OUTAGE_SECONDS,
                ))  # fmt: skip
            reason_class, reason = probes_verdict(probes, settings.probes)
    qualified = reason_class is None
    record = PreflightRecord(
        round_id=round_id, model_key=model_key, route=candidate.route,
        expected_slug=candidate.expected_canonical_slug, agent=agent.info,
        gateway_kind=settings.gateway.kind, isolation=isolation_for(isolated), catalogue=catalogue,
        probes=probes, probes_required=settings.probes,
        probes_passed=sum(p.passed for p in probes), qualified=qualified,
        verdict="qualified" if qualified else "not_testable", reason_class=reason_class,
        reason=reason, cost_usd=round(sum(p.cost_usd for p in probes), 8),
        started_at=started, finished_at=now_iso(),
    )  # fmt: skip
    write_record(target, record)
    return record
