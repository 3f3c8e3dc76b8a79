"""Time the results-site build (not a test): `python scripts/bench_site.py [ROUND] [EVIDENCE_DIR]`.

Renders the round's real evidence (default: the demo round in evidence/, as `./scripts/demo`
leaves it) into a temp build folder three times; prints the wall times and the site's size.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from publish.render import render_site  # noqa: E402
from records.layout import EVIDENCE_DIR  # noqa: E402
from records.round import Round  # noqa: E402


def main(argv: list[str]) -> int:
    round_id = argv[0] if argv else "demo"
    evidence = Path(argv[1]) if len(argv) > 1 else EVIDENCE_DIR
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        times = []
        for run in range(3):
            started = time.perf_counter()
            site = render_site(Round.load(round_id, evidence), Path(tmp) / f"build-{run}")
            times.append(time.perf_counter() - started)
        size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    print(
        f"site build ({round_id}): "
        + ", ".join(f"{t:.2f} s" for t in times)
        + f"; best {min(times):.2f} s; {size / 1e6:.1f} MB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
