"""Media for the site, stored once by content and sized for the screen it is shown on.

Screenshots repeat across units (an idle model leaves the starter's pages untouched), so each file
is published under its content hash and copied once. A screenshot is shown as a WebP thumbnail at
the width of its grid cell (2x for dense screens, cropped to the top the grid shows) and opens as
a full-size WebP; the interaction video is re-encoded at a web size. The evidence folder keeps the
original PNGs and video. Conversions are cached by content hash (`build/.media-cache/`), so a
rebuild costs a copy.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from records.hashing import file_sha256
from records.layout import BUILD_DIR

THUMB_WIDTH = 400  # CSS px of a grid cell (about 200) at 2x
THUMB_MAX_HEIGHT = 540  # the grid shows the top of the page (object-position: top)
FULL_QUALITY = 60
VIDEO_WIDTH = 800
VIDEO_ARGS = ("-vf", f"scale={VIDEO_WIDTH}:-2,fps=8", "-c:v", "libvpx-vp9", "-b:v", "0",
              "-crf", "50", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1",
              "-threads", "2", "-an")  # fmt: skip
CACHE_VERSION = "2"


def _thumbnail(source: Path, target: Path) -> None:
    with Image.open(source) as image:
        picture = image.convert("RGB")
        if picture.width > THUMB_WIDTH:
            height = round(picture.height * THUMB_WIDTH / picture.width)
            picture = picture.resize((THUMB_WIDTH, height), Image.Resampling.LANCZOS)
        if picture.height > THUMB_MAX_HEIGHT:
            picture = picture.crop((0, 0, picture.width, THUMB_MAX_HEIGHT))
        picture.save(target, "WEBP", quality=60, method=4)


def _full(source: Path, target: Path) -> None:
    with Image.open(source) as image:
        image.convert("RGB").save(target, "WEBP", quality=FULL_QUALITY, method=4)


def _video(source: Path, target: Path) -> None:
    import imageio_ffmpeg

    ffmpeg = imageio_ffmpeg.get_ffmpeg_exe()
    argv = [ffmpeg, "-hide_banner", "-loglevel", "error", "-y", "-i", str(source), *VIDEO_ARGS]
    proc = subprocess.run([*argv, str(target)], capture_output=True, text=True, timeout=600)
    if proc.returncode != 0 or not target.is_file():
        raise RuntimeError(f"{source}: re-encoding the video failed: {proc.stderr[-800:]}")


POSTER_AT_S = 2.0
"""Where the video's poster frame is taken: its first second is the blank page before the app."""


def _poster(source: Path, target: Path) -> None:
    """A still of the video (at `POSTER_AT_S`, or its first frame when it is shorter), as WebP."""
    import imageio_ffmpeg

    ffmpeg = imageio_ffmpeg.get_ffmpeg_exe()
    still = target.with_suffix(".png")
    for start in (POSTER_AT_S, 0.0):
        argv = [ffmpeg, "-hide_banner", "-loglevel", "error", "-y", "-ss", f"{start:g}", "-i",
                str(source), "-frames:v", "1", "-vf", "scale=800:-2", str(still)]  # fmt: skip
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if proc.returncode == 0 and still.is_file():
            break
    else:
        raise RuntimeError(f"{source}: no poster frame: {proc.stderr[-800:]}")
    with Image.open(still) as image:
        image.convert("RGB").save(target, "WEBP", quality=FULL_QUALITY, method=4)
    still.unlink()


@dataclass
class MediaStore:
    """Writes media into `docs/media/` once per content hash; returns docs-relative paths."""

    docs: Path
    cache: Path = field(default_factory=lambda: BUILD_DIR / ".media-cache")
    folder: str = "media"
    _done: dict[tuple[str, str], str] = field(default_factory=dict)
    _outputs: dict[str, str] = field(default_factory=dict)  # output digest -> docs path

    def _make(
        self, source: Path, kind: str, suffix: str, convert: Callable[[Path, Path], None]
    ) -> str:
        key = file_sha256(source)
        if (key, kind) in self._done:
            return self._done[(key, kind)]
        name = f"{key[:20]}{suffix}"
        cached = self.cache / f"{kind}-{CACHE_VERSION}" / name
        if not cached.is_file():
            cached.parent.mkdir(parents=True, exist_ok=True)
            # Another site build may convert the same source at the same time: each writes its
            # own partial file and the first to link it in place wins, so a cached file never
            # changes once it exists (a re-encoded video need not be byte-identical run to run,
            # and two builds must publish the same bytes).
            partial = cached.with_name(f".{name}.{os.getpid()}-{uuid.uuid4().hex[:8]}{suffix}")
            convert(source, partial)
            with contextlib.suppress(FileExistsError):
                os.link(partial, cached)
            partial.unlink()
        output = file_sha256(cached)  # two sources can convert to the same bytes: publish them once
        rel = self._outputs.setdefault(output, f"{self.folder}/{kind}/{name}")
        if not (self.docs / rel).is_file():
            (self.docs / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(cached, self.docs / rel)
        self._done[(key, kind)] = rel
        return rel

    def thumbnail(self, source: Path) -> str:
        """A display-size WebP of a screenshot (the top of it, like the grid shows)."""
        return self._make(source, "thumbs", ".webp", _thumbnail)

    def image(self, source: Path) -> str:
        """The screenshot at full size, as WebP."""
        return self._make(source, "full", ".webp", _full)

    def video(self, source: Path) -> str:
        """The interaction video at a web size."""
        return self._make(source, "video", ".webm", _video)

    def poster(self, source: Path) -> str:
        """A still of the interaction video, shown before it plays."""
        return self._make(source, "poster", ".webp", _poster)
