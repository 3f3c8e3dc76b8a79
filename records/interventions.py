"""An intervention round's factor and its arms, as data.

A round varies exactly one factor. `agent` is declared by the round file's `agents` list (each arm
an agent, `records/inputs.py`); `method`, `starter` and `tools` by its `intervention` block
(`{"factor": "method", "arms": ["none", "placebo", "tracer-bullets"]}`), whose arms are frozen
folders `benchmark/interventions/<factor>/<arm>/`: an `arm.json` (`ArmManifest`) and the files the
arm adds to the worktree (everything beside `arm.json`, copied before the baseline commit, so the
model's diff never counts them). Exactly one arm is the baseline; a `method` or `tools` factor
also has a placebo arm (the same shape, none of the substance). The freeze stage hashes each arm's
whole folder (`arm_sha256`) like the starter; a session records its arm (`ArmRecord`).

A `starter` arm may also replace starter files, each named in its `replaces` (arm.json schema 2):
the Storybook arm's package.json, package-lock.json and .gitignore replace the starter's, so its
dependencies install offline like the starter's and its catalogue build stays out of the diff. Any
other file the starter already has is refused.

A `tools` arm (arm.json schema 2) names its `tool` (`records/image_tool.py`): the command the
harness puts on the agent's PATH in the sandbox (`siteos-image`) and its backend (an image-output
route through the recording proxy, or the placebo's local placeholder); its files (an AGENTS.md
notice) tell the agent the tool exists. The baseline of a tools factor has no tool; every other
tools arm has one, the placebo's a placeholder.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from records.base import Frozen, Record
from records.hashing import TREE_EXCLUDED_DIRS, file_sha256, tree_files, tree_sha256
from records.image_tool import TOOL_SCRIPT, ImageTool, snapshot_image_route
from records.io import RecordError, read_record
from records.layout import BENCHMARK_DIR

Factor = Literal["agent", "method", "starter", "tools"]
FolderFactor = Literal["method", "starter", "tools"]
"""The factors whose arms are folders (the agent factor's arms are the round's `agents`)."""
NEEDS_PLACEBO: frozenset[str] = frozenset({"method", "tools"})
ARM_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
MANIFEST = "arm.json"
INTERVENTIONS_DIR = BENCHMARK_DIR / "interventions"


class Generated(Frozen):
    """How an arm's files were made when a tool wrote them (not the project's own words)."""

    tool: str = Field(description="the package that wrote them, e.g. npm @fission-ai/openspec")
    version: str = Field(description="the exact version pinned when they were generated")
    command: str = Field(description="the command line that wrote them")
    script: str = Field(description="the repository script that ran it, relative to the repo")


class ArmManifest(Frozen):
    """`benchmark/interventions/<factor>/<arm>/arm.json`: one arm of a factor.

    Schema 2 adds `tool` (a tools arm's command in the sandbox) and `replaces` (the starter files a
    starter arm replaces); schema 1 files load unchanged (no tool, replacing nothing)."""

    schema_version: Literal[1, 2] = 2
    id: str = Field(description="the arm's id: its folder's name, the `-via-<arm>` of unit ids")
    factor: FolderFactor
    title: str = Field(description="a short name the site shows")
    adds: str = Field(description="what the arm adds to the worktree, in words")
    baseline: bool = Field(description="the arm every other arm is compared with")
    placebo: bool = Field(
        description="the same shape as the intervention without its substance (e.g. an "
        "equal-length neutral AGENTS.md)"
    )
    source: str = Field(description="where the files' words come from")
    generated: Generated | None = Field(
        default=None, description="the tool and pinned version that wrote the files (if any)"
    )
    tool: ImageTool | None = Field(
        default=None,
        description="a tools arm's command on the agent's PATH (schema 2; the baseline: none)",
    )
    replaces: list[str] = Field(
        default_factory=list,
        description="starter files the arm's files of the same path replace (starter arms "
        "only, schema 2); every other arm file must be new to the worktree",
    )

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not ARM_ID.match(value) or "-via-" in value:
            raise ValueError(f"id {value!r} must be lowercase letters, digits and hyphens")
        return value

    @model_validator(mode="after")
    def _not_both(self) -> ArmManifest:
        if self.baseline and self.placebo:
            raise ValueError("an arm is the baseline or the placebo, not both")
        if self.tool is not None and self.schema_version < 2:
            raise ValueError("field tool: needs schema_version 2")
        if self.tool is not None and self.factor != "tools":
            raise ValueError(f"field tool: only a tools arm has one (factor {self.factor!r})")
        if self.factor == "tools" and not self.baseline and self.tool is None:
            raise ValueError("field tool: a tools arm other than the baseline names its tool")
        if self.factor == "tools" and self.baseline and self.tool is not None:
            raise ValueError("field tool: the tools baseline adds no tool")
        if self.placebo and self.tool is not None and self.tool.backend != "placeholder":
            raise ValueError("field tool: the placebo's tool is a placeholder (no model)")
        if not self.placebo and self.tool is not None and self.tool.backend == "placeholder":
            raise ValueError("field tool: a placeholder tool is the placebo's")
        if self.replaces and self.factor != "starter":
            raise ValueError(f"replaces: only a starter arm replaces starter files ({self.factor})")
        if self.replaces and self.schema_version < 2:
            raise ValueError("replaces: needs schema_version 2")
        return self


class InterventionSpec(Frozen):
    """A round file's `intervention`: the one factor it varies and its arms (folder names)."""

    factor: Factor = Field(
        description="method, starter or tools (the agent factor is the round's `agents` list)"
    )
    arms: list[str] = Field(min_length=2, description="arm folders, the baseline first")

    @field_validator("factor")
    @classmethod
    def _factor(cls, value: str) -> str:
        if value == "agent":
            raise ValueError("the agent factor is declared by the round's `agents` list")
        return value

    @field_validator("arms")
    @classmethod
    def _arms(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError(f"each arm once: {value}")
        for arm in value:
            if not ARM_ID.match(arm) or "-via-" in arm:
                raise ValueError(f"arm {arm!r} must be lowercase letters, digits and hyphens")
        return value


class Arm(Record):
    """One arm as loaded: its manifest, its folder and the files it adds (relative paths)."""

    manifest: ArmManifest
    folder: Path
    files: list[str]

    @property
    def id(self) -> str:
        return self.manifest.id

    @property
    def replaces(self) -> list[str]:
        """The starter files this arm's files replace (arm.json `replaces`)."""
        return list(self.manifest.replaces)

    def sha256(self) -> str:
        """The folder's tree hash (arm.json and every file it adds), as the freeze records it;
        an arm with a tool hashes the command's script with it, so changing the command changes
        the arm."""
        tree = tree_sha256(self.folder)
        if self.manifest.tool is None:
            return tree
        both = f"{tree}\n{self.manifest.tool.command} {file_sha256(TOOL_SCRIPT)}\n"
        return hashlib.sha256(both.encode()).hexdigest()


class ArmRecord(Record):
    """session.json's `arm` (schema 7): the unit's arm of the round's factor."""

    factor: Factor
    arm: str
    sha256: str | None = Field(
        default=None, description="the arm folder's tree hash at the session (agent arms: None)"
    )
    frozen_sha256: str | None = Field(
        default=None, description="the hash round.json froze for the arm (agent arms: None)"
    )
    files: list[str] = Field(
        default_factory=list, description="the files copied into the worktree before its commit"
    )


def arm_folder(factor: str, arm: str, root: Path | None = None) -> Path:
    """`benchmark/interventions/<factor>/<arm>/` (or under `root`)."""
    return (root or INTERVENTIONS_DIR) / factor / arm


def load_arm(factor: str, arm: str, root: Path | None = None) -> Arm:
    """The arm's folder and manifest; errors name the file and field."""
    folder = arm_folder(factor, arm, root)
    path = folder / MANIFEST
    if not folder.is_dir():
        raise RecordError(f"{folder}: no such arm folder (factor {factor!r}, arm {arm!r})")
    manifest = read_record(path, ArmManifest)
    if manifest.id != arm:
        raise RecordError(f"{path}: field id: {manifest.id!r} does not match its folder {arm!r}")
    if manifest.factor != factor:
        raise RecordError(
            f"{path}: field factor: {manifest.factor!r} but the folder is under {factor!r}"
        )
    if manifest.tool is not None and manifest.tool.route is not None:
        try:  # the route must be an image-output route of the committed catalogue
            snapshot_image_route(manifest.tool.route)
        except RecordError as exc:
            raise RecordError(f"{path}: field tool.route: {exc}") from exc
    files = [
        p.relative_to(folder).as_posix()
        for p in tree_files(folder, TREE_EXCLUDED_DIRS)
        if p.relative_to(folder).as_posix() != MANIFEST
    ]
    stray = sorted(set(manifest.replaces) - set(files))
    if stray:
        raise RecordError(f"{path}: field replaces: {', '.join(stray)} not in the arm's files")
    return Arm(manifest=manifest, folder=folder, files=files)


def load_arms(spec: InterventionSpec, root: Path | None = None) -> list[Arm]:
    """Every arm of `spec`, checked as a set: exactly one baseline; a placebo where the factor
    needs one. Errors name the arm file and field."""
    arms = [load_arm(spec.factor, a, root) for a in spec.arms]
    baselines = [a for a in arms if a.manifest.baseline]
    if len(baselines) != 1:
        named = ", ".join(str(a.folder / MANIFEST) for a in baselines) or "none"
        raise RecordError(
            f"{arm_folder(spec.factor, spec.arms[0], root) / MANIFEST}: field baseline: exactly "
            f"one arm of factor {spec.factor!r} is the baseline (found: {named})"
        )
    if spec.factor in NEEDS_PLACEBO and not any(a.manifest.placebo for a in arms):
        raise RecordError(
            f"{arm_folder(spec.factor, spec.arms[-1], root) / MANIFEST}: field placebo: a "
            f"{spec.factor} factor needs a placebo arm (one of {', '.join(spec.arms)})"
        )
    if not arms[0].manifest.baseline:
        raise RecordError(
            f"{baselines[0].folder / MANIFEST}: field baseline: the baseline arm comes first in "
            f"the round's intervention.arms ({', '.join(spec.arms)})"
        )
    return arms
