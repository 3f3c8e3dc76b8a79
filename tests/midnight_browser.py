"""Run `evaluator.checks._dialog.clear_of_midnight` on a page whose clock reads 1.5 s before
midnight, and on one at noon (child process in a loopback-only network namespace):
`python tests/midnight_browser.py OUT_JSON` writes {case: [seconds waited, the page's date
before, the page's date after]}."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from zoneinfo import ZoneInfo

from playwright.sync_api import sync_playwright

from evaluator.browser import CHROMIUM_ARGS
from evaluator.checks._dialog import clear_of_midnight, tomorrow_iso
from records.tools import CHROMIUM

LISBON = ZoneInfo("Europe/Lisbon")
CASES = {
    "before-midnight": datetime(2026, 12, 5, 23, 59, 58, 500_000, tzinfo=LISBON),
    "noon": datetime(2026, 12, 5, 12, 0, 0, tzinfo=LISBON),
}


def main(argv: list[str]) -> int:
    found: dict[str, tuple[float, str, str]] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for name, now in CASES.items():
            context = browser.new_context(timezone_id="Europe/Lisbon")
            context.clock.install(time=now)
            page = context.new_page()
            page.set_content("<!doctype html><main><h1>Rooms</h1></main>")
            ctx = SimpleNamespace(page=page)
            before = tomorrow_iso(ctx, 0)  # type: ignore[arg-type]
            waited = clear_of_midnight(ctx, margin_s=5)  # type: ignore[arg-type]
            found[name] = (waited, before, tomorrow_iso(ctx, 0))  # type: ignore[arg-type]
            context.close()
        browser.close()
    Path(argv[0]).write_text(json.dumps(found))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
