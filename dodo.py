"""siteos-bench pipeline: `doit list` explains every stage; `doit` runs what is outstanding.

The round is chosen with SITEOS_ROUND (default: the offline `demo` round served by the project's
own OpenRouter simulator). Staleness is by content (md5); paid tasks run once and are never cleaned.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.freeze import EVALUATOR_SOURCES, freeze
from records.hashing import tree_files
from records.inputs import load_round, round_settings_path
from records.layout import PROMPT_FILE, STARTER_DIR, round_paths

ROUND = os.environ.get("SITEOS_ROUND", "demo")

DOIT_CONFIG: dict[str, Any] = {
    "check_file_uptodate": "md5",
    "backend": "json",
    "dep_file": ".doit.db.json",
    "default_tasks": ["freeze"],
    "verbosity": 2,
}


def files_below(*roots: Path, suffixes: tuple[str, ...] | None = None) -> list[str]:
    """file_dep takes files only: list every file below the roots."""
    found: list[str] = []
    for root in roots:
        for path in tree_files(root, {"node_modules", "dist", ".git", "__pycache__"}):
            if suffixes is None or path.suffix in suffixes:
                found.append(str(path))
    return found


def input_files() -> list[str]:
    settings = load_round(ROUND)
    return [
        str(PROMPT_FILE),
        str(settings.cohort_path),
        str(round_settings_path(ROUND)),
        *files_below(STARTER_DIR),
        *files_below(*EVALUATOR_SOURCES, suffixes=(".py", ".js")),
    ]


def task_freeze() -> Iterator[dict[str, Any]]:
    """Hash the round's inputs into evidence/<round>/round.json (refuses changes once units are scored)."""
    yield {
        "name": None,
        "doc": task_freeze.__doc__,
    }
    yield {
        "name": ROUND,
        "actions": [(freeze, [ROUND])],
        "file_dep": input_files(),
        "targets": [str(round_paths(ROUND).round_json)],
    }
