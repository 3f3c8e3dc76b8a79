"""One zip per reviewer: every packet, in an order shuffled for that reviewer.

`packets/bundles/<reviewer>.zip` holds `<reviewer>/index.html` (the packets in order, and a
button that collects the rows the packet pages exported into the reviewer's sheet),
`<reviewer>/<reviewer>.csv` (a blank sheet in the same order) and `<reviewer>/NN-<code>/` (the
packets). The order comes from HMAC(code secret, reviewer): different per reviewer, stable for a
reviewer, and not derivable without the private secret. A packet whose screenshots or video show
an identity is left out until the operator approves or redacts its media (`scoring/blinding.py`).
Entries carry a fixed timestamp, so the zip reveals no build or run order.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import zipfile
from pathlib import Path

from records.evidence.scoring import PacketIndex
from records.io import RecordError, read_record
from scoring.blinding import withheld
from scoring.codes import load_secret
from scoring.evidence import RoundContext
from scoring.review_page import render_bundle_page
from scoring.reviews import REVIEWER_ID, SHEET_HEADER

FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def reviewer_order(secret: bytes, reviewer: str, codes: list[str]) -> list[str]:
    seed = hmac.new(secret, f"siteos-bundle:{reviewer}".encode(), hashlib.sha256).digest()
    shuffled = sorted(codes)
    random.Random(seed).shuffle(shuffled)
    return shuffled


def _add(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def write_bundle(ctx: RoundContext, reviewer: str) -> Path:
    """Write `packets/bundles/<reviewer>.zip` from the built packets."""
    if not REVIEWER_ID.match(reviewer):
        raise ValueError(f"reviewer id {reviewer!r}: letters, digits, . _ - only")
    index_path = ctx.paths.packets_dir / "index.json"
    if not index_path.exists():
        raise RecordError(f"{index_path}: no packets yet; run `python -m scoring packets` first")
    index = read_record(index_path, PacketIndex)
    held = withheld(ctx.paths)  # media showing identity, not yet decided on
    cleared = [code for code in index.codes if code not in held]
    order = reviewer_order(load_secret(ctx.paths), reviewer, cleared)
    width = len(str(len(order)))
    folders = [(f"{n:0{width}d}-{code}", code) for n, code in enumerate(order, start=1)]
    target = ctx.paths.bundles_dir / f"{reviewer}.zip"
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp")
    with zipfile.ZipFile(tmp, "w") as archive:
        _add(archive, f"{reviewer}/index.html", render_bundle_page(folders).encode())
        sheet = ",".join(SHEET_HEADER) + "\n" + "".join(f"{code},,,\n" for code in order)
        _add(archive, f"{reviewer}/{reviewer}.csv", sheet.encode())
        for folder, code in folders:
            packet = ctx.paths.packets_dir / code
            for path in sorted(p for p in packet.rglob("*") if p.is_file()):
                rel = path.relative_to(packet).as_posix()
                _add(archive, f"{reviewer}/{folder}/{rel}", path.read_bytes())
    tmp.replace(target)
    return target
