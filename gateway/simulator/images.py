"""The simulator's image routes: deterministic images for image-output requests.

An image route (a catalogue record whose `architecture.output_modalities` has "image", e.g.
`google/gemini-2.5-flash-image` from the committed snapshot) answers chat/completions with
`modalities: ["image", "text"]` as OpenRouter does: one PNG as a base64 data URL in
`choices[0].message.images[]`, a line of text, and usage whose completion tokens include
`IMAGE_TOKENS` image tokens (`completion_tokens_details.image_tokens`), costed at the route's
catalogue prices (`ImageRoute.cost`: image tokens x `pricing.image_output`). The image is a
small gradient drawn in pure Python, its colours seeded from the prompt's SHA-256, so the same
prompt always gives the same bytes.
"""

from __future__ import annotations

import base64
import hashlib
import math
import struct
import zlib
from typing import Any

from records.image_tool import ImageRoute

IMAGE_TOKENS = 1290  # what Gemini 2.5 Flash Image reports for one 1024x1024 image
WIDTH, HEIGHT = 320, 200
TEXT = "Here is the image you asked for."


class ImageRequestError(ValueError):
    """A request the image route cannot answer (the message says why)."""


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def png(seed: bytes, width: int = WIDTH, height: int = HEIGHT) -> bytes:
    """An RGB PNG: a diagonal gradient between two colours of `seed`, with a soft disc."""
    a, b = seed[0:3], seed[3:6]
    cx, cy, r = width * (0.25 + seed[6] / 512), height * (0.3 + seed[7] / 640), height / 4
    rows = bytearray()
    for y in range(height):
        rows.append(0)  # filter: none
        for x in range(width):
            t = (x / width + y / height) / 2
            pixel = [round(a[i] * (1 - t) + b[i] * t) for i in range(3)]
            if math.hypot(x - cx, y - cy) < r:
                pixel = [min(255, v + 60) for v in pixel]
            rows.extend(pixel)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(bytes(rows), 9))
        + _chunk(b"IEND", b"")
    )


def prompt_text(body: dict[str, Any]) -> str:
    """The request's user text (string contents and text parts)."""
    parts: list[str] = []
    for message in body.get("messages") or []:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [str(p.get("text")) for p in content if isinstance(p, dict) and p.get("text")]
    return "\n".join(parts)


def image_answer(
    route: ImageRoute, body: dict[str, Any], generation_id: str, created: int, provider: str
) -> tuple[dict[str, Any], dict[str, Any], float]:
    """(the chat/completions JSON body, its usage numbers for the generation record, its cost)
    of one image request; raises ImageRequestError for one the route cannot answer."""
    modalities = body.get("modalities")
    if not isinstance(modalities, list) or "image" not in modalities:
        raise ImageRequestError(
            f'{route.id} is an image route in this simulator: name modalities ["image", "text"]'
        )
    if body.get("stream"):
        raise ImageRequestError("the simulator's image routes do not stream")
    prompt = prompt_text(body)
    if not prompt.strip():
        raise ImageRequestError("an image request needs a user message describing the image")
    image = png(hashlib.sha256(prompt.encode()).digest())
    prompt_tokens = max(1, math.ceil(len(prompt.encode()) / 4))
    text_tokens = math.ceil(len(TEXT) / 4)
    completion = text_tokens + IMAGE_TOKENS
    limit = body.get("max_tokens") or body.get("max_completion_tokens")
    if isinstance(limit, int) and limit < completion:
        raise ImageRequestError(
            f"max_tokens {limit} is below one image ({IMAGE_TOKENS} image tokens)"
        )
    cost = route.cost(prompt_tokens, completion, IMAGE_TOKENS)
    prompt_cost = prompt_tokens * route.prompt
    url = "data:image/png;base64," + base64.b64encode(image).decode()
    usage = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion,
        "total_tokens": prompt_tokens + completion,
        "cost": cost,
        "is_byok": False,
        "prompt_tokens_details": {"cached_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "image_tokens": IMAGE_TOKENS},
        "cost_details": {
            "upstream_inference_cost": cost,
            "upstream_inference_prompt_cost": prompt_cost,
            "upstream_inference_completions_cost": cost - prompt_cost,
        },
    }
    message = {
        "role": "assistant",
        "content": TEXT,
        "refusal": None,
        "images": [{"type": "image_url", "image_url": {"url": url}}],
    }
    answer = {
        "id": generation_id,
        "provider": provider,
        "model": route.id,
        "object": "chat.completion",
        "created": created,
        "system_fingerprint": None,
        "choices": [{"index": 0, "logprobs": None, "finish_reason": "stop",
                     "native_finish_reason": "STOP", "message": message}],
        "usage": usage,
    }  # fmt: skip
    numbers = {"prompt_tokens": prompt_tokens, "completion_tokens": completion,
               "image_tokens": IMAGE_TOKENS}  # fmt: skip
    return answer, numbers, cost
