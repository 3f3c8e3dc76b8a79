"""A cited source is a link, or says why it is not one: sealed review material apart from missing
files (a reader must not take a sealed sheet for lost evidence)."""

from __future__ import annotations

from pathlib import Path

from publish.published import Published


def _evidence(tmp_path: Path) -> Path:
    round_dir = tmp_path / "evidence" / "r"
    (round_dir / "reviews").mkdir(parents=True)
    (round_dir / "reviews" / "rev-a.csv").write_text("code,visual\nX1,14\n", encoding="utf-8")
    (round_dir / "units" / "u-r1").mkdir(parents=True)
    (round_dir / "units" / "u-r1" / "session.json").write_text('{\n  "cost_usd": 1\n}\n')
    return tmp_path / "evidence"


def test_sealed_missing_and_published_sources_read_apart(tmp_path: Path) -> None:
    evidence = _evidence(tmp_path)
    sealed = Published(evidence, "r", tmp_path / "docs")
    review = sealed.link("reviews/rev-a.csv:2", "units")
    assert "sb-cite--sealed" in review and "sealed until the standing is final" in review
    assert not (tmp_path / "docs" / "evidence" / "r" / "reviews").exists()
    missing = sealed.link("units/u-r1/result.json#checks", "units")
    assert "sb-cite--missing" in missing and "(not published)" in missing
    cited = sealed.link("units/u-r1/session.json#cost_usd", "units")
    assert 'href="../evidence/r/units/u-r1/session.json.html#k-cost_usd"' in cited
    assert "sb-cite--sealed" in sealed.link("codes.json", "")  # codes never open
    assert "sb-cite--sealed" in sealed.evidence_link("r/packets/X1.md")

    final = Published(evidence, "r", tmp_path / "docs2", unsealed=True)
    assert 'href="../evidence/r/reviews/rev-a.csv.html#L2"' in final.link(
        "reviews/rev-a.csv:2", "units"
    )
