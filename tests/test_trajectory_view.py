"""How the transcript shows a shell command that writes a file through a heredoc: the file,
folded and highlighted, and the command without its body; anything else stays a command."""

from __future__ import annotations

import pytest

from gateway.simulator.dialects import heredoc_command
from publish.trajectory import shell_view, tool_view
from records.evidence.agent import ToolPart


def shell(command: str) -> ToolPart:
    return ToolPart(tool="bash", status="completed", input={"command": command}, shell=True,
                    exit_code=0, source="events.jsonl:3")  # fmt: skip


@pytest.mark.parametrize("content", ["export const a = 1;\n", "no final newline", "a\n\nb\n"])
def test_the_simulators_heredoc_write_shows_the_file_it_writes(content: str) -> None:
    view = tool_view(shell(heredoc_command("/workspace/src/a b.ts", content)))
    assert (view.kind, view.path) == ("shell", "/workspace/src/a b.ts")
    assert view.content.removesuffix("\n") == content.removesuffix("\n")
    assert content not in view.text and "written to /workspace/src/a b.ts" in view.text


def test_the_command_around_the_heredoc_is_kept() -> None:
    view = shell_view("cat <<'EOF' > src/x.ts\nexport const a = 1;\nEOF\nnpm run check")
    assert (view.path, view.content) == ("src/x.ts", "export const a = 1;\n")
    assert (
        view.text == "cat <<'EOF' > src/x.ts\n# … 1 line written to src/x.ts …\nEOF\nnpm run check"
    )


@pytest.mark.parametrize(
    "command",
    [
        "cat > x.txt << EOF\nhome: $HOME\nEOF",  # unquoted: the shell expands the body
        "cat >> log <<'EOF'\nappended\nEOF",  # appends, does not write the file
        "cat 2> err <<'EOF'\nx\nEOF",  # redirects errors only
        "cat > x.txt <<'EOF'\nnever ends",  # no closing delimiter
        "npm run build",
    ],
)
def test_other_commands_stay_commands(command: str) -> None:
    view = shell_view(command)
    assert (view.kind, view.path, view.content, view.text) == ("shell", "", "", command)
