import jax

import ops


def absmax_i8(x):
    q = (x * 32.0).astype("int8")
    return ops.apply("absmax", q, out_shape=jax.ShapeDtypeStruct(x.shape, "int32"))
