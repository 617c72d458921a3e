"""The layout the code claims: no import circle in codemods/, an engine that knows rules only by
their interface (codemods/engine/rule.py), and an installed distribution that claims the
`codemods` package alone."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "codemods"


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, modules: set[str]) -> set[str]:
    """The codemods modules `path` imports anywhere in it (module level, in functions, under
    TYPE_CHECKING: a circle through any of them is a circle)."""
    found = set()
    package = module_name(path).rsplit(".", 1)[0] if path.name != "__init__.py" else module_name(path)
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            names = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and name != "codemods":
                found.add(name)
    return found - {module_name(path)}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(path) for path in paths}
    return {module_name(path): imported(path, modules) for path in paths}


def test_the_import_graph_of_codemods_has_no_circle(graph) -> None:
    state: dict[str, str] = {}

    def visit(module: str, trail: list[str]) -> None:
        state[module] = "open"
        for target in sorted(graph[module]):
            assert state.get(target) != "open", "import circle: " + " -> ".join([*trail, module, target])
            if target not in state:
                visit(target, [*trail, module])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [])


def test_no_class_of_the_analysis_is_over_400_lines() -> None:
    """Issue 50: the analysis is classes of one job each, small enough to read whole (a 1,540-line
    ProjectIndex, a 720-line Linker, a 608-line ValueFlow and a 432-line _KernelFinder were not;
    each is now parts of its own)."""
    over = {f"{path.relative_to(REPO)}: {node.name}"
            for path in sorted((PACKAGE / "analysis").rglob("*.py"))
            for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.ClassDef)
            and node.end_lineno - node.lineno > 400}
    assert not over, sorted(over)


def test_the_engine_knows_rules_only_by_their_interface(graph) -> None:
    transforms = {module for module, targets in graph.items() if "codemods.base" in targets}
    assert {"codemods.rules.per_operand_precision", "codemods.rules.accuracy_hints", "codemods.rules.bf16_lstm"} <= transforms
    for module, targets in graph.items():
        if module.startswith("codemods.engine"):
            wrong = targets & (transforms | {"codemods.base", "codemods.registry"})
            assert not wrong, f"{module} imports {sorted(wrong)}"


def test_each_rule_lives_in_its_own_module() -> None:
    from codemods.registry import RULES

    for rule in RULES:
        implementation = getattr(rule.check, "__self__", rule.check)  # a transform class's classmethod
        module = sys.modules[implementation.__module__]
        defined = [module.RULE] if hasattr(module, "RULE") else list(module.RULES)  # a table-driven family
        assert any(r is rule for r in defined), f"{rule.code} is defined where its implementation is"
        assert rule.what.strip() and rule.why.strip() and rule.example.strip(), f"{rule.code} is documented"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(REPO)],
                   check=True, capture_output=True, timeout=600)
    (built,) = out.glob("jax_codemod-*.whl")
    return built


def test_the_wheel_installs_the_codemods_package_alone(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/", 1)[0] for name in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"codemods"}, sorted(top)
    assert "codemods/cli.py" in names and "codemods/helpers_source.py" in names
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "jax-codemod = codemods.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_the_command_ignores_another_cli_module_on_the_path(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("jax-codemod")
    if not script.exists():
        pytest.skip("the package is not installed in this environment (no jax-codemod script)")
    (tmp_path / "cli.py").write_text("raise SystemExit('the other project cli.py ran')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    result = subprocess.run([str(script), "--version"], cwd=tmp_path, env=env, capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.startswith(b"jax-codemod ")


def test_the_checkout_launcher_runs_the_same_program(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(REPO / "cli.py"), "rules"], cwd=tmp_path, capture_output=True,
                            timeout=120)
    assert result.returncode == 0 and result.stdout.startswith(b"JAX001 ")


def test_a_run_that_writes_nothing_imports_no_writer(tmp_path: Path) -> None:
    """A lone kernel file with nothing to fix, `--no-cache`: start-up is a third of such a run
    (docs/speed.md), so what only a write needs (libcst, tempfile, secrets, importlib.resources)
    and a setup.cfg's parser (configparser) are never imported."""
    (tmp_path / "kernel.py").write_text("from jax.experimental import pallas as pl\n\n\n"
                                        "def body(x_ref, o_ref):\n    o_ref[...] = x_ref[...]\n")
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "codemods", "-q", "--no-cache", "kernel.py"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    imported = {line.rpartition("|")[2].strip() for line in result.stderr.splitlines() if line.startswith("import time:")}
    assert "codemods.engine.runner" in imported  # (the listing is read)
    assert imported.isdisjoint({"libcst", "tempfile", "secrets", "importlib.resources", "configparser"})
