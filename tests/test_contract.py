"""One contract for every entry point: `fix`, `--interactive`, `explain`, libcst's runner and the Bowler
modifier read `[tool.jax-codemod]` the same way, with their own options winning, and reject what
`fix` rejects (pre-commit runs `fix`: tests/test_pre_commit.py). Also the exit codes (as Ruff's),
the writes `explain` refuses, and the command line's small promises.

Everything runs in this process (typer's CliRunner, libcst's `transform_module`, Bowler in-process),
so that a bug injected into the code (`make mutants`) is seen here. Nothing imports jax.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
from pathlib import Path
from typing import Callable, Optional

import pytest
from typer.testing import CliRunner

from codemods.cli import app

# A Pallas TPU dot at (DEFAULT, HIGH): the scalar the fix writes depends on the target release (HIGH
# lowers on Mosaic TPU from jax 0.11.1 on) and on the precision policy.
KERNEL = '''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
'''
PAIR = "precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))"
HIGH, HIGHEST = "precision=lax.Precision.HIGH)", "precision=lax.Precision.HIGHEST)"
DOT_LINE = 8
# A kernel whose precision comes from a parameter the module never binds: a [manual] finding, no fix.
MANUAL_ONLY = '''\
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref, *, precision):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=precision)


def run(x, y, precision):
    return pl.pallas_call(lambda *refs: kernel(*refs, precision=precision), out_shape=x)(x, y)
'''


def log_for(path: Path) -> str:
    """The traceback JAX prints when the kernel's dot fails to lower for TPU."""
    code = KERNEL.splitlines()[DOT_LINE - 1].strip()
    return (f'Traceback (most recent call last):\n  File "{path}", line {DOT_LINE}, in kernel\n    {code}\n'
            "NotImplementedError: Per-operand dot precision unsupported\n")


def project(root: Path, config: Optional[str], source: str = KERNEL) -> Path:
    """A project with `config` as its [tool.jax-codemod] table (None: no table), and the kernel."""
    root.mkdir(parents=True, exist_ok=True)
    table = "" if config is None else f"\n[tool.jax-codemod]\n{config}"
    (root / "pyproject.toml").write_text(f"[project]\nname = 'demo'\n{table}")
    (root / "pkg").mkdir(exist_ok=True)
    (root / "pkg" / "kernel.py").write_text(source)
    return root / "pkg" / "kernel.py"


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JAX_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


def invoke(*args: str, input: Optional[str] = None):
    return CliRunner().invoke(app, list(args), input=input, catch_exceptions=False)


# Each entry point: (project folder, the kernel's path, its own options) -> (status, the kernel's text
# after the run). Options are written as `fix` spells them.


def via_fix(root: Path, path: Path, options: list[str]) -> tuple[int, str]:
    result = invoke("fix", "--write", "--no-cache", *options, str(root))
    return result.exit_code, path.read_text()


def via_interactive(root: Path, path: Path, options: list[str]) -> tuple[int, str]:
    result = invoke("fix", "-i", "--no-cache", *options, str(root), input="a\n")
    return result.exit_code, path.read_text()


def via_explain(root: Path, path: Path, options: list[str]) -> tuple[int, str]:
    result = invoke("explain", "--write", "--root", str(root), *options, input=log_for(path))
    return result.exit_code, path.read_text()


def via_libcst(root: Path, path: Path, options: list[str]) -> tuple[int, str]:
    from libcst.codemod import CodemodContext, TransformFailure, TransformSuccess, transform_module

    from codemods.interop import _shared
    from codemods.interop.libcst_commands import JaxCodemod

    _shared._config_of_folder.cache_clear()  # each test writes its own config
    given = {option.lstrip("-").replace("-", "_"): value for option, value in zip(options[::2], options[1::2])}
    try:
        command = JaxCodemod(CodemodContext(filename=str(path)), **given)
    except _shared.InteropError:
        return 2, path.read_text()
    result = transform_module(command, path.read_text())
    if isinstance(result, TransformFailure):
        return 2, path.read_text()
    assert isinstance(result, TransformSuccess)
    path.write_text(result.code)
    return 0, result.code


def via_bowler(root: Path, path: Path, options: list[str]) -> tuple[int, str]:
    pytest.importorskip("bowler", reason="Bowler is not installed (pip install 'jax-codemod[bowler]')")
    from codemods.interop import _shared
    from codemods.interop.bowler_modifier import query

    if options:
        pytest.skip("Bowler's API takes a Settings object, not options")
    _shared._config_of_folder.cache_clear()
    done = query(str(path), report=lambda line: None).execute(write=True, interactive=False, silent=True,
                                                              in_process=True)
    return (2 if done.exceptions else 0), path.read_text()


ENTRY_POINTS: dict[str, Callable[[Path, Path, list[str]], tuple[int, str]]] = {
    "fix": via_fix, "interactive": via_interactive, "explain": via_explain, "libcst": via_libcst,
    "bowler": via_bowler,
}


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize(("config", "written"), [
    ('jax-version = "0.12.0.1"\n', HIGH),
    ('jax-version = "0.10.2"\n', HIGHEST),  # Mosaic TPU rejects a HIGH dot before 0.11.1
    ('jax-version = "0.12.0.1"\nprecision-policy = "highest"\n', HIGHEST),
    ('jax-version = "0.12.0.1"\nignore = ["JAX001"]\n', PAIR),
    ('jax-version = "0.12.0.1"\nselect = ["JAX002"]\n', PAIR),
    ('jax-version = "0.12.0.1"\nper-file-ignores = { "pkg/*" = ["JAX001"] }\n', PAIR),
], ids=["0.12", "0.10.2", "policy-highest", "ignore", "select", "per-file-ignores"])
def test_every_entry_point_reads_the_project_config(entry: str, config: str, written: str, tmp_path: Path) -> None:
    path = project(tmp_path / "proj", config)
    status, after = ENTRY_POINTS[entry](tmp_path / "proj", path, [])
    assert written in after, (entry, status, after)
    assert status != 2, (entry, after)


@pytest.mark.parametrize("entry", ["fix", "interactive", "explain", "libcst"])
def test_the_command_line_wins_over_the_config(entry: str, tmp_path: Path) -> None:
    path = project(tmp_path / "proj", 'jax-version = "0.10.2"\nprecision-policy = "highest"\n')
    status, after = ENTRY_POINTS[entry](tmp_path / "proj", path,
                                         ["--jax-version", "0.12.0.1", "--precision-policy", "nearest"])
    assert HIGH in after, (entry, status, after)


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("config", [
    'jax_version = "0.10.2"\n',  # a typo of jax-version: must not fall back to the installed jax
    'helpers-module = "x; import os"\n',
    'precision-policy = "fastest"\n',
], ids=["unknown-key", "bad-module", "bad-choice"])
def test_every_entry_point_rejects_what_fix_rejects(entry: str, config: str, tmp_path: Path) -> None:
    path = project(tmp_path / "proj", config)
    status, after = ENTRY_POINTS[entry](tmp_path / "proj", path, [])
    assert status == 2 and after == KERNEL, (entry, status, after)


def test_an_unknown_key_says_which_key_was_meant(tmp_path: Path) -> None:
    project(tmp_path / "proj", 'jax_version = "0.10.2"\n')
    result = invoke("fix", str(tmp_path / "proj"))
    assert result.exit_code == 2
    assert "unknown key `tool.jax-codemod.jax_version`; did you mean `jax-version`?" in result.stderr
    project(tmp_path / "other", 'colour = "blue"\n')
    assert "did you mean" not in invoke("fix", str(tmp_path / "other")).stderr


@pytest.mark.parametrize("name", ["x; import os", "1abc", "pkg..mod", "pkg.class", ""])
def test_a_helpers_module_that_is_not_a_dotted_name_is_refused_up_front(name: str, tmp_path: Path) -> None:
    path = project(tmp_path / "proj", None)
    result = invoke("fix", "--write", "--helpers-module", name, str(tmp_path / "proj"))
    assert result.exit_code == 2 and "is not a dotted module name" in result.stderr, result.stderr
    assert "files scanned" not in result.stderr, "nothing is processed"
    assert path.read_text() == KERNEL


def test_a_dotted_helpers_module_is_accepted(tmp_path: Path) -> None:
    tanh = KERNEL.replace("jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))",
                          "lax.rsqrt(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)")
    path = project(tmp_path / "proj", None, tanh)
    (tmp_path / "proj" / "my_pkg").mkdir()
    (tmp_path / "proj" / "my_pkg" / "jax_compat.py").write_text("")
    result = invoke("fix", "--write", "--no-cache", "--helpers-module", "my_pkg.jax_compat", str(tmp_path / "proj"))
    assert result.exit_code == 0, result.stderr
    assert "from my_pkg.jax_compat import rsqrt_safe" in path.read_text()


def test_a_helpers_module_the_project_lacks_is_refused_unless_it_is_created(tmp_path: Path) -> None:
    """An import of a module that does not exist would fail: exit 2 naming it, nothing written;
    `--create-helpers-module` (or the config's key) writes it, with the reference helpers."""
    tanh = KERNEL.replace("jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))",
                          "lax.rsqrt(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)")
    path = project(tmp_path / "proj", None, tanh)
    module = tmp_path / "proj" / "fastlayers" / "jax_compat.py"
    result = invoke("fix", "--write", "--no-cache", "--helpers-module", "fastlayers.jax_compat", str(tmp_path / "proj"))
    assert result.exit_code == 2 and "--helpers-module fastlayers.jax_compat: no such module" in result.stderr, result.stderr
    assert "fastlayers/jax_compat.py" in result.stderr and "files scanned" not in result.stderr
    assert path.read_text() == tanh and not module.exists()
    result = invoke("fix", "--write", "--no-cache", "--create-helpers-module", "--helpers-module", "fastlayers.jax_compat",
                    str(tmp_path / "proj"))
    assert result.exit_code == 0, result.stderr
    assert "from fastlayers.jax_compat import rsqrt_safe" in path.read_text()
    assert "\ndef rsqrt_safe(x):\n" in module.read_text() and "jax_compat.py: written" in result.stderr
    ast.parse(module.read_text())
    module.unlink()
    path = project(tmp_path / "proj", 'helpers-module = "fastlayers.jax_compat"\ncreate-helpers-module = true\n', tanh)
    result = invoke("fix", "--write", "--no-cache", str(tmp_path / "proj"))
    assert result.exit_code == 0 and "\ndef rsqrt_safe(x):\n" in module.read_text(), result.stderr


def test_negative_jobs_are_refused(tmp_path: Path) -> None:
    project(tmp_path / "proj", None)
    result = invoke("fix", "--jobs", "-3", str(tmp_path / "proj"))
    assert result.exit_code == 2 and "--jobs" in result.stderr


# -- exit codes, as Ruff's --


@pytest.mark.parametrize("mode", [[], ["--check"], ["--write"]], ids=["dry-run", "check", "write"])
def test_a_manual_finding_alone_keeps_the_exit_status_at_1(mode: list[str], tmp_path: Path) -> None:
    path = project(tmp_path / "proj", 'jax-version = "0.12.0.1"\n', MANUAL_ONLY)
    result = invoke("fix", "--no-cache", *mode, str(tmp_path / "proj"))
    assert result.exit_code == 1, result.stderr
    assert "JAX001 [manual]" in result.stderr and "1 needs manual review" in result.stderr
    assert path.read_text() == MANUAL_ONLY
    assert invoke("fix", "--no-cache", "--exit-zero", *mode, str(tmp_path / "proj")).exit_code == 0


def test_exit_zero_keeps_2_for_a_file_that_cannot_be_read(tmp_path: Path) -> None:
    project(tmp_path / "proj", None)
    (tmp_path / "proj" / "pkg" / "broken.py").write_bytes(KERNEL.encode() + b"def (:\n")
    assert invoke("fix", "--no-cache", "--exit-zero", str(tmp_path / "proj")).exit_code == 2


def test_write_exits_0_once_every_finding_is_fixed(tmp_path: Path) -> None:
    path = project(tmp_path / "proj", 'jax-version = "0.12.0.1"\n')
    assert invoke("fix", "--no-cache", "--check", str(tmp_path / "proj")).exit_code == 1
    assert invoke("fix", "--no-cache", "--write", str(tmp_path / "proj")).exit_code == 0
    assert HIGH in path.read_text()
    assert invoke("fix", "--no-cache", "--check", str(tmp_path / "proj")).exit_code == 0


# -- explain writes only the project's own files --


def test_explain_does_not_write_a_file_outside_the_root(tmp_path: Path) -> None:
    elsewhere = project(tmp_path / "library", 'jax-version = "0.12.0.1"\n')
    root = tmp_path / "mine"
    root.mkdir()
    result = invoke("explain", "--write", "--root", str(root), "--jax-version", "0.12.0.1", input=log_for(elsewhere))
    assert result.exit_code == 1, result.stderr
    assert elsewhere.read_text() == KERNEL
    assert f"+    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], {HIGH}" in result.stdout, "the fix, as a diff"
    # (named from the current folder, as `fix` names it, whatever the log's spelling)
    shown = elsewhere.relative_to(tmp_path)
    assert f"{shown}: not written: it is outside the project root {root.resolve()} (--root)" in result.stderr


def test_explain_never_writes_an_installed_package(tmp_path: Path) -> None:
    installed = tmp_path / "venv" / "lib" / "python3.12" / "site-packages" / "kernels.py"
    installed.parent.mkdir(parents=True)
    installed.write_text(KERNEL)
    result = invoke("explain", "--write", "--root", str(tmp_path), "--jax-version", "0.12.0.1",
                    input=log_for(installed))
    assert result.exit_code == 1, result.stderr
    assert installed.read_text() == KERNEL
    assert "not written: it is inside an installed package (site-packages)" in result.stderr


def test_explain_writes_a_file_under_the_root(tmp_path: Path) -> None:
    path = project(tmp_path / "proj", None)
    result = invoke("explain", "--write", "--root", str(tmp_path / "proj"), "--jax-version", "0.12.0.1",
                    input=log_for(path))
    assert result.exit_code == 0, result.stderr
    assert HIGH in path.read_text() and "not written" not in result.stderr


def test_explain_names_an_error_of_a_rule_the_config_leaves_out(tmp_path: Path) -> None:
    path = project(tmp_path / "proj", 'ignore = ["JAX001"]\n')
    result = invoke("explain", "--write", "--root", str(tmp_path / "proj"), input=log_for(path))
    assert result.exit_code == 1
    shown = path.relative_to(tmp_path)  # (the log's path is absolute: named as `fix` names it)
    assert f"{shown}:{DOT_LINE}: JAX001: the traceback's `Per-operand dot precision unsupported` comes from this " \
           "call, but JAX001 is not selected" in result.stderr
    assert path.read_text() == KERNEL


def test_explain_names_an_error_of_a_rule_the_config_ignores_for_that_file(tmp_path: Path) -> None:
    path = project(tmp_path / "proj", 'per-file-ignores = { "pkg/*" = ["JAX001"] }\n')
    result = invoke("explain", "--write", "--root", str(tmp_path / "proj"), input=log_for(path))
    assert result.exit_code == 1
    shown = path.relative_to(tmp_path)  # (the log's path is absolute: named as `fix` names it)
    assert f"{shown}:{DOT_LINE}: JAX001: the traceback's `Per-operand dot precision unsupported` comes from this " \
           f"call, but JAX001 is ignored for {shown}" in result.stderr, result.stderr
    assert path.read_text() == KERNEL


# -- the command line's small promises --


def test_interactive_declining_every_fix_changes_nothing_and_keeps_the_findings(tmp_path: Path) -> None:
    """Declined fixes are answered with the file as it is: still with its cross-module facts (the
    kernel here is launched from another module), so its findings stay and nothing counts as changed."""
    root = tmp_path / "proj"
    path = project(root, 'jax-version = "0.12.0.1"\n', KERNEL.replace("matmul = pl.pallas_call", "# launched in launch.py\n_ = pl"))
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "launch.py").write_text(
        "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n\nfrom pkg.kernel import kernel\n\n"
        "matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))\n")
    result = invoke("fix", "-i", "--no-cache", str(root), input="n\n" * 5)
    assert result.exit_code == 1
    assert "0 changed, 0 fixes" in result.stderr and "1 fix declined" in result.stderr, result.stderr
    assert "pkg/kernel.py:8:" in result.stderr.replace(os.sep, "/")
    assert HIGH not in path.read_text()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_base_names_files_relative_to_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    project(root, 'jax-version = "0.12.0.1"\n', "x = 1\n")
    run = lambda *args: subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@invalid", *args], cwd=root,
                                       check=True, capture_output=True)
    run("init", "-q")
    run("add", "-A")
    run("commit", "-qm", "base")
    (root / "pkg" / "kernel.py").write_text(KERNEL)
    monkeypatch.chdir(root)
    result = invoke("fix", "--no-cache", "--diff-base", "HEAD")
    assert result.exit_code == 1
    assert result.stdout.startswith("--- a/pkg/kernel.py\n+++ b/pkg/kernel.py\n"), result.stdout
    assert "\npkg/kernel.py:8:" in "\n" + result.stderr.replace(os.sep, "/"), result.stderr
    assert str(root) not in result.stderr


def test_rules_lists_each_rule_once() -> None:
    from codemods.registry import RULES

    listed = invoke("rules").stdout.splitlines()
    assert [line.split()[0] for line in listed] == [rule.code for rule in RULES]
    for rule in RULES:
        documented = invoke("rules", rule.code).stdout
        assert documented.count(rule.summary) == 1, documented


def test_top_level_help_lists_the_default_commands_options_and_the_readme_names_fix() -> None:
    help_text = invoke("--help").stdout
    for option in ("--write", "--check", "--select", "--jax-version", "--diff-base", "--exit-zero"):
        assert option in help_text, option
    assert "jax-codemod fix" in (Path(__file__).parents[1] / "README.md").read_text()


def test_a_folder_inside_an_excluded_one_says_why_nothing_was_scanned(tmp_path: Path) -> None:
    lib = tmp_path / "proj" / "venv" / "lib"
    lib.mkdir(parents=True)
    (lib / "kernel.py").write_text(KERNEL)
    result = invoke("fix", "--no-cache", str(lib))
    assert f"{lib}: skipped: it lies in an excluded folder" in result.stderr, result.stderr
    assert "1 skipped" in result.stderr
    (tmp_path / "empty").mkdir()
    assert "skipped" not in invoke("fix", "--no-cache", str(tmp_path / "empty")).stderr


@pytest.mark.parametrize("comment_line", [DOT_LINE, DOT_LINE + 2])
def test_a_suppression_comment_on_the_calls_first_line_covers_the_call(comment_line: int, tmp_path: Path) -> None:
    split = KERNEL.replace("jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))",
                           "jnp.dot(\n        x_ref[...], y_ref[...],\n        precision=(lax.Precision.DEFAULT, "
                           "lax.Precision.HIGH),\n    )")
    lines = split.splitlines()
    lines[comment_line - 1] += "  # jax-codemod: ignore[jax001]"
    path = project(tmp_path / "proj", 'jax-version = "0.12.0.1"\n', "\n".join(lines) + "\n")
    result = invoke("fix", "--no-cache", "--write", str(tmp_path / "proj"))
    assert result.exit_code == 0 and "1 suppressed" in result.stderr, result.stderr
    assert "lax.Precision.DEFAULT, lax.Precision.HIGH)" in path.read_text()


def test_a_suppression_comment_on_the_calls_first_line_covers_a_finding_on_its_last_line(tmp_path: Path) -> None:
    """The precision on the line that closes the call: the comment on its first line still covers it."""
    split = KERNEL.replace("jnp.dot(x_ref[...], y_ref[...], precision=",
                           "jnp.dot(  # jax-codemod: ignore[JAX001]\n        x_ref[...], y_ref[...], precision=")
    path = project(tmp_path / "proj", 'jax-version = "0.12.0.1"\n', split)
    result = invoke("fix", "--no-cache", "--write", str(tmp_path / "proj"))
    assert result.exit_code == 0 and "1 suppressed" in result.stderr, result.stderr
    assert path.read_text() == split


def test_a_suppression_comment_on_the_first_line_of_another_call_does_not_cover_this_one(tmp_path: Path) -> None:
    source = KERNEL.replace("    o_ref[...] = jnp.dot(", "    y = jnp.abs(  # jax-codemod: ignore\n        x_ref[...])\n"
                            "    o_ref[...] = jnp.dot(")
    path = project(tmp_path / "proj", 'jax-version = "0.12.0.1"\n', source)
    result = invoke("fix", "--no-cache", "--write", str(tmp_path / "proj"))
    assert "suppressed" not in result.stderr and HIGH in path.read_text(), result.stderr


# -- the engine's own promises, on stub rules --


def _stub_rule(check, code: str = "JAX002"):
    from codemods.engine.rule import Rule

    return Rule(code=code, name="stub-rule", summary="One line.", what="  What\n    indented\n", why="Why.",
                example="a -> b", words=(b"x",), kernel_scoped=False, check=check)


def test_rule_documentation_is_laid_out_as_ruff_rule_prints_it() -> None:
    assert _stub_rule(lambda rule, file: []).documentation() == (
        "JAX002 (stub-rule)\n\nOne line.\n\nWhat it does\n    What\n      indented\n\nWhy\n    Why.\n\n"
        "Example\n    a -> b\n")


def _finding_with_fix(file, replacement: str):
    from codemods.engine.diagnostics import Applicability, Finding, Fix, Kind
    from codemods.engine.fixes import Edit, FixPlan

    plan = FixPlan(edits=[Edit(0, 1, lambda old: replacement)])
    return [Finding("JAX002", Kind.FIXED, 1, 1, "stub", fix=Fix(Applicability.SAFE, plan=plan))]


def test_a_fix_that_breaks_the_syntax_is_an_error_and_changes_nothing() -> None:
    from codemods.engine.runner import process_source
    from codemods.settings import Settings

    broken = _stub_rule(lambda rule, file: _finding_with_fix(file, "def ("))
    result = process_source(Path("k.py"), b"x = 1\n", [broken], Settings())
    assert result.error is not None and "does not parse" in result.error
    assert (result.new_source, result.findings) == (None, []), "no half-done result"
    fine = process_source(Path("k.py"), b"x = 1\n", [_stub_rule(lambda rule, file: _finding_with_fix(file, "y"))],
                          Settings())
    assert (fine.error, fine.new_source) == (None, b"y = 1\n")


def test_a_rule_that_raises_is_an_internal_error_with_no_findings() -> None:
    from codemods.engine.runner import process_source
    from codemods.settings import Settings

    def crash(rule, file):
        raise KeyError("boom")

    result = process_source(Path("k.py"), b"x = 1\n", [_stub_rule(lambda rule, file: []), _stub_rule(crash, "JAX003")],
                            Settings())
    assert result.error == "internal error in JAX003: KeyError: 'boom'"
    assert (result.findings, result.new_source) == ([], None)


def test_libcst_that_cannot_parse_the_rewrite_is_a_verdict_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    import libcst

    from codemods.engine import runner

    assert runner._libcst_parses("x = 1\n")
    assert not runner._libcst_parses("def (:\n")

    def too_deep(code):
        raise RecursionError

    monkeypatch.setattr(libcst, "parse_module", too_deep)
    assert not runner._libcst_parses("x = 1\n")


def test_github_annotation_of_a_finding_on_the_first_line_keeps_its_position() -> None:
    from codemods.engine.diagnostics import Finding, Kind
    from codemods.engine.formats import render_github
    from codemods.engine.report import FileResult

    finding = Finding("JAX001", Kind.MANUAL, 1, 5, "m", end_line=1, end_column=9)
    line = render_github([FileResult("k.py", parsed=True, findings=[finding])])
    assert line == "::warning file=k.py,line=1,col=5,endLine=1,endColumn=9,title=JAX001 [manual]::m\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_ignored_files_are_left_out_when_the_folder_is_named_from_outside_it(tmp_path: Path) -> None:
    from codemods.engine.discovery import discover

    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / ".gitignore").write_text("generated.py\n")
    (repo / "generated.py").write_text("x = 1\n")
    (repo / "kernel.py").write_text("x = 1\n")
    assert discover([Path("repo")]) == [Path("repo/kernel.py")]  # the current folder is tmp_path
