"""Where the suite's CPU goes, per test file: each pytest process samples its own process tree.

A thread samples `/proc` every half second and charges each process's new CPU time (its own, not
its children's) to what its pytest process is doing now: the running test's file on a worker,
the background golden round on the controller. A process that leaves the tree stays charged to its
last owner (Chromium's renderers, a killed runner's OpenCode). Processes that live less
than one sample go uncounted (each a fraction of a second), so the totals are a little low; the
machine's whole busy CPU (the session's last line) is the true sum.
"""

from __future__ import annotations

import os
import threading
from collections import defaultdict
from pathlib import Path

INTERVAL_S = 0.5
TICK = os.sysconf("SC_CLK_TCK")


def _processes() -> dict[int, tuple[int, int, int]]:
    """pid -> (parent pid, start time, own CPU ticks) of every live process."""
    out: dict[int, tuple[int, int, int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            raw = Path(entry.path, "stat").read_bytes()
        except OSError:
            continue
        fields = raw[raw.rindex(b")") + 2 :].split()  # after "pid (comm) "
        ppid, ticks, start = int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[19])
        out[int(entry.name)] = (ppid, start, ticks)
    return out


class TreeSampler(threading.Thread):
    """Charges the CPU of `root`'s descendants (and `root` itself) to `label`."""

    def __init__(self, root: int, label: str) -> None:
        super().__init__(name="cpu-profile", daemon=True)
        self.root = root
        self.label = label
        self.totals: dict[str, float] = defaultdict(float)
        self._seen: dict[tuple[int, int], tuple[str, int]] = {}  # (pid, start) -> (owner, ticks)
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.wait(INTERVAL_S):
            self.sample()

    def stop(self) -> dict[str, float]:
        self._halt.set()
        self.join(timeout=5)
        self.sample()
        return dict(self.totals)

    def sample(self) -> None:
        procs = _processes()
        children: dict[int, list[int]] = defaultdict(list)
        for pid, (ppid, _, _) in procs.items():
            children[ppid].append(pid)
        tree, todo = set(), [self.root]
        while todo:
            pid = todo.pop()
            if pid in procs and pid not in tree:
                tree.add(pid)
                todo.extend(children[pid])
        label = self.label
        for pid, (_, start, ticks) in procs.items():
            key = (pid, start)
            owner, before = self._seen.get(key, (label, 0))
            if pid in tree:
                owner = label
            elif key not in self._seen:
                continue
            if ticks > before:
                self.totals[owner] += (ticks - before) / TICK
            self._seen[key] = (owner, ticks)
