"""A static server for `dist/` on 127.0.0.1 with the client-side-routing fallback.

Unknown paths that look like pages (no file extension, or a request that accepts HTML) get
`index.html`; unknown files (e.g. a missing `/media/x.webp`) get a real 404 so a missing image
stays missing. Paths never escape `dist/` (no `..`, no symlinks out).
"""

from __future__ import annotations

import mimetypes
import posixpath
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

mimetypes.add_type("application/javascript", ".js")
mimetypes.add_type("application/javascript", ".mjs")
mimetypes.add_type("text/css", ".css")
mimetypes.add_type("image/svg+xml", ".svg")
mimetypes.add_type("image/webp", ".webp")
mimetypes.add_type("image/avif", ".avif")
mimetypes.add_type("font/woff2", ".woff2")
mimetypes.add_type("application/manifest+json", ".webmanifest")


def resolve(root: Path, url_path: str, accept: str = "") -> tuple[Path | None, bool]:
    """Map a URL path to a file under `root`: (file or None, used_fallback)."""
    path = unquote(urlsplit(url_path).path)
    parts = [p for p in posixpath.normpath(path).split("/") if p not in ("", ".", "..")]
    candidate = root.joinpath(*parts) if parts else root
    try:
        real = candidate.resolve()
        inside = real == root or root in real.parents
    except OSError:
        inside = False
    if inside:
        if real.is_dir() and (real / "index.html").is_file():
            return real / "index.html", False
        if real.is_file():
            return real, False
    last = parts[-1] if parts else ""
    looks_like_page = "." not in last or "text/html" in accept
    if looks_like_page and (root / "index.html").is_file():
        return root / "index.html", True
    return None, False


class _Handler(BaseHTTPRequestHandler):
    server_version = "siteos-static/1"
    root: Path

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        return

    def _send(self, head_only: bool) -> None:
        file, _ = resolve(self.root, self.path, self.headers.get("Accept", ""))
        if file is None:
            body = b"not found"
            self.send_response(HTTPStatus.NOT_FOUND)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head_only:
                self.wfile.write(body)
            return
        data = file.read_bytes()
        ctype = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header(
            "Cache-Control", "no-cache" if file.name == "index.html" else "max-age=600"
        )
        self.end_headers()
        if not head_only:
            self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802
        self._send(head_only=False)

    def do_HEAD(self) -> None:  # noqa: N802
        self._send(head_only=True)

    def do_POST(self) -> None:  # noqa: N802
        self.send_response(HTTPStatus.METHOD_NOT_ALLOWED)
        self.send_header("Content-Length", "0")
        self.end_headers()


class StaticServer:
    """`with StaticServer(dist) as server: server.url`"""

    def __init__(self, root: Path, host: str = "127.0.0.1", port: int = 0) -> None:
        handler = type("Handler", (_Handler,), {"root": root.resolve()})
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> StaticServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
