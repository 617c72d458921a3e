import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from lumen.registry import register


def argmin_tpu(x, axis, keepdims=False):
    """`jnp.argmin(x, axis)` as argmax_tpu computes argmax: int32 indices, the first of tied elements
    (Mosaic TPU's own returns the last), a NaN counted as the minimum. Added by jax-codemod (JAX005).
    """
    hit = (x == jnp.min(x, axis=axis, keepdims=True)) | (x != x)
    index = lax.broadcasted_iota(jnp.int32, x.shape, axis % x.ndim)
    return jnp.min(jnp.where(hit, index, x.shape[axis]), axis=axis, keepdims=keepdims)


@register("argmin")
def argmin_kernel(x_ref, o_ref):
    o_ref[...] = jnp.broadcast_to(argmin_tpu(x_ref[...], -1)[:, None], o_ref.shape).astype(o_ref.dtype)


@register("iota64")
def iota_kernel(x_ref, o_ref):
    cols = lax.broadcasted_iota(jnp.int32, x_ref.shape, 1)
    o_ref[...] = jnp.where(cols % 2 == 0, x_ref[...], 0.0)


@register("gather_row")
def gather_row_kernel(x_ref, o_ref):
    v = x_ref[...]
    r = x_ref[pl.ds(pl.program_id(0) + 3, 1)]
    o_ref[...] = jnp.broadcast_to(r, o_ref.shape)


@register("probe")
def probe_kernel(x_ref, o_ref):
    h = x_ref[...].astype(jnp.bfloat16)
    pl.debug_print("probe h={}", h[1, 2])
    o_ref[...] = h.astype(jnp.float32)


@register("step_print")
def step_print_kernel(x_ref, o_ref):
    pl.debug_print("step {}", pl.program_id(0))
    o_ref[...] = x_ref[...] * 2.0
