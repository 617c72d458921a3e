"""Benchmark helpers (not the examples' utils)."""
import functools
import time

import jax
from jax.experimental import pallas as pl


def launch(kernel, *xs, **kw):
    out = jax.ShapeDtypeStruct((xs[0].shape[0], xs[-1].shape[-1]), xs[0].dtype)
    return pl.pallas_call(functools.partial(kernel, **kw), out_shape=out)(*xs)


def timeit(fn, *args, n=10):
    jax.block_until_ready(fn(*args))
    start = time.perf_counter()
    for _ in range(n):
        jax.block_until_ready(fn(*args))
    return (time.perf_counter() - start) / n
