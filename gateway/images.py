"""Image calls on the wire: which chat/completions request asks for images, and what its answer
carried.

OpenRouter generates images through chat/completions: the request names `modalities:
["image", "text"]` and the answer carries each image as a base64 data URL in
`choices[0].message.images[]` (`{"type": "image_url", "image_url": {"url": "data:image/png;
base64,..."}}`, the spec's `ChatAssistantImages`), with the image tokens in
`usage.completion_tokens_details.image_tokens`. The proxy logs the answer with each data URL's
base64 replaced by its size and hash (`ImageOutput`), so gateway.jsonl stays small.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from records.evidence.gateway import ImageOutput
from records.image_tool import ImageRoute

DATA_URL = re.compile(r"^data:(?P<type>[\w.+-]+/[\w.+-]+);base64,(?P<data>.*)$", re.DOTALL)


def wants_image(body: dict[str, Any], route: ImageRoute | None) -> bool:
    """An image call: the request asks for image output, or names the unit's image route."""
    modalities = body.get("modalities")
    asks = isinstance(modalities, list) and "image" in modalities
    return asks or (route is not None and body.get("model") == route.id)


def decode_data_url(url: str) -> tuple[str, bytes] | None:
    """(media type, bytes) of a base64 data URL; None for anything else."""
    match = DATA_URL.match(url)
    if match is None:
        return None
    try:
        return match["type"], base64.b64decode(match["data"], validate=True)
    except (binascii.Error, ValueError):
        return None


@dataclass
class ImageFields:
    images: list[ImageOutput] = field(default_factory=list)
    image_tokens: int | None = None
    logged_body: str = ""


def _message_images(data: Any) -> list[Any]:
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return []
    message = choices[0].get("message")
    images = message.get("images") if isinstance(message, dict) else None
    return images if isinstance(images, list) else []


def image_fields(raw: bytes) -> ImageFields:
    """The images of a non-streamed chat/completions answer, its image tokens, and the body to
    log (each image's base64 replaced by `<N bytes, sha256 H>`; a body that is no JSON as is)."""
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return ImageFields(logged_body=raw[:4000].decode("utf-8", errors="replace"))
    out = ImageFields()
    for item in _message_images(data):
        url = (item.get("image_url") or {}).get("url") if isinstance(item, dict) else None
        decoded = decode_data_url(url) if isinstance(url, str) else None
        if decoded is None:
            continue
        media_type, content = decoded
        digest = hashlib.sha256(content).hexdigest()
        out.images.append(ImageOutput(media_type=media_type, bytes=len(content), sha256=digest))
        cut = f"<{len(content)} bytes, sha256 {digest}>"
        item["image_url"]["url"] = f"data:{media_type};base64,{cut}"
    usage = data.get("usage") if isinstance(data, dict) else None
    details = usage.get("completion_tokens_details") if isinstance(usage, dict) else None
    tokens = details.get("image_tokens") if isinstance(details, dict) else None
    out.image_tokens = tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None
    out.logged_body = json.dumps(data)
    return out
