import jax
from jax import lax

import ops

Precision = lax.Precision


def stacked_rows(xs, w):
    step = jax.tree_util.Partial(ops.rows, w=w, scale=0.5, precision=(Precision.HIGH, Precision.DEFAULT))
    return lax.map(step, xs)
