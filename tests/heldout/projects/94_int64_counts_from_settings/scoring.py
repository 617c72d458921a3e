"""Scores whose XLA side needs 64-bit counters."""
from functools import partial

import jax
from jax.experimental import pallas as pl

import counting
from settings import SETTINGS

jax.config.update("jax_enable_x64", True)


def hits_above(x, settings=SETTINGS):
    kernel = partial(counting.above_kernel, threshold=settings.threshold, count_dtype=settings.count_dtype)
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
