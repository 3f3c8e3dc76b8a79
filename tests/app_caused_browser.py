"""Run a check whose action fails on the app's own element (child process in a loopback-only
network namespace): `python tests/app_caused_browser.py OUT_JSON` writes, per case, the check
result the browser phase's `run_check` records, as {case: {executed, passed, seen}}.

The cases are what real apps do: a consent checkbox that does not change state when clicked (its
handler re-renders it unchecked), two "Send enquiry" buttons where the contract names one, and a
"textbox" that is a plain div. Each is the app's failure, never the evaluator's; a crash of the
evaluator's own making (a Python error inside the check) stays executed=false.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import cast

from playwright.sync_api import sync_playwright

from evaluator.browser import CHROMIUM_ARGS, RequestLog
from evaluator.browser_phase import Session, run_check
from evaluator.checks.base import CheckContext, Facts
from evaluator.checks.spec import Check
from evaluator.data import load_venues
from evaluator.serve import StaticServer
from records.task import DEFAULT_TASK, load_task
from records.tools import CHROMIUM

TASK = load_task(DEFAULT_TASK)

PAGE = """<!doctype html><html lang="en"><head><title>Atlas Rooms</title></head><body><main>
<h1>Enquire</h1>
<label><input type="checkbox" id="consent"> I agree</label>
<button>Send enquiry</button><button>Send enquiry</button>
<div role="textbox" aria-label="Name">Ada</div>
</main><script>
document.getElementById('consent').addEventListener('click', (e) => e.preventDefault());
</script></body></html>"""


def _actions(ctx: CheckContext) -> dict[str, object]:
    page = ctx.page
    return {
        "checkbox-unchanged": lambda: page.get_by_role("checkbox", name="I agree").check(),
        "two-buttons": lambda: page.get_by_role("button", name="Send enquiry").click(),
        "div-textbox": lambda: page.get_by_role("textbox", name="Name").fill("Grace"),
        "our-own-bug": lambda: [][1],
    }


class _Quiet:
    hung = False

    def kill(self) -> None:  # the watchdog's budget is never reached here
        pass


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    data = load_venues(TASK.data)
    found: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "index.html").write_text(PAGE)
        with StaticServer(Path(tmp)) as server, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            context = browser.new_context()
            for case in ("checkbox-unchanged", "two-buttons", "div-textbox", "our-own-bug"):

                def run(ctx: CheckContext, case: str = case) -> None:
                    ctx.goto("/")
                    action = _actions(ctx)[case]
                    action()  # type: ignore[operator]

                check = Check(
                    id="enquiry-form", dimension="functional", points=1, run=run,
                    doc="enquiry-form: a stand-in", journey="enquiry",
        journey_critical="the stand-in action completes",
                )  # fmt: skip
                result = run_check(
                    check,
                    lambda: CheckContext(context, server.url, data, Facts(), RequestLog()),
                    cast(Session, _Quiet()),
                    60.0,
                )
                found[case] = {
                    "executed": result.executed,
                    "passed": result.passed,
                    "seen": [d.seen for d in result.diagnostics],
                    "critical": [d.journey_critical for d in result.diagnostics],
                }
            browser.close()
    out.write_text(json.dumps(found))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
