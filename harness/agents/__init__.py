"""Agents as plug-ins: the round settings name one (`agent: {name, version}`), this registry maps
the name to its adapter, and the adapter writes the neutral `trace.json` scoring reads.

Adding an agent: an adapter class following `Agent` (harness/agents/base.py), one entry in
`AGENTS`, and a round file naming it (see docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Callable

from harness.agents.base import Agent, AgentTrace, CommandRun, Launch
from harness.agents.claude_code import ClaudeCodeAgent
from harness.agents.codex import CodexAgent
from harness.agents.copilot import CopilotAgent
from harness.agents.gemini_cli import GeminiCliAgent
from harness.agents.opencode import OpenCodeAgent
from records.evidence.agent import AgentInfo

AGENTS: dict[str, Callable[[], Agent]] = {
    "opencode": OpenCodeAgent,
    "claude-code": ClaudeCodeAgent,
    "codex": CodexAgent,
    "gemini-cli": GeminiCliAgent,
    "copilot": CopilotAgent,
}


class AgentRefused(RuntimeError):
    """The round names an agent (or a version) this checkout cannot run as named."""


def adapter(info: AgentInfo, where: str) -> Agent:
    """The adapter for `info`, refusing an unknown name or a version the adapter does not speak."""
    make = AGENTS.get(info.name)
    if make is None:
        known = ", ".join(sorted(AGENTS))
        raise AgentRefused(f"{where}: agent {info.name!r} has no adapter (known: {known})")
    agent = make()
    if agent.info.version != info.version:
        raise AgentRefused(
            f"{where}: names {info.name} {info.version}, but the adapter speaks "
            f"{agent.info.name} {agent.info.version}"
        )
    return agent


def agent_for(info: AgentInfo, where: str) -> Agent:
    """The adapter a round names, refused unless exactly that version is installed."""
    agent = adapter(info, where)
    installed = agent.installed_version()
    if installed != info.version:
        raise AgentRefused(
            f"{where}: names {info.name} {info.version}, but {installed or 'no version'} is "
            "installed (.tools/versions.json); run scripts/setup, or make a new round for "
            "another version"
        )
    return agent


__all__ = [
    "AGENTS",
    "Agent",
    "AgentRefused",
    "AgentTrace",
    "ClaudeCodeAgent",
    "CodexAgent",
    "CopilotAgent",
    "CommandRun",
    "GeminiCliAgent",
    "Launch",
    "OpenCodeAgent",
    "adapter",
    "agent_for",
]
