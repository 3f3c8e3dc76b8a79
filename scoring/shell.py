"""Shell command lines split the way scoring compares them: simple commands of whole tokens.

The commands come from the agent's neutral trace (`trace.json`, records.evidence.agent); nothing
here knows an agent's native event format.
"""

from __future__ import annotations

import os
import re
import shlex

CONTROL_OPERATORS = frozenset({"&&", "||", ";", "|", "&", "(", ")", ";;", "|&"})
ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# Commands that run the rest of their words as the command: `env`, `time`, `exec`, `command`,
# `nohup`, `nice`, `stdbuf`, `timeout`, each with the options (and option values) it takes.
WRAPPERS = frozenset({"env", "time", "exec", "command", "nice", "nohup", "stdbuf", "timeout"})
OPTION_VALUES = {  # options whose value is the next word
    "env": {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"},
    "exec": {"-a"},
    "nice": {"-n", "--adjustment"},
    "stdbuf": {"-i", "-o", "-e", "--input", "--output", "--error"},
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
}
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh"})
DURATION = re.compile(r"^\d+(\.\d+)?[smhd]?$")
MAX_DEPTH = 4  # `bash -c "sh -c '…'"` nests; deeper is not a verification command


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


def _skip_options(words: list[str], takes_value: set[str]) -> list[str]:
    """`words` after the leading options (and the values of options in `takes_value`)."""
    while words and words[0].startswith("-") and words[0] != "-":
        option = words.pop(0)
        if option == "--":
            break
        if option in takes_value and words:
            words.pop(0)
    return words


def _shell_script(words: list[str]) -> str | None:
    """The script of `sh -c SCRIPT` / `bash -lc SCRIPT` / `bash -e -c SCRIPT` (None otherwise)."""
    rest, has_c = words[1:], False
    while rest and rest[0].startswith("-") and rest[0] != "-":
        option = rest.pop(0)
        has_c |= option == "-c" or (not option.startswith("--") and "c" in option[1:])
    return rest[0] if has_c and rest else None


def unwrap(words: list[str], depth: int = 0) -> list[list[str]]:
    """The simple commands one simple command runs: env assignments and wrappers (`env`,
    `timeout 120`, `nice -n 5`, ...) removed from its front, and a shell's `-c` script split into
    its own simple commands. `echo npm run build` stays `echo …` (not a wrapper)."""
    words = list(words)
    while words:
        if ENV_ASSIGNMENT.match(words[0]):
            words.pop(0)
            continue
        head = os.path.basename(words[0])
        if head in WRAPPERS:
            if head == "command" and words[1:2] and words[1] in ("-v", "-V"):
                break  # `command -v npm` looks a name up, it runs nothing
            words = _skip_options(words[1:], OPTION_VALUES.get(head, set()))
            if head == "timeout" and words and DURATION.match(words[0]):
                words.pop(0)
            continue
        if head in SHELLS and (script := _shell_script(words)) is not None:
            return segments(script, depth + 1) if depth < MAX_DEPTH else []
        break
    return [words] if words else []


def segments(command: str, depth: int = 0) -> list[list[str]]:
    """Simple commands of `command` (split at control operators), each unwrapped (`unwrap`)."""
    result: list[list[str]] = []
    current: list[str] = []
    for token in [*tokens(command), ";"]:
        if token in CONTROL_OPERATORS:
            result.extend(unwrap(current, depth))
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
