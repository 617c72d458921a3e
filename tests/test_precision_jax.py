"""JAX001 against JAX itself, for every precision golden: what the tool writes is what JAX traces.

For each precision the tool rewrites in a golden `.in.py` (the tool's output for the installed jax,
not the stored `.out.py`), both the value the user wrote and the value the tool wrote are evaluated
in their own modules and handed to JAX's own `dot_general` / `conv_general_dilated` while tracing:
the precision recorded in the jaxpr must be one scalar (equal on both operands), at least as
accurate as the most accurate operand the user asked for, and one the installed jax's Mosaic TPU
lowering accepts: a kernel using it lowers for tpu (`jax.export`), where the release lowers the op.
A rewrite to a weaker level, or to one Mosaic rejects, fails here.
"""

from __future__ import annotations

import ast
import difflib
import re
from pathlib import Path

import pytest

pytest.importorskip("jax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402

from codemods.capabilities import MOSAIC_TPU_CONV_SINCE, MOSAIC_TPU_DOT_HIGH_SINCE, Level, lowered_precisions  # noqa: E402
from codemods.engine.diagnostics import Kind  # noqa: E402
from codemods.engine.runner import process_source  # noqa: E402
from codemods.registry import select  # noqa: E402
from codemods.rules.per_operand_precision import OPS  # noqa: E402
from codemods.settings import Settings  # noqa: E402
from tests import jax_support  # noqa: E402
from tests.test_fixtures import case_settings  # noqa: E402

pytestmark = pytest.mark.jax

FIXTURES = Path(__file__).parent / "fixtures" / "precision"
CASES = sorted(FIXTURES.glob("*.in.py"))
_KIND_BY_DISPLAY = {re.sub(r"^jax\.numpy\.", "jnp.", re.sub(r"^jax\.lax\.", "lax.", re.sub(
    r"^jax\.experimental\.pallas\.", "pl.", name))): op.kind for name, op in OPS.items()}

# The goldens in which JAX001 rightly rewrites nothing for the installed release (a [manual] note, a
# backend that lowers the code as written, code outside kernels): every other golden must rewrite.
NOTHING_TO_REWRITE = {
    "already_valid", "backend_triton_compiler_params", "backend_triton_params_aliased_variable",
    "helper_shared_with_xla", "kwargs_needs_review", "module_constant_shared_with_xla", "outside_kernel_untouched",
    "parameter_followed_to_callers", "plgpu_kernel_call", "rebound_names_need_review", "shadowed_names_not_jax",
    "star_args_needs_review", "unbound_parameter_needs_review", "values_the_analysis_cannot_follow",
    "module_constant_default_of_xla_function", "unlaunched_body_values_the_analysis_cannot_follow",
    "helper_table_shared_with_xla",
}
# Goldens whose only rewrites are of conv precisions: before Mosaic TPU lowers convs at all, the
# kernel gets a [manual] note ("cannot lower conv_general_dilated") instead.
CONV_ONLY = {
    "comments_and_formatting", "conv_general_dilated_positional", "conv_pair_lax_precision",
    "conv_precision_imported_as_P", "conv_scalar_high", "equal_pairs", "fully_qualified_jax_lax",
    "lax_conv_positional", "precision_in_parentheses",
}
DOT_HIGH_ONLY = {"dot_high_jax_0_10", "dot_high_jax_0_12"}  # a scalar HIGH dot: lowered since 0.11.1


def _rewrites_nothing(name: str, version) -> bool:
    return (name in NOTHING_TO_REWRITE or (name in CONV_ONLY and version < MOSAIC_TPU_CONV_SINCE)
            or (name in DOT_HIGH_ONLY and version >= MOSAIC_TPU_DOT_HIGH_SINCE))


def _levels_traced(kind: str, precision) -> tuple[Level, Level]:
    """The (lhs, rhs) precision JAX records in the jaxpr when an op of `kind` is given `precision`."""
    if kind == "dot":
        operands = (jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((128, 128), jnp.float32))
        jaxpr = jax.make_jaxpr(lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())), precision=precision))
        primitive = "dot_general"
    else:
        operands = (jax.ShapeDtypeStruct((1, 8, 8, 128), jnp.float32), jax.ShapeDtypeStruct((3, 3, 128, 128), jnp.float32))
        jaxpr = jax.make_jaxpr(lambda a, b: lax.conv_general_dilated(
            a, b, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), precision=precision))
        primitive = "conv_general_dilated"
    (eqn,) = [e for e in jaxpr(*operands).jaxpr.eqns if e.primitive.name == primitive]
    recorded = eqn.params["precision"]
    pair = recorded if isinstance(recorded, tuple) else (recorded, recorded)
    return tuple(Level[(p or lax.Precision.DEFAULT).name] for p in pair)  # type: ignore[return-value]


def _lowers_in_a_tpu_kernel(kind: str, precision) -> bool:
    if kind == "dot":
        def body(x_ref, y_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=precision)
        shapes, out = ((8, 128), (128, 128)), (8, 128)
    else:
        def body(x_ref, y_ref, o_ref):
            o_ref[...] = lax.conv_general_dilated(x_ref[...], y_ref[...], (1, 1), "SAME",
                                                  dimension_numbers=("NHWC", "HWIO", "NHWC"), precision=precision)
        shapes, out = ((1, 8, 8, 128), (3, 3, 128, 128)), (1, 8, 8, 128)
    kernel = pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(out, jnp.float32))
    operands = [jax.ShapeDtypeStruct(shape, jnp.float32) for shape in shapes]
    return jax_support.lowering_error(jax.jit(kernel), operands, "tpu") is None


def _asked_at(source: str, line: int, column: int) -> ast.expr:
    """The value a finding is about, in the input: the outermost expression starting where it points,
    or the tuple whose first element starts there (a finding points inside a tuple's parenthesis)."""
    offset = len(source.splitlines()[line - 1][: column - 1].encode())
    nodes = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.expr)]
    tuples = [node for node in nodes if isinstance(node, (ast.Tuple, ast.List)) and node.elts
              and (node.elts[0].lineno, node.elts[0].col_offset) == (line, offset) and node.col_offset != offset]
    if tuples:
        return tuples[0]
    starting = [node for node in nodes if (node.lineno, node.col_offset) == (line, offset)]
    assert starting, f"no expression at {line}:{column}"
    return max(starting, key=lambda node: (node.end_lineno, node.end_col_offset))


def _written_for(source: str, after: str, asked: ast.expr) -> ast.expr:
    """The expression the tool wrote in place of `asked`: it starts where `asked` started, on the
    line the input's line became (earlier multi-line rewrites may have moved it up)."""
    matcher = difflib.SequenceMatcher(None, source.splitlines(), after.splitlines(), autojunk=False)
    for _, i1, i2, j1, _ in matcher.get_opcodes():
        if i1 <= asked.lineno - 1 < i2:
            line = j1 + (asked.lineno - 1 - i1) + 1
            break
    nodes = [node for node in ast.walk(ast.parse(after)) if isinstance(node, ast.expr)
             and (node.lineno, node.col_offset) == (line, asked.col_offset)]
    assert nodes, f"nothing written at {line}:{asked.col_offset + 1}"
    return max(nodes, key=lambda node: (node.end_lineno, node.end_col_offset))


def _evaluate(module, source: str, node: ast.expr):
    """The value in the module's namespace; a list pair as the tuple JAX 0.12 requires (a list is
    rejected at trace time, and what it asks for is what counts)."""
    value = eval(compile(ast.Expression(node), module.__file__, "eval"), module.__dict__)  # noqa: S307
    return tuple(value) if isinstance(value, list) else value


# What JAX001's finding on a rewritten dot algorithm preset says.
PRESET = "precision DotAlgorithmPreset."
# What JAX001 says of a fix to DEFAULT for operands the source casts to bfloat16.
BFLOAT16_OPERANDS = "its operands are cast to bfloat16"

@pytest.mark.parametrize("case", CASES, ids=lambda path: path.name[: -len(".in.py")])
def test_every_rewritten_precision_is_one_scalar_at_least_as_accurate_and_lowers(case: Path) -> None:
    source = case.read_text()
    settings = case_settings(source)
    if settings.jax_version != jax_support.JAX_VERSION:
        settings = Settings(jax_support.JAX_VERSION, settings.scope, settings.precision_policy, settings.helpers_module)
    result = process_source(case, source.encode(), select(["JAX001"]), settings)
    assert result.error is None, result.error
    fixes = [f for f in result.findings if f.kind is Kind.FIXED]
    name = case.name[: -len(".in.py")]
    if _rewrites_nothing(name, jax_support.JAX_VERSION):
        assert not fixes, f"{case.name}: nothing should be rewritten for this release, got {fixes}"
        return
    assert fixes, f"{case.name}: nothing rewritten for jax {jax.__version__}"
    original = jax_support.load_program(source, f"precision_in_{case.stem.replace('.', '_')}")
    rewritten = jax_support.load_program(result.after, f"precision_out_{case.stem.replace('.', '_')}")
    for finding in fixes:
        if PRESET in finding.message:
            continue  # a dot algorithm preset is no Precision pair: its casts and levels, test_presets_direct.py
        kind = _KIND_BY_DISPLAY[finding.message.split(":", 1)[0]]
        asked_node = _asked_at(source, finding.line, finding.column)
        asked = _levels_traced(kind, _evaluate(original, source, asked_node))
        value = _evaluate(rewritten, result.after, _written_for(source, result.after, asked_node))
        got = _levels_traced(kind, value)
        where = f"{case.name}:{finding.line}"
        assert got[0] == got[1], f"{where}: the rewrite still traces per-operand precision {got}"
        if BFLOAT16_OPERANDS in finding.message:
            # Operands cast to bfloat16: one bf16 pass (DEFAULT) multiplies them exactly, and Mosaic TPU's
            # compiler takes no more (on a TPU v5e, bf16 x bf16 at DEFAULT was as close to float64 as
            # float32 at HIGHEST: 9.9e-6 and 1.2e-5 over a 256-long contraction; tests/tpu/README.md).
            assert got[0] is Level.DEFAULT, where
        else:
            assert got[0] >= max(asked), f"{where}: asked for {asked}, JAX traces {got[0].name}: less accurate"
        accepted = lowered_precisions("mosaic_tpu", kind, jax_support.JAX_VERSION)
        if accepted is None:
            continue  # this release cannot lower the op in a TPU kernel at all (the finding says so)
        assert got[0] in accepted, f"{where}: {got[0].name} is not lowered for {kind} on this release"
        assert _lowers_in_a_tpu_kernel(kind, value), f"{where}: a Mosaic TPU kernel with {value!r} does not lower"
