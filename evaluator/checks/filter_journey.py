"""filter-journey (core journey "filter"): on `/venues` the three filters exist as the contract
names them (a "Venue type" group of six checkboxes, an "Area" select starting with "All areas"
and listing every area, a "Minimum guests" number input) and apply immediately. On one settled
page, without reloads, it sweeps (off the journey's recording: the video shows a visitor's
steps, not the sweep): every type alone (checked, then unchecked) and a few seeded combinations
(any checked type matches), every area alone (each non-ASCII one too), guest counts at each of
a seeded subset of capacities -1/0/+1 (capacity >= value, the boundary included); then, on the
recorded page, all three together. After every change exactly the matching venues are shown
(cards identified by the venue page they link to) in data order with the count "N venues" /
"1 venue" in a polite live region (role="status" or aria-live="polite"); a filter set with no
match shows "No venues match" and a "Clear filters" button that resets every control and brings
back all 14 venues."""

from __future__ import annotations

import random

from playwright.sync_api import Locator

from evaluator.checks._filters import (
    Controls,
    act_then_results,
    control_state,
    find_controls,
    set_guests,
    venue_path,
    wait_for_results,
)
from evaluator.checks._waits import ACTION_MS
from evaluator.checks.base import CheckContext, count_phrase, has_count, short_list, wait_until
from evaluator.checks.clauses import TYPE_NAMES
from evaluator.checks.spec import Check, Tested
from evaluator.data import TYPE_LABELS, Venue, VenueData

SEED = 17
"""Fixed: every submission gets the same sweep."""


class Sweep:
    """Judges the results after each change. Waits up to 3 s for the right cards while the page
    has been right so far; after two wrong results only briefly (a wrong page stays wrong)."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.wrong = 0

    def expect(
        self,
        step: str,
        expected: list[Venue],
        control: Locator | None = None,
        value: str | None = None,
    ) -> None:
        """Judge the results of a change: made before, or now in the page on `control` (a
        click, or committing `value`). Cards are matched by the venue page they link to."""
        ctx = self.ctx
        timeout = 3000 if self.wrong < 2 else 300
        want = [venue_path(v.slug) for v in expected]
        if control is None:
            seen = wait_for_results(ctx, want, timeout)
        else:
            seen = act_then_results(control, value, want, timeout)
        if seen.paths != want:
            self.wrong += 1
            ctx.problem(
                f"after {step}: {len(expected)} cards: {short_list([v.name for v in expected])}",
                f"{len(seen.names)} cards: {short_list(seen.names)}",
                "h2/h3 > link",
                critical=True,
            )
            return
        regions = seen.counts
        if not any(has_count(text, len(expected)) for text in regions):
            ctx.problem(
                f'after {step}: a polite live region (role="status" or aria-live="polite") '
                f'reading "{count_phrase(len(expected))}"',
                "live regions: "
                + (short_list([repr(t[:60]) for t in regions]) if regions else "none"),
                '[role=status], [aria-live="polite"]',
            )


def combinations(data: VenueData) -> list[list[str]]:
    """A few seeded combinations of two or three types, each matching some venues."""
    rng = random.Random(SEED)
    slugs = list(TYPE_LABELS)
    combos: list[list[str]] = []
    while len(combos) < 3:
        combo = sorted(rng.sample(slugs, rng.choice((2, 3))), key=slugs.index)
        if combo not in combos and data.matching(set(combo)):
            combos.append(combo)
    return combos


def guest_values(data: VenueData) -> list[int]:
    """Each capacity of a seeded subset (always the smallest and the largest) -1, 0 and +1."""
    capacities = sorted({v.capacity for v in data.venues})
    rng = random.Random(SEED)
    chosen = {capacities[0], capacities[-1], *rng.sample(capacities[1:-1], 3)}
    return sorted({n + d for n in chosen for d in (-1, 0, 1) if n + d >= 1})


def _check_area_options(ctx: CheckContext, controls: Controls) -> None:
    options = controls.area.evaluate(
        "s => [...s.options].map(o => [o.value, o.textContent.replace(/\\s+/g, ' ').trim()])"
    )
    if not options or options[0] != ["", "All areas"]:
        ctx.problem(
            'the Area select\'s first option "All areas" with value ""',
            f"first option: {options[0] if options else 'none'}",
            'label="Area" >> option',
        )
    want = dict(ctx.data.areas)
    got = {value: text for value, text in options[1:]}
    if got != want:
        ctx.problem(
            "one option per area (value = area slug, text = area name): "
            + short_list([f"{k}={v}" for k, v in want.items()], 8),
            short_list([f"{k}={v}" for k, v in got.items()], 8),
            'label="Area" >> option',
        )


def _sweep(ctx: CheckContext, controls: Controls, sweep: Sweep) -> None:
    """Every type alone, seeded combinations, every area alone, guest boundaries."""
    data = ctx.data
    everything = data.venues
    # Each type is first checked as a visitor does (Playwright's click, with its actionability
    # checks); the other changes are made in the page, one round trip each with the wait.
    for slug, label in TYPE_LABELS.items():
        box = controls.types[slug]
        box.check(timeout=ACTION_MS)
        sweep.expect(f'checking only "{label}"', data.matching({slug}))
        sweep.expect(f'unchecking "{label}" again', everything, control=box)
    for combo in combinations(data):
        for i, slug in enumerate(combo):
            sweep.expect(
                "checking " + " + ".join(TYPE_LABELS[s] for s in combo[: i + 1]),
                data.matching(set(combo[: i + 1])),
                control=controls.types[slug],
            )
        for i, slug in enumerate(combo):
            sweep.expect(
                f'then unchecking "{TYPE_LABELS[slug]}"',
                data.matching(set(combo[i + 1 :])),
                control=controls.types[slug],
            )
    # The first area and the first guest count through Playwright's real input, the rest in
    # the page.
    for i, (area, name) in enumerate(data.areas.items()):
        step, want = f'choosing only the area "{name}"', data.matching(area=area)
        if i == 0:
            controls.area.select_option(area, timeout=ACTION_MS)
            sweep.expect(step, want)
        else:
            sweep.expect(step, want, controls.area, area)
    sweep.expect('choosing "All areas" again', everything, controls.area, "")
    for i, guests in enumerate(guest_values(data)):
        step, want = f"Minimum guests = {guests}", data.matching(guests=guests)
        if i == 0:
            set_guests(controls, str(guests))
            sweep.expect(step, want)
        else:
            sweep.expect(step, want, controls.guests, str(guests))
    sweep.expect("emptying Minimum guests", everything, controls.guests, "")


def run(ctx: CheckContext) -> None:
    ctx.goto("/venues", width=1440)
    data = ctx.data
    controls: Controls = find_controls(ctx, critical=True)
    _check_area_options(ctx, controls)
    with ctx.off_the_record() as side:
        side.goto("/venues", width=1440)
        sweep = Sweep(side)
        _sweep(side, find_controls(side, critical=True), sweep)
    sweep.ctx = ctx  # a page that was wrong in the sweep gets the short waits here too

    # All three filters together, down to the empty state and back with "Clear filters".
    types = {"loft", "studio"}
    for slug in ("loft", "studio"):
        controls.types[slug].check(timeout=ACTION_MS)
    both = data.matching(types)
    sweep.expect('checking "Loft" and "Studio"', both)
    area = next(s for s in data.areas if 0 < len(data.matching(types, s)) < len(both))
    controls.area.select_option(area, timeout=ACTION_MS)
    in_area = data.matching(types, area)
    sweep.expect(f'choosing the area "{data.areas[area]}" as well', in_area)
    boundary = min(v.capacity for v in in_area)
    set_guests(controls, str(boundary))
    sweep.expect(
        f"Minimum guests = {boundary} as well (a venue's exact capacity must still match)",
        data.matching(types, area, boundary),
    )
    too_many = max(v.capacity for v in in_area) + 1
    set_guests(controls, str(too_many))
    sweep.expect(f"Minimum guests = {too_many}", [])
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
    clear.first.click(timeout=ACTION_MS)
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
    clauses=[
        "route.catalogue",
        "catalogue.types",
        "catalogue.types-any",
        "catalogue.area",
        "catalogue.guests",
        "catalogue.count",
        "catalogue.empty",
        "business.edge-cases",
        "gate.journey-critical",
    ],
    tested=[
        Tested(
            "catalogue.types",
            "venue type",
            TYPE_NAMES,
            "Each alone, then three seeded combinations.",
        ),
        Tested(
            "catalogue.guests",
            "minimum guests",
            ("capacity - 1", "capacity", "capacity + 1"),
            "At the smallest, the largest and three seeded capacities of the data.",
        ),
    ],
    journey="filter",
    journey_critical="setting a filter shows the right venues, and clearing brings them all back",
)
