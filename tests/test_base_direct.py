"""codemods/base.py (FileAnalysis, JaxTransform) called in the test's process (issue 35, item 3:
mutation testing).

A stub transform calls the planning and reporting methods on a small module and the plan is
rendered (`fixes.render`); the kernel-scope questions (`rejecting_backends`, `proven`,
`unresolved_launch`, `shared_with_xla` and its message) are asked through JAX002, the rule that
asks them all, and through the stub. Each test checks exact values. Nothing here imports jax.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from codemods import registry
from codemods.analysis.kernel_scope import MAYBE, ModuleFacts
from codemods.analysis.module import ModuleIndex
from codemods.analysis.module_helpers import reference_helper
from codemods.base import FileAnalysis, JaxTransform, _lines, _places
from codemods.engine.diagnostics import Applicability, Finding, Kind
from codemods.engine.fixes import FixPlan, render
from codemods.engine.rule import ParsedFile, Rule
from codemods.engine.runner import process_source
from codemods.settings import Scope, Settings

TARGET = Settings((0, 12, 0, 1), helpers_module="h", unsafe_fixes=True)
ALL = Settings((0, 12, 0, 1), Scope.ALL, helpers_module="h", unsafe_fixes=True)
H = ("import functools\nimport jax\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n"
     "from jax.experimental.pallas import tpu as pltpu\nfrom jax.experimental.pallas import mosaic_gpu as plgpu\n")
HI = "accuracy=lax.AccuracyMode.HIGHEST"
TPU = frozenset({"mosaic_tpu"})
GPU = frozenset({"mosaic_gpu"})
BOTH = GPU | TPU
LAUNCH = "def run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n"


class _Stub(JaxTransform):
    def plan(self) -> None:
        pass

    def matches(self, call: ast.Call) -> bool:
        return isinstance(call.func, ast.Name) and call.func.id == "target"


RULE = Rule(code="JAX999", name="stub", summary="s", what="w", why="y", example="e", words=(b"x",),
            kernel_scoped=False, check=_Stub.check)


def _file(source: str, settings: Settings = TARGET, proven: dict | None = None) -> ParsedFile:
    return ParsedFile(Path("m.py"), ModuleIndex.parse(source), settings, proven or {})


def _calls(file: ParsedFile) -> list[ast.Call]:
    return sorted(file.module.calls, key=lambda c: (c.lineno, c.col_offset))


def _jax002(source: str, settings: Settings = TARGET, proven: dict | None = None, facts: ModuleFacts | None = None):
    extra = {} if facts is None else {"facts": facts}
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX002"]), settings, proven, **extra)
    assert result.error is None, result.error
    return (result.after or None,  # "": nothing changed
            [(f.line, f.column, f.end_line, f.end_column, f.kind.value, f.message,
              f.fix.applicability.value if f.fix else None) for f in result.findings])


# -- FileAnalysis --


def test_the_analysis_is_made_once_a_file_and_shared() -> None:
    file = _file("x = 1\n", Settings((0, 12, 0, 1), helpers_module="pkg.h"), {"JAX002": frozenset({3})})
    first = FileAnalysis.of(file)
    assert FileAnalysis.of(file) is first and file.shared == {"FileAnalysis": first}
    assert (first.module, first.settings, first.proven) == (file.module, file.settings, {"JAX002": frozenset({3})})
    a, b = _Stub(RULE, file), _Stub(RULE, file)
    assert a.analysis is b.analysis is first and (a.module, a.settings, a.rule) == (file.module, file.settings, RULE)
    assert first.helpers.helpers_module == "pkg.h"
    assert first.kernels is first.kernels  # computed once


# -- check, matches_call --


def test_check_plans_and_returns_the_findings() -> None:
    class Reporting(_Stub):
        def plan(self) -> None:
            for call in _calls_of(self):
                self.report(call, Kind.WARNING, "w")

    def _calls_of(t):
        return sorted(t.module.calls, key=lambda c: c.lineno)

    found = Reporting.check(RULE, _file("f(1)\ng(\n  2)\n"))
    assert found == [Finding("JAX999", Kind.WARNING, 1, 1, "w", 1, 5), Finding("JAX999", Kind.WARNING, 2, 1, "w", 3, 5)]


def test_matches_call_follows_a_name_bound_to_a_call_it_matches() -> None:
    file = _file("a = target(1)\nb = other(1)\nc = 3\na(x)\nb(x)\nc(x)\ntarget(x)\nq.a(x)\n")
    assert [(c.lineno, _Stub.matches_call(RULE, file, c)) for c in _calls(file)] == [
        (1, True), (2, False), (4, True), (5, False), (6, False), (7, True), (8, False)]
    assert JaxTransform.matches(_Stub(RULE, file), _calls(file)[0]) is False


def test_matches_call_makes_the_transform_with_its_rule() -> None:
    class Proven(_Stub):
        def matches(self, call: ast.Call) -> bool:
            return self.proven(call)  # the lines proven for this rule's code

    file = _file("a = f(1)\nb = f(2)\n", proven={"JAX999": frozenset({2}), "JAX001": frozenset({1})})
    assert [Proven.matches_call(RULE, file, c) for c in _calls(file)] == [False, True]


# -- planning fixes --


def test_replace_and_rewrite_edit_the_nodes_span() -> None:
    source = "y = f(a, b)  # c\nz = (g)(1)\n"
    file = _file(source)
    stub = _Stub(RULE, file)
    fix = FixPlan()
    f_call, g_call = _calls(file)
    stub.replace(fix, f_call.args[1], "bb")
    stub.rewrite(fix, g_call, lambda code: f"[{code}]")
    assert [(e.start, e.end) for e in fix.edits] == [(9, 10), (21, 27)]
    assert render(source, fix, "m.py") == "y = f(a, bb)  # c\nz = [(g)(1)]\n"


def test_use_helper_imports_it_from_the_helpers_module() -> None:
    stub = _Stub(RULE, _file("x = 1\n"))
    fix = FixPlan()
    assert stub.use_helper(fix, reference_helper("rsqrt_safe")) == "rsqrt_safe"
    assert render("x = 1\n", fix, "m.py") == "from h import rsqrt_safe\n\nx = 1\n"


@pytest.mark.parametrize(("source", "unused"), [
    ("import os\nfrom a import b as c, d\nx = f(os.sep, c, d, e)\n", {"import os": "os", "from a import b as c": "c",
                                                                      "from a import d": "d"}),
    # a relative import anywhere in the expression: nothing let go (its module depends on the package)
    ("import os\nfrom . import c\nx = f(os.sep, c)\n", {}),
    # a parameter and a name bound by assignment have no import statement
    ("import os\ndef g(p):\n    q = 1\n    return f(os, p, q)\n", {"import os": "os"}),
])
def test_forget_imports_lists_the_imports_the_expression_used(source: str, unused: dict) -> None:
    file = _file(source)
    stub = _Stub(RULE, file)
    fix = FixPlan()
    call = next(c for c in _calls(file) if isinstance(c.func, ast.Name) and c.func.id == "f")
    stub.forget_imports(fix, call)
    assert {_spell(spec): name for spec, name in fix.maybe_unused_imports.items()} == unused


def _spell(spec) -> str:
    module, name, alias = spec
    if name is None:
        return f"import {module}" + (f" as {alias}" if alias else "")
    return f"from {module} import {name}" + (f" as {alias}" if alias else "")


# -- findings --


def test_report_places_the_finding_on_the_node_with_its_fix() -> None:
    file = _file("import os\ny = f(a,\n      b)\n")
    stub = _Stub(RULE, file)
    (call,) = _calls(file)
    fix = FixPlan()
    stub.report(call, Kind.MANUAL, "m")
    stub.report(call.args[1], Kind.FIXED, "f", fix)
    stub.report(call, Kind.DROPPED, "d", fix, Applicability.UNSAFE)
    assert [(f.code, f.kind, f.line, f.column, f.message, f.end_line, f.end_column) for f in stub.findings] == [
        ("JAX999", Kind.MANUAL, 2, 5, "m", 3, 9), ("JAX999", Kind.FIXED, 3, 7, "f", 3, 8),
        ("JAX999", Kind.DROPPED, 2, 5, "d", 3, 9)]
    assert stub.findings[0].fix is None
    assert (stub.findings[1].fix.applicability, stub.findings[1].fix.plan) == (Applicability.SAFE, fix)
    assert (stub.findings[2].fix.applicability, stub.findings[2].fix.plan) == (Applicability.UNSAFE, fix)


def test_lines_and_places() -> None:
    module = ModuleIndex.parse("a\nb\nc\nd\n")
    nodes = [statement.value for statement in module.tree.body]
    assert _lines(module, [nodes[2]]) == "line 3"
    assert _lines(module, [nodes[3], nodes[0], nodes[3]]) == "lines 1, 4"
    assert _places(module, [nodes[1]], False) == "line 2"
    assert _places(module, [nodes[1], nodes[0]], True) == "lines 1, 2 and other modules"
    assert _places(module, [], True) == "other modules"
    assert _places(module, [], False) == ""


# -- where a call runs --


def test_target_kernel_and_rejecting_backends() -> None:
    source = H + f"def k(x_ref, o_ref):\n    o_ref[...] = g(x_ref[...])\n" + LAUNCH + "y = g(1)\n"
    for settings, answers in [(TARGET, [TPU, frozenset(), frozenset()]), (ALL, [BOTH, GPU, BOTH])]:
        file = _file(source, settings)
        stub = _Stub(RULE, file)
        inside, plain = [c for c in _calls(file) if isinstance(c.func, ast.Name) and c.func.id == "g"]
        assert stub.target_kernel(inside) is file.module.tree.body[6]
        assert stub.target_kernel(plain) is None
        assert [stub.rejecting_backends(inside, BOTH), stub.rejecting_backends(inside, GPU),
                stub.rejecting_backends(plain, BOTH)] == answers


@pytest.mark.parametrize(("lines", "proven"), [
    ({}, [False, False, False]),
    ({"JAX999": frozenset({7})}, [True, False, False]),
    # a line of a partial's use proves the partial
    ({"JAX999": frozenset({9})}, [True, False, False]),
    ({"JAX999": frozenset({10})}, [False, True, False]),
    # a call over lines 11 and 12: its last line proves it
    ({"JAX999": frozenset({12})}, [False, False, True]),
    ({"JAX999": frozenset({13})}, [False, False, False]),
    ({"JAX001": frozenset({7, 9, 10, 11})}, [False, False, False]),
])
def test_proven_lines_prove_the_call_or_a_use_of_the_name_bound_to_it(lines: dict, proven: list) -> None:
    source = H + "e = functools.partial(lax.exp, x)\ny = 1\nz = e(2.0)\nw = h(3)\nv = h(\n  4)\n"
    file = _file(source, proven=lines)
    stub = _Stub(RULE, file)
    partial, h3, h4 = [c for c in _calls(file) if c.lineno in (7, 10, 11)]
    assert [stub.proven(partial), stub.proven(h3), stub.proven(h4)] == proven
    assert stub.rejecting_backends(h3, BOTH) == (BOTH if proven[1] else frozenset())


UNRESOLVED = (H + "import sys\ndef _a_kernel(x_ref, o_ref):\n    def inner(v):\n        return lax.exp(v, {hi})\n"
              "    o_ref[...] = inner(x_ref[...])\ndef _b(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], {hi})\n"
              "def run(name, x):\n    body = getattr(sys.modules[__name__], name)\n"
              "    return pl.pallas_call(body, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n"
              "def k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], {hi})\n" + LAUNCH.replace("run", "run2"))


def _may(line: int, name: str) -> str:
    return (f"lax.exp: accuracy=lax.AccuracyMode.HIGHEST may run in a kernel: the launch on line {line} runs a body "
            f"this analysis cannot resolve (`getattr(...)`), and `{name}` may be it; if it does, its Mosaic lowering "
            'raises "Not implemented: accuracy"')


def test_a_call_in_a_function_an_unresolved_launch_may_run() -> None:
    source = UNRESOLVED.format(hi=HI)
    assert _jax002(source) == (
        H + UNRESOLVED.format(hi=HI)[len(H):].replace(f"lax.exp(x_ref[...], {HI})\n" + LAUNCH.replace("run", "run2"),
                                                      "lax.exp(x_ref[...])\n" + LAUNCH.replace("run", "run2")),
        [(10, 16, 10, 61, "manual", _may(16, "inner"), None), (13, 18, 13, 72, "manual", _may(16, "_b"), None),
         (18, 36, 18, 71, "dropped", "lax.exp: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic TPU "
          "kernels); lax.exp now runs at the backend's default accuracy", "unsafe")])


def test_unresolved_launch_answers_none_in_a_kernel_under_scope_all_or_for_other_backends() -> None:
    # `_c` may be the unresolved launch's body too; `k2` within it is a kernel of its own launch
    source = UNRESOLVED.format(hi="accuracy=None") + (
        "def _c(x_ref, o_ref):\n    def k2(a_ref, b_ref):\n        b_ref[...] = lax.exp(a_ref[...])\n"
        "    return pl.pallas_call(k2, out_shape=x_ref, compiler_params=pltpu.CompilerParams())(x_ref)\ny = f(1)\n")
    file = _file(source)
    stub = _Stub(RULE, file)
    exps = [c for c in _calls(file) if isinstance(c.func, ast.Attribute) and c.func.attr == "exp"]
    assert [c.lineno for c in exps] == [10, 13, 18, 23]
    assert [stub.unresolved_launch(c, TPU) for c in exps] == [
        _may(16, "inner")[len("lax.exp: accuracy=lax.AccuracyMode.HIGHEST "):-len('; if it does, its Mosaic lowering '
                                                                            'raises "Not implemented: accuracy"')],
        _may(16, "_b")[len("lax.exp: accuracy=lax.AccuracyMode.HIGHEST "):-len('; if it does, its Mosaic lowering '
                                                                         'raises "Not implemented: accuracy"')],
        None, None]
    assert [stub.unresolved_launch(c, GPU) for c in exps] == [None, None, None, None]
    assert stub.unresolved_launch(_calls(file)[-1], TPU) is None  # module level: in no function
    all_file = _file(source, ALL)
    all_stub = _Stub(RULE, all_file)
    assert [all_stub.unresolved_launch(c, TPU) for c in _calls(all_file)
            if isinstance(c.func, ast.Attribute) and c.func.attr == "exp"] == [None, None, None, None]


# -- shared with XLA --


def _shared(name: str, where: str) -> str:
    return (f"`{name}` runs in kernels and in plain XLA code, and {where}: rewriting it would change the XLA path "
            "too; not rewritten (give the kernel its own copy)")


@pytest.mark.parametrize(("body", "findings"), [
    # a helper kernels and plain code call: one finding for its two calls, at the first
    (f"def f(x):\n    a = lax.exp(x, {HI})\n    return lax.tanh(a, {HI})\ndef k(x_ref, o_ref):\n"
     "    o_ref[...] = f(x_ref[...])\ndef ref(x):\n    return f(x)\n" + LAUNCH,
     [(8, 9, 8, 54, "manual", _shared("f", "needs a rewrite for its kernel callers (lines 8, 9)"), None)]),
    (f"f = lambda x: lax.exp(x, {HI})\ndef k(x_ref, o_ref):\n    o_ref[...] = f(x_ref[...])\ndef ref(x):\n"
     "    return f(x)\n" + LAUNCH,
     [(7, 15, 7, 60, "manual", _shared("f", "needs a rewrite for its kernel callers (line 7)"), None)]),
    # a value: where kernels and plain code use it
    (f"e = functools.partial(lax.exp, {HI})\ny = e(2.0)\nz = e(3.0)\ndef k(x_ref, o_ref):\n"
     "    o_ref[...] = e(x_ref[...])\n    o_ref[...] = e(o_ref[...])\n" + LAUNCH,
     [(7, 5, 7, 66, "manual", _shared("e", "needs a rewrite for its kernel uses (lines 11, 12; plain XLA code: "
                                           "lines 8, 9)"), None)]),
    # two helpers: a finding each
    (f"def f(x):\n    return lax.exp(x, {HI})\ndef g(x):\n    return lax.tanh(x, {HI})\ndef k(x_ref, o_ref):\n"
     "    o_ref[...] = g(f(x_ref[...]))\ndef ref(x):\n    return g(f(x))\n" + LAUNCH,
     [(8, 12, 8, 57, "manual", _shared("f", "needs a rewrite for its kernel callers (line 8)"), None),
      (10, 12, 10, 58, "manual", _shared("g", "needs a rewrite for its kernel callers (line 10)"), None)]),
])
def test_code_shared_with_xla_is_reported_once_per_holder(body: str, findings: list) -> None:
    assert _jax002(H + body) == (None, findings)


@pytest.mark.parametrize(("body", "shared", "after", "finding"), [
    ("", frozenset({"e"}), None,
     (7, 5, 7, 66, "manual", _shared("e", "needs a rewrite for its kernel uses (other modules; plain XLA code: "
                                          "other modules)"), None)),
    ("y = e(1)\n", frozenset(), None,
     (7, 5, 7, 66, "manual", _shared("e", "needs a rewrite for its kernel uses (other modules; plain XLA code: "
                                          "line 8)"), None)),
    ("def k(x_ref, o_ref):\n    o_ref[...] = e(x_ref[...])\n" + LAUNCH, frozenset({"e"}), None,
     (7, 5, 7, 66, "manual", _shared("e", "needs a rewrite for its kernel uses (line 9 and other modules; plain "
                                          "XLA code: other modules)"), None)),
    # only other modules' kernels use it: unwrapped
    ("", frozenset(), H.replace("import functools\n", "") + "e = lax.exp\n",
     (7, 5, 7, 66, "dropped", "lax.exp: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic TPU kernels); "
      "lax.exp now runs at the backend's default accuracy", "unsafe")),
])
def test_a_value_other_modules_kernels_call(body: str, shared: frozenset, after, finding) -> None:
    facts = ModuleFacts(kernels=(("e", TPU, "called from a kernel", "helper"),), shared=shared)
    assert _jax002(H + f"e = functools.partial(lax.exp, {HI})\n" + body, facts=facts) == (after, [finding])


def test_shared_with_xla_is_false_under_scope_all_and_for_kernel_only_code() -> None:
    source = H + f"def f(x):\n    return lax.exp(x, {HI})\ndef k(x_ref, o_ref):\n    o_ref[...] = f(x_ref[...])\n" \
        + "def ref(x):\n    return f(x)\n" + LAUNCH + "def g(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...])\n"
    file = _file(source, ALL)
    stub = _Stub(RULE, file)
    calls = [c for c in _calls(file) if isinstance(c.func, ast.Attribute) and c.func.attr == "exp"]
    assert [stub.shared_with_xla(c) for c in calls] == [False, False] and stub.findings == []
    file = _file(source)
    stub = _Stub(RULE, file)
    calls = [c for c in _calls(file) if isinstance(c.func, ast.Attribute) and c.func.attr == "exp"]
    assert [stub.shared_with_xla(c) for c in calls] == [True, False]
    assert [(f.code, f.kind, f.line, f.column) for f in stub.findings] == [("JAX999", Kind.MANUAL, 8, 12)]


def test_an_unresolved_launch_may_run_a_lambda_or_what_a_maybe_kernel_holds() -> None:
    source = H + ("import sys\nhelper = lambda v: lax.exp(v, accuracy=None)\ndef _a_kernel(x_ref, o_ref):\n"
                  "    f = jax.vmap(lambda v: lax.exp(v, accuracy=None))\n    def unused(v):\n"
                  "        return lax.exp(v, accuracy=None)\n    o_ref[...] = helper(f(x_ref[...]))\n"
                  "def run(name, x):\n    body = getattr(sys.modules[__name__], name)\n"
                  "    return pl.pallas_call(body, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n")
    file = _file(source)
    stub = _Stub(RULE, file)
    exps = [c for c in _calls(file) if isinstance(c.func, ast.Attribute) and c.func.attr == "exp"]
    launch = "may run in a kernel: the launch on line 16 runs a body this analysis cannot resolve (`getattr(...)`)"
    # the lambda bound to `helper`, which `_a_kernel` calls, has no name of its own; the lambda and
    # the def within `_a_kernel` are not called by name from it: they run in it
    assert [(c.lineno, stub.unresolved_launch(c, TPU)) for c in exps] == [
        (8, f"{launch}, and `lambda` may be it"), (10, f"{launch}, and `_a_kernel` may be it"),
        (12, f"{launch}, and `_a_kernel` may be it")]


def test_a_proven_line_of_a_use_over_lines_proves_the_partial() -> None:
    source = H + "e = functools.partial(lax.exp, x)\nz = e(\n  2.0)\n"
    for line, proven in [(7, True), (8, True), (9, True), (10, False)]:
        file = _file(source, proven={"JAX999": frozenset({line})})
        partial = next(c for c in _calls(file) if c.lineno == 7)
        assert (line, _Stub(RULE, file).proven(partial)) == (line, proven)


# -- session 10's changed functions (the mutation run of session 11, docs/testing.md) --

NOT_IMPLEMENTED = '; if it does, its Mosaic lowering raises "Not implemented: accuracy"'


def test_a_body_whose_launch_is_not_found_gets_a_manual_note_that_says_so() -> None:
    """A def that takes refs as kernel bodies do, with no launch of it anywhere: [manual], and the
    note names what may launch it (`unresolved_launch`, NO_LAUNCH_FOUND)."""
    assert _jax002(H + f"def body(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], {HI})\n") == (None, [
        (8, 18, 8, 72, "manual", f"lax.exp: {HI} may run in a kernel: `body` takes refs as kernel bodies do, and no "
         "launch of it was found (one this analysis does not follow, such as `importlib` or a table of launchers, "
         f"may run it){NOT_IMPLEMENTED}", None)])


def test_a_function_another_modules_unresolved_launch_may_run_says_that_modules_reason() -> None:
    """A function another module's launch may run (MAYBE: no site in this module): the note gives
    that module's reason, not a line of this one."""
    facts = ModuleFacts(kernels=(("body", TPU, "passed to pallas_call in api, which cannot resolve it", MAYBE),))
    assert _jax002(H + f"def body(x, o):\n    o[...] = lax.exp(x[...], {HI})\n", facts=facts) == (None, [
        (8, 14, 8, 64, "manual", f"lax.exp: {HI} may run in a kernel: passed to pallas_call in api, which cannot "
         f"resolve it, and `body` may be it{NOT_IMPLEMENTED}", None)])
