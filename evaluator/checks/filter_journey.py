"""filter-journey (core journey "filter"): on `/venues` the three filters exist as the contract
names them (a "Venue type" group of six checkboxes, an "Area" select starting with "All areas"
and listing every area, a "Minimum guests" number input) and apply immediately: checking and
unchecking types (any checked type matches), choosing an area and committing a guest count
(capacity >= value, the boundary included) show exactly the matching venues in data order with
the count "N venues" / "1 venue" in a polite live region (role="status" or
aria-live="polite"); a filter set with no match shows "No venues match" and a
"Clear filters" button that resets every control and brings back all 14 venues."""

from __future__ import annotations

from evaluator.checks._filters import (
    Controls,
    control_state,
    find_controls,
    set_guests,
    wait_for_names,
)
from evaluator.checks.base import CheckContext, count_phrase, has_count, short_list, wait_until
from evaluator.checks.spec import Check
from evaluator.data import TYPE_LABELS


def _expect(ctx: CheckContext, step: str, expected: list[str]) -> None:
    seen = wait_for_names(ctx, expected)
    if seen != expected:
        ctx.problem(
            f"after {step}: {len(expected)} cards: {short_list(expected)}",
            f"{len(seen)} cards: {short_list(seen)}",
            "h2/h3 > link",
            critical=True,
        )
        return
    regions = ctx.count_text()
    if not any(has_count(text, len(expected)) for text in regions):
        ctx.problem(
            f'after {step}: a polite live region (role="status" or aria-live="polite") reading '
            f'"{count_phrase(len(expected))}"',
            "live regions: " + (short_list([repr(t[:60]) for t in regions]) if regions else "none"),
            '[role=status], [aria-live="polite"]',
        )


def run(ctx: CheckContext) -> None:
    ctx.goto("/venues", width=1440)
    data = ctx.data
    controls: Controls = find_controls(ctx, critical=True)

    options = controls.area.evaluate(
        "s => [...s.options].map(o => [o.value, o.textContent.replace(/\\s+/g, ' ').trim()])"
    )
    if not options or options[0] != ["", "All areas"]:
        ctx.problem(
            'the Area select\'s first option "All areas" with value ""',
            f"first option: {options[0] if options else 'none'}",
            'label="Area" >> option',
        )
    want = {slug: name for slug, name in data.areas.items()}
    got = {value: text for value, text in options[1:]}
    if got != want:
        ctx.problem(
            "one option per area (value = area slug, text = area name): "
            + short_list([f"{k}={v}" for k, v in want.items()], 8),
            short_list([f"{k}={v}" for k, v in got.items()], 8),
            'label="Area" >> option',
        )

    types = ["loft", "studio"]
    controls.types["loft"].check()
    _expect(ctx, f'checking "{TYPE_LABELS["loft"]}"', [v.name for v in data.matching({"loft"})])
    controls.types["studio"].check()
    _expect(
        ctx,
        'checking "Studio" as well',
        [v.name for v in data.matching(set(types))],
    )
    controls.types["loft"].uncheck()
    _expect(ctx, 'unchecking "Loft"', [v.name for v in data.matching({"studio"})])
    controls.types["loft"].check()
    both = data.matching(set(types))
    wait_for_names(ctx, [v.name for v in both])

    area = next(slug for slug in data.areas if 0 < len(data.matching(set(types), slug)) < len(both))
    controls.area.select_option(area)
    in_area = data.matching(set(types), area)
    _expect(ctx, f'choosing the area "{data.areas[area]}"', [v.name for v in in_area])

    boundary = min(v.capacity for v in in_area)
    set_guests(controls, str(boundary))
    _expect(
        ctx,
        f"Minimum guests = {boundary} (a venue's exact capacity must still match)",
        [v.name for v in data.matching(set(types), area, boundary)],
    )

    too_many = max(v.capacity for v in in_area) + 1
    set_guests(controls, str(too_many))
    _expect(ctx, f"Minimum guests = {too_many}", [])
    page = ctx.page
    empty = page.get_by_text("No venues match")
    if not ctx.is_visible(empty):
        ctx.problem('a visible "No venues match" message', "not shown", 'text="No venues match"')
    clear = page.get_by_role("button", name="Clear filters", exact=True)
    if not ctx.is_visible(clear):
        raise ctx.stop(
            'a "Clear filters" button in the empty state',
            "not shown",
            'role=button[name="Clear filters"]',
            critical=True,
        )
    clear.first.click()
    # All 14 are back (their names and order are catalogue-listing's business).
    seen = wait_until(ctx.page, lambda: len(ctx.venue_links()) == len(data.venues), 3000)
    if not seen:
        ctx.problem(
            f'"Clear filters" brings back all {len(data.venues)} venues',
            f"{len(ctx.venue_links())} cards",
            "h2/h3 > link",
            critical=True,
        )
    elif not any(has_count(t, len(data.venues)) for t in ctx.count_text()):
        ctx.problem(
            f'after "Clear filters": a polite live region reading '
            f'"{count_phrase(len(data.venues))}"',
            f"live regions: {ctx.count_text() or 'none'}",
            "[role=status]",
        )
    state = control_state(controls)
    if state != {"types": [], "area": "", "guests": ""}:
        ctx.problem(
            '"Clear filters" resets every control (no type checked, "All areas", guests empty)',
            f"controls after clearing: {state}",
            "filter controls",
        )


CHECK = Check(
    id="filter-journey",
    dimension="functional",
    points=6,
    run=run,
    doc=__doc__ or "",
    journey="filter",
    journey_critical="setting a filter shows the right venues, and clearing brings them all back",
)
