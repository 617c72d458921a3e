from jax import lax

import ops

PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)  # value


def forward(x, w):
    return ops.matmul(x, w, precision=PAIR)  # launch
