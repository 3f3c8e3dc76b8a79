"""What an agent did, in neutral terms: `trace.json`, the trajectory of a unit or probe.

The trajectory is the one agent record (close to Harbor's ATIF): an ordered list of steps, each
one model turn with its visible reasoning, its answer text, its tool calls with their inputs and
outputs, its finish reason, its tokens and its metered cost. Each agent adapter reads its own
native event log (OpenCode: `events.jsonl`) into it, and every part cites the native line it came
from (`events.jsonl:12`), so scoring and the site never parse an agent's own format. The adapter
also names what identifies it (product names, its own files, its id formats) for the blind-review
anonymiser.

Schema 1 (flat lists of messages, tool calls and commands, no step boundaries) still loads: its
parts become one step in native-line order, with a note saying so. `commands.json`, the separate
list of shell commands units wrote before schema 2, is no longer written; old files still load.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from records.base import Record, Root, once_a_bare_list

SCHEMA_1_NOTE = (
    "Migrated from trace schema 1, which did not record step boundaries, tokens or cost per "
    "step: every part is in one step, in the order of its native line."
)


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


CUT_MARK = re.compile(r"\n\[\.\.\. \d+ characters cut \.\.\.\]\n")


def cut_middle(text: str, limit: int) -> tuple[str, bool]:
    """`text` kept whole up to `limit` characters, else its start and end with a marker saying
    how much of the middle was cut; and whether it was cut."""
    if len(text) <= limit:
        return text, False
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters cut ...]\n{text[-half:]}", True


def was_cut(text: str) -> bool:
    """Whether a text of the trajectory lost its middle (`cut_middle`'s marker is in it)."""
    return CUT_MARK.search(text) is not None


def native_line(source: str | None) -> int | None:
    """The 1-based line of the native event log a part cites (`events.jsonl:12` → 12)."""
    if source is None or ":" not in source:
        return None
    number = source.rsplit(":", 1)[1]
    return int(number) if number.isdigit() else None


class TextPart(Record):
    """Text the model produced: its answer (`text`) or its visible reasoning."""

    kind: Literal["text", "reasoning"] = "text"
    text: str
    truncated: bool = False
    timestamp: int | None = Field(default=None, description="ms since the epoch, if reported")
    source: str = Field(description="native event line, e.g. 'events.jsonl:7'")


class CommandRun(Record):
    """One shell command the agent ran, as its events report it (a view of a shell tool call;
    also the entries of the legacy `commands.json`)."""

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
        return native_line(self.source)


class ToolPart(Record):
    """One tool call with its result: what the agent asked for and what came back."""

    kind: Literal["tool"] = "tool"
    tool: str
    status: str = Field(description="'completed' when the tool ran")
    call_id: str = ""
    title: str = Field(default="", description="the agent's own short description of the call")
    input: dict[str, Any] = Field(default_factory=dict, description="long strings cut")
    output: str = ""
    output_truncated: bool = False
    exit_code: int | None = Field(default=None, description="a shell command's exit code")
    shell: bool = Field(default=False, description="a shell command (`input.command`)")
    files: list[str] = Field(default_factory=list, description="files a completed edit touched")
    timestamp: int | None = None
    source: str

    @property
    def command(self) -> CommandRun | None:
        """This call as a shell command run, if it is one."""
        if not self.shell:
            return None
        return CommandRun(
            call_id=self.call_id, command=str(self.input.get("command", "")),
            exit_code=self.exit_code, status=self.status, output=self.output,
            output_truncated=self.output_truncated, timestamp=self.timestamp, source=self.source,
        )  # fmt: skip


class ErrorPart(Record):
    """An error the agent reported (a refused request, a provider error, a crash)."""

    kind: Literal["error"] = "error"
    text: str = Field(description="the error's name and message")
    detail: str = Field(default="", description="the whole native error record, cut")
    timestamp: int | None = None
    source: str


Part = Annotated[TextPart | ToolPart | ErrorPart, Field(discriminator="kind")]


class StepMetrics(Record):
    """Tokens of one model turn as the agent reported them, and its cost as the gateway metered
    it (None where the gateway's request could not be matched to the step)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    cost_usd: float | None = Field(default=None, description="metered by the recording proxy")


class Step(Record):
    """One model turn (`agent`), or what the agent reported between turns (`system`: an error
    after its last turn, say)."""

    step_id: int = Field(ge=1, description="1-based, in order")
    source: Literal["agent", "system"] = "agent"
    started_at: int | None = Field(default=None, description="ms since the epoch")
    finished_at: int | None = None
    finish_reason: str | None = Field(default=None, description="None: the turn never finished")
    metrics: StepMetrics | None = None
    parts: list[Part] = Field(default_factory=list)


SCHEMA_1_EDIT_TOOLS = ("edit", "write", "apply_patch", "patch", "multiedit")  # its only writer:
# the OpenCode adapter, whose edit tools these were
SCHEMA_1_KEYS = ("messages", "tool_calls", "commands", "edits", "errors", "finish_reasons")


def _is_schema_1(data: dict[str, Any]) -> bool:
    if "schema_version" in data:
        return data["schema_version"] == 1
    return isinstance(data.get("steps"), int) or any(k in data for k in SCHEMA_1_KEYS)


def _schema_1(data: dict[str, Any]) -> dict[str, Any]:
    """A schema-1 trace as schema 2: its parts in one step, in native-line order."""
    commands = {c.get("call_id"): c for c in data.get("commands", []) if isinstance(c, dict)}
    edits = [str(e) for e in data.get("edits", [])]  # in call order: each call's files in turn
    parts: list[dict[str, Any]] = [dict(m) for m in data.get("messages", [])]
    for call in data.get("tool_calls", []):
        inputs = call.get("input") or {}
        run = commands.get(call.get("call_id")) if call.get("tool") == "bash" else None
        named = {str(inputs.get(k)) for k in ("filePath", "path") if inputs.get(k)}
        patch = str(inputs.get("patchText", ""))
        named.add(str(call.get("tool")))  # a call that named no file stood for itself
        touched: list[str] = []
        if call.get("tool") in SCHEMA_1_EDIT_TOOLS and call.get("status") == "completed":
            while edits and (edits[0] in named or (patch and edits[0] in patch)):
                touched.append(edits.pop(0))
        parts.append({
            "kind": "tool", "tool": call.get("tool", ""), "status": call.get("status", ""),
            "call_id": call.get("call_id", ""), "input": inputs, "timestamp": call.get("timestamp"),
            "source": call.get("source", ""), "shell": run is not None,
            "files": touched,
            **({k: run.get(k) for k in ("output", "output_truncated", "exit_code")} if run else {}),
        })  # fmt: skip
    for error in data.get("errors", []):
        parts.append({"kind": "error", "text": str(error)[:300], "detail": error, "source": ""})
    parts.sort(key=lambda p: native_line(p.get("source")) or 10**9)
    reasons = [str(r) for r in data.get("finish_reasons", [])]
    step = {"step_id": 1, "parts": parts, "finish_reason": reasons[-1] if reasons else None}
    return {
        "schema_version": 2, "agent": data.get("agent"),
        "events": data.get("events", "events.jsonl"),
        "identity": data.get("identity", {}), "steps": [step] if parts or reasons else [],
        "malformed_lines": data.get("malformed_lines", 0), "notes": SCHEMA_1_NOTE,
    }  # fmt: skip


class AgentTrace(Root):
    """`trace.json`: the agent's trajectory in neutral terms, rebuilt from its native events."""

    schema_version: int = 2
    agent: AgentInfo
    events: str = Field(default="events.jsonl", description="the native log the sources cite")
    identity: AgentIdentity = Field(default_factory=AgentIdentity)
    steps: list[Step] = Field(default_factory=list)
    malformed_lines: int = Field(default=0, description="native lines that were not JSON")
    notes: str = ""

    @model_validator(mode="before")
    @classmethod
    def _migrate(cls, data: Any) -> Any:
        if isinstance(data, dict) and _is_schema_1(data):
            return _schema_1(data)
        return data

    def parts(self) -> list[TextPart | ToolPart | ErrorPart]:
        return [part for step in self.steps for part in step.parts]

    @property
    def turns(self) -> int:
        """Model turns the agent started (its own count of steps)."""
        return sum(1 for s in self.steps if s.source == "agent")

    @property
    def messages(self) -> list[TextPart]:
        return [p for p in self.parts() if isinstance(p, TextPart)]

    @property
    def tool_calls(self) -> list[ToolPart]:
        return [p for p in self.parts() if isinstance(p, ToolPart)]

    @property
    def commands(self) -> list[CommandRun]:
        return [c for p in self.tool_calls if (c := p.command) is not None]

    @property
    def edits(self) -> list[str]:
        return [f for p in self.tool_calls for f in p.files]

    @property
    def errors(self) -> list[str]:
        return [p.detail or p.text for p in self.parts() if isinstance(p, ErrorPart)]

    @property
    def finish_reasons(self) -> list[str]:
        return [s.finish_reason for s in self.steps if s.finish_reason is not None]

    @property
    def first_timestamp(self) -> int | None:
        stamps = [s.started_at for s in self.steps if s.started_at is not None]
        stamps += [p.timestamp for p in self.parts() if p.timestamp is not None]
        return min(stamps) if stamps else None

    @property
    def finished_normally(self) -> bool:
        """The run is over: its last step closed with reason "stop" (the model answered without a
        tool call) and no error was logged."""
        return bool(self.steps) and self.steps[-1].finish_reason == "stop" and not self.errors


class CommandsRecord(Root):
    """Legacy `commands.json` (no longer written: the trajectory holds every command)."""

    schema_version: int = 2
    commands: list[CommandRun] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _bare_list(cls, data: Any) -> Any:
        return once_a_bare_list(data, "commands", version=1)
