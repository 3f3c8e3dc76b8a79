"""Blind candidate codes: drawn once per unit from the round's private secret, then frozen.

The secret is 32 bytes from the OS (`secrets.token_hex`), created the first time a round needs
codes and kept in `private/code-secret.json`; nothing public (round file, cohort, unit ids) can
reproduce it. A code is `C-` plus four characters of an unambiguous alphabet taken from
HMAC-SHA256(secret, "siteos-code:<unit>:<attempt>"); a collision takes the next attempt. The map
lives in `private/codes.json`: existing entries are never redrawn or reordered, new units are
appended in unit-name order (never run order).

Migration: a schema-1 `<round>/codes.json` (drawn from the public seed) is copied into the private
map unchanged, its entries marked `seed-hash` (recomputable; reported on the leaderboard). Codes
already handed to reviewers stay valid; only units without a code get secret-drawn ones.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from datetime import UTC, datetime
from pathlib import Path

from records.evidence.blind import LEGACY_SCHEME, CodeEntry, CodeSecret, CodesRecord
from records.io import RecordError, read_record, write_record
from records.layout import RoundPaths

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 4


def _encode(digest: bytes) -> str:
    number = int.from_bytes(digest[:8], "big")
    chars = []
    for _ in range(CODE_LENGTH):
        number, index = divmod(number, len(ALPHABET))
        chars.append(ALPHABET[index])
    return "C-" + "".join(chars)


def draw_code(secret: bytes, unit: str, attempt: int = 0) -> str:
    """The code of `unit` under `secret` (HMAC: unknowable without the secret)."""
    message = f"siteos-code:{unit}:{attempt}".encode()
    return _encode(hmac.new(secret, message, hashlib.sha256).digest())


def legacy_code(seed: int, unit: str, attempt: int = 0) -> str:
    """The schema-1 formula, from the public seed: anyone can recompute it (kept for migration
    and for the test that proves new codes do not follow it)."""
    return _encode(hashlib.sha256(f"siteos-code:{seed}:{unit}:{attempt}".encode()).digest())


def _private(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)


def load_secret(paths: RoundPaths) -> bytes:
    """The round's code secret, created from OS randomness the first time."""
    round_id = paths.round_id
    path = paths.code_secret
    if path.exists():
        record = read_record(path, CodeSecret)
        if record.round_id != round_id:
            raise RecordError(f"{path}: field round_id: {record.round_id!r}, not {round_id!r}")
        return bytes.fromhex(record.secret_hex)
    _private(path)
    record = CodeSecret(
        round_id=round_id,
        secret_hex=secrets.token_hex(32),
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    write_record(path, record)
    os.chmod(path, 0o600)
    return bytes.fromhex(record.secret_hex)


def load_codes(paths: RoundPaths) -> CodesRecord | None:
    """The private map; else a schema-1 `<round>/codes.json` (entries flagged recomputable)."""
    if paths.codes.exists():
        return read_record(paths.codes, CodesRecord)
    if paths.legacy_codes.exists():
        legacy = read_record(paths.legacy_codes, CodesRecord)
        return legacy.model_copy(
            update={
                "schema_version": 2,
                "scheme": f"schema-1 entries: {LEGACY_SCHEME}; new entries: HMAC with the secret",
                "migrated_from": paths.legacy_codes.name,
            }
        )
    return None


def assign_codes(paths: RoundPaths, units: list[str]) -> CodesRecord:
    """Ensure every unit has a code: keep the map as it is and append codes for new units."""
    round_id = paths.round_id
    record = load_codes(paths) or CodesRecord(round_id=round_id)
    if record.round_id != round_id:
        raise RecordError(
            f"{paths.codes}: field round_id: codes were drawn for round {record.round_id!r}, "
            f"not {round_id!r}; codes are never redrawn"
        )
    known = {e.unit for e in record.codes}
    taken = {e.code for e in record.codes}
    new = [u for u in sorted(set(units)) if u not in known]
    if new:
        secret = load_secret(paths)
        for unit in new:
            attempt = 0
            while (code := draw_code(secret, unit, attempt)) in taken:
                attempt += 1
            taken.add(code)
            record.codes.append(CodeEntry(unit=unit, code=code))
    if new or not paths.codes.exists():
        _private(paths.codes)
        write_record(paths.codes, record)
    return record
