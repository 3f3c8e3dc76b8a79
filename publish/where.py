"""`python -m publish.where`: print the built site's index.html as a file:// URL and as a path."""

from __future__ import annotations

import sys

from records.layout import BUILD_DIR


def main() -> int:
    index = (BUILD_DIR / "site" / "index.html").resolve()
    if not index.is_file():
        print(
            f"no site built yet at {index}: run `doit` (or `python -m publish.render <round>`)",
            file=sys.stderr,
        )
        return 1
    print(f"Results site: {index.as_uri()}")
    print(f"              {index}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
