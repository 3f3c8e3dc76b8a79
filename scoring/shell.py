"""Shell command lines split the way scoring compares them: simple commands of whole tokens.

The commands come from the agent's neutral trace (`trace.json`, records.evidence.agent); nothing
here knows an agent's native event format.
"""

from __future__ import annotations

import re
import shlex

CONTROL_OPERATORS = frozenset({"&&", "||", ";", "|", "&", "(", ")", ";;", "|&"})
ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
WRAPPERS = frozenset({"env", "time", "exec", "command", "nice", "nohup"})


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
