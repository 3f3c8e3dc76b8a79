"""Run a command in a fresh network namespace that has only a loopback interface.

`unshare -n` gives the child a new, empty network namespace; `ip link set lo up` brings up its
loopback so 127.0.0.1 works. Nothing in that namespace can reach another host: there is no
other interface and no route.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence

_SCRIPT = 'ip link set lo up && exec "$@"'


def loopback_netns_argv(argv: Sequence[str]) -> list[str]:
    """Wrap `argv` so it runs in a loopback-only network namespace."""
    if not argv:
        raise ValueError("loopback_netns_argv: empty command")
    unshare = shutil.which("unshare") or "/usr/bin/unshare"
    return [unshare, "-n", "sh", "-c", _SCRIPT, "sh", *argv]


def netns_available() -> bool:
    """True when this machine lets us create a loopback-only network namespace."""
    try:
        proc = subprocess.run(
            loopback_netns_argv(["ip", "-o", "link"]), capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    if proc.returncode != 0:
        return False
    interfaces = [line.split(":")[1].strip() for line in proc.stdout.splitlines() if ":" in line]
    return interfaces == ["lo"]
