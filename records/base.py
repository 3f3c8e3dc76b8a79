"""The one base of every persisted record: unknown fields are an error, never silently dropped."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    """Base of every evidence record (strict: an unknown field names the file and field)."""

    model_config = ConfigDict(extra="forbid")
