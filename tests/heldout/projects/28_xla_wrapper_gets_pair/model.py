from jax import lax

import tpu_ops
import xla_ops

PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)


def forward_tpu(x, w):
    return tpu_ops.matmul(x, w, precision=lax.Precision.HIGHEST)


def forward_xla(x, w):
    return xla_ops.matmul(x, w, precision=PAIR)
