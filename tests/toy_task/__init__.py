"""The checks of a throwaway task for the "add a task" recipe (docs/architecture.md): one page
that must greet its visitor with the sentence in the task's data. Three checks, one per automated
dimension of the rubric (25, 20 and 15 points), a root-page probe and an overflow gate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evaluator.checks.base import CheckContext
from evaluator.checks.spec import Check, Probe
from evaluator.contract import Clause


def load_data(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def greeting(ctx: CheckContext) -> None:
    """greeting: the home page shows the data's greeting inside its main landmark."""
    ctx.goto("/", width=1440)
    text = ctx.page.locator("main").first.inner_text() if ctx.page.locator("main").count() else ""
    if ctx.data["greeting"] not in text:
        ctx.problem(f"main shows {ctx.data['greeting']!r}", text[:80] or "no main", "main",
                    critical=True)  # fmt: skip


def fits(ctx: CheckContext) -> None:
    """fits: the home page has no horizontal overflow at 360, 768 and 1440 px."""
    for width in (360, 768, 1440):
        ctx.goto("/", width=width)
        px = ctx.record_overflow("page")
        if px > 0:
            ctx.problem("scrollWidth <= innerWidth", f"{px}px wider at {width}px", "html")


def titled(ctx: CheckContext) -> None:
    """titled: the page names its language and has exactly one h1."""
    ctx.goto("/", width=1440)
    lang = ctx.page.evaluate("() => document.documentElement.lang")
    h1 = ctx.page.locator("h1").count()
    if not lang or h1 != 1:
        ctx.problem("a lang attribute and one h1", f"lang {lang!r}, {h1} h1", "html")


def root_page(ctx: CheckContext) -> str | None:
    ctx.goto("/", width=1440)
    return None if ctx.page.locator("h1").count() else "the root page has no h1"


CHECKS: tuple[Check, ...] = (
    Check("greeting", "functional", 25, greeting, greeting.__doc__ or "", journey="greet",
          journey_critical="the greeting is shown", clauses=["home.greeting"]),
    Check("fits", "responsive", 20, fits, fits.__doc__ or "", clauses=["home.fits"]),
    Check("titled", "accessibility", 15, titled, titled.__doc__ or "", clauses=["home.titled"]),
)  # fmt: skip
PROBES: dict[str, Probe] = {"root-page": root_page}
CHECK_GATES = {"horizontal-overflow": "fits"}
CLAUSES = (
    Clause("home.greeting", "The home page shows the greeting of `data.json`"),
    Clause("home.fits", "It fits a 360 px screen without sideways scrolling"),
    Clause("home.titled", "It names its language and has one heading"),
    Clause("home.build", "`npm run build` writes the site to `dist/`"),
)
GATE_CLAUSES = {
    "install-build": ("home.build",),
    "root-page": ("home.titled",),
    "core-journey": ("home.greeting",),
    "horizontal-overflow": ("home.fits",),
}
