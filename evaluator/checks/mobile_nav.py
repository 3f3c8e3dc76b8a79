"""mobile-nav: below 768 px (at 360, 640 and 767 px: both edges of the band and a width inside
it, each on a fresh load) the Primary navigation's links are hidden behind a button named "Menu"
with aria-expanded="false" and aria-controls naming the element that holds the links; activating
it sets aria-expanded="true" and shows the links, activating it again hides them; at 768 and
1440 px the links are visible and no "Menu" button is displayed."""

from __future__ import annotations

from evaluator.checks._waits import ACTION_MS, REACTION_MS
from evaluator.checks.base import CheckContext, wait_until
from evaluator.checks.spec import Check, Tested

LINKS = ("Venues", "About")
NARROW = (360, 640, 767)
"""The band below 768 px at both its edges (360 px, the narrowest width the contract names, and
767 px) and at 640 px, the common small-tablet breakpoint inside it, where an app's breakpoints
most often split the band."""
WIDE = (768, 1440)
"""768 px and wider: the band's lower edge and the widest width the contract names."""


def _px(widths: tuple[int, ...]) -> tuple[str, ...]:
    return tuple(f"{w} px" for w in widths)


def _links_visible(ctx: CheckContext) -> dict[str, bool]:
    nav = ctx.page.get_by_role("navigation", name="Primary", exact=True)
    out = {}
    for name in LINKS:
        link = nav.get_by_role("link", name=name, exact=True)
        out[name] = link.count() > 0 and link.first.is_visible()
    return out


def _narrow(ctx: CheckContext, width: int) -> None:
    """The hidden-behind-Menu rule at one width of the band below 768 px."""
    page = ctx.page
    ctx.goto("/", width=width)
    at = f"at {width}px"
    menu = page.get_by_role("button", name="Menu", exact=True)
    if menu.count() == 0 or not menu.first.is_visible():
        ctx.problem(
            f'{at} a visible button named "Menu"',
            f"no such button (links visible: {_links_visible(ctx)})",
            'role=button[name="Menu"]',
        )
        return
    menu = menu.first
    if menu.get_attribute("aria-expanded") != "false":
        ctx.problem(
            f'{at} the closed Menu button has aria-expanded="false"',
            f"aria-expanded={menu.get_attribute('aria-expanded')!r}",
            'role=button[name="Menu"]',
        )
    controls = menu.get_attribute("aria-controls") or ""
    holds = page.evaluate(
        "([ids, names]) => ids.split(/\\s+/).filter(Boolean).some(id => {"
        " const el = document.getElementById(id); if (!el) return false;"
        " const texts = [...el.querySelectorAll('a')].map(a => a.textContent.trim());"
        " return names.every(n => texts.includes(n)); })",
        [controls, list(LINKS)],
    )
    if not holds:
        ctx.problem(
            f"{at} aria-controls names the element holding the Primary nav links",
            f"aria-controls={controls!r}",
            'role=button[name="Menu"]',
        )
    shown = _links_visible(ctx)
    if any(shown.values()):
        ctx.problem(
            f"{at} the nav links are hidden while the menu is closed",
            f"visible: {[n for n, v in shown.items() if v]}",
            'navigation "Primary"',
        )
    menu.click(timeout=ACTION_MS)
    ctx.settle()
    if not wait_until(page, lambda: menu.get_attribute("aria-expanded") == "true", REACTION_MS):
        ctx.problem(
            f'{at} after activating Menu, aria-expanded="true"',
            f"aria-expanded={menu.get_attribute('aria-expanded')!r}",
            'role=button[name="Menu"]',
        )
    if not wait_until(page, lambda: all(_links_visible(ctx).values()), REACTION_MS):
        ctx.problem(
            f"{at} after activating Menu the nav links are shown",
            f"visible: {_links_visible(ctx)}",
            'navigation "Primary"',
        )
    menu.click(timeout=ACTION_MS)
    ctx.settle()
    if not wait_until(page, lambda: menu.get_attribute("aria-expanded") == "false", REACTION_MS):
        ctx.problem(
            f'{at} activating Menu again sets aria-expanded="false"',
            f"aria-expanded={menu.get_attribute('aria-expanded')!r}",
            'role=button[name="Menu"]',
        )
    if not wait_until(page, lambda: not any(_links_visible(ctx).values()), REACTION_MS):
        ctx.problem(
            f"{at} activating Menu again hides the nav links",
            f"visible: {_links_visible(ctx)}",
            'navigation "Primary"',
        )


def _wide(ctx: CheckContext, width: int) -> None:
    """The wide rule at one width from 768 px up: links visible, no Menu button displayed."""
    ctx.goto("/", width=width)
    button = ctx.page.get_by_role("button", name="Menu", exact=True)
    if button.count() and button.first.is_visible():
        ctx.problem(
            f'at {width}px no "Menu" button is displayed',
            "a visible Menu button",
            'role=button[name="Menu"]',
        )
    shown = _links_visible(ctx)
    if not all(shown.values()):
        ctx.problem(
            f"at {width}px the Primary nav links are visible",
            f"visible: {shown}",
            'navigation "Primary"',
        )


def run(ctx: CheckContext) -> None:
    for width in NARROW:
        _narrow(ctx, width)
    for width in WIDE:
        _wide(ctx, width)


CHECK = Check(
    id="mobile-nav",
    dimension="responsive",
    points=3,
    run=run,
    doc=__doc__ or "",
    clauses=[
        "shell.menu",
        "shell.menu-wide",
    ],
    tested=[
        Tested(
            "shell.menu",
            "viewport width",
            _px(NARROW),
            "640 px: the common small-tablet "
            "breakpoint inside the band, where an app's breakpoints most often split it.",
        ),
        Tested("shell.menu-wide", "viewport width", _px(WIDE)),
    ],
)
