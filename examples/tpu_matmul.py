"""Two-layer MLP whose dense layers are a blocked Pallas TPU matmul with an f32 VMEM accumulator.

Broken: the helper the kernel calls keeps activations at DEFAULT but weights at HIGHEST, a
per-operand precision Mosaic TPU cannot lower ("Per-operand dot precision unsupported").
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.lax import Precision

BLOCK_M = BLOCK_N = BLOCK_K = 128


def _partial_product(x, w):
    return jnp.dot(x, w, precision=(Precision.DEFAULT, Precision.HIGHEST), preferred_element_type=jnp.float32)


def _dense_kernel(x_ref, w_ref, b_ref, out_ref, acc_ref):
    k = pl.program_id(2)

    @pl.when(k == 0)
    def _init():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += _partial_product(x_ref[...], w_ref[...])

    @pl.when(k == pl.num_programs(2) - 1)
    def _finish():
        out_ref[...] = (acc_ref[...] + b_ref[...]).astype(out_ref.dtype)


def dense(x, w, b, *, interpret=False):
    """x @ w + b, tiled over (M, N, K) with K innermost so the accumulator stays in VMEM."""
    m, k = x.shape
    _, n = w.shape
    return pl.pallas_call(
        _dense_kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        grid=(m // BLOCK_M, n // BLOCK_N, k // BLOCK_K),
        in_specs=[
            pl.BlockSpec((BLOCK_M, BLOCK_K), lambda i, j, kk: (i, kk)),
            pl.BlockSpec((BLOCK_K, BLOCK_N), lambda i, j, kk: (kk, j)),
            pl.BlockSpec((1, BLOCK_N), lambda i, j, kk: (0, j)),
        ],
        out_specs=pl.BlockSpec((BLOCK_M, BLOCK_N), lambda i, j, kk: (i, j)),
        scratch_shapes=[pltpu.VMEM((BLOCK_M, BLOCK_N), jnp.float32)],
        interpret=interpret,
    )(x, w, b)


def mlp(params, x, *, interpret=False):
    hidden = jax.nn.gelu(dense(x, params["w1"], params["b1"], interpret=interpret))
    return dense(hidden, params["w2"], params["b2"], interpret=interpret)


def init_params(rng, features=256, hidden=384):
    return {
        "w1": rng.standard_normal((features, hidden), np.float32) / features**0.5,
        "b1": 0.1 * rng.standard_normal((1, hidden), np.float32),
        "w2": rng.standard_normal((hidden, features), np.float32) / hidden**0.5,
        "b2": 0.1 * rng.standard_normal((1, features), np.float32),
    }


# Test hook (contract: examples/README.md).
PLATFORM = "tpu"
EXPECTED_ERROR = "Per-operand dot precision unsupported"
MIN_JAX = (0, 10)


def build(interpret: bool = False):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 256), np.float32)
    return jax.jit(functools.partial(mlp, interpret=interpret)), (init_params(rng), x)


def reference(params, x):
    hidden = jax.nn.gelu(jnp.dot(x, params["w1"], precision=Precision.HIGHEST) + params["b1"])
    return jnp.dot(hidden, params["w2"], precision=Precision.HIGHEST) + params["b2"]
