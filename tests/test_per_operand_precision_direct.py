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
                                                                f"({PAIR}){FORCED}"),
    ("o[...] = lax.batch_matmul(x[...], w[...], (P.DEFAULT, P.HIGH))",
     "o[...] = lax.batch_matmul(x[...], w[...], P.HIGH)", 47,
     f"lax.batch_matmul: precision (DEFAULT, HIGH) -> HIGH ({PAIR}); note: Triton cannot lower a batched dot_general "
     "(its lowering asserts there are no batch dimensions), so this kernel lowers for Mosaic TPU only"),
    ("o[...] = jnp.vdot(x[...], w[...], precision=(P.DEFAULT, P.HIGH))",
     "o[...] = jnp.vdot(x[...], w[...], precision=P.HIGH)", 49, f"jnp.vdot: precision (DEFAULT, HIGH) -> HIGH ({PAIR}){FORCED}"),
    ("o[...] = jnp.inner(x[...], w[...], precision=(P.HIGH, P.DEFAULT))",
     "o[...] = jnp.inner(x[...], w[...], precision=P.HIGH)", 50, f"jnp.inner: precision (HIGH, DEFAULT) -> HIGH ({PAIR}){FORCED}"),
    ("o[...] = jnp.tensordot(x[...], w[...], precision=(P.HIGHEST, P.DEFAULT))",
     "o[...] = jnp.tensordot(x[...], w[...], precision=P.HIGHEST)", 54,
     f"jnp.tensordot: precision (HIGHEST, DEFAULT) -> HIGHEST ({PAIR}){FORCED}"),
    ("o[...] = jnp.matmul(x[...], w[...], precision=(P.DEFAULT, P.HIGH))",
     "o[...] = jnp.matmul(x[...], w[...], precision=P.HIGH)", 51, f"jnp.matmul: precision (DEFAULT, HIGH) -> HIGH ({PAIR}){FORCED}"),
    ("o[...] = jnp.einsum('ij,jk', x[...], w[...], precision=(P.DEFAULT, P.HIGH))",
     "o[...] = jnp.einsum('ij,jk', x[...], w[...], precision=P.HIGH)", 60,
     f"jnp.einsum: precision (DEFAULT, HIGH) -> HIGH ({PAIR}){FORCED}"),
    ("o[...] = lax.dot(x[...], w[...], precision=(P.DEFAULT, P.HIGH))",
     "o[...] = lax.dot(x[...], w[...], precision=P.HIGH)", 48, f"lax.dot: precision (DEFAULT, HIGH) -> HIGH ({PAIR}){FORCED}"),
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
                         f"TPU kernels){FORCED}", "safe"),
        (9, 60, "fixed", "jnp.einsum: precision (HIGH, HIGH) -> HIGHEST (HIGH is not lowered for dot on jax 0.10.0 in "
                         "Mosaic TPU kernels); needed on every backend: jax >= 0.7 rejects a list precision when "
                         "tracing (parameters must be hashable)", "safe")])
    before_lists_failed = _run(source, (0, 6, 0))[1]
    assert [f[3] for f in before_lists_failed][1] == (
        f"jnp.einsum: precision (HIGH, HIGH) -> HIGHEST (HIGH is not lowered for dot on jax 0.6.0 in Mosaic TPU "
        f"kernels){FORCED}")
    assert _run(source, (0, 7, 0))[1][1][3].endswith("(parameters must be hashable)")


def test_the_highest_policy_writes_highest() -> None:
    source = _kernel("o[...] = jnp.dot(x[...], w[...], precision=(P.DEFAULT, P.HIGH))")
    assert _run(source, precision_policy=PrecisionPolicy.HIGHEST) == (
        source.replace("(P.DEFAULT, P.HIGH)", "P.HIGHEST"),
        [(8, 48, "fixed", f"jnp.dot: precision (DEFAULT, HIGH) -> HIGHEST ({PAIR}){FORCED}", "safe")])


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
                         "TPU cannot lower this kernel until the launch passes pltpu.CompilerParams(...) instead",
         "safe")])


def test_a_triton_and_tpu_kernels_batch_matmul_lowers_for_tpu_only() -> None:
    source = _kernel("o[...] = lax.batch_matmul(x[...], w[...], precision=(P.DEFAULT, P.HIGH))",
                     launch="\nf = pl.pallas_call(kernel, out_shape=None, backend='triton')\n"
                            "g = pl.pallas_call(kernel, out_shape=None)\n")
    assert _run(source) == (source.replace("(P.DEFAULT, P.HIGH)", "P.HIGH"), [
        (8, 57, "fixed", f"lax.batch_matmul: precision (DEFAULT, HIGH) -> HIGH ({PAIR}); note: Triton cannot lower a "
                         "batched dot_general (its lowering asserts there are no batch dimensions), so this kernel "
                         "lowers for Mosaic TPU only", "safe")])


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
