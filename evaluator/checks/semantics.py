"""semantics: every page (home, catalogue, a venue, not-found) has <html lang="en">, exactly one
h1, and exactly one banner, one main and one contentinfo landmark, plus a navigation landmark
named "Primary" holding the links "Venues" (to /venues) and "About" (to /#about)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal
from urllib.parse import urlsplit

from evaluator.checks.base import CheckContext, SharedVisit, visit_key
from evaluator.checks.clauses import PAGE_KINDS
from evaluator.checks.spec import Check, Tested
from evaluator.data import VenueData

ROLES: tuple[Literal["banner", "main", "contentinfo"], ...] = ("banner", "main", "contentinfo")
LINKS = (("Venues", ("/venues", "")), ("About", ("/", "#about")))


def page_paths(data: VenueData) -> list[str]:
    return ["/", "/venues", data.ordinary.path, "/no-such-page"]


def measure(ctx: CheckContext) -> dict[str, Any]:
    """The page's landmarks, as read by role (read-only)."""
    page = ctx.page
    got: dict[str, Any] = {
        "lang": page.evaluate("() => document.documentElement.getAttribute('lang')"),
        "h1": page.locator("h1").count(),
        "roles": {role: page.get_by_role(role).count() for role in ROLES},
    }
    nav = page.get_by_role("navigation", name="Primary", exact=True)
    got["nav"] = nav.count()
    if got["nav"] == 1:
        hrefs: dict[str, list[str]] = {}
        for name, _ in LINKS:
            link = nav.get_by_role("link", name=name, exact=True)
            hrefs[name] = [link.nth(i).evaluate("a => a.href") for i in range(link.count())]
        got["hrefs"] = hrefs
    return got


def shared_visits(data: VenueData) -> dict[str, Callable[[CheckContext], Any]]:
    return {visit_key(path, 1440): measure for path in page_paths(data)}


def judge(ctx: CheckContext, got: dict[str, Any], where: SharedVisit | None) -> None:
    lang = got["lang"]
    if lang != "en":
        ctx.problem('<html lang="en">', f"lang={lang!r}", "html", where)
    h1 = got["h1"]
    if h1 != 1:
        ctx.problem("exactly one h1", f"{h1} h1 elements", "h1", where)
    for role, count in got["roles"].items():
        if count != 1:
            ctx.problem(f"exactly one {role} landmark", f"{count}", f"role={role}", where)
    if got["nav"] != 1:
        ctx.problem(
            'one navigation landmark named "Primary"',
            f"{got['nav']}",
            'role=navigation[name="Primary"]',
            where,
        )
        return
    for name, want in LINKS:
        hrefs = got["hrefs"][name]
        ok = any(
            (urlsplit(h).path.rstrip("/") or "/") == (want[0].rstrip("/") or "/")
            and ("#" + urlsplit(h).fragment if urlsplit(h).fragment else "") == want[1]
            for h in hrefs
        )
        if not ok:
            ctx.problem(
                f'the Primary nav has a link "{name}" to {want[0]}{want[1]}',
                f"links named {name}: {hrefs or 'none'}",
                f'navigation "Primary" >> role=link[name="{name}"]',
                where,
            )


def run(ctx: CheckContext) -> None:
    for path in page_paths(ctx.data):
        judge(ctx, *ctx.measured(CHECK.id, path, 1440, measure))


CHECK = Check(
    id="semantics",
    dimension="accessibility",
    points=3,
    run=run,
    doc=__doc__ or "",
    clauses=[
        "shell.landmarks",
        "shell.nav-links",
        "route.home.h1-link",
    ],
    tested=[Tested("shell.landmarks", "page", PAGE_KINDS, "An ordinary venue; /no-such-page.")],
    shared_visits=shared_visits,
)
