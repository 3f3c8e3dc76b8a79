"""Harness agents behind one small interface; OpenCode is the Round 0 implementation."""

from harness.agents.base import Agent, AgentTrace, CommandRun, Launch
from harness.agents.opencode import OpenCodeAgent

AGENTS: dict[str, type[OpenCodeAgent]] = {"opencode": OpenCodeAgent}


def default_agent() -> Agent:
    return OpenCodeAgent()


__all__ = [
    "AGENTS",
    "Agent",
    "AgentTrace",
    "CommandRun",
    "Launch",
    "OpenCodeAgent",
    "default_agent",
]
