"""Drive the built site from file:// in Chromium with every non-file request aborted.

Run as a child process inside a loopback-only network namespace (see test_site_browser.py):
`python tests/site_browser.py SITE_DIR OUT_JSON [SCREENSHOT_DIR]`. Writes what it observed as JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import Route, sync_playwright

from evaluator.browser import CHROMIUM_ARGS
from records.tools import CHROMIUM


def observe(site: Path, shots: Path | None) -> dict[str, Any]:
    out: dict[str, Any] = {"blocked": [], "console_errors": [], "page_errors": [], "failed": []}

    def route(r: Route) -> None:
        if r.request.url.startswith("file://"):
            r.continue_()
        else:
            out["blocked"].append(r.request.url)
            r.abort()

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1366, "height": 900})
        context.route("**/*", route)
        page = context.new_page()
        page.on(
            "console", lambda m: out["console_errors"].append(m.text) if m.type == "error" else None
        )
        page.on("pageerror", lambda e: out["page_errors"].append(str(e)))
        page.on("requestfailed", lambda r: out["failed"].append(f"{r.url} {r.failure}"))

        def shot(name: str) -> None:
            if shots is not None:
                page.screenshot(path=str(shots / f"{name}.png"), full_page=True)

        page.goto((site / "index.html").as_uri())
        page.wait_for_load_state("load")
        shot("index")
        # Search: the offline index through the vendored iframe-worker shim.
        page.click(".md-search__input", timeout=5000)
        page.keyboard.type("calibration", delay=30)  # Material searches on key events
        page.wait_for_selector(".md-search-result__item", timeout=10000)
        out["search_results"] = page.locator(".md-search-result__item").count()
        page.fill(".md-search__input", "")
        page.keyboard.type("dialog-focus", delay=30)
        page.wait_for_function(
            "() => [...document.querySelectorAll('.md-search-result__item')]"
            ".some(i => i.textContent.includes('dialog'))",
            timeout=10000,
        )
        out["search_first_dialog_focus"] = page.locator(
            ".md-search-result__item a"
        ).first.get_attribute("href")
        page.keyboard.press("Escape")

        page.goto((site / "leaderboard.html").as_uri())
        page.wait_for_load_state("load")
        shot("leaderboard")
        table = page.locator("table#leaderboard")
        units = "table#leaderboard tbody tr th.sb-name a.sb-model"  # not its "all rounds" link
        costs = "table#leaderboard tbody tr td[data-label=Cost]"
        totals = "table#leaderboard tbody tr td[data-label=Total]"
        out["order_initial"] = page.locator(units).all_inner_texts()
        header = table.locator("thead th", has_text="Cost")
        header.locator("button").click()
        out["order_after_click"] = page.locator(units).all_inner_texts()
        out["aria_sort_after_click"] = header.get_attribute("aria-sort")
        out["costs_after_click"] = page.locator(costs).all_inner_texts()
        header.locator("button").click()
        out["costs_after_second_click"] = page.locator(costs).all_inner_texts()
        out["resorted_class"] = "sb-resorted" in (table.get_attribute("class") or "")
        total = table.locator("thead th", has_text="Total")
        total.locator("button").click()
        out["aria_sort_total"] = total.get_attribute("aria-sort")
        out["totals_after_click"] = page.locator(totals).all_inner_texts()
        out["sort_icon"] = header.locator("button").evaluate(
            "b => getComputedStyle(b, '::after').content"
        )
        out["th_mask"] = header.evaluate("th => getComputedStyle(th, '::after').content")
        page.goto((site / "leaderboard.html").as_uri())
        page.wait_for_load_state("load")

        first_unit = page.locator(units).first.get_attribute("href") or ""
        page.goto((site / first_unit).as_uri())
        page.wait_for_load_state("load")
        shot("unit")
        out["lightbox_links"] = page.locator("a.glightbox").count()
        out["thumbnails"] = page.locator(".sb-shots img").evaluate_all(
            "imgs => imgs.map(i => i.currentSrc || i.src)"
        )
        page.locator("a.glightbox").first.click()
        page.wait_for_selector(
            ".glightbox-container .gslide-image img", state="visible", timeout=5000
        )
        out["lightbox_open"] = page.locator(".glightbox-container").count() > 0
        shot("lightbox")
        page.keyboard.press("Escape")
        page.wait_for_selector(".glightbox-container", state="detached", timeout=5000)

        video = page.locator("video.sb-video")
        out["video_count"] = video.count()
        if video.count():
            out["video_src"] = video.first.evaluate("v => v.currentSrc")
            out["video_poster"] = page.evaluate(
                "async () => { const v = document.querySelector('video.sb-video');"
                " const i = new Image(); i.src = v.poster; await i.decode().catch(() => null);"
                " return {src: v.poster, width: i.naturalWidth}; }"
            )
            ok = page.wait_for_function(
                "() => { const v = document.querySelector('video.sb-video');"
                " return v && (v.readyState > 0 || v.error) ? true : false }",
                timeout=10000,
            )
            out["video_ready"] = bool(ok)
            out["video_state"] = video.first.evaluate(
                "v => ({readyState: v.readyState, error: v.error && v.error.code,"
                " duration: v.duration, width: v.videoWidth})"
            )

        transcript = first_unit.replace(".html", "-transcript.html")
        page.goto((site / transcript).as_uri())
        page.wait_for_load_state("load")
        out["transcript_entries"] = page.locator("ol.sb-steps > li").count()
        for name in ("checks", "cohort", "calibration", "cost", "methodology", "downloads",
                     "units/index"):  # fmt: skip
            page.goto((site / f"{name}.html").as_uri())
            page.wait_for_load_state("load")
            shot(name.replace("/", "-"))
        browser.close()
    return out


def main(argv: list[str]) -> int:
    site, target = Path(argv[0]), Path(argv[1])
    shots = Path(argv[2]) if len(argv) > 2 else None
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(observe(site, shots), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
