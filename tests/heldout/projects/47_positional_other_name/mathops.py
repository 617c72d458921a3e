import jax.numpy as jnp


def mm(a, b, p):
    return jnp.dot(a, b, precision=p)  # wall
