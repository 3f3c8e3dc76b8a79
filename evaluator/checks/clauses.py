"""The atlas-rooms contract's clauses (its `contract.md`, quoted) and the clauses each gate owns.

A check names the clauses it owns in its spec (`Check.clauses`); `GATE_CLAUSES` names a gate's;
a clause nobody owns says why it is not scored (`evaluator/contract.py` holds the rules,
`python -m evaluator.traceability` the table generated from these).
"""

from __future__ import annotations

from evaluator.contract import Clause, Span
from evaluator.data import TYPE_LABELS

PAGE_KINDS = ("/", "/venues", "/venues/<slug>", "not-found page")
"""The contract's routes, as the kinds of page a check visits."""
TYPE_NAMES = tuple(TYPE_LABELS.values())
CONTROL_KINDS = ("type checkbox", "area select", "guests field")
"""The kinds of filter control: each is committed, pushed and restored on its own."""

CLAUSES: tuple[Clause, ...] = (
    # The business
    Clause(
        "business.brand",
        "**Atlas Rooms** — characterful rooms for gatherings, hired by the day, in Lisbon",
        "the brief's setting; the name itself is the `/` route's title clause",
    ),
    Clause(
        "business.data",
        "14 venues in `src/data/venues.json` (read-only for sessions; the evaluator reads the "
        "frozen copy in the task's `starter/`)",
    ),
    Clause(
        "business.fields",
        "Each venue: `slug`, `name`, `type` (one of `studio`, `loft`, `garden`, `hall`, "
        "`warehouse`, `rooftop`), `area` (slug) and `areaName` (display, may contain non-ASCII), "
        "`capacity` (max guests, integer), `priceBand` (`€`, `€€`, `€€€`), `summary`, "
        "`description` (one is ~2,000 characters), `image` (a path under `/media/…` or `null`)",
        "the data's shape, pinned by tests/test_task_artefacts.py; the checks read these fields "
        "as their oracle",
    ),
    Clause(
        "business.edge-cases",
        "Designed edge cases: one very long venue name, one ~2,000-character description, one "
        "venue whose `image` points to a file that does not exist, one with `image: null`, "
        "non-ASCII names/areas",
    ),
    # Routes
    Clause("route.home", '`/`: home; `document.title` contains "Atlas Rooms"'),
    Clause(
        "route.home.h1-link",
        'exactly one `h1`; a link whose name contains "Browse venues" going to `/venues`',
    ),
    Clause("route.catalogue", "`/venues`: catalogue with filters and results"),
    Clause("route.detail", "`/venues/<slug>`: venue detail"),
    Clause(
        "route.not-found",
        '`/venues/<unknown>` and any unknown path: not-found page: an `h1` containing "not found" '
        '(any case) and a link named "All venues" to `/venues`',
        spans=(Span("path", ("/venues/<unknown>", "any unknown path")),),
    ),
    # Shell
    Clause(
        "shell.landmarks",
        '`<html lang="en">`; landmarks `banner` (header), `navigation` named "Primary", `main`, '
        "`contentinfo` (footer); exactly one `h1` per page",
        spans=(Span("page", PAGE_KINDS),),
    ),
    Clause(
        "shell.skip-link",
        'A skip link named "Skip to content" is the first focusable element and moves focus to '
        "`main`",
    ),
    Clause(
        "shell.nav-links",
        'Primary nav contains links named "Venues" (`/venues`) and "About" (`/#about`) at least',
    ),
    Clause(
        "shell.focus",
        "Every interactive element is reachable with Tab and shows a visible focus indicator "
        "(outline or box-shadow) when focused from the keyboard",
        spans=(Span("page", PAGE_KINDS),),
    ),
    Clause(
        "shell.menu",
        "Mobile navigation: below 768 px wide the primary nav links are hidden behind a button "
        'named "Menu" with `aria-expanded="false"` and `aria-controls` naming the nav list\'s id; '
        'activating it sets `aria-expanded="true"` and shows the links; activating it again '
        "hides them",
        spans=(Span("viewport width", ("360 px", "767 px")),),
    ),
    Clause(
        "shell.menu-wide",
        'At 768 px and wider the links are visible and the "Menu" button is not displayed',
        spans=(Span("viewport width", ("768 px", "1440 px")),),
    ),
    Clause(
        "shell.overflow",
        "No horizontal overflow: `document.documentElement.scrollWidth <= window.innerWidth` at "
        "360, 768 and 1440 px on every route, in every state (menu open, dialog open, empty "
        "state)",
        spans=(
            Span("viewport width", ("360 px", "768 px", "1440 px")),
            Span("route", PAGE_KINDS),
            Span("state", ("menu open", "dialog open", "empty state")),
        ),
    ),
    Clause("shell.entrance", "Entrance transitions are finite (each ≤ 1 s)"),
    Clause(
        "shell.reduced-motion",
        "Under `prefers-reduced-motion: reduce` no CSS animation or transition with a non-zero "
        "duration runs (on load, opening the menu, opening the dialog)",
        spans=(Span("state", ("load", "opening the menu", "opening the dialog")),),
    ),
    # Catalogue
    Clause(
        "catalogue.types",
        "Filters (apply immediately on change, no submit button needed): a group (`fieldset`) "
        'with legend "Venue type": one checkbox per type, labelled with the type\'s display name '
        "(`Studio`, `Loft`, `Garden`, `Hall`, `Warehouse`, `Rooftop`)",
        spans=(Span("venue type", TYPE_NAMES),),
    ),
    Clause(
        "catalogue.types-any",
        "several may be checked; a venue matches if its type is any checked type",
    ),
    Clause(
        "catalogue.area",
        'a `select` labelled "Area" whose first option is "All areas" (value `""`), then one '
        "option per area (value = area slug, text = area display name)",
    ),
    Clause(
        "catalogue.guests",
        'a number input labelled "Minimum guests": venues with `capacity >= value` match',
        spans=(Span("minimum guests", ("capacity", "capacity + 1")),),
    ),
    Clause(
        "url.params",
        "URL state: query parameters `type` (comma-separated type slugs, e.g. "
        "`type=loft,studio`), `area` (area slug), `guests` (integer)",
    ),
    Clause(
        "url.unset",
        "Unset filters are omitted; with no filters the URL is exactly `/venues`",
    ),
    Clause(
        "url.push",
        "Each committed change (a checkbox toggle, an area selection, the guests field's "
        "`change` event) pushes one history entry",
        spans=(Span("committed change", CONTROL_KINDS),),
    ),
    Clause(
        "url.restore",
        "Loading a URL with these parameters (deep link, reload) restores both the controls and "
        "the results; Back/Forward restore them too",
        spans=(
            Span("filter control", CONTROL_KINDS),
            Span("restore", ("deep link", "reload", "Back", "Forward")),
        ),
    ),
    Clause(
        "catalogue.cards",
        "Results: each matching venue is a card whose heading (`h2` or `h3`) contains a link "
        "with the venue's name going to `/venues/<slug>`; cards keep the data file's order",
    ),
    Clause(
        "catalogue.count",
        'A polite live region (`role="status"` or `aria-live="polite"`) shows the count as '
        '"N venues" ("1 venue", "0 venues")',
    ),
    Clause(
        "catalogue.empty",
        'Empty state: when nothing matches, a message containing "No venues match" and a button '
        'named "Clear filters" that resets every filter (URL back to `/venues`, all 14 venues '
        "shown)",
    ),
    Clause(
        "catalogue.grid",
        "Responsive grid: at 1440 px the cards sit in at least 3 columns, at 768 px at least 2, "
        "at 360 px exactly 1",
        spans=(Span("viewport width", ("360 px", "768 px", "1440 px")),),
    ),
    Clause(
        "catalogue.media",
        "Media: each card shows the venue's local image; when a venue has no image or its file "
        "is missing, a designed placeholder (not a broken-image icon)",
        spans=(Span("venue image", ("a local image", "a missing file", "no image")),),
    ),
    Clause("catalogue.origin", "No request leaves the site's origin"),
    # Venue detail
    Clause(
        "detail.h1",
        "`h1` is exactly the venue name; it wraps (never clipped or overflowing) at 360 px",
    ),
    Clause(
        "detail.media",
        "Media: the venue image with a non-empty `alt`, or the designed placeholder (an element "
        'with `role="img"` and an accessible name) when the image is missing or absent; never a '
        "broken image",
    ),
    Clause(
        "detail.facts",
        'Facts in a description list (`dl`) with terms "Type", "Area", "Capacity" and "Price"',
    ),
    Clause("detail.description", "The full description text (long copy wraps, no overflow)"),
    Clause(
        "detail.enquire",
        'A button named "Enquire about this venue" that opens the enquiry dialog',
    ),
    # Enquiry dialog
    Clause(
        "dialog.role",
        '`role="dialog"` with `aria-modal="true"` and accessible name "Enquire about <venue name>"',
    ),
    Clause(
        "dialog.fields",
        'Fields, by label: "Name", "Email", "Event date" (`type="date"`), "Guests" (number), '
        '"Message" (optional), and a checkbox whose label contains "I agree to be contacted"',
    ),
    Clause(
        "dialog.buttons",
        'A button "Send enquiry" submits; a button named "Close" closes',
    ),
    Clause("dialog.novalidate", "The form uses `noValidate`"),
    Clause(
        "dialog.validation",
        "Validation on submit: Name, Email, Event date, Guests and the consent are required; "
        "Email must look like `local@domain.tld`; Event date must be after today (browser local "
        "date); Guests must be an integer from 1 to the venue's capacity",
        spans=(
            Span("required field", ("Name", "Email", "Event date", "Guests", "consent")),
            Span("email", ("local@domain.tld", "no local part", "no top-level domain")),
            Span("event date", ("today", "tomorrow")),
            Span("guests", ("0", "1", "capacity", "capacity + 1", "a fraction")),
        ),
    ),
    Clause(
        "dialog.invalid",
        'Each invalid field gets `aria-invalid="true"` and `aria-describedby` naming a visible '
        'element that holds its error text; valid fields have no `aria-invalid="true"`',
    ),
    Clause("dialog.first-invalid", "Focus moves to the first invalid field in form order"),
    Clause(
        "dialog.success",
        'Success: a valid submission shows, inside the dialog, a message containing "Thank you" '
        "and the venue name; nothing is sent over the network",
    ),
    Clause(
        "dialog.focus",
        "Focus: opening moves focus into the dialog; Tab and Shift+Tab stay inside it; Escape "
        'and "Close" close it; focus returns to the "Enquire about this venue" button',
    ),
    # Working rules for sessions
    Clause(
        "rules.dependencies",
        "No new dependencies (lockfile fixed; evaluation installs offline with `npm ci --offline`)",
    ),
    Clause(
        "rules.network",
        "no network",
        "a rule for the session, enforced by the harness's loopback-only sandbox (the app's own "
        "requests are catalogue.origin)",
    ),
    Clause(
        "rules.check-build",
        "keep `npm run check` (type-check) and `npm run build` green and run them",
    ),
    Clause(
        "rules.progress",
        "maintain `PROGRESS.md` (checked items `- [x]`, each naming the command that proves it)",
        "judged by the harness's verification-discipline score (scoring/verification.py), not "
        "by the evaluator",
    ),
    Clause(
        "rules.limits",
        "40 agent steps and 30 minutes at most",
        "enforced by the harness (the gateway's step limit and the session's time ceiling)",
    ),
    # Gates
    Clause("gate.install-build", "`install-build` (npm ci or npm run build fails)"),
    Clause("gate.root-page", "`root-page` (`/` blank or not Atlas Rooms)"),
    Clause(
        "gate.core-journey",
        "`core-journey` (a core journey cannot be completed: a journey-critical assertion of "
        "filter-journey, venue-detail or enquiry-form failed)",
    ),
    Clause(
        "gate.horizontal-overflow",
        "`horizontal-overflow` (more than 16 px of horizontal overflow anywhere)",
    ),
    Clause(
        "gate.keyboard-enquiry",
        "`keyboard-enquiry` (the enquiry dialog cannot be opened, filled and submitted by "
        "keyboard alone)",
    ),
    Clause("gate.axe-serious", "`axe-serious` (serious or critical axe violations remain)"),
    Clause(
        "gate.journey-critical",
        "The journey-critical assertions: filter — setting a filter shows the right venues, and "
        "clearing brings them all back; detail — a card's link opens that venue's page with its "
        "name, facts and description; enquiry — the dialog opens and a valid enquiry is sent, "
        "ending in the success message",
    ),
    Clause(
        "gate.other-problems",
        "Any other problem (the count's live region, a fact's term, a validation message) costs "
        "the check its points but leaves the journey, and the gate, intact",
    ),
    Clause(
        "gate.evaluator-error",
        "A gate the evaluator could not measure because its own code failed (a crashed probe, a "
        "check that did not run) has the status `evaluator_error`: the evaluation failed, and "
        "the submission is neither failed nor capped for it (`result.json` lists it in "
        "`evaluator_errors`)",
    ),
)


GATE_CLAUSES: dict[str, tuple[str, ...]] = {
    "install-build": ("gate.install-build", "rules.dependencies", "rules.check-build"),
    "root-page": ("gate.root-page", "route.home", "route.home.h1-link", "gate.evaluator-error"),
    "core-journey": (
        "gate.core-journey",
        "gate.journey-critical",
        "gate.other-problems",
        "gate.evaluator-error",
    ),
    "horizontal-overflow": (
        "gate.horizontal-overflow",
        "shell.overflow",
        "gate.evaluator-error",
    ),
    "keyboard-enquiry": ("gate.keyboard-enquiry", "gate.evaluator-error"),
    "axe-serious": ("gate.axe-serious", "gate.evaluator-error"),
}
"""The clauses each gate owns."""
