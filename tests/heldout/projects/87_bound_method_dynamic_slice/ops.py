import jax
from jax.experimental import pallas as pl

from blocks import RowWindow


def window(x, rows=8):
    block = RowWindow(rows)
    return pl.pallas_call(
        block.kernel,
        out_shape=jax.ShapeDtypeStruct((rows, x.shape[1]), x.dtype),
        grid=(1,),
    )(x)
