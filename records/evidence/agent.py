"""What an agent did, in neutral terms: `trace.json` and `commands.json` of a unit or probe.

Each agent adapter reads its own native event log (OpenCode: `events.jsonl`) into an
`AgentTrace`; every message, tool call and command cites the native line it came from
(`events.jsonl:12`), so scoring never parses an agent's own format. The adapter also names what
identifies it (product names, its own files, its id formats) for the blind-review anonymiser.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from records.base import Record, Root


class AgentInfo(Record):
    name: str
    version: str


class AgentIdentity(Record):
    """What would reveal the agent in a blind packet; each adapter supplies its own."""

    names: list[str] = Field(default_factory=list, description="product names, e.g. 'OpenCode'")
    files: list[str] = Field(
        default_factory=list, description="regexes of the agent's own files in a worktree diff"
    )
    ids: list[str] = Field(default_factory=list, description="regexes of its native ids")


class Message(Record):
    """Text the model produced (its answer or its visible reasoning)."""

    kind: Literal["text", "reasoning"] = "text"
    text: str
    truncated: bool = False
    timestamp: int | None = Field(default=None, description="ms since the epoch, if reported")
    source: str = Field(description="native event line, e.g. 'events.jsonl:7'")


class ToolCall(Record):
    tool: str
    status: str = Field(description="'completed' when the tool ran")
    input: dict[str, Any] = Field(default_factory=dict, description="long strings cut")
    call_id: str = ""
    timestamp: int | None = None
    source: str


class CommandRun(Record):
    """One shell command the agent ran, as its events report it."""

    call_id: str = ""
    command: str
    exit_code: int | None
    status: str = Field(description="'completed' when the command ran (any exit code)")
    output: str = ""
    output_truncated: bool = False
    timestamp: int | None = None
    source: str | None = Field(
        default=None, description="native event line; absent in commands.json of schema 1"
    )

    @property
    def line(self) -> int | None:
        """The 1-based line of the native event log that reports this command."""
        if self.source is None or ":" not in self.source:
            return None
        number = self.source.rsplit(":", 1)[1]
        return int(number) if number.isdigit() else None


class CommandsRecord(Root):
    """`commands.json`: every shell command of the session (schema 1 was a bare list)."""

    schema_version: int = 2
    commands: list[CommandRun] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _bare_list(cls, data: Any) -> Any:
        return {"schema_version": 1, "commands": data} if isinstance(data, list) else data


class AgentTrace(Root):
    """`trace.json`: the agent's session in neutral terms, rebuilt from its native events."""

    agent: AgentInfo
    events: str = Field(default="events.jsonl", description="the native log the sources cite")
    identity: AgentIdentity = Field(default_factory=AgentIdentity)
    steps: int = 0
    messages: list[Message] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    commands: list[CommandRun] = Field(default_factory=list)
    edits: list[str] = Field(default_factory=list, description="files a completed edit touched")
    errors: list[str] = Field(default_factory=list)
    finish_reasons: list[str] = Field(default_factory=list)
    malformed_lines: int = 0

    @property
    def finished_normally(self) -> bool:
        return bool(self.finish_reasons) and self.finish_reasons[-1] == "stop" and not self.errors
