"""Plain XLA references: XLA honours per-operand precision and accuracy hints."""
import jax.numpy as jnp
from jax import lax

from helix import prec


def mm_ref(x, w):
    return jnp.dot(x, w, precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT))


def mode_ref(x, w, mode="mixed"):
    return jnp.dot(x, w, precision=prec.precision_for(mode))


def tanh_ref(x):
    return lax.tanh(x, accuracy=prec.TOL)


def fori_ref(x, w):
    return lax.fori_loop(0, 2, lambda i, acc: acc + jnp.dot(x, w, precision=prec.MIXED), jnp.zeros((x.shape[0], w.shape[1])))
