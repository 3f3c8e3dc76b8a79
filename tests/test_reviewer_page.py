"""A packet's reviewer page works from file:// with no request beyond its own folder, shows the
screenshots, lightbox, video and highlighted diff, and exports a row the ingest accepts.

The browser runs in a child process inside a loopback-only network namespace, launched with the
evaluator's Chromium flags, and aborts (and records) every request that is not a file:// URL.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from browser_support import require_browser
from media_fixture import png, webm
from scoring_support import make_round, make_unit, result

from records.io import write_record
from records.layout import REPO_ROOT
from sandbox.netns import loopback_netns_argv
from scoring.codes import load_codes
from scoring.evidence import RoundContext
from scoring.packets import build_round_packets
from scoring.pipeline import score_context
from scoring.reviews import read_reviews

pytestmark = [pytest.mark.browser, pytest.mark.slow]
DRIVER = Path(__file__).with_name("reviewer_page_browser.py")
WIDTHS = {"360x800": (360, 800, (200, 80, 60)), "768x1024": (768, 1024, (60, 140, 90)),
          "1440x900": (1440, 900, (40, 70, 160))}  # fmt: skip
DIFF = """diff --git a/src/components/VenueCard.tsx b/src/components/VenueCard.tsx
--- a/src/components/VenueCard.tsx
+++ b/src/components/VenueCard.tsx
@@ -1,3 +1,4 @@
-export function VenueCard() { return null; }
+// A card for one venue
+export function VenueCard({ name }: { name: string }) {
+  return <article className="card">{name}</article>;
+}
diff --git a/src/styles/site.css b/src/styles/site.css
--- a/src/styles/site.css
+++ b/src/styles/site.css
@@ -1 +1,2 @@
+.card { padding: 12px; color: #123456; }
+/* <img src=x onerror="fetch('http://192.0.2.1/')"></script><script>alert(1)</script> */
"""


def packet_round(tmp_path: Path) -> tuple[RoundContext, Path]:
    ctx = make_round(tmp_path)
    shots = [
        {"page": page, "state": "settled", "viewport": vp, "url": "/",
         "path": f"screenshots/{page}-{vp}.png"}
        for page in ("home", "venue") for vp in WIDTHS
    ]  # fmt: skip
    unit = make_unit(ctx, "strong-builder", evaluation=result(screenshots=shots), diff=DIFF)
    evaluation = ctx.paths.unit(unit).evaluation
    for shot in shots:
        width, height, rgb = WIDTHS[str(shot["viewport"])]
        (evaluation / str(shot["path"])).write_bytes(png(width, height, rgb))
    webm(evaluation / "video.webm")
    write_record(ctx.paths.unit(unit).result, result(screenshots=shots))
    build_round_packets(ctx)
    codes = load_codes(ctx.paths)
    assert codes is not None
    return ctx, ctx.paths.packets_dir / codes.code_of(unit)


@pytest.fixture(scope="module")
def observed(tmp_path_factory: pytest.TempPathFactory) -> tuple[RoundContext, Path, dict[str, Any]]:
    require_browser()
    root = tmp_path_factory.mktemp("review-page")
    ctx, packet = packet_round(root)
    out = root / "observed.json"
    proc = subprocess.run(
        loopback_netns_argv([sys.executable, str(DRIVER), str(packet), str(out)]),
        capture_output=True, text=True, timeout=180, cwd=REPO_ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    return ctx, packet, json.loads(out.read_text())


def test_no_request_beyond_the_packet(observed: tuple[RoundContext, Path, dict[str, Any]]) -> None:
    _, packet, seen = observed
    assert seen["blocked"] == []
    assert seen["requests"] and all(u.startswith(packet.as_uri() + "/") for u in seen["requests"])
    assert seen["console_errors"] == [] and seen["page_errors"] == []
    assert seen["dialogs"] == [] and seen["injected_images"] == 0  # diff text is only text
    assert "onerror=" in seen["diff_text"] and "<script>alert(1)</script>" in seen["diff_text"]


def test_screenshots_side_by_side_with_a_lightbox(
    observed: tuple[RoundContext, Path, dict[str, Any]],
) -> None:
    seen = observed[2]
    assert [i["width"] for i in seen["images"]] == [360, 768, 1440, 360, 768, 1440]
    assert seen["row_widths"] == [["360 px", "768 px", "1440 px"]] * 2
    assert seen["lightbox_open"] and seen["lightbox_closed"]
    assert seen["lightbox_src"] != seen["lightbox_next_src"]


def test_video_and_highlighted_diff(observed: tuple[RoundContext, Path, dict[str, Any]]) -> None:
    seen = observed[2]
    assert seen["video"]["error"] is None and seen["video"]["readyState"] > 0
    assert seen["video"]["src"].endswith("/video.webm")
    assert seen["files"] == ["src/components/VenueCard.tsx", "src/styles/site.css"]
    assert all(seen["highlighted"][k] > 0 for k in ("t-kw", "t-com", "t-tag", "l.add", "l.del"))
    assert "npm run build" in seen["progress"]


def test_the_exported_row_is_ingested(observed: tuple[RoundContext, Path, dict[str, Any]]) -> None:
    ctx, packet, seen = observed
    assert seen["rubric_inputs"] == 9 and seen["error"] == ""
    assert seen["totals"] == ["16.5", "8.5"]
    assert seen["download_name"] == "rev-x.csv" and seen["restored_layout"] == "3.5"
    sheet = ctx.paths.reviews_dir / seen["download_name"]
    sheet.parent.mkdir(parents=True, exist_ok=True)
    sheet.write_text(seen["csv"])
    [review] = read_reviews(ctx.paths.reviews_dir, {packet.name})
    assert (review.reviewer, review.code, review.visual, review.code_quality) == (
        "rev-x", packet.name, 16.5, 8.5)  # fmt: skip
    assert review.notes.startswith("visual: layout 3.5/4") and '"calm" colours' in review.notes
    row = score_context(ctx).units[0]
    assert row.breakdown is not None and row.breakdown.visual.points == 16.5
