"""Run untrusted commands under bubblewrap with an allow-list filesystem and resource limits.

Containment given by `run_sandboxed(SandboxSpec(...))` (the argv comes from `bwrap_argv`, the one
bubblewrap builder; `sandbox.profiles` holds the named specs the project uses):

- allow-list filesystem: the sandbox root is an empty, read-only tmpfs; the only things of the
  host inside are `/usr` (read-only, with Debian's /bin, /lib, /lib64, /sbin symlinks into it), the
  few `/etc` files in `etc_files` (read-only), fresh `/proc` and `/dev`, and the `binds` (read-only
  unless `Bind(..., writable=True)`). Everything else (other checkouts, the repository, /root,
  /home, the rest of /etc) does not exist inside, so a hostile build cannot copy it into `dist/`.
  `/tmp` is a private tmpfs capped at `tmp_size` bytes;
- a user namespace of its own, uid `SANDBOX_UID` inside, every capability dropped, no nested user
  namespaces, so nothing inside can remount, ptrace the host or change ownership; when the caller
  is root, bubblewrap itself is started as the unprivileged host uid `SANDBOX_HOST_UID` (the
  kernel never applies RLIMIT_NPROC to host root) and the writable binds are handed over to it;
- limits (`sandbox.limits.Limits`): per process (processes/threads, data memory, file size, open
  files, no core dumps) applied by the sandbox's init (`prlimit … --`) and inherited by everything
  inside (RLIMIT_NPROC counts per user namespace, so each sandbox has its own budget); for the
  whole sandbox (resident memory, disk space and files in the writable binds) enforced by the
  host, which samples the sandbox ten times a second;
- a fresh network namespace (only a private loopback: no route to any other host) and fresh
  pid/ipc/uts/cgroup namespaces, a new session (no terminal injection), `--die-with-parent`;
- a clean environment (only `env` plus a minimal PATH/HOME/LANG/TMPDIR);
- a wall-clock timeout after which the whole process tree is killed;
- an output cap: stdout and stderr are each kept up to `output_cap` bytes; with
  `kill_on_output_cap` a process that writes more is killed (a log flood cannot fill the disk).

The host samples the sandbox while it runs (`sandbox.monitor`) and stops it when it comes close to
its process limit (a fork bomb ends at once instead of retrying until the timeout) or passes a
whole-sandbox limit. When a command ends because of a limit, `SandboxResult.limit_hit` names it
("timeout", "output", "nproc", "memory", "fsize", "nofile", "tmp", "disk"), `describe()` says
which limit and its value, and `usage` holds the peaks the host saw.

Two process runners share this containment and its host-side watch, and nothing else starts a
sandbox: `run_process` here (stdin closed, output captured in memory up to a cap: the evaluator's
builds and short commands) and `harness.session.process.run_process` (the agent session: it
needs the prompt bytes on stdin, streams stdout/stderr to the evidence files as they come, and
stops on the proxy's ceilings). Both start the command as returned by `host_command`, in a new
session, kill its process group on every exit path, sample it with `TreeWatch` and stop it
through `limit_reached` and `stop_sandbox`, so the limits mean the same in both.

A bind source that the unprivileged host uid cannot reach (e.g. under a 0700 folder of root) is
staged: a private mount namespace of root binds it onto a mountpoint under a `private_dir()`, seen
by nothing else on the host, before bubblewrap starts. A first step inside reports on a pipe that
the sandbox is set up, so only a real set-up failure raises `SandboxError` (a command printing
"bwrap: …" cannot).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO

from sandbox.limits import (
    LimitHit,
    Limits,
    MiB,
    Usage,
    diagnose,
    limit_message,
    nproc_threshold,
    refuses_forks,
)
from sandbox.monitor import TreeWatch, pid_namespace

DEFAULT_OUTPUT_CAP = 2 * MiB
DEFAULT_TMP_SIZE = 512 * MiB
SANDBOX_UID = 1000
SANDBOX_GID = 1000
# The host uid/gid bubblewrap runs as when the caller is root: no account, no files, no process
# of the host uses it; only the sandboxes' writable binds are handed over to it.
SANDBOX_HOST_UID = 2_000_000
SANDBOX_HOST_GID = 2_000_000
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
BASE_ENV = {"PATH": DEFAULT_PATH, "HOME": "/tmp", "LANG": "C.UTF-8", "TMPDIR": "/tmp"}

# The read-only system every sandbox starts from: merged /usr and its symlinks, /proc and /dev.
SYSTEM_MOUNTS = (
    *("--ro-bind", "/usr", "/usr"),
    *("--symlink", "usr/bin", "/bin"),
    *("--symlink", "usr/lib", "/lib"),
    *("--symlink", "usr/lib64", "/lib64"),
    *("--symlink", "usr/sbin", "/sbin"),
    *("--proc", "/proc"),
    *("--dev", "/dev"),
)
# What Node, npm and a shell need of /etc: the dynamic linker's cache and Debian's alternatives
# symlinks (awk, which, ...). No passwd, hosts, resolv.conf or certificates: there is no network.
ETC_MINIMAL = ("/etc/ld.so.cache", "/etc/alternatives")


class SandboxError(RuntimeError):
    """The sandbox itself could not be set up (not a failure of the command inside it)."""


@dataclass(frozen=True)
class Bind:
    """Make host `source` visible at `dest` inside the sandbox (read-only unless `writable`)."""

    source: Path
    dest: str
    writable: bool = False


@dataclass(frozen=True)
class SandboxSpec:
    """One sandboxed command. Nothing of the host is inside except what the fields name."""

    argv: Sequence[str]
    cwd: str = "/tmp"
    binds: Sequence[Bind] = ()
    etc_files: Sequence[str] = ETC_MINIMAL
    env: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 300.0
    output_cap: int = DEFAULT_OUTPUT_CAP
    kill_on_output_cap: bool = True
    tmp_size: int | None = DEFAULT_TMP_SIZE
    limits: Limits | None = field(default_factory=Limits)
    # The uid inside a user namespace of its own (capabilities dropped, no nested user
    # namespaces); None keeps bubblewrap's default for `--unshare-all` (the caller's uid).
    uid: int | None = SANDBOX_UID
    # A root caller starts bubblewrap as SANDBOX_HOST_UID (needed for RLIMIT_NPROC to apply).
    unprivileged_host: bool = True


@dataclass
class SandboxResult:
    argv: list[str]
    exit_code: int | None
    stdout: str
    stderr: str
    duration: float
    timed_out: bool = False
    output_capped: bool = False
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    limit_hit: LimitHit | None = None
    limit_message: str = ""
    usage: Usage = field(default_factory=Usage)

    @property
    def ok(self) -> bool:
        return (
            self.exit_code == 0
            and not self.timed_out
            and not self.output_capped
            and self.limit_hit is None
        )

    def describe(self) -> str:
        """One line a developer can act on: how the command ended."""
        cmd = " ".join(self.argv)
        if self.limit_hit and self.limit_message:
            return self.limit_message
        if self.timed_out:
            return f"`{cmd}` was killed after the {self.duration:.0f} s time limit"
        if self.output_capped:
            total = self.stdout_bytes + self.stderr_bytes
            return f"`{cmd}` was killed: it wrote more than the output cap ({total} bytes seen)"
        if self.exit_code == 0:
            return f"`{cmd}` succeeded in {self.duration:.1f} s"
        return f"`{cmd}` exited with code {self.exit_code} after {self.duration:.1f} s"


def bwrap_argv(spec: SandboxSpec) -> list[str]:
    """The full bubblewrap command line for `spec` (pure: exposed for tests, logs and callers
    that run the process themselves)."""
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session"]
    if spec.uid is not None:
        args += ["--unshare-user", "--disable-userns", "--uid", str(spec.uid)]
        args += ["--gid", str(spec.uid), "--cap-drop", "ALL"]
    args += SYSTEM_MOUNTS
    if spec.tmp_size:
        args += ["--size", str(spec.tmp_size)]
    args += ["--tmpfs", "/tmp"]
    for etc in spec.etc_files:
        args += ["--ro-bind-try", etc, etc]
    for bind in spec.binds:
        args += ["--bind" if bind.writable else "--ro-bind", str(bind.source), bind.dest]
    # The root tmpfs read-only: nothing can be created beside the allowed paths.
    args += ["--remount-ro", "/", "--chdir", spec.cwd, "--clearenv"]
    env = {**BASE_ENV, **spec.env}
    for key, value in sorted(env.items()):
        args += ["--setenv", key, value]
    init = spec.limits.init_argv() if spec.limits is not None else []
    return [*args, "--", *init, *spec.argv]


def host_identity(unprivileged_host: bool = True) -> tuple[int, int] | None:
    """The host (uid, gid) bubblewrap is started as, or None to keep the caller's."""
    if unprivileged_host and os.geteuid() == 0:
        return SANDBOX_HOST_UID, SANDBOX_HOST_GID
    return None


def hand_over(path: Path) -> None:
    """Give `path` and everything under it (symlinks not followed) to the sandbox's host uid, so a
    sandbox can write there; a no-op unless the caller is root."""
    ident = host_identity()
    if ident is None:
        return
    uid, gid = ident
    os.chown(path, uid, gid, follow_symlinks=False)
    if path.is_symlink() or not path.is_dir():
        return
    for folder, dirs, files in os.walk(path):
        for name in (*dirs, *files):
            os.chown(os.path.join(folder, name), uid, gid, follow_symlinks=False)


def private_dir(prefix: str = "siteos-sandbox-") -> Path:
    """A fresh 0700 temp folder that only the caller and the sandbox's host uid can enter: the
    place for a sandbox's writable binds (bubblewrap must be able to reach them)."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(root, 0o700)
    hand_over(root)
    return root


def _searchable(path: Path, uid: int, gid: int) -> bool:
    """Whether every folder above `path` can be searched by (uid, gid) (no supplementary groups)."""
    for parent in path.parents:
        st = parent.stat()
        if st.st_uid == uid:
            bits = stat.S_IXUSR
        elif st.st_gid == gid:
            bits = stat.S_IXGRP
        else:
            bits = stat.S_IXOTH
        if not st.st_mode & bits:
            return False
    return True


# Runs as root in a private mount namespace: bind each unreachable source onto its staging
# mountpoint (seen by nothing else on the host), then exec the rest of the command line.
_STAGE_SCRIPT = (
    'while [ "$1" != -- ]; do mount --bind "$1" "$2" || exit 125; shift 2; done; shift; exec "$@"'
)


# The first thing that runs inside: report on `fd` that the sandbox is set up, close it, exec the
# command (which never sees the fd, so it cannot fake or hide a set-up failure). bash, not dash:
# the fd number may have two digits.
_STARTED_SCRIPT = 'printf started >&{fd} && exec {fd}>&- && exec "$@"'


def host_argv(
    spec: SandboxSpec, staging: Path | None = None, started_fd: int | None = None
) -> tuple[list[str], list[tuple[Path, Path]]]:
    """The command run on the host for `spec`: `bwrap_argv`, started as the sandbox's host uid
    when the caller is root, with any bind source that uid cannot reach staged through a private
    mount namespace under `staging`, and (with `started_fd`) a first step inside that writes
    "started" to that fd. Returns the argv and the (source, mountpoint) pairs."""
    if started_fd is not None:
        marker = ["/bin/bash", "-c", _STARTED_SCRIPT.format(fd=started_fd), "bash"]
        spec = replace(spec, argv=[*marker, *spec.argv])
    ident = host_identity(spec.unprivileged_host)
    if ident is None:
        return bwrap_argv(spec), []
    uid, gid = ident
    staged: list[tuple[Path, Path]] = []
    binds = []
    for bind in spec.binds:
        source = bind.source.resolve()
        if not _searchable(source, uid, gid):
            if staging is None:
                raise SandboxError(f"bind source {source} is not reachable and nothing stages it")
            mountpoint = staging / str(len(staged))
            staged.append((source, mountpoint))
            source = mountpoint
        binds.append(Bind(source, bind.dest, bind.writable))
    inner = bwrap_argv(replace(spec, binds=binds))
    drop = ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--inh-caps=-all"]
    argv = [*drop, "--", *inner]
    if staged:
        pairs = [str(p) for pair in staged for p in pair]
        argv = [
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "--",
            "sh",
            "-c",
            _STAGE_SCRIPT,
            "sh",
            *pairs,
            "--",
            *argv,
        ]
    return argv, staged


def reclaim(path: Path) -> None:
    """Give `path` and everything under it (symlinks not followed) back to the caller, after a
    sandbox that got it through `hand_over` has ended (the host's git refuses a repository
    owned by another uid); a no-op unless the caller is root."""
    if host_identity() is None or not path.exists():
        return
    uid, gid = os.geteuid(), os.getegid()
    os.chown(path, uid, gid, follow_symlinks=False)
    if path.is_symlink() or not path.is_dir():
        return
    for folder, dirs, files in os.walk(path):
        for name in (*dirs, *files):
            with contextlib.suppress(FileNotFoundError):
                os.chown(os.path.join(folder, name), uid, gid, follow_symlinks=False)


def check_spec(spec: SandboxSpec) -> None:
    """Refuse a spec that cannot run as asked (missing bubblewrap or bind source, a process
    limit that root would be exempt from)."""
    if shutil.which("bwrap") is None:
        raise SandboxError("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    for bind in spec.binds:
        if not bind.source.exists():
            raise SandboxError(f"bind source {bind.source} does not exist")
    ident = host_identity(spec.unprivileged_host)
    if ident is None and os.geteuid() == 0 and spec.limits and spec.limits.nproc is not None:
        raise SandboxError("a process limit needs an unprivileged host uid (root is exempt)")


@contextlib.contextmanager
def host_command(spec: SandboxSpec, started_fd: int | None = None) -> Iterator[list[str]]:
    """The host argv that runs `spec`, valid while the context is open: the writable binds are
    handed over to the sandbox's host uid and unreachable bind sources staged under a private
    folder (removed on exit). The caller runs the argv and, after it, `reclaim`s what it reads."""
    check_spec(spec)
    ident = host_identity(spec.unprivileged_host)
    if ident is not None:
        for bind in spec.binds:
            if bind.writable:
                hand_over(bind.source)
    staging = private_dir("siteos-stage-") if ident is not None else None
    try:
        argv, staged = host_argv(spec, staging, started_fd=started_fd)
        for source, mountpoint in staged:
            if source.is_dir():
                mountpoint.mkdir()
            else:
                mountpoint.touch()
        yield argv
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


def run_sandboxed(spec: SandboxSpec) -> SandboxResult:
    """Run `spec.argv` inside bubblewrap; see the module docstring for what is contained."""
    started = time.time() - 1.0  # file mtimes have coarse granularity on some filesystems
    report_r, report_w = os.pipe()
    report = b""
    try:
        with host_command(spec, started_fd=report_w) as argv:
            result = run_process(
                argv,
                timeout=spec.timeout,
                output_cap=spec.output_cap,
                kill_on_output_cap=spec.kill_on_output_cap,
                env={"PATH": DEFAULT_PATH},
                limits=spec.limits,
                pass_fds=(report_w,),
                tmp_size=spec.tmp_size,
                writable=[b.source for b in spec.binds if b.writable],
            )
        os.set_blocking(report_r, False)
        with contextlib.suppress(BlockingIOError):
            report = os.read(report_r, 64)
    finally:
        os.close(report_w)
        os.close(report_r)
    result.argv = list(spec.argv)
    if report != b"started" and not (result.timed_out or result.output_capped):
        raise SandboxError(
            f"bubblewrap could not start the sandbox (exit code {result.exit_code}): "
            f"{result.stderr.strip()[:2000]}"
        )
    if result.limit_hit is None:
        result.limit_hit = diagnose(
            exit_code=result.exit_code,
            output=result.stdout + "\n" + result.stderr,
            limits=spec.limits,
            usage=result.usage,
            tmp_size=spec.tmp_size,
            writable=[b.source for b in spec.binds if b.writable],
            since=started,
        )
    if result.limit_hit is not None:
        result.limit_message = limit_message(
            result.limit_hit,
            " ".join(spec.argv),
            limits=spec.limits,
            tmp_size=spec.tmp_size,
            timeout=spec.timeout,
            output_cap=spec.output_cap,
            usage=result.usage,
        )
    return result


class _Collector(threading.Thread):
    def __init__(self, stream: IO[bytes], cap: int, on_cap: threading.Event) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.cap = cap
        self.on_cap = on_cap
        self.chunks: list[bytes] = []
        self.kept = 0
        self.seen = 0
        self.fork_refused = False  # a process printed that the kernel refused its fork or thread

    def run(self) -> None:
        while True:
            try:
                chunk = self.stream.read1(65536)  # type: ignore[attr-defined]
            except (OSError, ValueError):
                break
            if not chunk:
                break
            self.seen += len(chunk)
            if not self.fork_refused and refuses_forks(chunk.decode("utf-8", errors="replace")):
                self.fork_refused = True
            if self.kept < self.cap:
                keep = chunk[: self.cap - self.kept]
                self.chunks.append(keep)
                self.kept += len(keep)
            if self.seen > self.cap:
                self.on_cap.set()

    def text(self) -> str:
        data = b"".join(self.chunks).decode("utf-8", errors="replace")
        if self.seen > self.kept:
            data += f"\n[output truncated: {self.seen - self.kept} more bytes not kept]\n"
        return data


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


def stop_sandbox(proc: subprocess.Popen[bytes], watch: TreeWatch) -> None:
    """Kill a sandbox from the inside out: the init of its pid namespace first (the kernel kills
    the whole namespace and bubblewrap reaps it, so nothing is left for the host's init), then the
    process group; a plain command just loses its group."""
    watch.sample()
    namespaces = {ns for pid in watch.inits if (ns := pid_namespace(pid))}
    for pid in watch.inits:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    if watch.inits:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=2)
    _kill_group(proc)
    proc.wait()
    _wait_namespaces_empty(namespaces, NAMESPACE_EXIT_S)


NAMESPACE_EXIT_S = 10.0
"""How long a killed sandbox's pid namespace may take to empty (its processes are dying: on a
loaded host 64 of them can take over a second)."""


def _wait_namespaces_empty(namespaces: set[str], timeout: float) -> None:
    """Return once no process of `namespaces` is left (or after `timeout`), so that nothing of a
    stopped sandbox still runs when its caller goes on."""
    deadline = time.monotonic() + timeout
    while namespaces and time.monotonic() < deadline:
        alive = {pid_namespace(int(e)) for e in os.listdir("/proc") if e.isdigit()}
        if not alive & namespaces:
            return
        time.sleep(0.05)


WATCH_INTERVAL = 0.1


def limit_reached(
    watch: TreeWatch, limits: Limits, *, nproc: bool = True, fork_refused: bool = False
) -> LimitHit | None:
    """The limit the last `watch.sample()` says the sandbox reached, if any: near its process
    limit (`nproc`: a fork bomb retries until the timeout otherwise), its resident-memory total
    or its disk limit in the writable folders.

    On a loaded host the samples of a fork bomb may all fall between its peaks, so a tree that
    has printed a refused fork (`fork_refused`) and was seen at half its process limit or more
    has reached it too."""
    if nproc and limits.nproc is not None:
        near = watch.tasks >= nproc_threshold(limits.nproc)
        refused = fork_refused and watch.usage.peak_tasks >= limits.nproc // 2
        if near or refused:
            return "nproc"
    if limits.resident_total is not None and watch.resident >= limits.resident_total:
        return "memory"
    if limits.writable_total is not None and watch.over_writable():
        return "disk"
    return None


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 300.0,
    output_cap: int = DEFAULT_OUTPUT_CAP,
    kill_on_output_cap: bool = True,
    limits: Limits | None = None,
    pass_fds: Sequence[int] = (),
    tmp_size: int | None = None,
    writable: Sequence[Path] = (),
) -> SandboxResult:
    """Run a command in its own process group with a timeout and an output cap.

    On timeout (or output flood) the whole process group is killed with SIGKILL. With `limits`,
    the process tree is sampled every `WATCH_INTERVAL` s (`result.usage`); a tree that comes
    within 10% of `limits.nproc` tasks or reaches `limits.resident_total` bytes of resident
    memory is killed the same way (`limit_hit` "nproc" / "memory"); `tmp_size` names the size of
    a sandbox's /tmp tmpfs, whose usage is then sampled too; `writable` names the host folders the
    command can write, measured every second against `limits.writable_total` ("disk").
    """
    start = time.monotonic()
    capped = threading.Event()
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            pass_fds=tuple(pass_fds),
        )
    except OSError as exc:
        raise SandboxError(f"could not start {argv[0]}: {exc}") from exc
    assert proc.stdout is not None and proc.stderr is not None
    out = _Collector(proc.stdout, output_cap, capped)
    err = _Collector(proc.stderr, output_cap, capped)
    out.start()
    err.start()
    watch = TreeWatch(
        proc.pid,
        tmp_size=tmp_size,
        writable=writable,
        writable_cap=limits.writable_total if limits is not None else None,
    )
    hit: LimitHit | None = None
    deadline = start + timeout
    next_sample = start
    while True:
        try:
            proc.wait(timeout=0.05)
            break
        except subprocess.TimeoutExpired:
            pass
        if kill_on_output_cap and capped.is_set():
            hit = "output"
        elif time.monotonic() >= deadline:
            hit = "timeout"
        elif limits is not None and time.monotonic() >= next_sample:
            next_sample = time.monotonic() + WATCH_INTERVAL
            watch.sample()
            hit = limit_reached(watch, limits, fork_refused=out.fork_refused or err.fork_refused)
        if hit is not None:
            stop_sandbox(proc, watch)
            break
    # Kill any leftovers of the group (e.g. a daemonised grandchild holding the pipes).
    _kill_group(proc)
    out.join(timeout=5)
    err.join(timeout=5)
    for stream in (proc.stdout, proc.stderr):
        stream.close()
    cmd = " ".join(argv)
    return SandboxResult(
        argv=list(argv),
        exit_code=None if hit is not None else proc.returncode,
        stdout=out.text(),
        stderr=err.text(),
        duration=round(time.monotonic() - start, 3),
        timed_out=hit == "timeout",
        output_capped=hit == "output",
        stdout_bytes=out.seen,
        stderr_bytes=err.seen,
        limit_hit=hit,
        limit_message=(
            limit_message(
                hit,
                cmd,
                limits=limits,
                tmp_size=None,
                timeout=timeout,
                output_cap=output_cap,
                usage=watch.usage,
            )
            if hit is not None
            else ""
        ),
        usage=watch.usage,
    )
