"""reduced-motion: motion stays within the contract. Without a preference, loading the home, the
catalogue and a venue starts no animation or transition whose active duration (duration x
iterations) exceeds 1 s, and no infinite one (`document.getAnimations()`, computed timing);
under `prefers-reduced-motion: reduce` no CSS animation, CSS transition or Web Animation with a
non-zero duration runs on load (the same pages), when opening the menu (360 px) or when opening
the enquiry dialog."""

from __future__ import annotations

from evaluator.browser import wait_quiet
from evaluator.checks._dialog import dialog_open, enquire_button
from evaluator.checks._waits import ACTION_MS, OBSERVE_MS, REACTION_MS
from evaluator.checks.base import CheckContext, wait_until
from evaluator.checks.spec import Check, Tested

ENTRANCE_MAX_MS = 1000


def PAGES(ctx: CheckContext) -> list[str]:  # noqa: N802 - a constant list, per data set
    """The pages whose load motion is judged: home, catalogue, a venue."""
    return ["/", "/venues", ctx.data.ordinary.path]


# Installed before any page script: records every animation/transition that has a duration, and
# separately those longer than ENTRANCE_MAX_MS or infinite (active duration, delays excluded).
RECORDER_JS = """
(() => {
  const seen = new Map();
  const long = new Map();
  window.__siteosMotion = seen;
  window.__siteosLong = long;
  const who = (t) => {
    if (!t || !t.tagName) return '?';
    let s = t.tagName.toLowerCase();
    if (t.id) s += '#' + t.id;
    const role = t.getAttribute && t.getAttribute('role');
    if (role) s += `[role=${role}]`;
    return s;
  };
  const note = (a) => {
    const timing = a.effect && a.effect.getTiming ? a.effect.getTiming() : null;
    const d = timing ? Number(timing.duration) || 0 : 0;
    if (d <= 0) return;
    const kind = a.animationName !== undefined ? 'animation ' + a.animationName
      : a.transitionProperty !== undefined ? 'transition ' + a.transitionProperty : 'web animation';
    const key = who(a.effect && a.effect.target) + ' ' + kind;
    if (!seen.has(key)) seen.set(key, `${key} (${d} ms) at ${location.pathname}`);
    const active = a.effect.getComputedTiming ? a.effect.getComputedTiming().activeDuration : d;
    if (!long.has(key) && !(active <= ENTRANCE_MAX_MS)) {
      const length = Number.isFinite(active) ? `${Math.round(active)} ms` : 'infinite';
      long.set(key, `${key} (${length}) at ${location.pathname}`);
    }
  };
  const scan = () => { try { document.getAnimations().forEach(note); } catch (e) {} };
  for (const type of ['animationstart', 'transitionrun', 'transitionstart']) {
    window.addEventListener(type, (e) => {
      try { (e.target.getAnimations ? e.target.getAnimations() : []).forEach(note); } catch (x) {}
    }, true);
  }
  const loop = () => { scan(); requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
  document.addEventListener('DOMContentLoaded', scan);
})();
""".replace("ENTRANCE_MAX_MS", str(ENTRANCE_MAX_MS))


def _long_entrances(ctx: CheckContext) -> None:
    """Without a motion preference, each page's load animations are finite and at most 1 s."""
    found: list[str] = []
    for path in PAGES(ctx):
        ctx.goto(path, width=1440)
        found += ctx.page.evaluate("() => [...(window.__siteosLong || new Map()).values()]")
    if found:
        unique = list(dict.fromkeys(found))
        ctx.problem(
            f"entrance animations and transitions are finite, each at most "
            f"{ENTRANCE_MAX_MS / 1000:g} s",
            "; ".join(unique[:6]) + (f" (+{len(unique) - 6} more)" if len(unique) > 6 else ""),
            "document.getAnimations()",
        )


def _observe(ctx: CheckContext) -> None:
    wait_quiet(ctx.page, OBSERVE_MS)


def _collect(ctx: CheckContext) -> list[str]:
    found: list[str] = ctx.page.evaluate("() => [...(window.__siteosMotion || new Map()).values()]")
    return found


def run(ctx: CheckContext) -> None:
    page = ctx.page
    page.add_init_script(RECORDER_JS)
    _long_entrances(ctx)
    page.emulate_media(reduced_motion="reduce")
    moving: list[str] = []
    for path in PAGES(ctx):
        ctx.goto(path, width=1440)
        _observe(ctx)
        moving += _collect(ctx)
    ctx.goto("/", width=360)
    menu = page.get_by_role("button", name="Menu", exact=True)
    if menu.count() and menu.first.is_visible():
        page.evaluate("() => window.__siteosMotion.clear()")
        menu.first.click(timeout=ACTION_MS)
        _observe(ctx)
        moving += [f"{m} (opening the menu)" for m in _collect(ctx)]
    ctx.goto(ctx.data.ordinary.path, width=1440)
    button = enquire_button(ctx)
    if button.count() and button.first.is_visible():
        page.evaluate("() => window.__siteosMotion.clear()")
        button.first.click(timeout=ACTION_MS)
        wait_until(page, lambda: dialog_open(ctx), REACTION_MS)
        _observe(ctx)
        moving += [f"{m} (opening the dialog)" for m in _collect(ctx)]
    if moving:
        unique = list(dict.fromkeys(moving))
        ctx.problem(
            "under prefers-reduced-motion: reduce, no animation or transition with a non-zero "
            "duration runs",
            "; ".join(unique[:6]) + (f" (+{len(unique) - 6} more)" if len(unique) > 6 else ""),
            "@media (prefers-reduced-motion: reduce)",
        )


CHECK = Check(
    id="reduced-motion",
    dimension="accessibility",
    points=3,
    run=run,
    doc=__doc__ or "",
    clauses=[
        "shell.entrance",
        "shell.reduced-motion",
    ],
    tested=[
        Tested(
            "shell.reduced-motion",
            "state",
            ("load", "opening the menu", "opening the dialog"),
            "Load on /, /venues and a venue page; the menu at 360 px; the dialog at 1440 px.",
        )
    ],
    placement="after-visits",
)
