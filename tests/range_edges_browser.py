"""Run one real check on the independent implementation (tests/fixtures/atlas-static) as written
and with one defect inside a range the contract quantifies over (child process in a
loopback-only network namespace): `python tests/range_edges_browser.py CHECK_ID OUT_JSON` writes
{case: {passed, seen, critical}} for the cases of that check, each judged by the browser phase's
`run_check`.

The defects are the ones a single sample point missed:
- mobile-nav, "band": the Menu button is hidden from 600 px while the links stay folded away
  below 768 px (360 px still works);
- url-state, "stale": the Area select is written from the URL on the first render only, so Back
  and Forward leave it showing the area of another history entry beside the right results;
- enquiry-form, "zero": 0 guests passes validation, so that boundary ends in the thank-you.

`python tests/range_edges_browser.py side-step OUT_JSON` runs a stand-in core check that times
out inside `ctx.side_step` and then in its own step: [[expected, journey_critical], ...].
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import cast

from evaluator_fixtures import materialize_static_atlas
from playwright.sync_api import sync_playwright

from evaluator.browser import CHROMIUM_ARGS, RequestLog
from evaluator.browser_phase import Session, run_check
from evaluator.checks import enquiry_form, mobile_nav, url_state
from evaluator.checks.base import CheckContext, Facts
from evaluator.checks.spec import Check
from evaluator.data import load_venues
from evaluator.serve import StaticServer
from records.task import DEFAULT_TASK, load_task
from records.tools import CHROMIUM

TASK = load_task(DEFAULT_TASK)

# check id -> (its spec, {case: [(file under static/, old text, new text)]}); "as-written" is the
# fixture unchanged (must pass).
CASES = {
    "mobile-nav": (
        mobile_nav.CHECK,
        {
            "band": [
                (
                    "app.css",
                    "@media (prefers-reduced-motion: reduce) {",
                    "@media (min-width: 600px) and (max-width: 767px) {\n"
                    "  .menu { display: none; }\n}\n"
                    "@media (prefers-reduced-motion: reduce) {",
                )
            ]
        },
    ),
    "url-state": (
        url_state.CHECK,
        {
            "stale": [
                (
                    "app.js",
                    "  form.area.value = f.area;\n",
                    "  if (!form.dataset.synced) form.area.value = f.area;\n"
                    "  form.dataset.synced = 'yes';\n",
                )
            ]
        },
    ),
    "enquiry-form": (
        enquiry_form.CHECK,
        {"zero": [("app.js", "+val('guests') >= 1 &&", "+val('guests') >= 0 &&")]},
    ),
}


class _Quiet:
    hung = False

    def kill(self) -> None:  # the watchdog's budget is never reached here
        pass


def _given(ctx: CheckContext) -> Callable[[], CheckContext]:
    return lambda: ctx


def _app(root: Path, edits: list[tuple[str, str, str]]) -> Path:
    materialize_static_atlas(root)
    static = root / "static"
    for name, old, new in edits:
        text = (static / name).read_text(encoding="utf-8")
        if text.count(old) != 1:
            raise SystemExit(f"{name}: expected exactly one {old!r}")
        (static / name).write_text(text.replace(old, new), encoding="utf-8")
    return static


def side_steps(out: Path) -> int:
    """A stand-in core check: a timeout inside `ctx.side_step`, then one in its own step."""

    def run(ctx: CheckContext) -> None:
        ctx.goto("/")
        with ctx.side_step("a validation boundary"):
            ctx.page.get_by_role("button", name="Missing").click(timeout=300)
        ctx.problem("the check goes on after its side step", "it did")
        ctx.page.get_by_role("button", name="Send enquiry").click(timeout=300)

    check = Check(
        id="enquiry-form", dimension="functional", points=1, run=run,
        doc="enquiry-form: a stand-in", journey="enquiry", journey_critical="the stand-in",
    )  # fmt: skip
    page = "<!doctype html><html lang=en><title>Atlas Rooms</title><main><h1>Hi</h1></main>"
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        (Path(tmp) / "index.html").write_text(page)
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        with StaticServer(Path(tmp)) as server:
            ctx = CheckContext(
                browser.new_context(), server.url, load_venues(TASK.data), Facts(), RequestLog()
            )
            result = run_check(check, _given(ctx), cast(Session, _Quiet()), 60.0)
        browser.close()
    found = [[d.expected, d.journey_critical] for d in result.diagnostics]
    out.write_text(json.dumps(found))
    return 0


def main(argv: list[str]) -> int:
    if argv[0] == "side-step":
        return side_steps(Path(argv[1]))
    check, cases = CASES[argv[0]]
    out = Path(argv[1])
    data = load_venues(TASK.data)
    found: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for case, edits in {"as-written": [], **cases}.items():
            static = _app(Path(tmp) / case, edits)
            with StaticServer(static) as server:
                context = browser.new_context()
                ctx = CheckContext(context, server.url, data, Facts(), RequestLog())
                result = run_check(check, _given(ctx), cast(Session, _Quiet()), 120.0)
                context.close()
            found[case] = {
                "passed": result.passed,
                "seen": [f"{d.expected} | {d.seen}" for d in result.diagnostics],
                "critical": [d.journey_critical for d in result.diagnostics],
            }
        browser.close()
    out.write_text(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
