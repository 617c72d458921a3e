import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from lumen.registry import register


@register("argmin")
def argmin_kernel(x_ref, o_ref):
    o_ref[...] = jnp.broadcast_to(jnp.argmin(x_ref[...], axis=-1)[:, None], o_ref.shape).astype(o_ref.dtype)


@register("iota64")
def iota_kernel(x_ref, o_ref):
    cols = lax.broadcasted_iota(jnp.int64, x_ref.shape, 1)
    o_ref[...] = jnp.where(cols % 2 == 0, x_ref[...], 0.0)


@register("gather_row")
def gather_row_kernel(x_ref, o_ref):
    v = x_ref[...]
    r = lax.dynamic_index_in_dim(v, pl.program_id(0) + 3, axis=0, keepdims=True)
    o_ref[...] = jnp.broadcast_to(r, o_ref.shape)


@register("probe")
def probe_kernel(x_ref, o_ref):
    h = x_ref[...].astype(jnp.bfloat16)
    pl.debug_print("probe h={}", h[1, 2])
    o_ref[...] = h.astype(jnp.float32)


@register("step_print")
def step_print_kernel(x_ref, o_ref):
    pl.debug_print("step", pl.program_id(0))
    o_ref[...] = x_ref[...] * 2.0
