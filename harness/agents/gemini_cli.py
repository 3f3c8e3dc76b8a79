"""Gemini CLI 0.61.0 as a harness agent: `gemini -p` headless, the Gemini API to the proxy's
Gemini front end (translated there to chat/completions for the same route).

Recorded in tests/data/agents/gemini-cli-0.61.0/ (README there): the CLI posts only to
`<GOOGLE_GEMINI_BASE_URL>/v1beta/models/<route>:streamGenerateContent?alt=sse`; without
`privacy.usageStatisticsEnabled: false` it also sends its usage statistics to
play.googleapis.com (Clearcut). Its settings are the user settings in the private HOME
(`~/.gemini/settings.json`): the CLI's system settings file would override a worktree's
`.gemini/settings.json`, but it refuses one whose folder is not owned by uid 0, which nothing in
the sandbox's user namespace is. The worktree starts without `.gemini/` (the task's starter) and
the CLI reads its settings once, at start, so nothing the model writes there takes effect.

Its stream-json log has timestamps but no per-turn tokens or cost (one total in the `result`
event), no thoughts and no exit codes (a failed command's result says `success` with its output):
a step is a run of assistant text and tool requests, up to the tool results that answer them
(see `read_trace`); tokens and cost come from the proxy, and so do exit codes: the CLI tells the
model `Exit Code: N` in the function response it sends next, which the proxy records
(`gateway.jsonl` beside the log).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from harness.agents.base import CliAgent, Launch, truncate
from harness.agents.native import as_dict, as_int, cut_inputs, iso_ms, json_lines, use_gateway_usage
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
from records.tools import GEMINI_CLI_DIR, NODE

VERSION = "0.61.0"
PACKAGE_INSIDE = "/opt/agent/gemini-cli"
SCRIPT = "node_modules/@google/gemini-cli/bundle/gemini.js"
NODE_INSIDE = "/opt/node/bin/node"  # the session sandbox's Node 22 (sandbox/profiles.py)
PLACEHOLDER_KEY = "siteos-proxy"  # the real key is added by the proxy, never seen by the agent
AUTH_TYPE = "gemini-api-key"  # pinned: auto-detection picks `gateway`, which -p refuses
# The built-in tools offered: files, search and a shell (like OpenCode's set). Left out: web_fetch
# and google_web_search (the web), invoke_agent (subagents), activate_skill (skills),
# enter_plan_mode, update_topic, the background-process tools, save_memory.
TOOLS = ("list_directory", "read_file", "grep_search", "glob", "replace", "write_file",
         "run_shell_command")  # fmt: skip
EXCLUDED_TOOLS = ("web_fetch", "google_web_search", "save_memory", "invoke_agent",
                  "activate_skill")  # fmt: skip
SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": AUTH_TYPE}},
    "general": {
        "enableAutoUpdate": False,
        "enableAutoUpdateNotification": False,
        "checkpointing": {"enabled": False},
    },  # fmt: skip
    "telemetry": {"enabled": False},
    "privacy": {"usageStatisticsEnabled": False},  # else Clearcut at play.googleapis.com
    "ide": {"enabled": False},
    "admin": {
        "mcp": {"enabled": False},
        "extensions": {"enabled": False},
        "skills": {"enabled": False},
    },  # fmt: skip
    "skills": {"enabled": False},
    "experimental": {"enableAgents": False, "autoMemory": False},
    "tools": {
        "core": list(TOOLS),
        "exclude": list(EXCLUDED_TOOLS),
        "disableLLMCorrection": True,
    },  # fmt: skip
    # no side requests to other models: loop checks, the next-speaker check. No turn limit of its
    # own (-1; at one it exits 53): the proxy's step ceiling is the limit, as for every agent.
    "model": {"disableLoopDetection": True, "skipNextSpeakerCheck": True, "maxSessionTurns": -1},
}
FIXED_ENV = {
    "GEMINI_CLI_TRUST_WORKSPACE": "true",  # `--yolo` runs only in a trusted folder
    "GEMINI_CLI_NO_RELAUNCH": "true",  # one process (no child relaunched with more heap)
    "NO_BROWSER": "true",
}
EDIT_TOOLS = ("write_file", "replace")
FILE_TEXT_KEYS = ("content", "old_string", "new_string")
IDENTITY = AgentIdentity(
    names=["Gemini CLI", "gemini-cli"],
    files=[r"(^|/)\.gemini/", r"(^|/)GEMINI\.md$", r"(^|/)\.geminiignore$"],
    ids=[],
)
TOKENS_NOTE = (
    "Gemini CLI reports no tokens or cost per turn (one total in its result event): each "
    "turn's tokens and cost are the gateway's."
)


def gemini_base(base_url: str) -> str:
    """The proxy's Gemini base (the CLI's SDK appends `/v1beta/models/...`)."""
    return base_url.rstrip("/") + "/gemini"


EXIT_CODE = re.compile(r"^Exit Code: (-?\d+)$", re.MULTILINE)


class GeminiCliAgent(CliAgent):
    """`node gemini.js -p "" --output-format stream-json --yolo -m <route>`, prompt on stdin."""

    info = AgentInfo(name="gemini-cli", version=VERSION)
    identity = IDENTITY
    home_dirs = (".gemini",)

    def __init__(self, package: Path = GEMINI_CLI_DIR, node: Path = NODE) -> None:
        self.package = package.resolve()
        self.node = node

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
        settings = json.loads(json.dumps(SETTINGS))
        settings["model"]["name"] = route
        (home / ".gemini" / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
        if spec.isolated:
            spec.ro_binds[PACKAGE_INSIDE] = self.package
            command = [NODE_INSIDE, f"{PACKAGE_INSIDE}/{SCRIPT}"]
        else:
            command = [str(self.node), str(self.package / SCRIPT)]
        spec.env.update(
            {
                "GOOGLE_GEMINI_BASE_URL": gemini_base(spec.base_url),
                "GEMINI_API_KEY": PLACEHOLDER_KEY,
                "GEMINI_MODEL": route,
                **FIXED_ENV,
            }
        )
        # `reasoning`: the proxy's policy writes it into the forwarded request (the CLI asks only
        # `thinkingConfig.includeThoughts`). The prompt comes on stdin; `-p ""` makes the run
        # headless without adding to it.
        command += ["-p", "", "--output-format", "stream-json", "--yolo", "--model", route,
                    "--extensions", "none", "--allowed-mcp-server-names", "none"]  # fmt: skip
        return Launch(command=command, stdin=prompt)

    def read_trace(self, events: Path) -> AgentTrace:
        """The stream-json events into the trajectory: a step per model turn (its assistant
        `message` deltas joined, its `tool_use` requests), each call's `tool_result`, the
        CLI's `error` events and a failed `result` in `system` steps."""
        trace = self.new_trace(events)
        gateway = events.with_name("gateway.jsonl")
        stamp = gateway.stat() if gateway.is_file() else None
        metered = _metered(gateway, stamp.st_size, stamp.st_mtime_ns) if stamp else _Metered()
        reader = _Reader(trace, metered.exit_codes)
        for source, event in json_lines(trace, events):
            reader.read(source, event)
        use_gateway_usage(trace, metered.usage)
        return trace


@dataclass(frozen=True)
class _Metered:
    """What the proxy's records say that the CLI's log does not."""

    exit_codes: dict[str, int | None] = field(default_factory=dict)  # by the model's call id
    usage: dict[int, StepMetrics] = field(default_factory=dict)  # by step


@lru_cache(maxsize=8)
def _metered(gateway: Path, size: int, mtime_ns: int) -> _Metered:
    """From `gateway.jsonl` (`size` and `mtime_ns` key the cache): each step's tokens (the last
    served request of the step), and each shell call's exit code as the CLI told the model in
    the `tool` messages the proxy forwarded: `Exit Code: N`, or 0 for a command that ran and
    names none (the CLI adds the line only for a non-zero code)."""
    out = _Metered()
    for line in gateway.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = as_dict(json.loads(line))
        except json.JSONDecodeError:
            continue
        usage, step = as_dict(record.get("usage")), as_int(record.get("step"))
        if usage and step is not None and record.get("kind") == "chat":
            out.usage[step] = StepMetrics(
                input_tokens=as_int(usage.get("prompt")),
                output_tokens=as_int(usage.get("completion")),
                reasoning_tokens=as_int(usage.get("reasoning")),
                cache_read_tokens=as_int(usage.get("cached")),
            )
        for message in as_dict(record.get("request")).get("messages") or []:
            message = as_dict(message)
            content = message.get("content")
            if message.get("role") != "tool" or not isinstance(content, str):
                continue
            found = EXIT_CODE.search(content)
            ran = found is not None or "Output: " in content
            code = int(found.group(1)) if found else (0 if ran else None)
            out.exit_codes[str(message.get("tool_call_id", ""))] = code
    return out


class _Reader:
    def __init__(self, trace: AgentTrace, exit_codes: dict[str, int | None]) -> None:
        self.trace = trace
        self.exit_codes = exit_codes
        self.step: Step | None = None
        self.text: TextPart | None = None
        self.calls: dict[str, ToolPart] = {}
        self.answered = False  # the current step's calls have results: the next event opens one

    def read(self, source: str, event: dict[str, Any]) -> None:
        kind = event.get("type")
        ts = iso_ms(event.get("timestamp"))
        if kind == "message" and event.get("role") == "assistant":
            self._text(str(event.get("content") or ""), ts, source)
        elif kind == "tool_use":
            self._tool_use(event, ts, source)
        elif kind == "tool_result":
            self._tool_result(event, ts, source)
        elif kind == "error":
            self._error(f"{event.get('severity', 'error')}: {event.get('message', '')}",
                        event, ts, source)  # fmt: skip
        elif kind == "result":
            self._result(event, ts, source)

    def _turn(self, ts: int | None) -> Step:
        """The step the model's output belongs to: a new one after answered tool calls."""
        if self.step is None or self.answered:
            if self.step is not None and self.step.finish_reason is None:
                self.step.finish_reason = "tool-calls"
            self.step = Step(step_id=len(self.trace.steps) + 1, source="agent", started_at=ts)
            self.trace.steps.append(self.step)
            self.text, self.answered = None, False
        self.step.finished_at = ts
        return self.step

    def _text(self, content: str, ts: int | None, source: str) -> None:
        step = self._turn(ts)
        if self.text is None or step.parts[-1] is not self.text:
            self.text = TextPart(text="", timestamp=ts, source=source)
            step.parts.append(self.text)
        joined = self.text.text + content
        self.text.text, self.text.truncated = truncate(joined)

    def _tool_use(self, event: dict[str, Any], ts: int | None, source: str) -> None:
        step = self._turn(ts)
        tool, inputs = str(event.get("tool_name", "")), as_dict(event.get("parameters"))
        part = ToolPart(
            tool=tool, status="pending", call_id=str(event.get("tool_id", "")),
            title=str(inputs.get("description") or ""), input=cut_inputs(inputs, FILE_TEXT_KEYS),
            shell=tool == "run_shell_command", timestamp=ts, source=source,
        )  # fmt: skip
        step.parts.append(part)
        self.calls[part.call_id] = part

    def _tool_result(self, event: dict[str, Any], ts: int | None, source: str) -> None:
        part = self.calls.get(str(event.get("tool_id", "")))
        if part is None:
            return
        self.answered = True
        error = as_dict(event.get("error"))
        failed = event.get("status") == "error"
        output = str(event.get("output") or error.get("message") or "")
        part.output, part.output_truncated = truncate(output)
        part.status = "error" if failed else "completed"
        part.source = source
        if part.shell:  # the CLI's own call id is `<tool>__<the model's id>`
            model_id = part.call_id.removeprefix(f"{part.tool}__")
            part.exit_code = self.exit_codes.get(model_id)
            part.status = "completed" if part.exit_code is not None else part.status
        if part.tool in EDIT_TOOLS and not failed:
            path = part.input.get("file_path")
            part.files = [str(path)] if path else []

    def _error(self, text: str, event: dict[str, Any], ts: int | None, source: str) -> None:
        """An error the CLI reported, in a `system` step after the turn it followed."""
        last = self.trace.steps[-1] if self.trace.steps else None
        if last is None or last.source != "system":
            if self.step is not None and self.step.finish_reason is None and self.answered:
                self.step.finish_reason = "tool-calls"
            last = Step(step_id=len(self.trace.steps) + 1, source="system", started_at=ts)
            self.trace.steps.append(last)
        last.parts.append(
            ErrorPart(text=text, detail=json.dumps(event)[:2000], timestamp=ts, source=source)
        )
        self.step, self.text = None, None

    def _result(self, event: dict[str, Any], ts: int | None, source: str) -> None:
        agent = [s for s in self.trace.steps if s.source == "agent"]
        for step in agent[:-1]:
            if step.finish_reason is None and any(isinstance(p, ToolPart) for p in step.parts):
                step.finish_reason = "tool-calls"
        if event.get("status") == "success":
            if agent and agent[-1].finish_reason is None:
                calls = any(isinstance(p, ToolPart) for p in agent[-1].parts)
                agent[-1].finish_reason = "tool-calls" if calls else "stop"
        else:
            error = as_dict(event.get("error"))
            name = str(error.get("type") or "error")
            message = str(error.get("message") or "")
            self._error(f"{name}: {message}" if message else name, event, ts, source)
        stats = as_dict(event.get("stats"))
        if stats:
            totals = ", ".join(f"{k} {as_int(stats.get(k))}" for k in
                               ("input_tokens", "output_tokens", "cached", "tool_calls")
                               if as_int(stats.get(k)) is not None)  # fmt: skip
            note = f"{TOKENS_NOTE} Its result reported {totals}." if totals else TOKENS_NOTE
            self.trace.notes = " ".join(filter(None, [self.trace.notes, note]))

    def close(self) -> None:
        """A log that ends without its result (the CLI was stopped)."""
        self.step = None


def _exit_code(output: str, failed: bool) -> int | None:
    """A command's exit code: the CLI's display of a failed command names it ("Exit Code: 1",
    "Command exited with code 1"); a command that ran and says none exited 0."""
    for marker in ("Exit Code: ", "exited with code "):
        at = output.rfind(marker)
        if at >= 0:
            digits = (
                output[at + len(marker) :].split()[0].strip(".,)")
                if output[at + len(marker) :].split()
                else ""
            )
            if digits.lstrip("-").isdigit():
                return int(digits)
    return None if failed else 0
