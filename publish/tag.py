"""The frozen-round tag: `python -m publish.tag ROUND [--check]`.

Creating: an annotated tag `round/<round>` on HEAD whose message records the hashes of the prompt,
starter tree, cohort, round settings, evaluator source and tool versions, plus the calibration
verdict. Refused when the working tree is dirty, calibration is missing or failed, or the
protected inputs differ from the round's `round.json`.
Checking: compares the current checkout's hashes with the tag's and names every difference.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import git

import harness
from records.evidence.round import FrozenInputs, RoundRecord
from records.io import RecordError, read_json, read_record
from records.layout import REPO_ROOT
from records.round import Round
from records.rubric import MAX_AUTOMATED
from records.tools import tool_versions

MARKER = "--- siteos-bench round fingerprint (json) ---"


class TagRefused(RuntimeError):
    """The round cannot be tagged; the message says why."""


def tag_name(round_id: str) -> str:
    return f"round/{round_id}"


def flat_inputs(inputs: FrozenInputs) -> dict[str, str]:
    """The frozen inputs as one hash per name: each arm folder of an intervention round as
    `arm_<id>_sha256` (none in a round of one arm)."""
    arms = {f"arm_{arm}_sha256": sha for arm, sha in inputs.arms_sha256.items()}
    return {**inputs.model_dump(exclude={"arms_sha256"}), **arms}


def fingerprint(rnd: Round) -> dict[str, str]:
    """The current checkout's hashes of everything a frozen round depends on."""
    inputs = harness.current_inputs(rnd)
    versions = json.dumps(tool_versions(), sort_keys=True, separators=(",", ":"))
    return {
        **flat_inputs(inputs),
        "evaluator_sha256": harness.evaluator_sha256(),
        "tool_versions_sha256": hashlib.sha256(versions.encode()).hexdigest(),
    }


def _calibration(rnd: Round) -> dict[str, Any]:
    path = rnd.paths.calibration
    if not path.exists():
        raise TagRefused(f"{path}: no calibration for round {rnd.id!r}: run `doit calibrate` first")
    data = read_json(path)
    if not isinstance(data, dict) or data.get("passed") is not True:
        score = data.get("automated_score") if isinstance(data, dict) else None
        expected = rnd.task.spec.calibration_score
        raise TagRefused(
            f"{path}: calibration did not pass (score {score}/{MAX_AUTOMATED}, "
            f"{rnd.task.spec.id}'s starter must score {expected}/{MAX_AUTOMATED})"
        )
    return data


def tag_message(rnd: Round) -> str:
    """The tag message: a readable summary, then the fingerprint as JSON."""
    paths, round_id = rnd.paths, rnd.id
    calibration = _calibration(rnd)
    if not paths.round_json.exists():
        raise TagRefused(f"{paths.round_json}: the round was never frozen: run the freeze stage")
    frozen = read_record(paths.round_json, RoundRecord)
    current = fingerprint(rnd)
    drift = [k for k, v in flat_inputs(frozen.inputs).items() if current.get(k) != v]
    if drift:
        raise TagRefused(f"protected inputs differ from {paths.round_json}: {', '.join(drift)}")
    body = {
        "round_id": round_id,
        "frozen_at": frozen.frozen_at,
        "fingerprint": current,
        "tool_versions": tool_versions(),
        "calibration": {
            "passed": True,
            "automated_score": calibration.get("automated_score"),
            "checks_executed": calibration.get("checks_executed"),
        },
    }
    lines = [f"Frozen round {round_id}", ""]
    lines += [f"{key}: {value}" for key, value in current.items()]
    lines += [
        f"calibration: passed, {calibration.get('automated_score')}/{MAX_AUTOMATED}",
        "",
        MARKER,
        json.dumps(body, indent=2, sort_keys=True),
    ]
    return "\n".join(lines) + "\n"


def create_tag(rnd: Round, repo_dir: Path = REPO_ROOT) -> str:
    """Create the annotated tag on HEAD; returns the tag name."""
    repo = git.Repo(repo_dir)
    if repo.is_dirty(untracked_files=True):
        changed = [d.a_path or "" for d in repo.index.diff(None)] + repo.untracked_files
        raise TagRefused(
            f"the working tree is dirty ({', '.join(changed[:5]) or 'staged changes'}): "
            "commit the round's evidence first"
        )
    name = tag_name(rnd.id)
    if name in repo.tags:
        raise TagRefused(
            f"tag {name} already exists on {repo.tags[name].commit.hexsha[:12]}; "
            "a frozen round is never re-tagged"
        )
    repo.create_tag(name, message=tag_message(rnd))
    return name


def recorded_fingerprint(round_id: str, repo_dir: Path = REPO_ROOT) -> dict[str, str]:
    repo = git.Repo(repo_dir)
    name = tag_name(round_id)
    tag = repo.tags[name].tag if name in repo.tags else None
    if tag is None:
        raise TagRefused(f"no annotated tag {name}")
    message = str(tag.message)
    if MARKER not in message:
        raise TagRefused(f"tag {name} has no fingerprint block")
    data: dict[str, str] = json.loads(message.split(MARKER, 1)[1])["fingerprint"]
    return data


def check_tag(rnd: Round, repo_dir: Path = REPO_ROOT) -> list[str]:
    """What differs between the tag and the current checkout (empty when it still matches)."""
    recorded = recorded_fingerprint(rnd.id, repo_dir)
    current = fingerprint(rnd)
    return [
        f"{key}: tag {recorded.get(key, '-')[:12]}…, now {current.get(key, '-')[:12]}…"
        for key in sorted(set(recorded) | set(current))
        if recorded.get(key) != current.get(key)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m publish.tag", description=__doc__.splitlines()[0]
    )
    parser.add_argument("round")
    parser.add_argument("--check", action="store_true", help="does this checkout match the tag?")
    args = parser.parse_args(argv)
    try:
        rnd = Round.load(args.round)
        if args.check:
            differences = check_tag(rnd)
            if differences:
                print(f"{tag_name(args.round)}: this checkout differs from the tag:")
                print("\n".join(f"  {d}" for d in differences))
                return 1
            print(f"{tag_name(args.round)}: this checkout matches the tag")
            return 0
        print(f"created {create_tag(rnd)}")
        return 0
    except (TagRefused, RecordError) as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
