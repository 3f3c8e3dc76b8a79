"""The starter tree hash: stable across order and mtimes, sensitive to bytes and modes."""

from __future__ import annotations

import os
from pathlib import Path

from records.hashing import tree_sha256


def make_tree(root: Path, names: list[str]) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"content of {name}\n")


def test_stable_across_creation_order_and_mtimes(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    names = ["src/main.ts", "index.html", "src/data/venues.json", "package.json"]
    make_tree(a, names)
    make_tree(b, list(reversed(names)))
    os.utime(b / "index.html", (1, 1))
    assert tree_sha256(a) == tree_sha256(b)


def test_sensitive_to_one_byte_and_to_mode(tmp_path: Path) -> None:
    make_tree(tmp_path, ["src/main.ts", "package.json"])
    before = tree_sha256(tmp_path)
    target = tmp_path / "src/main.ts"
    target.write_text("content of src/main.tS\n")
    changed = tree_sha256(tmp_path)
    assert changed != before
    target.write_text("content of src/main.ts\n")
    assert tree_sha256(tmp_path) == before
    target.chmod(0o755)
    assert tree_sha256(tmp_path) != before


def test_renaming_a_file_changes_the_hash(tmp_path: Path) -> None:
    make_tree(tmp_path, ["a.txt"])
    before = tree_sha256(tmp_path)
    (tmp_path / "a.txt").rename(tmp_path / "b.txt")
    assert tree_sha256(tmp_path) != before


def test_node_modules_and_dist_are_excluded(tmp_path: Path) -> None:
    make_tree(tmp_path, ["package.json"])
    before = tree_sha256(tmp_path)
    make_tree(tmp_path, ["node_modules/react/index.js", "dist/index.html", "pkg/node_modules/x.js"])
    assert tree_sha256(tmp_path) == before
