"""Claude Code 2.1.332 as an agent: its recorded stream-json logs read into the trajectory, the
launch it gets (no setting that reaches past the proxy), and a real run in the session sandbox
against a scripted recorder (`agent_recorder.py`) that sees only Messages requests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_recorder import PROMPT, REFUSAL, ROUTE, run_agent, spec

from harness.agents.claude_code import (
    BINARY_INSIDE,
    FIXED_ENV,
    MODEL_ENV,
    TOOLS,
    ClaudeCodeAgent,
)
from harness.session.sandbox import bwrap_available
from publish.trajectory import tool_view
from records.evidence.agent import ErrorPart, TextPart, ToolPart
from records.tools import CLAUDE_CODE
from scoring.anonymise import anonymise_diff, identity_pattern

DATA = Path(__file__).parent / "data/agents/claude-code-2.1.332"


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().split("\n") if line.strip()]


def cited(path: Path, source: str) -> dict:
    name, number = source.rsplit(":", 1)
    assert name == path.name
    return json.loads(path.read_text().split("\n")[int(number) - 1])


def test_a_recorded_session_reads_into_four_turns() -> None:
    events = DATA / "session/events.jsonl"
    trace = ClaudeCodeAgent().read_trace(events)
    assert trace.agent.name == "claude-code" and trace.malformed_lines == 0
    assert [s.source for s in trace.steps] == ["agent"] * 4
    assert trace.finish_reasons == ["tool-calls", "tool-calls", "tool-calls", "stop"]
    assert trace.finished_normally and not trace.errors
    first = trace.steps[0]
    assert [(p.kind, getattr(p, "text", "")) for p in first.parts[:2]] == [
        ("reasoning", "I should create notes.txt first."),
        ("text", "Creating notes.txt."),
    ]
    write = first.parts[2]
    assert isinstance(write, ToolPart) and write.tool == "Write" and write.status == "completed"
    notes = "/workspace/notes.txt"
    assert write.input == {"file_path": notes, "content": "Hello from the recorder\n"}
    assert write.files == ["/workspace/notes.txt"] and write.output.startswith("File created")
    assert trace.edits == ["/workspace/notes.txt", "/workspace/notes.txt"]  # Write, then Edit
    assert [(c.command, c.exit_code, c.status) for c in trace.commands] == [
        ("cat notes.txt && ls", 0, "completed"),
        ("cat missing.txt", 1, "completed"),
    ]
    assert trace.commands[1].output == "Exit code 1\ncat: missing.txt: No such file or directory"
    assert [p.tool for p in trace.tool_calls] == ["Write", "Edit", "Bash", "Bash"]
    assert trace.steps[3].parts == [
        TextPart(text="Done: notes.txt written and checked.", timestamp=trace.steps[3].started_at,
                 source=trace.steps[3].parts[0].source)
    ]  # fmt: skip
    # per-step tokens from each message's start and delta; times from the assistant lines
    tokens = [(s.metrics.input_tokens, s.metrics.output_tokens) for s in trace.steps if s.metrics]
    assert tokens == [(101, 21), (102, 22), (103, 23), (104, 24)]
    assert all(s.metrics and s.metrics.cache_read_tokens == 7 for s in trace.steps)
    stamps = [s.started_at for s in trace.steps]
    assert all(stamps) and stamps == sorted(stamps)
    # every part cites the native line it came from
    for part in trace.parts():
        line = cited(events, part.source)
        assert line["type"] == "assistant"
        if isinstance(part, ToolPart):
            assert line["message"]["content"][0]["id"] == part.call_id


def test_a_refused_step_is_an_error_after_the_turns_that_ran() -> None:
    trace = ClaudeCodeAgent().read_trace(DATA / "refused/events.jsonl")
    assert [s.source for s in trace.steps] == ["agent", "agent", "system"]
    assert trace.turns == 2 and not trace.finished_normally
    error = trace.steps[-1].parts
    assert len(error) == 1 and isinstance(error[0], ErrorPart)
    assert error[0].text == "API Error: 400 siteos gateway: step ceiling of 2 reached"
    assert [c.command for c in trace.commands] == ["cat notes.txt && ls"]


def test_a_log_without_stream_events_keeps_its_turns(tmp_path: Path) -> None:
    """Without `--include-partial-messages` the stop reasons come from the order of the lines and
    the result; the tokens are unknown."""
    events = tmp_path / "events.jsonl"
    kept = [e for e in lines(DATA / "session/events.jsonl") if e["type"] != "stream_event"]
    events.write_text("".join(json.dumps(e) + "\n" for e in kept))
    trace = ClaudeCodeAgent().read_trace(events)
    assert trace.finish_reasons == ["tool-calls", "tool-calls", "tool-calls", "stop"]
    assert len(trace.tool_calls) == 4 and trace.finished_normally
    assert all(s.metrics is None for s in trace.steps)


def test_the_site_shows_its_writes_and_edits() -> None:
    trace = ClaudeCodeAgent().read_trace(DATA / "session/events.jsonl")
    write, edit, bash = (tool_view(p) for p in trace.tool_calls[:3])
    assert (write.kind, write.path, write.content) == (
        "write", "/workspace/notes.txt", "Hello from the recorder\n")  # fmt: skip
    assert (edit.kind, edit.replaced, edit.content) == ("edit", "Hello", "Hello again")
    assert (bash.kind, bash.text) == ("shell", "cat notes.txt && ls")


def test_prepare_points_every_model_at_the_proxy_and_turns_off_the_rest(tmp_path: Path) -> None:
    sandbox = spec(tmp_path)
    launch = ClaudeCodeAgent().prepare(
        sandbox, route=ROUTE, reasoning="default", title="unit-1", prompt=PROMPT.encode()
    )
    assert launch.stdin == PROMPT.encode()
    env = sandbox.env
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:18080/api"  # the CLI adds /v1/messages
    assert env["ANTHROPIC_AUTH_TOKEN"] == "sk-siteos-proxy" and "ANTHROPIC_API_KEY" not in env
    assert all(env[name] == ROUTE for name in MODEL_ENV)
    assert all(env[name] == "1" for name in FIXED_ENV)
    assert env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    command = launch.command
    assert command[0] == BINARY_INSIDE and sandbox.ro_binds[BINARY_INSIDE] == CLAUDE_CODE.resolve()
    assert command[1:6] == ["-p", "--output-format", "stream-json", "--verbose",
                            "--include-partial-messages"]  # fmt: skip
    flags = {flag: command[command.index(flag) + 1] for flag in command if flag.startswith("--")}
    assert flags["--model"] == ROUTE and flags["--permission-mode"] == "bypassPermissions"
    assert flags["--tools"] == ",".join(TOOLS) == "Bash,Edit,Read,Write"
    assert flags["--disallowedTools"] == "WebFetch,WebSearch"
    assert flags["--setting-sources"] == "user" and "--strict-mcp-config" in command
    assert "--effort" not in command and "--mcp-config" not in command
    settings = json.loads((tmp_path / "home/.claude/settings.json").read_text())
    assert settings["attribution"] == {"commit": "", "pr": ""}
    assert settings["autoMemoryEnabled"] is False and settings["autoUpdates"] is False
    assert settings["permissions"]["deny"] == ["WebFetch", "WebSearch"]


def test_prepare_unsandboxed_uses_the_host_binary_and_port(tmp_path: Path) -> None:
    sandbox = spec(tmp_path, isolated=False)
    launch = ClaudeCodeAgent().prepare(
        sandbox, route=ROUTE, reasoning="high", title="unit-1", prompt=b"x"
    )
    assert launch.command[0] == str(CLAUDE_CODE.resolve()) and not sandbox.ro_binds
    assert launch.command[-2:] == ["--effort", "high"]
    assert sandbox.env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:4321/api"
    assert sandbox.env["TMPDIR"] == f"{tmp_path}/home/tmp"


def test_the_recorded_launch_is_the_one_prepare_makes(tmp_path: Path) -> None:
    """The evidence in tests/data was recorded with this adapter's launch: re-record it (README
    there) when the launch changes."""
    sandbox = spec(tmp_path)
    launch = ClaudeCodeAgent().prepare(
        sandbox, route=ROUTE, reasoning="high", title="capture-unit", prompt=b""
    )
    for run in ("session", "refused"):
        recorded = json.loads((DATA / run / "launch.json").read_text())
        assert recorded["command"] == launch.command and recorded["env"] == sandbox.env


@pytest.mark.agent_cli
@pytest.mark.slow
@pytest.mark.skipif(not CLAUDE_CODE.exists(), reason="Claude Code not installed (scripts/setup)")
@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap missing: run scripts/setup")
def test_real_claude_code_in_the_sandbox_asks_only_the_proxy(tmp_path: Path) -> None:
    turns = [
        {"reasoning": "Write it.", "calls": [{"name": "Write", "input": {
            "file_path": "/workspace/notes.txt", "content": "hi\n"}}]},
        {"calls": [{"name": "Bash", "input": {"command": "cat notes.txt hello.txt"}}]},
        {"text": "Done."},
    ]  # fmt: skip
    run = run_agent(ClaudeCodeAgent(), tmp_path, turns, PROMPT.encode())
    assert run.exit_code == 0, run.stderr[-2000:]
    assert (run.worktree / "notes.txt").read_text() == "hi\n"
    assert [f"{r['method']} {r['path']}" for r in run.requests] == [
        "POST /api/v1/messages?beta=true"] * 3  # fmt: skip
    first = run.requests[0]
    assert first["headers"]["authorization"] == "Bearer sk-siteos-proxy"
    assert all(r["body"]["model"] == ROUTE for r in run.requests)
    assert {t["name"] for t in first["body"]["tools"]} == set(TOOLS)
    user = first["body"]["messages"][0]["content"]
    assert user[-1]["text"] == PROMPT  # the prompt's bytes, unchanged
    assert "Co-Authored-By" not in json.dumps(first["body"])
    trace = ClaudeCodeAgent().read_trace(run.events)
    assert trace.finished_normally and trace.edits == ["/workspace/notes.txt"]
    assert trace.commands[0].output == "hi\nhello world" and trace.commands[0].exit_code == 0


@pytest.mark.agent_cli
@pytest.mark.slow
@pytest.mark.skipif(not CLAUDE_CODE.exists(), reason="Claude Code not installed (scripts/setup)")
@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap missing: run scripts/setup")
def test_real_claude_code_stops_at_a_refused_step_without_retrying(tmp_path: Path) -> None:
    turns = [{"calls": [{"name": "Bash", "input": {"command": "echo {turn}"}}]}]
    run = run_agent(ClaudeCodeAgent(), tmp_path, turns, b"go", refuse_from=2)
    assert len(run.requests) == 2  # no retry dropping a beta each time (see FIXED_ENV)
    trace = ClaudeCodeAgent().read_trace(run.events)
    assert trace.turns == 1 and REFUSAL in trace.errors[0] and not trace.finished_normally


def test_the_anonymiser_knows_claude_code_through_its_adapter() -> None:
    identity = ClaudeCodeAgent.identity
    diff = (
        "diff --git a/.claude/settings.json b/.claude/settings.json\n+{}\n"
        "diff --git a/CLAUDE.md b/CLAUDE.md\n+notes\n"
        "diff --git a/src/a.ts b/src/a.ts\n+// Claude Code call toolu_rec01abc123\n"
    )
    told = anonymise_diff(diff, identity_pattern(identity.names, identity.ids), identity.files)
    assert ".claude/" not in told and "CLAUDE.md" not in told and "src/a.ts" in told
    assert "Claude Code" not in told and "toolu_" not in told
