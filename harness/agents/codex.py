"""Codex CLI 0.171.0 as a harness agent: `codex exec --json`, OpenAI Responses to the proxy.

Recorded in tests/data/agents/codex-0.171.0/ (README there): the CLI posts only to
`<base_url>/responses`; without the settings of `codex_config` it also reaches chatgpt.com,
ab.chatgpt.com (analytics), github.com and api.github.com (plugins), and offers the hosted
`web_search` tool, subagents and goals to the model.

Its `--json` log has no timestamps, no per-request boundaries and one token count per `turn`
(all of a run's model requests): steps are inferred, a new one where an item follows a finished
tool call with none in flight, and the turn's tokens go on its last step (see `read_trace`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.agents.base import CliAgent, Launch, truncate
from harness.agents.native import as_dict, as_int, cut_inputs, json_lines
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
from records.tools import CODEX_DIR

VERSION = "0.171.0"
PACKAGE_INSIDE = "/opt/agent/codex"  # the whole npm folder: the launcher finds its native binary
LAUNCHER = "node_modules/.bin/codex"
PLACEHOLDER_KEY = "sk-siteos-proxy"  # the real key is added by the proxy, never seen by the agent
KEY_ENV = "OPENROUTER_API_KEY"
PROVIDER = "siteos"
# Features off: each offers the model a tool or reaches a host other than the proxy.
FEATURES_OFF = ("goals", "apps", "plugins", "memories", "image_generation", "browser_use",
                "computer_use", "tool_suggest")  # fmt: skip
TOOL_ITEMS = ("command_execution", "file_change", "mcp_tool_call", "web_search")
TOKENS_NOTE = (
    "Codex reports tokens per turn (all of a run's model requests), not per request: each "
    "turn's counts are on its last step. Steps are inferred from the order of items."
)
IDENTITY = AgentIdentity(
    names=["Codex CLI", "codex-cli", "Codex"], files=[r"(^|/)\.codex/"], ids=[]
)


def codex_config(route: str, reasoning: str, base_url: str) -> dict[str, Any]:
    """config.toml: one provider (the proxy, Responses API), commands run directly (the session
    sandbox is the sandbox), no approvals, and nothing that reaches past the proxy."""
    config: dict[str, Any] = {
        "model": route,
        "model_provider": PROVIDER,
        "approval_policy": "never",
        "sandbox_mode": "danger-full-access",
        "check_for_update_on_startup": False,
        "web_search": "disabled",
    }
    if reasoning == "high":
        config["model_reasoning_effort"] = "high"
    return config | {
        "analytics": {"enabled": False},
        "feedback": {"enabled": False},
        "history": {"persistence": "none"},
        "agents": {"enabled": False},
        "features": dict.fromkeys(FEATURES_OFF, False),
        "model_providers": {
            PROVIDER: {
                "name": "siteos recording proxy",
                "base_url": base_url,
                "wire_api": "responses",
                "env_key": KEY_ENV,
            }
        },
    }


def to_toml(config: dict[str, Any], name: str = "") -> str:
    """`config` (strings, booleans and tables of them) as TOML."""
    plain = "\n".join(
        f"{k} = {json.dumps(v, ensure_ascii=False)}"
        for k, v in config.items()
        if not isinstance(v, dict)
    )
    sections = [f"[{name}]\n{plain}" if name and plain else plain]
    for key, table in config.items():
        if isinstance(table, dict):
            sections.append(to_toml(table, f"{name}.{key}" if name else key).strip("\n"))
    return "\n\n".join(s for s in sections if s) + "\n"


class CodexAgent(CliAgent):
    """`codex exec --json --strict-config -C <wt> -`, prompt on stdin."""

    info = AgentInfo(name="codex", version=VERSION)
    identity = IDENTITY
    home_dirs = (".codex",)

    def __init__(self, package: Path = CODEX_DIR) -> None:
        self.package = package.resolve()

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
        config = codex_config(route, reasoning, spec.base_url)
        (home / ".codex" / "config.toml").write_text(to_toml(config))
        if spec.isolated:
            spec.ro_binds[PACKAGE_INSIDE] = self.package
            launcher = f"{PACKAGE_INSIDE}/{LAUNCHER}"
        else:
            launcher = str(self.package / LAUNCHER)
        spec.env.update({"CODEX_HOME": f"{spec.home_inside}/.codex", KEY_ENV: PLACEHOLDER_KEY})
        command = [launcher, "exec", "--json", "--strict-config", "--skip-git-repo-check",
                   "--color", "never", "-C", spec.workdir, "-"]  # fmt: skip
        return Launch(command=command, stdin=prompt)

    def read_trace(self, events: Path) -> AgentTrace:
        """`codex exec --json` events into the trajectory: reasoning and messages as text, each
        command, file change or MCP call as a tool call (from `item.started` on, citing the
        `item.completed` line once there is one); an `error` item (a warning: the run goes on)
        into the notes."""
        trace = self.new_trace(events)
        reader = _Reader(trace)
        for source, event in json_lines(trace, events):
            reader.read(source, event)
        if reader.warnings:
            warned = "Codex warned: " + " | ".join(reader.warnings)
            trace.notes = " ".join(filter(None, [trace.notes, warned]))
        return trace


class _Reader:
    def __init__(self, trace: AgentTrace) -> None:
        self.trace = trace
        self.step: Step | None = None
        self.tools: dict[str, ToolPart] = {}
        self.in_flight: set[str] = set()
        self.warnings: list[str] = []

    def read(self, source: str, event: dict[str, Any]) -> None:
        kind = event.get("type")
        item = as_dict(event.get("item"))
        if kind in ("item.started", "item.updated", "item.completed"):
            self._item(source, item, done=kind == "item.completed")
        elif kind == "turn.completed":
            self._turn_done(as_dict(event.get("usage")))
        elif kind in ("turn.failed", "error"):
            self._failed(source, event)

    def _failed(self, source: str, event: dict[str, Any]) -> None:
        """An `error` event or a failed turn (often both, saying the same): one `system` step
        after the turn whose follow-up request failed."""
        step = self.step
        ran = step is not None and any(isinstance(p, ToolPart) for p in step.parts)
        if step is not None and ran and step.finish_reason is None and not self.in_flight:
            step.finish_reason = "tool-calls"  # its calls ran; the next request failed
        message = _inner_message(str((as_dict(event.get("error")) or event).get("message", "")))
        last = self.trace.steps[-1] if self.trace.steps else None
        if last is None or last.source != "system":
            last = Step(step_id=len(self.trace.steps) + 1, source="system")
            self.trace.steps.append(last)
        said = [p.text for p in last.parts if isinstance(p, ErrorPart)]
        if not any(text.endswith(message) for text in said):
            last.parts.append(ErrorPart(
                text=f"{event.get('type')}: {message}", detail=json.dumps(event)[:2000],
                source=source,
            ))  # fmt: skip
        self.step = None

    def _step_for(self) -> Step:
        """The step an item of the model's belongs to: a new one after a finished tool call."""
        step = self.step
        after_tools = step is not None and any(isinstance(p, ToolPart) for p in step.parts)
        if step is None or (after_tools and not self.in_flight):
            if step is not None and step.finish_reason is None:
                step.finish_reason = "tool-calls"
            step = Step(step_id=len(self.trace.steps) + 1, source="agent")
            self.trace.steps.append(step)
            self.step = step
        return step

    def _item(self, source: str, item: dict[str, Any], done: bool) -> None:
        item_type, item_id = str(item.get("type", "")), str(item.get("id", ""))
        if item_type == "error":
            self.warnings.append(str(item.get("message", "")))
        elif item_type in TOOL_ITEMS:
            part = self.tools.get(item_id)
            if part is None:
                part = ToolPart(tool=item_type, status="", call_id=item_id, source=source)
                self._step_for().parts.append(part)
                self.tools[item_id] = part
            _fill(part, item)
            if done:
                part.source = source  # the line with its outcome
            (self.in_flight.discard if done else self.in_flight.add)(item_id)
        elif item_type in ("reasoning", "agent_message") and done:
            text, cut = truncate(str(item.get("text") or ""))
            self._step_for().parts.append(TextPart(
                kind="reasoning" if item_type == "reasoning" else "text", text=text,
                truncated=cut, source=source,
            ))  # fmt: skip

    def _turn_done(self, usage: dict[str, Any]) -> None:
        if self.step is None:
            return
        self.step.finish_reason = self.step.finish_reason or "stop"
        self.step.metrics = StepMetrics(
            input_tokens=as_int(usage.get("input_tokens")),
            output_tokens=as_int(usage.get("output_tokens")),
            reasoning_tokens=as_int(usage.get("reasoning_output_tokens")),
            cache_read_tokens=as_int(usage.get("cached_input_tokens")),
            cache_write_tokens=as_int(usage.get("cache_write_input_tokens")),
        )
        if TOKENS_NOTE not in self.trace.notes:
            self.trace.notes = " ".join(filter(None, [TOKENS_NOTE, self.trace.notes]))
        self.step = None


def _inner_message(message: str) -> str:
    """The message of an error body Codex passes on as text (`{"error": {"message": ...}}`)."""
    try:
        body = json.loads(message)
    except json.JSONDecodeError:
        return message
    inner = as_dict(as_dict(body).get("error")).get("message")
    return inner if isinstance(inner, str) and inner else message


def _fill(part: ToolPart, item: dict[str, Any]) -> None:
    """A tool call as its latest item reports it. A command that ran is `completed` whatever
    its exit code (Codex says `failed` for a non-zero one); a file change names its files (its
    text is not in the log)."""
    status = str(item.get("status", ""))
    if part.tool == "command_execution":
        part.shell = True
        part.input = cut_inputs({"command": str(item.get("command", ""))}, ())
        part.exit_code = as_int(item.get("exit_code"))
        part.output, part.output_truncated = truncate(str(item.get("aggregated_output") or ""))
        status = "completed" if part.exit_code is not None else status
    elif part.tool == "file_change":
        changes = [as_dict(c) for c in item.get("changes") or []]
        part.input = {"changes": changes}
        if status == "completed":
            part.files = [str(c.get("path")) for c in changes if c.get("path")]
    else:
        part.input = cut_inputs({k: v for k, v in item.items() if k not in ("id", "type")}, ())
        result = item.get("result") or item.get("error") or ""
        part.output, part.output_truncated = truncate(
            result if isinstance(result, str) else json.dumps(result)
        )
    part.status = status
