"""Atomic writes and validated reads for evidence and input files."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


class RecordError(ValueError):
    """A record file is missing, unreadable or invalid; the message names the file and field."""


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` via a temp file in the same folder and `os.replace`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def write_json(path: Path, data: Any) -> None:
    """Write plain JSON data atomically, pretty and key-stable."""
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False) + "\n")


def write_record(path: Path, record: BaseModel) -> None:
    """Write a pydantic record atomically as indented JSON."""
    atomic_write_text(path, record.model_dump_json(indent=2) + "\n")


def describe_validation_error(path: Path, error: ValidationError) -> str:
    lines = [f"{path}: invalid {error.title}"]
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "(top level)"
        lines.append(f"  field {where}: {item['msg']}")
    return "\n".join(lines)


def read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise RecordError(f"{path}: file not found") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from exc


def read_record(path: Path, model: type[M]) -> M:
    """Read and validate `path` as `model`; errors name the file and every bad field."""
    data = read_json(path)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise RecordError(describe_validation_error(path, exc)) from exc


def readable(path: Path, model: type[BaseModel]) -> bool:
    """Whether `path` holds a valid `model` record (any schema this checkout reads)."""
    try:
        read_record(path, model)
    except RecordError:
        return False
    return True


def append_jsonl(path: Path, record: BaseModel | dict[str, Any]) -> None:
    """Append one JSON line and flush it (jsonl logs are append-only, never rewritten)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    line = record.model_dump_json() if isinstance(record, BaseModel) else json.dumps(record)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def move_to_history(paths: Iterable[Path], history_dir: Path) -> Path | None:
    """Move every existing path (file or folder) into one new dated folder below `history_dir`,
    keeping its name; nothing is deleted. Returns that folder, or None when nothing existed.

    Derived evidence written before spending (calibration, catalogue, key check) and a unit's
    evaluation are written once: a re-run keeps the earlier files here instead of replacing them.
    """
    present = [p for p in paths if p.exists() or p.is_symlink()]
    if not present:
        return None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    entry, n = history_dir / stamp, 1
    while entry.exists():
        n += 1
        entry = history_dir / f"{stamp}-{n}"
    entry.mkdir(parents=True)
    for path in present:
        os.replace(path, entry / path.name)
    return entry
