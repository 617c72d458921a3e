import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from ops import LOG_HI


def _log_kernel(x_ref, o_ref):
    o_ref[...] = LOG_HI(x_ref[...] + 1.0)


def log(x):
    return pl.pallas_call(_log_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          compiler_params=pltpu.CompilerParams())(x)
