"""Judge the built results site with the evaluator's own no-overflow and axe code.

Run as a child process inside a loopback-only network namespace (see test_site_audit.py):
`python tests/site_audit.py SITE_DIR OUT_JSON [SHOTS_DIR] [--pages a,b] [--widths 390,1440]
[--schemes default,slate]` (the options narrow the run, e.g. for the README's screenshots).
Serves the site on 127.0.0.1; it loads one page of every type at 360, 768 and 1440 px through
the evaluator's `CheckContext` (its h1 wait and settled state) and judges each load in the light
and then the dark scheme (switched by Material's own toggle, without a reload): it measures
horizontal overflow with `record_overflow` and runs axe with `ctx.axe` (serious and critical
violations, the rule set the models are judged by). The dark scheme is the same DOM in other
colours, so there axe runs only the rules that read colours (`COLOUR_RULES`). Axe is loaded from
the audit's own server (`AXE_PATH`), so Chromium compiles it once, not on every page. Writes one
record per visit as JSON; with SHOTS_DIR it also keeps a screenshot of each visit.
"""

from __future__ import annotations

import json
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evaluator.browser import AXE_JS, VIEWPORTS, RequestLog, guard_context, launch  # noqa: E402
from evaluator.checks.base import CheckContext, Facts  # noqa: E402

WIDTHS = (360, 768, 1440)
SCHEMES = ("default", "slate")
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
"""The axe rules whose verdict a colour scheme can change (every other rule reads the DOM, which
Material's scheme toggle leaves as it is)."""
AXE_PATH = "/__audit__/axe.min.js"
PHONE = (390, 844)
"""The phone whose first screen must show a result row of the leaderboard."""

CUT_TEXT_JS = """() => {
  const found = [];
  for (const cell of document.querySelectorAll('td, th')) {
    let shown = true;  // not a folded column, nor a phone's header row (kept in a 1 px clip for
    for (let up = cell; up && up.tagName !== 'TABLE'; up = up.parentElement)  // screen readers)
      if (up.getBoundingClientRect().width <= 1) shown = false;
    if (!shown) continue;
    for (const el of [cell, ...cell.querySelectorAll('*')]) {
      if (!el.clientWidth || el.scrollWidth <= el.clientWidth + 1) continue;
      const overflow = getComputedStyle(el).overflowX;
      if (overflow === 'auto' || overflow === 'scroll') continue;  // the reader can scroll it
      found.push({tag: el.tagName.toLowerCase(), text: el.textContent.trim().slice(0, 80),
                  hidden_px: el.scrollWidth - el.clientWidth});
      break;
    }
  }
  return found;
}"""
"""Text cut inside a table cell: an element wider inside than its box (`scrollWidth` above
`clientWidth`) that is not a scroll container, so part of it is hidden or spills over its
neighbours."""

FIRST_ROW_JS = """() => {
  const row = document.querySelector('table.sb-models tbody tr, table.sb-board tbody tr');
  return row ? row.getBoundingClientRect().top + window.scrollY : null;
}"""


class Handler(SimpleHTTPRequestHandler):
    """Static files as a plain web server sends them: no charset in the header, so each page
    must declare its own encoding."""

    extensions_map = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".html": "text/html",
        ".js": "application/javascript",
        ".css": "text/css",
        ".svg": "image/svg+xml",
        ".webp": "image/webp",
    }

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def translate_path(self, path: str) -> str:
        return str(AXE_JS) if path == AXE_PATH else super().translate_path(path)


def page_types(site: Path) -> list[tuple[str, str]]:
    """(label, path) of one page of every kind the site has (`agents`: an intervention round's
    only); a unit page of every status."""
    fixed = ["index", "leaderboard", "agents", "checks", "cost", "cohort", "calibration",
             "methodology", "downloads", "units/index", "rounds", "models/index"]  # fmt: skip
    pages = [(name, f"/{name}.html") for name in fixed if (site / f"{name}.html").is_file()]
    units = sorted(p for p in (site / "units").glob("*.html") if p.stem != "index")
    transcripts = [p for p in units if p.stem.endswith("-transcript")]
    pages += [(f"unit: {status}", f"/units/{unit}.html") for status, unit in unit_statuses(site)]
    if transcripts:
        biggest = max(transcripts, key=lambda p: p.stat().st_size)
        pages.append(("transcript", f"/units/{biggest.name}"))
    models = sorted(p for p in (site / "models").glob("*.html") if p.stem != "index")
    if models:  # the model with the most rounds (the biggest page)
        widest = max(models, key=lambda p: (p.stat().st_size, p.name))
        pages.append(("model", f"/models/{widest.name}"))
    viewers = sorted((site / "evidence").rglob("*.html"))
    if viewers:
        pages.append(("evidence viewer", "/" + viewers[0].relative_to(site).as_posix()))
    pages.append(("not found", "/404.html"))
    return pages


def unit_statuses(site: Path) -> list[tuple[str, str]]:
    """(status, unit) for the first unit of every status on the site's own leaderboard download
    (each status renders its own unit page: a ranked unit's numbers, an invalid unit's reason)."""
    board = json.loads((site / "downloads" / "leaderboard.json").read_text())
    first: dict[str, str] = {}
    for row in board["units"]:
        first.setdefault(row["status"], row["unit"])
    return sorted(first.items())


def use_scheme(page: Page, scheme: str) -> None:
    """Switch Material's palette with its own toggle (remembered for the next pages)."""
    current = page.evaluate("() => document.body.getAttribute('data-md-color-scheme')")
    if current in (None, scheme):
        return
    page.locator("form[data-md-component=palette] label:visible").first.click()
    page.wait_for_function(
        "s => document.body.getAttribute('data-md-color-scheme') === s", arg=scheme, timeout=3000
    )


def first_screen(ctx: CheckContext, scheme: str) -> dict[str, Any]:
    """Where the leaderboard's first result row starts on a phone (`PHONE`), from the top."""
    width, height = PHONE
    VIEWPORTS.setdefault(width, {"width": width, "height": height})
    ctx.goto("/leaderboard.html", width=width)
    top = ctx.page.evaluate(FIRST_ROW_JS)
    return {"first_screen": {"width": width, "height": height, "scheme": scheme, "row_top_px": top}}


def colour_violations(page: Page) -> list[dict[str, Any]]:
    """Serious and critical violations of axe's `COLOUR_RULES` on the whole page."""
    options = {"runOnly": {"type": "rule", "values": COLOUR_RULES}, "resultTypes": ["violations"]}
    found: list[dict[str, Any]] = page.evaluate(
        "async (options) => (await axe.run(document, options)).violations", options
    )
    return [v for v in found if v.get("impact") in ("serious", "critical")]


def judge(
    ctx: CheckContext, label: str, path: str, width: int, scheme: str, shots: Path | None
) -> dict[str, Any]:
    """The page as loaded, in `scheme`: overflow, height, cut text and axe's serious and critical
    violations (every rule in the light scheme, the colour rules in the dark one)."""
    use_scheme(ctx.page, scheme)
    ctx.settle()
    overflow = ctx.record_overflow(f"{label} {scheme}")
    violations = (
        ctx.axe(f"{label} @ {width}px {scheme}")
        if scheme == "default"
        else colour_violations(ctx.page)
    )
    if shots is not None:
        name = f"{label.replace(' ', '-').replace('/', '-')}-{width}-{scheme}.png"
        ctx.page.screenshot(path=str(shots / name), full_page=True, timeout=60_000)
    return {
        "page": label,
        "path": path,
        "width": width,
        "scheme": scheme,
        "overflow_px": overflow,
        "height_px": ctx.page.evaluate("document.documentElement.scrollHeight"),
        "cut_text": ctx.page.evaluate(CUT_TEXT_JS),
        "serious": [
            {
                "id": v["id"],
                "impact": v.get("impact"),
                "help": v.get("help"),
                "targets": [" ".join(n.get("target", [])) for n in v.get("nodes", [])][:5],
            }
            for v in violations
        ],
    }


def audit(
    site: Path,
    shots: Path | None,
    only: set[str] | None = None,
    widths: tuple[int, ...] = WIDTHS,
    schemes: tuple[str, ...] = SCHEMES,
) -> list[dict[str, Any]]:
    for width in widths:  # e.g. 390 (a phone) for the README's screenshots
        VIEWPORTS.setdefault(width, {"width": width, "height": 844 if width < 600 else 900})
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    found: list[dict[str, Any]] = []
    with sync_playwright() as pw:
        browser = launch(pw)
        context = browser.new_context()
        requests = RequestLog()
        guard_context(context, requests)
        ctx = CheckContext(context, base, None, Facts(), requests)  # type: ignore[arg-type]
        for label, path in page_types(site):
            if only is not None and label not in only:
                continue
            for width in widths:
                ctx.goto(path, width=width)
                ctx.page.add_script_tag(url=base + AXE_PATH)  # run_axe then injects nothing
                for scheme in schemes:  # one load, each scheme by Material's own toggle
                    found.append(judge(ctx, label, path, width, scheme, shots))
        if only is None or "leaderboard" in only:
            ctx.goto("/leaderboard.html", width=WIDTHS[0])
            use_scheme(ctx.page, schemes[0])
            found.append(first_screen(ctx, schemes[0]))
        found.append({"blocked": requests.blocked})
        ctx.close()
        context.close()
        browser.close()
    server.shutdown()
    return found


def main(argv: list[str]) -> int:
    options = {argv[i]: argv[i + 1] for i in range(len(argv) - 1) if argv[i].startswith("--")}
    plain = [a for i, a in enumerate(argv) if not a.startswith("--")
             and not (i and argv[i - 1].startswith("--"))]  # fmt: skip
    site, target = Path(plain[0]), Path(plain[1])
    shots = Path(plain[2]) if len(plain) > 2 else None
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
    only = set(options["--pages"].split(",")) if "--pages" in options else None
    widths = tuple(int(w) for w in options.get("--widths", "360,768,1440").split(","))
    schemes = tuple(options.get("--schemes", ",".join(SCHEMES)).split(","))
    target.write_text(json.dumps(audit(site, shots, only, widths, schemes), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
