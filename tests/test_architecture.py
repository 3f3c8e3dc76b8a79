"""The import graph of the packages (docs/architecture.md), checked on every module's source.

- `records` imports nothing of the project; `sandbox` only `records`; `gateway` (the wire: the
  recording proxy, its protocol front ends, the client and the simulator) only `records`;
- `harness` imports `records`, `sandbox` and `gateway`; `evaluator` `records` and `sandbox`;
  `scoring` only `records`; none of the three imports another: they meet only in the evidence;
- `publish` imports `records` and otherwise only package APIs: a name a package's `__init__`
  lists in `__all__` (`from scoring import score_round`, `harness.current_inputs`).

Every import counts, including those inside functions and `importlib.import_module("...")`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from records.layout import REPO_ROOT

PACKAGES = ("records", "sandbox", "gateway", "harness", "evaluator", "scoring", "publish", "siteos")
ALLOWED = {
    "records": {"records"},
    "sandbox": {"sandbox", "records"},
    "gateway": {"gateway", "records"},
    "harness": {"harness", "records", "sandbox", "gateway"},
    "evaluator": {"evaluator", "records", "sandbox"},
    "scoring": {"scoring", "records"},
    "publish": {"publish", "records"},
    "siteos": {"siteos", *PACKAGES},
}
API_USERS = {"publish"}  # may also use the other packages' __init__ APIs


def package_api(package: str) -> set[str]:
    """The names `<package>/__init__.py` lists in `__all__` (read from its source)."""
    tree = ast.parse((REPO_ROOT / package / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return set(ast.literal_eval(node.value))
    return set()


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def violations(source: str, module: str, is_package: bool = False) -> list[str]:
    """Every import of `module`'s source that breaks the graph, as 'module: import'."""
    own = module.split(".")[0]
    allowed = ALLOWED[own]
    found: list[str] = []

    def check(target: str, names: tuple[str, ...] = ()) -> None:
        top = target.split(".")[0]
        if top not in PACKAGES or top in allowed:
            return
        if own in API_USERS and target == top:
            api = package_api(top)
            bad = [n for n in names if n not in api] if names else []
            if not bad:
                return
            found.append(f"{module}: from {target} import {', '.join(bad)} (not in {top}.__all__)")
            return
        found.append(f"{module}: imports {target}" + (f" ({', '.join(names)})" if names else ""))

    tree = ast.parse(source)
    imported_whole: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                check(alias.name)
                if alias.asname is None and "." not in alias.name:
                    imported_whole.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            check(_absolute(node, module, is_package), tuple(a.name for a in node.names))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            check(node.args[0].value)
    for node in ast.walk(tree):  # `import harness` then `harness.x`: x must be in its API
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in imported_whole
            and node.value.id in PACKAGES
            and node.value.id not in allowed
            and node.attr not in package_api(node.value.id)
        ):
            found.append(f"{module}: uses {node.value.id}.{node.attr} (not in its __all__)")
    return found


def project_modules() -> list[Path]:
    return sorted(
        path
        for package in PACKAGES
        for path in (REPO_ROOT / package).rglob("*.py")
        if "node_modules" not in path.parts
    )


def test_the_import_graph_holds() -> None:
    found = [
        v
        for path in project_modules()
        for v in violations(path.read_text(), module_name(path), path.name == "__init__.py")
    ]
    assert not found, "import graph broken:\n  " + "\n  ".join(found)


@pytest.mark.parametrize(
    ("module", "source", "bad"),
    [
        ("records.x", "from harness.freeze import freeze", True),
        ("records.x", "from records.io import read_json", False),
        ("sandbox.x", "import evaluator.build", True),
        ("scoring.x", "from harness.agents.opencode import OpenCodeAgent", True),
        ("scoring.x", "def f():\n    from evaluator.checks import CHECKS", True),
        ("scoring.x", "import importlib\nimportlib.import_module('harness.unit')", True),
        ("harness.x", "from evaluator.evaluate import evaluate", True),
        ("evaluator.x", "from sandbox import run_process", False),
        ("evaluator.x", "from scoring import score_round", True),
        ("publish.x", "from scoring import score_round", False),
        ("publish.x", "from scoring.advancement import MARGIN", True),
        ("publish.x", "from harness import freeze", True),
        ("publish.x", "import harness\nharness.current_inputs('r')", False),
        ("publish.x", "import harness\nharness.unit.run_unit()", True),
        ("scoring.sub.x", "from .. import model", False),
    ],
)
def test_the_checker_catches_what_it_should(module: str, source: str, bad: bool) -> None:
    assert bool(violations(source, module)) is bad


# --- the task is a folder, reached through a value ------------------------------------------
# A module never holds a task's files as a global: it gets a `Task` (records/task.py) from its
# caller, the round (`RoundSettings.load_task()`) or a command line's `--task`.
OLD_TASK_GLOBALS = {
    "PROMPT_FILE", "STARTER_DIR", "DATA_FILE", "CONTRACT_FILE", "REFERENCE_DIR", "MUTANTS_DIR",
    "VARIANTS_DIR", "CALIBRATION_SCORE",
}  # fmt: skip
TASK_PATH_WORDS = ("app-starter", "task-prompt.md", "acceptance-contract.md", "benchmark/tasks")
DEFAULT_TASK_USERS = {"records.task", "records.inputs"}
"""Where the default task may be named outside a command line's `main` (the round file's
default)."""


def task_globals(source: str, module: str) -> list[str]:
    """Every way `module`'s source reaches a task other than through a value, as sentences."""
    tree = ast.parse(source)
    found: list[str] = []
    in_main: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "main":
            in_main.update(id(n) for n in ast.walk(node))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name | ast.alias):
            name = node.id if isinstance(node, ast.Name) else (node.asname or node.name)
            if name in OLD_TASK_GLOBALS:
                found.append(f"{module}: names {name}, a task global")
            if name == "TASKS_DIR" and module != "records.task":
                found.append(f"{module}: reads TASKS_DIR (ask records.task.load_task)")
            if (
                name == "DEFAULT_TASK"
                and module not in DEFAULT_TASK_USERS
                and id(node) not in in_main
                and isinstance(node, ast.Name)
            ):
                found.append(f"{module}: names DEFAULT_TASK outside a command line's main()")
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            path_like = not any(c.isspace() for c in node.value)  # prose may name the folders
            if (
                path_like
                and module != "records.task"
                and any(w in node.value for w in TASK_PATH_WORDS)
            ):
                found.append(f"{module}: the literal {node.value[:60]!r} names a task's files")
    for node in tree.body:  # module level: no task is loaded at import
        for call in ast.walk(node):
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name | ast.Attribute)
                and (call.func.id if isinstance(call.func, ast.Name) else call.func.attr)
                == "load_task"
                and not isinstance(node, ast.FunctionDef | ast.ClassDef)
            ):
                found.append(f"{module}: loads a task at import")
    return found


def test_no_module_reads_a_task_global() -> None:
    found = [
        v for path in project_modules() for v in task_globals(path.read_text(), module_name(path))
    ]
    assert not found, "a task reached outside a value:\n  " + "\n  ".join(found)


@pytest.mark.parametrize(
    ("source", "bad"),
    [
        ("from records.layout import PROMPT_FILE", True),
        ("X = REPO_ROOT / 'app-starter'", True),
        ("from records.task import TASKS_DIR", True),
        ("TASK = load_task('atlas-rooms')", True),
        ("def f(t):\n    return load_task(DEFAULT_TASK)", True),
        ("def main():\n    return load_task(DEFAULT_TASK)", False),
        ("def f(settings):\n    return settings.load_task().prompt", False),
    ],
)
def test_the_task_checker_catches_what_it_should(source: str, bad: bool) -> None:
    assert bool(task_globals(source, "evaluator.x")) is bad
