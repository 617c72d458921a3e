"""JAX007's measurements: each rewrite of math Mosaic TPU cannot lower, against XLA's own function.

Run on a CPU (kernels in interpret mode, and lowered for an abstract TPU with jax.export) or on a
TPU (kernels compiled by Mosaic and run on the chip). One line per case: whether the original and
the rewrite lower, and the rewrite's error against the XLA op (max abs, max rel, max ulp), bitwise
equality for those claimed exact. docs/walls.md holds the results (jax 0.10.2 and 0.12.0.1 on a CPU,
jax 0.10.2 on a TPU v5e).

`--triton` does the same for Pallas Triton kernels (lowered on a CPU for an abstract H100, as
codemods/probe.py does; numerics in interpret mode): first which ops of issue 53's Triton walls and
their neighbours lower (TRITON_WALLS), then each Triton rewrite against XLA (TRITON_CASES).

    .venv/bin/python bench/math_walls.py [--triton] [NAME ...]   # every case, or those whose name holds NAME
"""
import functools
from pathlib import Path
import sys
import warnings

import numpy as np
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from codemods import helpers_source as H  # noqa: E402
from codemods.probe import _abstract_gpu  # noqa: E402

warnings.simplefilter("ignore")
ON_TPU = jax.default_backend() == "tpu"
S = (8, 128)
SQRT_HALF = 0.7071067811865476


def grid(lo, hi, n=8 * 128 * 8, dense0=False):
    x = np.linspace(lo, hi, n).astype(np.float32)
    if dense0:
        x = np.concatenate([x, np.geomspace(1e-30, 1, n // 2).astype(np.float32),
                            -np.geomspace(1e-30, 1, n // 2).astype(np.float32)])
    pad = (-len(x)) % (8 * 128)
    x = np.concatenate([x, np.zeros(pad, np.float32)])
    return x.reshape(-1, 128)


CASES = {
    # name: (original, rewrite, inputs, claimed exact)
    "arctan": (jnp.arctan, lambda x: jnp.arctan2(x, 1.0), grid(-1e4, 1e4, dense0=True), True),
    "lax.atan": (lax.atan, lambda x: lax.atan2(x, jnp.ones_like(x)), grid(-50, 50, dense0=True), True),
    "expm1": (jnp.expm1, H.expm1_tpu, grid(-100, 90, dense0=True), False),
    "expm1 exp-1": (jnp.expm1, lambda x: jnp.exp(x) - 1, grid(-100, 90, dense0=True), False),
    "erfc": (jax.scipy.special.erfc, H.erfc_tpu, grid(-10, 10, dense0=True), False),
    "erfc 1-erf": (jax.scipy.special.erfc, lambda x: 1 - lax.erf(x), grid(-10, 10, dense0=True), False),
    "sinh": (jnp.sinh, H.sinh_tpu, grid(-90, 90, dense0=True), False),
    "cosh": (jnp.cosh, H.cosh_tpu, grid(-90, 90, dense0=True), False),
    "arcsin": (jnp.arcsin, H.arcsin_tpu, grid(-1, 1, dense0=True), False),
    "arccos": (jnp.arccos, H.arccos_tpu, grid(-1, 1, dense0=True), False),
    "elu": (jax.nn.elu, lambda x: jnp.maximum(x, 0.0) + 1.0 * H.expm1_tpu(jnp.minimum(x, 0.0)), grid(-30, 30, dense0=True), False),
    "celu a=2": (functools.partial(jax.nn.celu, alpha=2.0),
                 lambda x: jnp.maximum(x, 0.0) + 2.0 * H.expm1_tpu(jnp.minimum(x, 0.0) / 2.0), grid(-30, 30, dense0=True), False),
    "selu": (jax.nn.selu, lambda x: 1.0507009873554805 * (jnp.maximum(x, 0.0) + 1.6732632423543772 * H.expm1_tpu(jnp.minimum(x, 0.0))),
             grid(-30, 30, dense0=True), False),
    "gelu exact": (functools.partial(jax.nn.gelu, approximate=False), lambda x: 0.5 * x * H.erfc_tpu(-x * SQRT_HALF),
                   grid(-12, 12, dense0=True), False),
    "cumsum lanes f32": (lambda x: jnp.cumsum(x, axis=1), lambda x: H.cumsum_tpu(x, 1), grid(-3, 3), False),
    "cumsum sublanes f32": (lambda x: jnp.cumsum(x, axis=0), lambda x: H.cumsum_tpu(x, 0), grid(-3, 3), False),
    "cumprod lanes f32": (lambda x: jnp.cumprod(x, axis=1), lambda x: H.cumprod_tpu(x, 1), 1 + grid(-3, 3) / 300, False),
    "cumsum lanes i32": (lambda x: jnp.cumsum(x.astype(jnp.int32), axis=1),
                         lambda x: H.cumsum_tpu(x.astype(jnp.int32), 1), grid(-3e6, 3e6), True),
    "cumsum sublanes i32": (lambda x: jnp.cumsum(x.astype(jnp.int32), axis=0),
                            lambda x: H.cumsum_tpu(x.astype(jnp.int32), 0), grid(-3e6, 3e6), True),
    "cumprod lanes i32": (lambda x: jnp.cumprod(x.astype(jnp.int32), axis=1),
                          lambda x: H.cumprod_tpu(x.astype(jnp.int32), 1), grid(-3, 3), True),
}


def floats(dtype, n=1 << 16, seed=0):
    """Values of every magnitude a dtype holds (random bit patterns), ties of rounding, and 0, -0."""
    rng = np.random.default_rng(seed)
    width = np.dtype(dtype).itemsize * 8
    bits = rng.integers(0, 1 << width, n, dtype=np.uint64).astype(f"uint{width}")
    values = bits.view(jnp.dtype(dtype)).astype(np.float32)
    ties = np.arange(-600, 600, dtype=np.float32) / 2  # x.5: half to even and half away differ
    near = np.concatenate([np.nextafter(ties, np.inf), np.nextafter(ties, -np.inf), [0.49999997, -0.49999997]])
    x = np.concatenate([values, ties, near, [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(np.float32)
    return np.concatenate([x, np.zeros((-len(x)) % (8 * 128), np.float32)]).reshape(-1, 128).astype(dtype)


def pairs(dtype, n=1 << 16, seed=1):
    """Two arrays of random bit patterns of `dtype` (every magnitude, inf and NaN included)."""
    return floats(dtype, n, seed), floats(dtype, n, seed + 1)


f32, bf16, f16, i32 = jnp.float32, jnp.bfloat16, jnp.float16, jnp.int32
# name: (op on (x, y) in a Triton kernel, operand dtype): the walls of issue 53 item 5 and their neighbours.
TRITON_WALLS = {
    "lax.erf": (lambda x, y: lax.erf(x), f32), "jax.scipy.special.erf": (lambda x, y: jax.scipy.special.erf(x), f32),
    "lax.erf bf16": (lambda x, y: lax.erf(x), bf16), "lax.erfc": (lambda x, y: lax.erfc(x), f32),
    "gelu(approximate=False)": (lambda x, y: jax.nn.gelu(x, approximate=False), f32),
    "gelu (tanh)": (lambda x, y: jax.nn.gelu(x), f32), "lax.erf_inv": (lambda x, y: lax.erf_inv(x), f32),
    "jnp.round": (lambda x, y: jnp.round(x), f32), "jnp.round(x, 2)": (lambda x, y: jnp.round(x, 2), f32),
    "lax.round": (lambda x, y: lax.round(x), f32), "jnp.rint": (lambda x, y: jnp.rint(x), f32),
    "jnp.floor": (lambda x, y: jnp.floor(x), f32), "jnp.trunc": (lambda x, y: jnp.trunc(x), f32),
    "jnp.all": (lambda x, y: jnp.broadcast_to(jnp.all(x > 0), x.shape), f32),
    "jnp.any(axis=1)": (lambda x, y: jnp.broadcast_to(jnp.any(x > 0, axis=1, keepdims=True), x.shape), f32),
    "(x > 0).all()": (lambda x, y: jnp.broadcast_to((x > 0).all(), x.shape), f32),
    "x / y bf16": (lambda x, y: x / y, bf16), "x / y f16": (lambda x, y: x / y, f16),
    "x / 2 bf16": (lambda x, y: x / 2, bf16), "jnp.reciprocal bf16": (lambda x, y: jnp.reciprocal(x), bf16),
    "x / y f32": (lambda x, y: x / y, f32), "x // y f32": (lambda x, y: x // y, f32),
    "x // y bf16": (lambda x, y: x // y, bf16), "x // y i32": (lambda x, y: x // y, i32),
    "x % y bf16": (lambda x, y: x % y, bf16), "jnp.sign": (lambda x, y: jnp.sign(x), f32),
    "jnp.sign bf16": (lambda x, y: jnp.sign(x), bf16), "jnp.cumsum(axis=1)": (lambda x, y: jnp.cumsum(x, axis=1), f32),
    "jnp.cumsum(axis=0) i32": (lambda x, y: jnp.cumsum(x, axis=0), i32),
    "jnp.cumprod(axis=1)": (lambda x, y: jnp.cumprod(x, axis=1), f32),
    "jnp.expm1": (lambda x, y: jnp.expm1(x), f32), "jnp.arctan": (lambda x, y: jnp.arctan(x), f32),
    "jnp.sinh": (lambda x, y: jnp.sinh(x), f32),
    # the rewrites
    "erf_triton": (lambda x, y: H.erf_triton(x), f32), "erf_triton bf16": (lambda x, y: H.erf_triton(x), bf16),
    "erfc_tpu": (lambda x, y: H.erfc_tpu(x), f32), "round_triton": (lambda x, y: H.round_triton(x), f32),
    "round_triton(x, 2) bf16": (lambda x, y: H.round_triton(x, 2), bf16),
    "round_triton(half_to_even=False)": (lambda x, y: H.round_triton(x, half_to_even=False), f32),
    "bool_reduction_triton": (lambda x, y: jnp.broadcast_to(H.bool_reduction_triton(x > 0), x.shape), f32),
    "bool_reduction_triton(axis=1, every=False)": (lambda x, y: jnp.broadcast_to(
        H.bool_reduction_triton(x > 0, 1, True, every=False), x.shape), f32),
    "divide_triton bf16": (H.divide_triton, bf16), "divide_triton f16": (H.divide_triton, f16),
    "cumprod_tpu": (lambda x, y: H.cumprod_tpu(x, 1), f32),
}

# name: (XLA's function of (x, y), the rewrite, inputs, claimed exact): each Triton rewrite against XLA.
TRITON_CASES = {
    "erf f32": (lambda x, y: lax.erf(x), lambda x, y: H.erf_triton(x), floats(f32), False),
    "erf bf16": (lambda x, y: lax.erf(x), lambda x, y: H.erf_triton(x), floats(bf16), False),
    "erf f16": (lambda x, y: lax.erf(x), lambda x, y: H.erf_triton(x), floats(f16), False),
    "erfc f32": (lambda x, y: lax.erfc(x), lambda x, y: H.erfc_tpu(x), grid(-10, 10, dense0=True), False),
    "round f32": (lambda x, y: jnp.round(x), lambda x, y: H.round_triton(x), floats(f32), True),
    "round bf16": (lambda x, y: jnp.round(x), lambda x, y: H.round_triton(x), floats(bf16), True),
    "round f16": (lambda x, y: jnp.round(x), lambda x, y: H.round_triton(x), floats(f16), True),
    "round(x, 2) f32": (lambda x, y: jnp.round(x, 2), lambda x, y: H.round_triton(x, 2), floats(f32), True),
    "round(x, 2) bf16": (lambda x, y: jnp.round(x, 2), lambda x, y: H.round_triton(x, 2), floats(bf16), True),
    "round(x, 3) f16": (lambda x, y: jnp.round(x, 3), lambda x, y: H.round_triton(x, 3), floats(f16), True),
    "lax.round f32": (lambda x, y: lax.round(x), lambda x, y: H.round_triton(x, half_to_even=False), floats(f32), True),
    "lax.round bf16": (lambda x, y: lax.round(x), lambda x, y: H.round_triton(x, half_to_even=False), floats(bf16),
                       True),
    "all axis=1": (lambda x, y: jnp.all(x > 0, axis=1, keepdims=True),
                   lambda x, y: H.bool_reduction_triton(x > 0, 1, True), floats(f32), True),
    "any axis=0 of floats": (lambda x, y: jnp.any(jnp.floor(x / 1e30), axis=0, keepdims=True),
                             lambda x, y: H.bool_reduction_triton(jnp.floor(x / 1e30), 0, True, every=False),
                             floats(f32), True),
    "x / y bf16": (lambda x, y: x / y, H.divide_triton, pairs(bf16), True),
    "x / y f16": (lambda x, y: x / y, H.divide_triton, pairs(f16), True),
    "3 / y bf16": (lambda x, y: 3 / y, lambda x, y: H.divide_triton(3, y), pairs(bf16), True),
}


def triton_lowers(fn, dtype, shape=(16, 128)) -> str:
    """Lower `fn(x_ref[...], y_ref[...])` in a Pallas Triton kernel for an abstract H100."""
    from jax.experimental.pallas import triton as pltriton

    def body(x_ref, y_ref, o_ref):
        o_ref[...] = fn(x_ref[...], y_ref[...]).astype(o_ref.dtype)

    kernel = pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(shape, dtype),
                            compiler_params=pltriton.CompilerParams())
    operand = jax.ShapeDtypeStruct(shape, dtype)
    try:
        with _abstract_gpu():
            jax.jit(kernel).trace(operand, operand).lower(lowering_platforms=("cuda",))
        return "lowers"
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: " + (str(e).strip().splitlines() or [""])[0].split(". Please file")[0]


def triton_main(only):
    print("jax", jax.__version__, "Triton: lowered for an abstract H100 on a CPU", flush=True)
    for name, (fn, dtype) in TRITON_WALLS.items():
        if not only or any(o in name for o in only):
            print(f"{name:44} {jnp.dtype(dtype).name:9} {triton_lowers(fn, dtype)}", flush=True)
    print("-- rewrites against XLA (kernels in interpret mode)", flush=True)
    for name, (xla, new, operands, exact) in TRITON_CASES.items():
        if only and not any(o in name for o in only):
            continue
        x, y = operands if isinstance(operands, tuple) else (operands, operands)
        want = np.asarray(jax.jit(xla)(x, y))
        got = np.asarray(pl.pallas_call(  # the whole array in one kernel: a reduction sees every row
            lambda x_ref, y_ref, o_ref: o_ref.__setitem__(..., new(x_ref[...], y_ref[...]).astype(o_ref.dtype)),
            out_shape=jax.ShapeDtypeStruct(want.shape, want.dtype), interpret=True)(x, y))
        nan = np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32))
        bitwise = np.array_equal(np.where(nan, 0, got).view(np.uint8), np.where(nan, 0, want).view(np.uint8))
        g, w = got.astype(np.float64), want.astype(np.float64)
        normal = np.isfinite(g) & np.isfinite(w) & (np.abs(w) >= np.finfo(got.dtype).tiny if got.dtype != np.bool_
                                                   else True)
        absd = np.abs(g - w)[np.isfinite(g) & np.isfinite(w)]
        if got.dtype == np.bool_:
            ulp = 0
        else:  # steps apart in the dtype's own order (the sign-magnitude bits made monotonic)
            width = got.dtype.itemsize * 8
            ordered = [np.where(b < 0, -(b & ((1 << (width - 1)) - 1)), b) for b in (
                v.view(f"int{width}").astype(np.int64) for v in (got, want))]
            ulp = int(np.abs(ordered[0] - ordered[1])[normal].max(initial=0))
        print(f"{name:22} {len(x.reshape(-1)):7} values  max abs {absd.max(initial=0):.2e}  max ulp (normal results) "
              f"{ulp}  bitwise {bitwise}"
              f"  nans agree {np.array_equal(np.isnan(g), np.isnan(w))}"
              + ("  <-- claimed exact" if exact and not bitwise else ""), flush=True)


def kernel_of(fn, shape, dtype):
    def body(x_ref, o_ref):
        o_ref[...] = fn(x_ref[...]).astype(o_ref.dtype)
    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(shape, dtype), interpret=not ON_TPU)


def lowers(fn, x, out_dtype):
    k = pl.pallas_call(lambda x_ref, o_ref: o_ref.__setitem__(..., fn(x_ref[...]).astype(o_ref.dtype)),
                       out_shape=jax.ShapeDtypeStruct(S, out_dtype))
    try:
        if ON_TPU:
            jax.jit(k).lower(jax.ShapeDtypeStruct(S, jnp.float32)).compile()
        else:
            jax.export.export(jax.jit(k), platforms=["tpu"])(jax.ShapeDtypeStruct(S, jnp.float32))
        return "ok"
    except Exception as e:  # noqa: BLE001
        return "FAIL " + str(e).splitlines()[0][:90]


def ulps(a, b):
    a = a.astype(np.float32); b = b.astype(np.float32)
    ia = a.view(np.int32).astype(np.int64); ib = b.view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, -(ia & 0x7FFFFFFF), ia); ib = np.where(ib < 0, -(ib & 0x7FFFFFFF), ib)
    both = np.isfinite(a) & np.isfinite(b)
    return np.abs(ia - ib)[both].max(initial=0)


def main():
    if sys.argv[1:2] == ["--triton"]:
        return triton_main(sys.argv[2:])
    print("jax", jax.__version__, "on the chip" if ON_TPU else "CPU: interpret mode + export for tpu", flush=True)
    only = sys.argv[1:]
    for name, (orig, new, x, exact) in CASES.items():
        if only and not any(o in name for o in only):
            continue
        out_dtype = jnp.int32 if "i32" in name else jnp.float32
        reference = np.asarray(jax.jit(orig)(x)).astype(np.float64)
        whole = kernel_of(new, x.shape, out_dtype) if "cum" in name else None  # a scan runs over the whole array
        got = (np.asarray(whole(x)) if whole is not None else np.concatenate(
            [np.asarray(kernel_of(new, S, out_dtype)(block)) for block in x.reshape(-1, *S)])).astype(np.float64)
        finite = np.isfinite(reference) & np.isfinite(got)
        same_inf = np.array_equal(np.isfinite(reference), np.isfinite(got)) and np.array_equal(
            np.where(np.isfinite(reference), 0, reference), np.where(np.isfinite(got), 0, got))
        absd = np.abs(got - reference)[finite]
        rel = (absd / np.maximum(np.abs(reference[finite]), np.finfo(np.float32).tiny))
        bitwise = np.array_equal(got.astype(np.float32), reference.astype(np.float32), equal_nan=True)
        ulp = ulps(got, reference) if out_dtype == jnp.float32 else 0
        print(f"{name:22} original {lowers(orig, x, out_dtype):10.10} rewrite {lowers(new, x, out_dtype):10.10} "
              f"max abs {absd.max():.2e} max rel {rel.max():.2e} max ulp {ulp} bitwise {bitwise} "
              f"infs/nans agree {same_inf}" + ("" if not exact or bitwise else "  <-- claimed exact"), flush=True)


if __name__ == "__main__":
    main()
