"""Run the real dialog-focus check on a correct but slow app (child process in a loopback-only
network namespace): `python tests/slow_app_browser.py OUT_JSON DELAY_MS [BLOCK_MS]` writes the
check's diagnostics as [[expected, seen], ...].

The app is what a loaded machine makes of a correct one: every reaction the contract asks for
(focus into the dialog, the dialog closing, focus back on "Enquire about this venue") arrives
DELAY_MS late, and the click on "Enquire about this venue" holds the main thread for BLOCK_MS (a
re-render on a busy machine), so the click itself takes that long to complete. A check whose
waits end on the observed condition within a generous ceiling passes it; one with a short
ceiling blames the app for the machine's speed.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from evaluator.browser import CHROMIUM_ARGS, RequestLog
from evaluator.checks import dialog_focus
from evaluator.checks.base import CheckContext, Facts
from evaluator.data import load_venues
from evaluator.serve import StaticServer
from records.task import DEFAULT_TASK, load_task
from records.tools import CHROMIUM

TASK = load_task(DEFAULT_TASK)

PAGE = """<!doctype html><html lang="en"><head><title>Atlas Rooms</title></head><body><main>
<h1>A slow room</h1><button id="enquire">Enquire about this venue</button>
<div id="dialog" role="dialog" aria-modal="true" aria-label="Enquire about a slow room" hidden>
<button id="close">Close</button><label>Name <input></label><button>Send enquiry</button>
</div></main><script>
const DELAY = __DELAY__, BLOCK = __BLOCK__;
const dialog = document.getElementById('dialog');
const enquire = document.getElementById('enquire');
const later = (fn) => setTimeout(fn, DELAY);
const items = () => [...dialog.querySelectorAll('button, input')];
function open() {
  const busyUntil = Date.now() + BLOCK;
  while (Date.now() < busyUntil) { /* the handler's work, on a loaded machine */ }
  dialog.hidden = false;
  later(() => dialog.querySelector('input').focus());
}
function close() {
  later(() => { dialog.hidden = true; later(() => enquire.focus()); });
}
enquire.addEventListener('click', open);
document.getElementById('close').addEventListener('click', close);
document.addEventListener('keydown', (event) => {
  if (dialog.hidden) return;
  if (event.key === 'Escape') { close(); return; }
  if (event.key !== 'Tab') return;
  const all = items(), first = all[0], last = all[all.length - 1];
  const here = document.activeElement;
  if (event.shiftKey && (here === first || !dialog.contains(here))) {
    event.preventDefault(); last.focus();
  } else if (!event.shiftKey && (here === last || !dialog.contains(here))) {
    event.preventDefault(); first.focus();
  }
});
</script></body></html>"""


def main(argv: list[str]) -> int:
    out, delay, block = Path(argv[0]), int(argv[1]), int(argv[2]) if len(argv) > 2 else 0
    data = load_venues(TASK.data)
    with tempfile.TemporaryDirectory() as tmp:
        page = PAGE.replace("__DELAY__", str(delay)).replace("__BLOCK__", str(block))
        (Path(tmp) / "index.html").write_text(page)
        with StaticServer(Path(tmp)) as server, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            context = browser.new_context()
            ctx = CheckContext(context, server.url, data, Facts(), RequestLog())
            dialog_focus.run(ctx)
            found = [[d.expected, d.seen] for d in ctx.diagnostics]
            browser.close()
    out.write_text(json.dumps(found))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
