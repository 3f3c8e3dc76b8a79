"""The live catalogue: `GET /api/v1/models` through the project's OpenRouter client.

`fetch_live_catalogue(settings)` asks the round's own gateway: OpenRouter for a real round (needs
OPENROUTER_API_KEY), the project's simulator on 127.0.0.1 for a demo or rehearsal round. The
preflight asks the same way (`catalogue_from_client`) and compares with the same `check_candidate`.
"""

from __future__ import annotations

from harness.catalogue.source import Catalogue, catalogue_from_models
from harness.gateway.client import OpenRouterClient
from harness.gateway.errors import GatewayError
from records.inputs import RoundSettings


class LiveCatalogueUnavailable(RuntimeError):
    """The gateway's /models could not be read (no key, no connection, a bad answer)."""


def catalogue_from_client(client: OpenRouterClient, *, label: str | None = None) -> Catalogue:
    """`/models` as a Catalogue: every record the client parsed, unknown fields kept."""
    records = [model.model_dump(mode="json") for model in client.list_models()]
    return catalogue_from_models(records, base_url=label or client.base_url)


def fetch_live_catalogue(settings: RoundSettings) -> Catalogue:
    from harness.session.upstream import MissingApiKey, round_gateway

    try:
        with round_gateway(settings) as upstream:
            label = upstream.base_url
            if upstream.kind == "simulator":
                label = f"{upstream.base_url} (the project's simulator, round {settings.round_id})"
            with OpenRouterClient(upstream.base_url, upstream.api_key) as client:
                return catalogue_from_client(client, label=label)
    except (MissingApiKey, GatewayError) as exc:
        raise LiveCatalogueUnavailable(str(exc)) from exc
