"""Catalogue check: a round's cohort against an OpenRouter catalogue (snapshot file or live).

    python -m harness.catalogue check [--round ROUND] [--catalogue FILE] [--json OUT] [--live]

`source` loads catalogues, `check` compares (pure; the preflight uses the same function), `live`
fetches `/api/v1/models`.
"""

from harness.catalogue.check import (
    check_candidate,
    check_cohort,
    check_image_routes,
    render_table,
)
from records.catalogue import (
    DEFAULT_SNAPSHOT,
    Catalogue,
    CatalogueRoute,
    catalogue_from_models,
    load_snapshot,
)
from records.evidence.catalogue import CatalogueReport, Mismatch, RouteCheck

__all__ = [
    "DEFAULT_SNAPSHOT",
    "Catalogue",
    "CatalogueReport",
    "CatalogueRoute",
    "Mismatch",
    "RouteCheck",
    "catalogue_from_models",
    "check_candidate",
    "check_cohort",
    "check_image_routes",
    "load_snapshot",
    "render_table",
]
