"""Is a unit's worktree archive the one its runner recorded? One rule for the evaluator, the
leaderboard and the replacement command.

session.json (schema 3) records the SHA-256 of `worktree.tar.gz` as the runner wrote it. An
archive that differs now was altered or corrupted after the session: required evidence is no
longer what the run produced, so the unit is invalid (seed: "Invalidate rather than score a run
when ... required evidence is missing"), never evaluated, scored or replaced.
"""

from __future__ import annotations

from records.evidence.session import SessionRecord
from records.hashing import file_sha256
from records.layout import UnitPaths


def archive_altered(paths: UnitPaths, session: SessionRecord) -> str:
    """Why the archive is not the recorded one ('' when it is, or when nothing can be checked:
    no archive (the missing-evidence rule covers that) or an older record without a hash)."""
    recorded = session.worktree_archive_sha256
    if recorded is None or not paths.archive.is_file():
        return ""
    actual = file_sha256(paths.archive)
    if actual == recorded:
        return ""
    return (
        f"SHA-256 {actual} differs from {recorded} recorded in {paths.session.name}: altered or "
        "corrupted after the session"
    )
