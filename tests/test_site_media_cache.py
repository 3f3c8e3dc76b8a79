"""Two site builds converting the same media at once publish the same bytes: the first conversion
linked into the cache wins, and a cached file never changes (a re-encoded video need not be
byte-identical from run to run)."""

from __future__ import annotations

import itertools
from pathlib import Path

from publish.media import MediaStore


def test_the_first_conversion_into_the_cache_wins(tmp_path: Path) -> None:
    source = tmp_path / "video.webm"
    source.write_bytes(b"original video")
    cache = tmp_path / "cache"
    runs = itertools.count(1)
    first = MediaStore(tmp_path / "first", cache)
    second = MediaStore(tmp_path / "second", cache)

    def encode(src: Path, target: Path) -> None:
        run = next(runs)
        if run == 1:  # while the first build encodes, the second converts and publishes
            second._make(source, "video", ".webm", encode)
        target.write_bytes(f"encoding {run}".encode())

    published = first._make(source, "video", ".webm", encode)
    again = second._make(source, "video", ".webm", encode)
    assert published == again
    first_bytes = (tmp_path / "first" / published).read_bytes()
    assert first_bytes == (tmp_path / "second" / again).read_bytes() == b"encoding 2"
    assert [p.name for p in (cache / "video-2").iterdir()] == [Path(published).name]
