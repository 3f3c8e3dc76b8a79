"""Time the results-site build (not a test): `python scripts/bench_site.py [ROUND] [--fixture]`.

With --fixture it renders the site test's fixture evidence tree in a temp folder; otherwise the
round's real evidence into a temp build folder. Prints render+build wall times over three runs.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from publish.render import render_site  # noqa: E402
from records.layout import EVIDENCE_DIR  # noqa: E402


def main(argv: list[str]) -> int:
    fixture = "--fixture" in argv
    args = [a for a in argv if not a.startswith("--")]
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        if fixture:
            from site_fixture import ROUND, build_evidence

            round_id, evidence = ROUND, build_evidence(Path(tmp) / "evidence")
        else:
            round_id, evidence = (args[0] if args else "demo"), EVIDENCE_DIR
        times = []
        for run in range(3):
            started = time.perf_counter()
            render_site(round_id, evidence, Path(tmp) / f"build-{run}")
            times.append(time.perf_counter() - started)
    print(
        f"site build ({round_id}{', fixture' if fixture else ''}): "
        + ", ".join(f"{t:.2f} s" for t in times)
        + f"; best {min(times):.2f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
