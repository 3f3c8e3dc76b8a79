"""Inside a network namespace: relay 127.0.0.1:<port> to a Unix socket, then run a command.

Usage: python gateway_relay.py <port> <socket> <command> [args...]; exits with the command's code.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading


def pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)


def serve(listener: socket.socket, path: str) -> None:
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        upstream.connect(path)
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=pump, args=(a, b), daemon=True).start()


def main() -> int:
    port, path, *command = sys.argv[1:]
    listener = socket.create_server(("127.0.0.1", int(port)))
    threading.Thread(target=serve, args=(listener, path), daemon=True).start()
    return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main())
