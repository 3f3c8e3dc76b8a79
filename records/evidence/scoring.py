"""Scoring evidence: packets, reviews, leaderboard.json; every number cites its source.

The code map and the packets' private report are in records/evidence/blind.py.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from records.base import Record, Root
from records.evidence.blind import CodeEntry as CodeEntry  # re-exported
from records.evidence.blind import CodeMap
from records.evidence.blind import CodesRecord as CodesRecord
from records.evidence.gateway import Tokens
from records.inputs import RoundKind
from records.interventions import Factor
from records.rubric import ADVANCE_MARGIN as MARGIN
from records.rubric import ADVANCE_TOP as TOP
from records.rubric import GATE_CAP, THIRD_REVIEW_GAP, TIE_RULE
from records.task import TaskRef

UnitStatus = Literal[
    "ranked",
    "gate_failed",
    "evaluation_failed",
    "provider_outage",
    "harness_failure",
    "invalid",
    "superseded",
]
ReviewStatus = Literal["complete", "no_reviews", "awaiting_second_review", "awaiting_third_review"]


class Component(Record):
    """One scored part of a dimension and the evidence that produced it."""

    name: str
    points: float
    max_points: float
    reason: str
    sources: list[str] = Field(
        default_factory=list,
        description="evidence, relative to the round folder, e.g. 'units/u/events.jsonl:12'",
    )


class DimensionScore(Record):
    """A dimension's points (None when not measured) and the components that add up to them."""

    points: float | None
    max_points: float
    provisional: bool = False
    components: list[Component] = Field(default_factory=list)
    note: str = ""


class PacketEntry(Record):
    code: str
    files: list[str]


class PacketIndex(Root):
    """`packets/index.json`: sorted by code; no unit, identity, time or order information."""

    round_id: str
    codes: list[str]
    packets: list[PacketEntry]


class Review(Record):
    """One reviewer's row for one code, as read from a sheet (in memory, never a file)."""

    reviewer: str
    code: str
    visual: float | None
    code_quality: float | None
    notes: str = ""
    source: str = Field(description="file and row, e.g. 'reviews/alice.csv:3'")
    received: dict[Literal["visual", "code_quality"], int] = Field(
        default_factory=dict,
        description="per scored dimension, the receipt batch of review-receipts.json that first "
        "held it (the third-review gap compares the first two received)",
    )


class ReviewerScore(Record):
    reviewer: str
    score: float
    source: str


class ManualScore(Record):
    """One manual dimension of one code: the scores, the aggregate and whether it is final."""

    dimension: Literal["visual", "code_quality"]
    max_points: float
    scores: list[ReviewerScore] = Field(default_factory=list)
    points: float = 0.0
    status: ReviewStatus = "no_reviews"
    gap: float | None = None
    reason: str = ""

    @property
    def provisional(self) -> bool:
        return self.status != "complete"


class Explanation(Record):
    """Where one number of the row comes from."""

    field: str
    value: str
    sources: list[str]
    detail: str = ""


class Breakdown(Record):
    functional: DimensionScore
    responsive: DimensionScore
    accessibility: DimensionScore
    visual: DimensionScore
    code: DimensionScore
    verification: DimensionScore
    efficiency: DimensionScore


class GateFailure(Record):
    id: str
    reason: str


class Advancement(Record):
    """`advanced` only once the standing is final; `projected` is what current totals say."""

    advanced: bool
    projected: bool = False
    reason: str
    tied_with: list[str] = Field(default_factory=list, description="candidate codes")
    behind_fifth: float | None = None


class ReviewState(Record):
    visual: ReviewStatus
    code: ReviewStatus


class DimensionAgreement(Record):
    """How far one code's reviewers agree in one dimension."""

    reviewers: int
    spread: float | None = Field(description="highest minus lowest score; None below two")
    limit: float = Field(description="a gap above this between the first two asks for a third")
    third_review: bool = Field(description="the first two differed by more than the limit")
    status: ReviewStatus


class ReviewAgreement(Record):
    visual: DimensionAgreement
    code: DimensionAgreement


class LeaderboardRow(Record):
    unit: str
    candidate_code: str | None
    model_key: str
    route: str
    display_name: str
    agent: str = Field(
        default="", description="an intervention round: the agent that ran the unit (its arm)"
    )
    repetition: int
    replacement_of: str | None = Field(
        default=None, description="the unit this documented replacement stands for"
    )
    superseded_by: str | None = Field(
        default=None,
        description="status superseded: the documented replacement that holds this unit's "
        "place (its record is kept, never scored, ranked or advanced)",
    )
    own_status: UnitStatus | None = Field(
        default=None, description="status superseded: the status this unit's own evidence gives"
    )
    status: UnitStatus
    status_reasons: list[str] = Field(default_factory=list)
    evidence_missing: list[str] = Field(
        default_factory=list,
        description="required evidence files missing, unreadable or altered (status invalid), "
        "relative to the round folder",
    )
    evidence_check: Literal["manifest", "files_present"] | None = Field(
        default=None,
        description="schema 7: how the unit's evidence was verified: by its manifests (each "
        "file's SHA-256 as written), or, evidence written before manifests, by the files present "
        "(flagged); None: no readable session record, or files before schema 7",
    )
    breakdown: Breakdown | None = None
    automated_score: float | None = None
    raw_total: float | None = None
    total: float | None = None
    capped: bool = False
    provisional: bool = False
    reviews: ReviewState | None = None
    agreement: ReviewAgreement | None = None
    eligible: bool = False
    gates_failed: list[GateFailure] = Field(default_factory=list)
    checks_not_executed: list[str] = Field(default_factory=list)
    rank: int | None = None
    advancement: Advancement
    elapsed_seconds: float | None = Field(description="None: no readable session record")
    cost_usd: float | None
    billed_usd: float | None = Field(
        default=None,
        description="schema 4: the gateway's account of the unit's cost beside the metered "
        "cost_usd (session.json cost_reconciliation; None when not measurable or older files)",
    )
    cost_gap_flagged: bool = Field(
        default=False, description="the bill differs from the metered cost past the threshold"
    )
    tokens: Tokens | None = Field(description="None: no readable session record")
    stop_status: str
    exit_code: int | None
    validity: str
    invalid_reasons: list[str] = Field(default_factory=list)
    failure_class: str
    failure_detail: str = ""
    identity_verdict: str
    explanations: list[Explanation] = Field(default_factory=list)


class NotTestable(Record):
    model_key: str
    display_name: str
    route: str
    agent: str = Field(default="", description="an intervention round: the arm not testable")
    reason_class: str | None
    reason: str
    source: str
    probes_passed: int | None = Field(default=None, description="e.g. 2 of probes_required")
    probes_required: int | None = None


class UnitOutsideOrder(Record):
    """A unit folder that is neither in the frozen order nor a documented replacement: reported,
    never scored, ranked, packeted or advanced."""

    unit: str = Field(description="the folder's name")
    source: str = Field(description="the folder, relative to the round folder: 'units/<unit>/'")
    reason: str


class ReviewSheetProblem(Record):
    """A file of the reviews folder that scoring did not count."""

    file: str = Field(description="relative to the round folder, e.g. 'reviews/alice.csv'")
    problem: str


class Tie(Record):
    total: float
    codes: list[str]


class Rules(Record):
    max_points: float = 100.0
    gate_cap: float = GATE_CAP
    tie_rule: str = TIE_RULE
    advancement: str = (
        f"top {TOP} gate-eligible units plus every eligible unit within {MARGIN:g} points of fifth"
    )
    third_review: str = (
        f"a third review is required when the first two visual scores differ by more than "
        f"{THIRD_REVIEW_GAP['visual']:g} or code scores by more than "
        f"{THIRD_REVIEW_GAP['code_quality']:g}; until then the average is shown as provisional"
    )
    aggregation: str = "median of all reviews (the average of two)"


Standing = Literal["provisional", "final"]


class FrozenVersions(Record):
    """What the round froze: the task (its id and version, prompt and starter) and the judge
    (evaluator, scoring)."""

    task: TaskRef | None = Field(default=None, description="None before leaderboard schema 5")
    prompt_sha256: str
    starter_tree_sha256: str
    evaluator_sha256: str
    scoring_sha256: str | None = None


RoundShape = Literal["one_run", "repeated", "intervention"]
ClaimKind = Literal[
    "no_claim",
    "leading_screen",
    "provisional_leader",
    "champion",
    "no_single_champion",
    "agents_compared",
]


class TopPair(Record):
    """A repeated round's leader against its runner-up, paired repetition by repetition."""

    upper: str = Field(description="model key of the leader")
    lower: str = Field(description="model key of the runner-up")
    repetitions: int = Field(description="the repetitions both have a total for")
    mean_difference: float
    low: float | None = Field(default=None, description="95% t-interval; None below two")
    high: float | None = None
    separated: bool = Field(description="the interval lies wholly above zero")
    repetitions_to_separate: int | None = Field(
        default=None,
        description="planning figure: the fewest repetitions whose 95% interval would lie wholly "
        "above zero if the observed mean difference and spread held; None when no number would "
        "(no difference observed) or none can be estimated (no spread measured)",
    )
    planning_note: str = ""


class DetectableDifference(Record):
    """One agent against the baseline: per model (paired by repetition) or over the models
    (paired by model), with what the round could have detected."""

    model_key: str = Field(description="the model; empty: every paired model together")
    display_name: str
    agent: str
    baseline: str
    pairs: int = Field(description="repetitions (one model) or models (all) paired")
    mean_difference: float | None = Field(default=None, description="agent minus baseline")
    low: float | None = Field(default=None, description="95% t-interval, within -100..100")
    high: float | None = None
    verdict: Literal["higher", "lower", "no_detectable_difference", "not_measurable"]
    smallest_detectable: float | None = Field(
        default=None,
        description="the interval's half-width: the smallest mean difference whose 95% interval "
        "would lie wholly off zero at the observed spread",
    )
    sentence: str


class Claim(Record):
    """leaderboard.json's headline: what this round may claim, decided by one rule by round
    shape (`scoring/claims.py`); the board, the CSV and the site show this and nothing
    stronger."""

    shape: RoundShape
    kind: ClaimKind
    headline: str = Field(description="the board's headline, e.g. 'Leading this screen: X'")
    detail: str = Field(default="", description="the numbers the headline rests on, in words")
    caveat: str = Field(default="", description="what the round cannot say, shown beside it")
    rule: str = Field(description="the rule this round shape's headline follows")
    final: bool = Field(description="the standing is final")
    leader: str | None = Field(
        default=None, description="the leading unit's candidate code or model key"
    )
    leader_name: str | None = None
    top_tier: list[str] = Field(
        default_factory=list, description="a repeated round: the model keys in tier 1"
    )
    advancing: list[str] = Field(
        default_factory=list,
        description="display names of the advancing set (projected while provisional)",
    )
    top_pair: TopPair | None = None
    differences: list[DetectableDifference] = Field(default_factory=list)
    basis: list[str] = Field(
        default_factory=list, description="the evidence the claim rests on, e.g. file#field"
    )


class ReviewerAgreement(Record):
    """How far the first two reviews of each code lie apart in one dimension, over the round."""

    dimension: Literal["visual", "code_quality"]
    max_points: float
    codes_with_two: int = Field(description="codes with at least two reviews in it")
    mean_first_gap: float | None = Field(
        default=None, description="mean |first - second| of the first two received"
    )
    limit: float = Field(description="a gap above this asks for a third review")
    third_reviews: int = Field(description="codes whose first two differed past the limit")


class RankRange(Record):
    """One ranked entry's place with every review at its reviewers' low or high end."""

    key: str = Field(description="candidate code (unit level) or model key (model level)")
    name: str
    rank: int
    best_rank: int = Field(description="its reviews at their highest, everyone else's lowest")
    worst_rank: int = Field(description="its reviews at their lowest, everyone else's highest")
    low_total: float
    high_total: float
    advances: bool | None = Field(
        default=None, description="advances (or would) on the totals shown; None: no selection"
    )
    advances_at_best: bool | None = None
    advances_at_worst: bool | None = None


class ReviewStability(Record):
    """How sure the reviews are: the reviewers' agreement, and the ranking recomputed with each
    unit's review scores at the low and high ends of its reviewers' range
    (`scoring/review_stability.py`)."""

    level: Literal["unit", "model"] = Field(description="what the round ranks")
    method: str
    agreement: list[ReviewerAgreement]
    codes_reviewed: int
    third_reviews: int = Field(description="codes that needed a third reviewer (any dimension)")
    leader_stable: bool | None = Field(
        default=None, description="the leader leads at every end; None: nothing ranked"
    )
    advancing_stable: bool | None = Field(
        default=None, description="the same set advances at every end; None: no selection"
    )
    depends: list[str] = Field(
        default_factory=list,
        description="keys whose place depends on which reviewer is believed",
    )
    ranks: list[RankRange] = Field(default_factory=list)
    summary: str


class Leaderboard(Root):
    """The round's result; rows are ranked units, then gate failures, then the rows listed apart.

    Schema 2: no advancement is announced on provisional totals. `standing` is final only when
    every gate-eligible unit is final (all reviews in, no documented replacement pending);
    `advancing` (final) stays empty until then, `advancing_projected` is what the current totals
    say. Schema 1 files load with `standing` provisional and an empty projected list.

    Schema 3: one place per model and nothing dropped. A unit with a documented replacement has
    status `superseded` (`superseded_by`, its `own_status`; never scored, ranked or advanced);
    a unit whose session record or other required evidence is missing or unreadable is `invalid`
    with the files in `evidence_missing` (its `elapsed_seconds` and `tokens` may then be None);
    the standing stays provisional while any unit is `evaluation_failed`. Schema 1 and 2 files
    load unchanged (no superseded rows, nothing missing named).

    Schema 4: the file names what it is a result of, so a copy says where it came from: the
    round's kind and the frozen versions of the task and the judge. Older files load with both
    unknown (None). Schema 5: the versions name the task by id, version and title (None before,
    and for a round frozen before round.json named it). Schema 6: in an intervention round each
    row and each route not testable names its agent (`agent`, empty before and otherwise).
    Schema 7: scoring trusts only what the frozen round allows. `units_outside_order` lists each
    unit folder that is neither in order.json nor a documented replacement (never a row);
    `review_sheets_missing` each sheet review-receipts.json lists that is gone or changed
    (the standing is provisional while any is) and `review_files_unrecognised` each file of
    `reviews/` that is no sheet; a row's `evidence_check` says how its evidence was verified.
    Schema 7 also carries its headline claim and its basis (`claim`: what a round of its
    shape may claim, `scoring/claims.py`) and how sure the reviews are (`review_stability`: the
    reviewers' agreement and the ranking at each end of their range). Schema 1 to 6 files load
    with all of these empty (None; a reader then makes no claim from the file).
    """

    schema_version: int = 7
    round_id: str
    round_kind: RoundKind | None = Field(
        default=None, description="demo, rehearsal or real; None in files before schema 4"
    )
    versions: FrozenVersions | None = Field(
        default=None, description="from the round's freeze (round.json); None if not frozen"
    )
    provisional: bool = Field(description="any scored row (ranked or gate-failed) is provisional")
    standing: Standing = "provisional"
    standing_reason: str = ""
    provisional_codes: list[str] = Field(
        default_factory=list, description="gate-eligible candidate codes still provisional"
    )
    rules: Rules = Field(default_factory=Rules)
    fifth_total: float | None
    advancing: list[str] = Field(
        description="candidate codes that advance; empty while the standing is provisional"
    )
    advancing_projected: list[str] = Field(
        default_factory=list, description="candidate codes that advance on the current totals"
    )
    ties: list[Tie] = Field(default_factory=list)
    units: list[LeaderboardRow]
    not_testable: list[NotTestable] = Field(default_factory=list)
    code_map: CodeMap | None = Field(
        default=None, description="sealed or revealed code map (absent in files before it)"
    )
    units_outside_order: list[UnitOutsideOrder] = Field(
        default_factory=list,
        description="schema 7: unit folders not in the frozen order and no documented "
        "replacement: reported, never scored or ranked",
    )
    review_sheets_missing: list[ReviewSheetProblem] = Field(
        default_factory=list,
        description="schema 7: receipted sheets gone or no longer hashing as receipted (the "
        "standing is provisional while any is listed)",
    )
    review_files_unrecognised: list[ReviewSheetProblem] = Field(
        default_factory=list,
        description="schema 7: files in reviews/ that are no sheet (not .csv or .json): not read",
    )
    claim: Claim | None = Field(
        default=None, description="schema 7: the headline and its basis; None before"
    )
    review_stability: ReviewStability | None = Field(
        default=None, description="schema 7: agreement and rank stability; None before"
    )




class RepetitionResult(Record):
    """One repetition of a model as the model leaderboard counts it."""

    repetition: int
    unit: str | None = Field(description="the counted unit (its replacement when one ran)")
    status: UnitStatus | Literal["missing", "replacement_pending"]
    total: float | None = None
    automated_score: float | None = None
    provisional: bool = False
    replaced_unit: str | None = Field(
        default=None, description="the failed unit this repetition's replacement stands for"
    )
    source: str = Field(default="", description="e.g. 'leaderboard.json#units/<unit>'")


class ModelRow(Record):
    """One model across its repetitions: central value, spread, counts, rank."""

    model_key: str
    display_name: str
    route: str
    status: Literal["ranked", "ineligible", "incomplete"]
    status_reason: str = ""
    repetitions: list[RepetitionResult]
    totals: list[float] = Field(description="the counted repetitions' totals, by repetition")
    mean_total: float | None = None
    interval_low: float | None = Field(
        default=None,
        description="the mean total's t-interval (n - 1 df) within the score's range 0-100; "
        "None below n = 2",
    )
    interval_high: float | None = None
    interval_clipped: bool = Field(
        default=False,
        description="schema 3: the t-interval reached past 0 or 100 and was cut at the bound "
        "(scores cannot lie beyond it)",
    )
    tier: int | None = Field(
        default=None,
        description="1 + how many ranked models' intervals lie wholly above this one's",
    )
    tier_note: str = Field(
        default="",
        description="schema 3: the tier in words, e.g. 'shares the top tier with A, B' or "
        "'below A (interval wholly above); cannot be told apart from B'",
    )
    median_total: float | None = None
    min_total: float | None = None
    max_total: float | None = None
    spread: float | None = Field(default=None, description="max_total minus min_total")
    dimension_means: dict[str, float | None] = Field(
        default_factory=dict, description="dimension id -> mean points (None: never measured)"
    )
    mean_automated: float | None = None
    mean_cost_usd: float | None = None
    valid: int = Field(default=0, description="repetitions counted with a score")
    invalid: int = Field(default=0, description="units of this model with no score, any kind")
    replaced: int = Field(default=0, description="repetitions counted through a replacement")
    gate_failed: int = Field(default=0, description="counted repetitions that failed a gate")
    provisional: bool = False
    rank: int | None = None
    advancement: Advancement


class PairedDifference(Record):
    """Two models adjacent in the ranking, compared repetition by repetition."""

    upper: str = Field(description="model key of the higher-ranked model")
    lower: str
    repetitions: list[int] = Field(description="the repetitions both have a total for")
    mean_difference: float = Field(description="mean of upper's minus lower's totals")
    interval_low: float | None = None
    interval_high: float | None = None
    separated: bool = Field(description="the interval lies wholly above zero")


class ModelRules(Record):
    ranking: str
    incomplete: str
    eligibility: str
    tie_rule: str
    advancement: str
    counts: str


class ModelLeaderboard(Root):
    """`evidence/<round>/model-leaderboard.json`: a repeated round ranked by model, not unit.

    Built from the round's leaderboard.json (cited with its SHA-256) alone; its standing is that
    board's standing, and no model advances while it is provisional. Schema 2 adds each model's
    t-interval and tier and the paired differences of adjacent ranked models
    (`scoring/uncertainty.py`); schema 1 files load without them. Schema 3: intervals stay
    within the score's range (`interval_method`, each row's `interval_clipped`) and each tier is
    explained (`tier_note`); schema 2 files load with both empty.
    """

    schema_version: int = 3
    round_id: str
    repetitions: int
    source: str = "leaderboard.json"
    source_sha256: str
    standing: Standing
    standing_reason: str = ""
    rules: ModelRules
    interval_level: float = Field(
        default=0.95, description="the two-sided level of every t-interval in this file"
    )
    interval_method: str = Field(
        default="", description="schema 3: how the intervals are computed and bounded"
    )
    paired_differences: list[PairedDifference] = Field(
        default_factory=list, description="each ranked model against the one ranked below it"
    )
    fifth_mean: float | None = None
    advancing: list[str] = Field(description="model keys; empty while provisional")
    advancing_projected: list[str] = Field(default_factory=list)
    ties: list[Tie] = Field(default_factory=list, description="equal mean totals (model keys)")
    models: list[ModelRow]


class ArmScore(Record):
    """One model in one arm (an agent, or an arm of the round's factor): its counted units'
    totals (100-point; none counted: empty) and, schema 2, their metered costs."""

    agent: str = Field(description="the arm: an agent's name, or the arm's id (e.g. placebo)")
    units: list[str] = Field(description="the units counted, each with a total")
    totals: list[float]
    mean_total: float | None = None
    costs: list[float] = Field(
        default_factory=list,
        description="schema 2: the counted units' metered cost in USD, in `units` order (a unit "
        "without a metered cost is left out)",
    )
    mean_cost_usd: float | None = Field(default=None, description="schema 2: mean of `costs`")
    not_counted: list[str] = Field(
        default_factory=list, description="the arm's other units: no total (invalid, failed...)"
    )


class ArmInfo(Record):
    """One arm of a method, starter or tools factor, as intervention.json shows it."""

    id: str
    title: str
    adds: str
    baseline: bool
    placebo: bool
    source: str = ""
    generated: str = Field(default="", description="tool and pinned version that wrote the files")
    files: list[str] = Field(default_factory=list, description="what it adds to the worktree")
    tool: str = Field(
        default="",
        description="schema 3: a tools arm's command on the agent's PATH and its backend, in words",
    )
    sha256: str | None = Field(description="the arm folder's tree hash as round.json froze it")


class InterventionModel(Record):
    model_key: str
    display_name: str
    arms: list[ArmScore]


class AgentEffect(Record):
    """One agent against the baseline, paired by model: each model's mean total with the agent
    minus its mean total with the baseline, over the models with a total under both."""

    agent: str
    baseline: str
    models: list[str] = Field(description="the models paired (a total under both agents)")
    differences: list[float] = Field(description="per paired model, in `models` order")
    mean_difference: float | None = None
    low: float | None = Field(
        default=None,
        description="95% t-interval (two models or more); schema 4: cut at -100 and 100, the "
        "bounds of a difference of two totals (`clipped`)",
    )
    high: float | None = None
    clipped: bool = Field(
        default=False,
        description="schema 4: the interval reached past -100 or 100 and is cut there (older "
        "files: not cut, and False)",
    )
    separated: Literal["above", "below", "overlaps", "unknown"] = Field(
        default="unknown",
        description="the interval wholly above zero (the agent scored higher), wholly below, "
        "overlapping zero, or not computable (fewer than two paired models)",
    )
    cost_models: list[str] = Field(
        default_factory=list, description="schema 2: the models paired on cost (both arms costed)"
    )
    cost_differences: list[float] = Field(
        default_factory=list,
        description="schema 2: per model of `cost_models`, its mean metered cost in this arm "
        "minus its mean cost in the baseline (USD)",
    )
    mean_cost_difference: float | None = None
    cost_low: float | None = Field(default=None, description="schema 2: 95% t-interval (USD)")
    cost_high: float | None = None


class InterventionBoard(Root):
    """`evidence/<round>/intervention.json`: an intervention round compares the arms of one
    factor on the same models. Built from the round's leaderboard.json (cited with its SHA-256)
    alone (and, for a folder factor, the arms' manifests and frozen hashes): every model runs in
    every arm, and each arm's effect is its paired difference from the baseline arm (the round's
    first), in total and, schema 2, in metered cost. Schema 2 adds `factor`, `arms`, each arm's
    costs and each effect's cost difference; schema 1 files load as the agent factor without
    them. Schema 3: each arm's `tool` (a tools arm's command; "" in older files). Schema 4: an
    effect's total interval is cut at the bounds of a difference (-100 to 100, `clipped`), as the
    leaderboard's intervals and the claims' are; older files load with their intervals as
    written."""

    schema_version: int = 4
    round_id: str
    leaderboard_sha256: str
    standing: Standing
    factor: Factor = Field(default="agent", description="schema 2: the factor the arms vary")
    baseline: str
    agents: list[str] = Field(description="the arms (agents, or the factor's arm ids), baseline first")
    arms: list[ArmInfo] = Field(
        default_factory=list,
        description="schema 2: a method, starter or tools factor's arms: title, what each adds, "
        "its frozen hash (empty for the agent factor and in schema 1 files)",
    )
    models: list[InterventionModel]
    effects: list[AgentEffect]
