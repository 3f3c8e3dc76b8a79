"""Write back a `.running` marker that does not validate, so the unit is recorded, not re-run.

    python -m harness.marker_repair UNIT --round R --reason TEXT --runner-dead

`run_unit` refuses a unit whose marker does not validate (or whose folder holds session logs but
no marker): paid work may have begun and nothing says by whom. Once the operator has made sure no
runner of the unit is alive (`--runner-dead` says so; `--reason` says how they know), this:
- refuses when the unit has session.json, when its marker validates (nothing to repair), when it
  was repaired before, or when a live process's command line names the unit (e.g. its agent);
- keeps the unreadable marker beside it as `.running.unreadable-<utc stamp>` (never deleted);
- records what it did in `marker-repair.json` (listed in the unit's evidence files);
- writes a marker the runner recovers from: no live runner, the dead run's scratch folder when
  exactly one `<scratch root>/<unit>-*` exists (its worktree is then archived), the start time
  estimated from the unit's session logs, hashes and isolation not known.
The next `doit` then records the unit as a crashed harness failure, with whatever evidence exists.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

from harness.session.evidence import MarkerUnreadable, read_marker, write_marker
from harness.session.process import process_alive
from harness.unit import scratch_root
from records.evidence.marker_repair import MarkerRepair
from records.evidence.session import RunningMarker
from records.hashing import file_sha256
from records.io import RecordError, write_record
from records.layout import EVIDENCE_DIR, UnitPaths, round_paths


class RepairRefused(RuntimeError):
    """The marker must not be written back (see the message)."""


def live_processes(unit: str) -> list[int]:
    """Processes other than this one whose command line names `unit` (an agent's `--title`)."""
    pids = [int(p.name) for p in Path("/proc").glob("[0-9]*")]
    return sorted(pid for pid in pids if pid != os.getpid() and process_alive(pid, unit))


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


def _problem(paths: UnitPaths, unit: str) -> str:
    if paths.session.exists():
        raise RepairRefused(f"{paths.session} exists: the unit is recorded, nothing to repair")
    if paths.marker_repair.exists():
        raise RepairRefused(
            f"{paths.marker_repair} exists: the marker was written back once already; inspect "
            "the unit's folder by hand"
        )
    try:
        read_marker(paths, unit)
    except MarkerUnreadable as exc:
        return str(exc)
    raise RepairRefused(
        f"{paths.running_marker}: validates or is absent with no session log: nothing to repair"
    )


def repair_marker(
    round_id: str,
    unit: str,
    reason: str,
    *,
    by: str = "operator",
    evidence_dir: Path = EVIDENCE_DIR,
) -> MarkerRepair:
    """Keep the unreadable marker, record the repair, write a marker the runner recovers from."""
    if not reason.strip():
        raise RepairRefused("a reason is required: how do you know no runner of the unit is alive?")
    paths = round_paths(round_id, evidence_dir).unit(unit)
    problem = _problem(paths, unit)
    if live := live_processes(unit):
        raise RepairRefused(f"processes naming {unit!r} are alive (pids {live}): stop them first")
    now = datetime.now(UTC)
    kept: Path | None = None
    kept_sha = None
    if paths.running_marker.exists():
        kept = paths.root / f".running.unreadable-{now.strftime('%Y%m%dT%H%M%SZ')}"
        kept_sha = file_sha256(paths.running_marker)
        os.replace(paths.running_marker, kept)
    found = sorted(p for p in scratch_root().glob(f"{unit}-*") if p.is_dir())
    scratch = found[0] if len(found) == 1 else None
    logs = [p for p in (paths.events, paths.gateway, paths.agent_stderr) if p.exists()]
    started = _iso(min((p.stat().st_mtime for p in logs), default=now.timestamp()))
    record = MarkerRepair(
        unit=unit, repaired_at=now.isoformat(timespec="seconds"), by=by, reason=reason,
        problem=problem, kept_as=kept.name if kept else None, kept_sha256=kept_sha,
        scratch=str(scratch) if scratch else None, started_at_estimate=started,
    )  # fmt: skip
    write_record(paths.marker_repair, record)
    folder = scratch or paths.root / ".scratch-not-found"  # absent: nothing to archive or remove
    write_marker(
        paths,
        RunningMarker(
            unit=unit, runner_pid=0, runner_start=None, scratch=str(folder),
            worktree=str(folder / "wt"), started_at=started,
        ),
    )  # fmt: skip
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.marker_repair", description=__doc__)
    parser.add_argument("unit", help="the refused unit, e.g. claude-opus-r1")
    parser.add_argument("--round", default=os.environ.get("SITEOS_ROUND", "demo"))
    parser.add_argument("--reason", required=True, help="how you know no runner is alive")
    parser.add_argument("--by", default="operator")
    parser.add_argument(
        "--runner-dead", action="store_true", help="you checked: no runner of the unit is alive"
    )
    args = parser.parse_args(argv)
    if not args.runner_dead:
        print("refused: check that no runner of the unit is alive, then pass --runner-dead",
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        record = repair_marker(args.round, args.unit, args.reason, by=args.by)
    except (RepairRefused, RecordError) as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 2
    kept = f"kept as {record.kept_as}" if record.kept_as else "it was missing"
    print(f"{args.unit}: marker written back ({kept}); the next doit records it as a harness "
          "failure")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
