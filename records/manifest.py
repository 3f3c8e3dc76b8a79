"""A unit's evidence manifests: written where the files are written, verified where they are read.

    write_session_manifest(paths)                 the runner, just before session.json
    write_evaluation_manifest(paths, result, sha) the unit's evaluation, after result.json
    manifest_problems(folder, manifest)           each listed file missing or not hashing the same

The record is `records.evidence.manifest.EvidenceManifest`; scoring's use of it is
`scoring/integrity.py`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from records.evidence.evaluation import EvaluationResult
from records.evidence.manifest import EvidenceManifest, ManifestFile, ManifestPart
from records.hashing import file_sha256
from records.io import write_record
from records.layout import UnitPaths


def manifest_for(
    unit: str,
    part: ManifestPart,
    folder: Path,
    files: Iterable[Path],
    evaluator_sha256: str | None = None,
) -> EvidenceManifest:
    """The manifest of `files` (those that exist) relative to `folder`, each with its hash."""
    listed = [
        ManifestFile(
            path=path.relative_to(folder).as_posix(),
            sha256=file_sha256(path),
            bytes=path.stat().st_size,
        )
        for path in dict.fromkeys(files)
        if path.is_file()
    ]
    return EvidenceManifest(unit=unit, part=part, evaluator_sha256=evaluator_sha256, files=listed)


def write_session_manifest(paths: UnitPaths) -> EvidenceManifest:
    """`units/<unit>/manifest.json`: the session's files as they are now (`UnitPaths.manifested`).
    Written before session.json, so session.json's `evidence_files` names it."""
    manifest = manifest_for(paths.root.name, "session", paths.root, paths.manifested)
    write_record(paths.manifest, manifest)
    return manifest


def evaluation_files(paths: UnitPaths, result: EvaluationResult) -> list[Path]:
    """What the methodology keeps of an evaluation: result.json, the screenshots and the video
    the result names."""
    folder = paths.evaluation
    named = [s.path for s in result.screenshots] + ([result.video] if result.video else [])
    return [paths.result, *(folder / name for name in named)]


def write_evaluation_manifest(
    paths: UnitPaths, result: EvaluationResult, evaluator_sha256: str
) -> EvidenceManifest:
    """`units/<unit>/evaluation/manifest.json`, with the digest of the evaluator that judged."""
    folder = paths.evaluation
    files = evaluation_files(paths, result)
    manifest = manifest_for(paths.root.name, "evaluation", folder, files, evaluator_sha256)
    write_record(paths.evaluation_files.manifest, manifest)
    return manifest


def manifest_problems(folder: Path, manifest: EvidenceManifest) -> list[tuple[Path, str]]:
    """(file, what is wrong) for each listed file missing now or not hashing as recorded."""
    problems: list[tuple[Path, str]] = []
    for entry in manifest.files:
        path = folder / entry.path
        if not path.is_file():
            problems.append((path, "missing"))
            continue
        actual = file_sha256(path)
        if actual != entry.sha256:
            problems.append(
                (
                    path,
                    f"altered: SHA-256 {actual} differs from {entry.sha256} recorded in "
                    "its manifest.json",
                )
            )
    return problems
