"""One agent session through the recording proxy inside the sandbox: shared by units and probes."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.agents.base import Agent
from harness.progress import Progress
from harness.session.image_tool import install_tool
from harness.session.process import ProcessOutcome, run_process
from harness.session.sandbox import SandboxSpec
from harness.session.upstream import Upstream, unit_proxy
from records.evidence.agent import AgentTrace
from records.evidence.gateway import GatewaySummary, summarize
from records.evidence.session import Isolation, StopStatus
from records.image_tool import ImageTool
from records.inputs import Candidate, RoundSettings
from records.layout import SessionPaths
from sandbox.profiles import session_limits

OUTAGE_SECONDS = 300.0
LINGER_SECONDS = 30.0
CEILING_STOPS: dict[str, StopStatus] = {
    "time": "time_ceiling",
    "outage": "provider_outage",
    "step_ceiling": "step_ceiling",
    "budget_ceiling": "budget_ceiling",
    "lingered": "completed",
}


class OutageWatch:
    """Ends a session whose gateway has failed for `seconds` without one good response.

    OpenCode retries upstream 5xx forever; this stops a dead provider before the wall clock. Only
    the provider's failures count (`records.evidence.gateway.PROVIDER_ERRORS`): a model that keeps
    overflowing its context or our key that keeps failing is not a provider outage, and the
    attribution table must see that session's own stop, not `provider_outage`.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.good = 0
        self.errors_at_good = 0
        self.since = time.monotonic()

    def __call__(self, requests: int, errors: int, refused: int) -> bool:
        good = requests - errors - refused
        if good != self.good:
            self.good, self.errors_at_good, self.since = good, errors, time.monotonic()
            return False
        failing = errors - self.errors_at_good
        return failing >= 2 and time.monotonic() - self.since >= self.seconds


class LingerWatch:
    """Ends an agent whose run is over but whose process does not exit.

    OpenCode can log its final `step_finish` (reason stop) and never exit (upstream issue 44901);
    waiting for it would turn a finished session into a time-ceiling stop scored against the
    model. The run is over when the agent's own trace says so (`AgentTrace.finished_normally`),
    no request is in flight at the proxy and the log has not grown for `seconds`. The log is
    parsed at most every `CHECK_SECONDS` (a long session's log is megabytes), and only when it
    grew. `final_step_at` is the final step's own timestamp (wall clock), when the trace has one.
    """

    CHECK_SECONDS = 5.0

    def __init__(self, agent: Agent, events: Path, seconds: float) -> None:
        self.agent, self.events, self.seconds = agent, events, seconds
        self.size = -1
        self.checked = 0.0
        self.ended_at: float | None = None  # when the runner saw the final step (monotonic)
        self.final_step_at: float | None = None  # when the agent logged it (epoch seconds)

    def __call__(self, in_flight: int) -> bool:
        now = time.monotonic()
        if in_flight:
            self.size, self.ended_at = -1, None  # read the log again once the request is done
            return False
        if now - self.checked >= self.CHECK_SECONDS:
            self.checked = now
            size = self.events.stat().st_size if self.events.exists() else 0
            if size != self.size:
                self.size = size
                trace = self.agent.read_trace(self.events)
                self.ended_at = now if trace.finished_normally else None
                stamp = trace.steps[-1].finished_at if trace.steps else None
                self.final_step_at = stamp / 1000 if stamp else time.time()
        return self.ended_at is not None and now - self.ended_at >= self.seconds


@dataclass
class SessionOutcome:
    process: ProcessOutcome
    trace: AgentTrace
    gateway: GatewaySummary
    stop_status: StopStatus
    isolation: Isolation
    lingered_seconds: float | None = None  # the runner ended an agent that did not exit

    @property
    def limit_description(self) -> str:
        """The sandbox limit that ended the session and what the host saw ('' when none)."""
        process = self.process
        if process.limit_hit is None:
            return ""
        peaks = f" ({process.peaks})" if process.peaks else ""
        return f"{process.limit_hit}: {process.limit_message or 'limit reached'}{peaks}"


def stop_status(process: ProcessOutcome, gateway: GatewaySummary) -> StopStatus:
    """The runner's ceiling if it ended the process, else a sandbox limit that ended or failed
    it (`resource_limit`: the host stopped the sandbox at a limit, or the agent exited with an
    error that `sandbox.limits.diagnose` attributes to one), else a ceiling the proxy enforced."""
    if process.ceiling is not None:
        return CEILING_STOPS[process.ceiling]
    if process.limit_hit is not None:
        return "resource_limit"
    if gateway.step_ceiling_hit:
        return "step_ceiling"
    if gateway.budget_ceiling_hit or gateway.ended_on_budget_cut:
        return "budget_ceiling"
    return "completed"


def run_session(
    *,
    agent: Agent,
    upstream: Upstream,
    candidate: Candidate,
    settings: RoundSettings,
    worktree: Path,
    home: Path,
    socket_dir: Path,
    files: SessionPaths,
    title: str,
    prompt: bytes,
    isolated: bool,
    wall_clock_seconds: float,
    progress: Progress | None = None,
    on_start: Callable[[int], None] | None = None,
    outage_seconds: float = OUTAGE_SECONDS,
    tool: ImageTool | None = None,
) -> SessionOutcome:
    """Start the proxy, launch the agent in its sandbox, wait under the ceilings, summarise.
    A tools arm's `tool` is put on the agent's PATH and its image route allowed at the proxy."""
    socket_dir.mkdir(parents=True, exist_ok=True)
    files.gateway.touch()
    files.events.touch()
    with unit_proxy(
        upstream, candidate, settings, files.gateway, socket_dir / "proxy.sock", outage_seconds,
        tool,
    ) as proxy:  # fmt: skip
        spec = SandboxSpec(
            worktree=worktree,
            home=home,
            gateway_socket=proxy.socket_path,
            gateway_port=proxy.port,
            isolated=isolated,
            limits=session_limits(settings.slot_shape.memory_bytes),
        )
        launch = agent.prepare(
            spec,
            route=candidate.route,
            reasoning=candidate.reasoning,
            title=title,
            prompt=prompt,
            context_length=proxy.prices.context_length if proxy.prices else None,
        )
        install_tool(spec, tool)
        env = spec.host_env() if not isolated else {"PATH": "/usr/bin:/bin"}

        def tick(elapsed: float) -> None:
            if progress is not None:
                state = proxy.state
                progress.update("session", state.steps, state.cost_usd)

        outage = OutageWatch(outage_seconds)
        linger = LingerWatch(agent, files.events, LINGER_SECONDS)

        def ceiling() -> str | None:
            state = proxy.state
            if state.ceiling:
                return state.ceiling
            if state.stalls or state.truncated:  # no data for the outage window, or a cut turn
                return "outage"
            if outage(state.requests, state.provider_errors, state.refused):
                return "outage"
            return "lingered" if linger(proxy.in_flight) else None

        # The worktree and HOME belong to the sandbox's host uid while it runs, and to the
        # harness again when `launch` closes (before any evidence is read from them).
        with spec.launch(launch.command) as argv:
            process = run_process(
                argv,
                env=env,
                stdin=launch.stdin,
                stdout=files.events,
                stderr=files.agent_stderr,
                wall_clock_seconds=wall_clock_seconds,
                ceiling_hit=ceiling,
                on_start=on_start,
                on_tick=tick,
                cwd=worktree if not isolated else None,
                limits=spec.limits if isolated else None,
                tmp_size=spec.tmp_size if isolated else None,
                writable=spec.writable,
                label=" ".join([Path(launch.command[0]).name, *launch.command[1:2]]),
            )
        isolation = spec.isolation()
    lingered = None
    if process.ceiling == "lingered" and linger.final_step_at is not None:
        lingered = round(max(0.0, time.time() - linger.final_step_at), 1)
    gateway = summarize(files.gateway)
    return SessionOutcome(
        process=process,
        trace=agent.read_trace(files.events),
        gateway=gateway,
        stop_status=stop_status(process, gateway),
        isolation=isolation,
        lingered_seconds=lingered,
    )
