"""Issue 53 item 2 (JAX004), measured on the chip: which narrow-dtype vector ops Mosaic TPU's compiler
rejects, the full error text and traceback of each, and whether the 32-bit cast fix compiles and is
bit-identical to plain XLA over every pair of 8-bit values (256 x 256). One process (one program holds the chip).

    python3 bench/chip/narrow_measure.py            # on the TPU machine; prints one line per case
    python3 bench/chip/narrow_measure.py --export   # lowered for an abstract TPU on a CPU instead
"""
import sys
import traceback

import numpy as np
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

EXPORT = "--export" in sys.argv
i8, u8, i16, i32, f32 = jnp.int8, jnp.uint8, jnp.int16, jnp.int32, jnp.float32


def grid(dtype):
    """Every pair of values of an 8-bit dtype: a[i, j] = value i, b[i, j] = value j (256 x 256)."""
    info = np.iinfo(dtype)
    values = np.arange(info.min, info.max + 1, dtype=np.int64)[:256]
    a = np.broadcast_to(values[:, None], (256, 256)).astype(dtype)
    b = np.broadcast_to(values[None, :], (256, 256)).astype(dtype)
    return jnp.asarray(a), jnp.asarray(b)


def wide(x):
    return x.astype(jnp.int32)


OPS = {  # name -> (as written, the fix), both of (a, b)
    "add": (lambda a, b: a + b, lambda a, b: (wide(a) + wide(b)).astype(a.dtype)),
    "sub": (lambda a, b: a - b, lambda a, b: (wide(a) - wide(b)).astype(a.dtype)),
    "mul": (lambda a, b: a * b, lambda a, b: (wide(a) * wide(b)).astype(a.dtype)),
    "neg": (lambda a, b: -a, lambda a, b: (-wide(a)).astype(a.dtype)),
    "and": (lambda a, b: a & b, lambda a, b: (wide(a) & wide(b)).astype(a.dtype)),
    "or": (lambda a, b: a | b, lambda a, b: (wide(a) | wide(b)).astype(a.dtype)),
    "xor": (lambda a, b: a ^ b, lambda a, b: (wide(a) ^ wide(b)).astype(a.dtype)),
    "invert": (lambda a, b: ~a, lambda a, b: (~wide(a)).astype(a.dtype)),
    "shl": (lambda a, b: a << b, lambda a, b: (wide(a) << wide(b)).astype(a.dtype)),
    "shr": (lambda a, b: a >> b, lambda a, b: (wide(a) >> wide(b)).astype(a.dtype)),
    "shl 1": (lambda a, b: a << 1, lambda a, b: (wide(a) << 1).astype(a.dtype)),
    "gt": (lambda a, b: (a > b).astype(jnp.int32), lambda a, b: (wide(a) > wide(b)).astype(jnp.int32)),
    "eq": (lambda a, b: (a == b).astype(jnp.int32), lambda a, b: (wide(a) == wide(b)).astype(jnp.int32)),
    "gt 0 where": (lambda a, b: jnp.where(a > 0, a, b), lambda a, b: jnp.where(wide(a) > 0, a, b)),
    "maximum": (lambda a, b: jnp.maximum(a, b), lambda a, b: jnp.maximum(wide(a), wide(b)).astype(a.dtype)),
    "minimum": (lambda a, b: jnp.minimum(a, b), lambda a, b: jnp.minimum(wide(a), wide(b)).astype(a.dtype)),
    "abs": (lambda a, b: jnp.abs(a), lambda a, b: jnp.abs(wide(a)).astype(a.dtype)),
    "max reduce": (lambda a, b: jnp.broadcast_to(jnp.max(a, axis=1, keepdims=True), a.shape),
                   lambda a, b: jnp.broadcast_to(jnp.max(wide(a), axis=1, keepdims=True).astype(a.dtype), a.shape)),
    "min reduce": (lambda a, b: jnp.broadcast_to(jnp.min(a, axis=0, keepdims=True), a.shape),
                   lambda a, b: jnp.broadcast_to(jnp.min(wide(a), axis=0, keepdims=True).astype(a.dtype), a.shape)),
    "sum reduce": (lambda a, b: jnp.broadcast_to(jnp.sum(a, axis=1, keepdims=True), a.shape),
                   lambda a, b: jnp.broadcast_to(jnp.sum(wide(a), axis=1, keepdims=True).astype(a.dtype), a.shape)),
}
DTYPES = {"int8": i8, "uint8": u8, "int16": i16}


def kernel(fn):
    def body(a_ref, b_ref, o_ref):
        o_ref[...] = fn(a_ref[...], b_ref[...]).astype(o_ref.dtype)
    return body


def launch(fn, a, b):
    out = jax.eval_shape(fn, a, b)
    call = pl.pallas_call(kernel(fn), out_shape=jax.ShapeDtypeStruct(a.shape, out.dtype))
    if EXPORT:
        jax.export.export(jax.jit(call), platforms=["tpu"])(a, b).mlir_module()
        return None
    return np.asarray(jax.jit(call)(a, b))


def attempt(fn, a, b, reference, tracebacks, name):
    try:
        got = launch(fn, a, b)
    except Exception as error:  # noqa: BLE001 - the error is the datum
        tracebacks.append((name, traceback.format_exc()))
        return "FAIL " + type(error).__name__ + ": " + " ".join(str(error).split())[:300]
    if got is None:
        return "lowered"
    same = np.array_equal(got, reference)
    return "ok, bit-identical to XLA" if same else f"ok but DIFFERS from XLA at {int((got != reference).sum())} of {got.size}"


def main():
    print("jax", jax.__version__, "export" if EXPORT else jax.devices(), flush=True)
    if not EXPORT:
        print("device_kind", jax.devices()[0].device_kind, flush=True)
    tracebacks = []
    for dname, dtype in DTYPES.items():
        if dtype == i16:  # every int16 pair is too many; its extremes and a sweep
            values = np.concatenate([np.arange(-128, 128), [-32768, 32767, 255, 256, -129, 1000, -1000, 12345]])[:256]
            values = np.resize(values, 256).astype(np.int16)
            a = jnp.asarray(np.broadcast_to(values[:, None], (256, 256)))
            b = jnp.asarray(np.broadcast_to(np.arange(-128, 128, dtype=np.int16)[None, :], (256, 256)))
        else:
            a, b = grid(dtype)
        for name, (written, fixed) in OPS.items():
            try:
                reference = np.asarray(jax.jit(written)(a, b))
            except Exception as error:  # noqa: BLE001
                print(f"{dname:6s} {name:12s} XLA itself fails: {error}", flush=True)
                continue
            as_written = attempt(written, a, b, reference, tracebacks, f"{dname} {name}")
            fix = attempt(fixed, a, b, reference, tracebacks, f"{dname} {name} (fix)")
            print(f"{dname:6s} {name:12s} as written: {as_written}\n{'':20s} fix: {fix}", flush=True)
    print("\n==== full tracebacks ====")
    for name, text in tracebacks[:6] + [t for t in tracebacks[6:] if "(fix)" in t[0]]:
        print(f"---- {name}\n{text}")


if __name__ == "__main__":
    main()
