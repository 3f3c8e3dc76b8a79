"""Which of a worktree's files real OpenCode 1.17.18 reads into its requests, with the adapter's
isolation and natively (as a user's OpenCode loads a project).

`OPENCODE_DISABLE_PROJECT_CONFIG` keeps a project's opencode.json, plugins and their npm install out
of a session, and with them the worktree's AGENTS.md and `.opencode/skills/`: a method arm's files
would reach the model only if it opened them. The adapter names both by absolute path in its
config; these tests prove on the wire that the first request is then byte for byte what OpenCode
sends when it loads the project itself (apart from the session id and the private HOME's path),
and that a worktree without them gets the request it always got (no instructions, no skill tool).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.agents.opencode import OpenCodeAgent
from harness.session.sandbox import SandboxSpec
from records.interventions import arm_folder
from records.tools import OPENCODE
from sandbox.netns import loopback_netns_argv, netns_available

STUB = Path(__file__).with_name("opencode_request_stub.py")
PORT = 18467
ROUTE = "lab-x/editor-1"

pytestmark = [
    pytest.mark.opencode,
    pytest.mark.slow,
    pytest.mark.skipif(not OPENCODE.exists(), reason="OpenCode not installed (scripts/setup)"),
    pytest.mark.skipif(not netns_available(), reason="needs a loopback-only network namespace"),
]


def _worktree(path: Path, *arms: str) -> Path:
    """A git worktree holding the given method arms' files (as the harness copies them)."""
    path.mkdir()
    (path / "README.md").write_text("# A site\n")
    for arm in arms:
        folder = arm_folder("method", arm)
        shutil.copytree(folder, path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("arm.json"))
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def _first_request(home: Path, worktree: Path, native: bool) -> dict[str, Any]:
    """Run OpenCode once with the adapter's launch (or, `native`, as a user's OpenCode: project
    config on, the skill tool as OpenCode offers it) and return its first request body, with the
    private HOME's path (which OpenCode names in the bash tool) as `<HOME>`."""
    spec = SandboxSpec(
        worktree=worktree, home=home, gateway_socket=home / "s" / "sock", gateway_port=PORT,
        isolated=False,
    )  # fmt: skip
    launch = OpenCodeAgent().prepare(
        spec, route=ROUTE, reasoning="high", title="probe", prompt=b"Say hello."
    )
    env = spec.host_env()
    if native:
        del env["OPENCODE_DISABLE_PROJECT_CONFIG"]
        config_path = Path(env["OPENCODE_CONFIG"])
        config = json.loads(config_path.read_text())
        config.pop("instructions", None)
        config.pop("skills", None)
        config["tools"]["skill"] = True
        config_path.write_text(json.dumps(config))
    log = home / "requests.jsonl"
    script = f'"{sys.executable}" "{STUB}" {PORT} "{log}" & STUB=$!; sleep 0.5; "$@"; kill $STUB'
    done = subprocess.run(
        loopback_netns_argv(["sh", "-c", script, "sh", *launch.command]),
        input=launch.stdin, capture_output=True, env=env, cwd=worktree, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    first = json.loads(log.read_text().splitlines()[0])
    body: dict[str, Any] = json.loads(json.dumps(first["body"]).replace(str(home), "<HOME>"))
    body.pop("prompt_cache_key", None)  # the session id
    return body


def _system(body: dict[str, Any]) -> str:
    """The system messages' text (a string or a list of text parts)."""
    texts: list[str] = []
    for message in body["messages"]:
        if message["role"] == "system":
            content = message["content"]
            parts = [content] if isinstance(content, str) else [p["text"] for p in content]
            texts.extend(parts)
    return "\n".join(texts)


def _tools(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]


@pytest.mark.full  # three OpenCode runs, ~1 min
def test_a_method_arm_reaches_opencode_exactly_as_a_users_project_would(tmp_path: Path) -> None:
    worktree = _worktree(tmp_path / "wt", "openspec", "tracer-bullets")
    adapter = _first_request(tmp_path / "home-adapter", worktree, native=False)
    native = _first_request(tmp_path / "home-native", worktree, native=True)
    agents_md = (worktree / "AGENTS.md").read_text()
    assert f"Instructions from: {worktree}/AGENTS.md\n{agents_md}" in _system(adapter)
    assert "skill" in _tools(adapter)
    assert "openspec-propose" in _system(adapter)  # one of OpenSpec's skills, listed for the model
    assert adapter == native


def test_a_worktree_without_instructions_or_skills_gets_the_usual_request(tmp_path: Path) -> None:
    worktree = _worktree(tmp_path / "wt")
    body = _first_request(tmp_path / "home", worktree, native=False)
    assert "Instructions from:" not in _system(body)
    assert "skill" not in _tools(body)
    assert sorted(_tools(body)) == ["bash", "edit", "glob", "grep", "read", "write"]
