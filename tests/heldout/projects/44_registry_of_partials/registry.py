import functools

from jax import lax

import ops

MATMULS = {
    "exact": functools.partial(ops.matmul, precision=lax.Precision.HIGHEST),
    "mixed": functools.partial(ops.matmul, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST)),  # value
}
