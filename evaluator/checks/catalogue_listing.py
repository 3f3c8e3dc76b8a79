"""catalogue-listing: `/venues` lists all 14 venues, in the data file's order, as cards whose
h2/h3 heading holds a link with the venue's name to `/venues/<slug>`. (The results count and its
polite live region are part of the filters: see filter-journey.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaluator.checks.base import CheckContext, SharedVisit, names, short_list, visit_key
from evaluator.checks.spec import Check
from evaluator.data import VenueData

PAGE, WIDTH = "/venues", 1440
"""The page this check reads (no-overflow's visit of it when shared)."""


def measure(ctx: CheckContext) -> list[dict[str, str]]:
    """The visible heading links, in document order (read-only)."""
    return ctx.venue_links()


def shared_visits(data: VenueData) -> dict[str, Callable[[CheckContext], Any]]:
    return {visit_key(PAGE, WIDTH): measure}


def run(ctx: CheckContext) -> None:
    judge(ctx, *ctx.measured(CHECK.id, PAGE, WIDTH, measure))


def judge(ctx: CheckContext, links: list[dict[str, str]], where: SharedVisit | None) -> None:
    venues = ctx.data.venues
    expected = [(v.name, v.path) for v in venues]
    seen = [(link["name"], link["path"].rstrip("/")) for link in links]
    if seen == expected:
        return
    missing = [v.name for v in venues if (v.name, v.path) not in seen]
    extra = [f"{n} -> {p}" for n, p in seen if (n, p) not in expected]
    if missing or extra:
        ctx.problem(
            f"{len(venues)} venue cards, each an h2/h3 with a link named after the venue to "
            "/venues/<slug>",
            f"{len(seen)} heading links; missing: {short_list(missing)}; "
            f"unexpected: {short_list(extra)}",
            "h2/h3 > link",
            where,
        )
    else:
        ctx.problem(
            "cards in the data file's order: " + short_list([v.name for v in venues], 4),
            "order: " + short_list(names(links), 4),
            "h2/h3 > link",
            where,
        )


CHECK = Check(
    id="catalogue-listing",
    dimension="functional",
    points=4,
    run=run,
    doc=__doc__ or "",
    clauses=[
        "route.catalogue",
        "catalogue.cards",
        "business.data",
    ],
    shared_visits=shared_visits,
)
