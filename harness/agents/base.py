"""The small agent interface every harness implementation follows.

An agent turns (route, reasoning policy, sandbox) into a command line plus files in its private
HOME, and reads its own event log back into a neutral trace. All model traffic goes through the
recording proxy at `spec.base_url`, so native agents can be added later as controlled
interventions without touching the runner, the proxy or the evidence format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from harness.session.sandbox import SandboxSpec
from records.evidence.session import AgentInfo

OUTPUT_LIMIT = 4000


@dataclass
class CommandRun:
    """One shell command the agent ran, as its events report it."""

    command: str
    exit_code: int | None
    status: str
    output: str
    truncated: bool
    call_id: str = ""
    timestamp: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "call_id": self.call_id,
            "command": self.command,
            "exit_code": self.exit_code,
            "status": self.status,
            "output": self.output,
            "output_truncated": self.truncated,
            "timestamp": self.timestamp,
        }


@dataclass
class AgentTrace:
    """What the agent's own events say happened (steps, tools, commands, errors)."""

    steps: int = 0
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    commands: list[CommandRun] = field(default_factory=list)
    edits: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    finish_reasons: list[str] = field(default_factory=list)
    malformed_lines: int = 0

    @property
    def finished_normally(self) -> bool:
        return bool(self.finish_reasons) and self.finish_reasons[-1] == "stop" and not self.errors


@dataclass
class Launch:
    """The agent's command (run inside the sandbox) and its stdin bytes."""

    command: list[str]
    stdin: bytes


class Agent(Protocol):
    info: AgentInfo

    def prepare(
        self, spec: SandboxSpec, *, route: str, reasoning: str, title: str, prompt: bytes
    ) -> Launch:
        """Write the agent's config into `spec.home`, add env/binds to `spec`, return the launch."""
        ...

    def read_trace(self, events: Path) -> AgentTrace:
        """Parse the agent's event log (stdout) into a neutral trace."""
        ...


def truncate(text: str, limit: int = OUTPUT_LIMIT) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters cut ...]\n{text[-half:]}", True
