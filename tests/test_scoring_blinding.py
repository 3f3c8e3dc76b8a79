"""Blinding enforced: a packet whose screenshots or video show an identity stays out of reviewer
bundles until the operator approves or redacts its media (the decision recorded, bound to the
media bytes); while the code map is sealed the site shows no unit media beside model names."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from scoring_support import make_round, make_unit, result, session
from test_scoring_packets import signed_page_text

from publish.render import MEDIA_SEALED, media_sealed
from records.evidence.blind import CodeMap, MediaDecisions
from records.io import RecordError, read_record, write_record
from scoring.blinding import decide, withheld
from scoring.bundle import write_bundle
from scoring.codes import load_codes
from scoring.evidence import RoundContext
from scoring.packets import build_round_packets, main


def bundled_codes(ctx: RoundContext, reviewer: str = "alice") -> set[str]:
    with zipfile.ZipFile(write_bundle(ctx, reviewer)) as archive:
        sheet = archive.read(f"{reviewer}/{reviewer}.csv").decode().splitlines()[1:]
        folders = {n.split("/")[1] for n in archive.namelist() if n.count("/") > 1}
    codes = {line.split(",")[0] for line in sheet}
    assert codes == {f.split("-", 1)[1] for f in folders}  # the sheet and the packets agree
    return codes


def signed_round(tmp_path: Path) -> tuple[RoundContext, str, str]:
    """The demo's signer case: a unit whose rendered page shows its model's name, and another."""
    ctx = make_round(tmp_path)
    signer = make_unit(ctx, "strong-builder", evaluation=result())
    write_record(ctx.paths.unit(signer).page_text, signed_page_text("screenshots/home-360.png"))
    other = make_unit(ctx, "idle", session("idle", unit="idle-r1"), result())
    build_round_packets(ctx)
    codes = load_codes(ctx.paths)
    assert codes is not None
    return ctx, codes.code_of(signer), codes.code_of(other)


def test_a_packet_showing_identity_is_withheld_until_approved(tmp_path: Path) -> None:
    ctx, signed, other = signed_round(tmp_path)
    assert bundled_codes(ctx) == {other}
    assert "Northwind Builder 1" in withheld(ctx.paths)[signed]
    with pytest.raises(RecordError, match="nothing to decide"):
        decide(ctx.paths, other, "approved", "looked")
    assert main(["decide", "--round", "test", "--evidence-dir", str(tmp_path), "--code", signed,
                 "--decision", "approved", "--reason", "the name is unreadable at 360 px",
                 "--by", "ops"]) == 0  # fmt: skip
    decisions = read_record(ctx.paths.media_decisions, MediaDecisions)
    made = decisions.latest(signed)
    assert made is not None and (made.decision, made.by) == ("approved", "ops")
    assert bundled_codes(ctx) == {signed, other}
    build_round_packets(ctx)  # the same media rebuilt: the decision still holds
    assert bundled_codes(ctx) == {signed, other}


def test_a_redaction_must_change_the_media_and_a_rebuild_undoing_it_withholds_again(
    tmp_path: Path,
) -> None:
    ctx, signed, other = signed_round(tmp_path)
    with pytest.raises(RecordError, match="still the ones the packet stage built"):
        decide(ctx.paths, signed, "redacted", "blurred the footer")
    packet = ctx.paths.packets_dir / signed
    for shot in (packet / "screenshots").iterdir():
        shot.write_bytes(b"\x89PNG\r\n\x1a\n\0blurred")  # the operator's redacted copy
    decide(ctx.paths, signed, "redacted", "blurred the footer")
    assert bundled_codes(ctx) == {signed, other}
    build_round_packets(ctx)  # copies the original screenshots back: not what was decided on
    assert bundled_codes(ctx) == {other}
    assert "changed since the operator's redacted decision" in withheld(ctx.paths)[signed]


def test_unit_media_are_not_published_while_the_code_map_is_sealed() -> None:
    class Board:
        def __init__(self, code_map: CodeMap | None) -> None:
            self.code_map = code_map

    assert media_sealed(None)  # no leaderboard: nothing unsealed the map yet
    assert media_sealed(Board(CodeMap(sealed=True, reason="reviews pending")))
    assert not media_sealed(Board(CodeMap(sealed=False, reason="every review is in")))
    assert not media_sealed(Board(None))  # a leaderboard from before the code map existed
    assert "sealed" in MEDIA_SEALED
