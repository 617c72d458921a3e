"""A finding carries its fix: on every golden, each fix applies alone and leaves code that parses,
the fixes applied one by one (the tool run again after each, as Ruff iterates) reach exactly the
golden's output, and applying every safe fix one by one gives exactly what `--write` writes.

No jax here: tests/test_*_jax.py lower and run what the goldens hold.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from codemods.engine.diagnostics import Applicability, Finding, Kind, apply_text_edits
from codemods.engine.fixes import FixPlan, finish_imports
from codemods.engine.report import FileResult
from codemods.engine.runner import process_source
from codemods.registry import select
from codemods.settings import Settings
from tests.test_fixtures import CASES, _id, case_rules, case_settings


def run(case: Path, text: str, settings: Settings) -> FileResult:
    result = process_source(Path(case.name), text.encode(), case_rules(case, text), settings)
    assert result.error is None, result.error
    return result


def one_by_one(case: Path, text: str, settings: Settings, wanted) -> str:
    """Apply the first wanted fix alone, run the tool on the result, and again, until none is left."""
    for _ in range(100):
        result = run(case, text, settings)
        fixes = [f for f in result.findings if f.fix is not None and wanted(f)]
        if not fixes:
            return text
        assert fixes[0].fix.edits, f"{fixes[0].render(case.name)}: a fix with no edit"
        text = apply_text_edits(text, fixes[0].fix.edits)
    raise AssertionError("the fixes never settle")


def golden_output(case: Path) -> str:
    return case.with_name(case.name.replace(".in.py", ".out.py")).read_text()


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_each_fix_applies_alone_and_leaves_code_that_parses(case: Path) -> None:
    text = case.read_text()
    result = run(case, text, case_settings(text))
    for finding in result.findings:
        assert (finding.fix is not None) == (finding.kind in (Kind.FIXED, Kind.DROPPED)), finding
        if finding.fix is None:
            continue
        alone = apply_text_edits(text, finding.fix.edits)
        assert alone != text, finding.render(case.name)
        ast.parse(alone)  # raises on code that does not parse
        starts = sorted(finding.fix.edits, key=lambda edit: edit.start)
        assert all(a.end <= b.start for a, b in zip(starts, starts[1:])), "a fix's edits are disjoint"


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_fixes_applied_one_by_one_give_the_golden_output(case: Path) -> None:
    text = case.read_text()
    assert one_by_one(case, text, case_settings(text), lambda finding: True) == golden_output(case)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_every_safe_fix_applied_gives_what_write_writes(case: Path) -> None:
    text = case.read_text()
    safe_only = dataclasses.replace(case_settings(text), unsafe_fixes=False)
    result = run(case, text, safe_only)
    written = result.after if result.new_source is not None else text
    is_safe = lambda finding: finding.fix.applicability is Applicability.SAFE  # noqa: E731
    assert one_by_one(case, text, safe_only, is_safe) == written
    for finding in result.findings:
        if finding.fix is not None:
            assert finding.fix.applied == is_safe(finding), finding.render(case.name)
    if not any(f.fix and not is_safe(f) for f in run(case, text, case_settings(text)).findings):
        assert written == golden_output(case), "with no unsafe fix, --write gives the golden"


@pytest.mark.parametrize("unsafe", [True, False], ids=["unsafe-fixes", "safe-only"])
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_one_write_is_enough(case: Path, unsafe: bool) -> None:
    """`--write` (with or without --unsafe-fixes) then `--write` again changes nothing: every rule saw
    the call as the others left it (a pair inside a removed `pl.dot` is fixed with JAX150's rewrite)."""
    text = case.read_text()
    settings = dataclasses.replace(case_settings(text), unsafe_fixes=unsafe)
    first = run(case, text, settings)
    written = first.after if first.new_source is not None else text
    again = run(case, written, settings)
    assert again.new_source is None, f"a second --write changes the file:\n{again.after}"


def test_the_goldens_hold_both_applicabilities() -> None:
    """The checks above see safe and unsafe fixes alike (else they would prove less than they say)."""
    seen = set()
    for case in CASES:
        text = case.read_text()
        seen |= {f.fix.applicability for f in run(case, text, case_settings(text)).findings if f.fix}
    assert seen == set(Applicability)


MIXED = '''\
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental import rnn

LSTM = functools.partial(rnn.lstm, precision=lax.Precision.DEFAULT)


def kernel(x_ref, y_ref, o_ref):
    x = lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)
    o_ref[...] = jnp.dot(x, y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST)) * lax.rsqrt(
        x, accuracy=lax.AccuracyMode.HIGHEST)


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
'''


def mixed(settings: Settings) -> FileResult:
    result = process_source(Path("mixed.py"), MIXED.encode(), select(), settings)
    assert result.error is None, result.error
    return result


def test_findings_come_in_position_order_whatever_the_rule() -> None:
    findings = mixed(Settings((0, 12, 0, 1))).findings
    assert [(f.line, f.code) for f in findings] == [(9, "JAX003"), (13, "JAX002"), (14, "JAX001"), (14, "JAX002")]
    assert findings == sorted(findings, key=Finding.sort_key)


def test_an_unsafe_fix_is_shown_not_applied_without_unsafe_fixes() -> None:
    safe = mixed(Settings((0, 12, 0, 1)))
    (exp,) = [f for f in safe.findings if "lax.exp" in f.message]
    assert exp.fix.applicability is Applicability.UNSAFE and not exp.fix.applied
    assert "lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)" in safe.after, "left as it was"
    assert "rsqrt_safe(\n        x)" in safe.after and "precision=lax.Precision.HIGHEST)" in safe.after
    assert "[dropped, unsafe fix: --unsafe-fixes]" in exp.render("mixed.py")
    assert "lax.exp(x_ref[...], accuracy" not in apply_text_edits(MIXED, exp.fix.edits), "its edits are still there"
    unsafe = mixed(Settings((0, 12, 0, 1), unsafe_fixes=True))
    assert "lax.exp(x_ref[...])" in unsafe.after
    assert all(f.fix.applied for f in unsafe.findings if f.fix)
    assert "[dropped, unsafe]" in [f for f in unsafe.findings if "lax.exp" in f.message][0].render("mixed.py")


def test_a_helper_two_fixes_need_is_inserted_once_and_each_fix_alone_has_it() -> None:
    source = MIXED.replace("* lax.rsqrt(\n        x,", "* lax.rsqrt(x, accuracy=lax.AccuracyMode.HIGHEST) * lax.rsqrt(\n        x,")
    result = process_source(Path("two.py"), source.encode(), select(["JAX002"]), Settings((0, 12, 0, 1)))
    rsqrts = [f for f in result.findings if "rsqrt" in f.message]
    assert len(rsqrts) == 2 and result.after.count("def rsqrt_safe(") == 1
    for finding in rsqrts:
        assert apply_text_edits(source, finding.fix.edits).count("def rsqrt_safe(") == 1


def test_fixes_of_several_rules_applied_together_equal_them_applied_one_by_one() -> None:
    """Two helpers (rsqrt_safe for JAX002, lstm_float32 for JAX003) in one file: the merged plan
    lays them out as applying the fixes one after another does."""
    settings = Settings((0, 12, 0, 1), unsafe_fixes=True)
    together = mixed(settings).after
    assert "def rsqrt_safe(" in together and "def lstm_float32(" in together
    text = MIXED
    for _ in range(10):
        fixes = [f for f in process_source(Path("mixed.py"), text.encode(), select(), settings).findings if f.fix]
        if not fixes:
            break
        text = apply_text_edits(text, fixes[0].fix.edits)
    assert text == together


def test_a_fix_alone_changes_only_what_it_is_about() -> None:
    (dot,) = [f for f in mixed(Settings((0, 12, 0, 1))).findings if f.code == "JAX001"]
    alone = apply_text_edits(MIXED, dot.fix.edits)
    assert "precision=lax.Precision.HIGHEST)" in alone
    assert alone.count("accuracy=lax.AccuracyMode.HIGHEST") == 2 and "lstm_float32" not in alone


# -- imports added or removed by libcst: every other line kept byte for byte --

FORM_FEEDS = ("import os\n\nclass A:\n\f    def f(self):\n        pass\n\f\n  \f  \n\fdef g():\n\f    return os\n"
              "    \f    # c\n\f    x = (1,\n\f  2)\n  \f    y = x\n")


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_an_added_import_leaves_form_feeds_and_line_ends_where_they_were(newline: str) -> None:
    """libcst keeps a form feed that leads a statement in its indentation, and prints it back
    elsewhere (dropped, on every line of the block, or as the module's indentation, which it then
    refuses); a CR-only file lost its last line end."""
    text = FORM_FEEDS.replace("\n", newline)
    compile(text, "form_feeds.py", "exec")
    added = finish_imports(text, FixPlan(imports_to_add=[("jax", "lax", None)]), "form_feeds.py")
    assert added == text.replace("import os" + newline, f"import os{newline}from jax import lax{newline}", 1)


def test_a_rewritten_import_keeps_the_form_feed_that_leads_it() -> None:
    text = "\fimport os, sys\nx = sys\n\n\fdef f():\n  \f  import os, re\n  \f  return re\n"
    removed = finish_imports(text, FixPlan(maybe_unused_imports={("os", None, None): "os"}), "t.py")
    assert removed == "\fimport sys\nx = sys\n\n\fdef f():\n  \f  import re\n  \f  return re\n"


@pytest.mark.parametrize("indent", ["  \f  ", "\f \f  "], ids=["one form feed", "two form feeds"])
def test_a_helper_is_indented_as_python_reads_the_module_not_with_its_form_feeds(indent: str) -> None:
    source = ("import jax\nfrom jax.experimental import pallas as pl\n\n\n\fdef kernel(x_ref, o_ref):\n"
              f"{indent}o_ref[...] = jax.lax.rsqrt(x_ref[...], accuracy=jax.lax.AccuracyMode.HIGHEST)\n\n\n"
              "run = pl.pallas_call(kernel, out_shape=None)\n")
    result = process_source(Path("k.py"), source.encode(), select(["JAX002"]), Settings((0, 12, 0, 1)))
    assert result.error is None, result.error
    assert result.after.count("\f") == source.count("\f") and "\n  y = lax.rsqrt(x)\n" in result.after, result.after


def test_a_removed_argument_keeps_the_comment_of_the_one_before() -> None:
    """Dropping `accuracy=` from a call whose closing parenthesis sits on its line keeps the comment
    the argument before it ends with (the rest of that line), and the result still parses."""
    source = ("import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n\n\n"
              "def kernel(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...],  # the input\n"
              "                         accuracy=lax.AccuracyMode.HIGHEST)\n\n\n"
              "run = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))\n")
    result = process_source(Path("case.py"), source.encode(), select(["JAX002"]),
                            Settings((0, 12, 0, 1), unsafe_fixes=True))
    assert "accuracy=" not in result.after and "lax.exp(x_ref[...]  # the input\n" in result.after
    ast.parse(result.after)


def test_a_rewritten_import_on_the_last_line_of_a_module_with_form_feeds() -> None:
    """The lines both ends share are copied back without a diff; the last line, rewritten, is not one."""
    text = "\fimport sys\nx = sys\n\fimport os, re\n"
    removed = finish_imports(text, FixPlan(maybe_unused_imports={("os", None, None): "os"}), "t.py")
    assert removed == "\fimport sys\nx = sys\n\fimport re\n"
