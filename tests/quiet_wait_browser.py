"""Run `evaluator.browser.wait_quiet` on small pages (child process in a loopback-only network
namespace): `python tests/quiet_wait_browser.py OUT_JSON` writes {case: [quiet, seconds,
history.length after the wait]}."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from evaluator.browser import CHROMIUM_ARGS, wait_quiet
from records.tools import CHROMIUM

STILL = "<!doctype html><main><h1>Rooms</h1></main>"
# Changes the DOM on every frame: never quiet.
RESTLESS = """<!doctype html><main><h1>Rooms</h1><p id="n">0</p></main><script>
const p = document.getElementById('n');
const tick = () => {
  p.textContent = String(Number(p.textContent) + 1);
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
</script>"""
# Pushes a history entry 20 ms after load, inside the quiet window: the window starts again.
LATE_PUSH = """<!doctype html><main><h1>Rooms</h1></main><script>
setTimeout(() => history.pushState({}, '', '#again'), 20);
</script>"""
# Keeps changing, then replaces its document 100 ms after load (a full navigation during the
# wait, which cannot have ended quietly before it).
NAVIGATES = """<!doctype html><main><h1>Rooms</h1><p id="n">0</p></main><script>
const p = document.getElementById('n');
setInterval(() => { p.textContent = String(Number(p.textContent) + 1); }, 5);
setTimeout(() => location.replace('about:blank'), 100);
</script>"""
CASES = {"still": STILL, "restless": RESTLESS, "late-push": LATE_PUSH, "navigates": NAVIGATES}
MAX_MS = 1000


def main(argv: list[str]) -> int:
    found: dict[str, tuple[bool, float, int]] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for name, html in CASES.items():
            page = browser.new_page()
            page.set_content(html)
            started = time.monotonic()
            quiet = wait_quiet(page, MAX_MS)
            seconds = round(time.monotonic() - started, 3)
            found[name] = (quiet, seconds, page.evaluate("() => history.length"))
            page.close()
        browser.close()
    Path(argv[0]).write_text(json.dumps(found))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
