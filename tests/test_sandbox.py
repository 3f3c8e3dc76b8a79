"""The sandbox contains hostile commands: no network, read-only system, hidden repository, time
and output limits, and nothing outside the writable binds changes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from records.layout import REPO_ROOT
from sandbox import (
    Bind,
    SandboxSpec,
    loopback_netns_argv,
    netns_available,
    run_process,
    run_sandboxed,
)
from sandbox.runner import bwrap_argv


def spec(tmp_path: Path, script: str, **kw: object) -> SandboxSpec:
    return SandboxSpec(
        argv=["sh", "-c", script],
        cwd="/tmp/app",
        binds=[Bind(tmp_path, "/tmp/app", writable=True)],
        hide=[str(REPO_ROOT), "/root", "/home"],
        **kw,  # type: ignore[arg-type]
    )


def test_runs_and_reports(tmp_path: Path) -> None:
    result = run_sandboxed(spec(tmp_path, "echo hello; echo oops >&2; exit 3", timeout=10))
    assert result.exit_code == 3
    assert result.stdout == "hello\n"
    assert result.stderr == "oops\n"
    assert not result.timed_out and not result.output_capped
    assert "exited with code 3" in result.describe()


def test_only_the_bind_is_writable(tmp_path: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    script = (
        "touch /tmp/app/ok && echo made;"
        f"touch {outside}/escape 2>/dev/null && echo ESCAPED;"
        "touch /etc/evil 2>/dev/null && echo ESCAPED;"
        "touch /usr/evil 2>/dev/null && echo ESCAPED;"
        "mount -o remount,rw / 2>/dev/null && echo REMOUNTED;"
        "id -u"
    )
    result = run_sandboxed(spec(tmp_path, script, timeout=10))
    assert "ESCAPED" not in result.stdout and "REMOUNTED" not in result.stdout
    assert (tmp_path / "ok").exists()
    assert not (outside / "escape").exists() and not Path("/etc/evil").exists()
    assert result.stdout.strip().splitlines()[-1] != "0"  # not root inside


def test_repository_and_parent_are_hidden(tmp_path: Path) -> None:
    script = (
        f"ls {REPO_ROOT} | wc -l; cat {REPO_ROOT}/pyproject.toml 2>&1 | head -1; ls ../ | wc -l"
    )
    result = run_sandboxed(spec(tmp_path, script, timeout=10))
    lines = result.stdout.strip().splitlines()
    assert lines[0] == "0"
    assert "No such file" in lines[1]


def test_no_network(tmp_path: Path) -> None:
    script = (
        "ip -o link | cut -d: -f2 | tr -d ' ';"
        "(exec 3<>/dev/tcp/1.1.1.1/80) 2>/dev/null && echo CONNECTED;"
        "getent hosts example.com >/dev/null && echo RESOLVED;"
        "echo done"
    )
    base = spec(tmp_path, "true", timeout=15)
    result = run_sandboxed(SandboxSpec(**{**base.__dict__, "argv": ["bash", "-c", script]}))
    assert "CONNECTED" not in result.stdout and "RESOLVED" not in result.stdout
    assert result.stdout.split() == ["lo", "done"]


def test_timeout_kills_the_whole_tree(tmp_path: Path) -> None:
    start = time.monotonic()
    result = run_sandboxed(spec(tmp_path, "sleep 300 & sleep 300 & while :; do :; done", timeout=2))
    assert result.timed_out and result.exit_code is None
    assert time.monotonic() - start < 10
    assert "time limit" in result.describe()


def test_output_flood_is_capped_and_killed(tmp_path: Path) -> None:
    start = time.monotonic()
    result = run_sandboxed(spec(tmp_path, "yes gigabytes", timeout=60, output_cap=100_000))
    assert result.output_capped and result.exit_code is None
    assert len(result.stdout) < 100_500
    assert "output truncated" in result.stdout
    assert time.monotonic() - start < 10


def test_environment_is_clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "x")
    result = run_sandboxed(spec(tmp_path, "env", env={"FOO": "bar"}, timeout=10))
    assert "SECRET_TOKEN" not in result.stdout
    assert "FOO=bar" in result.stdout


def test_argv_has_the_containment_flags(tmp_path: Path) -> None:
    argv = bwrap_argv(spec(tmp_path, "true"))
    for flag in (
        "--unshare-net",
        "--unshare-pid",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--unshare-user",
    ):
        assert flag in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL"


def test_run_process_timeout() -> None:
    result = run_process(["sh", "-c", "sleep 30"], timeout=1)
    assert result.timed_out


@pytest.mark.skipif(not netns_available(), reason="cannot create network namespaces here")
def test_loopback_netns_has_only_lo() -> None:
    result = run_process(loopback_netns_argv(["ip", "-o", "link"]), timeout=10)
    names = [line.split(":")[1].strip() for line in result.stdout.splitlines()]
    assert names == ["lo"]
    probe = run_process(
        loopback_netns_argv(["bash", "-c", "(exec 3<>/dev/tcp/1.1.1.1/80) 2>&1 || echo blocked"]),
        timeout=10,
    )
    assert "blocked" in probe.stdout
