"""`python opencode_request_stub.py PORT LOG`: an OpenAI-compatible endpoint on 127.0.0.1:PORT that
appends every request body to LOG (one JSON object a line) and answers each with a one-chunk text
stream ("Done.", finish_reason stop). Run inside a loopback-only namespace beside OpenCode."""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CHUNKS = [
    {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Done."}}]},
    {
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
    },
]


class Recorder(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        with Path(sys.argv[2]).open("ab") as log:
            log.write(json.dumps({"path": self.path, "body": json.loads(body)}).encode() + b"\n")
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for chunk in CHUNKS:
            meta = {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "model": "stub"}
            self.wfile.write(f"data: {json.dumps({**meta, **chunk})}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Recorder).serve_forever()
