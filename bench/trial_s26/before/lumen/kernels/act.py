import jax
import jax.numpy as jnp
from jax import lax
from jax.nn import elu as nn_elu

from lumen.registry import register


@register("softplus")
def softplus_kernel(x_ref, o_ref, **acc):
    x = x_ref[...]
    o_ref[...] = lax.log1p(lax.exp(-jnp.abs(x)), **acc) + jnp.maximum(x, 0.0)


@register("sinh")
def sinh_kernel(x_ref, o_ref):
    o_ref[...] = 0.5 * jnp.sinh(x_ref[...])


@register("elu")
def elu_kernel(x_ref, o_ref, *, alpha=1.0):
    o_ref[...] = nn_elu(x_ref[...], alpha=alpha)


@register("erfc_gate")
def erfc_gate_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = 0.5 * x * jax.scipy.special.erfc(-x / jnp.sqrt(2.0).astype(x.dtype))
