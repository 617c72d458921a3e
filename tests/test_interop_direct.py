"""codemods/interop called directly, in the test's process: the settings both adapters share
(`_shared.project_choices`: the project's config, what the adapter is given, per-file-ignores; the
errors), the engine call (`_shared.rewrite`), the Bowler modifier on fissix trees, `query()`, and the
libcst commands (their options, the transform, skips and failures). tests/test_interop.py runs both
runners for real; this file checks each function's exact output.

Written for mutation testing (issue 35, item 3; docs/testing.md). Nothing here imports jax.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from codemods.engine.report import FileResult
from codemods.engine.runner import process_source
from codemods.interop import _shared
from codemods.interop._shared import InteropError, project_choices, rewrite
from codemods.registry import RULES
from codemods.rules.accuracy_hints import RULE as ACCURACY_HINTS
from codemods.rules.bf16_lstm import RULE as BF16_LSTM
from codemods.rules.per_operand_precision import RULE as PER_OPERAND_PRECISION
from codemods.settings import PrecisionPolicy, Scope, Settings
from tests.test_config_direct import _isolated  # noqa: F401 (autouse: no jax, no virtualenv, the test's folder)

SETTINGS = Settings(jax_version=(0, 12, 0, 1))

KERNEL = """\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
"""
CLEAN = KERNEL.replace("(lax.Precision.DEFAULT, lax.Precision.HIGHEST)", "lax.Precision.HIGHEST")
DEFAULT_CODES = [rule.code for rule in RULES if rule.default]


def project(root: Path, table: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(f"[tool.jax-codemod]\n{table}\n")
    return root


# The rules a `JAX00` selector names: the seed rules and those the walls of issue 53 added.
JAX00 = [rule.code for rule in RULES if rule.code.startswith("JAX00")]


def codes(rules) -> list[str]:
    return [rule.code for rule in rules]


# _shared.project_choices


def test_project_choices_reads_the_files_folders_config(tmp_path: Path):
    root = project(tmp_path / "p1", 'select = ["JAX0"]\nignore = ["JAX002"]\nscope = "all"\njax-version = "0.5.0"\n'
                                     'precision-policy = "highest"\nhelpers-module = "pkg.compat"\nunsafe-fixes = true')
    (root / "src").mkdir()
    (root / "src" / "m.py").write_text("")
    rules, settings = project_choices(str(root / "src" / "m.py"), RULES)
    assert codes(rules) == [code for code in JAX00 if code != "JAX002"]
    assert settings == Settings(jax_version=(0, 5, 0), scope=Scope.ALL, precision_policy=PrecisionPolicy.HIGHEST,
                                helpers_module="pkg.compat", unsafe_fixes=True)
    assert settings.jax_version_source == "[tool.jax-codemod]"
    # A folder is its own folder; a file that does not exist yet, its parent's.
    assert project_choices(str(root / "src"), RULES) == (rules, settings)
    assert project_choices(str(root / "src" / "new.py"), RULES) == (rules, settings)


def test_project_choices_given_wins_over_the_config(tmp_path: Path):
    root = project(tmp_path / "p2", 'select = ["JAX0"]\nscope = "all"\njax-version = "0.5.0"')
    rules, settings = project_choices(str(root / "m.py"), RULES, select=["JAX101"], jax_version="0.6.0",
                                      scope="kernels", precision_policy=None, helpers_module=None, unsafe_fixes=None)
    assert codes(rules) == ["JAX101"]
    assert settings == Settings(jax_version=(0, 6, 0), scope=Scope.KERNELS)
    assert settings.jax_version_source == "--jax-version"


def test_project_choices_an_empty_select_leaves_the_configs(tmp_path: Path):
    root = project(tmp_path / "p3", 'select = ["JAX00"]')
    rules, _ = project_choices(str(root / "m.py"), RULES, select=())
    assert codes(rules) == JAX00


def test_project_choices_a_folder_reads_its_own_config(tmp_path: Path):
    root = project(tmp_path / "p8", 'select = ["JAX003"]')
    assert codes(project_choices(str(root), RULES)[0]) == ["JAX003"]


def test_project_choices_the_adapters_own_rules_narrow_the_selection(tmp_path: Path):
    root = project(tmp_path / "p4", 'select = ["JAX0"]')
    rules, _ = project_choices(str(root / "m.py"), (BF16_LSTM,))
    assert codes(rules) == ["JAX003"]
    rules, _ = project_choices(str(root / "m.py"), (PER_OPERAND_PRECISION, ACCURACY_HINTS))
    assert codes(rules) == ["JAX001", "JAX002"]
    rules, _ = project_choices(str(root / "m.py"), tuple(reversed(RULES)))  # every rule: the config decides
    assert codes(rules) == JAX00


def test_project_choices_without_a_config(tmp_path: Path):
    (tmp_path / "plain").mkdir()
    rules, settings = project_choices(str(tmp_path / "plain" / "m.py"), RULES)
    assert codes(rules) == DEFAULT_CODES
    assert settings == Settings()


def test_project_choices_no_filename_is_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = project(tmp_path / "p5", 'select = ["JAX002"]')
    (root / "sub").mkdir()
    monkeypatch.chdir(root / "sub")
    assert codes(project_choices(None, RULES)[0]) == ["JAX002"]
    assert codes(project_choices("", RULES)[0]) == ["JAX002"]


def test_project_choices_applies_per_file_ignores(tmp_path: Path):
    root = project(tmp_path / "p6", 'select = ["JAX00"]\nper-file-ignores = { "tests/*" = ["JAX001", "bf16-lstm"] }')
    assert codes(project_choices(str(root / "tests" / "t.py"), RULES)[0]) == [
        code for code in JAX00 if code not in ("JAX001", "JAX003")]
    assert codes(project_choices(str(root / "src" / "t.py"), RULES)[0]) == JAX00


@pytest.mark.parametrize(("table", "given", "message"), [
    ('scope = "everywhere"', {}, "`tool.jax-codemod.scope` must be one of kernels, all, not 'everywhere'"),
    ("", {"select": ["JAX8"]}, "unknown rule code, prefix or name: 'JAX8'; did you mean JAX008 (debug-print-arguments)?"),
    ("", {"jax_version": "banana"}, "--jax-version: not a jax version: 'banana'"),
    ("", {"helpers_module": "a-b"}, "--helpers-module is not a dotted module name"),
])
def test_project_choices_errors_are_interop_errors(tmp_path: Path, table: str, given: dict, message: str):
    root = project(tmp_path / f"err{len(table)}{len(given) and list(given)[0]}", table)
    with pytest.raises(InteropError) as raised:
        project_choices(str(root / "m.py"), RULES, **given)
    text = str(raised.value)
    assert text.startswith("jax-codemod: ")
    assert message in text
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


def test_project_choices_config_error_names_the_file(tmp_path: Path):
    root = project(tmp_path / "p7", 'scope = "x"')
    with pytest.raises(InteropError) as raised:
        project_choices(str(root / "m.py"), RULES)
    assert str(raised.value) == (f"jax-codemod: {root / 'pyproject.toml'}: `tool.jax-codemod.scope` must be one of "
                                 "kernels, all, not 'x'")


# _shared.rewrite


def test_rewrite_is_the_engines_result():
    result = rewrite("src/k.py", KERNEL.encode(), RULES, SETTINGS)
    want = process_source(Path("src/k.py"), KERNEL.encode(), RULES, SETTINGS)
    assert result.path == want.path == "src/k.py"
    assert result.new_source == want.new_source is not None
    assert [f.render(result.path) for f in result.findings] == [f.render(want.path) for f in want.findings]


def test_rewrite_without_a_filename_is_stdin():
    assert rewrite(None, KERNEL.encode(), RULES, SETTINGS).path == "<stdin>"


def test_rewrite_returns_what_the_engine_cannot_read():
    result = rewrite("bad.py", (KERNEL + "def (:\n").encode(), RULES, SETTINGS)
    assert (result.parsed, result.error) == (False, "cannot parse: invalid syntax (line 12, column 5)")
    result = rewrite("bad.py", (KERNEL + "x = '\xe9'\n").encode("latin-1"), RULES, SETTINGS)
    assert result.parsed is False and result.error.startswith("cannot decode: ")


def test_rewrite_raises_on_an_internal_error(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(_shared, "process_source",
                        lambda path, raw, rules, settings, facts: FileResult(str(path), parsed=True, error="internal: boom"))
    with pytest.raises(InteropError) as raised:
        rewrite("k.py", b"", RULES, SETTINGS)
    assert str(raised.value) == "jax-codemod: k.py: internal: boom"
    monkeypatch.setattr(_shared, "process_source",
                        lambda path, raw, rules, settings, facts: FileResult(str(path), parsed=False, error="cannot parse"))
    assert rewrite("k.py", b"", RULES, SETTINGS).error == "cannot parse"


# Bowler


bowler = pytest.importorskip("codemods.interop.bowler_modifier", reason="Bowler is not installed")


def parse(text: str):
    from fissix import pytree
    from fissix.pgen2 import driver

    return driver.Driver(bowler.GRAMMAR, convert=pytree.convert).parse_string(text)


def test_the_grammar_is_bowlers():
    from fissix import pygram

    assert bowler.GRAMMAR is pygram.python_grammar_no_print_statement
    parse("print(1, end='')\n")


def test_stderr_writes_a_line(capsys: pytest.CaptureFixture):
    bowler._stderr("a: b")
    assert capsys.readouterr().err == "a: b\n"


@pytest.mark.parametrize(("text", "raw"), [
    ("x = 'é'\n", "x = 'é'\n".encode()),
    ("# -*- coding: latin-1 -*-\nx = 'é'\n", "# -*- coding: latin-1 -*-\nx = 'é'\n".encode("latin-1")),
    ("# coding: utf-8-sig\nx = 'é'\n", "# coding: utf-8-sig\nx = 'é'\n".encode()),
    ("# coding: no-such-codec\nx = 'e'\n", b"# coding: no-such-codec\nx = 'e'\n"),
    ("# coding: no-such-codec\nx = '\xe9'\n", "# coding: no-such-codec\nx = '\xe9'\n".encode()),
    ("\ufeffx = 'é'\n", "\ufeffx = 'é'\n".encode()),  # a BOM left in the text: one BOM, not two
    ("\ufeff# coding: utf-8\nx = 1\n", "\ufeff# coding: utf-8\nx = 1\n".encode()),
])
def test_source_bytes_in_the_declared_encoding(text: str, raw: bytes):
    assert bowler._source_bytes(text) == raw


def test_the_modifiers_defaults():
    modifier = bowler.JaxCodemodModifier()
    assert modifier.rules == RULES and isinstance(modifier.rules, tuple)
    assert modifier.settings is None and modifier.report is bowler._stderr
    assert isinstance(bowler.jax_codemod_modifier, bowler.JaxCodemodModifier)
    assert bowler.jax_codemod_modifier.rules == RULES and bowler.jax_codemod_modifier.settings is None
    assert bowler.JaxCodemodModifier([BF16_LSTM]).rules == (BF16_LSTM,)


def test_the_modifier_rewrites_the_root_in_place():
    reported: list[str] = []
    root = parse(KERNEL)
    bowler.JaxCodemodModifier(settings=SETTINGS, report=reported.append)(root, {}, "src/k.py")
    want = process_source(Path("src/k.py"), KERNEL.encode(), RULES, SETTINGS)
    assert str(root) == want.after != KERNEL
    assert root.parent is None
    assert reported == [f.render("src/k.py") for f in want.findings] and reported


def test_the_modifier_runs_only_its_rules():
    reported: list[str] = []
    root = parse(KERNEL)
    bowler.JaxCodemodModifier([BF16_LSTM], SETTINGS, reported.append)(root, {}, "k.py")
    assert str(root) == KERNEL and reported == []


def test_the_modifier_leaves_a_clean_file_alone():
    reported: list[str] = []
    root = parse(CLEAN)
    children = list(root.children)
    bowler.JaxCodemodModifier(settings=SETTINGS, report=reported.append)(root, {}, "clean.py")
    assert str(root) == CLEAN and list(root.children) == children and reported == []


def test_the_modifier_reports_what_the_engine_cannot_decode_and_leaves_it():
    reported: list[str] = []
    text = KERNEL + "x = `1`\n"  # lib2to3 reads Python 2's backticks, ast does not
    root = parse(text)
    bowler.JaxCodemodModifier(settings=SETTINGS, report=reported.append)(root, {}, "bad.py")
    assert str(root) == text
    assert reported == ["bad.py: skipped: cannot parse: invalid syntax (line 12, column 5)"]


def test_the_modifier_with_no_settings_reads_the_project(tmp_path: Path):
    root_folder = project(tmp_path / "bw", 'select = ["JAX002"]\njax-version = "0.12.0.1"')
    reported: list[str] = []
    root = parse(KERNEL)
    bowler.JaxCodemodModifier(report=reported.append)(root, {}, str(root_folder / "k.py"))
    assert str(root) == KERNEL and reported == []  # JAX001 not selected by the project
    project(tmp_path / "bw2", 'select = ["JAX001"]\njax-version = "0.12.0.1"')
    root = parse(KERNEL)
    bowler.JaxCodemodModifier(report=reported.append)(root, {}, str(tmp_path / "bw2" / "k.py"))
    assert str(root) != KERNEL and len(reported) == 1 and " JAX001 " in reported[0]


def test_the_modifier_with_settings_given_does_not_read_the_project(tmp_path: Path):
    project(tmp_path / "bw3", 'select = ["JAX002"]')
    root = parse(KERNEL)
    bowler.JaxCodemodModifier(settings=SETTINGS, report=lambda line: None)(root, {}, str(tmp_path / "bw3" / "k.py"))
    assert str(root) != KERNEL  # JAX001, which the project does not select, ran: the settings given decide


def test_the_modifier_refuses_a_node_below_the_root():
    root = parse(KERNEL)
    node = root.children[0]
    with pytest.raises(ValueError) as raised:
        bowler.JaxCodemodModifier(settings=SETTINGS)(node, {}, "k.py")
    assert str(raised.value) == "jax_codemod_modifier rewrites whole modules: use it after Query(...).select_root()"
    leaf = parse("x\n")
    from fissix import pytree
    detached = pytree.Node(bowler.GRAMMAR.symbol2number["simple_stmt"], [pytree.Leaf(1, "x")])
    with pytest.raises(ValueError):
        bowler.JaxCodemodModifier(settings=SETTINGS)(detached, {}, "k.py")
    assert str(leaf) == "x\n"


def test_query_builds_the_root_query():
    reported = []
    q = bowler.query("src", rules=[BF16_LSTM], settings=SETTINGS, report=reported.append)
    assert q.paths == ["src"]
    assert len(q.transforms) == 1 and q.transforms[0].selector == "root"
    modifier = q.transforms[0].callbacks[0]
    assert isinstance(modifier, bowler.JaxCodemodModifier)
    assert (modifier.rules, modifier.settings, modifier.report) == ((BF16_LSTM,), SETTINGS, reported.append)
    assert bowler.query(Path("a")).paths == ["a"]
    assert bowler.query(["a", Path("b")]).paths == ["a", "b"]
    default = bowler.query("x").transforms[0].callbacks[0]
    assert (default.rules, default.settings, default.report) == (RULES, None, bowler._stderr)


# libcst commands


libcst_commands = pytest.importorskip("codemods.interop.libcst_commands")


def parser() -> argparse.ArgumentParser:
    parsed = argparse.ArgumentParser()
    libcst_commands.JaxCodemodCommand.add_args(parsed)
    return parsed


def test_the_options_default_to_none():
    assert vars(parser().parse_args([])) == dict(jax_version=None, scope=None, precision_policy=None,
                                                 helpers_module=None, unsafe_fixes=None)


def test_the_options_given():
    assert vars(parser().parse_args(["--jax-version", "0.5", "--scope", "all", "--precision-policy", "highest",
                                     "--helpers-module", "p.m", "--unsafe-fixes"])) == dict(
        jax_version="0.5", scope="all", precision_policy="highest", helpers_module="p.m", unsafe_fixes=True)


@pytest.mark.parametrize("args", [["--scope", "some"], ["--precision-policy", "low"]])
def test_the_options_choices(args: list[str], capsys: pytest.CaptureFixture):
    with pytest.raises(SystemExit):
        parser().parse_args(args)
    assert "invalid choice" in capsys.readouterr().err


def test_the_options_help():
    actions = {action.dest: action for action in parser()._actions}
    assert (actions["jax_version"].metavar, actions["helpers_module"].metavar) == ("X.Y.Z", "PKG.MOD")
    assert actions["scope"].choices == ["kernels", "all"]
    assert actions["precision_policy"].choices == ["nearest", "highest"]
    assert actions["jax_version"].help == \
        "Target jax release (default: found as jax-codemod fix finds it; conservative if none)."
    assert actions["scope"].help == "kernels (default): only inside Pallas kernel bodies; all: everywhere."
    assert actions["precision_policy"].help == \
        "nearest (default): least accurate accepted scalar that loses no accuracy; highest: always HIGHEST."
    assert actions["helpers_module"].help == ("Import the helpers JAX002/JAX003 call (rsqrt_safe, lstm_float32) "
                                              "from this module instead of inlining them.")
    assert actions["unsafe_fixes"].help == "Also apply fixes that change numerics or need judgement."


def test_the_commands_rules_and_descriptions():
    m = libcst_commands
    assert m.JaxCodemodCommand.RULES == ()
    assert m.PerOperandPrecision.RULES == (PER_OPERAND_PRECISION,)
    assert m.AccuracyHints.RULES == (ACCURACY_HINTS,)
    assert m.Bf16Lstm.RULES == (BF16_LSTM,)
    assert m.JaxCodemod.RULES == RULES
    assert m.Bf16Lstm.DESCRIPTION == f"JAX003 (bf16-lstm): {BF16_LSTM.summary}"
    assert m.JaxCodemod.DESCRIPTION == "All jax-codemod transforms. " + " ".join(
        f"{rule.code} ({rule.name}): {rule.summary}" for rule in RULES)
    assert m._describe([PER_OPERAND_PRECISION, ACCURACY_HINTS]) == (
        f"JAX001 (per-operand-precision): {PER_OPERAND_PRECISION.summary} "
        f"JAX002 (accuracy-hints): {ACCURACY_HINTS.summary}")
    assert m._describe([]) == ""


def command(cls=None, filename="k.py", **given):
    from libcst.codemod import CodemodContext

    return (cls or libcst_commands.JaxCodemod)(CodemodContext(filename=filename), **given)


def test_the_command_keeps_what_it_is_given():
    made = command(jax_version="0.12.0.1", scope="all", precision_policy="highest", helpers_module="p.m",
                   unsafe_fixes=True)
    assert made.given == dict(jax_version="0.12.0.1", scope="all", precision_policy="highest", helpers_module="p.m",
                              unsafe_fixes=True)
    assert command().given == dict(jax_version=None, scope=None, precision_policy=None, helpers_module=None,
                                   unsafe_fixes=None)


def test_a_bad_option_fails_the_command_up_front():
    with pytest.raises(InteropError) as raised:
        command(jax_version="banana")
    assert str(raised.value) == "jax-codemod: --jax-version: not a jax version: 'banana'"


def test_the_command_transforms_a_module():
    import libcst

    made = command(jax_version="0.12.0.1")
    tree = libcst.parse_module(KERNEL)
    new = made.transform_module_impl(tree)
    want = process_source(Path("k.py"), KERNEL.encode(), RULES, SETTINGS)
    assert new.code == want.after != KERNEL
    assert made.context.warnings == [f.render("k.py") for f in want.findings] and made.context.warnings


def test_the_command_passes_its_options_on_for_each_file():
    import libcst

    tree = libcst.parse_module("import jax\ny = jax.tree_map(str, [1])\n")
    new = command(jax_version="0.12.0.1").transform_module_impl(tree)
    assert new.code == "import jax\ny = jax.tree.map(str, [1])\n"
    assert command().transform_module_impl(tree) is tree  # no target: the JAX1xx rules do not run


def test_the_command_keeps_the_modules_config():
    import libcst

    text = KERNEL.replace("\n", "\r\n")
    tree = libcst.parse_module(text)
    new = command(jax_version="0.12.0.1").transform_module_impl(tree)
    assert new.default_newline == "\r\n" and new.code.count("\r\n") == text.count("\r\n")
    assert new.code != text


def test_the_command_returns_a_clean_module_itself():
    import libcst

    tree = libcst.parse_module(CLEAN)
    made = command(jax_version="0.12.0.1")
    assert made.transform_module_impl(tree) is tree
    assert made.context.warnings == []


def test_the_command_runs_only_its_rules():
    import libcst

    tree = libcst.parse_module(KERNEL)
    made = command(libcst_commands.Bf16Lstm, jax_version="0.12.0.1")
    assert made.transform_module_impl(tree) is tree


def test_the_command_skips_what_the_engine_cannot_read(monkeypatch: pytest.MonkeyPatch):
    import libcst
    from libcst.codemod import SkipFile

    tree = libcst.parse_module(KERNEL)
    made = command(jax_version="0.12.0.1")
    monkeypatch.setattr(_shared, "process_source", lambda path, raw, rules, settings, facts: FileResult(
        str(path), parsed=False, error="cannot parse: x", findings=process_source(path, raw, rules, settings).findings))
    with pytest.raises(SkipFile) as raised:
        made.transform_module_impl(tree)
    assert str(raised.value) == "jax-codemod: cannot parse: x"
    assert len(made.context.warnings) == 1  # the findings are reported first


def test_the_command_reads_the_files_project(tmp_path: Path):
    import libcst

    project(tmp_path / "lc", 'select = ["JAX002"]\njax-version = "0.12.0.1"')
    made = command(filename=str(tmp_path / "lc" / "k.py"))
    tree = libcst.parse_module(KERNEL)
    assert made.transform_module_impl(tree) is tree
    assert made.context.warnings == []
    project(tmp_path / "lc2", 'select = ["JAX001"]\njax-version = "0.12.0.1"')
    made = command(filename=str(tmp_path / "lc2" / "k.py"))
    assert made.transform_module_impl(tree).code != KERNEL
    assert len(made.context.warnings) == 1
