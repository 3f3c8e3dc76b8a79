"""landmarks: the home page and the catalogue each have exactly one main landmark (a toy check,
proving that a new check is one module and one entry in its task's CHECKS)."""

from __future__ import annotations

from evaluator.checks.base import CheckContext
from evaluator.checks.spec import Check


def run(ctx: CheckContext) -> None:
    for path in ("/", "/venues"):
        ctx.goto(path, width=1440)
        found = ctx.page.locator("main, [role=main]").count()
        if found != 1:
            ctx.problem("exactly one main landmark", f"{found} on {path}", "main")


CHECK = Check(id="landmarks", dimension="accessibility", points=3, run=run, doc=__doc__ or "")
