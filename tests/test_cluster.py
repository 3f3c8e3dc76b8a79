"""Units as Ray tasks on a real local Ray cluster: a head and two worker nodes, each started by its
own `ray start` in its own working folder, all on 127.0.0.1. A scripted round run on the cluster
leaves the evidence the same round leaves run locally (apart from times and hosts); a worker
killed mid-session leaves a harness failure, whose documented replacement then completes.

The archive checks (hash, members) need no cluster and run in the default tier."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from session_support import demo_round

from harness.cluster import SANDBOX_RESOURCE, ArchiveRefused, install_unit, pack, run_cluster
from harness.parallel import run_parallel
from harness.parallel import scheduled as scheduled_units
from harness.replacement import create_replacement
from harness.session.sandbox import bwrap_available
from records.evidence.round import OrderRecord
from records.evidence.session import SessionRecord
from records.io import read_record, write_record
from records.layout import UnitPaths, round_paths
from records.round import Round
from records.tools import OPENCODE

UNITS = ["idle-r1", "idle-r2", "idle-r3"]
LOST = "idle-r2"
PORT = 46391
LOCAL = "127.0.0.1"


def test_a_units_archive_is_written_only_when_its_hash_matches(tmp_path: Path) -> None:
    folder = tmp_path / "worker" / "idle-r1"
    folder.mkdir(parents=True)
    (folder / "session.json").write_text("{}")
    (folder / "logs").mkdir()
    (folder / "logs" / "agent.log").write_text("ok")
    data = pack(folder)
    target = UnitPaths(tmp_path / "evidence" / "units" / "idle-r1")
    with pytest.raises(ArchiveRefused, match="SHA-256"):
        install_unit(target, data, "0" * 64)
    assert not target.root.exists()
    install_unit(target, data, hashlib.sha256(data).hexdigest())
    assert (target.root / "logs" / "agent.log").read_text() == "ok"
    with pytest.raises(ArchiveRefused, match="never written again"):
        install_unit(target, data, hashlib.sha256(data).hexdigest())


def test_an_archive_member_outside_its_folder_is_refused(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = tarfile.TarInfo("../escaped.txt")
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    data = buffer.getvalue()
    with pytest.raises(ArchiveRefused, match="leaves its folder"):
        install_unit(UnitPaths(tmp_path / "u"), data, hashlib.sha256(data).hexdigest())
    assert not (tmp_path / "escaped.txt").exists()


# --- the cluster -------------------------------------------------------------------------------


def _ray() -> str:
    return str(Path(sys.executable).with_name("ray"))


def _node_pids(temp_dir: Path) -> list[int]:
    """The processes of one node (their command lines name its temp folder) and all below them."""
    parents: dict[int, int] = {}
    roots = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        parents[int(entry)] = ppid
        if str(temp_dir) in cmdline:
            roots.append(int(entry))
    found = set(roots)
    grew = True
    while grew:
        grew = False
        for pid, ppid in parents.items():
            if ppid in found and pid not in found:
                found.add(pid)
                grew = True
    return sorted(found)


def _kill_node(temp_dir: Path) -> None:
    for pid in _node_pids(temp_dir):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def local_cluster() -> Iterator[tuple[str, list[Path]]]:
    """Head (no CPUs, no sandbox resource) and two workers (one CPU and one siteos_sandbox
    each), every node from its own `ray start` in its own working folder; all killed by the
    process ids of their own temp folders at the end."""
    root = Path(tempfile.mkdtemp(prefix="rc", dir="/tmp"))  # short: Ray's socket paths
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    common = ["--node-ip-address=127.0.0.1", "--object-store-memory=100000000",
              "--disable-usage-stats"]  # fmt: skip
    nodes = []
    try:
        for name, extra in (
            ("head", ["--head", f"--port={PORT}", "--num-cpus=0", "--memory=1000000000",
                      "--include-dashboard=false", "--dashboard-agent-listen-port=52411"]),
            ("w1", [f"--address=127.0.0.1:{PORT}", "--num-cpus=1", "--memory=9000000000",
                    f"--resources={json.dumps({SANDBOX_RESOURCE: 1})}",
                    "--dashboard-agent-listen-port=52412"]),
            ("w2", [f"--address=127.0.0.1:{PORT}", "--num-cpus=1", "--memory=9000000000",
                    f"--resources={json.dumps({SANDBOX_RESOURCE: 1})}",
                    "--dashboard-agent-listen-port=52413"]),
        ):  # fmt: skip
            work = root / name
            (work / "t").mkdir(parents=True)
            nodes.append(work / "t")
            subprocess.run(
                [_ray(), "start", *extra, *common, f"--temp-dir={work / 't'}"],
                cwd=work, env=env, check=True, capture_output=True, timeout=180,
            )  # fmt: skip
        yield f"127.0.0.1:{PORT}", nodes[1:]
    finally:
        for temp in reversed(nodes):
            _kill_node(temp)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[str, list[Path]]]:
    # the full tier installs the cluster extra and setup installs the rest: missing is a failure
    assert importlib.util.find_spec("ray"), "Ray missing: pip install -e .[cluster]"
    assert OPENCODE.exists() and bwrap_available(), "OpenCode or bubblewrap missing: scripts/setup"
    with local_cluster() as running:
        yield running


@contextlib.contextmanager
def scripted_round(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The showcase round frozen in a fresh evidence folder, three idle units in its order."""
    with demo_round(tmp_path_factory) as ev:
        write_record(
            round_paths("showcase", ev).order,
            OrderRecord(round_id="showcase", seed=1, drawn_at="t", qualified=["idle"],
                        not_testable=[], order=UNITS),
        )  # fmt: skip
        yield ev


# What differs between two runs of the same scripted unit on any two machines.
TIMES_AND_HOSTS = {"started_at", "finished_at", "elapsed_seconds", "lingered_seconds", "slot"}


def comparable(record: SessionRecord) -> dict[str, Any]:
    data = record.model_dump(mode="json", exclude=TIMES_AND_HOSTS)
    data["gateway"] = {k: v for k, v in data["gateway"].items() if "ms" not in k}
    data.pop("worktree_archive_sha256")  # a tar of the final worktree: file times inside
    return data


def files_of(paths: UnitPaths) -> list[str]:
    return sorted(str(p.relative_to(paths.root)) for p in paths.root.rglob("*"))


@pytest.mark.full
def test_a_round_on_the_cluster_leaves_the_evidence_of_a_local_run(
    cluster: tuple[str, list[Path]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    address, _ = cluster
    with scripted_round(tmp_path_factory) as remote:
        outcomes = run_cluster(Round.load("showcase", remote), address, 2, node_ip_address=LOCAL)
    assert [(o.unit, o.installed) for o in outcomes] == [(u, True) for u in UNITS]
    with scripted_round(tmp_path_factory) as local:
        rnd = Round.load("showcase", local)
        run_parallel(rnd, scheduled_units(rnd), 2, log=False)
    for unit in UNITS:
        there, here = round_paths("showcase", remote).unit(unit), rnd.paths.unit(unit)
        on_cluster, at_home = (
            read_record(there.session, SessionRecord),
            read_record(here.session, SessionRecord),
        )
        assert on_cluster.failure_class == "none" and on_cluster.stop_status == "completed", unit
        assert comparable(on_cluster) == comparable(at_home), unit
        assert files_of(there) == files_of(here), unit
        assert on_cluster.slot is not None and on_cluster.slot.shape == at_home.slot.shape  # type: ignore[union-attr]


@pytest.mark.full
def test_a_worker_killed_mid_session_is_a_harness_failure_and_its_replacement_completes(
    cluster: tuple[str, list[Path]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    address, workers = cluster
    with scripted_round(tmp_path_factory) as evidence:
        _kill_one_and_replace(address, workers, evidence)


def _kill_one_and_replace(address: str, workers: list[Path], evidence: Path) -> None:
    killed: list[Path] = []

    def kill_the_worker_running(unit: str) -> None:
        """Once `unit`'s session is under way on a worker, kill that whole node."""
        model, rep = unit.rsplit("-r", 1)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            for temp in workers:
                for pid in _node_pids(temp):
                    with contextlib.suppress(OSError):
                        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                        if b"--order-checked" in cmd and cmd[cmd.index(b"one") + 2 :][:2] == [
                            model.encode(),
                            rep.encode(),
                        ]:
                            time.sleep(3)  # the agent is starting: mid-session
                            _kill_node(temp)
                            killed.append(temp)
                            return
            time.sleep(0.2)

    killer = threading.Thread(target=kill_the_worker_running, args=(LOST,))
    killer.start()
    outcomes = {
        o.unit: o
        for o in run_cluster(Round.load("showcase", evidence), address, 2, node_ip_address=LOCAL)
    }
    killer.join()
    assert killed, f"{LOST} was never seen running on a worker"
    assert not outcomes[LOST].installed and "lost" in outcomes[LOST].lost
    paths = round_paths("showcase", evidence)
    lost = read_record(paths.unit(LOST).session, SessionRecord)
    # as a runner killed on this machine: a harness failure, not scored, never the model's
    assert (lost.failure_class, lost.stop_status, lost.validity) == (
        "harness",
        "crashed",
        "invalid",
    )
    assert "cluster worker was lost" in lost.failure_detail
    assert any(r.startswith("harness failure (not a model failure)") for r in lost.invalid_reasons)
    for unit in UNITS:
        if unit != LOST:
            done = read_record(paths.unit(unit).session, SessionRecord)
            assert done.failure_class == "none", unit
    create_replacement("showcase", LOST, "its Ray worker was killed", evidence_dir=evidence)
    again = run_cluster(Round.load("showcase", evidence), address, 2, node_ip_address=LOCAL)
    assert [(o.unit, o.installed) for o in again] == [(f"{LOST}-x1", True)]
    replacement = read_record(paths.unit(f"{LOST}-x1").session, SessionRecord)
    assert replacement.replacement_of == LOST and replacement.failure_class == "none"
    assert replacement.stop_status == "completed"
