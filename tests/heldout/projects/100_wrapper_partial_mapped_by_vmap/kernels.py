"""Projection kernels, made per precision."""
import jax.numpy as jnp


def make_proj_kernel(precision):
    def kernel(x_ref, w_ref, o_ref):
        o_ref[...] = jnp.matmul(x_ref[...], w_ref[...], precision=precision)

    return kernel
