"""Kernels whose work happens in nested bodies: loops, conditions, scopes and inner pipelines."""
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from helix import prec


def fori_kernel(x_ref, w_ref, o_ref):
    def step(i, acc):
        return acc + jnp.dot(x_ref[...], w_ref[...], precision=prec.MIXED)

    o_ref[...] = lax.fori_loop(0, 2, step, jnp.zeros(o_ref.shape, jnp.float32))


def decay_kernel(x_ref, o_ref, *, steps=3):
    o_ref[...] = lax.fori_loop(
        0, steps, lambda i, v: lax.exp(v * 0.5), x_ref[...], unroll=True
    )


def when_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(0) == 0)
    def _first():
        o_ref[...] = lax.tanh(x_ref[...])

    @pl.when(pl.program_id(0) > 0)
    def _rest():
        o_ref[...] = x_ref[...]


def scoped_kernel(x_ref, w_ref, o_ref, *, precision):
    def body(acc_ref):
        acc_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)
        o_ref[...] = acc_ref[...] * 2.0

    pl.run_scoped(body, pltpu.VMEM((8, 128), jnp.float32))


def pipeline_kernel(x_hbm, w_hbm, o_hbm):
    def inner(x_ref, w_ref, o_ref):
        o_ref[...] = lax.dot_general(
            x_ref[...], w_ref[...], (((1,), (0,)), ((), ())),
            precision=lax.Precision.HIGHEST,
            preferred_element_type=jnp.float32,
        )

    pltpu.emit_pipeline(
        inner,
        grid=(2,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0)), pl.BlockSpec((128, 128), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    )(x_hbm, w_hbm, o_hbm)


def launch_pipeline(x, w):
    return pl.pallas_call(
        pipeline_kernel,
        out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)] * 2,
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
    )(x, w)


scoped_mixed = functools.partial(scoped_kernel, precision=lax.Precision.HIGHEST)
