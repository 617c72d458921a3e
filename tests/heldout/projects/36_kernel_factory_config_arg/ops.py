import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

import config
from kernels import make_qk_kernel


def qk(q, k):
    kernel = make_qk_kernel(config.QK_PRECISION, q.shape[-1] ** -0.5)
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((q.shape[0], k.shape[1]), q.dtype),
        compiler_params=pltpu.CompilerParams(),
    )(q, k)
