"""Dense kernels whose precision follows their operands' dtype."""
import jax.numpy as jnp

from tkern import helpers
from tkern.prec import pair_for, prec_for


def dense_kernel(x_ref, w_ref, o_ref):
    x = x_ref[...]
    y = jnp.dot(x, w_ref[...], precision=prec_for(x.dtype), preferred_element_type=jnp.float32)
    o_ref[...] = y.astype(o_ref.dtype)


def dense_pair_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=pair_for(x_ref.dtype))


def ffn_kernel(x_ref, w_ref, o_ref, **dot_kw):
    h = helpers.mm_acc(x_ref[...], w_ref[...], **dot_kw)
    o_ref[...] = jnp.maximum(h, 0.0)
