"""Run one agent process under the runner's ceilings, in its own process group.

The runner never retries and never talks to the agent: stdin carries the prompt bytes and is then
closed. It ends the whole process group on the wall-clock ceiling or when the proxy reports a
step/budget refusal. With `limits` it samples the sandbox from the host like every other sandbox
(`sandbox.monitor.TreeWatch`) and stops it the same way when it reaches its process, memory or
disk limit (`sandbox.runner.limit_reached`); see `sandbox/runner.py` on why the session has its
own runner (prompt bytes on stdin, output streamed to the evidence files, the proxy's ceilings).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sandbox.limits import LimitHit, Limits, diagnose, limit_message
from sandbox.monitor import TreeWatch
from sandbox.runner import limit_reached, stop_sandbox

POLL_SECONDS = 0.2
GRACE_SECONDS = 2.0
# After the proxy refuses a request at a step or budget ceiling the agent receives a final HTTP
# 400 and exits by itself; waiting briefly for that keeps its last events (a killed agent may
# not flush them). Only an agent still running after this long is killed.
PROXY_CEILING_GRACE_SECONDS = 10.0
PROXY_CEILINGS = frozenset({"step_ceiling", "budget_ceiling"})


@dataclass
class ProcessOutcome:
    exit_code: int | None
    ceiling: str | None  # "time" | "step" | "budget" when the runner ended the process
    elapsed_seconds: float
    pid: int
    limit_hit: LimitHit | None = None  # the sandbox limit that ended or failed the process
    limit_message: str = ""
    peaks: str = ""  # what the host saw (`sandbox.Usage.describe`), when sampled


def kill_group(pgid: int, grace: float = GRACE_SECONDS) -> None:
    """SIGTERM the group, then SIGKILL whatever is left after `grace` seconds."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)


def _feed(proc: subprocess.Popen[bytes], data: bytes) -> None:
    assert proc.stdin is not None
    try:
        proc.stdin.write(data)
    except (BrokenPipeError, OSError):
        pass
    finally:
        with contextlib.suppress(OSError):
            proc.stdin.close()


def _tail(path: Path, size: int = 65536) -> str:
    with path.open("rb") as fh:
        fh.seek(max(0, path.stat().st_size - size))
        return fh.read().decode("utf-8", errors="replace")


def run_process(
    argv: list[str],
    *,
    env: dict[str, str],
    stdin: bytes,
    stdout: Path,
    stderr: Path,
    wall_clock_seconds: float,
    ceiling_hit: Callable[[], str | None],
    on_start: Callable[[int], None] | None = None,
    on_tick: Callable[[float], None] | None = None,
    cwd: Path | None = None,
    limits: Limits | None = None,
    tmp_size: int | None = None,
    writable: Sequence[Path] = (),
    label: str = "",
) -> ProcessOutcome:
    """Start `argv` in a new session, feed stdin, and wait under the ceilings and `limits`.

    A limit the host enforces (process count, resident memory, disk in `writable`) kills the
    sandbox; either way a limit that ended or failed the process is named in the outcome and
    one line about it (naming the command as `label`) is appended to `stderr`."""
    started = time.monotonic()
    since = time.time() - 1.0
    with stdout.open("ab") as out, stderr.open("ab") as err:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=out,
            stderr=err,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
    if on_start is not None:
        on_start(proc.pid)
    threading.Thread(target=_feed, args=(proc, stdin), daemon=True).start()
    watch = TreeWatch(
        proc.pid,
        tmp_size=tmp_size,
        writable=writable,
        writable_cap=limits.writable_total if limits is not None else None,
    )
    ceiling: str | None = None
    hit: LimitHit | None = None
    kill_at: float | None = None
    while proc.poll() is None:
        now = time.monotonic()
        elapsed = now - started
        if limits is not None:
            watch.sample()
            hit = limit_reached(watch, limits)
            if hit is not None:
                stop_sandbox(proc, watch)
                break
        if elapsed >= wall_clock_seconds:
            ceiling, kill_at = "time", now
        elif ceiling is None:
            ceiling = ceiling_hit()
            if ceiling is not None:
                grace = PROXY_CEILING_GRACE_SECONDS if ceiling in PROXY_CEILINGS else 0.0
                kill_at = now + grace
        if kill_at is not None and now >= kill_at:
            kill_group(proc.pid)
            break
        if on_tick is not None:
            on_tick(elapsed)
        time.sleep(POLL_SECONDS)
    exit_code = proc.wait()
    kill_group(proc.pid, grace=0.5)  # anything the agent left behind in its group
    outcome = ProcessOutcome(exit_code, ceiling, round(time.monotonic() - started, 3), proc.pid)
    if limits is None:
        return outcome
    outcome.peaks = watch.usage.describe()
    if hit is None and ceiling is None:
        hit = diagnose(
            exit_code=exit_code, output=_tail(stderr), limits=limits, usage=watch.usage,
            tmp_size=tmp_size, writable=writable, since=since,
        )  # fmt: skip
    if hit is not None:
        outcome.limit_hit = hit
        outcome.limit_message = limit_message(
            hit, label or " ".join(argv), limits=limits, tmp_size=tmp_size,
            timeout=wall_clock_seconds, output_cap=0, usage=watch.usage,
        )  # fmt: skip
        with stderr.open("a", encoding="utf-8") as err_log:
            err_log.write(f"\nsandbox: {outcome.limit_message} ({outcome.peaks})\n")
    return outcome


def process_alive(pid: int, needle: str = "") -> bool:
    """Whether `pid` runs, not as a zombie (and its command line contains `needle`)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    if stat.rsplit(")", 1)[1].split()[0] in ("Z", "X"):
        return False
    return needle in raw.replace(b"\0", b" ").decode(errors="replace")
