"""OpenCode 1.17.18 as a harness agent (DESIGN §10: the verified offline, isolated invocation)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

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
from records.tools import OPENCODE

VERSION = "1.17.18"
BINARY_INSIDE = "/opt/agent/bin/opencode"
CONFIG_INSIDE = "/opt/agent/opencode.json"
PLACEHOLDER_KEY = "sk-siteos-proxy"  # the real key is added by the proxy, never seen by the agent
DISABLE_FLAGS = (
    "OPENCODE_DISABLE_MODELS_FETCH",
    "OPENCODE_DISABLE_AUTOUPDATE",
    "OPENCODE_DISABLE_LSP_DOWNLOAD",
    "OPENCODE_DISABLE_SHARE",
    "OPENCODE_DISABLE_CLAUDE_CODE",
    "OPENCODE_DISABLE_EXTERNAL_SKILLS",
    "OPENCODE_DISABLE_PROJECT_CONFIG",
)
EDIT_TOOLS = ("edit", "write", "apply_patch", "patch", "multiedit")
FILE_TEXT_KEYS = ("content", "oldString", "newString", "patchText")
# apply_patch (offered instead of edit/write to ids containing "gpt-") names its files in the patch
PATCH_FILE = re.compile(r"^\*\*\* (?:Add File|Update File|Delete File|Move to): *(.+?) *$", re.M)
PROVIDER_POLICY = {"allow_fallbacks": False, "require_parameters": True}
PROJECT_INSTRUCTIONS = "AGENTS.md"
PROJECT_SKILLS = ".opencode/skills"
IDENTITY = AgentIdentity(
    names=["OpenCode", "open-code"],
    files=[r"(^|/)\.opencode/", r"(^|/)opencode\.jsonc?$"],
    ids=[r"\b(?:ses|msg|prt|call)_[A-Za-z0-9]{8,}\b"],
)


def opencode_config(
    route: str, reasoning: str, base_url: str, workdir: str = "", skills: bool = False
) -> dict[str, Any]:
    """The generated config: built-in openrouter provider pointed at the proxy, no web tools.

    `OPENCODE_DISABLE_PROJECT_CONFIG` (isolation: no project opencode.json, plugins or their npm
    install) also skips the worktree's AGENTS.md and `.opencode/skills/`, which a user's OpenCode
    loads. The config names them by absolute path instead: the request is byte for byte the one
    OpenCode sends when it loads them itself (tests/test_opencode_project_files.py; a missing
    AGENTS.md is skipped). The skill tool is offered only when the worktree has skills
    (a method arm's), so a worktree without them gets the same request as before.
    """
    options: dict[str, Any] = {"provider": dict(PROVIDER_POLICY)}
    if reasoning == "high":
        options["reasoning"] = {"effort": "high"}
    project: dict[str, Any] = {}
    if workdir:
        project["instructions"] = [f"{workdir}/{PROJECT_INSTRUCTIONS}"]
    if workdir and skills:
        project["skills"] = {"paths": [f"{workdir}/{PROJECT_SKILLS}"]}
    return {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "snapshot": False,
        "lsp": False,
        "formatter": False,
        "mcp": {},
        "permission": {
            "webfetch": "deny",
            "websearch": "deny",
            "external_directory": "deny",
            "edit": "allow",
            "bash": "allow",
        },
        "tools": {"todowrite": False, "task": False, "skill": skills},
        "provider": {
            "openrouter": {
                "options": {"baseURL": base_url, "apiKey": "{env:OPENROUTER_API_KEY}"},
                "models": {route: {"name": route, "tool_call": True, "options": options}},
            }
        },
        **project,
    }


def seed_plugin_dir(config_dir: Path) -> None:
    """OpenCode runs `npm install @opencode-ai/plugin` into its config dir on start: pre-seed it."""
    (config_dir / "node_modules").mkdir(parents=True, exist_ok=True)
    (config_dir / "package.json").write_text("{}\n")
    lock = {
        "name": "opencode",
        "lockfileVersion": 3,
        "requires": True,
        "packages": {
            "": {"dependencies": {"@opencode-ai/plugin": VERSION}},
            "node_modules/@opencode-ai/plugin": {"version": VERSION},
        },
    }
    (config_dir / "package-lock.json").write_text(json.dumps(lock, indent=2) + "\n")


class OpenCodeAgent(CliAgent):
    """`opencode run --pure --format json -m openrouter/<route> --dir <wt> --title <unit>`."""

    info = AgentInfo(name="opencode", version=VERSION)
    identity = IDENTITY
    home_dirs = (".config/opencode", ".local/share", ".cache", ".local/state", "agent")

    def __init__(self, binary: Path = OPENCODE) -> None:
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
        seed_plugin_dir(home / ".config" / "opencode")
        config_file = home / "agent" / "opencode.json"
        skills = (spec.worktree / PROJECT_SKILLS).is_dir()
        config = opencode_config(route, reasoning, spec.base_url, spec.workdir, skills)
        config_file.write_text(json.dumps(config, indent=2) + "\n")
        inside_home = spec.home_inside
        if spec.isolated:
            spec.ro_binds[BINARY_INSIDE] = self.binary
            spec.ro_binds[CONFIG_INSIDE] = config_file
            binary, config_path = BINARY_INSIDE, CONFIG_INSIDE
        else:
            binary, config_path = str(self.binary), str(config_file)
        spec.env.update(
            {
                "XDG_CONFIG_HOME": f"{inside_home}/.config",
                "XDG_DATA_HOME": f"{inside_home}/.local/share",
                "XDG_CACHE_HOME": f"{inside_home}/.cache",
                "XDG_STATE_HOME": f"{inside_home}/.local/state",
                "npm_config_cache": f"{inside_home}/.npm",
                "npm_config_update_notifier": "false",
                "OPENCODE_CONFIG": config_path,
                "OPENROUTER_API_KEY": PLACEHOLDER_KEY,
                **dict.fromkeys(DISABLE_FLAGS, "1"),
            }
        )
        command = [
            binary,
            "run",
            "--pure",
            "--format",
            "json",
            "-m",
            f"openrouter/{route}",
            "--dir",
            spec.workdir,
            "--title",
            title,
        ]
        return Launch(command=command, stdin=prompt)

    def read_trace(self, events: Path) -> AgentTrace:
        """`opencode run --format json` events, one JSON object a line, into the trajectory: a
        step per `step_start` … `step_finish`; every part cites its line (lines split at newlines
        only, as the file is numbered)."""
        trace = self.new_trace(events)
        for source, event in json_lines(trace, events):
            _apply(trace, event, source)
        return trace


def _open_step(trace: AgentTrace, source: Literal["agent", "system"], ts: int | None) -> Step:
    """The step a part belongs to: the open turn, else a new `system` step (an error after the
    last turn, say)."""
    last = trace.steps[-1] if trace.steps else None
    if source == "system" and last is not None and last.finish_reason is None:
        return last
    step = Step(step_id=len(trace.steps) + 1, source=source, started_at=ts)
    trace.steps.append(step)
    return step


def _metrics(part: dict[str, Any]) -> StepMetrics:
    tokens = as_dict(part.get("tokens"))
    cache = as_dict(tokens.get("cache"))
    return StepMetrics(
        input_tokens=as_int(tokens.get("input")), output_tokens=as_int(tokens.get("output")),
        reasoning_tokens=as_int(tokens.get("reasoning")),
        cache_read_tokens=as_int(cache.get("read")), cache_write_tokens=as_int(cache.get("write")),
    )  # fmt: skip


def _apply(trace: AgentTrace, event: dict[str, Any], source: str) -> None:
    kind = event.get("type")
    part = as_dict(event.get("part"))
    ts = as_int(event.get("timestamp"))
    if kind == "step_start":
        _open_step(trace, "agent", ts)
    elif kind == "step_finish":
        step = _open_step(trace, "system", ts)
        step.finish_reason, step.finished_at = str(part.get("reason", "")), ts
        step.metrics = _metrics(part)
    elif kind == "error":
        error = event.get("error", event)
        data = as_dict(as_dict(error).get("data"))
        name = str(as_dict(error).get("name") or "error")
        message = str(data.get("message") or as_dict(error).get("message") or "")
        _open_step(trace, "system", ts).parts.append(ErrorPart(
            text=f"{name}: {message}" if message else name, detail=json.dumps(error)[:2000],
            timestamp=ts, source=source,
        ))  # fmt: skip
    elif kind in ("text", "reasoning") and isinstance(part.get("text"), str):
        text, cut = truncate(part["text"])
        _open_step(trace, "system", ts).parts.append(
            TextPart(kind=kind, text=text, truncated=cut, timestamp=ts, source=source)
        )
    elif kind == "tool_use":
        _open_step(trace, "system", ts).parts.append(_tool(part, ts, source))


def _tool(part: dict[str, Any], ts: int | None, source: str) -> ToolPart:
    tool = str(part.get("tool", ""))
    state = as_dict(part.get("state"))
    inputs = as_dict(state.get("input"))
    status = str(state.get("status", ""))
    metadata = as_dict(state.get("metadata"))
    raw = metadata.get("output", state.get("output", state.get("error", "")))
    output, cut = truncate(str(raw or ""))
    return ToolPart(
        tool=tool, status=status, call_id=str(part.get("callID", "")),
        title=str(state.get("title") or inputs.get("description") or ""),
        input=cut_inputs(inputs, FILE_TEXT_KEYS),
        output=output, output_truncated=cut or bool(metadata.get("truncated")),
        exit_code=as_int(metadata.get("exit")) if tool == "bash" else None, shell=tool == "bash",
        files=edited_paths(tool, inputs) if tool in EDIT_TOOLS and status == "completed" else [],
        timestamp=ts, source=source,
    )  # fmt: skip


def edited_paths(tool: str, inputs: dict[str, Any]) -> list[str]:
    """The files an edit tool call changed: its path argument, or every file its patch names."""
    path = inputs.get("filePath") or inputs.get("path")
    if path:
        return [str(path)]
    patch = inputs.get("patchText")
    found = PATCH_FILE.findall(patch) if isinstance(patch, str) else []
    return found or [tool]
