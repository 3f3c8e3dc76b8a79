"""Content hashes of round inputs: exact file bytes and a deterministic tree hash."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

TREE_EXCLUDED_DIRS = frozenset({"node_modules", "dist", ".git"})


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def _git_mode(path: Path) -> str:
    """The file mode as git records it: only the executable bit and symlinks count."""
    mode = path.lstat().st_mode
    if stat.S_ISLNK(mode):
        return "120000"
    return "100755" if mode & 0o111 else "100644"


def tree_files(root: Path, excluded_dirs: Iterable[str] = TREE_EXCLUDED_DIRS) -> Iterator[Path]:
    """Every file below `root` in sorted relative-path order, skipping the excluded folders."""
    excluded = set(excluded_dirs)
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in excluded]
        for name in files:
            found.append(Path(folder, name))
    yield from sorted(found, key=lambda p: p.relative_to(root).as_posix())


def tree_sha256(root: Path, excluded_dirs: Iterable[str] = TREE_EXCLUDED_DIRS) -> str:
    """Hash of (relative path, git mode, content) of every file; independent of order and mtimes."""
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: not a directory")
    digest = hashlib.sha256()
    for path in tree_files(root, excluded_dirs):
        rel = path.relative_to(root).as_posix()
        mode = _git_mode(path)
        content = os.readlink(path).encode() if mode == "120000" else path.read_bytes()
        digest.update(f"{rel}\0{mode}\0{len(content)}\0".encode())
        digest.update(content)
    return digest.hexdigest()


def files_sha256(files: Iterable[Path], base: Path) -> str:
    """Hash of (path relative to `base`, content) of each file, in the given order."""
    return named_files_sha256((path.relative_to(base).as_posix(), path) for path in files)


def named_files_sha256(files: Iterable[tuple[str, Path]]) -> str:
    """Hash of (name, content) of each (name, file), in the given order."""
    digest = hashlib.sha256()
    for name, path in files:
        digest.update(f"{name}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
