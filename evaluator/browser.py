"""Chromium launch, the loopback-only request guard, the settled-state wait and axe injection.

The browser must never send a packet beyond loopback. Two layers stop it (DESIGN §6): the launch
flags below (no background services, every host name resolves to nothing except
127.0.0.1/localhost) and the loopback-only network namespace the browser phase runs in
(`sandbox.loopback_netns_argv`, where an address literal has no route). `guard_context` watches
every request and records each one that tried to leave loopback (the media check and the
evidence report them). It observes rather than intercepts: intercepting every request routes it
through this process and turns off Chromium's cache, which made each page visit ~40% slower.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, Locator, Page, Playwright, Request, ViewportSize
from playwright.sync_api import Error as PlaywrightError

from records.tools import AXE_JS, CHROMIUM

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
]

LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}

VIEWPORTS: dict[int, ViewportSize] = {
    360: {"width": 360, "height": 780},
    768: {"width": 768, "height": 1024},
    1440: {"width": 1440, "height": 900},
}


def viewport_size(width: int) -> ViewportSize:
    """The viewport at `width`: a named one (`VIEWPORTS`), or for a band's edge or interior point
    (mobile-nav's 640 and 767 px) that width with the height of the next named width up."""
    if width in VIEWPORTS:
        return VIEWPORTS[width]
    above = [w for w in sorted(VIEWPORTS) if w > width] or [max(VIEWPORTS)]
    return {"width": width, "height": VIEWPORTS[above[0]]["height"]}


SETTLE_TIMEOUT_MS = 3000


def launch(playwright: Playwright) -> Any:
    return playwright.chromium.launch(
        executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True, timeout=30_000
    )


@dataclass
class RequestLog:
    blocked: list[str] = field(default_factory=list)
    non_get: list[str] = field(default_factory=list)
    all_urls: list[str] = field(default_factory=list)


def is_loopback(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about"):
        return True
    return (parts.hostname or "") in {h.strip("[]") for h in LOOPBACK_HOSTS}


def guard_context(context: BrowserContext, log: RequestLog) -> None:
    """Record every request, and each one that tried to leave loopback (the launch flags and the
    network namespace make it fail)."""

    def seen(request: Request) -> None:
        url = request.url
        log.all_urls.append(url)
        if request.method not in ("GET", "HEAD"):
            log.non_get.append(f"{request.method} {url}")
        if not is_loopback(url):
            log.blocked.append(url)

    context.on("request", seen)


# The settled state. Waits for fonts, then brings every finite animation (CSS animations,
# transitions, Web Animations) to its end with `finish()` — the exact state it would reach by
# itself, without spending its wall-clock time — until two quiet frames pass. Infinite
# animations are left running. Returns what was still animating when time ran out (a page that
# keeps starting new animations never settles).
SETTLE_JS = """
async (maxMs) => {
  const t0 = performance.now();
  const frame = () => new Promise(r => requestAnimationFrame(() => r()));
  const sleep = (ms) => new Promise(r => setTimeout(r, Math.max(0, ms)));
  const describe = (a) => {
    const t = a.effect && a.effect.target;
    let who = t ? t.tagName.toLowerCase() : '?';
    if (t && t.id) who += '#' + t.id;
    const name = a.animationName || a.transitionProperty || a.id || a.constructor.name;
    return who + ' ' + name;
  };
  const finite = () => document.getAnimations().filter(a => {
    if (a.playState !== 'running' && a.playState !== 'pending') return false;
    const t = a.effect && a.effect.getComputedTiming();
    return !!t && Number.isFinite(t.endTime);
  });
  try {
    await Promise.race([document.fonts ? document.fonts.ready : null, sleep(maxMs)]);
  } catch (e) {}
  let quiet = 0;
  while (performance.now() - t0 < maxMs) {
    const running = finite();
    if (running.length === 0) {
      quiet += 1;
      if (quiet >= 2) return { settled: true, pending: [] };
      await frame();
      continue;
    }
    quiet = 0;
    for (const a of running) { try { a.finish(); } catch (e) {} }
    await frame();
  }
  return { settled: false, pending: finite().slice(0, 10).map(describe) };
}
"""


def settle(page: Page, timeout_ms: int = SETTLE_TIMEOUT_MS) -> list[str]:
    """Wait for the settled state; returns descriptions of animations still running (if any)."""
    # A page that never finishes loading is judged by the checks, not here.
    with contextlib.suppress(Exception):
        page.wait_for_load_state("load", timeout=10_000)
    outcome = page.evaluate(SETTLE_JS, timeout_ms)
    pending: list[str] = list(outcome.get("pending", []))
    return pending


# "Nothing else happens", bounded by evidence: resolves once `frames` animation frames in a row
# pass with no DOM mutation, no URL or history change and no animation or transition starting
# (true), or when `maxMs` runs out first (false: the page kept changing). An app's reaction to an
# action (a re-render, a second history push, a late class that starts a transition) shows up as
# one of these, so the wait ends when the page is demonstrably quiet instead of after a fixed
# sleep.
QUIET_JS = """
async ([maxMs, frames]) => {
  const t0 = performance.now();
  let changed = false;
  const mark = () => { changed = true; };
  const observer = new MutationObserver(mark);
  observer.observe(document, { subtree: true, childList: true, attributes: true,
                               characterData: true });
  const types = ['animationstart', 'transitionrun', 'popstate', 'hashchange'];
  types.forEach((t) => window.addEventListener(t, mark, true));
  let href = location.href, length = history.length, quiet = 0;
  try {
    while (performance.now() - t0 < maxMs) {
      await new Promise((r) => requestAnimationFrame(() => r()));
      if (location.href !== href || history.length !== length) {
        href = location.href; length = history.length; changed = true;
      }
      if (changed) { quiet = 0; changed = false; } else if (++quiet >= frames) return true;
    }
    return false;
  } finally {
    observer.disconnect();
    types.forEach((t) => window.removeEventListener(t, mark, true));
  }
}
"""
QUIET_FRAMES = 3


def wait_quiet(page: Page, max_ms: int) -> bool:
    """Wait until the page is quiet for `QUIET_FRAMES` frames (see QUIET_JS), at most `max_ms`.

    A document replaced meanwhile (a navigation: a server-rendered form, a reload) ends the
    in-page wait; the rest of `max_ms` is then waited out, as the fixed wait did, and the page
    did not stay quiet (False)."""
    started = time.monotonic()
    try:
        quiet: bool = page.evaluate(QUIET_JS, [max_ms, QUIET_FRAMES])
        return quiet
    except PlaywrightError:
        left_ms = max_ms - (time.monotonic() - started) * 1000
        if left_ms > 0:
            page.wait_for_timeout(left_ms)
        return False


# What a reader reads: the text of `root` as the DOM holds it (textContent of every rendered text
# node, so CSS that only changes how it looks, such as `text-transform`, a `::first-letter` drop
# cap, `::first-line`, hyphenation, soft wraps and `::before`/`::after` decoration, changes
# nothing), one space at each block boundary and `<br>`, soft hyphens and zero-width spaces
# removed, whitespace collapsed. innerText is not used: it applies `text-transform` and, with a
# floated `::first-letter` on a one-letter first word, Chromium drops the space after it
# ("Aformer"). Left out: text that is not rendered (`display: none`, `visibility: hidden`,
# `hidden`, closed `<details>`), `aria-hidden="true"` subtrees and text pushed off the page
# (`left: -9999px`); with `clip` true also text an `overflow: hidden`/`clip` ancestor cuts
# (`text-overflow: ellipsis`, line-clamp, a max-height box, the visually hidden 1 px pattern):
# a text node counts only when each of its lines lies inside every such ancestor's padding box
# (2 px of slack across, half a line down, for glyphs taller than a tight line-height).
READER_TEXT_JS = r"""
(root, clip) => {
  const SKIP = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'TITLE', 'DESC']);
  const out = [];
  const range = document.createRange();
  const sx = window.scrollX, sy = window.scrollY;
  // Only ancestors that contain the text's box clip it: a fixed or top-layer box (a modal
  // <dialog>) escapes every ancestor, an absolute one the unpositioned ones.
  const clipped = (rects, from) => {
    let skipStatic = false;
    for (let a = from; a && a !== document.documentElement; a = a.parentElement) {
      const s = getComputedStyle(a);
      const positioned = s.position !== 'static' || s.transform !== 'none';
      const cuts = (v) => v === 'hidden' || v === 'clip';
      const cx = cuts(s.overflowX), cy = cuts(s.overflowY);
      const tests = (cx || cy) && (a === from || !skipStatic || positioned);
      if (s.position === 'fixed' || a.matches(':modal, :popover-open')) {
        if (!tests) return false;
      } else if (s.position === 'absolute') skipStatic = true;
      else if (positioned) skipStatic = false;
      if (!tests) continue;
      const b = a.getBoundingClientRect();
      const left = b.left + a.clientLeft, top = b.top + a.clientTop;
      const right = left + a.clientWidth, bottom = top + a.clientHeight;
      for (const r of rects) {
        if (cx && (r.left < left - 2 || r.right > right + 2)) return true;
        const seen = Math.min(r.bottom, bottom) - Math.max(r.top, top);
        if (cy && seen < r.height / 2) return true;
      }
      if (s.position === 'fixed' || a.matches(':modal, :popover-open')) return false;
    }
    return false;
  };
  const shown = (text) => {
    const parent = text.parentElement;
    if (!parent || getComputedStyle(parent).visibility !== 'visible') return false;
    if (parent.checkVisibility && !parent.checkVisibility()) return false;
    range.selectNodeContents(text);
    const rects = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0);
    if (rects.length === 0) return false;
    if (rects.every(r => r.right + sx <= 0 || r.bottom + sy <= 0)) return false;
    return !clip || !clipped(rects, parent);
  };
  const walk = (node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      if (!/\S/.test(node.data)) out.push(node.data);
      else if (shown(node)) out.push(node.data);
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    if (SKIP.has(node.tagName.toUpperCase())) return;
    if (node.getAttribute('aria-hidden') === 'true') return;
    if (node.tagName === 'BR') { out.push(' '); return; }
    const display = getComputedStyle(node).display;
    if (display === 'none') return;
    const block = !display.startsWith('inline') && display !== 'contents';
    if (block) out.push(' ');
    if (node.tagName === 'DETAILS' && !node.open) {
      const summary = [...node.children].find(c => c.tagName === 'SUMMARY');
      if (summary) walk(summary);
    } else {
      for (const child of node.childNodes) walk(child);
    }
    if (block) out.push(' ');
  };
  if (root) walk(root);
  return out.join('').replace(/[\u00AD\u200B\u2060]/g, '').replace(/\s+/g, ' ').trim();
}
"""


def reader_text(target: Page | Locator, selector: str | None = None, clip: bool = False) -> str:
    """`READER_TEXT_JS` of a locator's first element, or of `selector` (default `main`, else the
    body) on a page."""
    if isinstance(target, Page):
        text: str = target.evaluate(
            "([sel, clip]) => (" + READER_TEXT_JS + ")(document.querySelector(sel || 'main')"
            " || document.body, clip)",
            [selector, clip],
        )
        return text
    text = target.first.evaluate("(el, clip) => (" + READER_TEXT_JS + ")(el, clip)", clip)
    return text


AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def run_axe(page: Page, include: str | None = None) -> dict[str, Any]:
    """Run axe-core (WCAG 2.x A/AA rules) on the page, or only inside `include` (a CSS selector)."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_JS))
    options = {"runOnly": {"type": "tag", "values": AXE_TAGS}, "resultTypes": ["violations"]}
    result: dict[str, Any] = page.evaluate(
        "async ([include, options]) => {"
        "  const ctx = include ? { include: [include] } : document;"
        "  const r = await axe.run(ctx, options);"
        "  return { violations: r.violations, url: r.url, testEngine: r.testEngine };"
        "}",
        [include, options],
    )
    return result


def axe_version() -> str | None:
    """axe-core's version from its package.json (next to axe.min.js)."""
    try:
        version = json.loads((AXE_JS.parent / "package.json").read_text(encoding="utf-8"))[
            "version"
        ]
    except (OSError, ValueError, KeyError):
        return None
    return str(version)


def dumps(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)
