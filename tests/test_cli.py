"""`siteos`: one command line reaching every operator command by name."""

from __future__ import annotations

import subprocess
import sys

import pytest

from records.layout import REPO_ROOT
from siteos.cli import COMMANDS, main


def test_every_command_is_listed_and_answers_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    listing = capsys.readouterr().out
    for name, command in COMMANDS.items():
        assert f"  {name} " in listing and command.help in listing
        with pytest.raises(SystemExit) as done:
            main([name, "--help"])
        assert done.value.code == 0, name
        assert "usage:" in capsys.readouterr().out, name


def test_an_unknown_command_is_named() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "siteos", "nope"], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert run.returncode == 2 and "no command 'nope'" in run.stderr


def test_the_readme_uses_it() -> None:
    readme = (REPO_ROOT / "README.md").read_text()
    for name in ("catalogue", "replace", "repair-marker", "retrace", "bundle", "decide", "tag"):
        assert f"siteos {name}" in readme, name
