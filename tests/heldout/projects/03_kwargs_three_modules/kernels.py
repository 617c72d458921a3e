import jax.numpy as jnp


def matmul_body(x_ref, w_ref, o_ref, precision=None, preferred_element_type=None):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision,  # wall
                         preferred_element_type=preferred_element_type)
