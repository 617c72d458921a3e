import jax

import kernels
from launcher import tpu_launch


def mixed_matmul(x, w):
    return tpu_launch(kernels.mixed_body, out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype))(x, w)
