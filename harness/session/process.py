"""Run one agent process under the runner's ceilings, in its own process group.

The runner never retries and never talks to the agent: stdin carries the prompt bytes and is then
closed. It ends the whole process group on the wall-clock ceiling or when the proxy reports a
step/budget refusal.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

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
) -> ProcessOutcome:
    """Start `argv` in a new session, feed stdin, and wait under the ceilings."""
    started = time.monotonic()
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
    ceiling: str | None = None
    kill_at: float | None = None
    while proc.poll() is None:
        now = time.monotonic()
        elapsed = now - started
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
    return ProcessOutcome(exit_code, ceiling, round(time.monotonic() - started, 3), proc.pid)


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
