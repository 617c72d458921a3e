import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from config import MatmulConfig


def _kernel(x_ref, w_ref, o_ref, *, precision):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)  # wall


def matmul(x, w, cfg: MatmulConfig = MatmulConfig()):
    return pl.pallas_call(
        functools.partial(_kernel, precision=cfg.precision),
        grid=(x.shape[0] // cfg.block_m,),
        in_specs=[pl.BlockSpec((cfg.block_m, x.shape[1]), lambda i: (i, 0)),
                  pl.BlockSpec(w.shape, lambda i: (0, 0))],
        out_specs=pl.BlockSpec((cfg.block_m, w.shape[1]), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
    )(x, w)
