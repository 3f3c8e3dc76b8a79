"""The browser phase, run as a child process inside a loopback-only network namespace.

    unshare -n sh -c 'ip link set lo up && exec "$@"' sh \
        python -m evaluator.browser_phase --dist DIST --out OUT --phase-json FILE \
            --data TASK_DATA --checks TASK_CHECKS_PACKAGE

It serves DIST on 127.0.0.1, launches Chromium once, runs the gate probes and the scored checks and
writes FILE (rewritten after every check, so a killed phase still leaves partial results) plus
the evidence in OUT: screenshots/, video.webm, trace.zip, axe.json, and page-text.json (each
screenshot's visible text, title, alt/aria-label/title/placeholder texts and meta tags, which the
blind-packet stage scans for identity).

The checks run on lanes (`plan_lanes`): threads, each with its own Playwright, Chromium, request
log and facts, so two checks run at once without seeing each other. The lane with the core
journeys runs them on one page of a recording context (the interaction video and the trace; a
journey's exhaustive sweep runs off the record, on a page of the other context); everything
else runs on fresh pages of a plain context. The record merges the lanes in lane order, and
`evaluate` sorts the checks into the contract's order, so the split changes no verdict. A
watchdog kills a lane's Chromium when one check exceeds its budget (a page that blocks its main
thread would otherwise hang `page.evaluate` forever); the check fails with that diagnostic and
the lane relaunches its browser for the next check.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from pydantic import Field

from evaluator.browser import CHROMIUM_ARGS, VIEWPORTS, RequestLog, axe_version, guard_context
from evaluator.check_set import check_set
from evaluator.checks.base import CheckContext, CheckStopped, Facts
from evaluator.checks.spec import Check, Probe
from evaluator.serve import StaticServer
from records.evidence.evaluation import (
    CheckResult,
    Diagnostic,
    MetaTag,
    PageText,
    PageTextRecord,
    PhaseFacts,
    PhaseRecord,
    Screenshot,
)
from records.io import RecordError, read_record, write_json, write_record
from records.layout import PAGE_TEXT_FILE, EvaluationPaths
from records.tools import CHROMIUM

CHECK_BUDGET_S = 120.0
"""Wall time per check before the watchdog calls the page hung: generous, because the sweeps take
several times longer on a machine whose cores are shared (a hang is still caught, later)."""
MAX_HANGS = 2
"""Hangs per lane before the lane's remaining checks are failed unrun."""
LANES = 3 if (os.cpu_count() or 1) >= 2 else 1
"""Checks run on this many lanes at once (threads, each with its own Chromium). One lane keeps
about one core busy (a lane waits on its page between steps: quiet windows, round trips); on two
cores two lanes kept them 74% busy and three 86%, the reference's phase 13.5 -> 12.4 s wall
(evaluator/README.md, "Speed")."""
PAGE_TEXT_CAP = 20_000
PAGE_TEXT_JS = """(cap) => {
  const all = (sel, name) => Array.from(document.querySelectorAll(sel))
    .map((e) => (e.getAttribute(name) || '').trim()).filter(Boolean);
  return {
    title: document.title || '',
    visible_text: (document.body ? document.body.innerText : '').slice(0, cap),
    alt_texts: all('[alt]', 'alt'),
    aria_labels: all('[aria-label]', 'aria-label'),
    title_attributes: all('[title]', 'title'),
    placeholders: all('[placeholder]', 'placeholder'),
    meta: Array.from(document.querySelectorAll('meta')).map((m) => ({
      name: m.getAttribute('name') || m.getAttribute('property') ||
        m.getAttribute('http-equiv') || (m.hasAttribute('charset') ? 'charset' : ''),
      content: m.getAttribute('content') || m.getAttribute('charset') || '',
    })),
  };
}"""


@dataclass
class PhaseOptions:
    dist: Path
    out: Path
    phase_json: Path
    data_file: Path
    checks_package: str
    only: list[str] | None = None
    video: bool = True
    trace: bool = True
    screenshots: bool = True
    check_budget_s: float = CHECK_BUDGET_S
    lanes: int = LANES


class PhaseState(PhaseRecord):
    """The running phase: what `.phase.json` hands back, plus the page texts (page-text.json)."""

    page_texts: list[PageText] = Field(default_factory=list, exclude=True)


class Session:
    """One Chromium with a guarded main context and (optionally) a recording context."""

    def __init__(self, pw: Playwright, opts: PhaseOptions, requests: RequestLog) -> None:
        self.pw = pw
        self.opts = opts
        self.requests = requests
        self.run_id = uuid.uuid4().hex
        self.browser: Browser = pw.chromium.launch(
            executable_path=str(CHROMIUM),
            args=[*CHROMIUM_ARGS, f"--siteos-run={self.run_id}"],
            headless=True,
            timeout=30_000,
        )
        self.main = self._context()
        self.recording: BrowserContext | None = None
        self.recording_page: Page | None = None
        self.hung = False

    def _context(self, record: bool = False) -> BrowserContext:
        options: dict[str, Any] = {
            "viewport": VIEWPORTS[1440],
            "locale": "en-US",
            "timezone_id": "Europe/Lisbon",
            "color_scheme": "light",
            "reduced_motion": "no-preference",
            "device_scale_factor": 1,
            "service_workers": "block",
        }
        if record:
            options["record_video_dir"] = str(self.opts.out / ".video")
            options["record_video_size"] = {"width": 960, "height": 600}
        context = self.browser.new_context(**options)
        guard_context(context, self.requests)
        return context

    def recording_ctx(self) -> tuple[BrowserContext, Page]:
        if self.recording is None or self.recording_page is None:
            self.recording = self._context(record=self.opts.video)
            if self.opts.trace:
                # DOM snapshots for every action; the filmstrip only when no video shows it
                # (it was most of the trace: ~350 JPEG frames of the same journeys).
                filmstrip = not self.opts.video
                self.recording.tracing.start(screenshots=filmstrip, snapshots=True, sources=False)
            self.recording_page = self.recording.new_page()
        return self.recording, self.recording_page

    def finish_recording(self) -> tuple[str | None, str | None]:
        """Stop recording; the saved video's and trace's paths (relative to the output)."""
        if self.recording is None:
            return None, None
        out = EvaluationPaths(self.opts.out)
        video_path = trace_path = None
        if self.opts.trace:
            try:
                self.recording.tracing.stop(path=str(out.trace))
                trace_path = out.relative(out.trace)
            except PlaywrightError:
                pass
        video = self.recording_page.video if self.recording_page is not None else None
        self.recording.close()
        if video is not None:
            try:
                shutil.move(video.path(), out.video)
                video_path = out.relative(out.video)
            except (PlaywrightError, OSError):
                pass
        shutil.rmtree(out.root / ".video", ignore_errors=True)
        self.recording = None
        self.recording_page = None
        return video_path, trace_path

    def kill(self) -> None:
        """Kill this session's Chromium (found by its unique run flag)."""
        self.hung = True
        marker = f"--siteos-run={self.run_id}".encode()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if marker in (entry / "cmdline").read_bytes():
                    os.kill(int(entry.name), signal.SIGKILL)
            except (OSError, ProcessLookupError):
                continue

    def close(self) -> None:
        with contextlib.suppress(PlaywrightError):
            self.browser.close()


def _path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def page_text(page: Page, shot: Screenshot) -> PageText | None:
    """The text the page of `shot` carries (None when the page no longer answers)."""
    try:
        data = page.evaluate(PAGE_TEXT_JS, PAGE_TEXT_CAP)
    except PlaywrightError:
        return None
    meta = [MetaTag(name=str(m["name"]), content=str(m["content"])) for m in data.pop("meta")]
    return PageText(
        screenshot=shot.path,
        page=shot.page,
        state=shot.state,
        viewport=shot.viewport,
        url=shot.url,
        meta=meta,
        **data,
    )


# Playwright errors that report what the app's own element did or is, not a browser or evaluator
# fault: a checkbox that does not change state when clicked, two elements where the contract names
# one, an element removed mid-action, a control that is not the kind its role claims. Each fails
# the check's assertion (a journey-critical one in a core check); any other error stays ours.
APP_CAUSED_ERRORS = (
    "did not change its state",
    "strict mode violation",
    "Element is not connected",
    "Not a checkbox or radio button",
    "Element is not an <input>",
    "Element is not a <select> element",
    "cannot be filled",
    "Cannot type text into",
)


def app_caused(exc: BaseException) -> bool:
    """Whether a Playwright error reports the app's element, not a failure of ours."""
    return isinstance(exc, PlaywrightError) and any(s in str(exc) for s in APP_CAUSED_ERRORS)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


class Watchdog:
    """Calls `kill` once a check has run for `budget_s`, not counting the time `excused()` grew
    by meanwhile (measuring shared visits for later checks is their work, not this check's)."""

    def __init__(self, budget_s: float, kill: Callable[[], None], excused: Callable[[], float]):
        self.budget_s = budget_s
        self.kill = kill
        self.excused = excused
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        started = time.monotonic()
        excused_at_start = self.excused()
        while True:
            spent = time.monotonic() - started - (self.excused() - excused_at_start)
            if self.stopped.wait(max(0.05, min(0.25, self.budget_s - spent))):
                return
            if time.monotonic() - started - (self.excused() - excused_at_start) >= self.budget_s:
                self.kill()
                return

    def start(self) -> None:
        self.thread.start()

    def cancel(self) -> None:
        self.stopped.set()


def run_check(
    check: Check,
    make_ctx: Callable[[], CheckContext],
    session: Session,
    budget_s: float,
    excused: Callable[[], float] = lambda: 0.0,
) -> CheckResult:
    started = time.monotonic()
    diagnostics: list[Diagnostic] = []
    executed = True
    timer = Watchdog(budget_s, session.kill, excused)
    timer.start()
    ctx: CheckContext | None = None
    try:
        ctx = make_ctx()
        check.run(ctx)
    except CheckStopped:
        pass
    except PlaywrightTimeoutError as exc:
        if ctx is not None:
            # The check could not finish its journey: for a core check the journey is not done.
            ctx.problem(
                "the page responds to the check's action in time",
                f"timed out: {_first_line(exc)}",
                critical=check.journey is not None,  # none beside the journey (`side_step`)
            )
    except Exception as exc:  # noqa: BLE001 - classify below
        if session.hung:
            pass
        elif ctx is not None and app_caused(exc):
            ctx.problem(
                "the app's element accepts the check's action as its role promises",
                f"the action failed on the app's element: {_first_line(exc)}",
                critical=check.journey is not None,
            )
        else:
            executed = False
            diagnostics.append(
                Diagnostic(
                    expected="the check runs to completion",
                    seen=f"evaluator/browser failure: {type(exc).__name__}: {_first_line(exc)}",
                    url=ctx.path() if ctx is not None and not ctx.page.is_closed() else None,
                )
            )
            traceback.print_exc()
    finally:
        timer.cancel()
        if ctx is not None:
            diagnostics = ctx.diagnostics + diagnostics
            if not session.hung:
                with contextlib.suppress(PlaywrightError):
                    ctx.close()
    if session.hung:
        executed = True
        diagnostics.append(
            Diagnostic(
                expected=f"the page stays responsive (each check gets {budget_s:.0f} s)",
                seen="the page stopped responding (a script blocking the main thread, or an "
                "endless render loop); the browser was killed",
                journey_critical=check.journey is not None,
            )
        )
    return check.result(diagnostics, executed, round(time.monotonic() - started, 2))


def plan_lanes(selected: list[Check], lanes: int, screenshots: bool = False) -> list[list[Check]]:
    """Which checks run on which lane, in order: the same split for every submission, from each
    check's `placement` (`evaluator.checks.spec.Placement`).

    One lane runs everything (core journeys first). With two, lane 0 runs the gate probes, the
    core journeys (one recorded page: one coherent video) and the long sweeps; lane 1 runs the
    rest, the "visits" checks first, then the checks that judge their shared visits, which must
    stay on one lane with them and after them. With three, lane 0 runs the probes and the core
    journeys, lane 1 the "visits" checks, the checks that judge their visits and (without
    screenshots) the "after-visits" ones, lane 2 the rest (the long sweeps first): about the same
    wall time each on atlas-rooms' reference. With screenshots, the "visits" checks take them all,
    so the "after-visits" ones move to lane 2.
    """
    core = [c for c in selected if c.journey]
    rest = [c for c in selected if not c.journey]
    rest.sort(key=lambda c: c.placement != "visits")  # stable: otherwise the contract's order
    if lanes <= 1:
        return [core + rest]
    if lanes == 2:
        first = core + [c for c in rest if c.placement == "sweep"]
        second = [c for c in rest if c.placement != "sweep"]
        return [first, second] if second else [first]
    joins = {"visits"} if screenshots else {"visits", "after-visits"}
    visits = [c for c in rest if c.placement in joins or c.shared_visits]
    others = [c for c in rest if c not in visits]
    others.sort(key=lambda c: c.placement != "sweep")
    return [lane for lane in (core, visits, others) if lane]


class Lane:
    """One worker: its own Playwright, Chromium, request log, facts and results, so that nothing a
    check measures depends on what another lane is doing at the same moment."""

    def __init__(self, index: int, checks: list[Check], opts: PhaseOptions, data: Any):
        self.index = index
        self.checks = checks
        self.opts = opts
        self.data = data
        self.facts = Facts()
        self.facts.collectors = {c.id: c.shared_visits(data) for c in checks if c.shared_visits}
        self.requests = RequestLog()
        self.results: list[CheckResult] = []
        self.probes: dict[str, dict[str, Any]] = {}
        self.screenshots: list[Screenshot] = []
        self.page_texts: list[PageText] = []
        self.evidence_s = 0.0
        self.video: str | None = None
        self.trace: str | None = None
        self.versions: dict[str, str | None] = {}
        self.hangs = 0
        self.error: BaseException | None = None

    def shooter(self, page: Page, name: str, view_state: str, viewport: str, full: bool) -> None:
        if not self.opts.screenshots:
            return
        shots = self.opts.out / "screenshots"
        shots.mkdir(parents=True, exist_ok=True)
        file = shots / f"{name}--{view_state}--{viewport}.png"
        started = time.monotonic()
        try:
            page.screenshot(
                path=str(file),
                full_page=full,
                animations="disabled",
                caret="hide",
                timeout=15_000,
            )
        except PlaywrightError:
            return
        shot = Screenshot(
            page=name,
            state=view_state,
            viewport=viewport,
            path=f"screenshots/{file.name}",
            url=_path_of(page.url),
        )
        text = page_text(page, shot)
        if text is not None:
            self.page_texts.append(text)
        self.evidence_s += time.monotonic() - started
        self.screenshots.append(shot)

    def run(self, server_url: str, probes: Mapping[str, Probe], saved: Callable[[], None]) -> None:
        """Run the gate probes `probes` (gate id -> probe), then this lane's checks; `saved`
        after each."""
        with sync_playwright() as pw:
            session = Session(pw, self.opts, self.requests)
            self.versions["chromium"] = session.browser.version
            core_ids = {c.id for c in self.checks if c.journey}

            def main_ctx() -> CheckContext:
                ctx = CheckContext(session.main, server_url, self.data, self.facts, self.requests)
                ctx.shooter = self.shooter
                return ctx

            def core_ctx() -> CheckContext:
                context, page = session.recording_ctx()
                return CheckContext(
                    context,
                    server_url,
                    self.data,
                    self.facts,
                    self.requests,
                    page=page,
                    unrecorded=session.main,
                )

            def relaunch() -> None:
                nonlocal session
                session.close()
                session = Session(pw, self.opts, self.requests)

            if probes:
                for name, probe in probes.items():
                    self.probes[name] = run_probe(probe, main_ctx, session, self.opts)
                    if session.hung:
                        self.hangs += 1
                        relaunch()
                saved()
            for position, check in enumerate(self.checks):
                if self.hangs >= MAX_HANGS:
                    result = not_run_after_hangs(check, self.hangs)
                else:
                    maker = core_ctx if check.id in core_ids else main_ctx
                    result = run_check(
                        check, maker, session, self.opts.check_budget_s, lambda: self.facts.shared_s
                    )
                    if session.hung:
                        self.hangs += 1
                        relaunch()
                self.results.append(result)
                if check.id in core_ids and not any(
                    c.id in core_ids for c in self.checks[position + 1 :]
                ):
                    self.video, self.trace = session.finish_recording()
                saved()
            video, trace = session.finish_recording()
            self.video, self.trace = self.video or video, self.trace or trace
            session.close()


def run_probe(
    probe: Callable[[CheckContext], str | None],
    make_ctx: Callable[[], CheckContext],
    session: Session,
    opts: PhaseOptions,
) -> dict[str, Any]:
    """One gate probe's outcome: failed and why (or our own failure, unless the page hung)."""
    timer = threading.Timer(opts.check_budget_s, session.kill)
    timer.start()
    try:
        ctx = make_ctx()
        reason = probe(ctx)
        ctx.close()
        return {"failed": reason is not None, "reason": reason or ""}
    except CheckStopped as exc:
        return {"failed": True, "reason": str(exc)}
    except PlaywrightTimeoutError as exc:
        return {"failed": True, "reason": f"timed out: {_first_line(exc)}"}
    except Exception as exc:  # noqa: BLE001 - our own failure, unless the page hung or the app's
        if app_caused(exc) and not session.hung:
            return {"failed": True, "reason": f"the app's element: {_first_line(exc)}"}
        if not session.hung:
            traceback.print_exc()
        why = "the page stopped responding" if session.hung else _first_line(exc)
        return {"failed": session.hung, "reason": why, "evaluator_error": not session.hung}
    finally:
        timer.cancel()


def not_run_after_hangs(check: Check, hangs: int) -> CheckResult:
    return check.result(
        [
            Diagnostic(
                expected="a responsive page",
                seen=f"not run: the page hung {hangs} times already",
                journey_critical=check.journey is not None,
            )
        ]
    )


def merge_lanes(state: PhaseState, lanes: list[Lane]) -> None:
    """The phase's record from its lanes, in lane order (the same for every run)."""
    state.checks = [r for lane in lanes for r in lane.results]
    state.probes = {k: v for lane in lanes for k, v in lane.probes.items()}
    state.screenshots = [s for lane in lanes for s in lane.screenshots]
    state.page_texts = [t for lane in lanes for t in lane.page_texts]
    state.video = next((lane.video for lane in lanes if lane.video), None)
    state.trace = next((lane.trace for lane in lanes if lane.trace), None)
    widest: dict[str, Any] = {"px": 0}
    for lane in lanes:
        if lane.facts.max_overflow.get("px", 0) > widest.get("px", 0):
            widest = lane.facts.max_overflow
    unsettled = {u for lane in lanes for u in lane.facts.unsettled}
    state.facts = PhaseFacts(max_overflow=widest, unsettled=sorted(unsettled))
    state.blocked_requests = sorted({u for lane in lanes for u in lane.requests.blocked})
    evidence_s = sum(lane.evidence_s for lane in lanes)
    if evidence_s:
        state.timings["evidence_s"] = round(evidence_s, 3)
    for lane in lanes:
        for name, version in lane.versions.items():
            state.versions.setdefault(name, version)


def run_phase(opts: PhaseOptions) -> PhaseState:
    state = PhaseState()
    opts.out.mkdir(parents=True, exist_ok=True)
    write_record(opts.out / PAGE_TEXT_FILE, PageTextRecord())  # no stale page text
    found = check_set(opts.checks_package)
    data = found.load_data(opts.data_file)
    t_start = time.monotonic()
    state.versions = {"playwright": metadata.version("playwright"), "axe-core": axe_version()}
    selected = [c for c in found.checks if opts.only is None or c.id in opts.only]
    lanes = [
        Lane(i, checks, opts, data)
        for i, checks in enumerate(plan_lanes(selected, opts.lanes, opts.screenshots) or [[]])
    ]
    lock = threading.Lock()

    def save() -> None:
        with lock:
            merge_lanes(state, lanes)
            write_record(opts.phase_json, _state_json(state))
            write_record(opts.out / PAGE_TEXT_FILE, PageTextRecord(pages=state.page_texts))

    def work(lane: Lane, url: str) -> None:
        try:
            lane.run(url, probes=found.probes if lane.index == 0 else {}, saved=save)
        except BaseException as exc:  # noqa: BLE001 - re-raised by the main thread
            lane.error = exc

    with StaticServer(opts.dist) as server:
        t_checks = time.monotonic()
        threads = [
            threading.Thread(target=work, args=(lane, server.url), name=f"lane-{lane.index}")
            for lane in lanes[1:]
        ]
        for thread in threads:
            thread.start()
        work(lanes[0], server.url)
        for thread in threads:
            thread.join()
        state.timings["checks_s"] = round(time.monotonic() - t_checks, 2)
    for lane in lanes:
        if lane.error is not None:
            raise lane.error
    state.timings["shared_visits_s"] = round(sum(lane.facts.shared_s for lane in lanes), 2)
    files = EvaluationPaths(opts.out)
    write_json(files.axe, [run for lane in lanes for run in lane.facts.axe_runs])
    state.axe = files.relative(files.axe)
    state.timings["browser_s"] = round(time.monotonic() - t_start, 2)
    state.complete = True
    save()
    return state


def _state_json(state: PhaseState) -> PhaseRecord:
    return PhaseRecord.model_validate(state.model_dump())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluator.browser_phase")
    parser.add_argument("--dist", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--phase-json", type=Path, required=True)
    parser.add_argument("--data", type=Path, required=True, help="the task's frozen data")
    parser.add_argument("--checks", required=True, help="the task's checks package")
    parser.add_argument("--only", default="")
    parser.add_argument("--no-video", action="store_true")
    parser.add_argument("--no-trace", action="store_true")
    parser.add_argument("--no-screenshots", action="store_true")
    parser.add_argument("--check-budget", type=float, default=CHECK_BUDGET_S)
    parser.add_argument("--lanes", type=int, default=LANES, help="checks run this many at once")
    args = parser.parse_args(argv)
    opts = PhaseOptions(
        dist=args.dist,
        out=args.out,
        phase_json=args.phase_json,
        data_file=args.data,
        checks_package=args.checks,
        only=[x for x in args.only.split(",") if x] or None,
        video=not args.no_video,
        trace=not args.no_trace,
        screenshots=not args.no_screenshots,
        check_budget_s=args.check_budget,
        lanes=args.lanes,
    )
    try:
        run_phase(opts)
    except Exception as exc:  # noqa: BLE001 - reported to the parent through the phase file
        traceback.print_exc()
        try:
            existing = read_record(opts.phase_json, PhaseRecord)
        except RecordError:
            existing = PhaseRecord()
        failed = {"complete": False, "error": f"{type(exc).__name__}: {_first_line(exc)}"}
        write_record(opts.phase_json, existing.model_copy(update=failed))
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
