"""The simulator's scripted tool calls in each agent's own tools (gateway/simulator/
dialects.py): Claude Code's reads before its writes and edits, Codex's shell commands doing
exactly what OpenCode's write and edit do (run here by bash and Node, byte for byte), Gemini CLI's
file tools with the arguments its recorded schemas declare, Copilot CLI's `bash` heredocs and its
own edit, view and search tools."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from gateway import gemini
from gateway.simulator.dialects import heredoc_command, translate, write_command
from gateway.simulator.turns import Conversation
from records.tools import CODEX_DIR, node_path_env
from sandbox.netns import loopback_netns_argv

DATA = Path(__file__).parent / "data" / "agents"
CLAUDE_TOOLS = json.loads((DATA / "claude-code-2.1.332/session/requests.json").read_text())[0][
    "body"
]["tools"]
CODEX_REQUEST = json.loads((DATA / "codex-0.171.0/session/requests.json").read_text())[0]["body"]
GEMINI_REQUEST = json.loads((DATA / "gemini-cli-0.61.0/session/requests.json").read_text())[0]
GEMINI_CHAT, _ = gemini.to_chat("lab-x/editor-1", True, GEMINI_REQUEST["body"])
COPILOT_REQUEST = json.loads((DATA / "copilot-1.0.102/session/requests.json").read_text())[0]
SCRIPTED = [
    ("write", {"filePath": "/w/src/a.ts", "content": "export const a = 1;\n"}),
    ("edit", {"filePath": "/w/src/a.ts", "oldString": "1", "newString": "2"}),
    ("bash", {"command": "npm run build", "description": "build"}),
    ("webfetch", {"url": "https://example.com"}),
]


def test_claude_code_reads_before_it_writes_or_edits() -> None:
    calls = translate(SCRIPTED, CLAUDE_TOOLS)
    assert [name for name, _ in calls] == ["Read", "Write", "Read", "Edit", "Bash", "webfetch"]
    assert calls[1][1] == {"file_path": "/w/src/a.ts", "content": "export const a = 1;\n"}
    assert calls[3][1] == {"file_path": "/w/src/a.ts", "old_string": "1", "new_string": "2"}
    assert calls[4][1]["command"] == "npm run build" and calls[4][1]["timeout"] == 600_000
    names = {t["name"] for t in CLAUDE_TOOLS}
    for name, args in calls[:-1]:  # every argument is one the recorded tool schema declares
        (tool,) = [t for t in CLAUDE_TOOLS if t["name"] == name]
        assert name in names and set(args) <= set(tool["input_schema"]["properties"])


def test_gemini_cli_gets_its_own_file_tools_with_their_declared_arguments() -> None:
    """The request as the proxy's Gemini front end forwards it (chat/completions tools)."""
    scripted = [*SCRIPTED[:2], ("edit", {"filePath": "/w/a", "oldString": "x", "newString": "y",
                                         "replaceAll": True}),
                ("read", {"filePath": "/w/a"}), ("glob", {"pattern": "src/**/*.ts", "path": "/w"}),
                ("grep", {"pattern": "Venue", "include": "*.tsx"}), *SCRIPTED[2:]]  # fmt: skip
    calls = translate(scripted, GEMINI_CHAT["tools"])
    assert [name for name, _ in calls] == [
        "write_file", "replace", "replace", "read_file", "glob", "grep_search",
        "run_shell_command", "webfetch"]  # fmt: skip
    assert calls[0][1] == {"file_path": "/w/src/a.ts", "content": "export const a = 1;\n"}
    assert calls[1][1]["old_string"] == "1" and calls[1][1]["new_string"] == "2"
    assert "allow_multiple" not in calls[1][1] and calls[2][1]["allow_multiple"] is True
    assert calls[6][1] == {"command": "npm run build", "description": "build"}
    declared = {t["function"]["name"]: t["function"]["parameters"] for t in GEMINI_CHAT["tools"]}
    for name, args in calls[:-1]:  # every argument is one the recorded schema declares
        schema = declared[name]
        assert set(schema.get("required", [])) <= set(args) <= set(schema["properties"]), name


def test_copilot_cli_gets_its_own_tools_with_their_declared_arguments() -> None:
    """Writes are `bash` heredocs (its `create` refuses an existing file or a missing folder),
    a replace-everywhere edit the Node one-liner; each call has what its recorded schema needs."""
    scripted = [*SCRIPTED[:2], ("edit", {"filePath": "/w/a", "oldString": "x", "newString": "y",
                                         "replaceAll": True}),
                ("read", {"filePath": "/w/a"}), ("glob", {"pattern": "src/**/*.ts", "path": "/w"}),
                ("grep", {"pattern": "Venue", "include": "*.tsx"}), ("list", {"path": "/w"}),
                *SCRIPTED[2:]]  # fmt: skip
    tools = COPILOT_REQUEST["body"]["tools"]
    calls = translate(scripted, tools)
    assert [name for name, _ in calls] == [
        "bash", "edit", "bash", "view", "glob", "grep", "view", "bash", "webfetch"]  # fmt: skip
    content = "export const a = 1;\n"
    assert calls[0][1]["command"] == heredoc_command("/w/src/a.ts", content)
    assert calls[1][1] == {"path": "/w/src/a.ts", "old_str": "1", "new_str": "2"}
    assert calls[2][1]["command"].startswith("node -e ")
    assert calls[5][1] == {"pattern": "Venue", "glob": "*.tsx"}
    assert calls[7][1] == {"command": "npm run build", "description": "build", "initial_wait": 600}
    declared = {t["name"]: t["parameters"] for t in tools}  # the Responses API's tool shape
    for name, args in calls[:-1]:  # every argument is one the recorded schema declares
        schema = declared[name]
        assert set(schema.get("required", [])) <= set(args) <= set(schema["properties"]), name


def test_opencode_requests_keep_the_script_as_written() -> None:
    chat_tools = [{"type": "function", "function": {"name": n}} for n in ("write", "bash")]
    assert translate(SCRIPTED, chat_tools) == SCRIPTED


WRITES = [
    "plain\n",
    "no final newline",
    "",
    "SITEOS_EOF\nEOF\n*** End Patch\n'quotes' \"and\" $HOME `ticks`\n\\n\n",
    "\n\nblank lines\n\n",
]


def apply_patch_path(tmp_path: Path) -> dict[str, str]:
    """PATH with Codex's own binary as `apply_patch` (how Codex applies a patch it intercepts)."""
    found = sorted(CODEX_DIR.glob("node_modules/@openai/codex-linux-*/vendor/*/bin/codex"))
    if not found:
        pytest.fail(f"Codex is not installed under {CODEX_DIR}: run scripts/setup")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "apply_patch").symlink_to(found[0])
    return {**os.environ, "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"}


@pytest.mark.agent_cli
@pytest.mark.parametrize("content", WRITES)
def test_codex_writes_exactly_the_scripted_bytes(tmp_path: Path, content: str) -> None:
    target = tmp_path / "deep" / "dir" / "file.txt"
    target.parent.mkdir(parents=True)
    target.write_text("an older file, replaced\n")
    ((name, args),) = translate([("write", {"filePath": str(target), "content": content})],
                                CODEX_REQUEST["tools"])  # fmt: skip
    assert name == "exec_command" and args["cmd"] == write_command(str(target), content)
    patched = content.endswith("\n")  # a patch, which Codex applies and logs as a file change
    assert args["cmd"].startswith("apply_patch <<'EOF'\n") is patched
    env = apply_patch_path(tmp_path)
    subprocess.run(loopback_netns_argv(["bash", "-c", args["cmd"]]), check=True, env=env,
                   cwd=tmp_path, capture_output=True)  # fmt: skip
    assert target.read_bytes() == content.encode()


def test_codex_edits_once_or_everywhere_and_fails_on_missing_text(tmp_path: Path) -> None:
    target = tmp_path / "a.ts"
    env = {**os.environ, **node_path_env()}

    def edit(old: str, new: str, everywhere: bool = False) -> int:
        args = {"filePath": str(target), "oldString": old, "newString": new}
        ((_, call),) = translate([("edit", {**args, "replaceAll": everywhere})],
                                 CODEX_REQUEST["tools"])  # fmt: skip
        return subprocess.run(["bash", "-c", call["cmd"]], env=env).returncode

    target.write_text("a $1 a\n")
    assert edit("a", "b'$&") == 0 and target.read_text() == "b'$& $1 a\n"
    assert edit("a", "c", everywhere=True) == 0 and target.read_text() == "b'$& $1 c\n"
    assert edit("missing", "x") == 1 and target.read_text() == "b'$& $1 c\n"


def test_each_agent_names_its_working_directory() -> None:
    claude = json.loads((DATA / "claude-code-2.1.332/session/requests.json").read_text())[0]
    system = claude["body"]["system"]
    body = {"messages": [{"role": "system", "content": system}, *claude["body"]["messages"]]}
    assert Conversation.of(body).workdir == "/workspace"
    codex_messages = [
        {"role": "user", "content": item["content"]}
        for item in CODEX_REQUEST["input"]
        if item.get("role") == "user"
    ]
    assert Conversation.of({"messages": codex_messages}).workdir == "/workspace"
    assert Conversation.of(GEMINI_CHAT).workdir == "/workspace"  # its session context
    copilot = COPILOT_REQUEST["body"]  # its environment context, in its instructions
    body = {"messages": [{"role": "system", "content": copilot["instructions"]}]}
    assert Conversation.of(body).workdir == "/workspace"


def test_a_probe_is_recognised_behind_codexs_environment_context() -> None:
    """Codex sends its environment context as a user message before the prompt; a preflight
    probe's marker in the prompt after it still makes the conversation a probe."""
    probe = "PREFLIGHT PROBE 2\nPROBE FILE: probe.txt\nPROBE TEXT: probe 2 ok"
    users = [item for item in CODEX_REQUEST["input"] if item.get("role") == "user"]
    assert len(users) == 2 and "<environment_context>" in str(users[0]["content"])
    messages = [{"role": "user", "content": str(users[0]["content"])},
                {"role": "user", "content": probe}]  # fmt: skip
    assert Conversation.of({"messages": messages}).prompt == probe


@pytest.mark.parametrize("content", WRITES)
def test_copilot_cli_writes_exactly_the_scripted_bytes(tmp_path: Path, content: str) -> None:
    """Over an existing file and into a folder not yet made, as OpenCode's `write` does."""
    for target in (tmp_path / "old.txt", tmp_path / "new" / "dir" / "file.txt"):
        if target.name == "old.txt":
            target.write_text("an older file, replaced\n")
        ((name, args),) = translate([("write", {"filePath": str(target), "content": content})],
                                    COPILOT_REQUEST["body"]["tools"])  # fmt: skip
        assert name == "bash"
        subprocess.run(["bash", "-c", args["command"]], check=True, cwd=tmp_path)
        assert target.read_bytes() == content.encode()
