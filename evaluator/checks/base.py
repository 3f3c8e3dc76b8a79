"""The check framework: the context every check receives, diagnostics and shared DOM helpers.

A check module exports one `CHECK = Check(...)` (`evaluator/checks/spec.py`) whose `run(ctx)`
records problems with `ctx.problem(...)` (or stops with `ctx.stop(...)`).
No problems means passed (all points); any problem means failed (no points). An exception that
is not a `CheckStopped` or a Playwright timeout is a browser/runtime failure: executed=false.

Checks find things only by role, accessible name, label, URL and the frozen data file.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import BrowserContext, Locator, Page
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from evaluator.browser import (
    READER_TEXT_JS,
    SETTLE_TIMEOUT_MS,
    RequestLog,
    reader_text,
    run_axe,
    settle,
    viewport_size,
)
from evaluator.checks._waits import LOOKUP_MS
from evaluator.data import VenueData
from records.evidence.evaluation import Diagnostic

H1_TIMEOUT_MS = 3000


class CheckStopped(Exception):
    """Raised by `ctx.stop`: the check cannot continue (a model failure, already recorded)."""


@dataclass
class SideStep:
    """One step of a core check that is not its journey's own action (`CheckContext.side_step`):
    `failed` once it timed out or stopped, so the check can put the page back in a known state."""

    name: str
    failed: bool = False


@dataclass
class Facts:
    """Measurements shared with the gates and the evidence writer."""

    max_overflow: dict[str, Any] = field(default_factory=lambda: {"px": 0})
    axe_runs: list[dict[str, Any]] = field(default_factory=list)
    unsettled: list[str] = field(default_factory=list)
    # Shared settled visits (see `CheckContext.share_visit`): per later check, the states it
    # wants measured and how; what was measured, per (check id, visit key); and the time spent
    # measuring for other checks (not charged to the visiting check's watchdog budget).
    collectors: dict[str, dict[str, Callable[[CheckContext], Any]]] = field(default_factory=dict)
    shared: dict[tuple[str, str], SharedVisit] = field(default_factory=dict)
    shared_s: float = 0.0


@dataclass
class SharedVisit:
    """What a later check measured on another check's settled visit, and where."""

    value: Any
    url: str
    viewport: str


def visit_key(path: str, width: int, state: str = "page") -> str:
    """Names one settled state: a path loaded at a width, then brought to `state`."""
    return f"{path} @ {width}px [{state}]"


class CheckContext:
    def __init__(
        self,
        context: BrowserContext,
        base_url: str,
        data: VenueData,
        facts: Facts,
        requests: RequestLog,
        page: Page | None = None,
        unrecorded: BrowserContext | None = None,
    ) -> None:
        self.context = context
        self.unrecorded = unrecorded
        self.base_url = base_url.rstrip("/")
        self.data = data
        self.facts = facts
        self.requests = requests
        self._own_page = page is None
        self.page: Page = page if page is not None else context.new_page()
        self.page.set_default_timeout(LOOKUP_MS)  # actions pass ACTION_MS
        self.width = 1440
        self.diagnostics: list[Diagnostic] = []
        self.shooter: Callable[[Page, str, str, str, bool], None] | None = None
        self.beside_journey: str | None = None
        """The side step running now (or that an unexpected error escaped from): while set, no
        diagnostic is journey-critical (`run_check` reads it for the errors it classifies)."""

    def snap(self, name: str, state: str, full_page: bool = True) -> None:
        """Keep a screenshot of the current (settled) state as evidence, when enabled."""
        if self.shooter is not None:
            self.shooter(self.page, name, state, self.viewport, full_page)

    def close(self) -> None:
        if self._own_page:
            self.page.close()

    @contextlib.contextmanager
    def off_the_record(self) -> Iterator[CheckContext]:
        """A fresh page outside the journeys' recording (the browser's plain context), for a
        core journey's exhaustive sweep: the video and trace keep the visitor's steps, and the
        sweep runs at the speed of an unrecorded page. Its problems are this check's."""
        side = CheckContext(
            self.unrecorded or self.context, self.base_url, self.data, self.facts, self.requests
        )
        side.width = self.width
        try:
            yield side
        finally:
            self.diagnostics.extend(side.diagnostics)
            with contextlib.suppress(PlaywrightError):
                side.close()

    @contextlib.contextmanager
    def side_step(self, name: str) -> Iterator[SideStep]:
        """A step beside the core journey (a validation boundary before the valid enquiry): its
        problems, a timeout or a `stop` in it included, are that step's failure, named by it and
        never journey-critical, and the check goes on (a timeout is a journey failure only in
        the journey's own step). Any other error leaves `beside_journey` set for `run_check`."""
        step = SideStep(name)
        outer, self.beside_journey = self.beside_journey, name
        try:
            yield step
        except PlaywrightTimeoutError as exc:
            step.failed = True
            lines = str(exc).strip().splitlines()
            self.problem(
                f"{name}: the page responds to the check's action in time",
                f"timed out: {lines[0][:300] if lines else 'TimeoutError'}",
            )
        except CheckStopped:
            step.failed = True
        self.beside_journey = outer  # not reached when another error escapes

    # -- navigation ---------------------------------------------------------------------------
    @property
    def viewport(self) -> str:
        size = viewport_size(self.width)
        return f"{size['width']}x{size['height']}"

    def set_width(self, width: int) -> None:
        self.width = width
        self.page.set_viewport_size(viewport_size(width))

    def url(self, path: str) -> str:
        return self.base_url + path

    def goto(self, path: str, width: int | None = None) -> None:
        if width is not None and width != self.width:
            self.set_width(width)
        elif width is None:
            self.page.set_viewport_size(viewport_size(self.width))
        self.page.goto(self.url(path), wait_until="load", timeout=15_000)
        # Client-rendered pages may render after load (e.g. after fetching data): every page
        # has an h1, so wait briefly for one before judging anything.
        self.wait_for_h1(H1_TIMEOUT_MS)
        self.settle()

    def wait_for_h1(self, timeout_ms: int) -> None:
        """Wait until an h1 is attached (at most `timeout_ms`), noticed as soon as it appears.

        The page itself watches for the h1 (a mutation observer plus a short poll for open
        shadow roots), so the wait ends on the mutation, not on the next of Playwright's
        widening selector retries. If the document is replaced meanwhile (a client redirect)
        Playwright's own selector wait covers the rest of the time.
        """
        started = time.monotonic()
        with contextlib.suppress(PlaywrightError):
            if self.page.evaluate(WAIT_H1_JS, timeout_ms):
                return
        left_ms = timeout_ms - (time.monotonic() - started) * 1000
        if left_ms >= 1:
            with contextlib.suppress(PlaywrightError):
                self.page.wait_for_selector("h1", state="attached", timeout=left_ms)

    def settle(self) -> None:
        # A page that never settles would cost the full wait on every load: after three such
        # pages the wait drops to half a second (the pages are reported in `unsettled`).
        timeout_ms = SETTLE_TIMEOUT_MS if len(self.facts.unsettled) < 3 else 500
        pending = settle(self.page, timeout_ms)
        if pending:
            self.facts.unsettled.append(f"{self.path()} @ {self.viewport}: {', '.join(pending)}")

    def share_visit(self, path: str, state: str = "page") -> None:
        """Let later checks measure this settled state instead of loading it again.

        Each selected check may register read-only collectors per visit key
        (`shared_visits(data)` in its module); they run here, on the state this check reached by
        `goto(path)` (and, for another `state`, the same interaction the later check performs).
        A collector that fails leaves nothing behind: that check then makes its own visit.
        """
        key = visit_key(path, self.width, state)
        for check_id, wanted in self.facts.collectors.items():
            collect = wanted.get(key)
            if collect is None or (check_id, key) in self.facts.shared:
                continue
            started = time.monotonic()
            try:
                value = collect(self)
                self.facts.shared[(check_id, key)] = SharedVisit(value, self.path(), self.viewport)
            except Exception:  # noqa: BLE001 - the later check measures for itself
                pass
            finally:
                self.facts.shared_s += time.monotonic() - started

    def shared(self, check_id: str, key: str) -> SharedVisit | None:
        """What an earlier check's visit measured for `check_id` at `key` (taken once)."""
        return self.facts.shared.pop((check_id, key), None)

    def measured(
        self, check_id: str, path: str, width: int, measure: Callable[[CheckContext], Any]
    ) -> tuple[Any, SharedVisit | None]:
        """What `measure` reads on `path` at `width`: taken on an earlier check's settled visit
        when one shared it (with where it was), otherwise on this check's own load of the page."""
        where = self.shared(check_id, visit_key(path, width))
        if where is not None:
            return where.value, where
        self.goto(path, width=width)
        return measure(self), None

    def path(self) -> str:
        parts = urlsplit(self.page.url)
        return parts.path + (f"?{parts.query}" if parts.query else "")

    def query(self) -> dict[str, list[str]]:
        return parse_qs(urlsplit(self.page.url).query, keep_blank_values=True)

    # -- diagnostics --------------------------------------------------------------------------
    def problem(
        self,
        expected: str,
        seen: str,
        selector: str | None = None,
        where: SharedVisit | None = None,
        critical: bool = False,
    ) -> None:
        """Record a problem on the current page (or on the shared visit `where`); `critical`:
        the visitor cannot complete the check's core journey (see `Check.journey_critical`)."""
        critical = critical and self.beside_journey is None
        if where is not None:
            url, viewport = where.url, where.viewport
        else:
            url = self.path() if self.page.url.startswith("http") else self.page.url
            viewport = self.viewport
        self.diagnostics.append(
            Diagnostic(
                expected=expected,
                seen=seen,
                url=url,
                viewport=viewport,
                selector=selector,
                journey_critical=critical,
            )
        )

    def stop(
        self, expected: str, seen: str, selector: str | None = None, critical: bool = False
    ) -> CheckStopped:
        self.problem(expected, seen, selector, critical=critical)
        return CheckStopped(expected)

    # -- DOM helpers (roles, names, labels only) ------------------------------------------------
    def venue_links(self) -> list[dict[str, str]]:
        """Visible links inside h2/h3 headings, in document order: [{name, path}]."""
        result: list[dict[str, str]] = self.page.evaluate(VENUE_LINKS_JS)
        return result

    def count_text(self) -> list[str]:
        """Texts of polite live regions (role=status or aria-live=polite), as read
        (`READER_TEXT_JS`; a visually hidden region is still read)."""
        texts: list[str] = self.page.evaluate(COUNT_TEXTS_JS)
        return texts

    def main_text(self) -> str:
        """main's text as a reader reads it (`READER_TEXT_JS`, cut text left out)."""
        return reader_text(self.page, "main", clip=True)

    def overflow(self) -> int:
        value: int = self.page.evaluate(
            "() => document.documentElement.scrollWidth - window.innerWidth"
        )
        return value

    def record_overflow(self, state: str) -> int:
        px = self.overflow()
        if px > self.facts.max_overflow.get("px", 0):
            self.facts.max_overflow = {
                "px": px,
                "url": self.path(),
                "viewport": self.viewport,
                "state": state,
            }
        return px

    def axe(
        self, label: str, include: str | None = None, where: SharedVisit | None = None
    ) -> list[dict[str, Any]]:
        """Serious/critical violations of an axe run here (or the one already run at `where`)."""
        report: dict[str, Any] = where.value if where is not None else run_axe(self.page, include)
        violations = [v for v in report["violations"] if v.get("impact") in ("serious", "critical")]
        self.facts.axe_runs.append(
            {
                "label": label,
                "url": where.url if where is not None else self.path(),
                "viewport": where.viewport if where is not None else self.viewport,
                "scope": include or "document",
                "violations": report["violations"],
                "engine": report.get("testEngine"),
            }
        )
        return violations

    def is_visible(self, locator: Locator) -> bool:
        try:
            return locator.count() > 0 and locator.first.is_visible()
        except Exception:  # noqa: BLE001
            return False

    def active_is(self, locator: Locator) -> bool:
        """Is `locator`'s first element focused? An absent one is not (asked without a wait)."""
        try:
            if locator.count() == 0:
                return False
            result: bool = locator.first.evaluate("el => el === document.activeElement")
            return result
        except Exception:  # noqa: BLE001
            return False

    def active_description(self) -> str:
        desc: str = self.page.evaluate(ACTIVE_JS)
        return desc


WAIT_H1_JS = """
(maxMs) => new Promise((resolve) => {
  const deep = (root) => {
    if (root.querySelector('h1')) return true;
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot && deep(el.shadowRoot)) return true;
    }
    return false;
  };
  if (deep(document)) { resolve(true); return; }
  let done = false;
  const finish = (found) => {
    if (done) return;
    done = true;
    observer.disconnect();
    clearInterval(poll);
    clearTimeout(limit);
    resolve(found);
  };
  const observer = new MutationObserver(() => { if (document.querySelector('h1')) finish(true); });
  observer.observe(document, { childList: true, subtree: true });
  const poll = setInterval(() => { if (deep(document)) finish(true); }, 20);
  const limit = setTimeout(() => finish(deep(document)), maxMs);
})
"""

# Names are read as a reader reads them (`READER_TEXT_JS`): an aria-hidden arrow or a
# text-transform changes nothing, a name an ellipsis or line-clamp cuts short is not whole.
VENUE_LINKS_JS = (
    """
() => {
  const read = ("""
    + READER_TEXT_JS
    + """);
  const visible = (el) => {
    const s = getComputedStyle(el);
    if (s.visibility === 'hidden' || s.display === 'none') return false;
    return el.getClientRects().length > 0;
  };
  const heads = document.querySelectorAll(
    'h2, h3, [role=heading][aria-level="2"], [role=heading][aria-level="3"]');
  const out = [];
  for (const h of heads) {
    for (const a of h.querySelectorAll('a[href]')) {
      if (!visible(a)) continue;
      const u = new URL(a.href, location.href);
      out.push({ name: read(a, true), path: u.pathname,
                 origin: u.origin === location.origin ? 'same' : u.origin });
    }
  }
  return out;
}
"""
)

# The polite live regions' texts, as read (a visually hidden region is read too).
COUNT_TEXTS_JS = (
    "() => [...document.querySelectorAll('[role=status],[aria-live=polite]')]"
    ".map(e => (" + READER_TEXT_JS + ")(e, false))"
)

ACTIVE_JS = """
() => {
  const el = document.activeElement;
  if (!el || el === document.body) return 'nothing (document.body)';
  const name = (el.getAttribute('aria-label') || el.textContent || el.getAttribute('name') || '')
    .replace(/\\s+/g, ' ').trim().slice(0, 60);
  const role = el.getAttribute('role') || el.tagName.toLowerCase();
  const type = el.getAttribute('type') ? `[type=${el.getAttribute('type')}]` : '';
  return `${role}${type} "${name}"`;
}
"""

COUNT_RE = re.compile(r"\b(\d+)\s+venues?\b", re.IGNORECASE)


def count_phrase(n: int) -> str:
    return f"{n} venue" if n == 1 else f"{n} venues"


def names(links: list[dict[str, str]]) -> list[str]:
    return [link["name"] for link in links]


def short_list(items: list[str], limit: int = 6) -> str:
    if len(items) <= limit:
        return ", ".join(items) if items else "(none)"
    return ", ".join(items[:limit]) + f", … ({len(items)} in all)"


def wait_until(page: Page, predicate: Any, timeout_ms: int = 3000, step_ms: int = 50) -> Any:
    """Poll `predicate()` until truthy or out of time; returns the last value."""
    waited = 0
    value = predicate()
    while not value and waited < timeout_ms:
        page.wait_for_timeout(step_ms)
        waited += step_ms
        value = predicate()
    return value


FIND_CARD_JS = """
const findCard = (slugPath) => {
  // The card: the largest ancestor of this venue's heading link that holds no other venue link.
  const pathOf = (a) => new URL(a.href, location.href).pathname.replace(/\\/+$/, '');
  const links = [...document.querySelectorAll('h2 a[href], h3 a[href], [role=heading] a[href]')];
  const link = links.find(a => pathOf(a) === slugPath);
  if (!link) return null;
  const isOtherVenue = (a) => /^\\/venues\\/[^/]+$/.test(pathOf(a)) && pathOf(a) !== slugPath;
  let card = link;
  while (card.parentElement && card.parentElement !== document.body) {
    if ([...card.parentElement.querySelectorAll('a[href]')].some(isOtherVenue)) break;
    card = card.parentElement;
  }
  return card;
};
"""


def has_count(text: str, n: int) -> bool:
    """True when `text` says "N venues" ("1 venue" for one) as whole words."""
    word = "venue" if n == 1 else "venues"
    return re.search(rf"(?<![\d.,]){n} {word}\b", text) is not None
