"""Media for the site, stored once by content: full-size files and display-size thumbnails.

Screenshots repeat across units (an idle model leaves the starter's pages untouched), so each file
is published under its content hash (`media/<sha256[:20]><suffix>`) and copied once. Thumbnails
are WebP images at the width the unit pages show them (2x for dense screens), cropped to the top
part the grid displays, made once per content hash.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

THUMB_WIDTH = 480  # CSS px of a grid cell (about 240) at 2x
THUMB_MAX_HEIGHT = 640  # the grid shows the top of the page (object-position: top)


def digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


@dataclass
class MediaStore:
    """Copies media into `docs/media/` once per content hash; returns docs-relative paths."""

    docs: Path
    folder: str = "media"
    _seen: dict[str, str] = field(default_factory=dict)
    _thumbs: dict[str, str] = field(default_factory=dict)

    def add(self, source: Path) -> str:
        key = digest(source)
        if key not in self._seen:
            rel = f"{self.folder}/{key[:20]}{source.suffix.lower()}"
            target = self.docs / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            self._seen[key] = rel
        return self._seen[key]

    def thumbnail(self, source: Path) -> str:
        """A display-size WebP of an image (the top of it, like the grid shows)."""
        key = digest(source)
        if key not in self._thumbs:
            rel = f"{self.folder}/thumbs/{key[:20]}.webp"
            target = self.docs / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            with Image.open(source) as image:
                picture = image.convert("RGB")
                if picture.width > THUMB_WIDTH:
                    height = round(picture.height * THUMB_WIDTH / picture.width)
                    picture = picture.resize((THUMB_WIDTH, height), Image.Resampling.LANCZOS)
                if picture.height > THUMB_MAX_HEIGHT:
                    picture = picture.crop((0, 0, picture.width, THUMB_MAX_HEIGHT))
                picture.save(target, "WEBP", quality=72, method=6)
            self._thumbs[key] = rel
        return self._thumbs[key]
