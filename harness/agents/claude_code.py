"""Claude Code 2.1.332 as a harness agent: `claude -p` headless, Anthropic Messages to the proxy.

Recorded in tests/data/agents/claude-code-2.1.332/ (README there): the CLI posts only to
`<ANTHROPIC_BASE_URL>/v1/messages?beta=true`; without `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC`
it also sends `HEAD <base>/api/hello` (a preconnect) and reaches api.anthropic.com.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from harness.agents.base import CliAgent, Launch, truncate
from harness.agents.native import as_dict, as_int, cut_inputs, iso_ms, json_lines
from harness.session.sandbox import SandboxSpec
from records.evidence.agent import (
    AgentIdentity,
    AgentInfo,
    AgentTrace,
    ErrorPart,
    Step,
    StepMetrics,
    TextPart,
    ToolPart,
)
from records.tools import CLAUDE_CODE

VERSION = "2.1.332"
BINARY_INSIDE = "/opt/agent/bin/claude"
PLACEHOLDER_KEY = "sk-siteos-proxy"  # the real key is added by the proxy, never seen by the agent
# The built-in tools offered (the CLI's default set adds subagents, skills, cron, worktrees, web
# fetch and search, deferred-tool search, ...: like OpenCode's, this one edits and runs commands).
TOOLS = ("Bash", "Edit", "Read", "Write")
DENIED_TOOLS = ("WebFetch", "WebSearch")
# Every model name the CLI may use (main, tier aliases, its small/fast model, subagents): one.
MODEL_ENV = (
    "ANTHROPIC_MODEL",
    "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "ANTHROPIC_DEFAULT_FABLE_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
    "CLAUDE_CODE_SUBAGENT_MODEL",
)
FIXED_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",  # the preconnect and api.anthropic.com
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1",  # no memory folder read or written
    # No experimental betas: else a 400 (a refused step) is retried five times, a beta fewer each
    "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS": "1",
}
SETTINGS: dict[str, Any] = {
    "attribution": {"commit": "", "pr": ""},  # no Co-Authored-By trailer naming the agent
    "autoMemoryEnabled": False,
    "autoUpdates": False,
    "permissions": {"defaultMode": "bypassPermissions", "deny": list(DENIED_TOOLS)},
}
EDIT_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
FILE_TEXT_KEYS = ("content", "old_string", "new_string")
FINISH = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool-calls",
          "max_tokens": "length"}  # fmt: skip  # the trajectory's (OpenCode's) words
EXIT_CODE = re.compile(r"^Exit code (\d+)")
IDENTITY = AgentIdentity(
    names=["Claude Code", "claude-code"],
    files=[r"(^|/)\.claude/", r"(^|/)CLAUDE\.md$", r"(^|/)\.mcp\.json$"],
    ids=[r"\btoolu_[A-Za-z0-9]{8,}\b"],
)


def anthropic_base(base_url: str) -> str:
    """The proxy's Anthropic base: its OpenRouter base without `/v1` (the CLI appends it)."""
    return base_url.rstrip("/").removesuffix("/v1")


class ClaudeCodeAgent(CliAgent):
    """`claude -p --output-format stream-json --include-partial-messages`, prompt on stdin."""

    info = AgentInfo(name="claude-code", version=VERSION)
    identity = IDENTITY
    home_dirs = (".claude",)

    def __init__(self, binary: Path = CLAUDE_CODE) -> None:
        self.binary = binary.resolve()

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
        home = self.make_home(spec)
        (home / ".claude" / "settings.json").write_text(json.dumps(SETTINGS, indent=2) + "\n")
        if spec.isolated:
            spec.ro_binds[BINARY_INSIDE] = self.binary
            binary = BINARY_INSIDE
        else:
            binary = str(self.binary)
        spec.env.update(
            {
                "ANTHROPIC_BASE_URL": anthropic_base(spec.base_url),
                "ANTHROPIC_AUTH_TOKEN": PLACEHOLDER_KEY,
                **dict.fromkeys(MODEL_ENV, route),
                **FIXED_ENV,
            }
        )
        command = [
            binary, "-p", "--output-format", "stream-json", "--verbose",
            "--include-partial-messages", "--model", route, "--name", title,
            "--permission-mode", "bypassPermissions", "--tools", ",".join(TOOLS),
            "--disallowedTools", ",".join(DENIED_TOOLS), "--strict-mcp-config",
            "--setting-sources", "user",
        ]  # fmt: skip
        if reasoning == "high":
            command += ["--effort", "high"]
        return Launch(command=command, stdin=prompt)

    def read_trace(self, events: Path) -> AgentTrace:
        """The stream-json events into the trajectory: a step per model message (`message_start`
        … `message_delta`, its stop reason and usage), its text, thinking and tool calls from the
        `assistant` lines, each call's result from the `user` line that answers it."""
        trace = self.new_trace(events)
        reader = _Reader(trace)
        for source, event in json_lines(trace, events):
            reader.read(source, event)
        return trace


class _Reader:
    def __init__(self, trace: AgentTrace) -> None:
        self.trace = trace
        self.step: Step | None = None
        self.message_id: str | None = None
        self.calls: dict[str, ToolPart] = {}

    def read(self, source: str, event: dict[str, Any]) -> None:
        if event.get("parent_tool_use_id"):
            return  # a subagent's message (the Agent tool is not offered)
        kind = event.get("type")
        if kind == "stream_event":
            self._stream(as_dict(event.get("event")))
        elif kind == "assistant":
            self._assistant(source, event)
        elif kind == "user":
            self._user(event)
        elif kind == "result":
            self._result(source, event)

    def _open(self, message_id: str | None) -> Step:
        step = Step(step_id=len(self.trace.steps) + 1, source="agent")
        self.trace.steps.append(step)
        self.step, self.message_id = step, message_id
        return step

    def _stream(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "message_start":
            message = as_dict(event.get("message"))
            step = self._open(str(message.get("id") or ""))
            step.metrics = _metrics(as_dict(message.get("usage")), StepMetrics())
        elif kind == "message_delta" and self.step is not None:
            reason = as_dict(event.get("delta")).get("stop_reason")
            if isinstance(reason, str):
                self.step.finish_reason = FINISH.get(reason, reason)
            self.step.metrics = _metrics(
                as_dict(event.get("usage")), self.step.metrics or StepMetrics()
            )

    def _assistant(self, source: str, event: dict[str, Any]) -> None:
        message = as_dict(event.get("message"))
        ts = iso_ms(event.get("timestamp"))
        if event.get("is_api_error_message"):  # the CLI's own message (model "<synthetic>")
            text = " ".join(str(as_dict(b).get("text", "")) for b in message.get("content") or [])
            self._error(text.strip() or "API error", event, ts, source)
            return
        step = self.step
        if step is None or self.message_id != message.get("id"):
            step = self._open(str(message.get("id") or ""))  # a log without stream events
        step.started_at = step.started_at or ts
        step.finished_at = ts
        for block in message.get("content") or []:
            part = _part(as_dict(block), ts, source)
            if part is not None:
                step.parts.append(part)
                if isinstance(part, ToolPart):
                    self.calls[part.call_id] = part

    def _user(self, event: dict[str, Any]) -> None:
        content = as_dict(event.get("message")).get("content")
        blocks = [as_dict(b) for b in content] if isinstance(content, list) else []
        results = [b for b in blocks if b.get("type") == "tool_result"]
        # the structured result, when the line answers one call (it does, one line a call)
        meta = as_dict(event.get("tool_use_result")) if len(results) == 1 else {}
        for block in results:
            part = self.calls.get(str(block.get("tool_use_id", "")))
            if part is not None:
                _answer(part, block, meta)

    def _result(self, source: str, event: dict[str, Any]) -> None:
        agent_steps = [s for s in self.trace.steps if s.source == "agent"]
        for step in agent_steps[:-1]:  # a log without stream events names no stop reasons
            if step.finish_reason is None and any(isinstance(p, ToolPart) for p in step.parts):
                step.finish_reason = "tool-calls"
        reason = event.get("stop_reason")
        if agent_steps and agent_steps[-1].finish_reason is None and isinstance(reason, str):
            agent_steps[-1].finish_reason = FINISH.get(reason, reason)
        last = self.trace.steps[-1] if self.trace.steps else None
        if (event.get("is_error") or event.get("subtype") != "success") and not (
            last is not None and last.source == "system"  # the API error already said it
        ):
            name = str(event.get("terminal_reason") or event.get("subtype") or "error")
            message = event.get("result") or "; ".join(map(str, event.get("errors") or []))
            self._error(f"{name}: {message}" if message else name, event, None, source)

    def _error(self, text: str, event: dict[str, Any], ts: int | None, source: str) -> None:
        """An error the CLI reported, in a `system` step after the turns."""
        step = Step(step_id=len(self.trace.steps) + 1, source="system", started_at=ts)
        step.parts.append(
            ErrorPart(text=text, detail=json.dumps(event)[:2000], timestamp=ts, source=source)
        )
        self.trace.steps.append(step)
        self.step = None


def _metrics(usage: dict[str, Any], metrics: StepMetrics) -> StepMetrics:
    """`metrics` with the counts `usage` reports (a later report replaces an earlier one)."""
    counts = {
        "input_tokens": as_int(usage.get("input_tokens")),
        "output_tokens": as_int(usage.get("output_tokens")),
        "cache_read_tokens": as_int(usage.get("cache_read_input_tokens")),
        "cache_write_tokens": as_int(usage.get("cache_creation_input_tokens")),
    }
    return metrics.model_copy(update={k: v for k, v in counts.items() if v is not None})


def _part(block: dict[str, Any], ts: int | None, source: str) -> TextPart | ToolPart | None:
    kind = block.get("type")
    if kind in ("text", "thinking"):
        text, cut = truncate(str(block.get(kind) or ""))
        return TextPart(
            kind="text" if kind == "text" else "reasoning",
            text=text, truncated=cut, timestamp=ts, source=source,
        )  # fmt: skip
    if kind == "tool_use":
        tool, inputs = str(block.get("name", "")), as_dict(block.get("input"))
        return ToolPart(
            tool=tool, status="pending", call_id=str(block.get("id", "")),
            title=str(inputs.get("description") or ""), input=cut_inputs(inputs, FILE_TEXT_KEYS),
            shell=tool == "Bash", timestamp=ts, source=source,
        )  # fmt: skip
    return None


def _answer(part: ToolPart, block: dict[str, Any], meta: dict[str, Any]) -> None:
    """Fill a tool call from the `tool_result` block that answers it. A command's exit code is
    in the text of a failed result ("Exit code 2"); a result that is not an error exited 0,
    unless the CLI read the code as an answer (`returnCodeInterpretation`: `test`, `grep` with
    no match) or cut the command short, and then the code is not reported."""
    content = block.get("content")
    if isinstance(content, list):
        content = "\n".join(str(as_dict(c).get("text", "")) for c in content)
    output = str(content or "")
    failed = bool(block.get("is_error"))
    part.status = "error" if failed else "completed"
    part.output, part.output_truncated = truncate(output)
    if part.shell:
        found = EXIT_CODE.match(output)
        unknown = failed or meta.get("returnCodeInterpretation") or meta.get("interrupted")
        part.exit_code = int(found.group(1)) if found else (None if unknown else 0)
        part.status = "completed" if found or not failed else "error"  # the command ran
    if part.tool in EDIT_TOOLS and not failed:
        path = part.input.get("file_path") or part.input.get("notebook_path")
        part.files = [str(path)] if path else []
