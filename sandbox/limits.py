"""Resource limits for a sandbox, and the diagnosis of which limit ended a command.

Per-process limits are applied by the sandbox's init: the command runs as
`prlimit --nproc=… --data=… --fsize=… --nofile=… --core=0 -- COMMAND` (util-linux, from the
sandbox's read-only `/usr`), so they are set after bubblewrap has built the namespaces and are
inherited by every process inside. Soft and hard values are equal and nothing inside has
CAP_SYS_RESOURCE, so no process can raise them again.

- `nproc` (RLIMIT_NPROC) counts tasks (threads as well as processes) of one uid in one user
  namespace; every sandbox has its own user namespace, so the budget is per sandbox. The kernel
  never applies it to host root, which is why `run_sandboxed` starts bubblewrap as an
  unprivileged host uid. The host also stops a sandbox whose tree reaches the limit: a fork bomb
  does not end by itself, it keeps retrying.
- `memory` (RLIMIT_DATA) caps each process's private writable memory; an allocation past it fails
  (ENOMEM). RLIMIT_AS (`address_space`) is off by default: Node reserves about 10 GiB of address
  space for every WebAssembly instance (undici's HTTP parser is one), and a plain `vite build` of
  the starter reserves 22.6 GiB while touching about 1.2 GiB, so any address-space cap that
  Node survives is no cap at all on this 24 GiB machine.
- `resident_total` is enforced by the host, not the kernel: the sum of the resident memory of all
  the sandbox's processes, sampled every 0.1 s (per-process limits alone would let 500 processes
  of 4 GiB each exhaust the machine).
- `file_size` (RLIMIT_FSIZE): a write past it fails and the writer gets SIGXFSZ.
- `writable_total` is enforced by the host: the disk space used under the writable binds (the
  app copy lives on the host's disk, not in a capped tmpfs), measured every second, and at most
  `MAX_WRITABLE_FILES` files there (so many 255 MiB files, or millions of empty ones, cannot
  fill the machine's disk before the timeout).
- `open_files` (RLIMIT_NOFILE); core dumps are always off (RLIMIT_CORE 0).

`diagnose` names the limit a failed command most likely hit, from what the host saw (the samples
of `sandbox.monitor`, the exit status, files left at exactly the size cap) and from the standard
messages processes print when a limit refuses them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB

LimitHit = Literal["timeout", "output", "nproc", "memory", "fsize", "nofile", "tmp", "disk"]

PRLIMIT = "/usr/bin/prlimit"
SIGXFSZ = 25
MAX_WRITABLE_FILES = 1_000_000


def human_bytes(n: int) -> str:
    for unit, size in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandbox (None: that limit is not set). Defaults are sized from
    measurements of the starter's `npm ci`, `npm run check` and `npm run build` (see
    evaluator/README.md): 33 tasks, 1.2 GiB of data in the largest process, 230 MiB resident in
    total, files up to 24 MiB, fewer than 256 open files, 2.5 MiB of /tmp, 101 MiB in 1211 files
    in the writable folders (app with node_modules and dist, npm cache)."""

    nproc: int | None = 512
    memory: int | None = 4 * GiB
    address_space: int | None = None
    resident_total: int | None = 8 * GiB
    file_size: int | None = 256 * MiB
    writable_total: int | None = 4 * GiB
    open_files: int | None = 4096

    def init_argv(self) -> list[str]:
        """The sandbox init that applies the per-process limits, then execs the command."""
        args = [PRLIMIT]
        for flag, value in (
            ("nproc", self.nproc),
            ("data", self.memory),
            ("as", self.address_space),
            ("fsize", self.file_size),
            ("nofile", self.open_files),
        ):
            if value is not None:
                args.append(f"--{flag}={value}")
        return [*args, "--core=0", "--"]

    def describe(self) -> str:
        parts = []
        if self.nproc is not None:
            parts.append(f"{self.nproc} processes/threads")
        if self.memory is not None:
            parts.append(f"{human_bytes(self.memory)} of memory per process")
        if self.address_space is not None:
            parts.append(f"{human_bytes(self.address_space)} of address space per process")
        if self.resident_total is not None:
            parts.append(f"{human_bytes(self.resident_total)} resident in total")
        if self.file_size is not None:
            parts.append(f"{human_bytes(self.file_size)} per file")
        if self.writable_total is not None:
            parts.append(f"{human_bytes(self.writable_total)} in the writable folders")
        if self.open_files is not None:
            parts.append(f"{self.open_files} open files per process")
        return ", ".join(parts) or "none"


NO_LIMITS = Limits(None, None, None, None, None, None, None)


@dataclass
class Usage:
    """The peaks the host saw while sampling the sandbox's process tree."""

    samples: int = 0
    peak_tasks: int = 0  # processes + threads, what RLIMIT_NPROC counts
    peak_processes: int = 0
    peak_vm: int = 0  # the largest virtual size of one process, bytes
    peak_data: int = 0  # the largest private writable memory of one process (RLIMIT_DATA)
    peak_resident: int = 0  # resident memory of all processes together, bytes
    peak_tmp: int = 0  # bytes used in the sandbox's /tmp tmpfs
    peak_writable: int = 0  # disk space used under the writable binds, bytes
    peak_writable_files: int = 0

    def describe(self) -> str:
        return (
            f"peak {self.peak_tasks} tasks in {self.peak_processes} processes, "
            f"{human_bytes(self.peak_data)} data in the largest process, "
            f"{human_bytes(self.peak_resident)} resident in total, "
            f"{human_bytes(self.peak_tmp)} in /tmp, {human_bytes(self.peak_writable)} in "
            f"{self.peak_writable_files} files in the writable folders ({self.samples} samples)"
        )


# What processes print when a limit refuses them (shells, npm, Node/V8/libuv, Python, Go, Rust).
_MARKERS: dict[LimitHit, re.Pattern[str]] = {
    "fsize": re.compile(r"SIGXFSZ|File size limit exceeded|\bEFBIG\b|File too large"),
    "memory": re.compile(
        r"\bENOMEM\b|Cannot allocate memory|heap out of memory|Fatal process out of memory"
        r"|Array buffer allocation failed|Cannot allocate Wasm memory|\bMemoryError\b"
        r"|std::bad_alloc|memory allocation of \d+ bytes failed|runtime: out of memory"
        r"|fatal error: out of memory|\bOut of memory\b",
    ),
    "nproc": re.compile(
        r"fork: retry|can't fork|Cannot fork|fork failed|spawn \S+ EAGAIN|\bspawn EAGAIN"
        r"|uv_thread_create|pthread_create"
        r"|(fork|spawn|thread).{0,40}Resource temporarily unavailable"
        r"|Resource temporarily unavailable.{0,40}(fork|spawn|thread)",
        re.IGNORECASE,
    ),
    "nofile": re.compile(r"\bEMFILE\b|Too many open files"),
    "tmp": re.compile(r"\bENOSPC\b|No space left on device"),
}


def _cut_file(roots: Iterable[Path], size: int, since: float) -> Path | None:
    """A regular file written since `since` (epoch seconds) of exactly `size` bytes under
    `roots`: a write that the file-size limit cut short."""
    for root in roots:
        for path in root.rglob("*"):
            try:
                if path.is_symlink() or not path.is_file():
                    continue
                st = path.stat()
            except OSError:
                continue
            if st.st_size == size and st.st_mtime >= since:
                return path
    return None


def diagnose(
    *,
    exit_code: int | None,
    output: str,
    limits: Limits | None,
    usage: Usage,
    tmp_size: int | None,
    writable: Iterable[Path] = (),
    since: float = 0.0,
) -> LimitHit | None:
    """Which limit most likely made a command fail (None when none did, or it succeeded).

    The messages processes print decide first; then what the host saw: the exit status of a
    process killed by SIGXFSZ, a file written during the run and cut at exactly the size cap, a
    process that reached its memory limit or a tree that came close to the process limit.
    """
    if exit_code == 0 or exit_code is None:
        return None
    lim = limits or NO_LIMITS
    enabled: dict[LimitHit, bool] = {
        "fsize": lim.file_size is not None,
        "memory": lim.memory is not None or lim.address_space is not None,
        "nproc": lim.nproc is not None,
        "nofile": lim.open_files is not None,
        "tmp": bool(tmp_size),
        "disk": lim.writable_total is not None,
    }
    for hit, pattern in _MARKERS.items():
        if enabled[hit] and pattern.search(output):
            return hit
    if lim.file_size is not None and (
        exit_code in (128 + SIGXFSZ, -SIGXFSZ)
        or _cut_file(writable, lim.file_size, since) is not None
    ):
        return "fsize"
    if (lim.memory is not None and usage.peak_data >= 0.95 * lim.memory) or (
        lim.address_space is not None and usage.peak_vm >= 0.95 * lim.address_space
    ):
        return "memory"
    if lim.nproc is not None and usage.peak_tasks >= nproc_threshold(lim.nproc):
        return "nproc"
    if tmp_size and usage.peak_tmp >= 0.98 * tmp_size:
        return "tmp"
    if lim.writable_total is not None and usage.peak_writable >= 0.98 * lim.writable_total:
        return "disk"
    return None


def refuses_forks(text: str) -> bool:
    """Whether `text` holds a message of a process whose fork or thread the kernel refused."""
    return _MARKERS["nproc"].search(text) is not None


def nproc_threshold(nproc: int) -> int:
    """The task count at which the host treats a sandbox as having hit its process limit.

    The host samples ten times a second and a fork bomb's processes die as fast as they are
    refused, so the samples rarely show the exact limit: within 10% of it counts as reaching it
    (a normal build uses a small fraction: 33 of 512 for the starter).
    """
    return max(1, nproc - max(2, nproc // 10))


def limit_message(
    hit: LimitHit,
    cmd: str,
    *,
    limits: Limits | None,
    tmp_size: int | None,
    timeout: float,
    output_cap: int,
    usage: Usage,
) -> str:
    """One precise line: which limit, its value, and what the host saw."""
    lim = limits or NO_LIMITS
    if hit == "timeout":
        return f"`{cmd}` was killed after the {timeout:.0f} s time limit"
    if hit == "output":
        return (
            f"`{cmd}` was killed: it wrote more than the output cap "
            f"({human_bytes(output_cap)} per stream)"
        )
    if hit == "nproc":
        return (
            f"`{cmd}` exceeded the process limit ({lim.nproc} processes and threads; "
            f"{usage.peak_tasks} seen) and was stopped"
        )
    if hit == "memory":
        if lim.resident_total is not None and usage.peak_resident >= lim.resident_total:
            return (
                f"`{cmd}` exceeded the memory limit: its processes held "
                f"{human_bytes(usage.peak_resident)} together (limit "
                f"{human_bytes(lim.resident_total)} resident) and were stopped"
            )
        if lim.memory is not None:
            return (
                f"`{cmd}` ran out of memory: the limit is {human_bytes(lim.memory)} of data "
                f"per process (largest process seen: {human_bytes(usage.peak_data)})"
            )
        return (
            f"`{cmd}` ran out of memory: the limit is {human_bytes(lim.address_space or 0)} of "
            f"address space per process (largest process seen: {human_bytes(usage.peak_vm)})"
        )
    if hit == "fsize":
        return f"`{cmd}` exceeded the file-size limit ({human_bytes(lim.file_size or 0)})"
    if hit == "disk":
        return (
            f"`{cmd}` exceeded the disk limit ({human_bytes(lim.writable_total or 0)} or "
            f"{MAX_WRITABLE_FILES} files in its writable folders; "
            f"{human_bytes(usage.peak_writable)} in {usage.peak_writable_files} files seen) and "
            "was stopped"
        )
    if hit == "nofile":
        return f"`{cmd}` exceeded the open-files limit ({lim.open_files} per process)"
    return f"`{cmd}` filled its private /tmp ({human_bytes(tmp_size or 0)} cap)"
