"""Materialise the task's starter or its reference solution into a directory.

The starter is the task's `starter/` (without `node_modules/` and `dist/`). The reference
solution is an overlay in the task's `reference/`: files at the same relative paths as in the
starter, copied over a fresh copy of it. Paths listed in the overlay's `DELETE` file (one per
line, `#` comments allowed) are removed from the copy; the `DELETE` file itself is never copied.

    python -m evaluator.controls.materialize starter DEST [--task ID]
    python -m evaluator.controls.materialize reference DEST [--task ID]
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from records.task import DEFAULT_TASK, Task, load_task

DELETE_FILE = "DELETE"
EXCLUDED_DIRS = frozenset({"node_modules", "dist"})


def _ignore(directory: str, names: Iterable[str]) -> set[str]:
    del directory
    return {name for name in names if name in EXCLUDED_DIRS}


def _prepare(dest: Path) -> Path:
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise FileExistsError(f"destination is not empty: {dest}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    return dest


def overlay_files(overlay: Path) -> list[PurePosixPath]:
    """Relative paths of the files an overlay writes, sorted."""
    return sorted(
        PurePosixPath(p.relative_to(overlay).as_posix())
        for p in overlay.rglob("*")
        if p.is_file() and p.relative_to(overlay).as_posix() != DELETE_FILE
    )


def overlay_deletions(overlay: Path) -> list[PurePosixPath]:
    """Relative paths an overlay removes from the starter (from its DELETE file)."""
    listing = overlay / DELETE_FILE
    if not listing.is_file():
        return []
    paths: list[PurePosixPath] = []
    for line in listing.read_text(encoding="utf-8").splitlines():
        entry = line.split("#", 1)[0].strip()
        if not entry:
            continue
        rel = PurePosixPath(entry)
        if rel.is_absolute() or ".." in rel.parts:
            raise ValueError(f"unsafe path in {listing}: {entry!r}")
        paths.append(rel)
    return paths


def materialize_starter(task: Task, dest: Path) -> Path:
    """Copy the task's starter (without node_modules/ and dist/) into an empty or new `dest`."""
    dest = _prepare(dest)
    shutil.copytree(task.starter, dest, ignore=_ignore, dirs_exist_ok=True)
    return dest


def materialize_reference(task: Task, dest: Path) -> Path:
    """Copy the task's starter into `dest`, then apply its reference overlay (writes and
    deletions)."""
    dest = materialize_starter(task, dest)
    for rel in overlay_deletions(task.reference):
        target = dest / rel
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    for rel in overlay_files(task.reference):
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(task.reference / rel, target)
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evaluator.controls.materialize",
        description="Materialise the task starter or the reference solution into DEST.",
    )
    parser.add_argument("which", choices=["starter", "reference"])
    parser.add_argument("dest", type=Path)
    parser.add_argument("--task", default=DEFAULT_TASK, help=f"task id (default {DEFAULT_TASK})")
    args = parser.parse_args(argv)
    make = materialize_starter if args.which == "starter" else materialize_reference
    try:
        out = make(load_task(args.task), args.dest)
    except FileExistsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
