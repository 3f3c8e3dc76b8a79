"""The image tool a `tools` arm gives the agent, and the image-output route it may call.

A tools arm's `arm.json` names its `tool` (`ImageTool`): the command (`siteos-image`) and its
backend. `gateway`: an image-output route of the catalogue, called through the unit's recording
proxy as chat/completions with `modalities: ["image", "text"]` and metered against the unit's
budget; `placeholder` (the placebo): the same command and notice, writing a plain deterministic
image locally with no model and no cost. `ImageRoute` is what the proxy and the simulator know of
the route: its catalogue prices (`pricing.image_output` is USD per image output token, as the
catalogue's real image routes price it: Gemini 2.5 Flash Image's 0.00003 x ~1,290 tokens is about
$0.039 an image) and its output limit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from records.base import Frozen
from records.io import RecordError
from records.layout import REPO_ROOT

COMMAND: Literal["siteos-image"] = "siteos-image"
TOOL_SCRIPT = REPO_ROOT / "harness" / "session" / "tools" / COMMAND
"""The command's script (the harness binds its folder into the sandbox; an arm's hash covers it)."""
IMAGE_MODALITIES = ["image", "text"]
"""The `modalities` an image request names (OpenRouter: `ChatRequest.modalities`)."""


class ImageTool(Frozen):
    """`arm.json`'s `tool` (schema 2): the command the arm puts on the agent's PATH."""

    command: Literal["siteos-image"] = COMMAND
    backend: Literal["gateway", "placeholder"] = Field(
        description="gateway: an image-output route through the recording proxy; placeholder: a "
        "plain deterministic image written locally, no model, cost 0 (the placebo)"
    )
    route: str | None = Field(
        default=None, description="the image-output route (gateway backend only)"
    )
    max_tokens: int = Field(
        default=4096,
        ge=1,
        le=65536,
        description="the output limit each image request names (text and image tokens); the "
        "budget's worst case for one call is prompt + this many tokens at the dearer of the "
        "completion and image_output prices",
    )

    @model_validator(mode="after")
    def _route(self) -> ImageTool:
        if self.backend == "gateway" and not self.route:
            raise ValueError("a gateway image tool names its image-output route")
        if self.backend == "placeholder" and self.route is not None:
            raise ValueError("a placeholder image tool calls no route")
        return self


class ImageRoute(Frozen):
    """An image-output route as the proxy meters it (from the catalogue's `/models` record)."""

    id: str
    prompt: float = Field(description="USD per prompt token")
    completion: float = Field(description="USD per text completion token")
    image_output: float = Field(description="USD per image output token")
    max_output: int | None = Field(default=None, description="top_provider.max_completion_tokens")
    output_modalities: list[str]

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> ImageRoute:
        """The route of one `/models` record; refuses a route that does not output images."""
        rid = str(record.get("id") or "")
        modalities = list((record.get("architecture") or {}).get("output_modalities") or [])
        if "image" not in modalities:
            raise RecordError(
                f"route {rid!r}: architecture.output_modalities {modalities} has no 'image': "
                "not an image-output route"
            )
        pricing = record.get("pricing") or {}
        top = record.get("top_provider") or {}

        def price(key: str) -> float:
            value = pricing.get(key)
            return float(value) if value not in (None, "") else 0.0

        most = top.get("max_completion_tokens") if isinstance(top, dict) else None
        return cls(
            id=rid, prompt=price("prompt"), completion=price("completion"),
            image_output=price("image_output"),
            max_output=most if isinstance(most, int) and most > 0 else None,
            output_modalities=modalities,
        )  # fmt: skip

    def cost(self, prompt_tokens: int, completion_tokens: int, image_tokens: int) -> float:
        """What a call costs at these prices: `completion_tokens` counts the image tokens too
        (as the gateway reports them), which are priced at `image_output`."""
        text = max(0, completion_tokens - image_tokens)
        return (
            prompt_tokens * self.prompt + text * self.completion + image_tokens * self.image_output
        )


def snapshot_image_route(route: str, snapshot: Path | None = None) -> dict[str, Any]:
    """The committed catalogue snapshot's (or `snapshot`'s) record of an image-output route
    (errors name it)."""
    # imported here: records.catalogue imports the round inputs, which import the arms (this)
    from records.catalogue import DEFAULT_SNAPSHOT, load_snapshot

    snapshot = snapshot or DEFAULT_SNAPSHOT
    catalogue = load_snapshot(snapshot)
    record = catalogue.raw.get(route)
    if record is None:
        raise RecordError(f"{snapshot}: no route {route!r} in the catalogue snapshot")
    ImageRoute.from_record(record)  # refuses a route without image output
    return record
