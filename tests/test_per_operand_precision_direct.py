"""codemods/rules/per_operand_precision.py (JAX001) run in the test's process (issue 35, item 3:
mutation testing): the ops and where their precision sits, the levels each release accepts, the
messages of each branch (a fix forced by Mosaic TPU, an op another backend cannot lower, a list on
jax >= 0.7, the HIGHEST policy, a dict compiler_params launch, `*args`/`**kwargs`, an op no backend
of the kernel lowers). Each test checks the exact rewritten source and every finding. The golden
files (tests/fixtures/precision/) hold the whole-module cases. No jax, no subprocess.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from codemods import registry
from codemods.capabilities import Level
from codemods.engine.runner import process_source
from codemods.rules import per_operand_precision as rule
from codemods.rules.per_operand_precision import OPS, Op, _may_carry_precision, _no_lowering, _precision_arg
from codemods.settings import PrecisionPolicy, Scope, Settings

HEAD = ("import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n"
        "P = lax.Precision\n\ndef kernel(x, w, o):\n")
TPU = "\nf = pl.pallas_call(kernel, out_shape=None)\n"
FORCED = "; forced by Mosaic TPU (Triton lowers it as written)"
PAIR = "per-operand precision is rejected in Mosaic TPU kernels"
# A dot fix above DEFAULT in a kernel that may reach Mosaic TPU: what to write for bfloat16 operands.
BF16 = ("; for bfloat16 operands write DEFAULT instead: exact for bfloat16 inputs, while Mosaic TPU's compiler "
        "rejects bfloat16 operands above DEFAULT (\"Bad lhs type\", seen at HIGHEST on a TPU v5e, jax 0.10.2)")
NO_TRITON_CONV = ('; note: Triton cannot lower conv_general_dilated in a kernel at all ("Unimplemented primitive in '
                  'Pallas Triton lowering: conv_general_dilated"), so this kernel lowers for Mosaic TPU only')


def _run(source: str, version=(0, 12, 0, 1), **options):
    settings = Settings(version, unsafe_fixes=True, **options)
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX001"]), settings)
    assert result.error is None, result.error
    return (result.after or source), [(f.line, f.column, f.kind.value, f.message,
                                        f.fix.applicability.value if f.fix else None) for f in result.findings]


def _kernel(*lines: str, launch: str = TPU) -> str:
    return HEAD + "".join(f"    {line}\n" for line in lines) + launch


# -- outcomes --

@pytest.mark.parametrize(("line", "after", "column", "message"), [
    ("o[...] = lax.conv_with_general_padding(x[...], w[...], (1, 1), ((0, 0), (0, 0)), None, None, (P.DEFAULT, P.HIGH))",
     "o[...] = lax.conv_with_general_padding(x[...], w[...], (1, 1), ((0, 0), (0, 0)), None, None, P.HIGHEST)", 98,
     f"lax.conv_with_general_padding: precision (DEFAULT, HIGH) -> HIGHEST ({PAIR}){NO_TRITON_CONV}"),
    ("o[...] = lax.conv(x[...], w[...], (1, 1), 'SAME', (P.HIGH, P.HIGH))",
     "o[...] = lax.conv(x[...], w[...], (1, 1), 'SAME', P.HIGHEST)", 55,
     "lax.conv: precision (HIGH, HIGH) -> HIGHEST (HIGH is not lowered for conv on jax 0.12.0.1 in Mosaic TPU "
     f"kernels){NO_TRITON_CONV}"),
    ("o[...] = lax.conv_general_dilated(x[...], w[...], (1, 1), 'SAME', None, None, None, 1, 1, P.HIGH)",
     "o[...] = lax.conv_general_dilated(x[...], w[...], (1, 1), 'SAME', None, None, None, 1, 1, P.HIGHEST)", 95,
     "lax.conv_general_dilated: precision HIGH -> HIGHEST (HIGH is not lowered for conv on jax 0.12.0.1 in Mosaic TPU "
     f"kernels){NO_TRITON_CONV}"),
    ("o[...] = lax.dot_general(x[...], w[...], d, (P.DEFAULT, P.HIGH))",
     "o[...] = lax.dot_general(x[...], w[...], d, P.HIGH)", 49, f"lax.dot_general: precision (DEFAULT, HIGH) -> HIGH "
                                                                f"({PAIR}){FORCED}{BF16}"),
    ("o[...] = lax.batch_matmul(x[...], w[...], (P.DEFAULT, P.HIGH))",
     "o[...] = lax.batch_matmul(x[...], w[...], P.HIGH)", 47,
     f"lax.batch_matmul: precision (DEFAULT, HIGH) -> HIGH ({PAIR}); note: Triton cannot lower a batched dot_general "
     f"(its lowering asserts there are no batch dimensions), so this kernel lowers for Mosaic TPU only{BF16}"),
    ("o[...] = jnp.vdot(x[...], w[...], precision=(P.DEFAULT, P.HIGH))",
     "o[...] = jnp.vdot(x[...], w[...], precision=P.HIGH)", 49, f"jnp.vdot: precision (DEFAULT, HIGH) -> HIGH ({PAIR}){FORCED}{BF16}"),
    ("o[...] = jnp.inner(x[...], w[...], precision=(P.HIGH, P.DEFAULT))",
     "o[...] = jnp.inner(x[...], w[...], precision=P.HIGH)", 50, f"jnp.inner: precision (HIGH, DEFAULT) -> HIGH ({PAIR}){FORCED}{BF16}"),
    ("o[...] = jnp.tensordot(x[...], w[...], precision=(P.HIGHEST, P.DEFAULT))",
     "o[...] = jnp.tensordot(x[...], w[...], precision=P.HIGHEST)", 54,
     f"jnp.tensordot: precision (HIGHEST, DEFAULT) -> HIGHEST ({PAIR}){FORCED}{BF16}"),
    ("o[...] = jnp.matmul(x[...], w[...], precision=(P.DEFAULT, P.HIGH))",
     "o[...] = jnp.matmul(x[...], w[...], precision=P.HIGH)", 51, f"jnp.matmul: precision (DEFAULT, HIGH) -> HIGH ({PAIR}){FORCED}{BF16}"),
    ("o[...] = jnp.einsum('ij,jk', x[...], w[...], precision=(P.DEFAULT, P.HIGH))",
     "o[...] = jnp.einsum('ij,jk', x[...], w[...], precision=P.HIGH)", 60,
     f"jnp.einsum: precision (DEFAULT, HIGH) -> HIGH ({PAIR}){FORCED}{BF16}"),
    ("o[...] = lax.dot(x[...], w[...], precision=(P.DEFAULT, P.HIGH))",
     "o[...] = lax.dot(x[...], w[...], precision=P.HIGH)", 48, f"lax.dot: precision (DEFAULT, HIGH) -> HIGH ({PAIR}){FORCED}{BF16}"),
], ids=["conv-with-general-padding-positional", "conv-positional", "conv-general-dilated-positional",
        "dot-general-positional", "batch-matmul-positional", "vdot", "inner", "tensordot", "matmul", "einsum", "lax-dot"])
def test_each_op_is_fixed_where_its_precision_sits(line: str, after: str, column: int, message: str) -> None:
    assert _run(_kernel(line)) == (_kernel(after), [(8, column, "fixed", message, "safe")])


@pytest.mark.parametrize("line", [
    "o[...] = lax.dot(x[...], w[...], (P.DEFAULT, P.HIGH))",  # OPS: lax.dot's precision is keyword-only
    "o[...] = lax.conv(x[...], w[...], (1, 1), 'SAME', None, (P.DEFAULT, P.HIGH))",
    "o[...] = lax.batch_matmul(x[...], w[...], None, (P.DEFAULT, P.HIGH))",
    "o[...] = jnp.dot(x[...], w[...], precision=P.HIGH)",
    "o[...] = jnp.dot(x[...], w[...], precision=(P.HIGH, P.HIGH))",
    "o[...] = jnp.dot(x[...], w[...], precision=None)",
    "o[...] = jnp.dot(x[...], w[...])",
    "o[...] = lax.conv(x[...], w[...], (1, 1), 'SAME', precision=P.HIGHEST)",
    "o[...] = jnp.add(x[...], w[...], precision=(P.DEFAULT, P.HIGH))",
], ids=["lax-dot-positional", "conv-past-its-position", "batch-matmul-past-its-position", "dot-high",
        "dot-equal-pair", "none", "no-precision", "conv-highest", "not-a-contraction"])
def test_what_lowers_or_is_no_precision_is_left_alone(line: str) -> None:
    assert _run(_kernel(line)) == (_kernel(line), [])


def test_outside_kernels_only_with_scope_all() -> None:
    source = HEAD.replace("def kernel(x, w, o):\n", "def f(x, w):\n") + \
        "    return jnp.dot(x, w, precision=(P.DEFAULT, P.HIGH))\n"
    assert _run(source) == (source, [])
    assert _run(source, scope=Scope.ALL)[0] == source.replace("(P.DEFAULT, P.HIGH)", "P.HIGH")


def test_a_release_without_high_for_dot_takes_highest_and_a_list_is_said_to_fail_everywhere() -> None:
    source = _kernel("o[...] = jnp.matmul(x[...], w[...], precision=P.HIGH)",
                     "o[...] = jnp.einsum('ij,jk', x[...], w[...], precision=[P.HIGH, P.HIGH])")
    assert _run(source, (0, 10, 0)) == (source.replace("precision=P.HIGH)", "precision=P.HIGHEST)").replace(
        "[P.HIGH, P.HIGH]", "P.HIGHEST"), [
        (8, 51, "fixed", f"jnp.matmul: precision HIGH -> HIGHEST (HIGH is not lowered for dot on jax 0.10.0 in Mosaic "
                         f"TPU kernels){FORCED}{BF16}", "safe"),
        (9, 60, "fixed", "jnp.einsum: precision (HIGH, HIGH) -> HIGHEST (HIGH is not lowered for dot on jax 0.10.0 in "
                         "Mosaic TPU kernels); needed on every backend: jax >= 0.7 rejects a list precision when "
                         f"tracing (parameters must be hashable){BF16}", "safe")])
    before_lists_failed = _run(source, (0, 6, 0))[1]
    assert [f[3] for f in before_lists_failed][1] == (
        f"jnp.einsum: precision (HIGH, HIGH) -> HIGHEST (HIGH is not lowered for dot on jax 0.6.0 in Mosaic TPU "
        f"kernels){FORCED}{BF16}")
    assert _run(source, (0, 7, 0))[1][1][3].endswith(f"(parameters must be hashable){BF16}")


def test_the_highest_policy_writes_highest() -> None:
    source = _kernel("o[...] = jnp.dot(x[...], w[...], precision=(P.DEFAULT, P.HIGH))")
    assert _run(source, precision_policy=PrecisionPolicy.HIGHEST) == (
        source.replace("(P.DEFAULT, P.HIGH)", "P.HIGHEST"),
        [(8, 48, "fixed", f"jnp.dot: precision (DEFAULT, HIGH) -> HIGHEST ({PAIR}){FORCED}{BF16}", "safe")])


def test_unpacked_arguments_may_carry_a_precision() -> None:
    source = _kernel("o[...] = jnp.dot(x[...], w[...], **kw)", "o[...] = lax.dot_general(x[...], w[...], *rest)",
                     "o[...] = jnp.dot(x[...], *rest)", "o[...] = lax.dot_general(*a, precision=P.HIGHEST)")
    failure = 'Mosaic TPU raises "Per-operand dot precision unsupported" for a pair'
    assert _run(source) == (source, [
        (8, 14, "manual", f"jnp.dot: **kwargs may carry a precision a Mosaic TPU kernel cannot lower ({failure})", None),
        (9, 14, "manual", f"lax.dot_general: *args may carry a precision a Mosaic TPU kernel cannot lower ({failure})",
         None)])


def test_a_conv_failure_names_each_scalar_it_rejects() -> None:
    source = _kernel("o[...] = lax.conv(x[...], w[...], (1, 1), 'SAME', **kw)")
    assert _run(source)[1] == [(8, 14, "manual", 'lax.conv: **kwargs may carry a precision a Mosaic TPU kernel cannot '
                                                 'lower (Mosaic TPU raises "Per-operand conv precision unsupported" for a '
                                                 'pair and "Unsupported conv precision: HIGH")', None)]


def test_a_mosaic_gpu_kernel_cannot_lower_a_contraction_at_all() -> None:
    source = _kernel("o[...] = jnp.dot(x[...], w[...], precision=(P.DEFAULT, P.HIGH))",
                     "o[...] = lax.conv(x[...], w[...], (1, 1), 'SAME', precision=P.HIGH)",
                     launch="\nfrom jax.experimental.pallas import mosaic_gpu as plgpu\n"
                            "f = pl.pallas_call(kernel, out_shape=None, compiler_params=plgpu.CompilerParams())\n")
    assert _run(source) == (source, [
        (8, 14, "manual", 'jnp.dot: Mosaic GPU cannot lower dot_general in a kernel at all ("Unimplemented primitive in '
                          'Pallas Mosaic GPU lowering: dot_general"), whatever its precision: this kernel cannot lower '
                          'as written (Mosaic GPU kernels multiply matrices with plgpu.wgmma or plgpu.tcgen05_mma); no '
                          'precision fix written', None),
        (9, 14, "manual", 'lax.conv: Mosaic GPU cannot lower conv_general_dilated in a kernel at all ("Unimplemented '
                          'primitive in Pallas Mosaic GPU lowering: conv_general_dilated"), whatever its precision: this '
                          'kernel cannot lower as written; no precision fix written', None)])


def test_a_mosaic_gpu_kernels_list_precision_gets_the_note_too() -> None:
    """A list precision kept the note from being said, and nothing fixed it (no backend of the
    kernel rejects precisions): the call was passed over in silence."""
    source = _kernel("o[...] = jnp.dot(x[...], w[...], precision=[P.DEFAULT, P.HIGH])",
                     launch="\nfrom jax.experimental.pallas import mosaic_gpu as plgpu\n"
                            "f = pl.pallas_call(kernel, out_shape=None, compiler_params=plgpu.CompilerParams())\n")
    assert _run(source) == (source, [
        (8, 14, "manual", 'jnp.dot: Mosaic GPU cannot lower dot_general in a kernel at all ("Unimplemented primitive in '
                          'Pallas Mosaic GPU lowering: dot_general"), whatever its precision: this kernel cannot lower '
                          'as written (Mosaic GPU kernels multiply matrices with plgpu.wgmma or plgpu.tcgen05_mma); no '
                          'precision fix written', None)])
    assert _run(source, scope=Scope.ALL)[0] == source.replace("[P.DEFAULT, P.HIGH]", "P.HIGH")


def test_a_dict_compiler_params_launch_is_noted_on_the_fix() -> None:
    source = _kernel("o[...] = jnp.dot(x[...], w[...], precision=(P.DEFAULT, P.HIGH))",
                     launch="\nf = pl.pallas_call(kernel, out_shape=None, compiler_params=dict(mosaic=dict()))\n")
    assert _run(source) == (source.replace("(P.DEFAULT, P.HIGH)", "P.HIGH"), [
        (8, 48, "fixed", f"jnp.dot: precision (DEFAULT, HIGH) -> HIGH ({PAIR}); note: its launch passes compiler_params "
                         "as a dict, which jax 0.10.2 and later reject (TypeError: \"unhashable type: 'dict'\"): Mosaic "
                         f"TPU cannot lower this kernel until the launch passes pltpu.CompilerParams(...) instead{BF16}",
         "safe")])


def test_a_triton_and_tpu_kernels_batch_matmul_lowers_for_tpu_only() -> None:
    source = _kernel("o[...] = lax.batch_matmul(x[...], w[...], precision=(P.DEFAULT, P.HIGH))",
                     launch="\nf = pl.pallas_call(kernel, out_shape=None, backend='triton')\n"
                            "g = pl.pallas_call(kernel, out_shape=None)\n")
    assert _run(source) == (source.replace("(P.DEFAULT, P.HIGH)", "P.HIGH"), [
        (8, 57, "fixed", f"lax.batch_matmul: precision (DEFAULT, HIGH) -> HIGH ({PAIR}); note: Triton cannot lower a "
                         "batched dot_general (its lowering asserts there are no batch dimensions), so this kernel "
                         f"lowers for Mosaic TPU only{BF16}", "safe")])


def test_a_triton_only_kernel_is_left_alone() -> None:
    source = _kernel("o[...] = jnp.dot(x[...], w[...], precision=(P.DEFAULT, P.HIGH))",
                     launch="\nf = pl.pallas_call(kernel, out_shape=None, backend='triton')\n")
    assert _run(source) == (source, [])


# -- the helpers --

@pytest.mark.parametrize(("name", "kind", "position"), [
    ("jax.lax.dot_general", "dot", 3), ("jax.lax.dot", "dot", None), ("jax.lax.batch_matmul", "dot", 2),
    ("jax.lax.conv_general_dilated", "conv", 9), ("jax.lax.conv", "conv", 4), ("jax.lax.conv_with_general_padding", "conv", 6),
    ("jax.numpy.dot", "dot", None), ("jax.numpy.matmul", "dot", None), ("jax.numpy.einsum", "dot", None),
    ("jax.numpy.inner", "dot", None), ("jax.numpy.tensordot", "dot", None), ("jax.numpy.vdot", "dot", None),
    ("jax.experimental.pallas.dot", "dot", 5), ("jax.experimental.pallas.triton.dot", "dot", 5),
])
def test_ops(name: str, kind: str, position) -> None:
    assert OPS[name] == Op(kind, position)


def test_ops_are_these_and_no_others() -> None:
    assert len(OPS) == 14


def _call(source: str) -> ast.Call:
    node = ast.parse(source, mode="eval").body
    assert isinstance(node, ast.Call)
    return node


@pytest.mark.parametrize(("source", "op", "shift", "expected"), [
    ("f(a, b, c, p)", Op("dot", 3), 0, "p"), ("f(a, b, c)", Op("dot", 3), 0, None),
    ("f(a, b, c, precision=p)", Op("dot", 3), 0, "precision=p"), ("partial(f, a, b, c, p)", Op("dot", 3), 1, "p"),
    ("partial(f, a, b, c)", Op("dot", 3), 1, None), ("f(a, b, p)", Op("dot", None), 0, None),
    ("f(a, b, precision=p)", Op("dot", None), 0, "precision=p"),
])
def test_precision_arg(source: str, op: Op, shift: int, expected) -> None:
    found = _precision_arg(_call(source), op, shift)
    assert (found if found is None else ast.unparse(found)) == expected


@pytest.mark.parametrize(("source", "op", "expected"), [
    ("f(a, **k)", Op("dot", None), True), ("f(*a)", Op("dot", 3), True), ("f(*a)", Op("dot", None), False),
    ("f(a, b)", Op("dot", 3), False), ("f(a, *b, **k)", Op("dot", None), True),
])
def test_may_carry_precision(source: str, op: Op, expected: bool) -> None:
    assert _may_carry_precision(_call(source), op) is expected


def test_no_lowering_quotes_each_backends_error_in_order() -> None:
    assert _no_lowering(Op("conv", None), frozenset({"triton", "mosaic_gpu"})) == (
        'Mosaic GPU and Triton cannot lower conv_general_dilated in a kernel at all ("Unimplemented primitive in Pallas '
        'Mosaic GPU lowering: conv_general_dilated"; "Unimplemented primitive in Pallas Triton lowering: '
        'conv_general_dilated")')


@pytest.mark.parametrize(("kind", "version", "expected"), [
    ("dot", (0, 12, 0, 1), {Level.DEFAULT, Level.HIGH, Level.HIGHEST}), ("dot", (0, 10, 0), {Level.DEFAULT, Level.HIGHEST}),
    ("conv", (0, 12, 0, 1), {Level.DEFAULT, Level.HIGHEST}), ("dot", None, {Level.DEFAULT, Level.HIGHEST}),
])
def test_accepted_precisions(kind: str, version, expected: set) -> None:
    assert rule.accepted_precisions(kind, version) == expected


def test_the_constants() -> None:
    assert rule.REJECTERS == {"mosaic_tpu"} and rule.LIST_REJECTED_SINCE == (0, 7)
    assert rule.BATCH_MATMUL == "jax.lax.batch_matmul" and rule.BATCHED_DOT_UNLOWERED == {"triton"}
    assert rule.PALLAS_DOT_ROW.code == "JAX150"


# -- values followed through the module: what each [manual] note says (mutation testing, 2026-12-04) --

NOTE_END = ': if it is not a single scalar the Mosaic TPU lowering accepts, Mosaic TPU raises "Per-operand dot precision ' \
           'unsupported" for a pair'
PAIR_FAILS = ': Mosaic TPU raises "Per-operand dot precision unsupported" for a pair'


def _chain(hops: int) -> str:
    """`C0 = C1`, ..., `C{hops} = (P.DEFAULT, P.HIGH)`: the pair `hops` names away from C0."""
    return "".join(f"C{i} = C{i + 1}\n" for i in range(hops)) + f"C{hops} = (P.DEFAULT, P.HIGH)\n"


def _note(source: str) -> str:
    """The one finding of `source`, a [manual] note that changes nothing: its message."""
    after, findings = _run(source)
    assert after == source and [f[2] for f in findings] == ["manual"], findings
    return findings[0][3]


def test_a_value_is_followed_five_names_deep_and_no_further() -> None:
    use = _kernel("o[...] = jnp.dot(x[...], w[...], precision=C0)")
    assert _note(_chain(5) + use) == ("jnp.dot: precision `C0` can be (DEFAULT, HIGH) (set on line 6; is a module "
                                      f"constant that is not a precision literal){PAIR_FAILS}")
    assert _note(_chain(6) + use) == ("jnp.dot: precision `C0` is a module constant that is not a precision literal (it "
                                      f"is followed too far){NOTE_END}")


@pytest.mark.parametrize(("written", "hops", "last"), [
    ("C0 = C1 if X else P.HIGHEST", 4, "(P.DEFAULT, P.HIGH)"),  # each branch counts one
    ("C0 = P.HIGHEST if X else C1", 4, "(P.DEFAULT, P.HIGH)"),
    ("C0 = (C1, P.HIGHEST)", 4, "P.HIGH"),  # a pair's element counts one
    ("def make():\n    return C1\nC0 = make()", 4, "(P.DEFAULT, P.HIGH)"),  # a call counts one, as a name
], ids=["if-body", "if-else", "pair-element", "returned"])
def test_each_step_of_the_walk_counts_toward_the_depth(written: str, hops: int, last: str) -> None:
    """At the depth limit the pair is found; one name further it is not."""
    use = _kernel("o[...] = jnp.dot(x[...], w[...], precision=C0)")
    for extra, found in ((0, True), (1, False)):
        chain = "".join(f"C{i} = C{i + 1}\n" for i in range(1, hops + extra)) + \
            f"C{hops + extra} = {last}\n"
        said = _note(f"X = 1\n{written}\n{chain}{use}")
        assert ("can be" in said) is found and ("it is followed too far" in said) is not found, (extra, said)


@pytest.mark.parametrize(("before", "value", "why"), [
    ("C = C if FLAG else (P.DEFAULT, P.HIGH)\nFLAG = 1\n", "C",
     "is a module constant that is not a precision literal (it depends on itself)"),
    ("", "UNBOUND", "is not a literal (`UNBOUND` comes from outside this module)"),
    ("from .consts import PREC\n", "PREC",
     "is not a literal (`PREC` is imported from `.consts`; a precision is followed within its own module only)"),
    ("from . import PREC\n", "PREC",
     "is not a literal (`PREC` is imported from `.`; a precision is followed within its own module only)"),
    ("from .. import PREC\n", "PREC",
     "is not a literal (`PREC` is imported from `..`; a precision is followed within its own module only)"),
    ("from pkg.consts import PREC\n", "PREC",
     "is not a literal (`PREC` is imported from `pkg.consts`; a precision is followed within its own module only)"),
    ("for PREC in ((P.DEFAULT, P.HIGH),):\n    pass\n", "PREC",
     "is not a literal (`PREC` is set in a way this analysis does not follow)"),
    ("", "make()", "is not a literal (`make()` is computed)"),
    ("C = P.HIGH\nC = make()\n", "C", "is assigned more than once (`make()` is computed)"),
    ("from pkg import consts\n", "consts.PREC",
     "is not a literal (`consts.PREC` is read from the imported `pkg.consts`; a precision is followed within its own "
     "module only)"),
    ("", "x.precision", "is not a literal (`x.precision` is computed)"),
], ids=["itself", "unbound", "relative-import", "from-dot", "from-dot-dot", "absolute-import", "for-target", "computed",
        "assigned-twice", "an-imported-modules-attribute", "another-values-attribute"])
def test_a_value_the_walk_cannot_bound_is_said_with_why(before: str, value: str, why: str) -> None:
    source = before + _kernel(f"o[...] = jnp.dot(x[...], w[...], precision={value})")
    assert _note(source) == f"jnp.dot: precision `{value}` {why}{NOTE_END}"


def test_a_variable_of_the_kernel_is_said_to_be_a_variable() -> None:
    source = _kernel("prec = make()", "o[...] = jnp.dot(x[...], w[...], precision=prec)")
    assert _note(source) == f"jnp.dot: precision `prec` is a variable that is not a precision literal (`make()` is computed){NOTE_END}"


def test_a_constant_assigned_twice_is_said_with_where_it_is_a_pair() -> None:
    source = "C = P.HIGH\nC = (P.DEFAULT, P.HIGH)\n" + _kernel("o[...] = jnp.dot(x[...], w[...], precision=C)")
    assert _note(source) == f"jnp.dot: precision `C` can be (DEFAULT, HIGH) (set on line 2){PAIR_FAILS}"


def test_a_conditional_precision_at_the_call_is_followed_into_both_branches() -> None:
    source = _kernel("o[...] = jnp.dot(x[...], w[...], precision=(P.DEFAULT, P.HIGH) if x else P.HIGHEST)")
    assert _note(source) == ("jnp.dot: precision `(P.DEFAULT, P.HIGH) if x else P.HIGHEST` can be (DEFAULT, HIGH) "
                             f"(set on line 8){PAIR_FAILS}")


def test_a_pair_whose_element_is_set_two_ways_can_be_either_pair() -> None:
    source = "F = P.HIGH if X else P.DEFAULT\nX = 1\nC = (F, P.HIGHEST)\n" + \
        _kernel("o[...] = jnp.dot(x[...], w[...], precision=C)")
    assert _note(source) == ("jnp.dot: precision `C` can be (DEFAULT, HIGHEST) or (HIGH, HIGHEST) (set on line 3; is a "
                             f"module constant that is not a precision literal){PAIR_FAILS}")


@pytest.mark.parametrize("element", ["PAIR", "NOTHING"])
def test_a_pair_whose_element_is_a_pair_or_none_is_no_precision(element: str) -> None:
    """`(PAIR, P.HIGHEST)` nests a pair, `(None, P.HIGH)` holds no level: neither is a pair of levels."""
    source = f"PAIR = (P.HIGH, P.HIGH)\nNOTHING = None\nC = ({element}, P.HIGHEST)\n" + \
        _kernel("o[...] = jnp.dot(x[...], w[...], precision=C)")
    assert _run(source) == (source, [])


# -- parameters: a kernel's (bound where it is launched) and a helper's (set by its callers) --

PARTIAL_HEAD = HEAD.replace("def kernel(x, w, o):", "import functools\nC = (P.DEFAULT, P.HIGH)\n\n"
                                                    "def kernel(x, w, o, prec={default}):")


def _partial_kernel(default: str, *bound: str) -> str:
    launches = "".join(f"f{i} = pl.pallas_call(functools.partial(kernel, prec={value}), out_shape=None)\n"
                       for i, value in enumerate(bound))
    return PARTIAL_HEAD.format(default=default) + "    o[...] = jnp.dot(x[...], w[...], precision=prec)\n\n" + \
        (launches or TPU)


def test_a_constant_default_of_a_kernel_parameter_is_fixed_where_it_is_set() -> None:
    source = _partial_kernel("C")
    assert _run(source) == (source.replace("C = (P.DEFAULT, P.HIGH)", "C = P.HIGH"), [
        (8, 5, "fixed", f"jnp.dot: precision (DEFAULT, HIGH) -> HIGH ({PAIR}){FORCED}{BF16}", "safe")])


def test_every_value_a_kernel_parameter_is_bound_to_is_fixed() -> None:
    """None bound first, then two pairs, then the default's constant: each literal is fixed."""
    source = _partial_kernel("C", "None", "(P.DEFAULT, P.HIGH)", "(P.HIGH, P.DEFAULT)")
    after, findings = _run(source)
    assert after == source.replace("C = (P.DEFAULT, P.HIGH)", "C = P.HIGH").replace(
        "prec=(P.DEFAULT, P.HIGH)", "prec=P.HIGH").replace("prec=(P.HIGH, P.DEFAULT)", "prec=P.HIGH")
    assert sorted((f[0], f[2]) for f in findings) == [(8, "fixed"), (14, "fixed"), (15, "fixed")]


def test_a_kernel_parameter_bound_to_a_computed_value_is_said_so() -> None:
    source = _partial_kernel("None", "make()")
    assert _note(source) == ("jnp.dot: precision `prec` is a kernel parameter bound to `make()`, not a literal (`make()` "
                             f"is computed){NOTE_END}")


def test_a_kernel_parameter_bound_to_a_launchers_parameter_is_said_so() -> None:
    source = PARTIAL_HEAD.format(default="None") + "    o[...] = jnp.dot(x[...], w[...], precision=prec)\n\n" \
        "def launch(p):\n    return pl.pallas_call(functools.partial(kernel, prec=p), out_shape=None)\n"
    assert _note(source) == ("jnp.dot: precision `prec` is a kernel parameter bound to `p`, not a literal (`p` is a "
                             f"parameter of `launch`, whose callers are outside this module){NOTE_END}")


def _helper(signature: str, *lines: str) -> str:
    return HEAD.replace("def kernel(x, w, o):", f"def mm({signature}):\n    return jnp.dot(a, b, precision=p)\n\n"
                                                "def kernel(x, w, o):") + \
        "".join(f"    {line}\n" for line in lines) + TPU


@pytest.mark.parametrize(("signature", "calls", "said"), [
    ("a, b, p", ["o[...] = mm(x[...], w[...], (P.DEFAULT, P.HIGH))"], f"can be (DEFAULT, HIGH) (set on line 12){PAIR_FAILS}"),
    ("a, b, *, p", ["o[...] = mm(x[...], w[...], p=(P.DEFAULT, P.HIGH))"], f"can be (DEFAULT, HIGH) (set on line 12){PAIR_FAILS}"),
    ("a, b, p=P.HIGHEST", ["o[...] = mm(x[...], w[...], (P.DEFAULT, P.HIGH))", "o[...] = mm(x, w)"],
     f"can be (DEFAULT, HIGH) (set on line 12){PAIR_FAILS}"),
    ("a, b, p", ["o[...] = mm(x[...], w[...], *rest)"],
     f"is a kernel parameter whose value is not bound in this module (a call of `mm` passes *args or **kwargs){NOTE_END}"),
    ("a, b, p", ["o[...] = mm(x[...], w[...])"],
     f"is a kernel parameter whose value is not bound in this module (a call of `mm` leaves `p` out){NOTE_END}"),
    ("a, b, p", ["g = functools.partial(mm, p=P.HIGHEST)", "o[...] = g(x, w)", "o[...] = mm(x[...], w[...], (P.DEFAULT, P.HIGH))"],
     f"can be (DEFAULT, HIGH) (set on line 14){PAIR_FAILS}"),
    ("a, b, p", ["o[...] = g(mm)"],
     f"is a kernel parameter whose value is not bound in this module (`mm` is passed around, so not every call of it is "
     f"in view){NOTE_END}"),
], ids=["positional", "keyword-only", "default-and-left-out", "unpacked", "left-out", "partial-then-call", "passed-around"])
def test_a_helpers_parameter_is_what_its_callers_pass(signature: str, calls: list, said: str) -> None:
    """A helper a kernel calls: its parameter is set by the calls of it in this module."""
    source = "import functools\n" + _helper(signature, *calls)
    assert _note(source) == f"jnp.dot: precision `p` {said}"


def test_a_helpers_default_is_not_rewritten_when_its_callers_pass_the_parameter() -> None:
    source = _helper("a, b, p=(P.DEFAULT, P.HIGH)", "o[...] = mm(x[...], w[...], P.HIGHEST)")
    assert _note(source) == f"jnp.dot: precision `p` can be (DEFAULT, HIGH) (set on line 7){PAIR_FAILS}"


def test_a_lambdas_parameter_is_said_to_be_one() -> None:
    source = _kernel("mm = lambda p: jnp.dot(x[...], w[...], precision=p)", "o[...] = mm((P.DEFAULT, P.HIGH))")
    assert _note(source) == ("jnp.dot: precision `p` is a kernel parameter whose value is not bound in this module (it "
                             f"is a lambda's parameter){NOTE_END}")


# -- what `explain` asks: which calls JAX001 rewrites or reports (Rule.matches) --

@pytest.mark.parametrize(("call", "expected"), [
    ("jnp.dot(x, w, precision=(P.DEFAULT, P.HIGH))", True), ("jnp.dot(x, w, precision=None)", True),
    ("jnp.dot(x, w)", False), ("jnp.dot(x, w, **kw)", True), ("jnp.dot(x, *rest)", False),
    ("lax.dot_general(x, w, d, P.HIGH)", True), ("lax.dot_general(x, w, d)", False), ("lax.dot_general(x, *rest)", True),
    ("functools.partial(lax.dot_general, x, w, d, P.HIGH)", True), ("functools.partial(lax.dot_general, x, w, d)", False),
    ("functools.partial(lax.dot_general, x, w, d, precision=P.HIGH)", True),
    ("jnp.add(x, w, precision=P.HIGH)", False), ("lax.conv(x, w, (1, 1), 'SAME', P.HIGH)", True),
    ("lax.conv(x, w, (1, 1), 'SAME')", False),
], ids=lambda value: value if isinstance(value, str) else None)
def test_matches_a_contraction_that_takes_or_may_take_a_precision(call: str, expected: bool) -> None:
    from codemods.analysis.module import ModuleIndex
    from codemods.engine.rule import ParsedFile

    text = "import functools\n" + HEAD.split("\n\n")[0] + f"\n\ny = {call}\n"
    module = ModuleIndex.parse(text)
    file = ParsedFile(Path("m.py"), module, Settings((0, 12, 0, 1)))
    [node] = [c for c in module.calls if c.lineno == text.count("\n") and c.col_offset == 4]
    assert rule.RULE.matches(rule.RULE, file, node) is expected


# -- a precision another module's kernel code receives (the project index's foreign keywords) --

REACHES = "reaches `mm_body`, kernel code of another module run by Mosaic TPU"
# A pair the whole-program link finds only kernels' dots read: fixed where it is written, to the level the dot
# needs (not the one a conv would), safe.
LINKED = ("(per-operand precision is rejected in Mosaic TPU kernels): it reaches jnp.dot in a kernel at `pk.bodies` "
          "line 5, and nothing else reads it")


def _across_modules(root: Path, parameter: str, launcher_parameters: str, bound: str, constants: str = "") -> tuple:
    """`pk/bodies.py`'s kernel body (`jnp.dot(..., precision=<parameter>)`, no pallas, no literal) and
    `pk/launch.py`, which launches `functools.partial(mm_body, <bound>)`: launch.py's findings, and its
    lines that the fix changed ({line: new text})."""
    from codemods.engine.discovery import discover
    from codemods.engine.runner import run

    package = root / "pk"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "bodies.py").write_text(
        f"import jax.numpy as jnp\n\n\ndef mm_body(x_ref, y_ref, o_ref, *, {parameter}, names=()):\n"
        f"    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision={parameter})\n")
    launch = package / "launch.py"
    launch.write_text(
        "import functools\nimport jax\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n"
        f"from .bodies import mm_body\n\nP = lax.Precision\n{constants}\n\n"
        f"def matmul(x, y{launcher_parameters}):\n    body = functools.partial(mm_body, {bound})\n"
        "    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y)\n")
    results = run([root], registry.select(["JAX001"]), Settings((0, 12, 0, 1), unsafe_fixes=True), jobs=1,
                  project=discover([root]))
    [result] = [r for r in results if Path(r.path) == launch]
    assert result.error is None, result.error
    before = launch.read_text().splitlines()
    after = (result.new_source or launch.read_bytes()).decode().splitlines()
    assert len(after) == len(before)
    return [(f.line, f.column, f.kind.value, f.message, f.fix.applicability.value if f.fix else None)
            for f in result.findings], {number: new for number, (old, new) in enumerate(zip(before, after), 1) if old != new}


@pytest.mark.parametrize(("parameter", "launcher", "bound", "constants", "findings", "lines"), [
    ("prec", "", "prec=(P.DEFAULT, P.HIGHEST)", "",
     [(11, 44, "fixed", f"precision (DEFAULT, HIGHEST) -> HIGHEST {LINKED}", "safe")],
     {11: "    body = functools.partial(mm_body, prec=P.HIGHEST)"}),
    ("precision", "", "precision=P.HIGH", "",  # HIGH: conv does not lower it, and the op is not in view
     [(11, 49, "fixed", f"precision HIGH -> HIGHEST: it {REACHES}, which rejects it (the scalar dot and conv both lower "
                        "there)", "unsafe")], {11: "    body = functools.partial(mm_body, precision=P.HIGHEST)"}),
    ("precision", "", "precision=P.HIGHEST", "", [], {}),
    ("precision", "", "precision=None", "", [], {}),
    ("prec", "", "prec=P.HIGH", "", [], {}),  # a scalar under another name: no precision known
    ("prec", "", "prec=P.HIGHEST, names=('float32', 'bfloat16')", "", [], {}),  # strings: no precision
    ("prec", "", "prec=PREC", "PREC = (P.DEFAULT, P.HIGH)",
     [(8, 8, "fixed", f"precision (DEFAULT, HIGH) -> HIGH {LINKED}", "safe")], {8: "PREC = P.HIGH"}),
    # named again but read by nothing else (the link says so): fixed where it is set (until the ninth trial, N1: [manual])
    ("prec", "", "prec=PREC", "PREC = (P.DEFAULT, P.HIGH)\nOTHER = PREC",
     [(8, 8, "fixed", f"precision (DEFAULT, HIGH) -> HIGH {LINKED}", "safe")], {8: "PREC = P.HIGH"}),
    ("precision", ", prec", "precision=prec", "",
     [(11, 49, "manual", f"precision `prec` {REACHES} (`prec` is a parameter of `matmul`, whose callers are outside "
                         "this module): Mosaic TPU rejects it there unless it is a single scalar that lowers (DEFAULT "
                         "or HIGHEST for any op)", None)], {}),
    ("prec", ", prec=(P.DEFAULT, P.HIGHEST)", "prec=prec", "",
     [(10, 23, "fixed", f"precision (DEFAULT, HIGHEST) -> HIGHEST {LINKED}", "safe")],
     {10: "def matmul(x, y, prec=P.HIGHEST):"}),
    ("precision", "", "precision=PAIRS[0]", "PAIRS = [(P.DEFAULT, P.HIGHEST)]",  # through a container: the flow
     [(8, 10, "fixed", f"precision (DEFAULT, HIGHEST) -> HIGHEST {LINKED}", "safe")], {8: "PAIRS = [P.HIGHEST]"}),
    ("precision", "", "precision=FUNCS[0]", "def helper():\n    pass\nFUNCS = [helper]",  # the flow holds no pair
     [(13, 49, "manual", f"precision `FUNCS[0]` {REACHES} (`FUNCS[0]` is computed): Mosaic TPU rejects it there unless "
                         "it is a single scalar that lowers (DEFAULT or HIGHEST for any op)", None)], {}),
    ("prec", "", "prec=(F, P.HIGHEST)", "X = 1\nF = P.HIGH if X else P.DEFAULT",  # a pair of members made two ways
     [(12, 45, "manual", f"precision ({first}, HIGHEST) {REACHES} (passed on line 12): Mosaic TPU rejects it there; "
                         "write a single scalar that lowers (DEFAULT or HIGHEST for any op)", None)
      for first in ("DEFAULT", "HIGH")], {}),
    ("prec", "", "prec=make()", "", [], {}),  # unknown, under another name: no precision known
    ("precision", ", prec=P.HIGHEST", "precision=prec", "", [], {}),  # the launcher's default lowers
    ("precision", "", "precision=PAIRS[0]", "PAIRS = [(P.HIGHEST, P.HIGHEST)]",  # an equal pair that lowers: unknown
     [(11, 49, "manual", f"precision `PAIRS[0]` {REACHES} (`PAIRS[0]` is computed): Mosaic TPU rejects it there unless "
                         "it is a single scalar that lowers (DEFAULT or HIGHEST for any op)", None)], {}),
], ids=["pair", "high", "highest", "none", "scalar-other-name", "strings", "constant", "constant-used-elsewhere",
        "launchers-parameter", "launchers-default", "through-a-list", "through-a-list-of-functions", "pair-made-two-ways",
        "unknown-other-name", "launchers-default-lowers", "through-a-list-an-equal-pair"])
def test_a_precision_bound_to_another_modules_kernel_code(tmp_path: Path, parameter: str, launcher: str, bound: str,
                                                         constants: str, findings: list, lines: dict) -> None:
    assert _across_modules(tmp_path, parameter, launcher, bound, constants) == (findings, lines)


# -- code that an unresolved launch may run (`getattr(module, f"_{name}_kernel")`) --

UNRESOLVED = ("import sys\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n"
              "from jax.experimental.pallas import tpu as pltpu\nP = lax.Precision\nC = (P.DEFAULT, P.HIGH)\n"
              "S = P.HIGHEST\n\ndef _a_kernel(x_ref, w_ref, o_ref):\n    x, w = x_ref, w_ref\n    o_ref[...] = {op}\n\n"
              "def run(name, x, w):\n    body = getattr(sys.modules[__name__], f'_{{name}}_kernel')\n"
              "    return pl.pallas_call(body, out_shape=None, compiler_params=pltpu.CompilerParams())(x, w)\n\n"
              "def a(x):\n    return run('a', x, x)\n")
MAY_RUN = ("may run in a kernel: the launch on line 16 runs a body this analysis cannot resolve (`getattr(...)`), and "
           "`_a_kernel` may be it; if it does, Mosaic TPU raises")


@pytest.mark.parametrize(("op", "said"), [
    ("jnp.dot(x[...], w[...], precision=(P.DEFAULT, P.HIGH))",
     f'jnp.dot: precision `(P.DEFAULT, P.HIGH)` {MAY_RUN} "Per-operand dot precision unsupported" for a pair'),
    ("jnp.dot(x[...], w[...], precision=C)",  # followed to where it is set
     f'jnp.dot: precision `C` {MAY_RUN} "Per-operand dot precision unsupported" for a pair'),
    ("lax.conv(x[...], w[...], (1, 1), 'SAME', precision=P.HIGH)",  # HIGH: conv's own levels
     f'lax.conv: precision `P.HIGH` {MAY_RUN} "Per-operand conv precision unsupported" for a pair and "Unsupported conv '
     'precision: HIGH"'),
    ("jnp.dot(x[...], w[...], precision=P.HIGH)", None), ("jnp.dot(x[...], w[...], precision=S)", None),
    ("jnp.dot(x[...], w[...], precision=None)", None),
    ("jnp.dot(x[...], w[...], precision=make())",  # never silent: it may be a pair
     "jnp.dot: precision `make()` is not a literal (`make()` is computed) and " + MAY_RUN.replace(
         "; if it does, Mosaic TPU raises", '; if it is not a single scalar the Mosaic TPU lowering accepts, Mosaic TPU '
         'raises "Per-operand dot precision unsupported" for a pair')),
], ids=["pair", "constant", "conv-high", "dot-high", "highest-constant", "none", "unknown"])
def test_a_precision_an_unresolved_launch_may_run_is_noted_when_it_would_fail(op: str, said) -> None:
    source = UNRESOLVED.format(op=op)
    assert _run(source) == (source, [] if said is None else [(12, 18, "manual", said, None)])


# -- more of the walk and of the messages --

def test_a_helpers_argument_is_followed_five_names_deep_and_no_further() -> None:
    def source(hops: int) -> str:
        chain = "".join(f"C{i} = C{i + 1}\n" for i in range(1, hops)) + f"C{hops} = (P.DEFAULT, P.HIGH)\n"
        return chain + _helper("a, b, p", "o[...] = mm(x[...], w[...], C1)")
    assert _note(source(5)) == f"jnp.dot: precision `p` can be (DEFAULT, HIGH) (set on line 5){PAIR_FAILS}"
    assert _note(source(6)) == ("jnp.dot: precision `p` is a kernel parameter whose value is not bound in this module "
                                f"(it is followed too far){NOTE_END}")


def test_a_lambda_helpers_default_is_fixed_where_it_is_set() -> None:
    source = _kernel("g = lambda a, b, p=(P.DEFAULT, P.HIGH): jnp.dot(a, b, precision=p)", "o[...] = g(x[...], w[...])")
    assert _run(source) == (source.replace("p=(P.DEFAULT, P.HIGH)", "p=P.HIGH"), [
        (8, 24, "fixed", f"jnp.dot: precision (DEFAULT, HIGH) -> HIGH ({PAIR}){FORCED}{BF16}", "safe")])


@pytest.mark.parametrize("other", ["o[...] = g(x, w, mm)", "h = mm"], ids=["an-argument", "assigned"])
def test_a_helpers_default_is_fixed_when_no_call_passes_the_parameter(other: str) -> None:
    """`mm` also handed on (as the third argument of `g`, or assigned): that is no call passing `p`."""
    source = _helper("a, b, p=(P.DEFAULT, P.HIGH)", "o[...] = mm(x[...], w[...])", other)
    assert _run(source) == (source.replace("p=(P.DEFAULT, P.HIGH)", "p=P.HIGH"), [
        (7, 16, "fixed", f"jnp.dot: precision (DEFAULT, HIGH) -> HIGH ({PAIR}){FORCED}{BF16}", "safe")])


def test_a_keyword_only_helper_parameter_its_callers_pass_is_theirs_to_set() -> None:
    source = _helper("a, b, *, p=(P.DEFAULT, P.HIGH)", "o[...] = mm(x[...], w[...], p=P.HIGHEST)")
    assert _note(source) == f"jnp.dot: precision `p` can be (DEFAULT, HIGH) (set on line 7){PAIR_FAILS}"


def test_a_list_is_said_to_fail_from_jax_0_7_itself() -> None:
    source = _kernel("o[...] = jnp.einsum('ij,jk', x[...], w[...], precision=[P.HIGH, P.HIGH])")
    assert _run(source, (0, 7)) == (source.replace("[P.HIGH, P.HIGH]", "P.HIGHEST"), [
        (8, 60, "fixed", "jnp.einsum: precision (HIGH, HIGH) -> HIGHEST (HIGH is not lowered for dot on jax 0.7 in Mosaic "
                         "TPU kernels); needed on every backend: jax >= 0.7 rejects a list precision when tracing "
                         f"(parameters must be hashable){BF16}", "safe")])


def test_pl_dot_is_said_to_be_gone_from_the_release_that_removed_it() -> None:
    source = _kernel("o[...] = pl.dot(x[...], w[...], precision=(P.DEFAULT, P.HIGH))")
    assert _run(source, (0, 11, 2)) == (source.replace("(P.DEFAULT, P.HIGH)", "P.HIGH"), [
        (8, 47, "fixed", f"pl.dot: precision (DEFAULT, HIGH) -> HIGH ({PAIR}); pl.dot itself is gone on jax 0.11.2 "
                         f"(removed in 0.11.2): JAX150 rewrites it to jnp.dot{BF16}", "safe")])
    assert _run(source, (0, 11, 1))[1][0][3] == f"pl.dot: precision (DEFAULT, HIGH) -> HIGH ({PAIR}){FORCED}{BF16}"


MOSAIC_GPU_LAUNCH = ("\nfrom jax.experimental.pallas import mosaic_gpu as plgpu\n"
                     "f = pl.pallas_call(kernel, out_shape=None, compiler_params=plgpu.CompilerParams())\n")
NO_GPU_DOT = 'Mosaic GPU cannot lower dot_general in a kernel at all ("Unimplemented primitive in Pallas Mosaic GPU lowering: dot_general")'
NO_BATCHED_DOT = "Triton cannot lower a batched dot_general (its lowering asserts there are no batch dimensions)"


@pytest.mark.parametrize(("launch", "why"), [
    (MOSAIC_GPU_LAUNCH, NO_GPU_DOT),
    (MOSAIC_GPU_LAUNCH + "g = pl.pallas_call(kernel, out_shape=None, backend='triton')\n", f"{NO_GPU_DOT} and {NO_BATCHED_DOT}"),
], ids=["mosaic-gpu", "mosaic-gpu-and-triton"])
def test_a_batch_matmul_no_backend_of_its_kernel_lowers(launch: str, why: str) -> None:
    source = _kernel("o[...] = lax.batch_matmul(x[...], w[...], precision=(P.DEFAULT, P.HIGH))", launch=launch)
    assert _run(source) == (source, [(8, 14, "manual", f"lax.batch_matmul: {why}, whatever its precision: this kernel "
                                                       "cannot lower as written (Mosaic GPU kernels multiply matrices with "
                                                       "plgpu.wgmma or plgpu.tcgen05_mma); no precision fix written", None)])


def test_a_list_conv_on_a_release_whose_mosaic_tpu_has_no_conv_is_fixed_and_says_so() -> None:
    """No backend lowers the conv on 0.10.0; the list fails to trace anywhere, so it is fixed all the same.
    The message said "so this kernel lowers for Mosaic TPU only" after saying Mosaic TPU cannot lower it."""
    source = _kernel("o[...] = lax.conv(x[...], w[...], (1, 1), 'SAME', precision=[P.DEFAULT, P.HIGH])")
    assert _run(source, (0, 10, 0)) == (source.replace("[P.DEFAULT, P.HIGH]", "P.HIGHEST"), [
        (8, 65, "fixed", f"lax.conv: precision (DEFAULT, HIGH) -> HIGHEST ({PAIR}); note: on jax 0.10.0 Mosaic TPU "
                         "cannot lower conv_general_dilated in a kernel at all (\"Unimplemented primitive in Pallas TPU "
                         "lowering for tc: conv_general_dilated\"); needed on every backend: jax >= 0.7 rejects a list "
                         "precision when tracing (parameters must be hashable); note: Triton cannot lower "
                         "conv_general_dilated in a kernel at all (\"Unimplemented primitive in Pallas Triton lowering: "
                         "conv_general_dilated\"), so no backend of this kernel lowers it", "safe")])


# -- the survivors of the run: a constant several ops share, notes on two lines, calls before and beside --

def test_a_helpers_arguments_on_two_lines_are_both_named() -> None:
    source = _helper("a, b, p", "o[...] = mm(x[...], w[...], (P.DEFAULT, P.HIGH))",
                     "o[...] = mm(x[...], w[...], (P.HIGH, P.DEFAULT))")
    assert _note(source) == f"jnp.dot: precision `p` can be (DEFAULT, HIGH) or (HIGH, DEFAULT) (set on lines 11, 12){PAIR_FAILS}"


@pytest.mark.parametrize(("ops", "level", "message"), [
    (("lax.conv(x[...], w[...], (1, 1), 'SAME', precision=C)", "jnp.dot(x[...], w[...], precision=C)"), "HIGHEST",
     f"lax.conv: precision (DEFAULT, HIGH) -> HIGHEST ({PAIR}){NO_TRITON_CONV}"),
    (("jnp.dot(x[...], w[...], precision=C)", "lax.conv(x[...], w[...], (1, 1), 'SAME', precision=C)"), "HIGHEST",
     f"lax.conv: precision (DEFAULT, HIGH) -> HIGHEST ({PAIR}){NO_TRITON_CONV}"),
    (("jnp.dot(x[...], w[...], precision=C)", "jnp.matmul(x[...], w[...], precision=C)"), "HIGH",
     f"jnp.dot: precision (DEFAULT, HIGH) -> HIGH ({PAIR}){FORCED}{BF16}"),  # the same level: the first use's words
], ids=["conv-then-dot", "dot-then-conv", "two-dots"])
def test_a_constant_two_ops_use_takes_the_level_both_accept(ops: tuple, level: str, message: str) -> None:
    source = "C = (P.DEFAULT, P.HIGH)\n" + _kernel(*(f"o[...] = {op}" for op in ops))
    assert _run(source) == (source.replace("C = (P.DEFAULT, P.HIGH)", f"C = P.{level}"), [(1, 5, "fixed", message, "safe")])


@pytest.mark.parametrize("before", ["y = jnp.add(x, w)", "y = jnp.dot(x[...], w[...])"], ids=["no-op", "no-precision"])
def test_a_call_passed_over_before_a_contraction_does_not_stop_the_scan(before: str) -> None:
    source = _kernel(before, "o[...] = jnp.dot(x[...], w[...], precision=(P.DEFAULT, P.HIGH))")
    assert _run(source) == (source.replace("(P.DEFAULT, P.HIGH)", "P.HIGH"), [
        (9, 48, "fixed", f"jnp.dot: precision (DEFAULT, HIGH) -> HIGH ({PAIR}){FORCED}{BF16}", "safe")])


def test_a_pair_in_plain_code_before_a_kernel_is_left_and_the_kernels_fixed() -> None:
    source = HEAD.replace("def kernel(x, w, o):", "def f(x, w):\n    return jnp.dot(x, w, precision=(P.DEFAULT, P.HIGH))\n\n"
                                                    "def kernel(x, w, o):") + \
        "    o[...] = jnp.dot(x[...], w[...], precision=(P.DEFAULT, P.HIGH))\n" + TPU
    after, findings = _run(source)
    assert after == source.replace("o[...] = jnp.dot(x[...], w[...], precision=(P.DEFAULT, P.HIGH))",
                                   "o[...] = jnp.dot(x[...], w[...], precision=P.HIGH)")
    assert findings == [(11, 48, "fixed", f"jnp.dot: precision (DEFAULT, HIGH) -> HIGH ({PAIR}){FORCED}{BF16}", "safe")]


def test_a_constant_a_mosaic_gpu_kernel_shares_with_a_tpu_kernel_is_still_fixed() -> None:
    """The Mosaic GPU kernel's op cannot lower at all (its note), but its use of the constant is a kernel's."""
    source = "C = (P.DEFAULT, P.HIGH)\n" + HEAD.replace(
        "def kernel(x, w, o):", "def gpu_kernel(x, w, o):\n    o[...] = jnp.dot(x[...], w[...], precision=C)\n\n"
                                "def kernel(x, w, o):") + "    o[...] = jnp.dot(x[...], w[...], precision=C)\n" + TPU + \
        "from jax.experimental.pallas import mosaic_gpu as plgpu\n" \
        "g = pl.pallas_call(gpu_kernel, out_shape=None, compiler_params=plgpu.CompilerParams())\n"
    after, findings = _run(source)
    assert after == source.replace("C = (P.DEFAULT, P.HIGH)", "C = P.HIGH")
    assert [f[:3] for f in findings] == [(1, 5, "fixed"), (9, 14, "manual")]


def test_a_helpers_parameter_its_callers_set_to_a_computed_value_is_said_so() -> None:
    source = _helper("a, b, p=P.HIGHEST", "o[...] = mm(x[...], w[...], make())")
    assert _note(source) == f"jnp.dot: precision `p` is a parameter its callers set (`make()` is computed){NOTE_END}"


def test_a_conv_pair_no_backend_lowers_is_a_note_and_no_fix() -> None:
    source = _kernel("o[...] = lax.conv(x[...], w[...], (1, 1), 'SAME', precision=(P.DEFAULT, P.HIGH))")
    assert _run(source, (0, 10, 0)) == (source, [
        (8, 14, "manual", 'lax.conv: Mosaic TPU and Triton cannot lower conv_general_dilated in a kernel at all '
                          '("Unimplemented primitive in Pallas TPU lowering for tc: conv_general_dilated"; "Unimplemented '
                          'primitive in Pallas Triton lowering: conv_general_dilated"), whatever its precision: this kernel '
                          'cannot lower as written; no precision fix written', None)])


# -- mutation testing, 2026-12-05: a survivor left killable (`_schedule` asking shared_with_xla(None)) --

def test_a_pair_in_a_helper_plain_xla_code_also_calls_is_reported_not_rewritten() -> None:
    source = ("import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n"
              "P = lax.Precision\n\n\ndef mm(a, b):\n    return jnp.dot(a, b, precision=(P.DEFAULT, P.HIGHEST))\n\n\n"
              "def kernel(x, w, o):\n    o[...] = mm(x[...], w[...])\n\n\ny = mm(1, 2)\n"
              "f = pl.pallas_call(kernel, out_shape=None)\n")
    assert _run(source) == (source, [(9, 12, "manual", "`mm` runs in kernels and in plain XLA code, and needs a rewrite "
                                      "for its kernel callers (line 9): rewriting it would change the XLA path too; not "
                                      "rewritten (give the kernel its own copy)", None)])
