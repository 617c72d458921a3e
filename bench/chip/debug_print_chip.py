"""JAX008 on a real TPU: which `pl.debug_print` calls Mosaic's compiler in libtpu takes, each case in a
process of its own (a case can abort the whole process: on a TPU v5e with jax 0.10.2 an int32 scalar
printed without placeholders stops it in libtpu's LLO builder, "Signedness cannot be inferred", SIGABRT).

    python3 bench/chip/debug_print_chip.py          # on the TPU machine; prints one line per case

A case compiles the kernel, runs it, and prints what came out of the process (stdout and stderr) that
names the case's text. Then each entry of the JAX008 golden for jax 0.10.2 (the chip's), its .in.py and
its .out.py, is run the same way: the .out.py must run wherever the .in.py's findings say it is fixed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "debug_print" / "debug_print_arguments_jax_0_10"
ENTRIES = ("bfloat16_scalar", "int8_scalar", "mask_scalar", "float32_scalar", "bfloat16_vector", "int32_scalar",
           "grid_index")

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


ENTRY = """
import importlib.util, sys, jax, jax.numpy as jnp, numpy as np
path, entry = sys.argv[1:3]
spec = importlib.util.spec_from_file_location("golden", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 64 - 3
out = jax.jit(getattr(module, entry))(x).block_until_ready()
print("RAN", np.asarray(out).shape, flush=True)
"""


def outcome(*args: str) -> str:
    """How a child process ended: what it printed of note, or its last error line, or libtpu's fatal line."""
    done = subprocess.run([sys.executable, "-c", *args], capture_output=True, text=True, timeout=300)
    lines = (done.stdout + done.stderr).splitlines()
    said = [line.strip() for line in lines if line.startswith(("COMPILED", "RAN"))]
    fatal = [line.split("] ", 1)[-1] for line in lines if line.startswith("F1")][:1]
    error = [line for line in lines if "Error" in line][-1:]
    return f"exit {done.returncode}; " + " | ".join(said + fatal + error)[:400]


def main() -> int:
    for name, (fmt, arg, dtype) in CASES.items():
        print(f"{name}: {outcome(CHILD, fmt, arg, dtype)}", flush=True)
    for entry in ENTRIES:
        for side in ("in", "out"):
            print(f"golden {GOLDEN.name}.{side}.py {entry}: {outcome(ENTRY, f'{GOLDEN}.{side}.py', entry)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
