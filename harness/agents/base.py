"""The small agent interface every harness implementation follows.

An agent turns (route, reasoning policy, sandbox) into a command line plus files in its private
HOME, reads its own native event log back into the neutral `AgentTrace` record (trace.json), and
names what identifies it in a blind packet. All model traffic goes through the recording proxy
at `spec.base_url`, so another agent is one more adapter: the runner, the proxy and the evidence
format stay as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Protocol

from harness.session.sandbox import SandboxSpec
from records.evidence.agent import AgentIdentity, AgentInfo, AgentTrace, CommandRun, cut_middle
from records.tools import tool_versions

OUTPUT_LIMIT = 4000

__all__ = ["Agent", "AgentTrace", "CliAgent", "CommandRun", "Launch", "truncate"]


@dataclass
class Launch:
    """The agent's command (run inside the sandbox) and its stdin bytes."""

    command: list[str]
    stdin: bytes


class Agent(Protocol):
    info: AgentInfo
    identity: AgentIdentity

    def installed_version(self) -> str | None:
        """The version of the binary this checkout would run (None when it is not installed)."""
        ...

    def prepare(
        self,
        spec: SandboxSpec,
        *,
        route: str,
        reasoning: str,
        title: str,
        prompt: bytes,
        context_length: int | None = None,
    ) -> Launch:
        """Write the agent's config into `spec.home`, add env/binds to `spec`, return the launch
        (`context_length`: the route's context window from the catalogue, when it names one)."""
        ...

    def read_trace(self, events: Path) -> AgentTrace:
        """Read the agent's native event log (its stdout) into the neutral trace."""
        ...


class CliAgent:
    """What the CLI adapters share: the version `scripts/setup` installed, the folders of the
    private HOME, and an empty trace naming the agent."""

    info: AgentInfo
    identity: AgentIdentity
    home_dirs: ClassVar[tuple[str, ...]] = ()  # besides `tmp`

    def installed_version(self) -> str | None:
        """What `scripts/setup` installed into `.tools/` (`.tools/versions.json`)."""
        return tool_versions().get(self.info.name)

    def make_home(self, spec: SandboxSpec) -> Path:
        """The agent's folders in its private HOME and `tmp`, the TMPDIR of a run outside the
        sandbox's own /tmp; returns the HOME."""
        for sub in (*self.home_dirs, "tmp"):
            (spec.home / sub).mkdir(parents=True, exist_ok=True)
        if not spec.isolated:
            spec.env["TMPDIR"] = f"{spec.home_inside}/tmp"
        return spec.home

    def new_trace(self, events: Path) -> AgentTrace:
        """The empty trajectory of the log `events`."""
        return AgentTrace(agent=self.info, events=events.name, identity=self.identity)


def truncate(text: str, limit: int = OUTPUT_LIMIT) -> tuple[str, bool]:
    """`text` with its middle cut to `limit` characters (the trajectory's cut marker)."""
    return cut_middle(text, limit)
