"""The evidence layout, defined once. Every stage finds its files through these helpers.

evidence/
  controls.json                       evaluator controls: expected vs actual (all rounds)
  controls/<control>/                 evaluator output per control (result.json, screenshots, ...)
  <round>/
    round.json                        frozen input hashes (freeze stage)
    calibration.json                  calibration verdict; calibration/ holds the evaluator output
    history/<utc-stamp>/              earlier calibration, catalogue.json, key-check.json (kept)
    catalogue.json                    the cohort against the gateway's catalogue, before spending
    preflight/<model>/preflight.json  catalogue check + three probes; probe-<n>/ per probe
                                      (probe.json and the session files of a unit)
    order.json                        frozen run order of qualified routes
    units/<unit>/                     one experimental unit (unit id: <model>-r<repetition>)
      session.json events.jsonl trace.json gateway.jsonl agent.stderr.log
      worktree.diff worktree.tar.gz PROGRESS.md [replacement.json] [marker-repair.json]
      manifest.json                   the session's files with their SHA-256 (records.manifest)
      evaluation/                     evaluator output: result.json, screenshots/, video.webm,
                                      page-text.json (the DOM text each screenshot shows), ...,
                                      manifest.json (result, screenshots, video, the judge)
      history/<utc-stamp>/evaluation/ an earlier evaluation, kept when the unit is re-evaluated
    private/                          the operator's only: never in packets or on the site
      code-secret.json codes.json     the code secret (OS randomness) and the code -> unit map
      packet-report.json              per packet: what was redacted where, media showing identity
      media-decisions.json            the operator's approvals/redactions of such media
    codes.json                        legacy (schema 1) codes drawn from the public seed
    packets/<code>/                   blind review packet per candidate (index.html: review page)
    packets/bundles/<reviewer>.zip    one reviewer's packets in a shuffled order
    reviews/*.csv|*.json              reviewer sheets (human input, never generated)
    review-receipts.json              when each sheet and review was first validated (only grows)
    unsealing.json                    the operator's explicit unsealing of the code map
    leaderboard.json                  the ranked result
    model-leaderboard.json            a repeated round ranked by model (mean, median, spread)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
BENCHMARK_DIR = REPO_ROOT / "benchmark"
TOOLS_DIR = REPO_ROOT / ".tools"
# SITEOS_EVIDENCE_DIR lets tests and the end-to-end check run a whole round into a scratch folder.
EVIDENCE_DIR = Path(os.environ.get("SITEOS_EVIDENCE_DIR") or REPO_ROOT / "evidence").resolve()
# The built site follows: build/ in the repository, or a build/ beside a redirected evidence folder.
BUILD_DIR = (
    REPO_ROOT / "build"
    if "SITEOS_EVIDENCE_DIR" not in os.environ
    else EVIDENCE_DIR.parent / "build"
)


# The judge's code, defined once: round.json hashes these and doit's stages depend on them.
# The evaluator's controls (reference solution, mutants) are judged by the controls stage.
EVALUATOR_SOURCES = (REPO_ROOT / "evaluator", REPO_ROOT / "sandbox", REPO_ROOT / "records")
EVALUATOR_EXCLUDED = (REPO_ROOT / "evaluator" / "controls",)
SCORING_SOURCES = (REPO_ROOT / "scoring", REPO_ROOT / "records")
SOURCE_SUFFIXES = (".py", ".js")
_NOT_SOURCE_DIRS = {"node_modules", "dist", ".git", "__pycache__"}
PAGE_TEXT_FILE = "page-text.json"


def source_files(
    roots: tuple[Path, ...],
    excluded: tuple[Path, ...] = (),
    suffixes: tuple[str, ...] = SOURCE_SUFFIXES,
) -> list[Path]:
    """The source files below `roots` (sorted, deduplicated), skipping `excluded` folders."""
    found: set[Path] = set()
    for root in roots:
        for folder, dirs, files in os.walk(root):
            here = Path(folder)
            dirs[:] = [d for d in dirs if d not in _NOT_SOURCE_DIRS and here / d not in excluded]
            found.update(here / f for f in files if Path(f).suffix in suffixes)
    return sorted(found)


def evaluator_source_files() -> list[Path]:
    """Everything that decides a unit's `result.json`."""
    return source_files(EVALUATOR_SOURCES, EVALUATOR_EXCLUDED)


def evaluator_sha256() -> str:
    """The judge's code as one digest (names and contents of `evaluator_source_files`): frozen in
    round.json, stamped in calibration.json; doit's stages depend on the same files."""
    from records.hashing import files_sha256

    return files_sha256(evaluator_source_files(), REPO_ROOT)


def scoring_source_files() -> list[Path]:
    """Everything that decides `leaderboard.json` from evaluation results and reviews."""
    return source_files(SCORING_SOURCES)


@dataclass(frozen=True)
class EvaluationPaths:
    """What `evaluate(app, out)` writes into its output folder (a unit's `evaluation/`)."""

    root: Path

    @property
    def result(self) -> Path:
        return self.root / "result.json"

    @property
    def phase(self) -> Path:
        """The browser phase's hand-back file (removed once read)."""
        return self.root / ".phase.json"

    @property
    def screenshots(self) -> Path:
        return self.root / "screenshots"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    def log(self, step: str) -> Path:
        """`logs/<step>.log` (install, check, build, browser)."""
        return self.logs / f"{step}.log"

    @property
    def video(self) -> Path:
        return self.root / "video.webm"

    @property
    def trace(self) -> Path:
        """Playwright's trace of the browser phase."""
        return self.root / "trace.zip"

    @property
    def axe(self) -> Path:
        return self.root / "axe.json"

    @property
    def manifest(self) -> Path:
        """The evaluation's files with their hashes (records.evidence.manifest)."""
        return self.root / "manifest.json"

    def relative(self, path: Path) -> str:
        """`path` as result.json names it: relative to the output folder."""
        return path.relative_to(self.root).as_posix()


@dataclass(frozen=True)
class SessionPaths:
    """The files one agent session leaves (a scored unit or a preflight probe)."""

    root: Path

    @property
    def events(self) -> Path:
        """The agent's native event log (its stdout)."""
        return self.root / "events.jsonl"

    @property
    def agent_stderr(self) -> Path:
        return self.root / "agent.stderr.log"

    @property
    def trace(self) -> Path:
        """The neutral trace the agent's adapter reads from `events` (records.evidence.agent)."""
        return self.root / "trace.json"

    @property
    def gateway(self) -> Path:
        return self.root / "gateway.jsonl"

    @property
    def commands(self) -> Path:
        """Legacy: the shell commands of units recorded before the trajectory held them."""
        return self.root / "commands.json"

    @property
    def diff(self) -> Path:
        return self.root / "worktree.diff"


@dataclass(frozen=True)
class ProbePaths(SessionPaths):
    """`preflight/<model>/probe-<n>/`."""

    @property
    def record(self) -> Path:
        return self.root / "probe.json"


@dataclass(frozen=True)
class UnitPaths(SessionPaths):
    @property
    def session(self) -> Path:
        return self.root / "session.json"

    @property
    def required_evidence(self) -> tuple[Path, ...]:
        """What a finished session must leave; a unit without any of them is invalid."""
        return (self.events, self.trace, self.gateway, self.diff, self.archive)

    @property
    def manifest(self) -> Path:
        """The session's files with their hashes, written before session.json
        (records.evidence.manifest)."""
        return self.root / "manifest.json"

    @property
    def manifested(self) -> tuple[Path, ...]:
        """The session's files its manifest lists, those present when the session ends."""
        return (*self.required_evidence, self.progress, self.agent_stderr)

    @property
    def replacement(self) -> Path:
        """Present only in a replacement unit: why it replaces a failed one."""
        return self.root / "replacement.json"

    @property
    def archive(self) -> Path:
        return self.root / "worktree.tar.gz"

    @property
    def progress(self) -> Path:
        return self.root / "PROGRESS.md"

    @property
    def evaluation(self) -> Path:
        return self.root / "evaluation"

    @property
    def evaluation_files(self) -> EvaluationPaths:
        return EvaluationPaths(self.evaluation)

    @property
    def result(self) -> Path:
        return self.evaluation_files.result

    @property
    def page_text(self) -> Path:
        return self.evaluation / PAGE_TEXT_FILE

    @property
    def running_marker(self) -> Path:
        """Present while a session runs; left behind by a killed runner (crash safety)."""
        return self.root / ".running"

    @property
    def marker_repair(self) -> Path:
        """The operator's write-back of a marker that did not validate (harness.marker_repair)."""
        return self.root / "marker-repair.json"

    @property
    def history(self) -> Path:
        """Earlier evaluations of this unit, each in a dated folder (never deleted)."""
        return self.root / "history"


@dataclass(frozen=True)
class RoundPaths:
    root: Path

    @property
    def round_id(self) -> str:
        return self.root.name

    @property
    def round_json(self) -> Path:
        return self.root / "round.json"

    @property
    def calibration(self) -> Path:
        return self.root / "calibration.json"

    @property
    def calibration_dir(self) -> Path:
        return self.root / "calibration"

    @property
    def history(self) -> Path:
        """Earlier calibration, catalogue and key-check evidence, each in a dated folder."""
        return self.root / "history"

    @property
    def key_check(self) -> Path:
        """The API key's credit, checked against the round's maximum spend before any paid call."""
        return self.root / "key-check.json"

    @property
    def catalogue(self) -> Path:
        """The catalogue stage's report (`harness.catalogue`), written before anything is spent."""
        return self.root / "catalogue.json"

    @property
    def preflight_dir(self) -> Path:
        return self.root / "preflight"

    def preflight(self, model_key: str) -> Path:
        return self.preflight_dir / model_key / "preflight.json"

    def probe_dir(self, model_key: str, probe: int) -> Path:
        return self.preflight_dir / model_key / f"probe-{probe}"

    def probe(self, model_key: str, probe: int) -> ProbePaths:
        return ProbePaths(self.probe_dir(model_key, probe))

    @property
    def order(self) -> Path:
        return self.root / "order.json"

    @property
    def units_dir(self) -> Path:
        return self.root / "units"

    def unit(self, unit: str) -> UnitPaths:
        return UnitPaths(self.units_dir / unit)

    def unit_folders(self) -> list[str]:
        """Every unit folder of the round, by name (which units exist: asked here only)."""
        folders = self.units_dir.iterdir() if self.units_dir.is_dir() else []
        return sorted(p.name for p in folders if p.is_dir())

    def units_with(self, attribute: str) -> list[str]:
        """The unit folders holding the file `UnitPaths.<attribute>` (e.g. "session",
        "replacement"), by name."""
        return [u for u in self.unit_folders() if getattr(self.unit(u), attribute).exists()]

    def preflight_keys(self) -> list[str]:
        """The routes whose preflight.json exists, by key."""
        found = self.preflight_dir.glob("*/preflight.json")
        return sorted(p.parent.name for p in found)

    @property
    def private_dir(self) -> Path:
        """The operator's only: never copied into packets, bundles or the site."""
        return self.root / "private"

    @property
    def code_secret(self) -> Path:
        return self.private_dir / "code-secret.json"

    @property
    def codes(self) -> Path:
        return self.private_dir / "codes.json"

    @property
    def legacy_codes(self) -> Path:
        """Schema-1 codes.json (drawn from the public seed); migrated into `codes`, kept."""
        return self.root / "codes.json"

    @property
    def packet_report(self) -> Path:
        return self.private_dir / "packet-report.json"

    @property
    def media_decisions(self) -> Path:
        """The operator's approvals and redactions of packets whose media show identity."""
        return self.private_dir / "media-decisions.json"

    @property
    def unsealing(self) -> Path:
        return self.root / "unsealing.json"

    @property
    def packets_dir(self) -> Path:
        return self.root / "packets"

    @property
    def bundles_dir(self) -> Path:
        return self.packets_dir / "bundles"

    @property
    def packets_index(self) -> Path:
        return self.packets_dir / "index.json"

    @property
    def review_sheet(self) -> Path:
        """The blank sheet beside the packets (`packets/review-sheet.csv`)."""
        return self.packets_dir / "review-sheet.csv"

    @property
    def reviews_dir(self) -> Path:
        return self.root / "reviews"

    @property
    def review_receipts(self) -> Path:
        """When each reviewer sheet and each review was received (scoring/receipts.py)."""
        return self.root / "review-receipts.json"

    @property
    def leaderboard(self) -> Path:
        return self.root / "leaderboard.json"

    @property
    def intervention(self) -> Path:
        """An intervention round's agents compared on its models (scoring/intervention.py)."""
        return self.root / "intervention.json"

    @property
    def model_leaderboard(self) -> Path:
        """A repeated round ranked by model (scoring/aggregate.py)."""
        return self.root / "model-leaderboard.json"


def round_paths(round_id: str, evidence_dir: Path = EVIDENCE_DIR) -> RoundPaths:
    return RoundPaths(evidence_dir / round_id)


def controls_json(evidence_dir: Path = EVIDENCE_DIR) -> Path:
    return evidence_dir / "controls.json"


def controls_inputs_json(evidence_dir: Path = EVIDENCE_DIR) -> Path:
    """The inputs the last all-matching controls run judged (records.evidence.controls)."""
    return evidence_dir / "controls.inputs.json"


def controls_dir(evidence_dir: Path = EVIDENCE_DIR) -> Path:
    return evidence_dir / "controls"
