"""The live catalogue: `GET /api/v1/models` through the project's OpenRouter client.

Hook only for now: the fetch goes through the project's gateway client once it has settled in its
package; until then `--live` says so and exits 2 rather than guessing.
"""

from __future__ import annotations

from harness.catalogue.source import Catalogue


class LiveCatalogueUnavailable(RuntimeError):
    pass


def fetch_live_catalogue(base_url: str, api_key: str) -> Catalogue:
    raise LiveCatalogueUnavailable(
        "--live is not wired to the gateway client yet; check against a snapshot file instead"
    )
