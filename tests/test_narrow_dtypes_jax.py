"""JAX004 against real jax: its rewrites give the very bits the narrow ops give, for every pair of 8-bit
values, and lower for Mosaic TPU where the original does not.

Each op the rule rewrites is written in a kernel whose operands are visibly int8, uint8 or int16; the
tool rewrites it, and both kernels run in Pallas' interpreter (plain XLA on the CPU, which computes
8-bit integer ops) over a 256 x 256 grid holding every pair of 8-bit values (for int16, every value
of a sweep through its extremes against every shift amount from -128 to 127). Where the op fails
already at lowering (max/min reductions), the original fails to lower for TPU with the error the
finding quotes and the rewrite lowers. That Mosaic's compiler on the chip takes the rewrites is
bench/chip/narrow_golden_chip.py's to show (a TPU machine only).
"""

from __future__ import annotations

import functools
import types
from pathlib import Path
from typing import Optional

import numpy as np
import pytest

pytest.importorskip("jax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402

from codemods.capabilities import narrow_rejected, parse_version  # noqa: E402
from codemods.engine.diagnostics import Kind  # noqa: E402
from codemods.engine.runner import process_source  # noqa: E402
from codemods.registry import select  # noqa: E402
from codemods.settings import Settings  # noqa: E402
from tests import jax_support  # noqa: E402

pytestmark = pytest.mark.jax

GOLDEN = Path(__file__).parent / "fixtures" / "narrow" / "int8_elementwise"
# name -> the kernel's expression of `a` and `b` (both of the dtype under test)
OPS = {
    "add": "a + b", "sub": "a - b", "mul": "a * b", "neg": "-a", "shift left": "a << b",
    "shift right": "a >> b", "shift by a literal": "(a << 3) >> 1", "less": "(a < b).astype(jnp.int32)",
    "greater or equal": "jnp.where(a >= b, a, b)", "maximum": "jnp.maximum(a, b)", "minimum": "jnp.minimum(a, b)",
    "abs": "jnp.abs(a)", "max reduction": "jnp.broadcast_to(jnp.max(a, axis=1, keepdims=True), a.shape)",
    "min method": "jnp.broadcast_to(a.min(axis=0, keepdims=True), a.shape)",
    "chain": "jnp.maximum(a * 2 - b, -(a >> 1))",
    # Kept in int32 between ring ops; the shift amount (b - a) and >>'s operand are cast back first.
    "ring chain": "((a * b + a) << (b - a)) - ((a - b) >> 1) * -(a << 2)",
    # lax's spellings (a logical right shift is not rewritten: its int32 twin shifts sign bits in).
    "lax shift left": "jax.lax.shift_left(a, b)", "lax arithmetic shift right": "jax.lax.shift_right_arithmetic(a, b)",
    "lax max": "jax.lax.max(a, b)", "lax min": "jax.lax.min(b, a)", "lax abs": "jax.lax.abs(a)",
}
# The ops the table says the chip rejects on int16 (the others compile as written: left alone).
INT16_OPS = ("shift left", "shift right", "shift by a literal", "maximum", "minimum", "max reduction", "min method",
             "lax shift left", "lax arithmetic shift right", "lax max", "lax min")
# Compiled as written on uint8 (abs), or not rewritten there (an arithmetic shift of uint8: its sign bit).
NOT_UINT8 = ("abs", "lax abs", "lax arithmetic shift right")
KERNEL = """\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref):
    a = x_ref[...].astype(jnp.{dtype})
    b = y_ref[...].astype(jnp.{dtype})
    o_ref[...] = {expression}


def launch(x, y):  # what makes `kernel` a Mosaic TPU kernel body; the tests launch it themselves
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y)
"""


def _rewrite(source: str) -> str:
    result = process_source(Path("kernel.py"), source.encode(), select(["JAX004"]),
                            Settings(parse_version("0.12.0.1"), unsafe_fixes=False))
    assert result.error is None and result.new_source is not None, (result.error, source)
    assert {finding.kind for finding in result.findings} == {Kind.FIXED}, result.findings
    return result.new_source.decode()


def _grid(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    if dtype == "int16":
        values = np.resize(np.concatenate([np.arange(-128, 128), [-32768, 32767, -32767, 255, 256, -129, 4096,
                                                                  -4097, 12345, -12345]]), 256).astype(np.int16)
        shifts = np.arange(-128, 128, dtype=np.int16)
        return np.broadcast_to(values[:, None], (256, 256)), np.broadcast_to(shifts[None, :], (256, 256))
    info = np.iinfo(dtype)
    values = np.arange(info.min, info.max + 1).astype(dtype)
    return np.broadcast_to(values[:, None], (256, 256)), np.broadcast_to(values[None, :], (256, 256))


def _run(source: str, a: np.ndarray, b: np.ndarray, dtype: str) -> np.ndarray:
    kernel = jax_support.load_program(source, f"narrow_kernel_{abs(hash(source))}").kernel
    out = jax.eval_shape(lambda x, y: kernel_value(kernel, x, y), a, b)
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(a.shape, out.dtype), interpret=True)
    return np.asarray(jax.jit(call)(a, b))


def kernel_value(kernel, x, y):
    """What the kernel stores, computed outside Pallas (for its dtype)."""
    class Ref:
        def __init__(self, value=None):
            self.value = value

        def __getitem__(self, index):
            return self.value

        def __setitem__(self, index, value):
            self.value = value
    out = Ref()
    kernel(Ref(x), Ref(y), out)
    return out.value


# jax primitives by the op the capability table names them.
PRIMITIVE_OPS = {"add": "add", "sub": "sub", "mul": "mul", "neg": "neg", "shift_left": "shift",
                 "shift_right_arithmetic": "shift", "shift_right_logical": "shift", "lt": "compare", "le": "compare",
                 "gt": "compare", "ge": "compare", "max": "maximum", "min": "minimum", "abs": "abs",
                 "reduce_max": "reduce_max", "reduce_min": "reduce_min"}


def rejected_ops(fn, *args) -> list[str]:
    """The ops of `fn`'s jaxpr (kernel bodies of its launches included) that Mosaic TPU rejects on their
    operands' dtype (capabilities)."""
    found = []

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            op = PRIMITIVE_OPS.get(eqn.primitive.name)
            dtypes = {str(var.aval.dtype) for var in eqn.invars if hasattr(var.aval, "dtype")}
            if op is not None and any(op in narrow_rejected("mosaic_tpu", dtype, None) for dtype in dtypes):
                found.append(f"{eqn.primitive.name} on {sorted(dtypes)}")
            for param in eqn.params.values():
                for inner in param if isinstance(param, (tuple, list)) else [param]:
                    inner = getattr(inner, "jaxpr", inner)
                    if hasattr(inner, "eqns"):
                        walk(inner)

    walk(jax.make_jaxpr(fn)(*args).jaxpr)
    return found


CASES = [(dtype, name) for dtype in ("int8", "uint8") for name in OPS
         if not (dtype == "uint8" and name in NOT_UINT8)] + [("int16", name) for name in INT16_OPS]


@pytest.mark.parametrize(("dtype", "name"), CASES, ids=[f"{d}-{n}" for d, n in CASES])
def test_rewrite_is_bit_identical_for_every_input(dtype: str, name: str) -> None:
    source = KERNEL.format(dtype=dtype, expression=OPS[name])
    rewritten = _rewrite(source)
    assert "astype(jnp.int32)" in rewritten
    a, b = _grid(dtype)
    expected = _run(source, a, b, dtype)
    got = _run(rewritten, a, b, dtype)
    assert got.dtype == expected.dtype
    mismatched = int((got != expected).sum())
    assert mismatched == 0, f"{mismatched} of {got.size} differ:\n{rewritten}"
    # What Mosaic TPU sees: the original applies an op the table says it rejects on these dtypes, the
    # rewrite none (every such op now has int32 operands).
    kernels = [jax_support.load_program(text, f"narrow_jaxpr_{abs(hash(text))}").kernel for text in (source, rewritten)]
    assert rejected_ops(lambda x, y: kernel_value(kernels[0], x, y), a, b), source
    assert rejected_ops(lambda x, y: kernel_value(kernels[1], x, y), a, b) == [], rewritten


@pytest.mark.parametrize("dtype, cast", [("int8", None), ("uint8", None), ("int16", None),
                                         ("int8", '{}.astype(jnp.dtype("int8"))'), ("int8", "{}.astype(dtype=jnp.int8)"),
                                         ("int8", "jnp.astype({}, jnp.int8)")])
def test_reduction_fails_to_lower_for_tpu_and_its_rewrite_lowers(dtype: str, cast: Optional[str]) -> None:
    """`cast`: the refs' cast as jax takes it too, other than `.astype(jnp.int8)` (a keyword's and
    jnp.astype's were silent)."""
    source = KERNEL.format(dtype=dtype, expression=OPS["max reduction"])
    for ref in ("x_ref[...]", "y_ref[...]") if cast else ():
        source = source.replace(f"{ref}.astype(jnp.{dtype})", cast.format(ref))
    a, b = _grid(dtype)

    def launch(text):
        kernel = jax_support.load_program(text, f"narrow_reduce_{abs(hash(text))}").kernel
        return jax.jit(pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(a.shape, dtype)))

    unsigned = dtype.startswith("u")
    assert jax_support.lowering_error(launch(source), (a, b), "tpu") == \
        f"Reductions over {'unsigned integers' if unsigned else dtype} not implemented."
    assert jax_support.lowering_error(launch(_rewrite(source)), (a, b), "tpu") is None


# Each golden's launches: what lowering its .in.py for TPU raises (None: it lowers; the chip's compiler
# rejects the narrow op, tests/fixtures/narrow/*.findings say which), and whether the .out.py is fixed.
GOLDEN_LAUNCHES = {
    "int8_elementwise": {"dequant": None, "unsigned": None, "reduce": "Reductions over int8 not implemented.",
                         "int16": None},
    "launch_dtypes": {"unpack": None, "double": None, "clamp_int16": None, "scratch": None},
}
# Launches left as written, with a [manual] finding: their .out.py keeps the op Mosaic TPU rejects.
GOLDEN_MANUAL = {("launch_dtypes", "clamp_int16")}
GOLDEN_INPUT = np.random.default_rng(0).integers(0, 128, (256, 256)).astype(np.float32)  # exact in every dtype


@pytest.mark.parametrize("golden", sorted(GOLDEN_LAUNCHES))
def test_golden_out_lowers_for_tpu_and_computes_what_the_in_does(golden: str) -> None:
    """The golden's kernels: the .in.py fails to lower for TPU where the lowering rejects the op, every
    .out.py launch lowers, applies no op Mosaic TPU rejects on its dtype (but where a [manual] finding
    says so), and both run in Pallas' interpreter to the same bits."""
    original = jax_support.load_program(GOLDEN.parent / f"{golden}.in.py", f"narrow_{golden}_in")
    rewritten = jax_support.load_program(GOLDEN.parent / f"{golden}.out.py", f"narrow_{golden}_out")
    x = jnp.asarray(GOLDEN_INPUT)
    for entry, error in GOLDEN_LAUNCHES[golden].items():
        assert jax_support.lowering_error(jax.jit(getattr(original, entry)), (x,), "tpu") == error, entry
        assert jax_support.lowering_error(jax.jit(getattr(rewritten, entry)), (x,), "tpu") is None, entry
        assert rejected_ops(getattr(original, entry), x), entry
        assert bool(rejected_ops(getattr(rewritten, entry), x)) == ((golden, entry) in GOLDEN_MANUAL), entry
        results = []
        for program in (original, rewritten):
            program.pl = types.SimpleNamespace(pallas_call=functools.partial(pl.pallas_call, interpret=True))
            results.append(np.asarray(getattr(program, entry)(x)))
            program.pl = pl
        np.testing.assert_array_equal(results[1], results[0], err_msg=entry)
