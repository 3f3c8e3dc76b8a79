"""The board's headline: what a round may claim, by its shape, from one rule.

- one run per model (Round 0, a breadth screen): "Leading this screen: X" with the advancing
  set and the caveat that one run cannot separate close models. Never a winner or a champion.
- repeated (Round 1): "Champion: A" only when the standing is final, A is alone in the top tier
  and A's paired difference from the runner-up lies wholly above zero; otherwise "No single
  champion", naming the models that cannot be told apart, with the paired difference, its
  interval and how many repetitions would be expected to separate them at the observed spread
  (a planning figure, labelled as one).
- intervention (agents compared on the same models): per agent and per model, "no detectable
  difference" when the interval spans zero, with the smallest difference the runs could have
  detected (the interval's half-width); "higher" or "lower" only when it lies wholly off zero.
A provisional standing names a leader "(provisional)" and nothing more. The board,
leaderboard.csv and the site show `Claim.headline` and never a stronger word.
"""

from __future__ import annotations

from records.evidence.scoring import (
    Claim,
    DetectableDifference,
    InterventionBoard,
    Leaderboard,
    LeaderboardRow,
    ModelLeaderboard,
    ModelRow,
    RoundShape,
    TopPair,
)
from scoring.uncertainty import (
    DIFFERENCE_BOUNDS,
    mean_interval,
    repetitions_to_separate,
)

AGENT_LABELS = {
    "opencode": "OpenCode", "claude-code": "Claude Code", "codex": "Codex CLI",
    "gemini-cli": "Gemini CLI", "copilot": "GitHub Copilot CLI",
}  # fmt: skip
"""Each agent's product name, as its adapter names it (harness/agents/*: `IDENTITY.names[0]`);
the claims and the site name agents by it."""

RULES: dict[RoundShape, str] = {
    "one_run": "a one-run round (a breadth screen) names the unit leading this screen and the "
    "advancing set, never a winner or a champion: one run per model cannot separate close models",
    "repeated": "a repeated round names a champion only when its standing is final, the top "
    "model is alone in the top tier and its paired difference from the runner-up lies wholly "
    "above zero; otherwise it says no single champion and names the models it cannot tell apart",
    "intervention": "an intervention round says, per agent and per model, 'no detectable "
    "difference' when the 95% interval of the paired difference spans zero, with the smallest "
    "difference the runs could have detected; 'higher' or 'lower' only when it lies wholly off "
    "zero",
}
ONE_RUN_CAVEAT = (
    "One run per model: a breadth screen, not a verdict. Totals a few points apart are a tie."
)
PLANNING = "a planning figure: it assumes the observed mean difference and spread hold"


def agent_label(name: str) -> str:
    """An agent's product name (`claude-code` → Claude Code); an unknown one as it is named."""
    return AGENT_LABELS.get(name, name)


def round_shape(board: Leaderboard, repetitions: int, arms: tuple[str, ...]) -> RoundShape:
    if arms:
        return "intervention"
    return "repeated" if repetitions > 1 else "one_run"


def points(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def signed(value: float) -> str:
    return ("+" if value > 0 else "−" if value < 0 else "") + points(abs(value))


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def claim(
    board: Leaderboard,
    repetitions: int,
    arms: tuple[str, ...] = (),
    models: ModelLeaderboard | None = None,
    intervention: InterventionBoard | None = None,
) -> Claim:
    """The one rule: the headline a round of this shape may make from this evidence."""
    shape = round_shape(board, repetitions, arms)
    if shape == "intervention":
        return _intervention_claim(board, intervention)
    if shape == "repeated":
        return _repeated_claim(board, models)
    return _one_run_claim(board)


def _one_run_claim(board: Leaderboard) -> Claim:
    final = board.standing == "final"
    ranked = [r for r in board.units if r.status == "ranked" and r.rank is not None]
    base = Claim(shape="one_run", kind="no_claim", headline="", rule=RULES["one_run"], final=final)
    if not ranked:
        base.headline = "No ranked unit: nothing leads this screen"
        return base
    top = min(ranked, key=lambda r: r.rank or 0)
    moving = [r for r in ranked if (r.advancement.advanced if final else r.advancement.projected)]
    names = [r.display_name for r in sorted(moving, key=lambda r: r.rank or 0)]
    ties = [t for t in board.ties if top.candidate_code in t.codes]
    tied = f"; tied on total with {len(ties[0].codes) - 1} other unit(s)" if ties else ""
    base.kind = "leading_screen" if final else "provisional_leader"
    base.headline = (
        f"Leading this screen: {top.display_name}"
        if final
        else f"Leading this screen (provisional): {top.display_name}"
    )
    base.leader, base.leader_name = top.candidate_code or top.unit, top.display_name
    base.advancing = names
    base.detail = f"{points(top.total or 0)} points from one run{tied}.{_moving(base, final)}"
    base.caveat = ONE_RUN_CAVEAT  # a provisional standing's reason is the board's own line
    base.basis = [f"leaderboard.json#units/{top.unit}", "leaderboard.json#advancing"]
    return base


def _pair(upper: ModelRow, lower: ModelRow) -> TopPair | None:
    """The leader against the runner-up, repetition by repetition (with the planning figure)."""
    mine = {x.repetition: x.total for x in upper.repetitions if x.total is not None}
    theirs = {x.repetition: x.total for x in lower.repetitions if x.total is not None}
    shared = sorted(set(mine) & set(theirs))
    if not shared:
        return None
    differences = [mine[r] - theirs[r] for r in shared]
    interval = mean_interval(differences, bounds=DIFFERENCE_BOUNDS)
    needed = repetitions_to_separate(differences)
    separated = interval.low is not None and interval.low > 0
    if separated:
        note = "already separated"
    elif needed is None:
        note = (
            "no number of repetitions would separate them: no mean difference observed"
            if interval.mean == 0
            else "not estimable from these runs"
        )
    else:
        note = (
            f"about {needed} repetitions per model would be expected to separate them ({PLANNING})"
        )
    return TopPair(
        upper=upper.model_key,
        lower=lower.model_key,
        repetitions=len(shared),
        mean_difference=round(interval.mean, 6),
        low=None if interval.low is None else round(interval.low, 6),
        high=None if interval.high is None else round(interval.high, 6),
        separated=separated,
        repetitions_to_separate=None if separated else needed,
        planning_note=note,
    )


def _pair_words(pair: TopPair, upper: str, lower: str) -> str:
    span = (
        f" (95% interval {signed(pair.low)} to {signed(pair.high)})"
        if pair.low is not None and pair.high is not None
        else ""
    )
    where = "wholly above zero" if pair.separated else "not wholly above zero"
    return (
        f"{upper} − {lower}: {signed(pair.mean_difference)} points{span} over "
        f"{pair.repetitions} paired repetitions, {where}"
    )


def _repeated_claim(board: Leaderboard, models: ModelLeaderboard | None) -> Claim:
    final = board.standing == "final"
    base = Claim(
        shape="repeated", kind="no_claim", headline="", rule=RULES["repeated"], final=final
    )
    ranked = [m for m in (models.models if models else []) if m.status == "ranked" and m.rank]
    if models is None or not ranked:
        base.headline = "No model ranked yet: no champion"
        return base
    ranked.sort(key=lambda m: m.rank or 0)
    top = ranked[0]
    tier = [m for m in ranked if m.tier == 1]
    base.leader, base.leader_name = top.model_key, top.display_name
    base.top_tier = [m.model_key for m in tier]
    moving = [m for m in ranked if (m.advancement.advanced if final else m.advancement.projected)]
    base.advancing = [m.display_name for m in moving]
    base.basis = [
        f"model-leaderboard.json#models/{top.model_key}",
        "model-leaderboard.json#paired_differences",
    ]
    mean = f"mean {points(top.mean_total or 0)} over {top.valid} runs"
    if len(ranked) == 1:
        base.kind = "no_single_champion"
        base.headline = f"No single champion: {top.display_name} is the only ranked model"
        base.detail = f"{mean}; there is no runner-up to compare it with."
        return base
    runner = ranked[1]
    pair = _pair(top, runner)
    base.top_pair = pair
    words = _pair_words(pair, top.display_name, runner.display_name) if pair else ""
    alone = len(tier) == 1 and tier[0] is top
    separated = pair is not None and pair.separated
    if not final:
        base.kind = "provisional_leader"
        base.headline = f"Leading on current totals (provisional): {top.display_name}"
        base.detail = (f"{mean}. {words}." if words else f"{mean}.") + _moving(base, final)
        base.caveat = f"No champion is named until the standing is final ({board.standing_reason})."
        return base
    if alone and separated and pair is not None:
        base.kind = "champion"
        base.headline = f"Champion: {top.display_name}"
        base.detail = f"{mean}, alone in the top tier. {words}.{_moving(base, final)}"
        base.caveat = "One task, this gateway, these dates."
        return base
    base.kind = "no_single_champion"
    if len(tier) > 1:
        base.headline = (
            f"No single champion: {_names([m.display_name for m in tier])} share the top tier"
        )
    else:
        base.headline = (
            f"No single champion: {top.display_name} and {runner.display_name} cannot be told apart"
        )
    plan = f"; {pair.planning_note}" if pair and not pair.separated else ""
    base.detail = (
        f"{top.display_name} leads with {mean}. {words}{plan}.{_overlapping(top, tier, runner)}"
        f"{_moving(base, final)}"
    )
    base.caveat = "The ranking inside the top tier is the tie rule's order, not a measured lead."
    return base


def _interval(row: ModelRow) -> str:
    return f"{points(row.interval_low or 0)}–{points(row.interval_high or 0)}"


def _overlapping(top: ModelRow, tier: list[ModelRow], runner: ModelRow) -> str:
    """Why the top tier is shared beyond the runner-up: the other tier-mates' intervals reach
    the leader's (the tier rule), whatever the paired difference with the runner-up says."""
    others = [m for m in tier if m is not top and m is not runner]
    if not others:
        return ""
    spans = _names([f"{m.display_name} ({_interval(m)})" for m in others])
    one = len(others) == 1
    return (
        f" The 95% interval{'' if one else 's'} of {spans} {'reaches' if one else 'reach'} "
        f"{top.display_name}'s ({_interval(top)}): these runs cannot rank the leader above "
        f"{'that model' if one else 'those models'}."
    )


def _moving(found: Claim, final: bool) -> str:
    """The advancing set in words (projected while provisional)."""
    if not found.advancing:
        return ""
    word = "Advancing" if final else "Would advance on current totals"
    return f" {word}: {_names(found.advancing)}."


def _arm_totals(rows: list[LeaderboardRow], model: str, agent: str) -> dict[int, float]:
    return {
        r.repetition: float(r.total)
        for r in rows
        if r.model_key == model
        and r.agent == agent
        and r.total is not None
        and r.status not in ("superseded", "invalid")
    }


def difference(
    model_key: str,
    name: str,
    agent: str,
    baseline: str,
    differences: list[float],
    labels: dict[str, str] | None = None,
) -> DetectableDifference:
    """One arm (an agent, or an arm of the round's factor) against the baseline over paired
    differences, with what they could detect (`labels`: each arm's name in words)."""
    who = name or "every paired model"
    named = labels or {}
    label = named.get(agent) or agent_label(agent)
    base_label = named.get(baseline) or agent_label(baseline)
    found = DetectableDifference(
        model_key=model_key,
        display_name=name,
        agent=agent,
        baseline=baseline,
        pairs=len(differences),
        verdict="not_measurable",
        sentence="",
    )
    if not differences:
        found.sentence = f"{who}: no total under both {label} and {base_label}: not measurable"
        return found
    interval = mean_interval(differences, bounds=DIFFERENCE_BOUNDS)
    found.mean_difference = round(interval.mean, 4)
    if interval.low is None or interval.high is None or interval.half_width is None:
        found.sentence = (
            f"{who}: {label} − {base_label} {signed(interval.mean)} points from one pair: no "
            "interval, not measurable"
        )
        return found
    found.low, found.high = round(interval.low, 4), round(interval.high, 4)
    found.smallest_detectable = round(interval.half_width, 4)
    span = (
        f"{signed(interval.mean)} points (95% interval {signed(interval.low)} to "
        f"{signed(interval.high)}, {len(differences)} pairs)"
    )
    if interval.low > 0:
        found.verdict = "higher"
        verdict = f"{label} scored higher than {base_label}"
    elif interval.high < 0:
        found.verdict = "lower"
        verdict = f"{label} scored lower than {base_label}"
    else:
        found.verdict = "no_detectable_difference"
        verdict = f"no detectable difference between {label} and {base_label}"
    detectable = (
        f"these runs could have detected a mean difference of about "
        f"{points(interval.half_width)} points or more"
        if interval.half_width > 0
        else "the paired differences show no spread, so any non-zero mean difference would "
        "have been detected"
    )
    found.sentence = f"{who}: {verdict}, {span}; {detectable}"
    return found


def _intervention_claim(board: Leaderboard, intervention: InterventionBoard | None) -> Claim:
    final = board.standing == "final"
    base = Claim(
        shape="intervention",
        kind="agents_compared",
        headline="",
        rule=RULES["intervention"],
        final=final,
    )
    if intervention is None:
        base.kind, base.headline = "no_claim", "Arms not compared yet"
        return base
    found: list[DetectableDifference] = []
    by_verdict: dict[str, list[str]] = {}  # the agents of each verdict, in the round's order
    baseline = intervention.baseline
    titles = {a.id: a.title for a in intervention.arms}
    labels = {a: titles.get(a) or agent_label(a) for a in intervention.agents}
    base_label = labels[baseline]
    for effect in intervention.effects:
        overall = difference("", "", effect.agent, baseline, list(effect.differences), labels)
        found.append(overall)
        by_verdict.setdefault(overall.verdict, []).append(labels[effect.agent])
        for model in intervention.models:
            own = _arm_totals(board.units, model.model_key, effect.agent)
            base_totals = _arm_totals(board.units, model.model_key, baseline)
            shared = sorted(set(own) & set(base_totals))
            found.append(
                difference(
                    model.model_key,
                    model.display_name,
                    effect.agent,
                    baseline,
                    [own[r] - base_totals[r] for r in shared],
                    labels,
                )
            )
    said = {"no_detectable_difference": "no detectable difference"}
    heads = [
        f"{_names(names)} scored {verdict} than {base_label}"
        if verdict in ("higher", "lower")
        else f"{_names(names)} against {base_label}: {said.get(verdict, 'not measurable')}"
        for verdict, names in by_verdict.items()
    ]
    base.headline = "; ".join(heads) + ("" if final else " (provisional)")
    base.differences = found
    overall_sentences = [d.sentence for d in found if not d.model_key]
    base.detail = ". ".join(s[:1].upper() + s[1:] for s in overall_sentences) + "."
    per_model = [d for d in found if d.model_key and d.verdict == "not_measurable"]
    noun = "agent" if intervention.factor == "agent" else "arm"
    base.caveat = (
        (
            "It measures the harness, not the model: the models are the same under every agent."
            if intervention.factor == "agent"
            else f"It measures the {intervention.factor}, not the model: the models and the agent "
            f"are the same in every {intervention.factor} arm."
        )
        + (
            f" Per model, {len(per_model)} of {len(found) - len(overall_sentences)} comparisons "
            f"have one run per {noun}: no interval, so no per-model claim."
            if per_model
            else ""
        )
        + ("" if final else f" Not final: {board.standing_reason}.")
    )
    base.basis = ["intervention.json#effects", "leaderboard.json#units"]
    return base
