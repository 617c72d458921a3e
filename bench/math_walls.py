"""JAX007's measurements: each rewrite of math Mosaic TPU cannot lower, against XLA's own function.

Run on a CPU (kernels in interpret mode, and lowered for an abstract TPU with jax.export) or on a
TPU (kernels compiled by Mosaic and run on the chip). One line per case: whether the original and
the rewrite lower, and the rewrite's error against the XLA op (max abs, max rel, max ulp), bitwise
equality for those claimed exact. docs/walls.md holds the results (jax 0.10.2 and 0.12.0.1 on a CPU,
jax 0.10.2 on a TPU v5e).

    .venv/bin/python bench/math_walls.py [NAME ...]     # every case, or those whose name holds NAME
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
