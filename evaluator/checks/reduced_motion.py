"""reduced-motion: under `prefers-reduced-motion: reduce` no CSS animation, CSS transition or
Web Animation with a non-zero duration runs on load (home, catalogue, a venue), when opening the
menu (360 px) or when opening the enquiry dialog. (Entrance transitions without the preference
are the settled-state wait's business; this check only looks at the reduced-motion run.)"""

from __future__ import annotations

from evaluator.checks._dialog import dialog_open, enquire_button
from evaluator.checks.base import CheckContext, wait_until
from evaluator.checks.spec import Check

# Installed before any page script: records every animation/transition that has a duration.
RECORDER_JS = """
(() => {
  const seen = new Map();
  window.__siteosMotion = seen;
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
"""


def _observe(ctx: CheckContext) -> None:
    ctx.page.wait_for_timeout(250)


def _collect(ctx: CheckContext) -> list[str]:
    found: list[str] = ctx.page.evaluate("() => [...(window.__siteosMotion || new Map()).values()]")
    return found


def run(ctx: CheckContext) -> None:
    page = ctx.page
    page.add_init_script(RECORDER_JS)
    page.emulate_media(reduced_motion="reduce")
    moving: list[str] = []
    for path in ("/", "/venues", ctx.data.ordinary.path):
        ctx.goto(path, width=1440)
        _observe(ctx)
        moving += _collect(ctx)
    ctx.goto("/", width=360)
    menu = page.get_by_role("button", name="Menu", exact=True)
    if menu.count() and menu.first.is_visible():
        page.evaluate("() => window.__siteosMotion.clear()")
        menu.first.click()
        _observe(ctx)
        moving += [f"{m} (opening the menu)" for m in _collect(ctx)]
    ctx.goto(ctx.data.ordinary.path, width=1440)
    button = enquire_button(ctx)
    if button.count() and button.first.is_visible():
        page.evaluate("() => window.__siteosMotion.clear()")
        button.first.click()
        wait_until(page, lambda: dialog_open(ctx), 1500)
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
)
