"""Extract the response schemas the simulator must satisfy from OpenRouter's OpenAPI spec.

    python tests/data/openrouter/extract_schemas.py ../shared/reference/openrouter/openapi.json

writes `schemas.json` beside this file: `{"source": ..., "roots": {...}, "$defs": {...}}`, every
`#/components/schemas/X` reference rewritten to `#/$defs/X` (JSON Schema 2020-12, as OpenAPI 3.1).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
# what the simulator serves -> the spec schema of that response
ROOTS = {
    "models": "ModelsListResponse",
    "chat": "ChatResult",
    "chat_chunk": "ChatStreamChunk",
    "chat_request": "ChatRequest",  # what the image tool sends (modalities)
    "generation": "GenerationResponse",
    "key": "KeyResponse",  # inline in the spec's GET /key; named here
    "messages": "MessagesResult",
    "messages_event": "MessagesStreamEvents",  # the `data` of each /messages SSE event
    "messages_error": "AnthropicMessagesErrorResponse",
    "responses": "OpenResponsesResult",
    "responses_event": "StreamEvents",  # the `data` of each /responses SSE event
    "error_400": "BadRequestResponse",
    "error_401": "UnauthorizedResponse",
    "error_402": "PaymentRequiredResponse",
    "error_404": "NotFoundResponse",
    "error_429": "TooManyRequestsResponse",
    "error_503": "ServiceUnavailableResponse",
}
REF = re.compile(r"#/components/schemas/([A-Za-z0-9_.-]+)")


def extract(spec: dict[str, Any]) -> dict[str, Any]:
    schemas = dict(spec["components"]["schemas"])
    key = spec["paths"]["/key"]["get"]["responses"]["200"]["content"]["application/json"]
    schemas["KeyResponse"] = {k: v for k, v in key.items() if k != "example"}
    wanted: dict[str, Any] = {}
    todo = list(ROOTS.values())
    while todo:
        name = todo.pop()
        if name in wanted:
            continue
        wanted[name] = schemas[name]
        todo.extend(REF.findall(json.dumps(schemas[name])))
    text = REF.sub(r"#/$defs/\1", json.dumps(dict(sorted(wanted.items()))))
    return {
        "source": "OpenRouterTeam/typescript-sdk .speakeasy/in.openapi.yaml (2026-08-22), "
        "via ../shared/reference/openrouter/openapi.json",
        "roots": ROOTS,
        "$defs": json.loads(text),
    }


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    out = HERE / "schemas.json"
    out.write_text(json.dumps(extract(spec), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
