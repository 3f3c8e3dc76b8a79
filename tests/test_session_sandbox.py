"""The agent's session sandbox, run the way a session runs it (`SandboxSpec.launch` and the
session's `run_process`): the agent is an unprivileged uid with per-process limits and a capped
/tmp, the host stops a fork bomb, and nothing outside the allow-list can be read. The limits in
these tests are small and every command is bounded in time, so the machine is never at risk."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.session.process import ProcessOutcome, run_process
from harness.session.sandbox import FORWARDER, SandboxSpec, bwrap_available
from harness.session.worktree import final_diff, git_init
from records.layout import REPO_ROOT
from sandbox import Limits, MiB, bwrap_argv
from sandbox.profiles import SESSION_LIMITS, SESSION_TMP_SIZE
from sandbox.runner import SANDBOX_UID

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(not bwrap_available(), reason="bubblewrap missing: run scripts/setup"),
]

SMALL = Limits(
    nproc=64,
    memory=256 * MiB,
    resident_total=512 * MiB,
    file_size=16 * MiB,
    writable_total=256 * MiB,
    open_files=256,
)


@dataclass
class Ran:
    outcome: ProcessOutcome
    stdout: str
    stderr: str


def session_spec(tmp_path: Path, limits: Limits | None = SMALL) -> SandboxSpec:
    # tmp_path is under pytest's 0700 folder, like a unit's scratch: every bind is staged.
    for sub in ("wt", "home", "gw"):
        (tmp_path / sub).mkdir(exist_ok=True)
    return SandboxSpec(
        worktree=tmp_path / "wt",
        home=tmp_path / "home",
        gateway_socket=tmp_path / "gw" / "proxy.sock",
        limits=limits,
        tmp_size=32 * MiB,
    )


def run_in_session(spec: SandboxSpec, script: str, wall_clock: float = 60) -> Ran:
    out, err = spec.worktree.parent / "events.jsonl", spec.worktree.parent / "stderr.log"
    with spec.launch(["/bin/bash", "-c", script]) as argv:
        outcome = run_process(
            argv, env={"PATH": "/usr/bin:/bin"}, stdin=b"", stdout=out, stderr=err,
            wall_clock_seconds=wall_clock, ceiling_hit=lambda: None, limits=spec.limits,
            tmp_size=spec.tmp_size, writable=spec.writable, label="agent",
        )  # fmt: skip
    return Ran(outcome, out.read_text(), err.read_text())


def test_the_agent_is_an_unprivileged_user_with_limits(tmp_path: Path) -> None:
    spec = session_spec(tmp_path, limits=SESSION_LIMITS)
    spec.tmp_size = SESSION_TMP_SIZE
    (spec.worktree / "starter.txt").write_text("starter\n")
    script = (
        "id -u; echo USER $(whoami); echo HOME $HOME; cat /workspace/starter.txt;"
        "echo made > /workspace/new.txt;"
        "mkdir -p /home/agent/.cache && echo ok > /home/agent/.cache/c;"
        "df -B1 --output=size /tmp | tail -1;"
        "grep -E 'Max (processes|data size|file size|open files|core)' /proc/self/limits"
        " | tr -s ' ' | cut -d' ' -f1-5"
    )
    ran = run_in_session(spec, script)
    assert ran.outcome.exit_code == 0 and ran.outcome.limit_hit is None, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[:4] == [str(SANDBOX_UID), "USER agent", "HOME /home/agent", "starter"]
    assert int(lines[4]) == SESSION_TMP_SIZE
    limits = "\n".join(lines[5:])
    assert "Max processes 1024 1024" in limits and "Max open files 8192 8192" in limits
    assert f"Max data size {8 * 2**30}" in limits and f"Max file size {2**30}" in limits
    assert "Max core file size 0" in limits
    # The harness (root) owns everything again once the sandbox is gone: its git can read it.
    for path in (spec.worktree, spec.worktree / "new.txt", spec.home / ".cache" / "c"):
        assert path.stat().st_uid == os.geteuid()
    assert (spec.worktree / "new.txt").read_text() == "made\n"


def test_a_planted_file_outside_the_allowed_paths_cannot_be_read(tmp_path: Path) -> None:
    spec = session_spec(tmp_path)
    planted = tmp_path / "planted-secret.txt"
    planted.write_text("TOPSECRET\n")
    beside = Path("/tmp") / f"siteos-planted-{os.getpid()}.txt"
    beside.write_text("TOPSECRET\n")
    host_passwd = Path("/etc/passwd").read_text().splitlines()[0]
    try:
        script = (
            "echo ROOT $(ls -A /); echo ETC $(ls -A /etc); echo TMP $(ls -A /tmp);"
            f"for p in {planted} {beside} {REPO_ROOT}/pyproject.toml {REPO_ROOT} /work"
            " /root /etc/shadow /etc/hostname /etc/resolv.conf; do"
            '  if [ -e "$p" ]; then echo "VISIBLE $p"; else echo "ABSENT $p"; fi;'
            "done;"
            f"cat {planted} {beside} 2>&1; cat /etc/passwd;"
            "find / -path /proc -prune -o -name 'planted*' -print 2>/dev/null | sed 's/^/FOUND /';"
            "echo done"
        )
        ran = run_in_session(spec, script)
    finally:
        beside.unlink()
    out = ran.stdout
    assert out.rstrip().endswith("done"), ran.stderr
    assert "TOPSECRET" not in out and "FOUND" not in out and "VISIBLE" not in out, out
    assert host_passwd not in out  # the sandbox's own passwd, not the host's
    heads = ("ROOT ", "ETC ", "TMP ")
    lines = dict(line.split(" ", 1) for line in out.splitlines() if line.startswith(heads))
    assert lines["ROOT"].split() == [
        "bin", "dev", "etc", "home", "lib", "lib64", "opt", "proc", "run", "sbin", "tmp", "usr",
        "workspace",
    ]  # fmt: skip
    assert "shadow" not in lines["ETC"] and "hostname" not in lines["ETC"]
    assert "TMP" in out.splitlines()  # an empty, private /tmp


def test_a_fork_bomb_is_stopped_quickly_with_the_process_diagnostic(tmp_path: Path) -> None:
    spec = session_spec(tmp_path)
    start = time.monotonic()
    ran = run_in_session(spec, "f() { f | f & }; f; sleep 60")
    assert time.monotonic() - start < 20
    assert ran.outcome.limit_hit == "nproc", ran.outcome
    assert ran.outcome.exit_code != 0  # bubblewrap was killed
    assert "exceeded the process limit (64 processes and threads" in ran.outcome.limit_message
    assert "sandbox: `agent` exceeded the process limit" in ran.stderr
    assert subprocess.run(["true"], timeout=10).returncode == 0  # the host still forks


def test_a_write_past_the_file_size_cap_fails_with_the_fsize_diagnostic(tmp_path: Path) -> None:
    spec = session_spec(tmp_path)
    ran = run_in_session(spec, "head -c 40M /dev/zero > /workspace/big")
    assert ran.outcome.exit_code != 0 and ran.outcome.limit_hit == "fsize", ran.stderr
    assert "exceeded the file-size limit (16 MiB)" in ran.stderr
    assert (spec.worktree / "big").stat().st_size == 16 * MiB


def test_an_allocation_past_the_memory_limit_fails_with_the_memory_diagnostic(
    tmp_path: Path,
) -> None:
    spec = session_spec(tmp_path)
    ran = run_in_session(spec, "python3 -c 'b = bytearray(1024 * 2**20)'")
    assert ran.outcome.exit_code != 0 and ran.outcome.limit_hit == "memory", ran.stderr
    assert "MemoryError" in ran.stderr
    assert "ran out of memory: the limit is 256 MiB of data per process" in ran.stderr


def test_a_full_tmp_fails_with_the_tmp_diagnostic(tmp_path: Path) -> None:
    spec = session_spec(tmp_path, Limits(nproc=64, file_size=64 * MiB))
    ran = run_in_session(spec, "head -c 40M /dev/zero > /tmp/fill")
    assert ran.outcome.limit_hit == "tmp", ran.stderr
    assert "filled its private /tmp (32 MiB cap)" in ran.stderr


def test_filling_the_worktree_is_stopped_by_the_disk_watch(tmp_path: Path) -> None:
    spec = session_spec(tmp_path, Limits(nproc=64, file_size=16 * MiB, writable_total=64 * MiB))
    script = "for i in $(seq 40); do head -c 8M /dev/zero > /workspace/f$i; sleep 0.2; done"
    ran = run_in_session(spec, script)
    assert ran.outcome.limit_hit == "disk", ran.stderr
    assert "exceeded the disk limit (64 MiB" in ran.stderr
    assert sum(f.stat().st_size for f in spec.worktree.iterdir()) < 160 * MiB


def test_the_command_line_comes_from_the_session_profile(tmp_path: Path) -> None:
    spec = session_spec(tmp_path, limits=SESSION_LIMITS)
    argv = spec.argv(["opencode", "run"])
    assert argv == bwrap_argv(spec.profile(["opencode", "run"]))
    assert argv[argv.index("--uid") + 1] == str(SANDBOX_UID) and "--disable-userns" in argv
    assert argv[argv.index("--size") + 1] == str(32 * MiB)
    sources = {argv[i + 1]: argv[i + 2] for i, a in enumerate(argv) if a == "--ro-bind"}
    assert sources[str(FORWARDER)] == "/opt/siteos/forward.js"
    assert sources[str(spec.identity_dir / "passwd")] == "/etc/passwd"
    assert "/etc/passwd" not in sources and "/etc/hosts" not in sources  # never the host's
    tail = argv[argv.index("--") + 1 :]
    assert tail[0] == "/usr/bin/prlimit" and "--nproc=1024" in tail
    assert tail[tail.index("--", 1) + 1 :][-2:] == ["opencode", "run"]
    unsandboxed = SandboxSpec(spec.worktree, spec.home, spec.gateway_socket, isolated=False)
    assert unsandboxed.argv(["opencode", "run"]) == ["opencode", "run"]


def test_the_agents_git_config_never_runs_on_the_host(tmp_path: Path) -> None:
    """The evidence diff is read through the harness's copy of the starter repository: hooks, an
    fsmonitor, a clean filter or an external diff the agent sets in its `.git` never run."""
    root = tmp_path / "wt"
    root.mkdir()
    (root / "a.txt").write_text("starter\n")
    base = git_init(root)
    marker = tmp_path / "ran-on-host"
    evil = tmp_path / "evil.sh"
    evil.write_text(f"#!/bin/sh\ntouch {marker}\ncat\n")
    evil.chmod(0o755)
    with (root / ".git" / "config").open("a") as config:
        config.write(
            f'[core]\n\tfsmonitor = "{evil}"\n[filter "x"]\n\tclean = "{evil}"\n'
            f'[diff]\n\texternal = "{evil}"\n[diff "x"]\n\ttextconv = "{evil}"\n'
        )
    (root / ".gitattributes").write_text("* filter=x diff=x\n")
    (root / "a.txt").write_text("changed by the agent\n")
    diff = final_diff(root, base).decode()
    assert not marker.exists()
    assert "+changed by the agent" in diff and "+* filter=x diff=x" in diff
    assert ".git/config" not in diff
