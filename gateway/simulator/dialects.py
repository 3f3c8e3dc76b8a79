"""Scripted tool calls in the tools the requesting agent offers.

Scripts are written in OpenCode's tools (`write`, `read`, `edit`, `bash` with `filePath`,
`content`, `oldString`, `newString`, `replaceAll`, `command`). A request that offers Claude Code's
tools (`Write`, `Read`, `Edit`, `Bash`) or Codex's (`exec_command`) gets each call as that agent's
own, doing the same thing to the worktree:

- Claude Code refuses to write or edit a file it has not read in the session, so a `write` or
  `edit` becomes a `Read` of the file, then the `Write` or `Edit` (the `Read` of a new file fails
  harmlessly); `bash` is `Bash` with the tool's 10-minute timeout.
- Codex (0.171.0 with an unknown model) offers only a shell: `bash` is `exec_command`; `write` an
  `apply_patch` heredoc adding the file (Codex applies it itself and logs a file change; it
  replaces an existing file), or, for content without a final newline, which a patch cannot
  express, a quoted `cat` heredoc with the newline taken off again; `read` a `cat`; `edit` a Node
  one-liner that replaces the text once (or everywhere with `replaceAll`) and fails when it is
  not there.

- Gemini CLI (0.61.0) has its own file tools: `write` is `write_file`, `edit` is `replace` (its
  required `instruction` says what the script does; `replaceAll` is `allow_multiple`), `read` is
  `read_file`, `bash` is `run_shell_command`, `glob` is `glob`, `grep` is `grep_search`, `list`
  is `list_directory`.

- Copilot CLI (1.0.102) has `create`, `edit`, `view` and `bash`, but its `create` refuses a file
  that exists or whose folder does not, and runs a turn's calls at once: `write` is a `bash`
  heredoc (its folders made first, as for Codex without the patch); `edit` is `edit` (absolute
  path, one occurrence), or with `replaceAll` the Node one-liner in `bash`; `read` is `view`, as
  is `list`; `glob` and `grep` are its own (`paths`, grep's `glob`). Each `bash` waits up to the
  tool's maximum, 600 s (`initial_wait`; its default of 30 s would leave a build running).

A call whose tool the agent does not offer (e.g. `webfetch`) is sent as scripted: the agent answers
it as an unknown tool, as it would a model's.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable
from typing import Any

Call = tuple[str, dict[str, Any]]
CLAUDE_CODE = frozenset({"Write", "Read", "Edit", "Bash"})
CODEX = frozenset({"exec_command"})
GEMINI_CLI = frozenset({"write_file", "replace", "read_file", "run_shell_command"})
COPILOT = frozenset({"bash", "view", "create", "edit"})
COPILOT_WAIT_S = 600  # the most `initial_wait` takes
BASH_TIMEOUT_MS = 600_000  # Claude Code's maximum
YIELD_MS = 30_000  # Codex waits this long for a command before handing back a session id
EDIT_JS = (
    "const fs=require('fs');const [p,a,b,all]=JSON.parse(process.argv[1]);"
    "const t=fs.readFileSync(p,'utf8');"
    "if(!t.includes(a)){console.error('old text not found in '+p);process.exit(1)}"
    "fs.writeFileSync(p,all?t.split(a).join(b):t.replace(a,()=>b))"
)


def offered(tools: Any) -> set[str]:
    """The tool names a request offers, in any of the three APIs' shapes."""
    names: set[str] = set()
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict):
            continue
        function = tool.get("function")
        name = function.get("name") if isinstance(function, dict) else tool.get("name")
        if isinstance(name, str):
            names.add(name)
    return names


def translate(calls: Iterable[Call], tools: Any) -> list[Call]:
    """`calls` (OpenCode's tools) as the agent offering `tools` makes them."""
    names = offered(tools)
    if names >= CLAUDE_CODE:
        return [out for call in calls for out in _claude_code(*call)]
    if names >= CODEX:
        return [_codex(*call) for call in calls]
    if names >= GEMINI_CLI:
        return [_gemini_cli(*call) for call in calls]
    if names >= COPILOT:
        return [_copilot(*call) for call in calls]
    return list(calls)


def _claude_code(name: str, args: dict[str, Any]) -> list[Call]:
    path = args.get("filePath")
    if name == "write":
        read = ("Read", {"file_path": path})
        return [read, ("Write", {"file_path": path, "content": args.get("content", "")})]
    if name == "edit":
        edit = {"file_path": path, "old_string": args.get("oldString", ""),
                "new_string": args.get("newString", "")}  # fmt: skip
        if args.get("replaceAll"):
            edit["replace_all"] = True
        return [("Read", {"file_path": path}), ("Edit", edit)]
    if name == "read":
        return [("Read", {"file_path": path})]
    if name == "bash":
        bash = {"command": args.get("command", ""), "timeout": BASH_TIMEOUT_MS}
        if args.get("description"):
            bash["description"] = args["description"]
        return [("Bash", bash)]
    return [(name, args)]


def _gemini_cli(name: str, args: dict[str, Any]) -> Call:
    path = args.get("filePath")
    if name == "write":
        return ("write_file", {"file_path": path, "content": args.get("content", "")})
    if name == "edit":
        edit = {"file_path": path, "old_string": args.get("oldString", ""),
                "new_string": args.get("newString", ""),
                "instruction": "Replace the given text exactly as written."}  # fmt: skip
        if args.get("replaceAll"):
            edit["allow_multiple"] = True
        return ("replace", edit)
    if name == "read":
        return ("read_file", {"file_path": path})
    if name == "bash":
        bash = {"command": args.get("command", "")}
        if args.get("description"):
            bash["description"] = args["description"]
        return ("run_shell_command", bash)
    if name in ("glob", "grep", "list"):
        found = {k: v for k, v in args.items() if k in ("pattern", "include")}
        if args.get("path"):
            found["dir_path"] = args["path"]
        if name == "grep":
            include = found.pop("include", None)
            return ("grep_search", found | ({"include_pattern": include} if include else {}))
        if name == "list":
            return ("list_directory", {"dir_path": args.get("path", ".")})
        return ("glob", {k: v for k, v in found.items() if k != "include"})
    return (name, args)


def _copilot(name: str, args: dict[str, Any]) -> Call:
    path = str(args.get("filePath", ""))
    if name == "write":
        return _copilot_bash(heredoc_command(path, str(args.get("content", ""))), f"Write {path}")
    if name == "edit" and args.get("replaceAll"):
        params = [path, args.get("oldString", ""), args.get("newString", ""), True]
        command = f"node -e {shlex.quote(EDIT_JS)} {shlex.quote(json.dumps(params))}"
        return _copilot_bash(command, f"Edit {path}")
    if name == "edit":
        edit = {"path": path, "old_str": args.get("oldString", ""),
                "new_str": args.get("newString", "")}  # fmt: skip
        return ("edit", edit)
    if name == "read":
        return ("view", {"path": path})
    if name == "list":
        return ("view", {"path": args.get("path", ".")})
    if name == "bash":
        return _copilot_bash(str(args.get("command", "")), str(args.get("description") or ""))
    if name in ("glob", "grep"):
        found: dict[str, Any] = {"pattern": args.get("pattern", "")}
        if args.get("path"):
            found["paths"] = args["path"]
        if name == "grep" and args.get("include"):
            found["glob"] = args["include"]
        return (name, found)
    return (name, args)


def _copilot_bash(command: str, description: str) -> Call:
    bash = {"command": command, "description": description or "Run a command",
            "initial_wait": COPILOT_WAIT_S}  # fmt: skip
    return ("bash", bash)


def _codex(name: str, args: dict[str, Any]) -> Call:
    path = str(args.get("filePath", ""))
    if name == "bash":
        return _exec(str(args.get("command", "")))
    if name == "read":
        return _exec(f"cat {shlex.quote(path)}")
    if name == "write":
        return _exec(write_command(path, str(args.get("content", ""))))
    if name == "edit":
        params = [path, args.get("oldString", ""), args.get("newString", ""),
                  bool(args.get("replaceAll"))]  # fmt: skip
        return _exec(f"node -e {shlex.quote(EDIT_JS)} {shlex.quote(json.dumps(params))}")
    return (name, args)


def _exec(command: str) -> Call:
    return ("exec_command", {"cmd": command, "yield_time_ms": YIELD_MS})


def write_command(path: str, content: str) -> str:
    """A shell command writing exactly `content` to `path` (its folders made first)."""
    if content.endswith("\n"):
        lines = "".join(f"+{line}\n" for line in content[:-1].split("\n"))
        patch = f"*** Begin Patch\n*** Add File: {path}\n{lines}*** End Patch\n"
        return f"apply_patch <<'EOF'\n{patch}EOF\n"
    return heredoc_command(path, content)


def heredoc_command(path: str, content: str) -> str:
    """A `cat` heredoc writing exactly `content` to `path` (its folders made first; content
    without a final newline gets one in the heredoc, taken off again)."""
    delimiter = "SITEOS_EOF"
    while delimiter in content:
        delimiter += "_"
    quoted = shlex.quote(path)
    body = content if content.endswith("\n") else f"{content}\n"
    command = f"mkdir -p \"$(dirname {quoted})\" && cat > {quoted} <<'{delimiter}'\n"
    command += f"{body}{delimiter}"
    if not content.endswith("\n"):
        command += f"\ntruncate -s -1 {quoted}"
    return command
