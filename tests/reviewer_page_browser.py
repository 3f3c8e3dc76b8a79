"""Drive a packet's reviewer page from file:// in Chromium with every non-file request aborted.

Run as a child process inside a loopback-only network namespace (see test_reviewer_page.py):
`python tests/reviewer_page_browser.py PACKET_DIR OUT_JSON`. Writes what it observed as JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import Dialog, Route, sync_playwright

from evaluator.browser import CHROMIUM_ARGS
from records.tools import CHROMIUM

SCORES = {"layout": "3.5", "typography": "4", "states": "3", "responsive": "4", "motion": "2",
          "structure": "2.5", "naming": "2", "correctness": "3", "markup": "1"}  # fmt: skip


def observe(packet: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"requests": [], "blocked": [], "console_errors": [], "page_errors": []}
    out["dialogs"] = []

    def route(r: Route) -> None:
        out["requests"].append(r.request.url)
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

        def dialog(d: Dialog) -> None:
            out["dialogs"].append(d.message)
            d.dismiss()

        page.on("dialog", dialog)
        page.goto((packet / "index.html").as_uri())
        page.wait_for_load_state("load")
        page.wait_for_function("() => [...document.images].every(i => i.complete)", timeout=10000)
        out["images"] = page.evaluate(
            "() => [...document.querySelectorAll('.shot-grid img')]"
            ".map(i => ({src: i.getAttribute('src'), width: i.naturalWidth}))"
        )
        out["row_widths"] = page.evaluate(
            "() => [...document.querySelectorAll('.shot-row')].map(r =>"
            " [...r.querySelectorAll('figcaption')].map(f => f.textContent))"
        )
        page.locator(".shot-grid button").first.click()
        out["lightbox_open"] = page.evaluate("() => document.getElementById('lightbox').open")
        out["lightbox_src"] = page.locator("#lightbox-img").get_attribute("src")
        page.keyboard.press("ArrowRight")
        out["lightbox_next_src"] = page.locator("#lightbox-img").get_attribute("src")
        page.keyboard.press("Escape")
        out["lightbox_closed"] = not page.evaluate("() => document.getElementById('lightbox').open")
        page.wait_for_function(
            "() => { const v = document.querySelector('video');"
            " return v && (v.readyState > 0 || v.error) }",
            timeout=10000,
        )
        out["video"] = page.evaluate(
            "() => { const v = document.querySelector('video');"
            " return {src: v.currentSrc, readyState: v.readyState,"
            " error: v.error && v.error.code} }"
        )
        out["files"] = page.locator("#file-list li a").all_inner_texts()
        out["highlighted"] = {
            cls: page.locator(f"#diff-files .{cls}").count()
            for cls in ("t-kw", "t-str", "t-com", "t-tag", "l.add", "l.del")
        }
        out["diff_text"] = page.locator("#diff-files").inner_text()
        out["injected_images"] = page.locator("#diff-files img, #progress-text *").count()
        out["progress"] = page.locator("#progress-text").inner_text()
        out["rubric_inputs"] = page.locator("#rubric input").count()
        page.fill("#reviewer", "rev-x")
        for criterion, value in SCORES.items():
            page.fill(f"#crit-{criterion}", value)
        out["totals"] = [
            page.locator("#total-visual").inner_text(),
            page.locator("#total-code_quality").inner_text(),
        ]
        page.fill("#notes", 'clear hierarchy, "calm" colours')
        page.click("#export")
        out["csv"] = page.input_value("#csv-out")
        out["download_name"] = page.get_attribute("#download", "download")
        out["error"] = page.locator("#form-error").inner_text()
        page.reload()
        page.wait_for_load_state("load")
        out["restored_layout"] = page.input_value("#crit-layout")
        browser.close()
    return out


def main(argv: list[str]) -> int:
    packet, target = Path(argv[0]), Path(argv[1])
    target.write_text(json.dumps(observe(packet), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
