"""The same layer in plain XLA, used on hosts without the kernel."""
from jax import lax

from numerics import MIXED


def dense(x, w):
    return lax.dot_general(x, w, (((1,), (0,)), ((), ())), precision=MIXED)
