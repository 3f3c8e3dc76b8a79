"""The control patches and what their headers say, read without starting anything.

A control patch is a unified diff applied with `patch -p1` on the materialised reference:
the task's `mutants/<check-id>[--<name>].patch` (a defect: must lose exactly that check) or
`variants/<name>.patch` (a legal variant: must pass). Its leading `#` lines describe it; two of
them are expectations, not description: `# expect-gates: a, b` (the gates a mutant must fail) and
`# exercises: <clause ids>` (the contract clauses a variant exercises, shown in the traceability
table).
"""

from __future__ import annotations

from pathlib import Path

GATES_HEADER = "expect-gates:"
EXERCISES_HEADER = "exercises:"
HEADERS = (GATES_HEADER, EXERCISES_HEADER)


def mutant_patches(mutants_dir: Path) -> dict[str, Path]:
    """mutant name -> patch file, for every `<check-id>[--<variant>].patch` in `mutants_dir`."""
    return {p.stem: p for p in sorted(mutants_dir.glob("*.patch"))}


def variant_patches(variants_dir: Path) -> dict[str, Path]:
    """variant name -> patch file, for every `<name>.patch` in `variants_dir` (whatever is there
    when the controls run)."""
    return {p.stem: p for p in sorted(variants_dir.glob("*.patch"))}


def check_of(mutant: str) -> str:
    """The check a mutant must fail: its name up to `--`."""
    return mutant.split("--", 1)[0]


def _header(patch: Path) -> list[str]:
    lines = []
    for line in patch.read_text(encoding="utf-8").splitlines():
        if line.startswith(("--- ", "diff ", "Index:")):
            break
        lines.append(line.lstrip("# ").strip())
    return [x for x in lines if x]


def describe(patch: Path) -> str:
    """The patch's leading comment lines (before the first diff header), minus expectations."""
    return " ".join(x for x in _header(patch) if not x.startswith(HEADERS))


def exercised_clauses(patch: Path) -> list[str]:
    """The contract clauses a variant exercises (its `# exercises: a, b` header line)."""
    for line in _header(patch):
        if line.startswith(EXERCISES_HEADER):
            return sorted(
                {c.strip() for c in line[len(EXERCISES_HEADER) :].split(",") if c.strip()}
            )
    return []


def expected_gates(patch: Path) -> list[str]:
    """The gates the mutant must fail (its `# expect-gates: a, b` header line)."""
    for line in _header(patch):
        if line.startswith(GATES_HEADER):
            return sorted(g.strip() for g in line[len(GATES_HEADER) :].split(",") if g.strip())
    return []


DEPENDENCY_FILES = ("package.json", "package-lock.json")


def touches_dependencies(patch: Path) -> bool:
    """Whether the patch changes package.json or the lockfile (then it needs its own install)."""
    text = patch.read_text(encoding="utf-8")
    return any(
        f"/{name}" in line
        for line in text.splitlines()
        if line.startswith(("+++ ", "--- "))
        for name in DEPENDENCY_FILES
    )
