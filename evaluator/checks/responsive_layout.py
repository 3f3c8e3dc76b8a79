"""responsive-layout: the catalogue's cards form a grid of at least 3 columns at 1440 px, at
least 2 at 768 px and exactly 1 at 360 px (columns counted from the cards' left edges; a card is
the largest box around one venue's heading link that holds no other venue's link)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaluator.checks.base import FIND_CARD_JS, CheckContext, visit_key
from evaluator.checks.spec import Check, Tested
from evaluator.data import VenueData

COLUMNS_JS = (
    "(paths) => {"
    + FIND_CARD_JS
    + """
  const lefts = [];
  for (const p of paths) {
    const card = findCard(p);
    if (!card) continue;
    const r = card.getBoundingClientRect();
    if (r.width > 0) lefts.push(Math.round(r.left + window.scrollX));
  }
  lefts.sort((a, b) => a - b);
  const columns = [];
  for (const x of lefts) {
    if (!columns.length || x - columns[columns.length - 1] > 4) columns.push(x);
  }
  return { cards: lefts.length, columns: columns.length };
}"""
)

RULES = {1440: (3, None), 768: (2, None), 360: (1, 1)}


def measure(ctx: CheckContext) -> dict[str, int]:
    """Card and column counts on the settled catalogue (read-only)."""
    got: dict[str, int] = ctx.page.evaluate(COLUMNS_JS, [v.path for v in ctx.data.venues])
    return got


def shared_visits(data: VenueData) -> dict[str, Callable[[CheckContext], Any]]:
    return {visit_key("/venues", width): measure for width in RULES}


def run(ctx: CheckContext) -> None:
    paths = [v.path for v in ctx.data.venues]
    for width, (low, high) in RULES.items():
        got, where = ctx.measured(CHECK.id, "/venues", width, measure)
        if got["cards"] < len(paths):
            ctx.problem(
                f"{len(paths)} venue cards at {width}px",
                f"{got['cards']} cards found",
                "h2/h3 > link",
                where,
            )
            continue
        columns = got["columns"]
        if columns < low or (high is not None and columns > high):
            want = f"exactly {low}" if high == low else f"at least {low}"
            ctx.problem(
                f"{want} card column(s) at {width}px",
                f"{columns} column(s)",
                "venue cards",
                where,
            )


CHECK = Check(
    id="responsive-layout",
    dimension="responsive",
    points=4,
    run=run,
    doc=__doc__ or "",
    clauses=[
        "catalogue.grid",
    ],
    tested=[Tested("catalogue.grid", "viewport width", tuple(f"{w} px" for w in sorted(RULES)))],
    shared_visits=shared_visits,
)
