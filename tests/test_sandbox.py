"""The sandbox contains hostile commands: an allow-list filesystem (nothing of the host but /usr,
two /etc entries and the binds), no network, per-sandbox process, memory, file-size, open-file
and /tmp limits with a diagnostic naming the limit, time and output limits, and nothing outside
the writable binds changes. The limits in these tests are small, so the machine is never at
risk."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from records.layout import REPO_ROOT
from records.tools import NODE_BIN_DIR
from sandbox import (
    Bind,
    Limits,
    MiB,
    SandboxError,
    SandboxResult,
    SandboxSpec,
    bwrap_argv,
    loopback_netns_argv,
    monitor,
    netns_available,
    private_dir,
    run_process,
    run_sandboxed,
)
from sandbox.monitor import TreeWatch
from sandbox.profiles import NODE_DIR, agent_session, untrusted_build
from sandbox.runner import host_argv, limit_reached

pytestmark = [pytest.mark.timeout(120)]

SMALL = Limits(
    nproc=64,
    memory=128 * MiB,
    resident_total=256 * MiB,
    file_size=16 * MiB,
    open_files=256,
)
NODE = Bind(NODE_BIN_DIR.parent, NODE_DIR)


@pytest.fixture
def box() -> Iterator[Path]:
    """A writable folder for the sandbox, made the way the evaluator makes its workspace."""
    root = private_dir("siteos-test-")
    yield root
    shutil.rmtree(root, ignore_errors=True)


def spec(folder: Path, script: str, **kw: object) -> SandboxSpec:
    fields: dict[str, object] = {
        "argv": ["sh", "-c", script],
        "cwd": "/tmp/app",
        "binds": [Bind(folder, "/tmp/app", writable=True)],
        "limits": SMALL,
        "tmp_size": 32 * MiB,
        "timeout": 30,
    }
    fields.update(kw)
    return SandboxSpec(**fields)  # type: ignore[arg-type]


RECORD_NS = "readlink /proc/self/ns/pid > /tmp/app/pidns; "


def left_behind(folder: Path) -> int:
    """Host processes still in the pid namespace the sandbox recorded in `folder`/pidns."""
    ns = (folder / "pidns").read_text().strip()
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.readlink(f"/proc/{entry}/ns/pid") == ns:
                    count += 1
            except OSError:
                continue
    return count


def test_runs_and_reports(box: Path) -> None:
    result = run_sandboxed(spec(box, "echo hello; echo oops >&2; exit 3", timeout=10))
    assert result.exit_code == 3
    assert result.stdout == "hello\n"
    assert result.stderr == "oops\n"
    assert not result.timed_out and not result.output_capped and result.limit_hit is None
    assert "exited with code 3" in result.describe()
    assert result.usage.samples >= 0


def test_only_the_bind_is_writable(box: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    script = (
        "touch /tmp/app/ok && echo made;"
        f"touch {outside}/escape 2>/dev/null && echo ESCAPED;"
        "touch /evil /etc/evil /usr/evil 2>/dev/null && echo ESCAPED;"
        "mkdir /work 2>/dev/null && echo ESCAPED;"
        "mount -o remount,rw / 2>/dev/null && echo REMOUNTED;"
        "id -u"
    )
    result = run_sandboxed(spec(box, script, timeout=10))
    assert "ESCAPED" not in result.stdout and "REMOUNTED" not in result.stdout
    assert (box / "ok").exists()
    assert not (outside / "escape").exists() and not Path("/etc/evil").exists()
    assert result.stdout.strip().splitlines()[-1] == "1000"  # not root inside


def test_nothing_of_the_host_exists_but_the_allow_list(box: Path, tmp_path: Path) -> None:
    planted = tmp_path / "planted-secret.txt"
    planted.write_text("TOPSECRET\n")
    sibling = box.parent / f"{box.name}-planted"
    sibling.mkdir()
    (sibling / "planted-too.txt").write_text("TOPSECRET\n")
    # The checkout's parent is absent inside, unless it is a folder the sandbox has its own of.
    repo_parent = REPO_ROOT.parent if str(REPO_ROOT.parent) not in ("/", "/tmp", "/usr") else ""
    try:
        script = (
            "echo ROOT $(ls -A /);"
            "echo ETC $(ls -A /etc);"
            "echo TMP $(ls -A /tmp);"
            f"for p in {planted} {sibling}/planted-too.txt {REPO_ROOT}/pyproject.toml "
            f"{repo_parent} /work /root /home /etc/shadow /etc/passwd /etc/hostname "
            f"/etc/resolv.conf {tmp_path}; do"
            '  if [ -e "$p" ]; then echo "VISIBLE $p"; else echo "ABSENT $p"; fi;'
            "done;"
            f"cat {planted} 2>&1; ls {tmp_path} 2>&1;"
            "find / -path /proc -prune -o -name 'planted*' -print 2>/dev/null | sed 's/^/FOUND /';"
            "echo done"
        )
        result = run_sandboxed(spec(box, script, timeout=60))
    finally:
        shutil.rmtree(sibling)
    out = result.stdout
    assert "TOPSECRET" not in out and "FOUND" not in out
    heads = ("ROOT", "ETC", "TMP")
    lines = dict(line.split(" ", 1) for line in out.splitlines() if line.startswith(heads))
    assert lines["ROOT"].split() == [
        "bin",
        "dev",
        "etc",
        "lib",
        "lib64",
        "proc",
        "sbin",
        "tmp",
        "usr",
    ]
    assert lines["ETC"].split() == ["alternatives", "ld.so.cache"]
    assert lines["TMP"].split() == ["app"]
    assert "VISIBLE" not in out, out
    assert f"ABSENT {planted}" in out and "ABSENT /work" in out and "ABSENT /etc/shadow" in out
    assert out.rstrip().endswith("done")


def test_the_build_profile_sees_only_node_and_its_folders(box: Path) -> None:
    (box / "app").mkdir()
    (box / "cache").mkdir()
    script = "echo $(ls -A /) / $(ls -A /opt) / $(ls -A /tmp); node -p process.version"
    result = run_sandboxed(
        untrusted_build(box / "app", box / "cache", ["sh", "-c", script], timeout=30)
    )
    assert result.ok, result.describe() + result.stderr
    listing, version = result.stdout.strip().splitlines()
    assert listing == "bin dev etc lib lib64 opt proc sbin tmp usr / node / app npm-cache"
    assert version.startswith("v22.")


def test_unreachable_binds_are_staged(tmp_path: Path) -> None:
    # pytest's tmp_path sits under a 0700 root folder the sandbox's host uid cannot search.
    assert os.stat(tmp_path.parent.parent).st_mode & 0o077 == 0
    (tmp_path / "in.txt").write_text("inside\n")
    argv, staged = host_argv(spec(tmp_path, "true"), Path("/nonexistent-stage"))
    assert staged and argv[:2] == ["unshare", "--mount"]
    result = run_sandboxed(spec(tmp_path, "cat in.txt; echo out > out.txt", timeout=10))
    assert result.ok and result.stdout == "inside\n"
    assert (tmp_path / "out.txt").read_text() == "out\n"


def test_no_network(box: Path) -> None:
    script = (
        "ip -o link | cut -d: -f2 | tr -d ' ';"
        "(exec 3<>/dev/tcp/1.1.1.1/80) 2>/dev/null && echo CONNECTED;"
        "getent hosts example.com >/dev/null && echo RESOLVED;"
        "echo done"
    )
    result = run_sandboxed(spec(box, "", argv=["bash", "-c", script], timeout=15))
    assert "CONNECTED" not in result.stdout and "RESOLVED" not in result.stdout
    assert result.stdout.split() == ["lo", "done"]


def test_timeout_kills_the_whole_tree(box: Path) -> None:
    start = time.monotonic()
    script = RECORD_NS + "sleep 300 & sleep 300 & while :; do :; done"
    result = run_sandboxed(spec(box, script, timeout=2))
    assert result.timed_out and result.exit_code is None and result.limit_hit == "timeout"
    assert time.monotonic() - start < 10
    assert "time limit" in result.describe()
    assert left_behind(box) == 0


def test_output_flood_is_capped_and_killed(box: Path) -> None:
    start = time.monotonic()
    result = run_sandboxed(spec(box, "yes gigabytes", timeout=60, output_cap=100_000))
    assert result.output_capped and result.exit_code is None and result.limit_hit == "output"
    assert len(result.stdout) < 100_500
    assert "output truncated" in result.stdout
    assert "output cap" in result.describe()
    assert time.monotonic() - start < 10


def test_environment_is_clean(box: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "x")
    result = run_sandboxed(spec(box, "env", env={"FOO": "bar"}, timeout=10))
    assert "SECRET_TOKEN" not in result.stdout
    assert "FOO=bar" in result.stdout


def test_argv_is_an_allow_list_with_limits(box: Path) -> None:
    argv = bwrap_argv(spec(box, "true"))
    for flag in (
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
    ):
        assert flag in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    binds = [argv[i + 1] for i, a in enumerate(argv) if a in ("--bind", "--ro-bind")]
    assert "/" not in binds and binds[0] == "/usr"
    assert argv[argv.index("--tmpfs") - 1] == str(32 * MiB)
    assert argv[argv.index("--remount-ro") + 1] == "/"
    init = argv[argv.index("--", argv.index("--chdir")) + 1 :]
    assert init[:6] == [
        "/usr/bin/prlimit",
        "--nproc=64",
        f"--data={128 * MiB}",
        f"--fsize={16 * MiB}",
        "--nofile=256",
        "--core=0",
    ]


def test_fork_bomb_ends_quickly_with_the_process_diagnostic(box: Path) -> None:
    """bash's fork bomb: its processes retry refused forks instead of dying (dash's burn out on
    their own, sometimes between two samples of a loaded host), so only the host can end it."""
    start = time.monotonic()
    bomb = RECORD_NS + "f() { f | f & }; f; sleep 60"
    result = run_sandboxed(spec(box, "", argv=["bash", "-c", bomb], timeout=60))
    elapsed = time.monotonic() - start
    assert result.limit_hit == "nproc" and not result.ok, result.describe()
    assert result.exit_code is None  # the host stopped it; it did not end by itself
    assert elapsed < 15
    assert "process limit (64 processes and threads" in result.describe()
    # the kernel refused forks: the limit is real
    assert "fork: retry: Resource temporarily unavailable" in result.stderr
    assert result.usage.peak_tasks <= 64
    time.sleep(0.5)
    assert left_behind(box) == 0  # every process of the bomb is gone
    assert subprocess.run(["true"], timeout=10).returncode == 0  # the host still forks


def test_a_refused_fork_counts_as_the_process_limit_once_the_tree_was_half_full() -> None:
    """On a loaded host every sample of a fork bomb may fall between its peaks; a printed fork
    refusal then decides, but only with a host-measured peak of at least half the limit."""
    watch = TreeWatch(os.getpid())
    watch.tasks = 20
    watch.usage.peak_tasks = 31
    assert limit_reached(watch, SMALL, fork_refused=True) is None
    assert limit_reached(watch, SMALL) is None
    watch.usage.peak_tasks = 32
    assert limit_reached(watch, SMALL, fork_refused=True) == "nproc"
    assert limit_reached(watch, SMALL) is None
    watch.tasks = 58
    assert limit_reached(watch, SMALL) == "nproc"


def test_process_limit_is_per_sandbox(box: Path) -> None:
    """Two sandboxes of 64 tasks each hold 40 processes at once: 80 > 64, so the count is per
    sandbox (per user namespace), not per host uid."""
    holder = "for i in $(seq 40); do sleep 6 & done; touch /tmp/app/held; wait; echo held"
    second = (
        "until [ -e /tmp/app/held ]; do sleep 0.1; done;"
        "for i in $(seq 40); do sleep 2 & done; echo spawned; wait"
    )
    results: dict[str, SandboxResult] = {}

    def run(name: str, script: str) -> None:
        results[name] = run_sandboxed(spec(box, script, timeout=40))

    first = threading.Thread(target=run, args=("holder", holder))
    first.start()
    run("second", second)
    first.join()
    assert results["second"].ok and "spawned" in results["second"].stdout, results["second"]
    assert results["holder"].ok and "held" in results["holder"].stdout, results["holder"]


def test_write_past_the_file_size_cap_ends_with_the_fsize_diagnostic(box: Path) -> None:
    result = run_sandboxed(spec(box, "head -c 20M /dev/zero > /tmp/app/big"))
    assert result.limit_hit == "fsize" and not result.ok
    assert "exceeded the file-size limit (16 MiB)" in result.describe()
    assert (box / "big").stat().st_size == 16 * MiB
    in_tmp = run_sandboxed(spec(box, "head -c 20M /dev/zero > /tmp/big"))
    assert in_tmp.limit_hit == "fsize"


def test_file_size_cap_applies_to_node_without_a_message(box: Path) -> None:
    # Node is killed by SIGXFSZ before it can print anything: the host finds the cut file.
    script = "node -e \"require('fs').writeFileSync('dist.bin', Buffer.alloc(20 * 2**20))\""
    result = run_sandboxed(
        spec(
            box,
            script,
            binds=[Bind(box, "/tmp/app", writable=True), NODE],
            env={"PATH": f"{NODE_DIR}/bin:/usr/bin"},
        )
    )
    assert result.limit_hit == "fsize", result.describe() + result.stderr


def test_full_tmp_ends_with_the_tmp_diagnostic(box: Path) -> None:
    limits = Limits(nproc=64, file_size=64 * MiB)
    result = run_sandboxed(spec(box, "head -c 40M /dev/zero > /tmp/fill", limits=limits))
    assert result.limit_hit == "tmp" and not result.ok
    assert "filled its private /tmp (32 MiB cap)" in result.describe()


def test_filling_the_writable_folders_is_stopped(box: Path) -> None:
    # Every file is under the 16 MiB cap; together they pass the 64 MiB disk limit.
    limits = Limits(nproc=64, file_size=16 * MiB, writable_total=64 * MiB)
    script = "for i in $(seq 40); do head -c 8M /dev/zero > /tmp/app/f$i; sleep 0.2; done"
    result = run_sandboxed(spec(box, script, limits=limits))
    assert result.limit_hit == "disk" and result.exit_code is None, result.describe()
    assert "exceeded the disk limit (64 MiB" in result.describe()
    assert sum(f.stat().st_size for f in box.iterdir()) < 160 * MiB


def test_millions_of_files_are_stopped(box: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(monitor, "MAX_WRITABLE_FILES", 200)
    script = "mkdir -p many && cd many && i=0; while :; do i=$((i + 1)); : > f$i; done"
    result = run_sandboxed(spec(box, script))
    assert result.limit_hit == "disk", result.describe()
    assert len(list((box / "many").iterdir())) < 100_000


def test_allocation_past_the_memory_limit_ends_with_the_memory_diagnostic(box: Path) -> None:
    result = run_sandboxed(spec(box, "python3 -c 'b = bytearray(512 * 2**20)'"))
    assert result.limit_hit == "memory" and not result.ok, result.describe()
    assert "ran out of memory: the limit is 128 MiB of data per process" in result.describe()
    node = run_sandboxed(
        spec(
            box,
            "node -e 'Buffer.alloc(512 * 2**20, 1)'",
            binds=[Bind(box, "/tmp/app", writable=True), NODE],
            env={"PATH": f"{NODE_DIR}/bin:/usr/bin"},
        )
    )
    assert node.limit_hit == "memory", node.describe() + node.stderr


def test_many_processes_past_the_total_memory_are_stopped(box: Path) -> None:
    # Four processes of 100 MiB each: every one is under the 128 MiB per-process limit, together
    # they pass the 256 MiB resident limit, and the host stops them.
    script = (
        'for i in 1 2 3 4; do python3 -c \'b = b"x" * (100 * 2**20); import time; '
        "time.sleep(30)' & done; wait"
    )
    start = time.monotonic()
    result = run_sandboxed(spec(box, script, timeout=60))
    assert result.limit_hit == "memory" and result.exit_code is None, result.describe()
    assert "limit 256 MiB resident" in result.describe()
    assert time.monotonic() - start < 30


def test_open_files_limit(box: Path) -> None:
    script = "python3 -c 'import os; fds = [os.open(\"/dev/null\", 0) for _ in range(1000)]'"
    result = run_sandboxed(spec(box, script))
    assert result.limit_hit == "nofile"
    assert "open-files limit (256 per process)" in result.describe()


def test_limits_cannot_be_raised_inside(box: Path) -> None:
    script = (
        "ulimit -n 100000 2>/dev/null && echo RAISED;"
        "prlimit --pid $$ --nproc=100000 2>/dev/null && echo RAISED;"
        "prlimit --pid $$ --fsize=unlimited 2>/dev/null && echo RAISED;"
        "ulimit -n; echo done"
    )
    result = run_sandboxed(spec(box, script))
    assert "RAISED" not in result.stdout
    assert result.stdout.split() == ["256", "done"]


def test_a_successful_command_reports_no_limit(box: Path) -> None:
    result = run_sandboxed(spec(box, "echo 'ENOMEM Too many open files'"))
    assert result.ok and result.limit_hit is None  # messages alone never fail a command


def test_only_a_real_set_up_failure_is_a_sandbox_error(box: Path) -> None:
    # A command cannot pass its own failure off as the sandbox's (which would abort the caller).
    fake = run_sandboxed(spec(box, "echo 'bwrap: Can not mount' >&2; exit 1"))
    assert fake.exit_code == 1 and fake.stderr.startswith("bwrap:")
    with pytest.raises(SandboxError, match="could not start the sandbox"):
        run_sandboxed(spec(box, "true", binds=[Bind(box, "/proc/nowhere", writable=True)]))


def test_session_profile_is_the_harness_sandbox(tmp_path: Path) -> None:
    """The harness's session sandbox is this profile: one builder, the agent as an unprivileged
    uid with the session limits, its own passwd/group/hosts and a capped /tmp."""
    from harness.session.sandbox import FORWARDER
    from harness.session.sandbox import SandboxSpec as SessionSandbox
    from sandbox.profiles import SESSION_LIMITS, SESSION_TMP_SIZE

    socket = tmp_path / "gateway" / "proxy.sock"
    ro_binds = {"/opt/agent": tmp_path / "agent", "/opt/extra": tmp_path / "extra"}
    env = {"OPENROUTER_API_KEY": "sk-test", "OPENCODE_CONFIG": "/home/agent/cfg.json"}
    command = ["opencode", "run", "--pure", "--format", "json"]
    harness_side = SessionSandbox(
        worktree=tmp_path / "wt",
        home=tmp_path / "home",
        gateway_socket=socket,
        ro_binds=ro_binds,
        env=env,
    )
    profile = agent_session(
        command,
        worktree=tmp_path / "wt",
        home=tmp_path / "home",
        gateway_socket=socket,
        forwarder=FORWARDER,
        identity=harness_side.identity_dir,
        ro_binds=ro_binds,
        env=env,
    )
    assert bwrap_argv(profile) == harness_side.argv(command)
    assert profile.limits == SESSION_LIMITS and profile.tmp_size == SESSION_TMP_SIZE
    assert profile.uid == 1000 and profile.unprivileged_host
    dests = [b.dest for b in profile.binds]
    assert {"/etc/passwd", "/etc/group", "/etc/hosts"} <= set(dests)
    assert not {"/etc/passwd", "/etc/group", "/etc/hosts"} & set(profile.etc_files)
    writable = [b.dest for b in profile.binds if b.writable]
    assert writable == ["/home/agent", "/workspace"]


def test_run_process_timeout() -> None:
    result = run_process(["sh", "-c", "sleep 30"], timeout=1)
    assert result.timed_out and result.limit_hit == "timeout"


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
