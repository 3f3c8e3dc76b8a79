"""render_site's working folders: each render has its own, a failed render leaves none behind and
keeps the last good site, and two renders into one build folder never remove each other's."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

import publish.render as render


class _Evidence:
    round_record = None


def _fake_render(monkeypatch: pytest.MonkeyPatch, fail: bool = False, pause: float = 0) -> None:
    monkeypatch.setattr(render, "load_round_evidence", lambda rnd: _Evidence())

    def docs(evidence: Any, folder: Path) -> str:
        (folder / "index.md").write_text("# page\n")
        return "banner"

    def build(docs_dir: Path, site_dir: Path, epoch: int, banner: str) -> None:
        if fail:
            raise render.SiteBuildError("mkdocs build --strict failed: a broken link")
        site_dir.mkdir()
        (site_dir / "index.html").write_text((docs_dir / "index.md").read_text())
        threading.Event().wait(pause)

    monkeypatch.setattr(render, "render_docs", docs)
    monkeypatch.setattr(render, "mkdocs_build", build)


def _leftovers(build: Path) -> list[str]:
    return sorted(p.name for p in build.iterdir() if p.name.startswith("."))


def test_a_failed_render_keeps_the_last_site_and_leaves_no_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_render(monkeypatch)
    site = render.render_site(object(), tmp_path)  # type: ignore[arg-type]
    assert (site / "index.html").read_text() == "# page\n"
    assert (tmp_path / "site-docs").stat().st_mode & 0o777 == 0o755
    _fake_render(monkeypatch, fail=True)
    with pytest.raises(render.SiteBuildError):
        render.render_site(object(), tmp_path)  # type: ignore[arg-type]
    assert (site / "index.html").exists() and _leftovers(tmp_path) == []


def test_two_renders_at_once_into_one_build_folder_both_finish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_render(monkeypatch, pause=0.3)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            render.render_site(object(), tmp_path)  # type: ignore[arg-type]
        except BaseException as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert (tmp_path / "site" / "index.html").exists() and _leftovers(tmp_path) == []


def test_swaps_racing_into_one_folder_all_finish_and_leave_one_whole_site(tmp_path: Path) -> None:
    """Four renders swapping their site in at the same moment, twenty times over: each finishes,
    one whole site stands, no working folder is left (the swap this replaced failed about two
    times in three here: a rename onto a folder another render had just put in place)."""
    for trial in range(20):
        build = tmp_path / str(trial)
        build.mkdir()
        errors: list[BaseException] = []
        start = threading.Barrier(4)

        def swap(
            n: int,
            build: Path = build,
            errors: list[BaseException] = errors,
            start: threading.Barrier = start,
        ) -> None:
            new = build / f".new{n}"
            new.mkdir()
            (new / "index.html").write_text(str(n))
            start.wait()
            try:
                render._swap(new, build / "site")
            except BaseException as exc:  # noqa: BLE001 (reported below)
                errors.append(exc)

        threads = [threading.Thread(target=swap, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == [] and _leftovers(build) == [], trial
        assert (build / "site" / "index.html").read_text() in {"0", "1", "2", "3"}
