import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

jax.config.update("jax_enable_x64", True)

S = (8, 128)


def column_ids():
    return jnp.arange(128)[None, :]


def iota_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + column_ids().astype(o_ref.dtype)


def run(x):
    return pl.pallas_call(iota_kernel, out_shape=jax.ShapeDtypeStruct(S, jnp.float32),
                          compiler_params=pltpu.CompilerParams())(x)


if __name__ == "__main__":
    print("jax", jax.__version__, jax.devices()[0].device_kind, flush=True)
    print(jax.jit(run)(jnp.ones(S, jnp.float32)))

# What a user sees when an int64 iota (jnp.arange under x64, in a helper the kernel calls) reaches Mosaic's
# compiler on a TPU: run on a TPU v5e with jax 0.10.2 (2026-12-06) as /tmp/s/x64_iota_traceback.py,
#     python3 x64_iota_traceback.py 2> x64_iota_traceback_v5e.txt
#     JAX_TRACEBACK_FILTERING=off python3 x64_iota_traceback.py 2> x64_iota_traceback_unfiltered_v5e.txt
# tests/test_x64_explain.py feeds both to `explain`. Kept at the top of the file: the tracebacks name its lines.
