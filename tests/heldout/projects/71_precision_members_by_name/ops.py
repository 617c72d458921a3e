import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

import settings
from kernels import make_qk_kernel


def qk(q, k):
    return pl.pallas_call(
        make_qk_kernel(settings.QK_PRECISION),
        out_shape=jax.ShapeDtypeStruct((q.shape[0], k.shape[1]), q.dtype),
        compiler_params=pltpu.CompilerParams(),
    )(q, k)
