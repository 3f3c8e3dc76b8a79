"""Anonymising packet text and scanning packets for identity leaks.

Identity strings come from the cohort file, for every candidate (not only the packet's own): key,
company (and its parts, e.g. "Alibaba (Qwen)" → "Alibaba", "Qwen"; "Mistral AI" → "Mistral"),
display name and its family word (first word, and its leading letters: "GPT-5.1" → "GPT"; not
common words such as "Step"), route and canonical slug with their author/model parts; plus the
gateway's names (OpenRouter), any provider or model names the sessions observed, the names each
unit's agent adapter gives for itself (its trace's `identity`, e.g. "OpenCode"), and the
candidates' usual self-references and vendors (`SELF_REFERENCES`: "Claude", "GPT", "as an AI").

Matching is case-insensitive on whole words: a match may not touch a letter or digit on either
side (so "grok" does not match inside base64 blobs, but "Grok-4" does). Technical idioms that
contain an identity word without naming anyone are exempt when the match is exactly that word:
"meta" (company "Meta") after `<`, `.`, `-` or `_` or before `-`/`_`: the HTML `<meta>` tag,
`import.meta`, class names such as `venue-card__meta` (but "meta-llama" is still caught).
Matches are replaced by `[redacted]`; so are the agent's native ids (the adapter's `identity.ids`,
OpenCode's `ses_…`, `msg_…`), and a diff loses the sections of the agent's own files
(`identity.files`). `redact` also says what it replaced on which line (the packet's private log).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from records.inputs import Cohort

REDACTED = "[redacted]"
GATEWAY_STRINGS = ("OpenRouter", "open-router")
SELF_REFERENCES = (
    "as an AI", "AI assistant", "language model", "Claude", "Anthropic", "GPT", "ChatGPT",
    "OpenAI", "Gemini", "DeepMind", "Google DeepMind", "Llama", "Meta AI", "Mistral", "Mixtral",
    "Codestral", "Devstral", "Grok", "xAI", "DeepSeek", "Qwen", "Alibaba", "Kimi", "Moonshot",
    "GLM", "Zhipu", "MiniMax", "Nemotron", "NVIDIA", "Cohere", "Amazon Nova", "StepFun",
)  # fmt: skip
COMMON_WORDS = frozenset(
    {
        "step",
        "nova",
        "fast",
        "flash",
        "pro",
        "max",
        "mini",
        "ultra",
        "premier",
        "preview",
        "thinking",
        "instruct",
        "ai",
        "the",
        "open",
        "chat",
        "code",
    }
)
EXEMPT = re.compile(r"(?i)(?<=[<._-])meta\b|\bmeta(?=[_-])")
MONEY = re.compile(r"(?:US)?\$\s?\d[\d,]*(?:\.\d+)?|\b\d+(?:\.\d+)?\s?(?:USD|dollars?)\b", re.I)
TEXT_SUFFIXES = frozenset({".md", ".diff", ".csv", ".json", ".txt", ".patch", ".html", ".svg"})


def _variants(value: str) -> set[str]:
    out = {value}
    inner = re.findall(r"\(([^)]*)\)", value)
    outer = re.sub(r"\s*\([^)]*\)", "", value).strip()
    out.update(inner)
    out.add(outer)
    for v in list(out):
        out.add(re.sub(r"(?i)[\s-]*ai$", "", v).strip())  # "Mistral AI", "moonshotai", "stepfun-ai"
    return out


def identity_strings(cohort: Cohort, extra: Iterable[str] = ()) -> list[str]:
    """All identity strings, longest first, deduplicated case-insensitively."""
    found: set[str] = set(GATEWAY_STRINGS) | set(SELF_REFERENCES)
    for c in cohort.candidates:
        found |= _variants(c.key) | _variants(c.company) | {c.display_name}
        family = c.display_name.split()[0]  # "Claude", "GPT-5.1", "Qwen3.7-Max"
        found |= {family, re.split(r"[^A-Za-z]", family)[0]}  # and "GPT", "Qwen"
        for route in (c.route, c.expected_canonical_slug):
            author, model = route.split("/", 1)
            found |= {route, model, model.split(":", 1)[0]} | _variants(author)
    found |= {e for e in extra if e}
    unique: dict[str, str] = {}
    for s in sorted(found, key=lambda s: (-len(s), s)):
        s = s.strip()
        if len(s) >= 3 and s.lower() not in COMMON_WORDS:
            unique.setdefault(s.lower(), s)
    return list(unique.values())


def identity_pattern(identities: Iterable[str], ids: Iterable[str] = ()) -> re.Pattern[str]:
    """Whole-word matches of `identities`, plus the regexes `ids` (an agent's native id formats)."""
    escaped = [re.escape(s) for s in sorted(identities, key=lambda s: (-len(s), s))]
    alternatives = "|".join([*escaped, *(f"(?:{i})" for i in ids)])
    return re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])", re.I)


def _exempt_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in EXEMPT.finditer(text)]


def find_identities(text: str, pattern: re.Pattern[str]) -> list[re.Match[str]]:
    """Identity matches in `text`, exempt idioms excluded."""
    exempt = _exempt_spans(text)
    return [
        m
        for m in pattern.finditer(text)
        if not any(a <= m.start() and m.end() <= b for a, b in exempt)
    ]


def redact(
    text: str, pattern: re.Pattern[str], money: bool = False
) -> tuple[str, list[tuple[int, str]]]:
    """Replace identity strings and agent ids by `[redacted]` (dollar amounts by `[amount]`
    when `money`); returns the text and (line, what was replaced) for each identity and id."""
    matches = find_identities(text, pattern)
    kept: list[re.Match[str]] = []
    for m in sorted(matches, key=lambda m: (m.start(), -m.end())):
        if not kept or m.start() >= kept[-1].end():
            kept.append(m)
    pieces: list[str] = []
    last = 0
    for m in kept:
        pieces.append(text[last : m.start()])
        pieces.append(REDACTED)
        last = m.end()
    pieces.append(text[last:])
    out = "".join(pieces)
    if money:
        out = MONEY.sub("[amount]", out)
    found = [(text.count("\n", 0, m.start()) + 1, m.group(0)) for m in kept]
    if money and find_identities(out, pattern):
        out, more = redact(out, pattern)  # a mask can free a name it touched ("$5Claude")
        found += more
    return out, found


def scrub(text: str, pattern: re.Pattern[str], money: bool = False) -> tuple[str, int]:
    """Replace identity strings (and agent ids; dollar amounts when `money`) by `[redacted]`."""
    out, found = redact(text, pattern, money)
    amounts = len(MONEY.findall(text)) if money else 0
    return out, len(found) + amounts


def redact_diff(
    diff: str, pattern: re.Pattern[str], own_files: Iterable[str] = ()
) -> tuple[str, list[tuple[int, str]]]:
    """Scrub a git diff: drop the sections of the agent's own files (`own_files`: its adapter's
    `identity.files` regexes, e.g. OpenCode's `.opencode/`), scrub identities everywhere and
    dollar amounts in PROGRESS.md's section; returns the text and (line in it, what was
    replaced)."""
    agent_files = [re.compile(f, re.I) for f in own_files]
    kept: list[str] = []
    found: list[tuple[int, str]] = []
    offset = 0
    for section in re.split(r"(?m)^(?=diff --git )", diff):
        header = re.match(r"diff --git a/(\S+) b/(\S+)", section)
        paths = header.groups() if header else ()
        if any(f.search(p) for f in agent_files for p in paths):
            continue
        progress = any(p.rsplit("/", 1)[-1] == "PROGRESS.md" for p in paths)
        text, hits = redact(section, pattern, money=progress)
        kept.append(text)
        found += [(offset + line, what) for line, what in hits]
        offset += section.count("\n")
    return "".join(kept), found


def anonymise_diff(diff: str, pattern: re.Pattern[str], own_files: Iterable[str] = ()) -> str:
    return redact_diff(diff, pattern, own_files)[0]


@dataclass(frozen=True)
class Leak:
    file: str
    line: int
    found: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else f"{self.file} (file name)"
        return f"{where}: identity string {self.found!r}"


class LeakError(RuntimeError):
    """An identity string survived anonymisation: the project's own text names a candidate (a
    harness leak; a model's self-signature is redacted instead). The packet stage fails."""

    def __init__(self, leaks: list[Leak]) -> None:
        self.leaks = leaks
        shown = "\n  ".join(str(leak) for leak in leaks[:20])
        super().__init__(f"identity leak in blind packets ({len(leaks)}):\n  {shown}")


def is_text(path: Path) -> bool:
    if path.suffix.lower() in TEXT_SUFFIXES:
        return True
    with path.open("rb") as handle:
        head = handle.read(8192)
    if b"\0" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def leak_scan(root: Path, pattern: re.Pattern[str]) -> list[Leak]:
    """Every identity string left in file names or text contents below `root` (binary contents,
    such as PNG or WebM data, are not scanned: see the packet README's manual check)."""
    leaks: list[Leak] = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        leaks += [Leak(rel, 0, m.group(0)) for m in find_identities(rel, pattern)]
        if not is_text(path):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            leaks += [Leak(rel, number, m.group(0)) for m in find_identities(line, pattern)]
    return leaks
