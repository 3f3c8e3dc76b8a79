"""The rehearsal end to end on a subset of round-0's routes: `doit` with SITEOS_ROUND set to
round-0-rehearsal-smoke (three real routes, the simulator serving the catalogue snapshot).

The full rehearsal is `SITEOS_ROUND=round-0-rehearsal doit` (README, "Running a real round").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dodo import PIPELINE
from records.evidence.catalogue import CatalogueReport
from records.evidence.round import PreflightRecord
from records.evidence.session import SessionRecord
from records.inputs import load_cohort, load_round
from records.io import read_record
from records.layout import REPO_ROOT, round_paths

pytestmark = [pytest.mark.slow, pytest.mark.opencode, pytest.mark.browser]

ROUND = "round-0-rehearsal-smoke"


def test_rehearsal_subset_runs_end_to_end(tmp_path: Path) -> None:
    evidence = tmp_path / "evidence"
    env = dict(os.environ, SITEOS_EVIDENCE_DIR=str(evidence), SITEOS_ROUND=ROUND)
    env.pop("OPENROUTER_API_KEY", None)
    proc = subprocess.run(
        [sys.executable, "-m", "doit", *PIPELINE],
        cwd=REPO_ROOT, env=env, text=True, capture_output=True, timeout=1800,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-4000:]
    assert "$2.00 in, $6.00 out" in proc.stdout  # the spend announcement quotes real prices

    paths = round_paths(ROUND, evidence)
    report = read_record(paths.catalogue, CatalogueReport)
    assert [(m.key, m.field, m.kind) for m in report.mismatches] == [
        ("devstral", "present", "disclosed")
    ]
    verdicts = {
        key: read_record(paths.preflight(key), PreflightRecord)
        for key in ("grok", "gemini-pro", "devstral")
    }
    assert verdicts["grok"].qualified
    assert verdicts["gemini-pro"].reason_class == "route_provider"
    assert (verdicts["devstral"].reason_class, verdicts["devstral"].probes) == ("catalogue", [])

    cohort = load_cohort(load_round(ROUND).cohort_path)
    slug = cohort.by_key("grok").expected_canonical_slug
    session = read_record(paths.unit("grok-r1").session, SessionRecord)
    assert session.validity == "valid"
    assert session.identity.verdict == "consistent"
    assert session.identity.observed_models == [slug]  # the canonical slug, as live answers
    assert session.cost_usd is not None and session.cost_usd > 0
    board = json.loads(paths.leaderboard.read_text())
    assert [(row["unit"], row["status"]) for row in board["units"]] == [("grok-r1", "gate_failed")]

    pages = sorted((evidence.parent / "build" / "site").rglob("*.html"))  # BUILD_DIR follows
    assert pages
    for page in pages:
        text = page.read_text()
        assert "Rehearsal round" in text and "script served by the local gateway simulator" in text
