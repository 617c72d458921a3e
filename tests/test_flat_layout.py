"""A flat layout (no package: modules side by side in one folder, as scripts are) whose kernel module is
imported only for what its decorators do (`import kernels  # noqa: F401` filling `registry.KERNELS`):
the link reads that module as a package's modules are read (`project.flow.flat_imports`), or its
decorators never run and the launch by name finds no body (held-out 98). The output is lowered for TPU."""

from __future__ import annotations

import importlib
import sys
import textwrap
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from codemods import registry
from codemods.engine.diagnostics import Kind
from codemods.engine.discovery import discover
from codemods.engine.runner import run
from codemods.settings import Settings
from tests import jax_support

SETTINGS = Settings(jax_support.JAX_VERSION)
FLAT = {
    "registry.py": """
        KERNELS = {}

        def register(name):
            def add(fn):
                KERNELS[name] = fn
                return fn
            return add
    """,
    "kernels.py": """
        import jax.numpy as jnp

        from registry import register

        @register("row_peak")
        def row_peak_kernel(x_ref, o_ref):
            q = x_ref[...].astype(jnp.int8)
            peak = jnp.max(q, axis=-1, keepdims=True)
            o_ref[...] = jnp.broadcast_to(peak.astype(jnp.float32), o_ref.shape)
    """,
    "model.py": """
        import jax
        from jax.experimental import pallas as pl

        import kernels  # noqa: F401  (registers the kernels)
        from registry import KERNELS

        def apply(name, x):
            return pl.pallas_call(KERNELS[name], out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
    """,
    "entry.py": """
        import model

        def run(x):
            return model.apply("row_peak", x)
    """,
}

# The same, the kernel module imported by another imported for its side effect (`import all_kernels`)
THROUGH = {**FLAT, "all_kernels.py": "import kernels  # noqa: F401\n",
           "model.py": FLAT["model.py"].replace("import kernels ", "import all_kernels ")}


def _write(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text).lstrip())
    return root


def _lowering_error(root: Path) -> "str | None":
    """What lowering entry.py's `run` for TPU says (None: it lowers); the flat modules forgotten after."""
    sys.path.insert(0, str(root))
    try:
        with warnings.catch_warnings(), jax_support.abstract_tpu():
            warnings.simplefilter("ignore")
            entry = importlib.import_module("entry")
            x = jax.ShapeDtypeStruct((8, 128), jnp.float32)
            return jax_support.lowering_error(jax.jit(entry.run), (x,), "tpu")
    finally:
        sys.path.remove(str(root))
        for name in [name for name in sys.modules if name in {Path(file).stem for file in THROUGH}]:
            del sys.modules[name]


@pytest.mark.parametrize("files", [FLAT, THROUGH], ids=["imported", "imported-by-an-import"])
def test_a_kernel_module_imported_for_its_decorators_in_a_flat_layout_is_fixed(files: dict, tmp_path: Path) -> None:
    root = _write(tmp_path / "flat", files)
    assert "Reductions over int8" in (_lowering_error(root) or ""), _lowering_error(root)
    results = run([root], registry.select(["JAX004"]), SETTINGS, jobs=1, project=discover([root]))
    assert all(result.error is None for result in results), [result.error for result in results]
    fixed = [(Path(result.path).name, finding.kind) for result in results for finding in result.findings]
    assert fixed == [("kernels.py", Kind.FIXED)], fixed
    for result in results:
        if result.new_source is not None:
            Path(result.path).write_bytes(result.new_source)
    assert _lowering_error(root) is None
