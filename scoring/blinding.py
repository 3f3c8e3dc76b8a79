"""Blinding enforced: a packet whose screenshots or video show an identity stays out of reviewer
bundles until the operator approves it or redacts its media, the decision recorded.

The packet stage flags such a packet (`media_shows_identity` in `private/packet-report.json`,
from the page text the evaluator recorded beside each screenshot). A decision binds to the
packet's media bytes (`media_sha256`): a rebuilt packet whose screenshots or video differ (e.g. the
redacted files replaced by the originals again) is withheld until a new decision.

    python -m scoring.packets decide --round R --code C-XXXX --decision approved|redacted \\
        --reason "..." [--by NAME]
"""

from __future__ import annotations

import getpass
from datetime import UTC, datetime
from pathlib import Path

from records.evidence.blind import (
    MediaDecision,
    MediaDecisions,
    MediaVerdict,
    PacketReport,
    PacketReportEntry,
)
from records.hashing import files_sha256
from records.io import RecordError, read_record, write_record
from records.layout import RoundPaths


def media_files(packet: Path) -> list[Path]:
    """A packet's screenshots and video, in a stable order."""
    shots = sorted(p for p in (packet / "screenshots").rglob("*") if p.is_file())
    video = packet / "video.webm"
    return shots + ([video] if video.is_file() else [])


def media_sha256(packet: Path) -> str:
    return files_sha256(media_files(packet), packet)


def needs_decision(entry: PacketReportEntry) -> bool:
    return "media_shows_identity" in entry.flags


def load_decisions(paths: RoundPaths) -> MediaDecisions:
    round_id = paths.round_id
    if not paths.media_decisions.exists():
        return MediaDecisions(round_id=round_id)
    return read_record(paths.media_decisions, MediaDecisions)


def _report(paths: RoundPaths) -> PacketReport:
    if not paths.packet_report.exists():
        raise RecordError(
            f"{paths.packet_report}: missing, so no packet's media can be cleared for reviewers: "
            "rebuild the packets (`python -m scoring packets ROUND`)"
        )
    return read_record(paths.packet_report, PacketReport)


def withheld(paths: RoundPaths) -> dict[str, str]:
    """Code -> why its packet may not go to reviewers yet (empty when every packet may)."""
    decisions = load_decisions(paths)
    held: dict[str, str] = {}
    for entry in _report(paths).packets:
        if not needs_decision(entry):
            continue
        found = ", ".join(sorted({h.found for h in entry.page_hits}))
        decision = decisions.latest(entry.code)
        if decision is None:
            held[entry.code] = (
                f"its media show an identity ({found}: {', '.join(entry.media_showing_identity)})"
                "; approve or redact them: python -m scoring.packets decide"
            )
        elif decision.media_sha256 != media_sha256(paths.packets_dir / entry.code):
            held[entry.code] = (
                f"its media changed since the operator's {decision.decision} decision of "
                f"{decision.decided_at}: decide again"
            )
    return held


def decide(
    paths: RoundPaths, code: str, decision: MediaVerdict, reason: str, by: str = ""
) -> MediaDecision:
    """Record the operator's decision on a flagged packet's media as they are now."""
    entry = next((e for e in _report(paths).packets if e.code == code), None)
    if entry is None:
        raise RecordError(f"{paths.packet_report}: no packet {code}")
    if not needs_decision(entry):
        raise RecordError(f"packet {code}: its media were not flagged; there is nothing to decide")
    if not reason.strip():
        raise RecordError("a media decision needs a written reason")
    current = media_sha256(paths.packets_dir / code)
    if decision == "redacted" and current == entry.media_sha256:
        raise RecordError(
            f"packet {code}: its screenshots and video are still the ones the packet stage built; "
            f"replace {', '.join(entry.media_showing_identity)} in {paths.packets_dir / code} "
            "with redacted copies first, or approve them as they are"
        )
    record = MediaDecision(
        code=code,
        decision=decision,
        reason=reason.strip(),
        by=by.strip() or getpass.getuser(),
        decided_at=datetime.now(UTC).isoformat(timespec="seconds"),
        media_sha256=current,
    )
    decisions = load_decisions(paths)
    decisions.decisions.append(record)
    write_record(paths.media_decisions, decisions)
    return record
