"""Generate the starter arms once, at pinned versions, for committing.

    .venv/bin/python scripts/generate_starter_arms.py    (scripts/generate-starter-arms)

`plain` is the baseline: an arm.json and nothing else (the starter as every round gives it).
`storybook` is the starter with a Storybook component catalogue. Its stories and `.storybook/`
configuration are the project's own files, committed in the arm folder and kept as they are; this
script writes the rest from the atlas-rooms starter: its package.json with Storybook added at the
pinned version (exact) and a `storybook:build` script, the package-lock.json npm resolves for it
(with `resolved` URLs, so `npm ci --offline` works from a warm cache), and its .gitignore plus
`storybook-static/`. Then it proves the arm offline: a scratch copy of the starter with the arm's
files installs, type-checks, builds and builds its catalogue inside a loopback-only network
namespace (`unshare -n`), the catalogue build traced (`strace -f -e trace=connect`, when strace is
installed) and refused if it attempts any connection other than a local socket. `--prove` runs only
that proof on the committed arm (the cache warmed from its lockfile, as `scripts/setup` does).
The agent installs nothing: `scripts/setup` warms the npm cache from
the arm's lockfile, and the harness copies the arm's files into the worktree before its first
commit. Run again only to move to another pinned version (and then in a new round: a changed arm
folder is a changed frozen input).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from records.interventions import INTERVENTIONS_DIR, ArmManifest, Generated  # noqa: E402
from records.io import write_json  # noqa: E402
from records.task import DEFAULT_TASK, load_task  # noqa: E402
from records.tools import NODE_BIN_DIR  # noqa: E402

STORYBOOK_VERSION = "10.6.9"
PACKAGES = (f"storybook@{STORYBOOK_VERSION}", f"@storybook/react-vite@{STORYBOOK_VERSION}")
BUILD_SCRIPT = "STORYBOOK_DISABLE_TELEMETRY=1 storybook build --disable-telemetry --quiet"
OUTPUT_DIR = "storybook-static/"
REPLACES = ["package.json", "package-lock.json", ".gitignore"]
SCRIPT = "scripts/generate_starter_arms.py"
INSTALL = "npm install --save-dev --save-exact --omit-lockfile-registry-resolved=false " + " ".join(
    PACKAGES
)


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=cwd, env=env, check=True, timeout=900)


def offline(cmd: list[str]) -> list[str]:
    """`cmd` in a loopback-only network namespace (nothing it starts can reach another host)."""
    return ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *cmd]


def node_env(cache: Path) -> dict[str, str]:
    path = f"{NODE_BIN_DIR}:{os.environ.get('PATH', '/usr/bin:/bin')}"
    return {
        **os.environ,
        "PATH": path,
        "npm_config_cache": str(cache),
        "npm_config_update_notifier": "false",
        "STORYBOOK_DISABLE_TELEMETRY": "1",
    }


def plain() -> None:
    target = INTERVENTIONS_DIR / "starter" / "plain"
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    manifest = ArmManifest(
        id="plain", factor="starter", title="Plain starter",
        adds="Nothing: the starter as every other round gives it.",
        baseline=True, placebo=False, source="The starter (app-starter/) unchanged.",
    )  # fmt: skip
    write_json(target / "arm.json", json.loads(manifest.model_dump_json(exclude_none=True)))


def storybook(scratch: Path) -> None:
    target = INTERVENTIONS_DIR / "starter" / "storybook"
    starter = load_task(DEFAULT_TASK).starter
    app = scratch / "app"
    shutil.copytree(starter, app, ignore=shutil.ignore_patterns("node_modules", "dist"))
    env = node_env(scratch / "npm-cache")
    run(["npm", *INSTALL.split()[1:], "--no-audit", "--no-fund"], app, env)
    package = json.loads((app / "package.json").read_text())
    package["scripts"]["storybook:build"] = BUILD_SCRIPT
    (app / "package.json").write_text(json.dumps(package, indent=2) + "\n")
    ignore = (starter / ".gitignore").read_text()
    (app / ".gitignore").write_text(ignore.rstrip("\n") + f"\n{OUTPUT_DIR}\n")
    for name in REPLACES:
        (target / name).write_bytes((app / name).read_bytes())
    manifest = ArmManifest(
        id="storybook", factor="starter", title="Storybook catalogue",
        adds="A Storybook component catalogue of the starter's components: stories beside each "
        "component (src/components/*.stories.tsx), .storybook/ (telemetry off), Storybook "
        f"{STORYBOOK_VERSION} (@storybook/react-vite) installed and locked, and `npm run "
        "storybook:build`, which builds the catalogue offline into storybook-static/ (ignored "
        "by git).",
        baseline=False, placebo=False,
        source="Stories and .storybook/ written by the project for the starter's components; "
        "package.json, package-lock.json and .gitignore are the starter's with Storybook added "
        "by npm at a pinned version.",
        generated=Generated(
            tool="npm storybook, @storybook/react-vite", version=STORYBOOK_VERSION,
            command=INSTALL, script=SCRIPT,
        ),
        replaces=REPLACES,
    )  # fmt: skip
    write_json(target / "arm.json", json.loads(manifest.model_dump_json(exclude_none=True)))
    prove_offline(target, starter, scratch)


def prove_offline(target: Path, starter: Path, scratch: Path) -> None:
    """A fresh copy of the starter plus every arm file installs from the warmed cache and runs
    check, build and storybook:build without a network."""
    app = scratch / "proof"
    shutil.copytree(starter, app, ignore=shutil.ignore_patterns("node_modules", "dist"))
    shutil.copytree(target, app, dirs_exist_ok=True, ignore=shutil.ignore_patterns("arm.json"))
    env = node_env(scratch / "npm-cache")
    run(offline(["npm", "ci", "--offline", "--no-audit", "--no-fund"]), app, env)
    for script in ("check", "build"):
        run(offline(["npm", "run", script]), app, env)
    trace = scratch / "connect.trace"
    traced = ["strace", "-f", "-qq", "-e", "trace=connect", "-o", str(trace)]
    run(offline([*(traced if shutil.which("strace") else []), "npm", "run", "storybook:build"]),
        app, env)  # fmt: skip
    if not (app / OUTPUT_DIR / "index.html").is_file():
        raise SystemExit(f"{app / OUTPUT_DIR}: storybook:build wrote no index.html")
    if trace.is_file():
        calls = [line for line in trace.read_text().splitlines() if "connect(" in line]
        outside = [line for line in calls if "AF_UNIX" not in line]
        if outside:
            raise SystemExit("storybook:build tried to connect: " + "; ".join(outside[:5]))
        print(f"storybook:build: {len(calls)} connect() calls, none but local sockets", flush=True)
    print(f"{target.relative_to(REPO)}: installs and builds offline", flush=True)


def prove_committed(scratch: Path) -> None:
    """The offline proof alone, on the committed arm, with a cache warmed from its lockfile."""
    target = INTERVENTIONS_DIR / "starter" / "storybook"
    warm = scratch / "warm"
    warm.mkdir()
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(target / name, warm / name)
    env = node_env(scratch / "npm-cache")
    run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], warm, env)
    prove_offline(target, load_task(DEFAULT_TASK).starter, scratch)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="siteos-arm-storybook-") as tmp:
        if sys.argv[1:] == ["--prove"]:
            prove_committed(Path(tmp))
            return 0
        plain()
        storybook(Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
