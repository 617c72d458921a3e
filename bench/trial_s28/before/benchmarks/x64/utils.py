"""Helpers of the x64 benchmark (same name as every folder's utils)."""
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

import config


def launch(kernel, x):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // config.BLOCK[0],),
        in_specs=[pl.BlockSpec(config.BLOCK, lambda i: (i, 0))],
        out_specs=pl.BlockSpec(config.BLOCK, lambda i: (i, 0)),
        compiler_params=pltpu.TPUCompilerParams(dimension_semantics=("parallel",)),
    )(x)
