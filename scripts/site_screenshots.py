"""The site's screenshots in `docs/screenshots/` (not a test): the first screen of the leaderboard
(its headline) and of its review-stability section, of one unit page per unit status and of the
longest transcript, on a phone (390x844) and a laptop (1440x900), in real Chromium (light
scheme) inside a loopback-only network namespace.

    .venv/bin/python scripts/site_screenshots.py SITE_DIR EVIDENCE_DIR [ROUND] [--out DIR]

SITE_DIR is a built site (e.g. `build/site` after `./scripts/demo`), EVIDENCE_DIR the evidence
it was built from (its leaderboard.json says each unit's status). An intervention round's site
(`build/site` after `./scripts/demo-intervention`, ROUND demo-intervention) gives its leaderboard
and its agents compared page instead, a repeated round's (ROUND demo-round-1) its leaderboard as
`round-1-*`. Images are 256-colour PNGs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from records.evidence.scoring import Leaderboard  # noqa: E402
from records.io import read_record  # noqa: E402
from records.layout import round_paths  # noqa: E402
from sandbox.netns import loopback_netns_argv  # noqa: E402

SCREENS = {"phone": (390, 844), "laptop": (1440, 900)}


def pages(site: Path, board: Leaderboard) -> dict[str, str]:
    """Screenshot name -> site path: the leaderboard (its headline first, then how sure its
    reviews are), a unit of each status, a transcript; of an intervention round, its leaderboard
    and its agents compared, named `intervention-*`; of a repeated round, its leaderboard,
    named `round-1-*`."""
    stability = "leaderboard.html#review-stability"
    if any(row.agent for row in board.units):
        return {f"intervention-{name}": f"{name}.html" for name in ("leaderboard", "agents")}
    if any(row.repetition > 1 for row in board.units):
        return {"round-1-leaderboard": "leaderboard.html", "round-1-reviews": stability}
    chosen = {"leaderboard": "leaderboard.html", "leaderboard-reviews": stability}
    for row in board.units:
        name = f"unit-{row.status.replace('_', '-')}"
        if name not in chosen and (site / "units" / f"{row.unit}.html").is_file():
            chosen[name] = f"units/{row.unit}.html"
    transcripts = sorted(
        (site / "units").glob("*-transcript.html"), key=lambda p: -p.stat().st_size
    )
    if transcripts:
        chosen["transcript"] = f"units/{transcripts[0].name}"
    return chosen


def shoot(site: Path, out: Path, chosen: dict[str, str]) -> None:
    from PIL import Image
    from playwright.sync_api import sync_playwright

    from evaluator.browser import launch
    from evaluator.serve import StaticServer

    out.mkdir(parents=True, exist_ok=True)
    with StaticServer(site) as server, sync_playwright() as pw:
        browser = launch(pw)
        for screen, (width, height) in SCREENS.items():
            context = browser.new_context(viewport={"width": width, "height": height})
            page = context.new_page()
            for name, path in chosen.items():
                page.goto(f"{server.url}/{path}", wait_until="load")
                page.wait_for_timeout(600)  # the header's title swap after a jump to an anchor
                target = out / f"{name}-{width}.png"
                page.screenshot(path=str(target))
                with Image.open(target) as image:
                    image.convert("RGB").quantize(256).save(target, optimize=True)
                print(f"{screen:6} {target.relative_to(out.parent)}  {path}")
            context.close()
        browser.close()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("evidence", type=Path)
    parser.add_argument("round", nargs="?", default="demo")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args(argv)
    if os.environ.get("SITEOS_SCREENSHOTS_INSIDE") != "1":  # run again inside the namespace
        env = dict(os.environ, SITEOS_SCREENSHOTS_INSIDE="1")
        argv_inside = [sys.executable, __file__, *argv]
        return subprocess.run(loopback_netns_argv(argv_inside), env=env, check=False).returncode
    board = read_record(round_paths(args.round, args.evidence).leaderboard, Leaderboard)
    shoot(args.site, args.out, pages(args.site, board))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
