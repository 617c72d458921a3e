"""JAX008 on a real TPU: which `pl.debug_print` calls Mosaic's compiler in libtpu takes, each case in a
process of its own (a case can abort the whole process: on a TPU v5e with jax 0.10.2 an int32 scalar
printed without placeholders stops it in libtpu's LLO builder, "Signedness cannot be inferred", SIGABRT).

    python3 bench/chip/debug_print_chip.py          # on the TPU machine; prints one line per case

A case compiles the kernel, runs it, and prints what came out of the process (stdout and stderr) that
names the case's text, so what the chip printed for the value shows too.
"""

from __future__ import annotations

import subprocess
import sys

# name -> (format, argument expression over the block `v` (8x128), the block's dtype)
CASES = {
    "int32 v[0, 0], no placeholder": ("vv", "v[0, 0]", "int32"),
    "int32 v[0, 0], a placeholder": ("vv {}", "v[0, 0]", "int32"),
    "float32 v[0, 0], no placeholder": ("vv", "v[0, 0]", "float32"),
    "float32 v[0, 0], a placeholder": ("vv {}", "v[0, 0]", "float32"),
    "int8 v.astype(int32)[0, 0], no placeholder (JAX008's fix)": ("vv", "v.astype(jnp.int32)[0, 0]", "int8"),
    "int8 v.astype(int32)[0, 0], a placeholder (JAX008's fix)": ("vv {}", "v.astype(jnp.int32)[0, 0]", "int8"),
    "int8 v.astype(float32)[0, 0], no placeholder": ("vv", "v.astype(jnp.float32)[0, 0]", "int8"),
    "bool (v > 0).astype(int32)[0, 0], no placeholder": ("vv", "(v > 0).astype(jnp.int32)[0, 0]", "float32"),
    "int32 pl.program_id(0), no placeholder": ("vv", "pl.program_id(0)", "int32"),
    "int32 pl.program_id(0), a placeholder": ("vv {}", "pl.program_id(0)", "int32"),
    "int32 jnp.sum(v), no placeholder": ("vv", "jnp.sum(v)", "int32"),
    "uint32 v[0, 0], no placeholder": ("vv", "v[0, 0]", "uint32"),
    "int32 vector v, no placeholder": ("vv", "v", "int32"),
    "int32 two scalars, no placeholder": ("vv", "v[0, 0], v[1, 1]", "int32"),
}

CHILD = """
import sys, jax, jax.numpy as jnp, numpy as np
from jax.experimental import pallas as pl
fmt, arg, dtype = sys.argv[1:4]
def body(x_ref, o_ref):
    v = x_ref[...]
    exec(f"pl.debug_print(fmt, {arg})", {"pl": pl, "jnp": jnp, "fmt": fmt, "v": v})
    o_ref[...] = x_ref[...]
x = (jnp.arange(8 * 128).reshape(8, 128) % 7 + 3).astype(dtype)
f = jax.jit(pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype)))
f.lower(x).compile()
print("COMPILED", flush=True)
out = f(x).block_until_ready()
print("RAN", bool(np.array_equal(np.asarray(out), np.asarray(x))), flush=True)
"""


def main() -> int:
    for name, (fmt, arg, dtype) in CASES.items():
        done = subprocess.run([sys.executable, "-c", CHILD, fmt, arg, dtype], capture_output=True, text=True,
                              timeout=300)
        lines = (done.stdout + done.stderr).splitlines()
        said = [line.strip() for line in lines if "vv" in line or line.startswith(("COMPILED", "RAN", "F1", "E1"))
                and "coredump" not in line and "Coroner" not in line and "process_state" not in line]
        error = [line for line in lines if "Error" in line][-1:]
        print(f"{name}: exit {done.returncode}; " + " | ".join(said[:6] + error)[:600], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
