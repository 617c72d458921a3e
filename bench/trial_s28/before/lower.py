"""Lower one entry (jax.export) for TPU, or for the platform entry.PLATFORM names, and print one line:
NAME lowers|FAIL first line of the error; with --hash, the sha256 of the StableHLO it lowers to;
with --raise, the error's traceback instead of its line."""
import contextlib
import hashlib
import re
import sys
import warnings

import jax

import entry

name = sys.argv[1]
warnings.simplefilter("ignore")
try:
    fn, args = entry.load(name)
    platform = entry.PLATFORM.get(name, "tpu")
    # a kernel that asks which TPU it runs on (run_scoped, emit_pipeline) is told of one on a CPU
    device = jax.sharding.AbstractDevice(device_kind="TPU v5 lite", platform="tpu", num_cores=1)
    mesh = jax.sharding.AbstractMesh((1,), ("x",), abstract_device=device)
    with jax.sharding.use_abstract_mesh(mesh) if name in entry.ABSTRACT_TPU else contextlib.nullcontext():
        exported = jax.export.export(jax.jit(fn), platforms=[platform])(*args)
    # the StableHLO without its source locations (they name the folder the project sits in)
    text = re.sub(r" loc\([^)]*\)|^#loc.*$", "", exported.mlir_module(), flags=re.M)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12] if "--hash" in sys.argv else ""
    print(f"{name}\tlowers {digest}".rstrip())
except Exception as e:  # noqa: BLE001
    if "--raise" in sys.argv:  # the traceback, for `jax-codemod explain`
        raise
    msg = (str(e).strip().splitlines() or [""])[0][:150]
    print(f"{name}\tFAIL {type(e).__name__}: {msg}")
