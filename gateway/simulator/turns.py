"""Choosing and materialising the turn a scripted model answers for one request."""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.simulator import dialects
from records.simulator_scripts import Behaviour, ErrorSpec, ScriptedModel, TreeCalls, Turn

WORKDIR_RE = re.compile(
    r"[Ww]orking directory: (\S[^\n]*)|<cwd>([^<\n]+)</cwd>"
    r"|\*\*Workspace Directories:\*\*\n\s*- (\S[^\n]*)"
)
"""OpenCode's and Claude Code's system prompt line ("Primary working directory: ..." for the
latter, "Current working directory: ..." in Copilot CLI's environment context), Codex's
environment context in a user message, or Gemini CLI's session context (its first workspace
directory)."""
PROBE_RE = re.compile(r"PREFLIGHT PROBE (\d+)")
PROBE_FILE_RE = re.compile(r"^PROBE FILE: *(\S[^\n]*)$", re.MULTILINE)
PROBE_TEXT_RE = re.compile(r"^PROBE TEXT: *(\S[^\n]*)$", re.MULTILINE)


class ScriptError(Exception):
    """The script cannot be materialised (e.g. a `content_from` file is missing)."""


@dataclass
class Reply:
    """A concrete answer: what the server renders as SSE or JSON."""

    text: str = ""
    tool_calls: list[tuple[str, str, str]] = field(default_factory=list)  # (id, name, arguments)
    error: ErrorSpec | None = None
    model: str = ""
    provider: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = 0
    cost: float = 0.0
    prompt_cost: float = 0.0
    completion_cost: float = 0.0
    delay_seconds: float = 0.0
    turn_number: int = 1
    probe: int | None = None
    workdir: str = ""
    report_cost: bool = True
    billed_factor: float = 1.0
    billed: float = 0.0  # what the key and the generation record charge (cost x billed_factor)
    truncated: bool = False  # cut at the request's max_tokens

    @property
    def finish_reason(self) -> str:
        if self.truncated:
            return "length"
        return "tool_calls" if self.tool_calls else "stop"

    @property
    def native_finish_reason(self) -> str:
        """What a provider says for itself (live: `end_turn`, `tool_use`, `max_tokens`)."""
        return {"length": "max_tokens", "tool_calls": "tool_use", "stop": "end_turn"}[
            self.finish_reason
        ]


def message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


@dataclass
class Conversation:
    workdir: str
    assistant_turns: int
    prompt: str  # the user message with a probe's marker, else the first (Codex sends its
    # environment context as a user message before the prompt)
    read: str = ""  # every message's text, what the model has read so far (reads_instructions)

    @classmethod
    def of(cls, body: dict[str, Any]) -> Conversation:
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        system = "\n".join(message_text(m) for m in messages if m.get("role") == "system")
        users = [message_text(m) for m in messages if m.get("role") == "user"]
        match = WORKDIR_RE.search(system) or WORKDIR_RE.search("\n".join(users))
        return cls(
            workdir=next(g for g in match.groups() if g).strip() if match else "/tmp",
            assistant_turns=sum(1 for m in messages if m.get("role") == "assistant"),
            prompt=next((u for u in users if PROBE_RE.search(u)), users[0] if users else ""),
            read="\n".join(message_text(m) for m in messages),
        )


def choose(script: ScriptedModel, convo: Conversation) -> tuple[Turn, dict[str, str], int | None]:
    """The turn to serve, its placeholder values and the probe number (None outside probes)."""
    values = {"{workdir}": convo.workdir, "{turn}": str(convo.assistant_turns + 1)}
    probe_match = PROBE_RE.search(convo.prompt)
    probe: int | None = None
    behaviour: Behaviour = next(
        (r.session for r in script.reads_instructions if r.contains in convo.read),
        script.session,
    )
    if probe_match:
        probe = int(probe_match.group(1))
        file_match = PROBE_FILE_RE.search(convo.prompt)
        text_match = PROBE_TEXT_RE.search(convo.prompt)
        values["{probe}"] = str(probe)
        values["{probe_file}"] = file_match.group(1).strip() if file_match else "probe.txt"
        values["{probe_text}"] = text_match.group(1).strip() if text_match else f"probe {probe} ok"
        fails = probe in script.probe.fail_probes
        behaviour = script.probe.failure if fails else script.probe.behaviour
    index = convo.assistant_turns
    if index < len(behaviour.turns):
        return behaviour.turns[index], values, probe
    if behaviour.after_last == "repeat_last" and behaviour.turns:
        return behaviour.turns[-1], values, probe
    return Turn(text=behaviour.final_text), values, probe


def substitute(value: Any, values: dict[str, str], repo_root: Path) -> Any:
    if isinstance(value, str):
        for key, replacement in values.items():
            value = value.replace(key, replacement)
        return value
    if isinstance(value, list):
        return [substitute(v, values, repo_root) for v in value]
    if isinstance(value, dict):
        if set(value) == {"content_from"}:
            path = repo_root / str(value["content_from"])
            if not path.is_file():
                raise ScriptError(f"content_from: {path} does not exist")
            return path.read_text(encoding="utf-8")
        return {k: substitute(v, values, repo_root) for k, v in value.items()}
    return value


def glob_match(rel: str, pattern: str) -> bool:
    """fnmatch (where `*` also crosses `/`), with `**/` also matching no folder at all."""
    return fnmatch.fnmatch(rel, pattern) or (
        "**/" in pattern and fnmatch.fnmatch(rel, pattern.replace("**/", ""))
    )


def tree_files(spec: TreeCalls, repo_root: Path) -> list[str]:
    """Relative POSIX paths of the files a `tree_calls` entry covers, sorted."""
    source = repo_root / spec.source
    if not source.is_dir():
        raise ScriptError(f"tree_calls: {source} is not a folder")
    found = []
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        rel = path.relative_to(source).as_posix()
        if not any(glob_match(rel, pattern) for pattern in spec.include):
            continue
        if any(glob_match(rel, pattern) for pattern in spec.exclude):
            continue
        if spec.only_existing_in and not (repo_root / spec.only_existing_in / rel).is_file():
            continue
        found.append(rel)
    return found


def expand_tree(spec: TreeCalls, workdir: str, repo_root: Path) -> list[tuple[str, dict[str, Any]]]:
    calls: list[tuple[str, dict[str, Any]]] = []
    for rel in tree_files(spec, repo_root):
        target = f"{workdir.rstrip('/')}/{rel}"
        if spec.tool == "read":
            calls.append(("read", {"filePath": target}))
        else:
            content = (repo_root / spec.source / rel).read_text(encoding="utf-8")
            calls.append(("write", {"filePath": target, "content": content}))
    return calls


def estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def materialise(
    script: ScriptedModel, body: dict[str, Any], repo_root: Path, call_prefix: str
) -> Reply:
    """The concrete reply of `script` to the request `body` (cut at its `max_tokens`)."""
    convo = Conversation.of(body)
    turn, values, probe = choose(script, convo)
    reply = Reply(
        model=turn.model or script.identity,
        provider=turn.provider or script.catalogue.provider_name,
        error=turn.error,
        delay_seconds=turn.delay_seconds,
        turn_number=convo.assistant_turns + 1,
        probe=probe,
        workdir=convo.workdir,
    )
    if turn.text is not None:
        reply.text = substitute(turn.text, values, repo_root)
    calls: list[tuple[str, dict[str, Any]]] = []
    for tree in turn.tree_calls:
        calls.extend(expand_tree(tree, convo.workdir, repo_root))
    for call in turn.tool_calls:
        calls.append((call.name, substitute(call.arguments, values, repo_root)))
    calls = dialects.translate(calls, body.get("tools"))
    reply.tool_calls = [
        (f"{call_prefix}_{i}", name, json.dumps(args, ensure_ascii=False))
        for i, (name, args) in enumerate(calls)
    ]
    _account(script, turn, body, reply)
    limit = body.get("max_tokens")
    if isinstance(limit, int) and 0 < limit < reply.completion_tokens:
        _truncate(script, reply, limit)
    return reply


def _truncate(script: ScriptedModel, reply: Reply, max_tokens: int) -> None:
    """The provider stops at `max_tokens`: text cut, unfinished tool calls dropped."""
    reply.truncated = True
    reply.tool_calls = []
    reply.text = reply.text[: max_tokens * 4]
    reply.reasoning_tokens = min(reply.reasoning_tokens, max_tokens)
    reply.completion_tokens = max_tokens
    _price(script, reply)


def _account(script: ScriptedModel, turn: Turn, body: dict[str, Any], reply: Reply) -> None:
    spec = turn.usage or script.usage
    prompt_chars = json.dumps(body.get("messages")) + json.dumps(body.get("tools"))
    out_chars = reply.text + "".join(name + args for _, name, args in reply.tool_calls)
    reply.prompt_tokens = spec.prompt_tokens or estimate_tokens(prompt_chars)
    reply.report_cost = spec.report_cost
    reply.billed_factor = spec.billed_factor
    reply.reasoning_tokens = spec.reasoning_tokens  # part of completion_tokens, as in OpenAI usage
    reply.completion_tokens = (spec.completion_tokens or estimate_tokens(out_chars) + 8) + (
        reply.reasoning_tokens
    )
    if spec.cached_tokens is not None:
        reply.cached_tokens = min(spec.cached_tokens, reply.prompt_tokens)
    elif reply.turn_number > 1:
        reply.cached_tokens = int(reply.prompt_tokens * 0.7)
    _price(script, reply)


def _price(script: ScriptedModel, reply: Reply) -> None:
    pricing = script.catalogue.pricing

    def price(name: str, fallback: str = "0") -> float:
        return float(pricing.get(name, pricing.get(fallback, "0")))

    uncached = reply.prompt_tokens - reply.cached_tokens
    reply.prompt_cost = round(
        uncached * price("prompt") + reply.cached_tokens * price("input_cache_read", "prompt"), 10
    )
    reply.completion_cost = round(reply.completion_tokens * price("completion"), 10)
    reply.cost = round(reply.prompt_cost + reply.completion_cost, 8)
    reply.billed = round(reply.cost * reply.billed_factor, 8)
