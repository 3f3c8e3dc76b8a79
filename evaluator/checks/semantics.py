"""semantics: every page (home, catalogue, a venue, not-found) has <html lang="en">, exactly one
h1, and exactly one banner, one main and one contentinfo landmark, plus a navigation landmark
named "Primary" holding the links "Venues" (to /venues) and "About" (to /#about)."""

from __future__ import annotations

from urllib.parse import urlsplit

from evaluator.checks.base import CheckContext

ID = "semantics"
DIMENSION = "accessibility"
POINTS = 3


def run(ctx: CheckContext) -> None:
    page = ctx.page
    for path in ("/", "/venues", ctx.data.ordinary.path, "/no-such-page"):
        ctx.goto(path, width=1440)
        lang = page.evaluate("() => document.documentElement.getAttribute('lang')")
        if lang != "en":
            ctx.problem('<html lang="en">', f"lang={lang!r}", "html")
        h1 = page.locator("h1").count()
        if h1 != 1:
            ctx.problem("exactly one h1", f"{h1} h1 elements", "h1")
        for role in ("banner", "main", "contentinfo"):
            count = page.get_by_role(role).count()
            if count != 1:
                ctx.problem(f"exactly one {role} landmark", f"{count}", f"role={role}")
        nav = page.get_by_role("navigation", name="Primary", exact=True)
        if nav.count() != 1:
            ctx.problem(
                'one navigation landmark named "Primary"',
                f"{nav.count()}",
                'role=navigation[name="Primary"]',
            )
            continue
        for name, want in (("Venues", ("/venues", "")), ("About", ("/", "#about"))):
            link = nav.get_by_role("link", name=name, exact=True)
            hrefs = [link.nth(i).evaluate("a => a.href") for i in range(link.count())]
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
                )
