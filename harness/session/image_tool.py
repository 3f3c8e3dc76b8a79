"""A tools arm's command on the agent's PATH: `siteos-image` (harness/session/tools/).

`install_tool(spec, tool)` binds the tools folder read-only into the sandbox (at `TOOLS_INSIDE`),
puts it first on the agent's PATH and tells the command its backend through the environment:
`gateway` calls the arm's image route through the recording proxy's loopback address (the one
base URL the agent already has), `placeholder` (the placebo) writes a plain image locally. The
command writes only under the worktree's `public/media/`. Nothing of it lands in the worktree, so
the model's diff counts only the images it chose to write.
"""

from __future__ import annotations

from harness.session.sandbox import SandboxSpec
from records.image_tool import TOOL_SCRIPT, ImageTool
from records.tools import NODE_BIN_DIR
from sandbox.profiles import SESSION_PATH

TOOLS_DIR = TOOL_SCRIPT.parent  # harness/session/tools/
TOOLS_INSIDE = "/opt/siteos/tools"


def install_tool(spec: SandboxSpec, tool: ImageTool | None) -> None:
    """Give the sandboxed agent `tool` (nothing for None: the baseline)."""
    if tool is None:
        return
    if spec.isolated:
        spec.ro_binds[TOOLS_INSIDE] = TOOLS_DIR
        path = f"{TOOLS_INSIDE}:{SESSION_PATH}"
    else:
        path = f"{TOOLS_DIR}:{NODE_BIN_DIR}:/usr/local/bin:/usr/bin:/bin"
    spec.env.update(
        {
            "PATH": path,
            "SITEOS_IMAGE_BACKEND": tool.backend,
            "SITEOS_IMAGE_ROUTE": tool.route or "",
            "SITEOS_IMAGE_MAX_TOKENS": str(tool.max_tokens),
            "SITEOS_GATEWAY_URL": spec.base_url,
            "SITEOS_WORKTREE": spec.workdir,
        }
    )
