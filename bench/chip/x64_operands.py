"""64-bit operands of a Mosaic TPU launch under jax_enable_x64, on the chip: a scalar-prefetch operand
(read, unread, compared with an int32 iota) and a VMEM operand (int64, float64). Run on a TPU v5e with
jax 0.10.2 (2026-12-06), output in x64_operands_v5e.txt (warnings left out). Each 64-bit operand fails
on the chip, read or not (XLA: "While rewriting computation to not contain X{64|128} element types
... tpu_custom_call"), though only the compared one fails the lowering on a CPU; the int32 row fails
too: under x64 the index maps' `(0, 0)` are int64 (`-> (i64, i64)`, "failed to legalize operation
'func.func'"), a wall of its own that JAX005 does not fix.

    python3 bench/chip/x64_operands.py       # on the TPU machine
"""
import jax, jax.numpy as jnp, traceback  # noqa: E401,F401
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
jax.config.update("jax_enable_x64", True)
print("jax", jax.__version__, jax.devices()[0].device_kind, flush=True)
S = (8, 128)


def body(ids_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] + ids_ref[0].astype(o_ref.dtype)


def body_unread(ids_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


def body_cmp(ids_ref, x_ref, o_ref):
    iota = jax.lax.broadcasted_iota(jnp.int32, S, 0)
    o_ref[...] = jnp.where(iota >= ids_ref[0], x_ref[...], 0.0)


for name, b, dt in [("read", body, jnp.int64), ("unread", body_unread, jnp.int64), ("compare", body_cmp, jnp.int64),
                    ("read32", body, jnp.int32)]:
    call = pl.pallas_call(b, out_shape=jax.ShapeDtypeStruct(S, jnp.float32),
                          grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(1,),
                              in_specs=[pl.BlockSpec(S, lambda i, ids: (0, 0))],
                              out_specs=pl.BlockSpec(S, lambda i, ids: (0, 0))))
    try:
        out = jax.jit(call)(jnp.arange(4, dtype=dt), jnp.ones(S, jnp.float32))
        print("scalar prefetch", name, dt.__name__, "ran", float(out[0, 0]), flush=True)
    except Exception as e:
        print("scalar prefetch", name, dt.__name__, type(e).__name__, " ".join(str(e).split())[:400], flush=True)


def vm(x_ref, o_ref):
    o_ref[...] = x_ref[...].astype(o_ref.dtype)


for dt in (jnp.int64, jnp.float64):
    try:
        out = jax.jit(pl.pallas_call(vm, out_shape=jax.ShapeDtypeStruct(S, jnp.float32)))(jnp.ones(S, dt))
        print("vmem operand", dt.__name__, "ran", float(out[0, 0]), flush=True)
    except Exception as e:
        print("vmem operand", dt.__name__, type(e).__name__, " ".join(str(e).split())[:400], flush=True)
