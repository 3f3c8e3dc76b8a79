"""Codex CLI 0.171.0 as an agent: its recorded `exec --json` logs read into the trajectory, its
config.toml and launch (no setting that reaches past the proxy), and a real run in the session
sandbox against a scripted recorder (`agent_recorder.py`) that sees only Responses requests."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from agent_recorder import PROMPT, REFUSAL, ROUTE, run_agent, spec

from harness.agents.codex import (
    FEATURES_OFF,
    LAUNCHER,
    PACKAGE_INSIDE,
    TOKENS_NOTE,
    CodexAgent,
    codex_config,
    to_toml,
)
from harness.session.sandbox import bwrap_available
from records.evidence.agent import ErrorPart, ToolPart
from records.tools import CODEX, CODEX_DIR
from scoring.anonymise import anonymise_diff, identity_pattern

DATA = Path(__file__).parent / "data/agents/codex-0.171.0"
KEY = "sk-siteos-proxy"  # a placeholder: the proxy adds the real key
WARNING = "Model metadata for `lab-x/editor-1` not found"


def cited(path: Path, source: str) -> dict:
    name, number = source.rsplit(":", 1)
    assert name == path.name
    return json.loads(path.read_text().split("\n")[int(number) - 1])


def test_a_recorded_session_reads_into_four_turns() -> None:
    events = DATA / "session/events.jsonl"
    trace = CodexAgent().read_trace(events)
    assert trace.agent.name == "codex" and trace.malformed_lines == 0
    assert trace.finish_reasons == ["tool-calls", "tool-calls", "tool-calls", "stop"]
    assert trace.turns == 4 and trace.finished_normally and not trace.errors
    first = trace.steps[0].parts
    assert [(p.kind, getattr(p, "text", "")) for p in first[:2]] == [
        ("reasoning", "I should create notes.txt first."),
        ("text", "Creating notes.txt."),
    ]
    change = first[2]
    assert isinstance(change, ToolPart) and change.tool == "file_change"
    assert change.status == "completed" and change.files == ["/workspace/notes.txt"]
    assert change.input == {"changes": [{"path": "/workspace/notes.txt", "kind": "add"}]}
    assert trace.edits == ["/workspace/notes.txt"]
    assert [(c.command, c.exit_code, c.status, c.output) for c in trace.commands] == [
        ("/bin/bash -lc 'cat notes.txt && ls'", 0, "completed",
         "Hello from the recorder\nhello.txt\nnotes.txt\n"),
        ("/bin/bash -lc 'cat missing.txt'", 1, "completed",
         "cat: missing.txt: No such file or directory\n"),
    ]  # fmt: skip
    assert trace.messages[-1].text == "Done: notes.txt written and checked."
    # one token count for the whole run, on its last step; the warning in the notes
    metrics = [s.metrics for s in trace.steps]
    assert metrics[:3] == [None] * 3 and metrics[3] is not None
    assert (metrics[3].input_tokens, metrics[3].output_tokens) == (410, 90)
    assert (metrics[3].reasoning_tokens, metrics[3].cache_read_tokens) == (20, 28)
    assert TOKENS_NOTE in trace.notes and WARNING in trace.notes
    for part in trace.parts():  # each part cites the line that completed its item
        line = cited(events, part.source)
        native = {"text": "agent_message", "reasoning": "reasoning"}
        kind = part.tool if isinstance(part, ToolPart) else native[part.kind]
        assert (line["type"], line["item"]["type"]) == ("item.completed", kind)


def test_a_refused_step_is_an_error_after_the_turns_that_ran() -> None:
    trace = CodexAgent().read_trace(DATA / "refused/events.jsonl")
    assert [s.source for s in trace.steps] == ["agent", "agent", "system"]
    assert trace.finish_reasons == ["tool-calls", "tool-calls"] and not trace.finished_normally
    errors = trace.steps[-1].parts
    assert len(errors) == 1 and isinstance(errors[0], ErrorPart)  # `error` and `turn.failed`
    assert errors[0].text == "error: siteos gateway: step ceiling of 2 reached"


def test_parallel_calls_are_logged_as_turns_of_one_call() -> None:
    """The log cannot tell two calls of one response from two turns: five steps for the four
    requests of the recording (the per-turn cost is then left unknown, see with_metered_cost)."""
    trace = CodexAgent().read_trace(DATA / "parallel/events.jsonl")
    requests = json.loads((DATA / "parallel/requests.json").read_text())
    assert len(requests) == 4 and trace.turns == 5
    assert [c.command.split("'")[1] for c in trace.commands] == [
        "echo fast", "sleep 1; echo slow", "echo one", "echo two"]  # fmt: skip
    assert trace.finished_normally


def test_the_config_names_one_provider_and_turns_off_the_rest() -> None:
    config = tomllib.loads(to_toml(codex_config(ROUTE, "high", "http://127.0.0.1:18080/api/v1")))
    assert config == codex_config(ROUTE, "high", "http://127.0.0.1:18080/api/v1")
    assert config["model"] == ROUTE and config["model_provider"] == "siteos"
    assert config["model_providers"] == {"siteos": {
        "name": "siteos recording proxy", "base_url": "http://127.0.0.1:18080/api/v1",
        "wire_api": "responses", "env_key": "OPENROUTER_API_KEY"}}  # fmt: skip
    assert config["model_reasoning_effort"] == "high"
    assert "model_reasoning_effort" not in codex_config(ROUTE, "default", "u")
    assert (config["approval_policy"], config["sandbox_mode"]) == ("never", "danger-full-access")
    assert config["web_search"] == "disabled" and config["check_for_update_on_startup"] is False
    assert config["analytics"] == {"enabled": False} and config["agents"] == {"enabled": False}
    assert config["features"] == dict.fromkeys(FEATURES_OFF, False)
    assert {"plugins", "goals", "apps"} <= set(FEATURES_OFF)


def test_prepare_writes_the_config_into_codex_home(tmp_path: Path) -> None:
    sandbox = spec(tmp_path)
    launch = CodexAgent().prepare(
        sandbox, route=ROUTE, reasoning="high", title="unit-1", prompt=PROMPT.encode()
    )
    assert launch.stdin == PROMPT.encode()
    assert launch.command == [
        f"{PACKAGE_INSIDE}/{LAUNCHER}", "exec", "--json", "--strict-config",
        "--skip-git-repo-check", "--color", "never", "-C", "/workspace", "-",
    ]  # fmt: skip
    assert sandbox.ro_binds == {PACKAGE_INSIDE: CODEX_DIR.resolve()}
    assert sandbox.env == {"CODEX_HOME": "/home/agent/.codex", "OPENROUTER_API_KEY": KEY}
    written = tomllib.loads((tmp_path / "home/.codex/config.toml").read_text())
    assert written == codex_config(ROUTE, "high", "http://127.0.0.1:18080/api/v1")
    for run in ("session", "refused", "parallel"):  # the launch the evidence was recorded with
        recorded = json.loads((DATA / run / "launch.json").read_text())
        assert recorded["command"] == launch.command and recorded["env"] == sandbox.env


def test_prepare_unsandboxed_uses_the_host_launcher_and_port(tmp_path: Path) -> None:
    sandbox = spec(tmp_path, isolated=False)
    launch = CodexAgent().prepare(
        sandbox, route=ROUTE, reasoning="default", title="unit-1", prompt=b"x"
    )
    assert launch.command[0] == str(CODEX_DIR.resolve() / LAUNCHER) and not sandbox.ro_binds
    assert launch.command[-3:] == ["-C", str(tmp_path / "wt"), "-"]
    config = tomllib.loads((tmp_path / "home/.codex/config.toml").read_text())
    assert config["model_providers"]["siteos"]["base_url"] == "http://127.0.0.1:4321/api/v1"
    assert sandbox.env["CODEX_HOME"] == f"{tmp_path}/home/.codex"


@pytest.mark.agent_cli
@pytest.mark.slow
@pytest.mark.skipif(not CODEX.exists(), reason="Codex not installed (scripts/setup)")
@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap missing: run scripts/setup")
def test_real_codex_in_the_sandbox_asks_only_the_proxy(tmp_path: Path) -> None:
    patch = "*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** End Patch\n"
    turns = [
        {"reasoning": "Write it.", "calls": [{"name": "exec_command", "input": {
            "cmd": f"apply_patch <<'EOF'\n{patch}EOF\n"}}]},
        {"calls": [{"name": "exec_command", "input": {"cmd": "cat notes.txt hello.txt"}}]},
        {"text": "Done."},
    ]  # fmt: skip
    run = run_agent(CodexAgent(), tmp_path, turns, PROMPT.encode())
    assert run.exit_code == 0, run.stderr[-2000:]
    assert (run.worktree / "notes.txt").read_text() == "hi\n"
    assert [f"{r['method']} {r['path']}" for r in run.requests] == ["POST /api/v1/responses"] * 3
    first = run.requests[0]
    assert first["headers"]["authorization"] == "Bearer sk-siteos-proxy"
    assert all(r["body"]["model"] == ROUTE for r in run.requests)
    assert first["body"]["reasoning"] == {"effort": "high", "summary": "auto"}
    tools = [t.get("name", t["type"]) for t in first["body"]["tools"]]
    assert tools == ["exec_command", "write_stdin", "request_user_input", "view_image"]
    user = [i for i in first["body"]["input"] if i.get("role") == "user"]
    assert user[-1]["content"][0]["text"] == PROMPT  # the prompt's bytes, unchanged
    trace = CodexAgent().read_trace(run.events)
    assert trace.finished_normally and trace.edits == ["/workspace/notes.txt"]
    assert trace.commands[0].output == "hi\nhello world\n" and trace.commands[0].exit_code == 0


@pytest.mark.agent_cli
@pytest.mark.slow
@pytest.mark.skipif(not CODEX.exists(), reason="Codex not installed (scripts/setup)")
@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap missing: run scripts/setup")
def test_real_codex_stops_at_a_refused_step(tmp_path: Path) -> None:
    turns = [{"calls": [{"name": "exec_command", "input": {"cmd": "echo one"}}]}]
    run = run_agent(CodexAgent(), tmp_path, turns, b"go", refuse_from=2)
    assert run.exit_code == 1 and len(run.requests) == 2
    trace = CodexAgent().read_trace(run.events)
    assert trace.turns == 1 and REFUSAL in trace.errors[0] and not trace.finished_normally


def test_the_anonymiser_knows_codex_through_its_adapter() -> None:
    identity = CodexAgent.identity
    diff = (
        "diff --git a/.codex/config.toml b/.codex/config.toml\n+model = 'x'\n"
        "diff --git a/src/a.ts b/src/a.ts\n+// written by the Codex CLI\n"
    )
    told = anonymise_diff(diff, identity_pattern(identity.names, identity.ids), identity.files)
    assert ".codex/" not in told and "src/a.ts" in told and "Codex" not in told
