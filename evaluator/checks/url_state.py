"""url-state: the catalogue's filters live in the URL. Each committed change (a checkbox, the
area, the guests field's change) pushes exactly one history entry and writes `type`
(comma-separated slugs), `area` and `guests`, omitting unset filters (no filters = exactly
`/venues`) — swept on one page for every type alone, every area alone and a guest count, each
set and unset; then a history that changes each kind of control (a type, a second type, the
area, guests) is walked Back to its start and Forward to its end, and at each step, as after a
reload and a deep link, the URL, the results seen when the same filters were set by hand and
every control's own state (checked, selected, value) must be what that URL means; "Clear
filters" returns to `/venues`. It judges consistency with the interactive state, not the filter
logic (filter-journey's job)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from evaluator.browser import wait_quiet
from evaluator.checks._filters import control_state, find_controls, set_guests, wait_for_names
from evaluator.checks._waits import ACTION_MS, OBSERVE_MS, REACTION_MS
from evaluator.checks.base import CheckContext, CheckStopped, names, short_list, wait_until
from evaluator.checks.clauses import CONTROL_KINDS
from evaluator.checks.spec import Check, Tested
from evaluator.data import TYPE_LABELS


def _params(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query, keep_blank_values=True)


def _matches(url: str, want: dict[str, set[str] | str]) -> bool:
    parts = urlsplit(url)
    if parts.path.rstrip("/") != "/venues":
        return False
    query = _params(url)
    if set(query) != set(want):
        return False
    for key, value in want.items():
        if len(query[key]) != 1:
            return False
        if isinstance(value, set):
            if set(query[key][0].split(",")) != value:
                return False
        elif query[key][0] != value:
            return False
    return True


def _describe(want: dict[str, set[str] | str]) -> str:
    if not want:
        return "exactly /venues"
    parts = []
    for key, value in want.items():
        parts.append(f"{key}={','.join(sorted(value)) if isinstance(value, set) else value}")
    return "/venues?" + "&".join(parts)


def _meaning(want: dict[str, set[str] | str]) -> dict[str, object]:
    """The state of every control a URL with these parameters means (`control_state`'s shape)."""
    types = want.get("type", set())
    return {
        "types": sorted(types if isinstance(types, set) else {types}),
        "area": want.get("area", ""),
        "guests": want.get("guests", ""),
    }


class Commits:
    """Makes one committed change and judges the URL and the history entry it pushed. Waits up
    to 2 s for the URL while the page has been right so far, then only briefly."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.wrong = 0

    def commit(self, label: str, action: object, want: dict[str, set[str] | str]) -> bool:
        page = self.ctx.page
        before = page.evaluate("() => history.length")
        action()  # type: ignore[operator]
        timeout = REACTION_MS if self.wrong < 2 else 300
        if not wait_until(page, lambda: _matches(page.url, want), timeout):
            self.wrong += 1
            self.ctx.problem(
                f"after {label}: the URL {_describe(want)}", f"URL is {self.ctx.path()}", "location"
            )
            return False
        wait_quiet(page, OBSERVE_MS)
        pushed = page.evaluate("() => history.length") - before
        if pushed != 1:
            self.ctx.problem(
                f"{label} pushes exactly one history entry",
                f"history.length changed by {pushed}",
                "history",
            )
        return True


def _sweep(ctx: CheckContext, commits: Commits) -> None:
    """Every type alone, every area alone and a guest count, each set and then unset."""
    controls = find_controls(ctx)
    for slug, label in TYPE_LABELS.items():
        box = controls.types[slug]
        commits.commit(f'check only "{label}"', box.check, {"type": {slug}})
        commits.commit(f'uncheck "{label}" again', box.uncheck, {})
    for area, name in ctx.data.areas.items():
        commits.commit(
            f'choose only the area "{name}"',
            lambda a=area: controls.area.select_option(a, timeout=ACTION_MS),
            {"area": area},
        )
    commits.commit(
        'choose "All areas" again', lambda: controls.area.select_option("", timeout=ACTION_MS), {}
    )
    guests = str(ctx.data.ordinary.capacity)
    commits.commit(
        f"commit Minimum guests = {guests}",
        lambda: set_guests(controls, guests),
        {"guests": guests},
    )
    commits.commit("empty Minimum guests", lambda: set_guests(controls, ""), {})


def run(ctx: CheckContext) -> None:
    page = ctx.page
    data = ctx.data
    ctx.goto("/venues", width=1440)
    if not _matches(page.url, {}):
        ctx.problem("the unfiltered catalogue's URL is exactly /venues", ctx.path(), "location")
    commits = Commits(ctx)
    _sweep(ctx, commits)
    controls = find_controls(ctx)

    types = {"loft", "studio"}
    area = next(
        s for s in data.areas if 0 < len(data.matching(types, s)) < len(data.matching(types))
    )
    in_area = data.matching(types, area)
    guests = str(max(1, min(v.capacity for v in in_area) - 5))  # below every capacity: no boundary

    steps: list[tuple[str, object, dict[str, set[str] | str]]] = [
        (
            'check "Loft"',
            lambda: controls.types["loft"].check(timeout=ACTION_MS),
            {"type": {"loft"}},
        ),
        (
            'check "Studio"',
            lambda: controls.types["studio"].check(timeout=ACTION_MS),
            {"type": types},
        ),
        (
            f'choose area "{data.areas[area]}"',
            lambda: controls.area.select_option(area, timeout=ACTION_MS),
            {"type": types, "area": area},
        ),
        (
            f"commit Minimum guests = {guests}",
            lambda: set_guests(controls, guests),
            {"type": types, "area": area, "guests": guests},
        ),
    ]
    wants: list[dict[str, set[str] | str]] = [{}] + [want for _, _, want in steps]
    seen_results: list[list[str]] = [names(ctx.venue_links())]
    for label, action, want in steps:
        if not commits.commit(label, action, want):
            raise CheckStopped(label)  # the restores below compare with these states
        seen_results.append(names(ctx.venue_links()))

    def restored(how: str, index: int) -> None:
        """The results seen when these filters were set by hand, and every control in the state
        the URL means (each box checked or not, the area selected, the guests value)."""
        want_names = seen_results[index]
        got = wait_for_names(ctx, want_names)
        state = control_state(find_controls(ctx))
        meant = _meaning(wants[index])
        if state != meant:
            ctx.problem(
                f"{how} restores every control to what {_describe(wants[index])} means: {meant}",
                f"controls: {state}",
                "filter controls",
            )
        if got != want_names:
            ctx.problem(
                f"{how} restores the results: {short_list(want_names)}",
                f"results: {short_list(got)}",
                "h2/h3 > link",
            )

    # Back through every change (guests, area, the second type, the first), then Forward again.
    last = len(steps)
    for how, indices in (("Back", range(last - 1, -1, -1)), ("Forward", range(1, last + 1))):
        for index in indices:
            step = f"{how} to {_describe(wants[index])}"
            (page.go_back if how == "Back" else page.go_forward)()
            if not wait_until(page, lambda i=index: _matches(page.url, wants[i]), REACTION_MS):
                ctx.problem(step, f"URL is {ctx.path()}", "location")
                raise CheckStopped(step)  # the history is not the one built: stop walking it
            restored(step, index)
    page.reload()
    ctx.settle()
    restored("Reload", last)
    deep = f"/venues?type=studio,loft&area={area}&guests={guests}"
    ctx.goto(deep)
    restored(f"Loading the deep link {deep}", last)

    # Unsetting every filter by hand gives exactly /venues.
    controls = find_controls(ctx)
    controls.types["loft"].uncheck(timeout=ACTION_MS)
    controls.types["studio"].uncheck(timeout=ACTION_MS)
    controls.area.select_option("", timeout=ACTION_MS)
    set_guests(controls, "")
    if not wait_until(page, lambda: _matches(page.url, {}) and "?" not in page.url, REACTION_MS):
        ctx.problem(
            "with every filter unset the URL is exactly /venues", f"URL is {ctx.path()}", "location"
        )

    # "Clear filters" in the empty state returns to /venues.
    ctx.goto("/venues?guests=100000")
    clear = page.get_by_role("button", name="Clear filters", exact=True)
    if ctx.is_visible(clear):
        clear.first.click(timeout=ACTION_MS)
        if not wait_until(
            page, lambda: _matches(page.url, {}) and "?" not in page.url, REACTION_MS
        ):
            ctx.problem(
                '"Clear filters" sets the URL back to exactly /venues',
                f"URL is {ctx.path()}",
                'role=button[name="Clear filters"]',
            )
    # Without the button the empty state is filter-journey's failure, not this check's.


CHECK = Check(
    id="url-state",
    dimension="functional",
    points=5,
    run=run,
    doc=__doc__ or "",
    clauses=[
        "url.params",
        "url.unset",
        "url.push",
        "url.restore",
        "catalogue.empty",
    ],
    placement="sweep",
    tested=[
        Tested(
            "url.push",
            "committed change",
            CONTROL_KINDS,
            "Every type and every area, each set and unset, and one guest count set and emptied.",
        ),
        Tested(
            "url.restore",
            "filter control",
            CONTROL_KINDS,
            "A history of four changes (a "
            "type, a second type, the area, guests), every control compared at each step.",
        ),
        Tested(
            "url.restore",
            "restore",
            ("deep link", "reload", "Back", "Forward"),
            "Back through all four changes, then Forward through them.",
        ),
    ],
)
