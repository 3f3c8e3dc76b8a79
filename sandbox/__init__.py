"""Containment for untrusted code: a bubblewrap runner and a loopback-only network launcher.

`run_sandboxed(SandboxSpec(...))` runs a command inside bubblewrap with a read-only root, a
private /tmp, only the listed writable binds, no network beyond a private loopback, a clean
environment, a wall-clock timeout (the whole process tree is killed) and an output cap.
`loopback_netns_argv(argv)` wraps any command so it runs in a fresh network namespace whose only
interface is loopback (used for the browser phase, which needs a real /tmp and Chromium).
"""

from sandbox.netns import loopback_netns_argv, netns_available
from sandbox.runner import (
    Bind,
    SandboxError,
    SandboxResult,
    SandboxSpec,
    run_process,
    run_sandboxed,
)

__all__ = [
    "Bind",
    "SandboxError",
    "SandboxResult",
    "SandboxSpec",
    "loopback_netns_argv",
    "netns_available",
    "run_process",
    "run_sandboxed",
]
