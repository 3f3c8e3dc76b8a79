"""The live catalogue: `GET /api/v1/models` through the project's OpenRouter client.

`fetch_live_catalogue(settings)` asks the round's own gateway: OpenRouter for a real round (needs
OPENROUTER_API_KEY), the project's simulator on 127.0.0.1 for a demo or rehearsal round. The
preflight asks the same way (`catalogue_from_client`) and compares with the same `check_candidate`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from gateway.client import OpenRouterClient
from gateway.errors import GatewayError, NotFoundError
from records.catalogue import Catalogue, catalogue_from_models
from records.inputs import RoundSettings, load_cohort


class LiveCatalogueUnavailable(RuntimeError):
    """The gateway's /models could not be read (no key, no connection, a bad answer)."""


def catalogue_from_client(
    client: OpenRouterClient, *, label: str | None = None, pinned: Sequence[str] = ()
) -> Catalogue:
    """`/models` as a Catalogue: every record the client parsed, unknown fields kept, and the
    endpoint lists of the `pinned` routes (those whose cohort entry pins providers)."""
    records = [model.model_dump(mode="json") for model in client.list_models()]
    catalogue = catalogue_from_models(records, base_url=label or client.base_url)
    return replace(catalogue, endpoints={route: _endpoints(client, route) for route in pinned})


def _endpoints(client: OpenRouterClient, route: str) -> list[dict[str, Any]]:
    author, _, slug = route.partition("/")
    try:
        found = client.endpoints(author, slug)
    except NotFoundError:  # an unknown route has no endpoints
        return []
    return [endpoint.model_dump(mode="json") for endpoint in found.endpoints]


def fetch_live_catalogue(settings: RoundSettings) -> Catalogue:
    from harness.session.upstream import MissingApiKey, round_gateway

    try:
        with round_gateway(settings) as upstream:
            label = upstream.base_url
            if upstream.kind == "simulator":
                label = f"{upstream.base_url} (the project's simulator, round {settings.round_id})"
            pinned = [c.route for c in load_cohort(settings.cohort_path).candidates if c.provider]
            with OpenRouterClient(upstream.base_url, upstream.api_key) as client:
                return catalogue_from_client(client, label=label, pinned=pinned)
    except (MissingApiKey, GatewayError) as exc:
        raise LiveCatalogueUnavailable(str(exc)) from exc
