"""The one base of every persisted record: unknown fields are an error, never silently dropped."""

from __future__ import annotations

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
