"""JAX007 against the installed jax: the helpers compute what XLA's functions do, in a Pallas kernel run
in interpret mode, within the errors the findings name; `explain` is fed the tracebacks jax really
prints for math Mosaic TPU cannot lower, and the program it fixes lowers."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402

from codemods import helpers_source as helpers  # noqa: E402
from tests.test_cli import REPO  # noqa: E402
from tests.test_explain import explain, lower  # noqa: E402

pytestmark = pytest.mark.jax
BLOCK = (8, 128)


def _in_a_kernel(function, x: np.ndarray, dtype=jnp.float32) -> np.ndarray:
    """`function` applied in a Pallas kernel, interpreted, block by block of BLOCK rows."""
    call = pl.pallas_call(lambda x_ref, o_ref: o_ref.__setitem__(..., function(x_ref[...]).astype(o_ref.dtype)),
                          out_shape=jax.ShapeDtypeStruct(BLOCK, dtype), interpret=True)
    return np.concatenate([np.asarray(call(block)) for block in x.reshape(-1, *BLOCK)])


def _inputs(low: float, high: float) -> np.ndarray:
    """A grid over [low, high] and values near 0 down to 1e-30: eight blocks."""
    tiny = np.geomspace(1e-30, 1, 2048)
    return np.concatenate([np.linspace(low, high, 4096), tiny, -tiny]).astype(np.float32).reshape(-1, 128)


def _ulps(a: np.ndarray, b: np.ndarray) -> int:
    """The largest distance in float32 steps between finite a and b."""
    def ordered(v):
        bits = v.astype(np.float32).view(np.int32).astype(np.int64)
        return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)

    both = np.isfinite(a) & np.isfinite(b)
    return int(np.abs(ordered(a) - ordered(b))[both].max(initial=0))


# (function as XLA computes it, the rewrite JAX007 writes, inputs, the most float32 steps apart it may be)
ULP_BOUNDS = {
    "expm1": (jnp.expm1, helpers.expm1_tpu, (-100, 88), 4),
    "sinh": (jnp.sinh, helpers.sinh_tpu, (-88, 88), 5),
    "cosh": (jnp.cosh, helpers.cosh_tpu, (-88, 88), 1),
    "arcsin": (jnp.arcsin, helpers.arcsin_tpu, (-1, 1), 2),
    "arccos": (jnp.arccos, helpers.arccos_tpu, (-1, 1), 2),
    "elu": (functools.partial(jax.nn.elu, alpha=0.5),
            lambda x: jnp.maximum(x, 0.0) + 0.5 * helpers.expm1_tpu(jnp.minimum(x, 0.0)), (-30, 30), 4),
    "selu": (jax.nn.selu, lambda x: 1.0507009873554805 * (jnp.maximum(x, 0.0) + 1.6732632423543772 * helpers.expm1_tpu(
        jnp.minimum(x, 0.0))), (-30, 30), 5),  # expm1's 4, and the scale's rounding
}


@pytest.mark.parametrize("name", sorted(ULP_BOUNDS))
def test_a_helper_is_within_the_ulps_its_finding_names(name: str) -> None:
    xla, rewrite, (low, high), bound = ULP_BOUNDS[name]
    x = _inputs(low, high)
    got, want = _in_a_kernel(rewrite, x), np.asarray(jax.jit(xla)(x))
    assert np.array_equal(np.isfinite(got), np.isfinite(want))  # overflows where the function does
    assert _ulps(got, want) <= bound


def test_arctan2_of_x_and_one_is_xlas_arctan_bit_for_bit() -> None:
    x = _inputs(-1e4, 1e4)
    assert np.array_equal(_in_a_kernel(lambda v: jnp.arctan2(v, 1.0), x), np.asarray(jax.jit(jnp.arctan)(x)))
    assert np.array_equal(_in_a_kernel(lambda v: lax.atan2(v, 1.0), x), np.asarray(jax.jit(lax.atan)(x)))


def test_erfc_and_exact_gelu_keep_their_tails() -> None:
    """1 - erf(x) is 0 from x = 4; erfc_tpu keeps 1e-5 of XLA's erfc wherever it is a normal float32."""
    x = _inputs(-9, 9)
    got, want = _in_a_kernel(helpers.erfc_tpu, x), np.asarray(jax.jit(lax.erfc)(x), np.float64)
    normal = want > np.finfo(np.float32).tiny
    assert (np.abs(got[normal] - want[normal]) / want[normal]).max() <= 1e-5
    naive = _in_a_kernel(lambda v: 1.0 - lax.erf(v), x)
    assert (naive[x > 4.5] == 0).all()  # what the rewrite is not
    gelu = _in_a_kernel(lambda v: 0.5 * v * helpers.erfc_tpu(-v * 0.7071067811865476), _inputs(-12, 12))
    assert np.abs(gelu - np.asarray(jax.jit(functools.partial(jax.nn.gelu, approximate=False))(
        _inputs(-12, 12)))).max() <= 3e-7


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_the_scans_are_exact_for_integers_and_close_for_floats(axis: int) -> None:
    rng = np.random.default_rng(0)
    ints = rng.integers(-3_000_000, 3_000_000, BLOCK).astype(np.int32)
    for helper, xla in ((helpers.cumsum_tpu, jnp.cumsum), (helpers.cumprod_tpu, jnp.cumprod)):
        small = ints if helper is helpers.cumsum_tpu else (ints % 3 - 1)
        got = _in_a_kernel(lambda v, h=helper: h(v, axis), small, jnp.int32)
        assert np.array_equal(got, np.asarray(xla(small, axis=axis)))
    floats = rng.uniform(-3, 3, BLOCK).astype(np.float32)
    got = _in_a_kernel(lambda v: helpers.cumsum_tpu(v, axis), floats)
    np.testing.assert_allclose(got, np.asarray(jnp.cumsum(floats, axis=axis)), atol=1e-4)


KERNEL = '''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

PLATFORM = "tpu"


def kernel(x_ref, o_ref):
    o_ref[...] = {call}


def build():
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
    return jax.jit(call), (jax.ShapeDtypeStruct((8, 128), jnp.float32),)
'''


@pytest.mark.parametrize("call, primitive, safe", [
    ("jnp.arctan(x_ref[...])", "atan", True),
    ("2.0 * jnp.expm1(x_ref[...])", "expm1", False),
    ("jax.nn.gelu(x_ref[...], approximate=False)", "erfc", False),
])
def test_explain_places_the_unlowered_primitive_and_its_fix_lowers(call: str, primitive: str, safe: bool,
                                                                     tmp_path: Path) -> None:
    program = tmp_path / "math_kernel.py"
    program.write_text(KERNEL.format(call=call))
    failed = lower(program, tmp_path)
    assert f"NotImplementedError: Unimplemented primitive in Pallas TPU lowering for tc: {primitive}" in failed.stderr, \
        failed.stderr[-2000:]
    dry = explain(failed.stderr, tmp_path)
    assert dry.returncode == 1, dry.stderr
    assert "math_kernel.py:9: JAX007: the traceback's `Unimplemented primitive in Pallas TPU lowering for tc: " \
        f"{primitive}` comes from this call" in dry.stderr
    assert program.read_text() == KERNEL.format(call=call)
    written = explain(failed.stderr, tmp_path, "--write", *([] if safe else ["--unsafe-fixes"]))
    assert written.returncode == 0, written.stderr
    assert program.read_text() != KERNEL.format(call=call)
    assert lower(program, tmp_path).stdout.strip() == "lowered"


def test_a_traceback_that_starts_inside_a_jitted_jax_function_says_where_to_look(tmp_path: Path) -> None:
    """jax.nn.elu is jitted: JAX's trace of its expm1 starts inside jax and never names the kernel's line.
    explain cannot place it, and says so, naming the function and the rule that finds the call."""
    program = tmp_path / "elu_kernel.py"
    program.write_text(KERNEL.format(call="jax.nn.elu(x_ref[...])"))
    failed = lower(program, tmp_path)
    assert "Unimplemented primitive in Pallas TPU lowering for tc: expm1" in failed.stderr
    result = explain(failed.stderr, tmp_path)
    assert result.returncode == 2
    assert "its innermost frame is jax's own `elu`" in result.stderr and "--select JAX007" in result.stderr


# -- Triton's walls -----------------------------------------------------------------------------

def _bit_patterns(dtype, n: int = 1 << 15, seed: int = 0) -> np.ndarray:
    """Random bit patterns of `dtype` (every magnitude, subnormals, infinities, NaN), the halves where
    rounding ties and their neighbours, and both zeros: (n + ...) // 128 rows of 128."""
    width = np.dtype(dtype).itemsize * 8
    bits = np.random.default_rng(seed).integers(0, 1 << width, n, dtype=np.uint64).astype(f"uint{width}")
    halves = np.arange(-600, 600, dtype=np.float32) / 2
    with np.errstate(invalid="ignore"):  # NaN patterns cast
        values = np.concatenate([bits.view(jnp.dtype(dtype)), halves, np.nextafter(halves, np.inf),
                                 np.nextafter(halves, -np.inf), [0.49999997, -0.49999997, 0.0, -0.0, np.inf, -np.inf]])
        values = np.concatenate([values, np.zeros((-len(values)) % 128, np.float32)]).astype(dtype)
    return values.reshape(-1, 128)


def _interpreted(function, *operands: np.ndarray) -> np.ndarray:
    """`function` on whole arrays in one interpreted Pallas kernel (a reduction sees every row)."""
    out = jax.eval_shape(function, *operands)
    return np.asarray(pl.pallas_call(
        lambda *refs: refs[-1].__setitem__(..., function(*(ref[...] for ref in refs[:-1]))),
        out_shape=jax.ShapeDtypeStruct(out.shape, out.dtype), interpret=True)(*operands))


def _same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    """Bit for bit, every NaN counted as one (its payload is not the rewrite's to keep)."""
    got, want = np.atleast_1d(got), np.atleast_1d(want)
    nan = np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32))
    return got.dtype == want.dtype and np.array_equal(np.where(nan, 0, got).view(np.uint8),
                                                      np.where(nan, 0, want).view(np.uint8))


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.bfloat16, jnp.float16])
@pytest.mark.parametrize("xla, decimals, half_to_even", [
    (jnp.round, 0, True), (functools.partial(jnp.round, decimals=2), 2, True), (jnp.around, 0, True),
    (functools.partial(jnp.round, decimals=3), 3, True), (lax.round, 0, False),
    (functools.partial(lax.round, rounding_method=lax.RoundingMethod.TO_NEAREST_EVEN), 0, True),
])
def test_round_triton_is_xlas_round_bit_for_bit(dtype, xla, decimals: int, half_to_even: bool) -> None:
    """The safe fix: the same bits as XLA's round for every value tried, -0.0, infinities and NaN
    included; with decimals, as jnp.round scales (a narrow quotient divided in float32)."""
    x = _bit_patterns(dtype)
    got = _interpreted(lambda v: helpers.round_triton(v, decimals, half_to_even), x)
    assert _same_bits(got, np.asarray(jax.jit(xla)(x)))


def test_round_triton_leaves_integers_as_jnp_round_does() -> None:
    x = np.arange(-512, 512, dtype=np.int32).reshape(-1, 128)
    assert _same_bits(_interpreted(lambda v: helpers.round_triton(v, 2), x), np.asarray(jnp.round(x, 2)))


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.bfloat16, jnp.float16])
def test_erf_triton_is_within_the_ulps_its_finding_names(dtype) -> None:
    """The unsafe fix: XLA's own float32 fit, within 5 float32 steps (3e-7) of XLA's erf, one float16
    step for float16, bit-identical for bfloat16."""
    x = _bit_patterns(dtype)
    got, want = _interpreted(helpers.erf_triton, x), np.asarray(jax.jit(lax.erf)(x))
    assert got.dtype == want.dtype
    if dtype == jnp.bfloat16:
        assert _same_bits(got, want)
        return
    assert np.array_equal(np.isnan(got), np.isnan(want))
    finite = ~np.isnan(want)
    assert np.abs(got.astype(np.float64) - want.astype(np.float64))[finite].max() <= 3e-7 if dtype == jnp.float32 \
        else (np.abs(got[finite] - want[finite]) <= np.spacing(np.abs(want[finite]))).all()
    if dtype == jnp.float32:
        normal = finite & (np.abs(want) >= np.finfo(np.float32).tiny)
        assert _ulps(got[normal], want[normal]) <= 5


@pytest.mark.parametrize("every", [True, False])
@pytest.mark.parametrize("axis, keepdims", [(None, False), (None, True), (0, True), (1, False), (-1, True), ((0, 1), False)])
def test_bool_reduction_triton_is_jnp_all_and_any(every: bool, axis, keepdims: bool) -> None:
    x = _bit_patterns(jnp.float32)[:64]
    x[3] = 1.0  # a row with no zero, so jnp.all is true somewhere
    xla = jnp.all if every else jnp.any
    for operand in (x, x > 1e3, np.floor(x / 1e30)):  # floats (NaN counts as true), booleans, mostly zeros
        got = _interpreted(lambda v: helpers.bool_reduction_triton(v, axis, keepdims, every=every), operand)
        assert _same_bits(got, np.asarray(xla(operand, axis=axis, keepdims=keepdims)))


TRITON_KERNEL = '''\
import contextlib

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plt


def kernel(x_ref, o_ref):
    o_ref[...] = {call}


def abstract_gpu():
    """An abstract H100, which jax 0.12 asks for on a machine without a GPU (0.10.2 needs none)."""
    if not hasattr(jax.sharding, "AbstractDevice"):
        return contextlib.nullcontext()
    device = jax.sharding.AbstractDevice(device_kind="NVIDIA H100", num_cores=None, platform="gpu")
    return jax.sharding.use_abstract_mesh(jax.sharding.AbstractMesh((1,), ("x",), abstract_device=device))


if __name__ == "__main__":
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                          compiler_params=plt.CompilerParams())
    with abstract_gpu():
        jax.jit(call).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32)).lower(lowering_platforms=("cuda",))
    print("lowered")
'''


def _lower_for_triton(program: Path):
    from tests import warm_python

    env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONWARNINGS": "ignore"}
    return warm_python.run([program], env=env, timeout=300, cwd=program.parent)


@pytest.mark.parametrize("call, primitive, safe, placed", [
    ("lax.erf(x_ref[...])", "erf", False, False),
    ("jnp.round(x_ref[...], 2)", "round", True, True),
    ("jnp.where(jnp.any(x_ref[...] > 0, axis=1, keepdims=True), x_ref[...], 0.0)", "reduce_or", True, False),
    ("jax.nn.gelu(x_ref[...], approximate=False)", "erfc", False, False),
])
def test_explain_answers_what_triton_cannot_lower_and_the_fix_lowers(call: str, primitive: str, safe: bool,
                                                                     placed: bool, tmp_path: Path) -> None:
    """Triton raises "Unimplemented primitive" before it enters the equation's source context: the
    traceback holds the kernel's line only where the primitive sits in a function jnp jits (jnp.round
    with decimals), and explain places it there and writes the fix; elsewhere (lax.erf) explain says it
    cannot place the error and names JAX007, whose fix then lowers."""
    program = tmp_path / "triton_kernel.py"
    source = TRITON_KERNEL.format(call=call)
    program.write_text(source)
    failed = _lower_for_triton(program)
    error = f"Unimplemented primitive in Pallas Triton lowering: {primitive}"
    assert f"NotImplementedError: {error}" in failed.stderr, failed.stderr[-2000:]
    told = explain(failed.stderr, tmp_path)
    assert told.returncode == (1 if placed else 2), told.stderr
    if placed:
        assert f"triton_kernel.py:11: JAX007: the traceback's `{error}` comes from this call" in told.stderr
        fixed = explain(failed.stderr, tmp_path, "--write", *([] if safe else ["--unsafe-fixes"]))
    else:
        assert f"cannot place `{error}`" in told.stderr and "--select JAX007" in told.stderr, told.stderr
        assert program.read_text() == source
        fixed = subprocess.run([sys.executable, "-m", "codemods", "fix", "--select", "JAX007", "--write", "-j", "1",
                                *([] if safe else ["--unsafe-fixes"]), str(program)], capture_output=True, text=True,
                               env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120, cwd=tmp_path)
    assert fixed.returncode == 0 and program.read_text() != source, fixed.stderr
    lowered = _lower_for_triton(program)
    assert lowered.stdout.strip() == "lowered", lowered.stderr[-2000:]


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float16, jnp.float32])
def test_divide_triton_is_xlas_division_bit_for_bit(dtype) -> None:
    """The safe fix: a narrow quotient divided in float32 and rounded back is the correctly rounded
    one (float32 has more than twice their precision plus two bits): the same bits as XLA's division
    of arrays of random bit patterns (every magnitude, zeros, infinities, NaN), and of a Python number."""
    x, y = _bit_patterns(dtype, seed=1), _bit_patterns(dtype, seed=2)
    assert _same_bits(_interpreted(helpers.divide_triton, x, y), np.asarray(jax.jit(jnp.divide)(x, y)))
    assert _same_bits(_interpreted(lambda v: helpers.divide_triton(3, v), y), np.asarray(jax.jit(lambda v: 3 / v)(y)))
    # (Not by a constant divisor: XLA on a CPU, which runs the interpreted kernel, divides by a constant
    # through its reciprocal, which is not always the correctly rounded quotient: an ulp off for float16.)


DIVISION_KERNEL = TRITON_KERNEL.replace("def kernel(x_ref, o_ref):", "def kernel(x_ref, y_ref, o_ref):").replace(
    'jax.ShapeDtypeStruct((8, 128), jnp.float32)', 'jax.ShapeDtypeStruct((8, 128), jnp.bfloat16)').replace(
    ".trace(jax.ShapeDtypeStruct((8, 128), jnp.bfloat16))", ".trace(*[jax.ShapeDtypeStruct((8, 128), jnp.bfloat16)] * 2)")


def test_explain_places_a_bfloat16_division_the_source_does_not_show_and_its_fix_lowers(tmp_path: Path) -> None:
    """The refs are bfloat16 because the launch's operands are: nothing in the kernel shows it, so only
    the traceback (which names the kernel's line, on jax 0.10.2 and 0.12.0.1) proves the division fails."""
    program = tmp_path / "division_kernel.py"
    source = DIVISION_KERNEL.format(call="x_ref[...] / y_ref[...] + x_ref[...]")
    program.write_text(source)
    failed = _lower_for_triton(program)
    assert "NotImplementedError: unsupported types: tensor<8x128xbf16> and tensor<8x128xbf16>" in failed.stderr, \
        failed.stderr[-2000:]
    assert jax_codemod_fix_changes_nothing(program)  # the dtype does not show
    dry = explain(failed.stderr, tmp_path)
    assert dry.returncode == 1, dry.stderr
    assert "division_kernel.py:11: JAX007: the traceback's `unsupported types: tensor<8x128xbf16> and " \
        "tensor<8x128xbf16>` comes from this call" in dry.stderr, dry.stderr
    written = explain(failed.stderr, tmp_path, "--write")
    assert written.returncode == 0, written.stderr
    assert "o_ref[...] = divide_triton(x_ref[...], y_ref[...]) + x_ref[...]" in program.read_text()
    lowered = _lower_for_triton(program)
    assert lowered.stdout.strip() == "lowered", lowered.stderr[-2000:]


def jax_codemod_fix_changes_nothing(program: Path) -> bool:
    checked = subprocess.run([sys.executable, "-m", "codemods", "fix", "--select", "JAX007", "--check", "-j", "1",
                              str(program)], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
                             timeout=120, cwd=program.parent)
    return checked.returncode == 0


@pytest.mark.parametrize("call", [
    "jnp.cumsum(jnp.expm1(x_ref[...]), axis=-1)",
    "jax.nn.elu(jnp.sinh(x_ref[...]))",
    "jnp.expm1(jnp.cumsum(x_ref[...], axis=0) * 0.01)",
])
def test_nested_rewrites_are_all_written_in_one_run_and_the_kernel_lowers(call: str, tmp_path: Path) -> None:
    """The outer call's rewrite is written around its argument as the inner rewrite left it (the tenth
    trial's S2: the outer's text, made from the argument as first written, undid the inner fix)."""
    program = tmp_path / "math_kernel.py"
    program.write_text(KERNEL.format(call=call))
    assert "Unimplemented primitive in Pallas TPU lowering" in lower(program, tmp_path).stderr
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    written = subprocess.run([sys.executable, "-m", "codemods", "--write", "--unsafe-fixes", str(program)],
                             capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    assert lower(program, tmp_path).stdout.strip() == "lowered", program.read_text()
