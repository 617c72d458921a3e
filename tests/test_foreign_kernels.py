"""Kernel bodies written in one module and launched from another (directly, or through a launch helper
of a third), for the kernel-scoped rules JAX004-JAX008: the link goes forward from each launch it follows
and hands each module the functions other modules' kernels run (`FlowFacts.kernels`). Each package's
kernel fails to lower for Mosaic TPU as written and lowers after the tool's fixes; before, no rule saw the
body as kernel code (its module holds no call JAX001-JAX003 fix, and does not launch it)."""

from __future__ import annotations

import contextlib
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

# pkg/launch.py: a launch helper; pkg/entry.py: `run` launches pkg/kmod.py's `body` through it.
_LAUNCH = """
    import jax
    from jax.experimental import pallas as pl

    def launch(body, x):
        return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(1,))(x)
"""
_ENTRY = """
    from pkg.kmod import body
    from pkg.launch import launch

    def run(x):
        return launch(body, x)
"""
_HEADER = """
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.experimental import pallas as pl
"""

# rule -> (pkg/kmod.py's code after _HEADER, what lowering says before, other modules of the package)
CASES = {
    "JAX004": ("""
        def body(x_ref, o_ref):
            m = jnp.max(x_ref[...].astype(jnp.int8), axis=0, keepdims=True)
            o_ref[...] = jnp.broadcast_to(m, o_ref.shape).astype(o_ref.dtype)
    """, "Reductions over int8", {}),
    "JAX005": ("""
        jax.config.update("jax_enable_x64", True)

        def body(x_ref, o_ref):
            best = jnp.argmax(x_ref[...], axis=1)
            o_ref[...] = jnp.broadcast_to(best[:, None], o_ref.shape).astype(o_ref.dtype)
    """, "index_dtype", {}),
    "JAX006": ("""
        def body(x_ref, o_ref):
            v = x_ref[...]
            o_ref[...] = lax.dynamic_slice_in_dim(v, pl.program_id(0) * 8, 8)
    """, "dynamic_slice", {}),
    "JAX007": ("""
        def body(x_ref, o_ref):
            o_ref[...] = jnp.arctan(x_ref[...])
    """, "atan", {}),
    "JAX007-helper": ("""
        from pkg.tables import softplus_inv

        def body(x_ref, o_ref):
            o_ref[...] = softplus_inv(x_ref[...] + 1.0)
    """, "expm1", {"tables.py": """
        import jax.numpy as jnp

        def softplus_inv(x):
            return jnp.log(jnp.expm1(x))
    """}),
    "JAX008": ("""
        def body(x_ref, o_ref):
            h = x_ref[...].astype(jnp.bfloat16)
            pl.debug_print("h00 {}", h[0, 0])
            o_ref[...] = x_ref[...]
    """, "32-bit", {}),
}


def _write(root: Path, kmod: str, others: dict[str, str]) -> Path:
    folder = root / "pkg"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    files = {"launch.py": _LAUNCH, "entry.py": _ENTRY, "kmod.py": textwrap.dedent(_HEADER) + textwrap.dedent(kmod), **others}
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip())
    return folder


@contextlib.contextmanager
def _imported(root: Path, module: str = "pkg.entry"):
    """`module`, imported from `root`, and jax's x64 setting put back after (JAX005's modules set it)."""
    saved = jax.config.jax_enable_x64
    sys.path.insert(0, str(root))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield importlib.import_module(module)
    finally:
        sys.path.remove(str(root))
        for name in [name for name in sys.modules if name.split(".")[0] == "pkg"]:
            del sys.modules[name]
        jax.config.update("jax_enable_x64", saved)


def lowering_error(root: Path, module: str = "pkg.entry") -> "str | None":
    """What lowering `module`'s `run` for TPU says (None: it lowers)."""
    with _imported(root, module) as entry, jax_support.abstract_tpu():
        x = jax.ShapeDtypeStruct((8, 128), jnp.float32)
        try:
            return jax_support.lowering_error(jax.jit(entry.run), (x,), "tpu")
        except Exception as error:  # Mosaic's own checks (64-bit, debug_print's placeholders) raise others
            return f"{type(error).__name__}: {error}"


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_kernel_launched_from_another_module_through_a_third_is_fixed(case: str, tmp_path: Path) -> None:
    kmod, error, others = CASES[case]
    folder = _write(tmp_path, kmod, others)
    assert error in (lowering_error(tmp_path) or ""), lowering_error(tmp_path)
    rule = case.split("-")[0]
    results = run([folder], registry.select([rule]), Settings(jax_support.JAX_VERSION, unsafe_fixes=True), jobs=1,
                  project=discover([folder]))
    assert all(result.error is None for result in results), [result.error for result in results]
    findings = [finding for result in results for finding in result.findings]
    assert findings and all(finding.code == rule for finding in findings), findings
    for result in results:
        if result.new_source is not None:
            Path(result.path).write_bytes(result.new_source)
    if case == "JAX008" and jax_support.JAX_VERSION < (0, 11):  # placeholders print int32 only there: a note
        assert [finding.kind for finding in findings] == [Kind.MANUAL], findings
        return
    assert lowering_error(tmp_path) is None, findings


# Bodies nested in a function or written as methods, launched from another module (pkg/ops.py's `run`):
# the link names them by the summary's qualified names (`make_kernel.<locals>.body`, `Block.kernel`).
# case -> (rule, the package's modules, what lowering says before: None where it lowers (a finding at
# the site is the proof: Mosaic's compiler on the chip aborts), the kind of the findings)
_OPS = """
    import jax
    from jax.experimental import pallas as pl
    {imports}

    def run(x):
        {body}
        return pl.pallas_call({launched}, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(1,))(x)
"""


def _ops(imports: str, launched: str, body: str = "pass") -> str:
    return _OPS.format(imports=imports, launched=launched, body=body)


NESTED = {
    "factory-JAX007": ("JAX007", {"kernels.py": """
        import jax.numpy as jnp

        def make_kernel(scale):
            def body(x_ref, o_ref):
                o_ref[...] = jnp.sinh(x_ref[...] * scale)
            return body
    """, "ops.py": _ops("from pkg import kernels", "kernels.make_kernel(3.0)")}, "sinh", Kind.FIXED),
    # A lambda has no name the module's analysis knows: the factory returning it is named instead.
    "factory-lambda-JAX007": ("JAX007", {"kernels.py": """
        import jax.numpy as jnp

        def _kernel(x_ref, o_ref, scale):
            o_ref[...] = jnp.sinh(x_ref[...] * scale)

        def make_kernel(scale):
            return lambda x_ref, o_ref: _kernel(x_ref, o_ref, scale)
    """, "ops.py": _ops("from pkg import kernels", "kernels.make_kernel(3.0)")}, "sinh", Kind.FIXED),
    "nested-factory-lambda-JAX007": ("JAX007", {"kernels.py": """
        import jax.numpy as jnp

        def make_kernel(scale):
            def _kernel(x_ref, o_ref):
                o_ref[...] = jnp.sinh(x_ref[...] * scale)

            def wrapped():
                _ = jnp.sinh(jnp.float32(scale))  # plain XLA code, not the kernel's: left alone
                return lambda x_ref, o_ref: _kernel(x_ref, o_ref)

            return wrapped()
    """, "ops.py": _ops("from pkg import kernels", "kernels.make_kernel(3.0)")}, "sinh", Kind.FIXED),
    # One held in a table is not named: its module's analysis says [manual] of the function it calls
    # (it takes refs, and no launch of it is found), as before.
    "lambda-in-a-table-JAX007": ("JAX007", {"kernels.py": """
        import jax.numpy as jnp

        def _sinh(x_ref, o_ref):
            o_ref[...] = jnp.sinh(x_ref[...])

        KERNELS = {"sinh": lambda x_ref, o_ref: _sinh(x_ref, o_ref)}
    """, "ops.py": _ops("from pkg import kernels", 'kernels.KERNELS["sinh"]')}, "sinh", Kind.MANUAL),
    "partial-closure-JAX004": ("JAX004", {"kernels.py": """
        import functools

        import jax.numpy as jnp

        def make_kernel(axis):
            def _kernel(x_ref, o_ref, *, axis):
                m = jnp.max(x_ref[...].astype(jnp.int8), axis=axis, keepdims=True)
                o_ref[...] = jnp.broadcast_to(m, o_ref.shape).astype(o_ref.dtype)
            return functools.partial(_kernel, axis=axis)
    """, "ops.py": _ops("from pkg.kernels import make_kernel", "kernel", "kernel = make_kernel(0)")},
        "Reductions over int8", Kind.FIXED),
    "factory-class-JAX005": ("JAX005", {"kernels.py": """
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)

        def make_block():
            class Block:
                @staticmethod
                def body(x_ref, o_ref):
                    best = jnp.argmax(x_ref[...], axis=1)
                    o_ref[...] = jnp.broadcast_to(best[:, None], o_ref.shape).astype(o_ref.dtype)
            return Block
    """, "ops.py": _ops("from pkg.kernels import make_block", "make_block().body")}, "index_dtype", Kind.FIXED),
    "method-JAX006": ("JAX006", {"blocks.py": """
        from jax import lax
        from jax.experimental import pallas as pl

        class Block:
            def __init__(self, width):
                self.width = width

            def kernel(self, x_ref, o_ref):
                v = x_ref[...]
                o_ref[...] = lax.dynamic_slice_in_dim(v, pl.program_id(0) * self.width, self.width)
    """, "ops.py": _ops("from pkg.blocks import Block", "block.kernel", "block = Block(8)")}, "dynamic_slice", Kind.FIXED),
    "staticmethod-JAX008": ("JAX008", {"blocks.py": """
        import jax.numpy as jnp
        from jax.experimental import pallas as pl

        class Block:
            @staticmethod
            def body(x_ref, o_ref):
                h = x_ref[...].astype(jnp.bfloat16)
                pl.debug_print("h00 {}", h[0, 0])
                o_ref[...] = x_ref[...]
    """, "ops.py": _ops("from pkg.blocks import Block", "Block.body")}, "32-bit", Kind.FIXED),
    "staticmethod-unformatted-JAX008": ("JAX008", {"blocks.py": """
        from jax.experimental import pallas as pl

        class Block:
            @staticmethod
            def body(x_ref, o_ref):
                pl.debug_print("block", pl.program_id(0))
                o_ref[...] = x_ref[...]
    """, "ops.py": _ops("from pkg.blocks import Block", "Block.body")}, None, Kind.FIXED),
    "subclass-JAX007": ("JAX007", {"base.py": """
        import jax.numpy as jnp

        class Activation:
            def kernel(self, x_ref, o_ref):
                o_ref[...] = jnp.maximum(x_ref[...], 0.0)
    """, "acts.py": """
        import jax.numpy as jnp

        from pkg.base import Activation

        class Sinh(Activation):
            def kernel(self, x_ref, o_ref):
                o_ref[...] = jnp.sinh(x_ref[...])
    """, "ops.py": _ops("from pkg.acts import Sinh", "act.kernel", "act = Sinh()")}, "sinh", Kind.FIXED),
    "method-helper-JAX007": ("JAX007", {"maths.py": """
        import jax.numpy as jnp

        class Act:
            @staticmethod
            def apply(x):
                return jnp.sinh(x)
    """, "ops.py": _ops("from pkg.maths import Act\n\n    def body(x_ref, o_ref):\n        o_ref[...] = Act.apply(x_ref[...])",
                        "body")}, "sinh", Kind.FIXED),
    # A method kernels call that plain XLA code of a third module calls too: said, not rewritten.
    "method-helper-shared-JAX007": ("JAX007", {"maths.py": """
        import jax.numpy as jnp

        class Act:
            @staticmethod
            def apply(x):
                return jnp.sinh(x)
    """, "ref.py": """
        from pkg.maths import Act

        def reference(x):
            return Act.apply(x)
    """, "ops.py": _ops("from pkg.maths import Act\n\n    def body(x_ref, o_ref):\n        o_ref[...] = Act.apply(x_ref[...])",
                        "body")}, "sinh", Kind.MANUAL),
    "factory-of-several-JAX007": ("JAX007", {"kernels.py": """
        import jax.numpy as jnp

        def make_kernel(kind):
            def sinh_body(x_ref, o_ref):
                o_ref[...] = jnp.sinh(x_ref[...])

            def relu_body(x_ref, o_ref):
                o_ref[...] = jnp.maximum(x_ref[...], 0.0)

            return sinh_body if kind == "sinh" else relu_body
    """, "ops.py": _ops("from pkg import kernels", "kernels.make_kernel(kind)", 'kind = "sinh"')}, "sinh", Kind.FIXED),
    # The link cannot tell which method (or function) a computed name reads: each that takes refs may be
    # the body, and what fails in it is [manual] (before, nothing was said in another module's code).
    "getattr-method-JAX007": ("JAX007", {"blocks.py": """
        import jax.numpy as jnp

        class Block:
            def sinh(self, x_ref, o_ref):
                o_ref[...] = jnp.sinh(x_ref[...])

            def relu(self, x_ref, o_ref):
                o_ref[...] = jnp.maximum(x_ref[...], 0.0)
    """, "ops.py": _ops("from pkg.blocks import Block", "body", 'kind = "sinh"\n        body = getattr(Block(), kind)')},
        "sinh", Kind.MANUAL),
    "getattr-function-JAX007": ("JAX007", {"kernels.py": """
        import jax.numpy as jnp

        def sinh(x_ref, o_ref):
            o_ref[...] = jnp.sinh(x_ref[...])

        def relu(x_ref, o_ref):
            o_ref[...] = jnp.maximum(x_ref[...], 0.0)
    """, "ops.py": _ops("from pkg import kernels", "body", 'kind = "sinh"\n        body = getattr(kernels, kind)')},
        "sinh", Kind.MANUAL),
}


@pytest.mark.parametrize("case", sorted(NESTED))
def test_a_nested_or_method_body_launched_from_another_module_is_kernel_code(case: str, tmp_path: Path) -> None:
    rule, files, error, kind = NESTED[case]
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip())
    before = lowering_error(tmp_path, "pkg.ops")
    assert (before is None) if error is None else (error in (before or "")), before
    results = run([folder], registry.select([rule]), Settings(jax_support.JAX_VERSION, unsafe_fixes=True), jobs=1,
                  project=discover([folder]))
    assert all(result.error is None for result in results), [result.error for result in results]
    findings = [finding for result in results for finding in result.findings]
    if rule == "JAX008" and error is not None and jax_support.JAX_VERSION < (0, 11):  # as above: a note there
        kind = Kind.MANUAL
    assert [(finding.code, finding.kind) for finding in findings] == [(rule, kind)], findings  # one wall each
    assert all(Path(result.path).parent == folder and Path(result.path).name != "ops.py"
               for result in results if result.findings), findings  # at the body, where it is written
    for result in results:
        if result.new_source is not None:
            Path(result.path).write_bytes(result.new_source)
    after = lowering_error(tmp_path, "pkg.ops")
    assert after is None if kind is Kind.FIXED else error in (after or ""), after
