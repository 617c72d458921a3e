"""Kernel factories: a body closing over the factory's arguments."""
import jax.numpy as jnp
from jax import lax


def make_proj_kernel(precision):
    def kernel(x_ref, w_ref, o_ref):
        o_ref[...] = jnp.matmul(x_ref[...], w_ref[...], precision=precision)

    return kernel


def scaled_dot(x_ref, w_ref, o_ref, *, precision, scale=1.0):
    o_ref[...] = scale * jnp.einsum("ij,jk->ik", x_ref[...], w_ref[...], precision=precision)


def make_softsign_kernel(**hint):
    def kernel(x_ref, o_ref):
        x = x_ref[...]
        o_ref[...] = x * lax.rsqrt(1.0 + x * x, **hint)

    return kernel


def mode_kernel(x_ref, w_ref, o_ref, *, precision):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)
