import jax.numpy as jnp
from jax import lax


def gemm_body(x_ref, w_ref, o_ref):
    o_ref[...] = lax.dot_general(
        x_ref[...], w_ref[...], (((1,), (0,)), ((), ())),
        precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST),  # wall
    )
