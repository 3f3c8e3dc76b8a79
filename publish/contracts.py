"""Reader contracts for evidence files whose owners' records have not landed yet.

The site validates every file with its owner's pydantic record (`owner_model` finds it by module
and class name). Until that record exists, the contract below names the fields the site reads;
extra fields are allowed so a richer file still validates. Replace nothing here by hand: once
the owner's class is importable it is used automatically.
"""

from __future__ import annotations

import importlib
from typing import Any

from pydantic import BaseModel, ConfigDict


class Contract(BaseModel):
    model_config = ConfigDict(extra="allow")


class ControlOutcome(Contract):
    control: str
    expected: Any = None
    actual: Any = None
    match: bool


class Controls(Contract):
    """`evidence/controls.json`."""

    controls: list[ControlOutcome]


class CommandEntry(Contract):
    """One shell command from `units/<unit>/commands.json` (the agent adapter's CommandRun)."""

    command: str
    exit_code: int | None = None
    status: str = ""
    output: str = ""
    output_truncated: bool = False
    timestamp: int | float | None = None


def owner_model(module: str, names: tuple[str, ...], fallback: type[BaseModel]) -> type[BaseModel]:
    """The owner's record class when it is importable, otherwise the reader contract."""
    try:
        loaded = importlib.import_module(module)
    except ImportError:
        return fallback
    for name in names:
        found = getattr(loaded, name, None)
        if isinstance(found, type) and issubclass(found, BaseModel):
            return found
    return fallback
