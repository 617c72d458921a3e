"""Gated RMSNorm (as in Mamba-2 blocks): a Mosaic GPU kernel normalises rows, XLA computes the gate.

Broken: the kernel asks for a HIGHEST-accuracy rsqrt, and Mosaic GPU lowers no `accuracy=`
("Not implemented: accuracy"). The SiLU gate outside the kernel uses the same hint in plain XLA,
which honours it; that one must be left alone.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

EPS = 1e-6


def rms_norm(x, scale, *, interpret=False):
    """x / rms(x) * scale over the last axis; one warpgroup walks the rows."""
    rows, _ = x.shape

    @plgpu.kernel(out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=interpret)
    def kernel(x_ref, scale_ref, out_ref):
        @pl.loop(0, rows)
        def _normalize_row(row):
            x = x_ref[row]
            inv_rms = lax.rsqrt(jnp.mean(x * x) + EPS, accuracy=lax.AccuracyMode.HIGHEST)
            out_ref[row] = x * inv_rms * scale_ref[...]

    return kernel(x, scale)


def silu_gate(z):
    return z * lax.logistic(z, accuracy=lax.AccuracyMode.HIGHEST)


def gated_rms_norm(x, z, scale, *, interpret=False):
    return rms_norm(x, scale, interpret=interpret) * silu_gate(z)


# Test hook (contract: examples/README.md).
PLATFORM = "cuda"
EXPECTED_ERROR = "Not implemented: accuracy"
MIN_JAX = (0, 10)


def build(interpret: bool = False):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 256), np.float32)
    z = rng.standard_normal((16, 256), np.float32)
    scale = np.linspace(0.5, 1.5, 256, dtype=np.float32)
    return jax.jit(functools.partial(gated_rms_norm, interpret=interpret)), (x, z, scale)


def reference(x, z, scale):
    normalized = x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + EPS) * scale
    return normalized * z * jax.nn.sigmoid(z)
