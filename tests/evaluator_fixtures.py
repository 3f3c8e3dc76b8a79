"""Tiny apps for evaluator tests: no dependencies (npm ci --offline needs no cache), a build
script that does whatever the test needs, and static pages copied to dist/."""

from __future__ import annotations

import json
from pathlib import Path

LOCK = {
    "name": "fixture",
    "version": "1.0.0",
    "lockfileVersion": 3,
    "requires": True,
    "packages": {"": {"name": "fixture", "version": "1.0.0"}},
}


def make_app(
    root: Path, build: str, files: dict[str, str] | None = None, check: str = "node -e 0"
) -> Path:
    """An app whose `npm run build` runs `build` (a shell command)."""
    root.mkdir(parents=True, exist_ok=True)
    package = {
        "name": "fixture",
        "version": "1.0.0",
        "private": True,
        "scripts": {"check": check, "build": build},
    }
    (root / "package.json").write_text(json.dumps(package, indent=2))
    (root / "package-lock.json").write_text(json.dumps(LOCK, indent=2))
    for name, text in (files or {}).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def static_app(root: Path, index_html: str, extra: dict[str, str] | None = None) -> Path:
    """An app whose build copies static/ to dist/."""
    files = {"static/index.html": index_html}
    files.update({f"static/{k}": v for k, v in (extra or {}).items()})
    return make_app(root, "rm -rf dist && cp -r static dist", files)


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime_ns) of every file under `folder`, to prove nothing changed."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "node_modules" not in path.parts:
            stat = path.stat()
            out[str(path.relative_to(folder))] = (stat.st_size, stat.st_mtime_ns)
    return out


FIXTURES = Path(__file__).resolve().parent / "fixtures"


def materialize_static_atlas(dest: Path) -> None:
    """The independent vanilla-JS implementation, with the frozen data and the starter's media."""
    import shutil

    from records.task import DEFAULT_TASK, load_task

    task = load_task(DEFAULT_TASK)
    shutil.copytree(FIXTURES / "atlas-static", dest)
    shutil.copy(task.data, dest / "static" / "venues.json")
    shutil.copytree(task.starter / "public" / "media", dest / "static" / "media")
