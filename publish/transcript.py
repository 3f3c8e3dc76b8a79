"""A readable transcript of one session, read from the agent's own `events.jsonl`.

OpenCode's `--format json` prints one event per line: `step_start`/`step_finish`, `text` (the
agent's words), `reasoning`, `tool_use` (a tool call with its input, output, exit code and
timing) and `error`. Each entry keeps the line it came from, so the site can cite `events.jsonl:N`
and link to it. Lines that are not JSON (the cut-off last line of a killed session) are counted,
not shown: they cannot prove anything ran.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FOLD_AT = 1200  # characters of output shown before the rest is folded away


@dataclass
class Entry:
    """One thing that happened in the session."""

    line: int
    kind: str  # step | message | reasoning | tool | error
    timestamp_ms: int | None
    text: str = ""
    tool: str = ""
    title: str = ""
    status: str = ""
    exit_code: int | None = None
    input: str = ""
    output: str = ""
    tokens: dict[str, int] = field(default_factory=dict)

    @property
    def is_command(self) -> bool:
        return self.kind == "tool" and self.tool == "bash"


@dataclass
class Transcript:
    entries: list[Entry] = field(default_factory=list)
    malformed_lines: int = 0

    @property
    def commands(self) -> list[Entry]:
        return [e for e in self.entries if e.is_command]

    @property
    def first_ms(self) -> int | None:
        stamps = [e.timestamp_ms for e in self.entries if e.timestamp_ms is not None]
        return min(stamps) if stamps else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _stamp(event: dict[str, Any]) -> int | None:
    value = event.get("timestamp")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value if value > 1e11 else value * 1000)
    return None


def _show_input(tool: str, inputs: dict[str, Any]) -> str:
    if tool == "bash" and isinstance(inputs.get("command"), str):
        return str(inputs["command"])
    return json.dumps(inputs, indent=2, ensure_ascii=False, sort_keys=True) if inputs else ""


def _tool_entry(line: int, stamp: int | None, part: dict[str, Any]) -> Entry:
    tool = str(part.get("tool", ""))
    state = _dict(part.get("state"))
    metadata = _dict(state.get("metadata"))
    inputs = _dict(state.get("input"))
    output = metadata.get("output", state.get("output", state.get("error", "")))
    exit_code = metadata.get("exit")
    return Entry(
        line=line,
        kind="tool",
        timestamp_ms=stamp,
        tool=tool,
        title=str(state.get("title") or inputs.get("description") or ""),
        status=str(state.get("status", "")),
        exit_code=exit_code
        if isinstance(exit_code, int) and not isinstance(exit_code, bool)
        else None,
        input=_show_input(tool, inputs),
        output=str(output or ""),
    )


def _error_entry(line: int, stamp: int | None, error: Any) -> Entry:
    """An error event: its name and message in words, the whole record kept as `input`."""
    if isinstance(error, str):
        return Entry(line, "error", stamp, text=error)
    data = _dict(_dict(error).get("data"))
    name = str(_dict(error).get("name") or "error")
    message = str(data.get("message") or _dict(error).get("message") or "")
    full = json.dumps(error, indent=2, ensure_ascii=False, sort_keys=True)
    return Entry(line, "error", stamp, text=f"{name}: {message}" if message else name, input=full)


def _entry(line: int, event: dict[str, Any]) -> Entry | None:
    kind = event.get("type")
    part = _dict(event.get("part"))
    stamp = _stamp(event)
    if kind == "tool_use":
        return _tool_entry(line, stamp, part)
    if kind in ("text", "reasoning"):
        text = str(part.get("text", "")).strip()
        return (
            Entry(line, "message" if kind == "text" else "reasoning", stamp, text=text)
            if text
            else None
        )
    if kind == "error":
        return _error_entry(line, stamp, event.get("error", part))
    if kind == "step_finish":
        tokens = _dict(part.get("tokens"))
        counts = {k: int(v) for k, v in tokens.items() if isinstance(v, int | float)}
        return Entry(line, "step", stamp, text=str(part.get("reason", "")), tokens=counts)
    return None


def read_transcript(path: Path) -> Transcript:
    """The transcript of `events.jsonl` (an absent file is an empty transcript)."""
    transcript = Transcript()
    if not path.exists():
        return transcript
    lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            event = json.loads(raw)
        except json.JSONDecodeError:
            transcript.malformed_lines += 1
            continue
        entry = _entry(number, event) if isinstance(event, dict) else None
        if entry is not None:
            transcript.entries.append(entry)
    return transcript
