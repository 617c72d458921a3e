import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from kernels import qk_kernel


def qk(q, k):
    return pl.pallas_call(
        qk_kernel,
        out_shape=jax.ShapeDtypeStruct((q.shape[0], k.shape[1]), q.dtype),
        compiler_params=pltpu.CompilerParams(),
    )(q, k)
