"""The gateway a round's sessions talk to: the in-process simulator (demo) or OpenRouter (paid).

`round_gateway(settings)` yields the upstream base URL and key for the duration of a call;
`unit_proxy(...)` wraps it in the recording proxy that every agent request goes through.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.budget import Prices
from gateway.client import ModelInfo, OpenRouterClient
from gateway.proxy import RecordingProxy
from gateway.simulator import Simulator
from records.evidence.gateway import GatewayPolicy
from records.image_tool import ImageRoute, ImageTool, snapshot_image_route
from records.inputs import Candidate, RoundSettings
from records.io import RecordError

SIMULATOR_KEY = "sk-siteos-simulator"


class MissingApiKey(RuntimeError):
    """A paid round needs OPENROUTER_API_KEY in the environment."""


@dataclass(frozen=True)
class Upstream:
    kind: str
    base_url: str
    api_key: str

    @property
    def paid(self) -> bool:
        return self.kind == "openrouter"


def api_key_for(settings: RoundSettings) -> str:
    key = os.environ.get("OPENROUTER_API_KEY", "").strip()
    if not key:
        raise MissingApiKey(
            f"round {settings.round_id!r} uses the real OpenRouter gateway and spends money: set "
            "OPENROUTER_API_KEY in the environment (it reaches only the recording proxy, never the "
            "agent or the evidence). The offline demo round needs no key: SITEOS_ROUND=demo."
        )
    return key


def repetition_variations(settings: RoundSettings, repetition: int | None) -> dict[str, str]:
    """Candidate key -> script file of the round's `repetition_scripts` for this repetition."""
    if repetition is None:
        return {}
    return {
        key: by_repetition[repetition]
        for key, by_repetition in settings.repetition_scripts.items()
        if repetition in by_repetition
    }


@contextmanager
def round_gateway(settings: RoundSettings, repetition: int | None = None) -> Iterator[Upstream]:
    """The round's upstream: a simulator started for this call (the scripts of `repetition`,
    when the round varies them), or the real gateway."""
    if settings.gateway.kind == "openrouter":
        yield Upstream("openrouter", settings.gateway.base_url, api_key_for(settings))
        return
    variations = repetition_variations(settings, repetition)
    images = simulated_image_routes(settings)
    if settings.simulation is not None:  # a rehearsal: a real catalogue, scripted behaviour
        simulator = Simulator.from_rehearsal(
            settings, variations, api_key=SIMULATOR_KEY, image_routes=images
        )
    else:
        simulator = Simulator.from_cohort(
            settings.cohort_path, variations, api_key=SIMULATOR_KEY, image_routes=images
        )
    with simulator as sim:
        yield Upstream("simulator", sim.base_url, SIMULATOR_KEY)


def simulated_image_routes(settings: RoundSettings) -> list[dict[str, Any]]:
    """The image-output routes a simulated tools round's arms call, as the committed catalogue
    snapshot records them (real ids, prices and output modalities)."""
    routes = {a.manifest.tool.route for a in settings.load_arms() if a.manifest.tool is not None}
    return [snapshot_image_route(r) for r in sorted(r for r in routes if r)]


def list_catalogue(upstream: Upstream) -> list[ModelInfo]:
    """The upstream's catalogue (`GET /models`, free)."""
    with OpenRouterClient(upstream.base_url, upstream.api_key) as client:
        return client.list_models()


def image_route(tool: ImageTool | None, models: list[ModelInfo]) -> ImageRoute | None:
    """The catalogue's (`models`) record of the tool's image route, for the proxy's image calls;
    None for no tool or a placeholder. A route the catalogue does not list, or lists without
    image output, is refused (RecordError names it)."""
    if tool is None or tool.route is None:
        return None
    for model in models:
        if model.id == tool.route:
            return ImageRoute.from_record(model.model_dump())
    raise RecordError(f"image route {tool.route!r}: not in the gateway's catalogue (/models)")


def catalogue_prices(route: str, models: list[ModelInfo]) -> Prices | None:
    """The route's prices, maximum output and context window in the catalogue (`models`), for
    the proxy's hard budget and the agents that must be told the window. The maximum output:
    `top_provider.max_completion_tokens`, else the context length (an answer never outgrows its
    context window), else unknown."""
    for model in models:
        if model.id == route:
            top = model.top_provider or {}
            most = top.get("max_completion_tokens") or model.context_length
            pricing = model.pricing
            window = model.context_length
            return Prices(
                pricing.per_token("prompt"),
                pricing.per_token("completion"),
                most if isinstance(most, int) and most > 0 else None,
                window if isinstance(window, int) and window > 0 else None,
            )
    return None


def policy_for(candidate: Candidate) -> GatewayPolicy:
    """The frozen request policy of a candidate's route: its reasoning and its provider pin."""
    pin = candidate.provider
    return GatewayPolicy(
        reasoning=candidate.reasoning,
        only=[p.slug for p in pin.only] if pin else [],
        quantizations=list(pin.quantizations) if pin else [],
    )


@contextmanager
def unit_proxy(
    upstream: Upstream,
    candidate: Candidate,
    settings: RoundSettings,
    log_path: Path,
    socket_path: Path,
    stall_seconds: float | None = None,
    tool: ImageTool | None = None,
) -> Iterator[RecordingProxy]:
    """The recording proxy with the frozen policy, this round's step ceiling and hard budget
    (catalogue prices), and `stall_seconds` (default: the round's outage window) as the longest
    a stream may bring no data, with keep-alives or in silence. A tools arm's `tool` names the
    image route the proxy allows image calls on (metered against the same budget)."""
    models = list_catalogue(upstream)  # once: the route's prices and the tool's image route
    proxy = RecordingProxy(
        upstream=upstream.base_url,
        api_key=upstream.api_key,
        log_path=log_path,
        policy=policy_for(candidate),
        step_ceiling=settings.ceilings.steps,
        budget_usd=settings.ceilings.budget_usd,
        socket_path=socket_path,
        fetch_generation=upstream.paid,
        prices=catalogue_prices(candidate.route, models),
        stall_seconds=stall_seconds or settings.ceilings.outage_seconds,
        upstream_read_timeout=stall_seconds or settings.ceilings.outage_seconds,
        image_route=image_route(tool, models),
    )
    with proxy:
        yield proxy
