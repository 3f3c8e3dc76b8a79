"""Bash commands observed in a session's OpenCode `--format json` events (`events.jsonl`).

Only `tool_use` events whose part is the `bash` tool count. A call is *observed* when its state
status is `completed` (the tool ran; the command's own exit code is `state.metadata.exit`).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

CONTROL_OPERATORS = frozenset({"&&", "||", ";", "|", "&", "(", ")", ";;", "|&"})
ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
WRAPPERS = frozenset({"env", "time", "exec", "command", "nice", "nohup"})


@dataclass(frozen=True)
class BashCall:
    """One observed bash tool call; `line` is its 1-based line in events.jsonl."""

    line: int
    command: str
    exit: int | None
    status: str

    @property
    def succeeded(self) -> bool:
        return self.status == "completed" and self.exit == 0


def read_bash_calls(path: Path) -> list[BashCall]:
    """Every bash tool call in `path`, in event order; a missing file yields none.

    Lines that are not JSON (e.g. the unterminated last line of a killed session) are skipped, as
    the harness's own trace reader does; they cannot show a command being run.
    """
    if not path.exists():
        return []
    calls: list[BashCall] = []
    lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            event = json.loads(raw)
        except json.JSONDecodeError:
            continue
        call = _bash_call(event, number)
        if call is not None:
            calls.append(call)
    return calls


def _bash_call(event: object, line: int) -> BashCall | None:
    if not isinstance(event, dict) or event.get("type") != "tool_use":
        return None
    part = event.get("part")
    if not isinstance(part, dict) or part.get("tool") != "bash":
        return None
    state = part.get("state") if isinstance(part.get("state"), dict) else {}
    assert isinstance(state, dict)
    command = (state.get("input") or {}).get("command")
    if not isinstance(command, str):
        return None
    metadata = state.get("metadata") or {}
    exit_code = metadata.get("exit") if isinstance(metadata, dict) else None
    return BashCall(
        line=line,
        command=command,
        exit=exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool) else None,
        status=str(state.get("status", "")),
    )


def tokens(command: str) -> list[str]:
    """Shell-like tokens of `command`; control operators are their own tokens, newlines are `;`."""
    out: list[str] = []
    for line in command.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        try:
            out.extend(lexer)
        except ValueError:  # unbalanced quotes: fall back to whitespace
            out.extend(re.findall(r"&&|\|\||[;|&()]|[^\s;|&()]+", line))
        out.append(";")
    return out


def segments(command: str) -> list[list[str]]:
    """Simple commands of `command` (split at control operators), env assignments and wrappers
    such as `env`/`time` removed from the front."""
    result: list[list[str]] = []
    current: list[str] = []
    for token in [*tokens(command), ";"]:
        if token in CONTROL_OPERATORS:
            while current and (ENV_ASSIGNMENT.match(current[0]) or current[0] in WRAPPERS):
                current.pop(0)
            if current:
                result.append(current)
            current = []
        else:
            current.append(token)
    return result


def contains_tokens(haystack: list[str], needle: list[str]) -> bool:
    """Whether `needle` occurs as a contiguous run of whole tokens in `haystack`."""
    if not needle:
        return False
    width = len(needle)
    return any(haystack[i : i + width] == needle for i in range(len(haystack) - width + 1))
