"""The model bases, one per policy: every pydantic model of the project derives from one of them.

- `Record`: a persisted record; unknown fields are an error, never silently dropped.
- `Root`: a whole file's `Record`, carrying its `schema_version`.
- `Frozen`: a strict record that never changes once read (round inputs, simulator scripts,
  the catalogue report).
- `Loose`: an API payload read from the gateway; unknown fields are kept (OpenRouter adds fields
  over time).
- `Lenient`: an API record read for a few fields; unknown fields are ignored, the result frozen.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator


class Record(BaseModel):
    """Base of every evidence record (strict: an unknown field names the file and field)."""

    model_config = ConfigDict(extra="forbid")


class Root(Record):
    """A whole file's record: carries the `schema_version` it was written with.

    A subclass sets the default to the version it writes (and keeps older files loading); a file
    that names a newer version than this checkout knows is refused, naming both.
    """

    schema_version: int = 1

    @field_validator("schema_version")
    @classmethod
    def _known_version(cls, value: int) -> int:
        current = cls.model_fields["schema_version"].default
        if value < 1 or value > current:
            raise ValueError(
                f"schema_version {value} is not one this checkout reads (1 to {current})"
            )
        return value


def once_a_bare_list(data: Any, field: str, version: int) -> Any:
    """A file that was once a bare list, as the object it became: the list under `field`, marked
    with the schema `version` it was written with."""
    return {"schema_version": version, field: data} if isinstance(data, list) else data


class Frozen(Record):
    """A strict record that never changes once read."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Loose(BaseModel):
    """An API payload: unknown fields are kept."""

    model_config = ConfigDict(extra="allow")


class Lenient(BaseModel):
    """An API record read for some of its fields: the others are ignored; frozen."""

    model_config = ConfigDict(extra="ignore", frozen=True)
