"""Older kernels, from before the 2024 Pallas API changes."""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

PARAMS = pltpu.CompilerParams(dimension_semantics=("parallel",))


def round_kernel(x_ref, w_ref, o_ref):
    y = jnp.dot(x_ref[...], w_ref[...], precision=lax.Precision.HIGHEST)
    o_ref[...] = jnp.round(y * 4.0) / 4.0


def rounded_proj(x, w):
    rows = x.shape[0] // 8
    return pl.pallas_call(
        round_kernel,
        out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype),
        grid=(rows,),
        in_specs=[pl.BlockSpec(lambda i: (i, 0), (8, 128)), pl.BlockSpec(lambda i: (0, 0), (128, 128))],
        out_specs=pl.BlockSpec(lambda i: (i, 0), (8, 128)),
        compiler_params=PARAMS,
    )(x, w)


def pl_dot_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=lax.Precision.HIGHEST, preferred_element_type=jnp.float32)


def pl_dot(x, w):
    return pl.pallas_call(pl_dot_kernel, out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype))(x, w)
