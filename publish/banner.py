"""The round banner shown on every page: what kind of round this is, when it ran, with which
harness, agent and evaluator (by version and source hash), and every fixed control of the
methodology the round sets otherwise (only a demo or rehearsal round may differ; the controls
and the check are in records/fixed_controls.py)."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from publish.sources import RoundEvidence
from publish.views import ACHIEVABLE_WITHOUT_REVIEW, Row, agent_label, parse_time
from records.hashing import file_sha256
from records.io import RecordError
from records.task import load_task

KIND_LABELS = {
    "demo": "Demo round",
    "rehearsal": "Rehearsal round",
    "real": "Scored round",
}
KIND_NOTES = {
    "demo": "the models are fictional scripts served by the local gateway simulator; "
    "no real model was tested and no money was spent",
    "rehearsal": "a dress rehearsal of the real round: its real cohort and catalogue, but every "
    "model is a script served by the local gateway simulator; no real model was tested, no money "
    "was spent, and its results are not the benchmark's",
}


@dataclass(frozen=True)
class RoundFacts:
    round_id: str
    kind: str
    kind_label: str
    kind_note: str
    date: str
    harness: str
    agent: str
    evaluator: str
    evaluator_sha: str
    tools: str
    task: str
    task_ref: str = ""  # "<id> <version>" as round.json names it ("" before round.json schema 3)
    differences: tuple[str, ...] = ()  # fixed controls set otherwise than the methodology's
    arms: tuple[tuple[str, str], ...] = ()  # an intervention round: (agent, "Name version")
    factor: str = ""  # an intervention round on a method, starter or tools factor ("" otherwise)
    factor_arms: str = ""  # that round's arms in words, the baseline first
    headline: str = ""  # leaderboard.json's claim (schema 7; "" before, or not scored yet)

    def agent_of(self, name: str) -> str:
        """The agent a unit ran (its product name and version) in an intervention round; the
        round's agent otherwise."""
        return dict(self.arms).get(name, self.agent) if name else self.agent


def _harness_version() -> str:
    try:
        return f"siteos-bench {version('siteos-bench')}"
    except PackageNotFoundError:
        return "siteos-bench"


def round_kind(evidence: RoundEvidence) -> str:
    kind = getattr(evidence.settings, "kind", None)
    if isinstance(kind, str) and kind:
        return kind
    return "demo" if evidence.settings.gateway.kind == "simulator" else "real"


def _date(evidence: RoundEvidence) -> str:
    stamps = [
        parse_time(u.session.started_at) for u in evidence.units.values() if u.session is not None
    ]
    days = sorted({s.date().isoformat() for s in stamps if s is not None})
    if days:
        return days[0] if len(days) == 1 else f"{days[0]} to {days[-1]}"
    frozen = parse_time(evidence.round_record.frozen_at) if evidence.round_record else None
    return f"frozen {frozen.date().isoformat()}" if frozen else "not run yet"


def _agents(evidence: RoundEvidence) -> str:
    if evidence.settings.agents:  # the round's agents, the baseline first
        arms = [f"{agent_label(a.name)} {a.version}" for a in evidence.settings.agents]
        return f"{arms[0]} (baseline), " + ", ".join(arms[1:])
    seen = sorted(
        {f"{agent_label(u.session.agent.name)} {u.session.agent.version}"
         for u in evidence.units.values() if u.session is not None}
    )  # fmt: skip
    if seen:
        return ", ".join(seen)
    return f"OpenCode {evidence.settings.opencode_version}"


def _arms(evidence: RoundEvidence) -> tuple[tuple[str, str], ...]:
    """An intervention round: each agent's name and its product name with its version."""
    return tuple((a.name, f"{agent_label(a.name)} {a.version}") for a in evidence.settings.agents)


def _tools(evidence: RoundEvidence) -> str:
    versions = evidence.round_record.tool_versions if evidence.round_record else {}
    chromium = (versions.get("chromium") or "").split(" built", 1)[0]
    parts = [chromium, f"Playwright {versions.get('playwright') or '?'}"]
    parts.append(f"axe-core {versions.get('axe-core') or '?'}")
    return ", ".join(p for p in parts if p)


def task_title(prompt_sha256: str, prompt: Path) -> str | None:
    """The task prompt's first heading, when the prompt file is still the one the round froze
    (same bytes); None otherwise: an earlier round's task is then named by its hashes only."""
    if not prompt.is_file() or file_sha256(prompt) != prompt_sha256:
        return None
    lines = prompt.read_text(encoding="utf-8").strip().splitlines()
    title = lines[0].lstrip("#").strip() if lines else ""
    return title or None


def _task(evidence: RoundEvidence) -> str:
    record = evidence.round_record
    if record is None:
        return "task (round not frozen)"
    inputs = record.inputs
    hashes = f"prompt {inputs.prompt_sha256[:8]}, starter {inputs.starter_tree_sha256[:8]}"
    if record.task is not None:  # round.json schema 3 names its task
        ref = record.task
        return f"task “{ref.title}” ({ref.id} {ref.version}; {hashes})"
    try:  # frozen before: the round file's task, named only while its prompt has the same bytes
        title = task_title(inputs.prompt_sha256, load_task(evidence.settings.task).prompt)
    except RecordError:
        title = None
    return f"task “{title}” ({hashes})" if title else f"task {hashes}"


def round_facts(evidence: RoundEvidence) -> RoundFacts:
    kind = round_kind(evidence)
    record = evidence.round_record
    sha = record.evaluator_sha256 if record else ""
    return RoundFacts(
        round_id=evidence.round_id,
        kind=kind,
        kind_label=KIND_LABELS.get(kind, f"{kind.title()} round"),
        kind_note=KIND_NOTES.get(kind, ""),
        date=_date(evidence),
        harness=_harness_version(),
        agent=_agents(evidence),
        evaluator=f"evaluator {sha[:12]}" if sha else "evaluator (round not frozen)",
        evaluator_sha=sha,
        tools=_tools(evidence),
        task=_task(evidence),
        task_ref=f"{record.task.id} {record.task.version}" if record and record.task else "",
        differences=tuple(str(d) for d in evidence.settings.control_differences),
        arms=_arms(evidence),
        factor=_folder_factor(evidence),
        factor_arms=_factor_arms(evidence),
        headline=_headline(evidence),
    )


def _folder_factor(evidence: RoundEvidence) -> str:
    """The factor of an intervention round whose arms are folders ("" otherwise)."""
    factor = evidence.settings.factor
    return factor if factor not in (None, "agent") else ""


def _factor_arms(evidence: RoundEvidence) -> str:
    ids = evidence.settings.arm_ids
    if not ids or evidence.settings.agents:
        return ""
    return f"{ids[0]} (baseline), " + ", ".join(ids[1:])


def _headline(evidence: RoundEvidence) -> str:
    board = evidence.leaderboard
    claim = board.claim if board is not None else None
    return claim.headline if claim is not None else ""


def differences_sentence(facts: RoundFacts) -> str:
    """Plain text naming every fixed control the round sets otherwise ('' when none)."""
    if not facts.differences:
        return ""
    return f"Differs from the methodology's fixed controls: {'; '.join(facts.differences)}."


def round_label(evidence: RoundEvidence) -> str:
    """The banner's first sentence as plain text (for pages outside the MkDocs theme)."""
    facts = round_facts(evidence)
    note = f": {facts.kind_note}" if facts.kind_note else ""
    arms = (
        f"An intervention round: every model with each agent ({facts.agent})." if facts.arms else ""
    )
    if facts.factor:
        arms = (
            f"An intervention round on the {facts.factor}: every model in each arm "
            f"({facts.factor_arms})."
        )
    return " ".join(filter(None, [f"{facts.kind_label} {facts.round_id}{note}.",
                                  differences_sentence(facts), arms]))  # fmt: skip


def round_banner(evidence: RoundEvidence, rows: list[Row]) -> str:
    """The banner's HTML; `@BASE@` stands for the page's relative path to the site root."""
    facts = round_facts(evidence)
    scored = [r for r in rows if r.group == "scored"]
    provisional = any(r.review_state != "complete" for r in scored)
    note = f": {escape(facts.kind_note)}" if facts.kind_note else ""
    parts = [
        f'<strong class="sb-banner__kind sb-banner__kind--{escape(facts.kind)}">'
        f"{escape(facts.kind_label)}</strong> <code>{escape(facts.round_id)}</code>{note}.",
        f"Run {escape(facts.date)} · harness {escape(facts.harness)} · "
        f"{'agents' if facts.arms else 'agent'} {escape(facts.agent)} · "
        f"<span title=\"sha256 of the evaluator's sources: "
        f'{escape(facts.evaluator_sha)}">{escape(facts.evaluator)}</span>'
        f'<span class="sb-banner__more"> ({escape(facts.tools)})</span>.',
    ]
    if facts.arms:
        parts.append(
            "<strong>An intervention round</strong>: "
            '<a href="@BASE@/agents.html">the agents compared</a>.'
        )
    elif facts.factor:
        parts.append(
            f"<strong>An intervention round on the {escape(facts.factor)}</strong> "
            f"({escape(facts.factor_arms)}): "
            f'<a href="@BASE@/agents.html">the {escape(facts.factor)} arms compared</a>.'
        )
    if facts.differences:
        parts.append(
            f'<strong class="sb-banner__differs">{escape(differences_sentence(facts))}</strong>'
        )
    if provisional:
        parts.append(
            '<a href="@BASE@/leaderboard.html#provisional">Provisional</a>: blind reviews '
            f"are missing, so totals are out of {ACHIEVABLE_WITHOUT_REVIEW} achievable."
        )
    return '<div class="sb-banner">' + " ".join(parts) + "</div>"
