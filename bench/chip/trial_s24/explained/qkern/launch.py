"""The one launcher every kernel of the package goes through."""
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def launch(body, *args, out_dtype=None, out_rows=None, **launch_kw):
    x = args[0]
    rows = out_rows or x.shape[0]
    out = jax.ShapeDtypeStruct((rows, x.shape[1]), out_dtype or x.dtype)
    launch_kw.setdefault("compiler_params", pltpu.CompilerParams())
    return pl.pallas_call(body, out_shape=out, **launch_kw)(*args)
