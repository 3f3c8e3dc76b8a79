"""How the site shows a unit's trajectory (`trace.json`): each tool call as a reader wants it.

A shell command shows its command line, exit code and output (a command that writes a file
through a quoted `cat` heredoc shows that file folded and highlighted, as a write); a file write
shows the file, folded and syntax-highlighted; an edit shows the text it replaced and the text it
put in; any other tool shows its input. The site never reads the agent's native events: what it
shows is the trajectory the harness wrote, whose parts cite their native line (`events.jsonl:12`).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath

from markupsafe import Markup, escape
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_for_filename
from pygments.util import ClassNotFound

from records.evidence.agent import ToolPart, was_cut

FOLD_AT = 1200  # characters (or 15 lines) of text shown before the rest is folded away
EDIT_KEYS = (("oldString", "newString"), ("old_string", "new_string"))  # OpenCode's, Claude Code's
PATH_KEYS = ("filePath", "path", "file_path")


# `cat > PATH <<'END'` or `cat <<'END' > PATH` on a command's first line; only a quoted
# delimiter, whose body the shell writes as it is (no expansion), counts as a file write.
_HEREDOC = re.compile(r"<<-?[ \t]*(['\"])([A-Za-z_][A-Za-z0-9_]*)\1")
_CAT_TO = re.compile(r"\bcat\b[^|;&\n]*?(?<![>&0-9])>[ \t]*('[^'\n]*'|\"[^\"\n]*\"|[^\s;&|<>]+)")


def folds(text: str) -> bool:
    """Whether a text is long enough to fold away behind its summary."""
    return len(text) > FOLD_AT or text.count("\n") > 14


_WHITESPACE_TOKEN = re.compile(r'<span class="w">([^<]*)</span>')


def code_html(text: str, path: str = "") -> Markup:
    """`text` as highlighted HTML for a `<pre><code>` (Pygments' short classes, which the
    theme colours; whitespace stays plain text, a third fewer elements on a long file); plain
    escaped text for a file type Pygments does not know. Newlines become entities so Markdown
    never splits the block."""
    try:
        lexer = get_lexer_for_filename(PurePosixPath(path).name or "x.txt", stripnl=False)
    except ClassNotFound:
        html = str(escape(text))
    else:
        html = highlight(text, lexer, HtmlFormatter(nowrap=True)).removesuffix("\n")
        html = _WHITESPACE_TOKEN.sub(r"\1", html)
    return Markup(html.replace("\n", "&#10;"))


@dataclass(frozen=True)
class ToolView:
    """One tool call as the transcript shows it."""

    kind: str  # shell | write | edit | other
    path: str = ""  # the file written or edited (by a shell command too: its heredoc's file)
    content: str = ""  # the file written, or the text an edit put in
    replaced: str = ""  # the text an edit took out
    text: str = ""  # a shell command (without a heredoc's body), or any other input as JSON

    @property
    def lines(self) -> int:
        return self.content.count("\n") + 1 if self.content else 0

    @property
    def cut(self) -> bool:
        """The trajectory kept the start and end of the text, not its middle."""
        return was_cut(self.content)


def tool_view(part: ToolPart) -> ToolView:
    """What to show of a tool call: shell command, file write, edit, or its input."""
    inputs = part.input
    path = next((str(inputs[k]) for k in PATH_KEYS if isinstance(inputs.get(k), str)), "")
    if part.shell:
        return shell_view(str(inputs.get("command", "")))
    if path and isinstance(inputs.get("content"), str):
        return ToolView("write", path=path, content=str(inputs["content"]))
    for old, new in EDIT_KEYS:
        if path and isinstance(inputs.get(old), str) and isinstance(inputs.get(new), str):
            return ToolView("edit", path=path, content=inputs[new], replaced=inputs[old])
    rest = {k: v for k, v in inputs.items() if k not in PATH_KEYS}  # the path is in the heading
    shown = json.dumps(rest, indent=2, ensure_ascii=False, sort_keys=True) if rest else ""
    return ToolView("other", path=path, text=shown)


def shell_view(command: str) -> ToolView:
    """A shell command; one that writes a file through a quoted `cat` heredoc with the file as
    its content and the command shown without the body (`# … N lines written to PATH …`)."""
    head, _, rest = command.partition("\n")
    delimiter, target = _HEREDOC.search(head), _CAT_TO.search(head)
    if not (delimiter and target and rest):
        return ToolView("shell", text=command)
    end = delimiter.group(2)
    lines = rest.split("\n")
    if end not in lines:
        return ToolView("shell", text=command)
    at = lines.index(end)
    try:
        (path,) = shlex.split(target.group(1))
    except ValueError:
        return ToolView("shell", text=command)
    body = "\n".join(lines[:at]) + "\n" if at else ""
    count = body.count("\n")
    written = f"# … {count} line{'' if count == 1 else 's'} written to {path} …"
    shown = "\n".join([head, written, *lines[at:]])
    return ToolView("shell", path=path, content=body, text=shown)
