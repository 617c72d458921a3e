"""Lower one entry for TPU (jax.export) and print one line: NAME ok|FAIL first line of the error."""
import sys

import jax

import entry

name = sys.argv[1]
try:
    fn, args = entry.load(name)
    jax.export.export(jax.jit(fn), platforms=["tpu"])(*args)
    print(f"{name}\tlowers")
except Exception as e:  # noqa: BLE001
    msg = (str(e).strip().splitlines() or [""])[0][:150]
    print(f"{name}\tFAIL {type(e).__name__}: {msg}")
