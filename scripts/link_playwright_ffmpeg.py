"""Link Playwright's expected ffmpeg path to the binary shipped in the imageio-ffmpeg wheel."""

import json
import os
import sys
from pathlib import Path

import imageio_ffmpeg
import playwright


def main(browsers_path: Path) -> None:
    browsers = Path(playwright.__file__).parent / "driver" / "package" / "browsers.json"
    entries = json.loads(browsers.read_text())["browsers"]
    revision = next(b["revision"] for b in entries if b["name"] == "ffmpeg")
    target = browsers_path / f"ffmpeg-{revision}" / "ffmpeg-linux"
    target.parent.mkdir(parents=True, exist_ok=True)
    source = imageio_ffmpeg.get_ffmpeg_exe()
    if target.is_symlink() or target.exists():
        if os.path.realpath(target) == os.path.realpath(source):
            return
        target.unlink()
    target.symlink_to(source)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
