import jax.numpy as jnp


def make_qk_kernel(precision, scale):
    def qk_kernel(q_ref, k_ref, o_ref):
        o_ref[...] = scale * jnp.dot(q_ref[...], k_ref[...], precision=precision)  # wall

    return qk_kernel
