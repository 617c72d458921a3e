"""JAX007's Triton helpers on a TPU: a plain pl.pallas_call reaches Mosaic TPU on a TPU, so a kernel
rewritten for Triton runs there too. Each helper is compiled by Mosaic (libtpu), run on the chip, and
compared with XLA's own function on the chip. One process (one program at a time holds the chip);
jax 0.10.2. Run from the repository root on the TPU machine: python3 bench/chip/triton_helpers_on_tpu.py
(output of 2026-12-06, TPU v5e: bench/chip/triton_helpers_v5e.txt)
Prints one line per case: compiled or the first line of the error; bit-identical or the max difference.
"""
import sys
from pathlib import Path

import numpy as np
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from codemods import helpers_source as H  # noqa: E402

print("jax", jax.__version__, jax.devices()[0].device_kind, flush=True)
rng = np.random.default_rng(0)
x = (rng.standard_normal((8, 128)) * 4).astype(np.float32)
x[0, :8] = [0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997, -0.0, 3.5]
y = (rng.standard_normal((8, 128)) + 3).astype(np.float32)

CASES = {  # name: (rewrite, XLA's function, operands)
    "erf_triton": (H.erf_triton, lax.erf, (x,)),
    "round_triton": (H.round_triton, jnp.round, (x,)),
    "round_triton(x, 2)": (lambda v: H.round_triton(v, 2), lambda v: jnp.round(v, 2), (x,)),
    "round_triton(half_to_even=False)": (lambda v: H.round_triton(v, half_to_even=False), lax.round, (x,)),
    "bool_reduction_triton(axis=1)": (lambda v: jnp.where(H.bool_reduction_triton(v > -3, axis=1, keepdims=True), v, 0.0),
                                      lambda v: jnp.where(jnp.all(v > -3, axis=1, keepdims=True), v, 0.0), (x,)),
    "bool_reduction_triton(every=False)": (lambda v: jnp.where(H.bool_reduction_triton(v > 10, every=False), v, 1.0),
                                           lambda v: jnp.where(jnp.any(v > 10), v, 1.0), (x,)),
    # bfloat16 in and out: a float32 program's casts around a bfloat16 division may be skipped by XLA
    # (excess precision allowed), which would make the reference no bfloat16 division.
    "divide_triton bf16": (H.divide_triton, jnp.divide, (jnp.asarray(x, jnp.bfloat16), jnp.asarray(y, jnp.bfloat16))),
}

for name, (rewrite, xla, operands) in CASES.items():
    def body(*refs, f=rewrite):
        refs[-1][...] = f(*(ref[...] for ref in refs[:-1]))

    kernel = pl.pallas_call(body, out_shape=jax.eval_shape(xla, *operands))
    try:
        got = np.asarray(jax.jit(kernel)(*operands))
    except Exception as error:  # noqa: BLE001
        print(f"{name:36} FAILS: {type(error).__name__}: {str(error).splitlines()[0][:200]}", flush=True)
        continue
    want = np.asarray(jax.jit(xla)(*operands))
    same = np.array_equal(got.view(np.uint8), want.view(np.uint8))
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64)).max()
    print(f"{name:36} compiled and ran; bit-identical {same}; max abs diff {diff:.3e}", flush=True)
