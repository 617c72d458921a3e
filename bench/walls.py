"""Issue 53's walls, each as a tiny Pallas TPU kernel: run on the chip (default) or lowered for an abstract
TPU on a CPU (--export). Prints one line per case: ok / FAIL <first line of the error>."""
import sys, functools
import numpy as np
import jax, jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

EXPORT = "--export" in sys.argv
S = (8, 128)
f32, bf16, i8, i16, i32, u8 = jnp.float32, jnp.bfloat16, jnp.int8, jnp.int16, jnp.int32, jnp.uint8


def elementwise(fn, din, dout=None):
    def kern(x_ref, o_ref):
        o_ref[...] = fn(x_ref[...]).astype(o_ref.dtype)
    return kern, [(S, din)], (S, dout or din)


def two(fn, din, dout):
    def kern(x_ref, y_ref, o_ref):
        o_ref[...] = fn(x_ref[...], y_ref[...]).astype(o_ref.dtype)
    return kern, [(S, din), (S, din)], (S, dout)


def custom(kern, ins, out):
    return kern, ins, out


def dyn_index(x_ref, o_ref):
    v = x_ref[...]
    i = pl.program_id(0)
    o_ref[...] = jnp.broadcast_to(v[i], S)


def dyn_slice(x_ref, o_ref):
    v = x_ref[...]
    i = pl.program_id(0)
    o_ref[...] = lax.dynamic_slice(v, (i * 8, 0), S)


def dyn_slice_ref(x_ref, o_ref):
    i = pl.program_id(0)
    o_ref[...] = x_ref[pl.ds(pl.multiple_of(i * 8, 8), 8), :]


def debug(dt):
    def kern(x_ref, o_ref):
        v = x_ref[...]
        pl.debug_print("v0 {}", v[0, 0])
        o_ref[...] = v
    return kern, [(S, dt)], (S, dt)


def x64_zeros(x_ref, o_ref):
    acc = jnp.zeros(S, dtype=jnp.int64)
    o_ref[...] = (acc + x_ref[...].astype(jnp.int64)).astype(o_ref.dtype)


def x64_argmax(x_ref, o_ref):
    o_ref[...] = jnp.broadcast_to(jnp.argmax(x_ref[...], axis=1)[:, None], S).astype(o_ref.dtype)


def x64_arange(x_ref, o_ref):
    o_ref[...] = x_ref[...] + jnp.arange(128)[None, :].astype(o_ref.dtype)


def x64_sum(x_ref, o_ref):
    o_ref[...] = jnp.broadcast_to(jnp.sum(x_ref[...], axis=1, keepdims=True), S)


CASES = {
    # item 2: narrow dtypes, bool vectors
    "i8 add": elementwise(lambda x: x + x, i8),
    "i8 mul": elementwise(lambda x: x * x, i8),
    "i8 shift": elementwise(lambda x: x << 1, i8),
    "i8 shift right": elementwise(lambda x: x >> 1, i8),
    "i8 compare->where": elementwise(lambda x: jnp.where(x > 0, x, 0), i8),
    "i8 max reduce": elementwise(lambda x: jnp.broadcast_to(jnp.max(x, axis=1, keepdims=True), S), i8),
    "i8 sum": elementwise(lambda x: jnp.broadcast_to(jnp.sum(x, axis=1, keepdims=True), S), i8, i32),
    "i8 transpose": custom(lambda x_ref, o_ref: o_ref.__setitem__(..., x_ref[...].T), [((128, 128), i8)], ((128, 128), i8)),
    "i8 -> f32": elementwise(lambda x: x.astype(f32), i8, f32),
    "u8 -> f32": elementwise(lambda x: x.astype(f32), u8, f32),
    "i16 add": elementwise(lambda x: x + x, i16),
    "i16 compare": elementwise(lambda x: jnp.where(x > 0, x, 0), i16),
    "bf16 compare": elementwise(lambda x: jnp.where(x > 0, x, 0), bf16),
    "bf16 max": two(jnp.maximum, bf16, bf16),
    "bool and": two(lambda a, b: (a > 0) & (b > 0), f32, f32),
    "bool mask i8 select": two(lambda a, b: jnp.where(a > 0, b, 0), i8, i8),
    "bool store": elementwise(lambda x: x > 0, f32, jnp.bool_),
    "i32 -> i8": elementwise(lambda x: x.astype(i8), i32, i8),
    "f32 -> i8": elementwise(lambda x: x.astype(i8), f32, i8),
    "bf16 -> i8": elementwise(lambda x: x.astype(i8), bf16, i8),
    # item 3: 64-bit (run with x64 on too)
    "x64 zeros int64": custom(x64_zeros, [(S, i32)], (S, i32)),
    "x64 argmax": custom(x64_argmax, [(S, f32)], (S, i32)),
    "x64 arange": custom(x64_arange, [(S, f32)], (S, f32)),
    "x64 sum i32": custom(x64_sum, [(S, i32)], (S, i32)),
    # item 4: dynamic index of a loaded value
    "dyn index v[i]": custom(dyn_index, [(S, f32)], (S, f32)),
    "dyn lax.dynamic_slice": custom(dyn_slice, [((16, 128), f32)], (S, f32)),
    "dyn ref pl.ds": custom(dyn_slice_ref, [((16, 128), f32)], (S, f32)),
    # item 5: math
    **{f"math {n}": elementwise(fn, f32) for n, fn in {
        "elu": jax.nn.elu, "selu": jax.nn.selu, "celu": jax.nn.celu,
        "gelu exact": functools.partial(jax.nn.gelu, approximate=False), "gelu tanh": jax.nn.gelu,
        "expm1": jnp.expm1, "log1p": jnp.log1p, "erf": jax.scipy.special.erf, "erfc": jax.scipy.special.erfc,
        "erf_inv": lax.erf_inv, "arctan": jnp.arctan, "arcsin": jnp.arcsin, "arccos": jnp.arccos,
        "sinh": jnp.sinh, "cosh": jnp.cosh, "tan": jnp.tan, "arctan2(x,1)": lambda x: jnp.arctan2(x, 1.0),
        "round": jnp.round, "sign": jnp.sign, "softplus": jax.nn.softplus, "mish": jax.nn.mish,
        "cumsum": lambda x: jnp.cumsum(x, axis=1), "cumprod": lambda x: jnp.cumprod(x, axis=1),
        "lgamma": lax.lgamma, "digamma": lax.digamma, "sort": lambda x: jnp.sort(x, axis=1),
        "i32 cumsum": lambda x: jnp.cumsum(x.astype(i32), axis=1).astype(f32),
        "all": lambda x: jnp.broadcast_to(jnp.all(x > 0, axis=1, keepdims=True), S).astype(f32),
        "any": lambda x: jnp.broadcast_to(jnp.any(x > 0, axis=1, keepdims=True), S).astype(f32),
        "bf16 div": lambda x: (x.astype(bf16) / (x.astype(bf16) + 3)).astype(f32),
    }.items()},
    # item 6: debug_print
    "debug_print f32": debug(f32),
    "debug_print i32": debug(i32),
    "debug_print bf16": debug(bf16),
    "debug_print i8": debug(i8),
}


def inputs(specs):
    rng = np.random.default_rng(0)
    out = []
    for shape, dt in specs:
        a = rng.standard_normal(shape) * 3
        out.append(jnp.asarray(a).astype(dt) if dt != jnp.bool_ else jnp.asarray(a > 0))
    return out


def run(name, kern, ins, out):
    args = inputs(ins)
    grid = (2,) if name.startswith("dyn") else (1,)
    f = pl.pallas_call(kern, out_shape=jax.ShapeDtypeStruct(*out), grid=grid)
    if EXPORT:
        jax.export.export(jax.jit(f), platforms=["tpu"])(*args).mlir_module()
        return "ok (lowered)"
    return "ok " + str(np.asarray(jax.jit(f)(*args)).ravel()[:2])


def main():
    print("jax", jax.__version__, "export" if EXPORT else jax.devices(), flush=True)
    only = [a for a in sys.argv[1:] if not a.startswith("--")]
    for name, (kern, ins, out) in CASES.items():
        if only and not any(o in name for o in only):
            continue
        for x64 in ([False, True] if name.startswith("x64") else [False]):
            jax.config.update("jax_enable_x64", x64)
            try:
                res = run(name, kern, ins, out)
            except Exception as e:  # noqa: BLE001 - the first line of whatever the lowering raised is the datum
                msg = " ".join(str(e).split())
                res = "FAIL " + type(e).__name__ + ": " + msg[:220]
            print(f"{name + (' [x64]' if x64 else ''):24s} {res}", flush=True)
    jax.config.update("jax_enable_x64", False)


if __name__ == "__main__":
    main()
