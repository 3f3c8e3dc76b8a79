"""The methodology's fixed controls, defined once, and how a round's settings differ from them.

`seed/round-0-methodology.md` "Fixed controls": Node.js 22+, OpenCode 1.17.18, gateway fallbacks
disabled, a hard ceiling of 40 agent steps and 30 minutes, one scored run after three successful
probes. A real round (`kind: real`) must equal every one: `RoundSettings` refuses it at load,
naming the file and each difference. Only a demo or rehearsal round may differ, and the site
discloses every difference on its pages (`publish/banner.py`).

Fallbacks are not a round setting at all: the recording proxy writes `GatewayPolicy` into every
request, whose default keeps `allow_fallbacks` false; a changed default is a difference of every
round.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from records.evidence.gateway import GatewayPolicy

STEPS = 40
WALL_CLOCK_MINUTES = 30.0
PROBES = 3
NODE_MAJOR_MIN = 22
AGENT = ("opencode", "1.17.18")
NODE_MAJOR = re.compile(r"^v?(\d+)(\.\d+)*$")
SUMMARY = (
    f"{STEPS} agent steps, {WALL_CLOCK_MINUTES:g} minutes, {PROBES} adapter probes, "
    f"Node.js {NODE_MAJOR_MIN}+, OpenCode {AGENT[1]}, gateway fallbacks disabled"
)


@dataclass(frozen=True)
class ControlDifference:
    """One fixed control the round sets otherwise: what the methodology says, what it has."""

    control: str
    methodology: str
    round_value: str

    def __str__(self) -> str:
        return f"{self.control}: {self.round_value} (methodology: {self.methodology})"


def _node_ok(version: str) -> bool:
    match = NODE_MAJOR.match(version.strip())
    return match is not None and int(match.group(1)) >= NODE_MAJOR_MIN


def differences(
    *,
    steps: int,
    wall_clock_minutes: float,
    probes: int,
    node_version: str,
    agent_name: str,
    agent_version: str,
) -> list[ControlDifference]:
    """Every fixed control the given round settings do not meet (empty: all met)."""
    found: list[ControlDifference] = []
    if steps != STEPS:
        found.append(ControlDifference("agent step ceiling", f"{STEPS}", f"{steps}"))
    if wall_clock_minutes != WALL_CLOCK_MINUTES:
        found.append(
            ControlDifference(
                "wall-clock ceiling", f"{WALL_CLOCK_MINUTES:g} min", f"{wall_clock_minutes:g} min"
            )
        )
    if probes != PROBES:
        found.append(ControlDifference("adapter probes required", f"{PROBES}", f"{probes}"))
    if not _node_ok(node_version):
        found.append(ControlDifference("Node.js", f"{NODE_MAJOR_MIN}+", node_version))
    if (agent_name, agent_version) != AGENT:
        found.append(
            ControlDifference("agent", f"{AGENT[0]} {AGENT[1]}", f"{agent_name} {agent_version}")
        )
    if GatewayPolicy().allow_fallbacks:
        found.append(ControlDifference("gateway fallbacks", "disabled", "allowed"))
    return found
