import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from lumen.registry import register


@register("mm")
def mm_kernel(x_ref, w_ref, o_ref, *, precision):
    o_ref[...] = jnp.matmul(x_ref[...], w_ref[...], precision=precision)


@register()
def preset_kernel(x_ref, w_ref, o_ref, *, algorithm):
    o_ref[...] = lax.dot(x_ref[...], w_ref[...], precision=algorithm, preferred_element_type=jnp.float32)


@register("mm_load")
def mm_load_kernel(x_ref, w_ref, o_ref):
    x = x_ref[pl.dslice(0, 8), slice(None)]
    o_ref[slice(None), slice(None)] = jnp.dot(x, w_ref[...])
