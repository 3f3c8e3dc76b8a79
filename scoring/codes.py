"""Blind candidate codes: drawn once per unit from the round seed and frozen in `codes.json`.

A code is `C-` plus four characters from an unambiguous alphabet, taken from
sha256("siteos-code:<seed>:<unit>:<attempt>"); a collision with an existing code takes the next
attempt. Existing entries are never redrawn or reordered; new units are appended. Entries are kept
in unit-name order of drawing, never run order.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from records.evidence.scoring import CodeEntry, CodesRecord
from records.io import RecordError, read_record, write_record

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 4






def draw_code(seed: int, unit: str, attempt: int = 0) -> str:
    digest = hashlib.sha256(f"siteos-code:{seed}:{unit}:{attempt}".encode()).digest()
    number = int.from_bytes(digest[:8], "big")
    chars = []
    for _ in range(CODE_LENGTH):
        number, index = divmod(number, len(ALPHABET))
        chars.append(ALPHABET[index])
    return "C-" + "".join(chars)


def load_codes(path: Path) -> CodesRecord | None:
    return read_record(path, CodesRecord) if path.exists() else None


def assign_codes(path: Path, round_id: str, seed: int, units: list[str]) -> CodesRecord:
    """Ensure every unit has a code: keep `codes.json` as it is and append codes for new units."""
    record = load_codes(path) or CodesRecord(round_id=round_id, seed=seed)
    if record.seed != seed or record.round_id != round_id:
        raise RecordError(
            f"{path}: field seed/round_id: codes were drawn for round {record.round_id!r} seed "
            f"{record.seed}, not round {round_id!r} seed {seed}; codes are never redrawn"
        )
    known = {e.unit for e in record.codes}
    taken = {e.code for e in record.codes}
    new = [u for u in sorted(set(units)) if u not in known]
    for unit in new:
        attempt = 0
        while (code := draw_code(seed, unit, attempt)) in taken:
            attempt += 1
        taken.add(code)
        record.codes.append(CodeEntry(unit=unit, code=code))
    if new or not path.exists():
        write_record(path, record)
    return record
