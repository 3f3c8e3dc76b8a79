"""The methodology page's rule-path tables are well formed and their references are real.

The end-to-end demo test (`tests/test_pipeline.py`) checks that the demo's evidence exercises
every demo row; this file checks the tables themselves, cheaply.
"""

from __future__ import annotations

import re
from pathlib import Path

from rule_paths import FINDERS, METHODOLOGY, table, unexercised

from records.inputs import load_cohort, load_round
from records.layout import REPO_ROOT


def test_every_demo_row_has_a_finder_and_names_a_demo_candidate() -> None:
    rows = table("demo")
    assert len(rows) >= 15
    assert {r.id for r in rows} == set(FINDERS), "a finder without a row, or a row without one"
    keys = {c.key for c in load_cohort(load_round("demo").cohort_path).candidates}
    for row in rows:
        assert row.names and set(row.names) <= keys, (row.id, row.names)


def test_every_tests_row_names_a_test_that_exists() -> None:
    rows = table("tests")
    assert {"time-ceiling", "time-band-20-30", "within-three-of-fifth"} <= {r.id for r in rows}
    for row in rows:
        files = [n for n in row.names if n.startswith("tests/")]
        tests = [n for n in row.names if n.startswith("test_")]
        assert files and tests, row
        sources = " ".join((REPO_ROOT / f).read_text() for f in files)
        for name in tests:
            assert re.search(rf"^def {name}\(", sources, re.M), (row.id, name)


def test_no_rule_path_is_both_a_demo_path_and_a_test_only_path() -> None:
    assert not {r.id for r in table("demo")} & {r.id for r in table("tests")}


def test_an_empty_round_exercises_nothing(tmp_path: Path) -> None:
    problems = unexercised("demo", tmp_path)
    assert len(problems) == len(table("demo"))
    assert all("is not exercised by" in p and METHODOLOGY.name in p for p in problems)
