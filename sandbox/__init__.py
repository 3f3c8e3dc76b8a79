"""Containment for untrusted code: one bubblewrap builder with allow-list profiles, resource
limits, and a loopback-only network launcher.

`run_sandboxed(SandboxSpec(...))` runs a command inside bubblewrap where nothing of the host
exists except `/usr`, a few `/etc` files and the listed binds; a private, capped /tmp; no network
beyond a private loopback; per-process limits (processes, memory, file size, open files); a clean
environment, a wall-clock timeout (the whole process tree is killed) and an output cap; a
`SandboxResult` that says which limit ended the command. `sandbox.profiles` holds the named specs
(`untrusted_build`, `agent_session`). `loopback_netns_argv(argv)` wraps any command so it runs
in a fresh network namespace whose only interface is loopback (used for the browser phase, which
needs a real /tmp and Chromium).
"""

from sandbox.limits import GiB, LimitHit, Limits, MiB, Usage
from sandbox.netns import loopback_netns_argv, netns_available
from sandbox.runner import (
    Bind,
    SandboxError,
    SandboxResult,
    SandboxSpec,
    bwrap_argv,
    hand_over,
    private_dir,
    run_process,
    run_sandboxed,
)

__all__ = [
    "Bind",
    "GiB",
    "LimitHit",
    "Limits",
    "MiB",
    "SandboxError",
    "SandboxResult",
    "SandboxSpec",
    "Usage",
    "bwrap_argv",
    "hand_over",
    "loopback_netns_argv",
    "netns_available",
    "private_dir",
    "run_process",
    "run_sandboxed",
]
