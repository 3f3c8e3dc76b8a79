"""GitHub Copilot CLI 1.0.102 as a harness agent: `copilot --output-format json`, headless, its
bring-your-own-key provider pointed at the proxy's OpenAI Responses path (the one Codex uses).
Its other wire, chat/completions, sends `temperature: 0`, `top_p: 0.95` and zero frequency and
presence penalties on every request, which under the frozen `require_parameters` a route that
does not list the penalties (the demo builder, many live routes) has no endpoint for; on
Responses it sends no sampling settings, only `reasoning` and `max_output_tokens`.

The npm package's bin is a Node launcher that execs the native binary of its platform package;
that binary carries the CLI's JavaScript as an embedded archive, which `scripts/setup` unpacks
once into `.tools/copilot/cache` (bound read-only, `COPILOT_PKG_CACHE_HOME`). With
`COPILOT_PROVIDER_BASE_URL` set the CLI needs no GitHub sign-in; `COPILOT_OFFLINE=true` turns off
GitHub authentication, telemetry, the web tools, the GitHub MCP server and auto-update (the CLI's
`help environment`). The prompt comes on stdin (the CLI reads piped stdin as the prompt).

Its JSONL log has a `turn_start`/`turn_end` pair per model request, each message with its tool
requests, each tool's start and completion (a shell call's exit code in `shellExecution`), and no
tokens or cost (its `result` carries request counts and durations only): tokens and cost come
from the proxy (`gateway.jsonl` beside the log), as for Gemini CLI.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.agents.base import CliAgent, Launch, truncate
from harness.agents.native import (
    as_dict,
    as_int,
    cut_inputs,
    gateway_usage,
    iso_ms,
    json_lines,
    use_gateway_usage,
)
from harness.session.sandbox import SandboxSpec
from records.evidence.agent import (
    AgentIdentity,
    AgentInfo,
    AgentTrace,
    ErrorPart,
    Step,
    TextPart,
    ToolPart,
)
from records.tools import COPILOT_CACHE, COPILOT_DIR, COPILOT_NATIVE_IN

VERSION = "1.0.102"
PACKAGE_INSIDE = "/opt/agent/copilot"  # the npm folder and the unpacked cache beside it
# Its native network layer refuses to start without TLS trust roots, even for the proxy's plain
# http ("no trust roots available for proxy TLS"); the sandbox has none of the host's /etc/ssl,
# so the host's bundle is bound read-only and named by SSL_CERT_FILE (trust only, no network).
CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
CA_INSIDE = "/opt/agent/ca-certificates.crt"
PLACEHOLDER_KEY = "sk-siteos-proxy"  # the real key is added by the proxy, never seen by the agent
# Its provider's limits for a model outside its catalogue (else it warns and guesses): the
# prompt limit is the context it compacts to, the route's context window less the output it asks
# for (the CLI's own guess, 128,000, when the catalogue names no window); the output limit goes
# upstream as `max_output_tokens`.
GUESSED_PROMPT_TOKENS = 128_000
MAX_OUTPUT_TOKENS = 16_000
# The built-in tools offered: files, search and a shell (like OpenCode's set). Left out: task and
# the agent tools (subagents), skill, sql and session_store_sql, fetch_copilot_cli_documentation,
# ask_user (`--no-ask-user`); the web tools are off with COPILOT_OFFLINE.
TOOLS = ("bash", "read_bash", "stop_bash", "list_bash", "view", "create", "edit", "grep", "glob")
FIXED_ENV = {
    "COPILOT_PROVIDER_TYPE": "openai",
    "COPILOT_PROVIDER_WIRE_API": "responses",
    "COPILOT_PROVIDER_MAX_OUTPUT_TOKENS": str(MAX_OUTPUT_TOKENS),
    "COPILOT_OFFLINE": "true",
    "COPILOT_AUTO_UPDATE": "false",
    "NO_COLOR": "1",
}
FLAGS = ("--allow-all", "--no-ask-user", "--output-format", "json", "--no-auto-update",
         "--disable-client-telemetry", "--disable-builtin-mcps", "--no-remote",
         "--available-tools", *TOOLS)  # fmt: skip
EDIT_TOOLS = ("create", "edit")
FILE_TEXT_KEYS = ("file_text", "old_str", "new_str", "command")
IDENTITY = AgentIdentity(
    names=["GitHub Copilot CLI", "Copilot CLI", "copilot-cli"],
    files=[r"(^|/)\.copilot/", r"(^|/)\.github/copilot-instructions\.md$"],
    ids=[],
)
TOKENS_NOTE = (
    "Copilot CLI reports no tokens or cost (its result event counts requests and durations): "
    "each turn's tokens and cost are the gateway's."
)


def max_prompt_tokens(context_length: int | None) -> int:
    """The prompt the CLI may build for a route with this context window: the window less the
    output it asks for (at least half the window), or the CLI's guess when the window is unknown."""
    if not context_length:
        return GUESSED_PROMPT_TOKENS
    return max(context_length - MAX_OUTPUT_TOKENS, context_length // 2)


class CopilotAgent(CliAgent):
    """`copilot --allow-all --no-ask-user --output-format json ...`, prompt on stdin."""

    info = AgentInfo(name="copilot", version=VERSION)
    identity = IDENTITY
    home_dirs = (".copilot",)

    def __init__(self, package: Path = COPILOT_DIR) -> None:
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
        self.make_home(spec)
        if spec.isolated:
            spec.ro_binds[PACKAGE_INSIDE] = self.package
            spec.ro_binds[CA_INSIDE] = CA_BUNDLE
            spec.env["SSL_CERT_FILE"] = CA_INSIDE
            root = PACKAGE_INSIDE
        else:
            root = str(self.package)
        spec.env.update(
            {
                "COPILOT_PKG_CACHE_HOME": f"{root}/{COPILOT_CACHE.relative_to(COPILOT_DIR)}",
                "COPILOT_HOME": f"{spec.home_inside}/.copilot",
                "COPILOT_PROVIDER_BASE_URL": spec.base_url,
                "COPILOT_PROVIDER_API_KEY": PLACEHOLDER_KEY,
                "COPILOT_MODEL": route,
                "COPILOT_PROVIDER_MAX_PROMPT_TOKENS": str(max_prompt_tokens(context_length)),
                **FIXED_ENV,
            }
        )
        # `reasoning`: the proxy's policy writes it into the forwarded request.
        command = [f"{root}/{COPILOT_NATIVE_IN}", "--model", route, *FLAGS]
        return Launch(command=command, stdin=prompt)

    def read_trace(self, events: Path) -> AgentTrace:
        """The JSONL events into the trajectory: a step per `assistant.turn_start`, its
        message text and tool requests, each tool's `tool.execution_complete`, the CLI's
        `session.error` events and a failed `result` in `system` steps."""
        trace = self.new_trace(events)
        reader = _Reader(trace)
        for source, event in json_lines(trace, events):
            reader.read(source, event)
        gateway = events.with_name("gateway.jsonl")
        usage = gateway_usage(gateway) if gateway.is_file() else {}
        use_gateway_usage(trace, usage)
        trace.notes = " ".join(filter(None, [trace.notes, TOKENS_NOTE]))
        return trace


class _Reader:
    def __init__(self, trace: AgentTrace) -> None:
        self.trace = trace
        self.step: Step | None = None
        self.calls: dict[str, ToolPart] = {}
        self.writes: dict[str, list[str]] = {}  # a shell call's redirection targets

    def read(self, source: str, event: dict[str, Any]) -> None:
        kind = event.get("type")
        data = as_dict(event.get("data"))
        ts = iso_ms(event.get("timestamp"))
        if kind == "assistant.turn_start":
            self.step = Step(step_id=len(self.trace.steps) + 1, source="agent", started_at=ts)
            self.trace.steps.append(self.step)
        elif kind == "assistant.reasoning" and self.step is not None:
            text, cut = truncate(str(data.get("content") or ""))
            if text:  # logged after the message it led to: it goes before the answer
                part = TextPart(kind="reasoning", text=text, truncated=cut, timestamp=ts,
                                source=source)  # fmt: skip
                self.step.parts.insert(0, part)
        elif kind == "assistant.message":
            self._message(data, ts, source)
        elif kind == "tool.execution_start":
            info = as_dict(data.get("shellToolInfo"))
            if info.get("hasWriteFileRedirection"):
                paths = [str(p) for p in info.get("possiblePaths") or [] if "$" not in str(p)]
                self.writes[str(data.get("toolCallId", ""))] = paths
        elif kind == "tool.execution_complete":
            self._complete(data, source)
        elif kind == "assistant.turn_end" and self.step is not None:
            self.step.finished_at = ts
            calls = any(isinstance(p, ToolPart) for p in self.step.parts)
            self.step.finish_reason = "tool-calls" if calls else "stop"
            self.step = None
        elif kind == "session.error":
            name = str(data.get("errorType") or "error")
            self._error(f"{name}: {data.get('message', '')}", event, ts, source)
        elif kind == "result" and as_int(event.get("exitCode")) not in (0, None):
            self._error(f"exit code {event.get('exitCode')}", event, ts, source)

    def _message(self, data: dict[str, Any], ts: int | None, source: str) -> None:
        if self.step is None:  # a message outside a turn: give it one
            self.step = Step(step_id=len(self.trace.steps) + 1, source="agent", started_at=ts)
            self.trace.steps.append(self.step)
        self.step.finished_at = ts
        text, cut = truncate(str(data.get("content") or ""))
        if text:
            self.step.parts.append(TextPart(text=text, truncated=cut, timestamp=ts, source=source))
        for request in data.get("toolRequests") or []:
            request = as_dict(request)
            tool, inputs = str(request.get("name", "")), as_dict(request.get("arguments"))
            part = ToolPart(
                tool=tool, status="pending", call_id=str(request.get("toolCallId", "")),
                title=str(inputs.get("description") or request.get("intentionSummary") or ""),
                input=cut_inputs(inputs, FILE_TEXT_KEYS), shell=tool == "bash", timestamp=ts,
                source=source,
            )  # fmt: skip
            self.step.parts.append(part)
            self.calls[part.call_id] = part

    def _complete(self, data: dict[str, Any], source: str) -> None:
        part = self.calls.get(str(data.get("toolCallId", "")))
        if part is None:
            return
        ok = data.get("success") is True
        result, error = as_dict(data.get("result")), as_dict(data.get("error"))
        output = str(result.get("content") or error.get("message") or "")
        part.output, part.output_truncated = truncate(output)
        part.status = "completed" if ok else "error"
        part.source = source
        if part.shell:
            part.exit_code = as_int(as_dict(data.get("shellExecution")).get("exitCode"))
            if ok and part.exit_code == 0:  # what the CLI's own parse says the command wrote
                part.files = self.writes.get(part.call_id, [])
        elif part.tool in EDIT_TOOLS and ok and part.input.get("path"):
            part.files = [str(part.input["path"])]

    def _error(self, text: str, event: dict[str, Any], ts: int | None, source: str) -> None:
        """An error the CLI reported, in a `system` step after the turn it followed."""
        last = self.trace.steps[-1] if self.trace.steps else None
        if last is None or last.source != "system":
            last = Step(step_id=len(self.trace.steps) + 1, source="system", started_at=ts)
            self.trace.steps.append(last)
        last.parts.append(
            ErrorPart(text=text, detail=json.dumps(event)[:2000], timestamp=ts, source=source)
        )
        self.step = None
