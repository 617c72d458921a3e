"""codemods/rules/narrow_dtypes.py (JAX004) run in the test's process: which ops it rewrites (the
dtype shown in the source, the ops the capability table says Mosaic TPU rejects on it), which it
leaves alone (outside kernels, Triton kernels, dtypes not shown, mixed dtypes, out-of-range literals,
ops the chip does) and the exact text and findings. Nothing here imports jax."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods import registry
from codemods.engine.runner import process_source
from codemods.settings import Scope, Settings

TARGET = Settings((0, 12, 0, 1))
HEAD = "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n\n\ndef k(x_ref, y_ref, o_ref):\n"
TPU = "\n\ndef run(x, y):\n    return pl.pallas_call(k, out_shape=x)(x, y)\n"
TRITON = ("\n\nfrom jax.experimental.pallas import triton as plgpu\n\n\ndef run(x, y):\n"
          "    return pl.pallas_call(k, out_shape=x, compiler_params=plgpu.CompilerParams())(x, y)\n")


def _run(body: str, launch: str = TPU, settings: Settings = TARGET):
    source = HEAD + body + launch
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX004"]), settings)
    assert result.error is None, result.error
    changed = result.after[len(HEAD):len(result.after) - len(launch)] if result.after else None
    return changed, [(f.line, f.column, f.kind.value, f.fix.applicability.value if f.fix else None)
                     for f in result.findings], [f.message for f in result.findings]


@pytest.mark.parametrize(("body", "expected"), [
    ("    q = x_ref[...].astype(jnp.int8)\n    o_ref[...] = q - q\n",
     "    q = x_ref[...].astype(jnp.int8)\n    o_ref[...] = (q.astype(jnp.int32) - q.astype(jnp.int32)).astype(jnp.int8)\n"),
    ("    q = jnp.zeros((8, 128), dtype='uint8')\n    o_ref[...] = q < 3\n",
     "    q = jnp.zeros((8, 128), dtype='uint8')\n    o_ref[...] = q.astype(jnp.int32) < 3\n"),
    ("    q = jax.lax.convert_element_type(x_ref[...], jnp.int16)\n    o_ref[...] = jnp.minimum(q, q >> 2)\n",
     "    q = jax.lax.convert_element_type(x_ref[...], jnp.int16)\n"
     "    o_ref[...] = jnp.minimum(q.astype(jnp.int32), (q.astype(jnp.int32) >> 2).astype(jnp.int16).astype(jnp.int32))"
     ".astype(jnp.int16)\n"),
    ("    q = jnp.full((8, 128), 1, jnp.int8)\n    o_ref[...] = -q.max()\n",
     "    q = jnp.full((8, 128), 1, jnp.int8)\n"
     "    o_ref[...] = (-q.astype(jnp.int32).max()).astype(jnp.int8)\n"),  # a negation keeps only the low bits
    ("    q = jax.lax.broadcasted_iota(jnp.int8, (8, 128), 1)\n    o_ref[...] = q - 1\n",  # dtype_arguments' place
     "    q = jax.lax.broadcasted_iota(jnp.int8, (8, 128), 1)\n    o_ref[...] = (q.astype(jnp.int32) - 1).astype(jnp.int8)\n"),
    ("    q = jnp.int8(x_ref[...])\n    o_ref[...] = q >> 1\n",
     "    q = jnp.int8(x_ref[...])\n    o_ref[...] = (q.astype(jnp.int32) >> 1).astype(jnp.int8)\n"),
    ("    q = jnp.where(x_ref[...] > 0, x_ref[...].astype(jnp.int8), 0)\n    o_ref[...] = q * -2\n",
     "    q = jnp.where(x_ref[...] > 0, x_ref[...].astype(jnp.int8), 0)\n"
     "    o_ref[...] = (q.astype(jnp.int32) * -2).astype(jnp.int8)\n"),
])
def test_fixed(body: str, expected: str) -> None:
    changed, findings, _ = _run(body)
    assert changed == expected
    assert [kind for _, _, kind, _ in findings] == ["fixed"] and findings[0][3] == "safe"


@pytest.mark.parametrize(("body", "why"), [
    ("    o_ref[...] = x_ref[...] + y_ref[...]\n", "a ref's dtype is not shown"),
    ("    q = x_ref[...].astype(jnp.int8)\n    o_ref[...] = q + y_ref[...].astype(jnp.int16)\n",
     "int8 with int16 promotes to int16, whose addition compiles"),
    ("    q = x_ref[...].astype(jnp.int8)\n    o_ref[...] = q + 300\n", "a literal outside int8: jax refuses it"),
    ("    q = x_ref[...].astype(jnp.int16)\n    o_ref[...] = (q + q) * q > -q\n", "int16 arithmetic compiles"),
    ("    q = x_ref[...].astype(jnp.uint8)\n    o_ref[...] = jnp.abs(q) & q | ~q\n", "uint8 abs and bitwise ops compile"),
    ("    q = x_ref[...].astype(jnp.int8)\n    o_ref[...] = (q == 1) != (q != 2)\n", "equality compiles"),
    ("    q = x_ref[...].astype(jnp.int32)\n    o_ref[...] = q + q\n", "int32"),
    ("    q = x_ref[...].astype(jnp.int8)\n    if y_ref[0, 0] > 0:\n        q = q.astype(jnp.int32)\n    o_ref[...] = q * 2\n",
     "a name bound in a branch: either binding may reach the use"),
    ("    q = x_ref[...].astype(jnp.int8)\n    for _ in range(2):\n        o_ref[...] = q * 2\n        q = o_ref[...]\n",
     "a name bound in a loop: the loop's back-edge brings the second binding to the use"),
    ("    q = x_ref[...]\n    f = lambda: q * 2\n    q = q.astype(jnp.int8)\n    o_ref[...] = f()\n",
     "a closure reads the name when it runs"),
])
def test_left_alone(body: str, why: str) -> None:
    changed, findings, _ = _run(body)
    assert (changed, findings) == (None, []), why


def test_a_name_rebound_in_straight_line_code_reads_the_binding_before_it() -> None:
    """`q = lax.convert_element_type(...)` then `q = jnp.minimum(lax.shift_right_arithmetic(q, ...), ...)`
    (the eighth trial's `requant`): each use reads the last assignment above it in the kernel's body."""
    body = ("    q = jax.lax.convert_element_type(x_ref[...], jnp.int8)\n"
            "    q = jnp.minimum(jax.lax.shift_right_arithmetic(q, jnp.int8(2)), 100)\n    o_ref[...] = q + 1\n")
    changed, findings, _ = _run(body)
    assert changed == ("    q = jax.lax.convert_element_type(x_ref[...], jnp.int8)\n"
                       "    q = jnp.minimum(jax.lax.shift_right_arithmetic(q.astype(jnp.int32), jnp.int8(2).astype(jnp.int32))"
                       ".astype(jnp.int8).astype(jnp.int32), 100).astype(jnp.int8)\n"
                       "    o_ref[...] = (q.astype(jnp.int32) + 1).astype(jnp.int8)\n")
    assert [kind for _, _, kind, _ in findings] == ["fixed", "fixed"]


def test_an_arithmetic_shift_of_uint8_gets_a_manual_finding() -> None:
    """jax shifts a uint8's top bit in as a sign bit (128 -> 192 for a shift by 1); an int32 shift of the
    zero-extended value gives 64: no rewrite is bit-identical."""
    changed, findings, messages = _run("    q = x_ref[...].astype(jnp.uint8)\n"
                                       "    o_ref[...] = jax.lax.shift_right_arithmetic(q, q)\n")
    assert changed is None and [kind for _, _, kind, _ in findings] == ["manual"]
    assert messages[0].startswith("lax.shift_right_arithmetic on uint8 vectors: Mosaic TPU's compiler rejects it")


def test_outside_kernels_and_in_triton_kernels_nothing_changes_unless_scope_all() -> None:
    body = "    q = x_ref[...].astype(jnp.int8)\n    o_ref[...] = q << 1\n"
    assert _run(body, TRITON)[:2] == (None, [])
    changed, findings, _ = _run(body, TRITON, Settings((0, 12, 0, 1), scope=Scope.ALL))
    assert changed == "    q = x_ref[...].astype(jnp.int8)\n    o_ref[...] = (q.astype(jnp.int32) << 1).astype(jnp.int8)\n"


def test_messages_quote_the_error_and_say_why_the_fix_is_exact() -> None:
    body = "    q = x_ref[...].astype(jnp.int8)\n    o_ref[...] = jnp.max(q * q, axis=0)\n"
    _, findings, messages = _run(body)
    assert findings == [(8, 18, "fixed", "safe")]
    assert messages == ["max reduction on int8 vectors: Mosaic TPU's lowering rejects it (\"Reductions over int8 not "
                        "implemented.\"); now computed in int32, cast back to int8 (with the multiplication inside it), "
                        "bit-identical for every int8 input"]
    _, _, messages = _run("    q = x_ref[...].astype(jnp.uint8)\n    o_ref[...] = q > q\n")
    assert messages == ["ordering comparison on uint8 vectors: Mosaic TPU's compiler rejects it on the chip (TPU v5e, "
                        "jax 0.10.2): \"Target does not support this comparison\" (arith.cmpi); now computed in int32, "
                        "bit-identical for every uint8 input"]


def test_the_dtype_is_spelled_through_the_modules_own_import() -> None:
    source = ("import numpy as np\nimport jax.numpy as xp\nfrom jax.experimental import pallas as pl\n\n\n"
              "def k(x_ref, o_ref):\n    q = x_ref[...].astype(np.uint8)\n    o_ref[...] = q * q\n\n\n"
              "def run(x):\n    return pl.pallas_call(k, out_shape=x)(x)\n")
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX004"]), TARGET)
    assert "    o_ref[...] = (q.astype(xp.int32) * q.astype(xp.int32)).astype(xp.uint8)\n" in result.after


LAUNCHED = """\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def k(a_ref, b_ref, o_ref, p_ref):
    o_ref[...] = a_ref[...] * b_ref[...]
    p_ref[...] = -o_ref[...]


def run(x, y):
    return pl.pallas_call(k, {launch})({operands})
"""
TWO_OUT = "out_shape=(jax.ShapeDtypeStruct(x.shape, jnp.int8), jax.ShapeDtypeStruct(x.shape, jnp.uint8))"


@pytest.mark.parametrize(("launch", "operands", "fixed"), [
    (TWO_OUT, "x.astype(jnp.uint8), y.astype(jnp.uint8)", [8, 9]),  # inputs and both outputs shown
    (TWO_OUT, "x, y", [9]),  # the inputs not shown: the first output (o_ref, int8) is
    (TWO_OUT, "*xs", [9]),  # spread operands: not laid out as the parameters
    (TWO_OUT + ", grid_spec=spec", "x.astype(jnp.uint8), y.astype(jnp.uint8)", []),  # scalar prefetch refs lead
    (TWO_OUT + ", **options", "x.astype(jnp.uint8), y.astype(jnp.uint8)", []),
    ("out_shape=jax.ShapeDtypeStruct(x.shape, jnp.int8), scratch_shapes=[pltpu.VMEM((8, 128), jnp.int8)]",
     "x.astype(jnp.int8), y.astype(jnp.int8)", [8, 9]),  # p_ref is the scratch ref
    ("out_shape=jax.ShapeDtypeStruct(x.shape, jnp.int8), scratch_shapes=scratch",
     "x.astype(jnp.int8), y.astype(jnp.int8)", []),  # how many scratch refs is not seen
])
def test_ref_dtypes_come_from_the_launch(launch: str, operands: str, fixed: list) -> None:
    source = LAUNCHED.format(launch=launch, operands=operands)
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX004"]), TARGET)
    assert [(f.line, f.kind.value) for f in result.findings] == [(line, "fixed") for line in fixed]


def test_launches_that_disagree_get_a_manual_finding() -> None:
    source = LAUNCHED.format(launch="out_shape=(x, x)", operands="x.astype(jnp.int8), y.astype(jnp.int8)") + \
        "\n\ndef run_wide(x, y):\n    return pl.pallas_call(k, out_shape=(x, x))(x.astype(jnp.int32), y)\n"
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX004"]), TARGET)
    assert result.after == "" and [(f.line, f.kind.value) for f in result.findings] == [(8, "manual")]
    assert result.findings[0].message.startswith(
        "multiplication: a launch of this kernel gives `a_ref` int8 elements, on which Mosaic TPU rejects this op, and "
        "another launch another dtype: not rewritten")


def test_a_uint8_sum_gets_a_manual_finding_not_a_rewrite() -> None:
    """jax sums uint8 as uint32, which Mosaic TPU does not reduce; an int32 sum would change the
    result's dtype, so the finding says what to write and the code stays. An int8 sum (int32) lowers."""
    changed, findings, messages = _run("    q = x_ref[...].astype(jnp.uint8)\n    o_ref[...] = jnp.sum(q, axis=0) + q.sum()\n"
                                       "    o_ref[...] = jnp.sum(x_ref[...].astype(jnp.int8))\n")
    assert changed is None and findings == [(8, 18, "manual", None), (8, 39, "manual", None)]
    assert messages[0] == ("sum over uint8 vectors: Mosaic TPU's lowering rejects it (\"Reductions over unsigned "
                           "integers not implemented.\": jax sums uint8 as uint32); not rewritten, as the result's dtype "
                           "would change: `jnp.sum(a.astype(jnp.int32), axis=...)` if an int32 sum will do (exact below "
                           "2**31)")
