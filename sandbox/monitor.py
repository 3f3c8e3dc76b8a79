"""Watch a sandbox from the host: its tasks, memory, /tmp and writable folders.

`TreeWatch(root_pid)` samples every descendant of the host process that started the sandbox
(from `/proc/*/stat` and `/proc/*/statm`; every process in the sandbox's pid namespace descends
from it, orphans included, because they are re-parented to the namespace's init). The host, not
anything inside, measures: a process in the sandbox can neither hide from it nor forge it. The
runner stops a sandbox whose task count reaches its process limit, whose resident memory reaches
its total-memory limit or whose writable folders pass their disk limit, by killing the init of
its pid namespace (the kernel then kills every process in it, and bubblewrap reaps them).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path

from sandbox.limits import MAX_WRITABLE_FILES, Usage

WRITABLE_EVERY = 10  # samples between two measures of the writable folders (about 1 s)

_PAGE = os.sysconf("SC_PAGE_SIZE")
_OWN_PIDNS = os.readlink("/proc/self/ns/pid")


def _read_stat(pid: str) -> tuple[int, int, int] | None:
    """(ppid, threads, vsize bytes) of one process, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2 :].split()
    try:
        return int(fields[1]), int(fields[17]), int(fields[20])
    except (IndexError, ValueError):
        return None


def _memory(pid: int) -> tuple[int, int]:
    """(resident, data) bytes of one process; data is what RLIMIT_DATA counts."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as fh:
            fields = fh.read().split()
        return int(fields[1]) * _PAGE, int(fields[5]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0, 0


def pid_namespace(pid: int) -> str | None:
    """The pid namespace `pid` lives in (e.g. "pid:[4026532451]"); None once it has exited."""
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def _in_other_pidns(pid: int) -> bool:
    ns = pid_namespace(pid)
    return ns is not None and ns != _OWN_PIDNS


def _disk_usage(roots: Sequence[Path], stop_at: int | None) -> tuple[int, int]:
    """(bytes on disk, files) under `roots`, symlinks not followed; the walk stops as soon as it
    passes `stop_at` bytes or MAX_WRITABLE_FILES files (its cost stays bounded)."""
    total = files = 0
    stack = [str(root) for root in roots]
    while stack:
        folder = stack.pop()
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in entries:
                files += 1
                with contextlib.suppress(OSError):
                    st = entry.stat(follow_symlinks=False)
                    total += st.st_blocks * 512
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                if files > MAX_WRITABLE_FILES or (stop_at is not None and total > stop_at):
                    return total, files
    return total, files


class TreeWatch:
    """Samples the descendants of `root_pid` (not itself: the sandbox is below it)."""

    def __init__(
        self,
        root_pid: int,
        *,
        tmp_size: int | None = None,
        writable: Sequence[Path] = (),
        writable_cap: int | None = None,
    ) -> None:
        self.root_pid = root_pid
        self.tmp_size = tmp_size  # the size of the sandbox's /tmp tmpfs (None: not sampled)
        self.writable = list(writable)  # host folders the sandbox can write (sampled each second)
        self.writable_cap = writable_cap
        self.writable_bytes = 0
        self.writable_files = 0
        self.usage = Usage()
        self.tasks = 0
        self.resident = 0
        self.inits: list[int] = []  # the init of each pid namespace started below root_pid

    def sample(self) -> Usage:
        table: dict[int, tuple[int, int, int]] = {}
        with contextlib.suppress(OSError):
            for entry in os.listdir("/proc"):
                if entry.isdigit():
                    stat = _read_stat(entry)
                    if stat is not None:
                        table[int(entry)] = stat
        children: dict[int, list[int]] = {}
        for pid, (ppid, _, _) in table.items():
            children.setdefault(ppid, []).append(pid)
        tasks = procs = vm_max = data_max = resident = 0
        inside: int | None = None
        stack = list(children.get(self.root_pid, ()))
        self.inits = [pid for pid in stack if _in_other_pidns(pid)]
        seen: set[int] = set()
        while stack:
            pid = stack.pop()
            if pid in seen:
                continue
            seen.add(pid)
            if inside is None and _in_other_pidns(pid):
                inside = pid
            _, threads, vsize = table[pid]
            rss, data = _memory(pid)
            tasks += threads
            procs += 1
            vm_max = max(vm_max, vsize)
            data_max = max(data_max, data)
            resident += rss
            stack.extend(children.get(pid, ()))
        u = self.usage
        u.samples += 1
        self.tasks = tasks
        self.resident = resident
        u.peak_tasks = max(u.peak_tasks, tasks)
        u.peak_processes = max(u.peak_processes, procs)
        u.peak_vm = max(u.peak_vm, vm_max)
        u.peak_data = max(u.peak_data, data_max)
        u.peak_resident = max(u.peak_resident, resident)
        if inside is not None and self.tmp_size:
            # A process inside sees the sandbox's own /tmp through its root; until bubblewrap has
            # switched roots it sees the host's, so only a filesystem of the cap's size counts.
            with contextlib.suppress(OSError):
                st = os.statvfs(f"/proc/{inside}/root/tmp")
                if abs(st.f_blocks * st.f_frsize - self.tmp_size) <= _PAGE:
                    u.peak_tmp = max(u.peak_tmp, (st.f_blocks - st.f_bfree) * st.f_frsize)
        if self.writable and u.samples % WRITABLE_EVERY == 1:
            self.writable_bytes, self.writable_files = _disk_usage(self.writable, self.writable_cap)
            u.peak_writable = max(u.peak_writable, self.writable_bytes)
            u.peak_writable_files = max(u.peak_writable_files, self.writable_files)
        return u

    def over_writable(self) -> bool:
        """Whether the last measure of the writable folders passed the cap or the file count."""
        over_bytes = self.writable_cap is not None and self.writable_bytes > self.writable_cap
        return over_bytes or self.writable_files > MAX_WRITABLE_FILES


def machine_busy_seconds() -> float:
    """CPU seconds every core of this machine has spent busy since boot (user, nice, system, irq,
    softirq; `/proc/stat`). A difference over a run on a quiet machine is that run's whole CPU
    cost: unlike `getrusage(RUSAGE_CHILDREN)` it counts the processes nobody waits for, such as
    Chromium's renderers and GPU process (most of a browser phase's CPU)."""
    with open("/proc/stat", encoding="ascii") as fh:
        fields = fh.readline().split()
    user, nice, system, _idle, _iowait, irq, softirq = (int(x) for x in fields[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")
