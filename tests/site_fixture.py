"""A realistic evidence tree for site tests, written with the owners' own records.

`build_evidence(root)` writes evidence for round-0 (its real cohort, with the disclosed
substitution): eight qualified routes and six not testable; units that are ranked and advance,
gate-capped, stopped at the step ceiling, invalid for identity, and a provider outage listed apart;
screenshots (PNG) at 360/768/1440 and a real VP9 `.webm` video; calibration and controls.
"""

from __future__ import annotations

import json
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Any

from scoring_support import CHECKS, GATES

from records.evidence.controls import ControlRow
from records.evidence.evaluation import (
    Calibration,
    CheckResult,
    CoreJourneys,
    Diagnostic,
    EvaluationResult,
    GateResult,
    Screenshot,
    Timings,
)
from records.evidence.gateway import GatewaySummary
from records.evidence.round import (
    CatalogueCheck,
    FrozenInputs,
    OrderRecord,
    PreflightRecord,
    ProbeRecord,
    RoundRecord,
)
from records.evidence.session import AgentInfo, Ceilings, Identity, Isolation, SessionRecord, Tokens
from records.inputs import load_cohort, load_round
from records.io import write_json, write_record
from records.layout import controls_json, round_paths
from scoring.pipeline import score_round

ROUND = "round-0"
STARTER_FAILS = {
    "filter-journey", "url-state", "venue-detail", "enquiry-form", "long-copy", "mobile-nav",
    "dialog-focus", "reduced-motion",
}  # fmt: skip
NOT_TESTABLE = {
    "gemini-pro": "route_provider",
    "deepseek-pro": "adapter_unstable",
    "qwen-max": "adapter_unstable",
    "step-flash": "adapter_unstable",
    "devstral": "route_provider",
    "nemotron-ultra": "route_provider",
}
AGENT = AgentInfo(name="opencode", version="1.17.18")
ISOLATION = Isolation(level="bwrap-loopback-proxy", details=["bwrap", "unshare-net", "proxy-only"])
STAMP = "2026-12-01T10:00:00+00:00"


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A small solid-colour PNG."""
    row = b"\x00" + bytes(rgb) * width
    raw = zlib.compress(row * height)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def webm(path: Path) -> None:
    """A one-second VP9 WebM made with the ffmpeg that imageio-ffmpeg ships."""
    import imageio_ffmpeg

    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            imageio_ffmpeg.get_ffmpeg_exe(),
            "-hide_banner",
            "-loglevel",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
            "testsrc=size=320x200:rate=10:duration=1",
            "-c:v",
            "libvpx-vp9",
            "-b:v",
            "100k",
            str(path),
        ],
        check=True,
        timeout=60,
    )


def evaluation(
    failed: set[str], gates_failed: dict[str, str], with_video: bool = True
) -> EvaluationResult:
    checks = [
        CheckResult(
            id=cid,
            dimension=dim,
            points=0 if cid in failed else pts,
            max_points=pts,
            executed=True,
            passed=cid not in failed,
            proves=f"the {cid} contract",
            diagnostics=[
                Diagnostic(
                    expected=f"{cid} works | as *specified*",
                    seen="it did <not>",
                    url="/venues",
                    viewport="360x800",
                    selector="role=button[name=Menu]",
                )
            ]
            if cid in failed
            else [],
        )
        for cid, dim, pts in CHECKS
    ]  # type: ignore[arg-type]
    score = sum(c.points for c in checks)
    shots = [
        Screenshot(
            page=page,
            state="settled",
            viewport=f"{w}x900",
            path=f"screenshots/{page}-{w}.png",
            url=f"/{page}",
        )
        for w in (360, 768, 1440)
        for page in ("home", "venues")
    ]
    journeys = {
        j: "failed" if f"{j}-x" in failed else "passed" for j in ("filter", "detail", "enquiry")
    }
    if "filter-journey" in failed:
        journeys["filter"] = "failed"
    return EvaluationResult(
        app_dir="/tmp/app",
        automated_score=score,
        capped_score=min(score, 49) if gates_failed else score,
        checks=checks,
        gates=[
            GateResult(id=g, failed=g in gates_failed, reason=gates_failed.get(g, ""))
            for g in GATES
        ],
        hard_gate_failed=bool(gates_failed),
        core_journeys=CoreJourneys(**journeys),  # type: ignore[arg-type]
        checks_executed=15,
        install_ok=True,
        check_ok=True,
        build_ok=True,
        timings=Timings(total_s=9.5),
        tool_versions={"chromium": "140", "playwright": "1.65.2"},
        screenshots=shots,
        video="video.webm" if with_video else None,
    )


def session(
    unit: str,
    key: str,
    route: str,
    *,
    stop: str = "completed",
    validity: str = "valid",
    reasons: list[str] | None = None,
    failure: str = "none",
    cost: float = 1.25,
    elapsed: float = 600.0,
    steps: int = 22,
) -> SessionRecord:
    return SessionRecord(
        unit=unit,
        round_id=ROUND,
        model_key=key,
        repetition=1,
        agent=AGENT,
        gateway_kind="openrouter",
        requested_route=route,
        expected_slug=route,
        identity=Identity(
            requested_route=route,
            expected_slug=route,
            observed_models=[route],
            observed_providers=["ProviderA"],
            verdict="contradicts" if "identity" in " ".join(reasons or []) else "consistent",
            contradictions=["turn 2 reported other/model"] if validity == "invalid" else [],
        ),
        steps=steps,
        stop_status=stop,
        exit_code=0 if stop == "completed" else None,  # type: ignore[arg-type]
        elapsed_seconds=elapsed,
        tokens=Tokens(prompt=120_000, completion=9_000, reasoning=3_000),
        cost_usd=cost,
        gateway=GatewaySummary(requests=steps, steps=steps),
        isolation=ISOLATION,
        ceilings=Ceilings(steps=40, wall_clock_seconds=1800, budget_usd=10.0),
        validity=validity,
        invalid_reasons=reasons or [],
        failure_class=failure,  # type: ignore[arg-type]
        prompt_sha256="a" * 64,
        starter_tree_sha256="b" * 64,
        frozen_prompt_sha256="a" * 64,
        frozen_starter_tree_sha256="b" * 64,
        started_at=STAMP,
        finished_at=STAMP,
    )


UNITS: dict[str, dict[str, Any]] = {
    "claude-opus": {
        "failed": set(),
        "gates": {},
        "session": {"cost": 3.1, "elapsed": 840},
        "visual": 17.5,
        "code": 9,
    },
    "gpt-sol": {
        "failed": {"reduced-motion"},
        "gates": {},
        "session": {"cost": 1.9, "elapsed": 700},
        "visual": 16,
        "code": 8,
        "second_review": False,
    },
    "grok": {
        "failed": {"filter-journey", "url-state"},
        "gates": {"core-journey": "filter journey failed"},
        "session": {"cost": 0.4, "elapsed": 1300},
        "visual": 12,
        "code": 6,
    },
    "kimi": {
        "failed": {"mobile-nav"},
        "gates": {},
        "session": {"cost": 2.2, "elapsed": 1800, "steps": 40, "stop": "step_ceiling"},
        "visual": 11,
        "code": 6,
    },
    "minimax": {
        "failed": {"axe", "long-copy"},
        "gates": {},
        "session": {"cost": 0.9, "elapsed": 1100},
        "visual": 10,
        "code": 5,
    },
    "nova-lite": {
        "failed": {"url-state"},
        "gates": {},
        "session": {"cost": 6.2, "elapsed": 1250},
        "visual": 9,
        "code": 5,
    },
    "llama-maverick": {
        "failed": set(),
        "gates": {},
        "video": False,
        "visual": 0,
        "code": 0,
        "session": {"validity": "invalid", "reasons": ["identity contradicts the freeze"]},
    },
    "glm": {
        "failed": set(),
        "gates": {},
        "visual": 0,
        "code": 0,
        "session": {"failure": "provider_outage", "stop": "time_ceiling", "cost": 0.2},
    },
}


def build_evidence(root: Path, *, video: bool = True, leaderboard: bool = True) -> Path:
    """Write the fixture evidence tree below `root` and return it."""
    settings = load_round(ROUND)
    cohort = load_cohort(settings.cohort_path)
    paths = round_paths(ROUND, root)
    write_record(
        paths.round_json,
        RoundRecord(
            round_id=ROUND,
            frozen_at=STAMP,
            seed=settings.seed,
            cohort_file=settings.cohort,
            inputs=FrozenInputs(
                prompt_sha256="a" * 64,
                starter_tree_sha256="b" * 64,
                cohort_sha256="c" * 64,
                settings_sha256="d" * 64,
            ),
            evaluator_sha256="e" * 64,
            tool_versions={"opencode": "1.17.18"},
        ),
    )
    for c in cohort.candidates:
        reason = NOT_TESTABLE.get(c.key)
        passes = 2 if reason == "adapter_unstable" else (0 if reason else 3)
        write_record(
            paths.preflight(c.key),
            PreflightRecord(
                round_id=ROUND,
                model_key=c.key,
                route=c.route,
                expected_slug=c.expected_canonical_slug,
                agent=AGENT,
                gateway_kind="openrouter",
                isolation=ISOLATION,
                catalogue=CatalogueCheck(
                    route=c.route,
                    expected_slug=c.expected_canonical_slug,
                    present=reason != "route_provider",
                    canonical_slug=c.expected_canonical_slug,
                    slug_matches=True,
                    supported_parameters=["tools", "tool_choice"],
                    tools_supported=True,
                    passed=reason != "route_provider",
                ),
                probes=[
                    ProbeRecord(
                        probe=i,
                        passed=i <= passes,
                        file_edited=i <= passes,
                        command_ran=True,
                        stop_status="completed",
                        exit_code=0,
                        elapsed_seconds=12,
                        steps=3,
                        identity_verdict="consistent",
                        detail="" if i <= passes else "no edit",
                    )
                    for i in range(1, 4)
                ]
                if reason != "route_provider"
                else [],
                probes_required=3,
                qualified=reason is None,
                verdict="qualified" if reason is None else "not_testable",
                reason_class=reason,  # type: ignore[arg-type]
                reason="" if reason is None else f"{reason.replace('_', ' ')}: see probes",
                started_at=STAMP,
                finished_at=STAMP,
            ),
        )
    qualified = [c.key for c in cohort.candidates if c.key not in NOT_TESTABLE]
    write_record(
        paths.order,
        OrderRecord(
            round_id=ROUND,
            seed=settings.seed,
            drawn_at=STAMP,
            qualified=qualified,
            not_testable=sorted(NOT_TESTABLE),
            order=[f"{k}-r1" for k in qualified],
        ),
    )
    video_file: Path | None = None
    for key, spec in UNITS.items():
        cand = cohort.by_key(key)
        unit = f"{key}-r1"
        up = paths.unit(unit)
        sess = session(unit, key, cand.route, **spec["session"])
        result = evaluation(
            spec["failed"], spec["gates"], with_video=video and spec.get("video", True)
        )
        write_record(up.session, sess)
        write_record(up.result, result)
        for shot in result.screenshots:
            (up.evaluation / shot.path).parent.mkdir(parents=True, exist_ok=True)
            (up.evaluation / shot.path).write_bytes(
                png(36, 24, (40, 90 + len(shot.page) * 10, 160))
            )
        if result.video:
            target = up.evaluation / result.video
            if video_file is None:
                webm(target)
                video_file = target
            else:
                target.write_bytes(video_file.read_bytes())
        up.events.write_text(
            "".join(
                json.dumps(
                    {
                        "type": "tool_use",
                        "timestamp": stamp,
                        "part": {
                            "type": "tool",
                            "tool": "bash",
                            "callID": call,
                            "state": {
                                "status": "completed",
                                "input": {"command": command},
                                "metadata": {"output": output, "exit": code},
                            },
                        },
                    }
                )
                + "\n"
                for call, command, code, output, stamp in (
                    ("c1", "npm run check", 2,
                     "src/App.tsx(3,1): error TS2304\n\n| table | *stars* <b>", 1796119260000),
                    ("c2", "npm run build && echo '<script>'", 0, "built in 1.2s", 1796119320000),
                )
            )
        )  # fmt: skip
        up.diff.write_text("diff --git a/src/App.tsx b/src/App.tsx\n+export {}\n")
        up.progress.write_text("- [x] `npm run build` passes\n")
    if leaderboard:
        score_round(ROUND, root)  # draws the candidate codes the reviewers use
        codes = json.loads(paths.codes.read_text())["codes"]
        paths.reviews_dir.mkdir(parents=True, exist_ok=True)
        for reviewer, bump in (("rev-a", 0.0), ("rev-b", 1.0)):
            lines = ["code,visual,code_quality,notes"]
            for entry in codes:
                spec = UNITS[entry["unit"].rsplit("-r", 1)[0]]
                if reviewer == "rev-b" and not spec.get("second_review", True):
                    continue
                lines.append(f"{entry['code']},{spec['visual'] + bump},{spec['code'] - bump},fine")
            (paths.reviews_dir / f"{reviewer}.csv").write_text("\n".join(lines) + "\n")
        score_round(ROUND, root)
    starter = evaluation(set(STARTER_FAILS), {"core-journey": "filter, detail and enquiry missing"})
    write_record(paths.calibration_dir / "result.json", starter)
    write_record(
        paths.calibration,
        Calibration(
            round_id=ROUND,
            passed=True,
            automated_score=starter.automated_score,
            checks_executed=15,
            hard_gate_failed=True,
            missing_core_journeys=["filter", "detail", "enquiry"],
            install_ok=True,
            build_ok=True,
            failed_checks=starter.failed_checks,
            expected_failed_checks=sorted(STARTER_FAILS),
            reasons=[],
            result="calibration/result.json",
            duration_s=42.0,
        ),
    )
    controls = [
        ControlRow(
            control="reference" if cid is None else f"mutant-{cid}",
            check=cid,
            description="the reference solution" if cid is None else f"breaks {cid}",
            expected_score=60 - pts,
            actual_score=60 - pts,
            expected_failed_checks=[cid] if cid else [],
            actual_failed_checks=[cid] if cid else [],
            gates_failed=[],
            match=True,
            result="controls/reference/result.json" if cid is None else None,
        )
        for cid, pts in [(None, 0), *((c, p) for c, _, p in CHECKS)]
    ]
    write_json(controls_json(root), [row.model_dump() for row in controls])
    return root


def corrupt(path: Path, text: str = "{not json") -> None:
    path.write_text(text)


__all__ = ["ROUND", "build_evidence", "corrupt", "json"]
