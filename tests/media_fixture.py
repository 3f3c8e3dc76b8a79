"""Real media for tests: a solid-colour PNG and a one-second VP9 WebM (imageio-ffmpeg's ffmpeg)."""

from __future__ import annotations

import struct
import subprocess
import zlib
from pathlib import Path


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A small solid-colour PNG."""
    row = b"\x00" + bytes(rgb) * width
    raw = zlib.compress(row * height)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def webm(path: Path) -> None:
    """A one-second VP9 WebM."""
    import imageio_ffmpeg

    path.parent.mkdir(parents=True, exist_ok=True)
    command = [imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error", "-y",
               "-f", "lavfi", "-i", "testsrc=size=320x200:rate=10:duration=1",
               "-c:v", "libvpx-vp9", "-b:v", "100k", str(path)]  # fmt: skip
    subprocess.run(command, check=True, timeout=60)
