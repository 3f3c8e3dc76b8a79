"""Where the browser phase's CPU goes, by configuration (not a test): the reference's phase with
every check, without evidence on one, two and three lanes; on the default lanes with each kind
of evidence alone and all three together; and two phases at once with all evidence, on one lane
each and on three (a round's units); each configuration `--runs` times, interleaved (this shared
VM's speed drifts between minutes, so compare within one run of the script).

For each run it prints the wall time, the machine's busy CPU seconds (`/proc/stat`, less the
sampling's own: run it on a quiet machine) and the CPU of every process of the run by kind,
sampled from `/proc/<pid>/stat` every 50 ms: Chromium's renderers, GPU, utility and browser
processes, Playwright's Node driver, ffmpeg (the video) and Python. A renderer that lives less than
one sample is missed, so the kinds add up to a little less than the machine's figure.

    .venv/bin/python scripts/bench_phase.py [--runs N] [--configs name,name,...]

What the figures said on 2026-12-06 is in evaluator/README.md, "Speed".
"""

from __future__ import annotations

import argparse
import collections
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from records.layout import REPO_ROOT
from records.task import DEFAULT_TASK, load_task
from records.tools import node_path_env
from sandbox import loopback_netns_argv
from sandbox.monitor import machine_busy_seconds

NO_EVIDENCE = ["--no-video", "--no-trace", "--no-screenshots"]
CONFIGS: dict[str, tuple[list[str], int]] = {
    "1 lane": ([*NO_EVIDENCE, "--lanes", "1"], 1),
    "2 lanes": ([*NO_EVIDENCE, "--lanes", "2"], 1),
    "3 lanes": ([*NO_EVIDENCE, "--lanes", "3"], 1),
    "video": (["--no-trace", "--no-screenshots"], 1),
    "video+trace": (["--no-screenshots"], 1),
    "screenshots": (["--no-video", "--no-trace"], 1),
    "all evidence": ([], 1),
    "pair on 1 lane": (["--lanes", "1"], 2),
    "pair on 3 lanes": (["--lanes", "3"], 2),
}
"""Per configuration: the extra arguments of `python -m evaluator.browser_phase`, and how many
phases run at once (two, with all evidence: what a round's `doit -n 2` does with its units). The
trace is measured beside the video only: without a video it records a filmstrip of its own, which
real runs never do."""
CLOCK = os.sysconf("SC_CLK_TCK")


def kind(cmdline: str) -> str:
    """What a process of the phase is, from its command line."""
    if "--type=" in cmdline and ("chrom" in cmdline or "headless" in cmdline):
        for name in ("renderer", "gpu-process", "utility", "zygote"):
            if f"--type={name}" in cmdline:
                return "zygote (renderers)" if name == "zygote" else name
    if "chrom" in cmdline or "headless_shell" in cmdline:
        return "browser"
    if "ffmpeg" in cmdline:
        return "ffmpeg"
    if "playwright" in cmdline and "node" in cmdline:
        return "driver"
    if "python" in cmdline:
        return "python"
    return "other"


class ProcessSampler(threading.Thread):
    """Samples every process's CPU seconds until stopped; each process is named by the kind of
    the last command line it was seen with (a forked child shows its parent's until it execs)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.start_cpu: dict[tuple[str, str], float] = {}
        self.seen: dict[tuple[str, str], tuple[str, float]] = {}
        self.own_cpu = 0.0  # the sampling's own CPU, taken off the machine's figure
        self._sample(baseline=True)

    def _sample(self, baseline: bool = False) -> None:
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except (OSError, UnicodeDecodeError):
                continue
            fields = stat[stat.rfind(")") + 2 :].split()
            key = (pid, fields[19])  # pid and start time: a reused pid is another process
            cpu = (int(fields[11]) + int(fields[12])) / CLOCK
            if baseline:
                self.start_cpu[key] = cpu
                continue
            known = self.seen.get(key)
            # an exited process keeps the kind it had; a forked one takes its new program's
            name = kind(cmdline) if cmdline.strip() or known is None else known[0]
            self.seen[key] = (name, cpu)

    def run(self) -> None:
        started = time.thread_time()
        while not self.stop.wait(0.05):
            self._sample()
        self._sample()
        self.own_cpu = time.thread_time() - started

    def by_kind(self) -> dict[str, float]:
        total: dict[str, float] = collections.defaultdict(float)
        for key, (name, cpu) in self.seen.items():
            total[name] += cpu - self.start_cpu.get(key, 0.0)
        return dict(sorted(total.items(), key=lambda item: -item[1]))


def run(
    dist: Path, out: Path, extra: list[str], copies: int = 1
) -> tuple[float, float, dict[str, float], list[int]]:
    """`copies` browser phases at once: (wall s until the last ends, busy CPU s, CPU s by process
    kind, checks passed by each)."""
    task = load_task(DEFAULT_TASK)
    argvs = [
        [sys.executable, "-m", "evaluator.browser_phase", "--dist", str(dist),
         "--out", str(out / str(n)), "--phase-json", str(out / str(n) / "phase.json"),
         "--data", str(task.data), "--checks", task.spec.checks, *extra]
        for n in range(copies)
    ]  # fmt: skip
    sampler = ProcessSampler()
    sampler.start()
    cpu, start = machine_busy_seconds(), time.monotonic()
    procs = [
        subprocess.Popen(
            loopback_netns_argv(argv),
            cwd=REPO_ROOT,
            env=node_path_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for argv in argvs
    ]
    codes = [proc.wait() for proc in procs]
    sampler.stop.set()
    sampler.join()
    wall, busy = time.monotonic() - start, machine_busy_seconds() - cpu - sampler.own_cpu
    if any(codes):
        raise SystemExit(f"a browser phase failed (exit codes {codes}); output in {out}")
    records = [json.loads((out / str(n) / "phase.json").read_text()) for n in range(copies)]
    passed = [sum(1 for c in record["checks"] if c["passed"]) for record in records]
    return wall, busy, sampler.by_kind(), passed


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=2, help="runs of each configuration")
    parser.add_argument("--configs", default=",".join(CONFIGS), help="which, comma-separated")
    args = parser.parse_args()
    names = [n.strip() for n in args.configs.split(",") if n.strip()]
    unknown = [n for n in names if n not in CONFIGS]
    if unknown:
        parser.error(f"unknown configuration(s) {unknown}; known: {', '.join(CONFIGS)}")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    build_reference = importlib.import_module("bench_checks").build_reference
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    results: dict[str, list[tuple[float, float]]] = {n: [] for n in names}
    with tempfile.TemporaryDirectory(prefix="siteos-bench-phase-") as tmp:
        dist = build_reference(Path(tmp))
        for i in range(args.runs):
            for name in names:
                out = Path(tmp) / f"out-{i}-{len(results[name])}-{name.replace(' ', '-')}"
                extra, copies = CONFIGS[name]
                wall, busy, kinds, passed = run(dist, out, extra, copies)
                results[name].append((wall, busy))
                shares = ", ".join(f"{k} {v:.1f}" for k, v in kinds.items() if v >= 0.05)
                print(
                    f"{name:18} run {i + 1}: {wall:5.1f} s, {busy:5.1f} CPU s, checks passed"
                    f" {'+'.join(map(str, passed))}; by process: {shares}",
                    flush=True,
                )
    print("medians:")
    for name, rows in results.items():
        wall = statistics.median(r[0] for r in rows)
        busy = statistics.median(r[1] for r in rows)
        print(f"  {name:18} {wall:5.1f} s  {busy:5.1f} CPU s")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
