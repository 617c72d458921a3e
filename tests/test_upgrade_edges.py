"""The JAX1xx handlers' rarer paths, without jax: the calls they leave to a person (arguments that
do not bind, flags that are no literals, a name the replacement needs already taken, a use that is
no call) and the rewrites few files need (an argument removed from the front, `**kwargs`, an
attribute's owner spelled twice). tests/test_upgrades.py has the common ones and its goldens.
"""

from __future__ import annotations

import pytest

from codemods.settings import Settings
from tests.test_upgrades import TARGET, _fix

UNSAFE = Settings(TARGET.jax_version, unsafe_fixes=True)
PL = "from jax.experimental import pallas as pl\n"
PLTPU = "from jax.experimental.pallas import tpu as pltpu\n"
PJIT = "from jax.experimental.pjit import pjit\n"
SHARD_MAP = "from jax.experimental.shard_map import shard_map\n"
X64 = "from jax.experimental import enable_x64\n"
TRITON_KERNEL = ("def kernel(x, y, o):\n    o[...] = pl.dot(x[...], y[...])\n"
                 "f = pl.pallas_call(kernel, out_shape=None, backend='triton')\n")

DOT = "pl.dot: removed in jax 0.11.2 (raises AttributeError on jax 0.12.0.1); "
DOT_WANTED = "jnp.dot(a, b, precision=..., preferred_element_type=jnp.float32), with a.T / b.T for trans_a / trans_b"
DOT_UNBOUND = (f"{DOT}arguments that do not bind to pl.dot('a', 'b', 'trans_a', 'trans_b', 'allow_tf32', "
               f"'precision'): {DOT_WANTED}")
DOT_TF32 = (f"{DOT}allow_tf32 is not a literal True or False, or comes with a precision (pl.dot raised then): jnp.dot "
            "with precision=lax.Precision.HIGH where allow_tf32 is true, HIGHEST where it is false")
REPEAT = "pltpu.repeat: removed in jax 0.10.2 (raises AttributeError on jax 0.12.0.1); "
TILE = "jnp.tile(x, [repeats if i == axis else 1 for i in range(x.ndim)])"
PARAMS = "compiler_params=dict(...): removed in jax 0.6.1 (raises TypeError on jax 0.12.0.1); "
ONE_OBJECT = ("pass one CompilerParams object: pltpu.CompilerParams(...), plt.CompilerParams(...) or "
              "plgpu.CompilerParams(...)")
PJIT_OLD = "jax.experimental.pjit.pjit: deprecated since jax 0.8.0; "
SHARD_MAP_OLD = "jax.experimental.shard_map.shard_map: deprecated since jax 0.8.0; "
X64_OLD = "jax.experimental.enable_x64: removed in jax 0.9.0 (raises ImportError on jax 0.12.0.1); "
X64_WANTED = ("use jax.enable_x64(True) for enable_x64() and jax.enable_x64(False) for disable_x64(), in a `with` "
              "statement or as a decorator")


def _params(dict_code: str, prefix: str = "") -> str:
    return f"{PL}{prefix}f = pl.pallas_call(k, out_shape=None, compiler_params={dict_code})\n"


@pytest.mark.parametrize("code, source, message", [
    ("JAX150", PL + "y = pl.dot(a, b, False, False, None, None, 1)\n", DOT_UNBOUND),
    ("JAX150", PL + "y = pl.dot(a, b, foo=1)\n", DOT_UNBOUND),
    ("JAX150", PL + "y = pl.dot(a, b, a=c)\n", DOT_UNBOUND),
    ("JAX150", PL + "y = pl.dot(a)\n", DOT_UNBOUND),
    ("JAX150", PL + "d = pl.dot\n", f"{DOT}not a call this tool can rewrite: {DOT_WANTED}"),
    ("JAX150", PL + "y = pl.dot(*ab)\n", f"{DOT}not a call this tool can rewrite: {DOT_WANTED}"),
    ("JAX150", PL + "y = pl.dot(a, b, allow_tf32=flag)\n", DOT_TF32),
    ("JAX150", PL + "y = pl.dot(a, b, allow_tf32=True, precision=P)\n", DOT_TF32),
    ("JAX150", PL + "jax = lax = Precision = None\ny = pl.dot(a, b, allow_tf32=True)\n",
     f"{DOT}{DOT_WANTED} (the name lax is taken here)"),
    ("JAX150", PL + "jax = jnp = dot = None\ny = pl.dot(a, b)\n", f"{DOT}{DOT_WANTED} (the name jnp is taken here)"),
    ("JAX150", PL + "jax = jnp = float32 = None\ny = pl.dot(a, b)\n",
     f"{DOT}{DOT_WANTED} (the name jnp is taken here)"),
    ("JAX150", PL + "plt = jax = dot = None\n" + TRITON_KERNEL,
     f"{DOT}in Triton kernels: plt.dot (the name plt is taken here)"),
    ("JAX170", PLTPU + "r = pltpu.repeat\n", f"{REPEAT}not a call this tool can rewrite: {TILE}"),
    ("JAX170", PLTPU + "y = pltpu.repeat(v, 2)\n",
     f"{REPEAT}arguments that do not bind to pltpu.repeat('x', 'repeats', 'axis'): {TILE}"),
    ("JAX170", PLTPU + "y = pltpu.repeat(repeats=2, x=v, axis=-1)\n", f"{REPEAT}repeats before x: {TILE}"),
    ("JAX170", PLTPU + "jax = jnp = tile = None\ny = pltpu.repeat(v, 2, -1)\n",
     f"{REPEAT}{TILE} (the name jnp is taken here)"),
    ("JAX171", PL + "y = pl.load(ref)\n", "pl.load: removed in jax 0.9.0 (raises AttributeError on jax 0.12.0.1); arguments "
                                          "that do not bind to pl.load('x_ref_or_view', 'idx'): ref[idx]"),
    ("JAX171", PL + "y = pl.store(ref, i, v)\n", "pl.store: removed in jax 0.9.0 (raises AttributeError on jax 0.12.0.1); its "
                                                 "value (None) is used: ref[idx] = val is a statement"),
    ("JAX172", _params("dict(mosaic={}, triton={})"),
     f"{PARAMS}{ONE_OBJECT}; a dict for several backends must be split by backend"),
    ("JAX172", _params("dict(mosaic=dict(vmem_limit_bytes=1))", "pltpu = jax = CompilerParams = None\n"),
     f"{PARAMS}pltpu.CompilerParams(...) (its module's usual name is taken here)"),
    ("JAX172", _params("dict(foo=1)"), f"{PARAMS}{ONE_OBJECT}"),
    ("JAX130", PJIT + "g = pjit(f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)\n",
     f"{PJIT_OLD}use jax.jit, every argument after the function passed by keyword (these could not be mapped)"),
    ("JAX130", PJIT + "g = wrap(pjit)\n", f"{PJIT_OLD}use jax.jit, its shardings and options passed by keyword"),
    ("JAX130", PJIT + "p = pjit\n", f"{PJIT_OLD}use jax.jit, its shardings and options passed by keyword"),
    ("JAX130", PJIT + "jax = jit = None\ng = pjit(f)\n", f"{PJIT_OLD}use jax.jit (its names are taken here)"),
    ("JAX132", SHARD_MAP + "s = shard_map\n", f"{SHARD_MAP_OLD}use jax.shard_map, mesh=, in_specs=, out_specs= and "
                                              "check_vma= (for check_rep) passed by keyword"),
    ("JAX132", SHARD_MAP + "g = shard_map(*args)\n", f"{SHARD_MAP_OLD}use jax.shard_map, mesh, in_specs, out_specs "
                                                     "and check_vma (for check_rep) passed by keyword (these could "
                                                     "not be mapped)"),
    ("JAX111", X64 + "with enable_x64(1, 2):\n    pass\n", X64_OLD + X64_WANTED),
    ("JAX111", X64 + "with enable_x64(foo=1):\n    pass\n", X64_OLD + X64_WANTED),
    ("JAX111", X64 + "e = enable_x64\n", X64_OLD + X64_WANTED),
    ("JAX111", X64 + "jax = None\nwith enable_x64():\n    pass\n",
     f"{X64_OLD}use jax.enable_x64(True) (the name jax is taken here)"),
    ("JAX112", "from jax.lib import xla_bridge\njax = get_backend = None\nb = xla_bridge.get_backend()\n",
     "jax.lib.xla_bridge.get_backend: removed in jax 0.8.0 (raises ImportError on jax 0.12.0.1); use "
     "jax.extend.backend.get_backend (its names are taken here)"),
    ("JAX118", "from jax.random import KeyArray\nok = isinstance(k, KeyArray)\n",
     "jax.random.KeyArray: removed in jax 0.4.24 (raises ImportError on jax 0.12.0.1); an isinstance() check needs "
     "jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key), not jax.Array: only annotations are rewritten"),
], ids=[
    "dot-too-many-positional", "dot-unknown-keyword", "dot-argument-twice", "dot-without-b", "dot-not-called",
    "dot-star-args", "dot-tf32-not-literal", "dot-tf32-with-precision", "dot-lax-taken", "dot-jnp-taken",
    "dot-float32-taken", "triton-dot-plt-taken", "repeat-not-called", "repeat-without-axis",
    "repeat-repeats-before-x", "repeat-jnp-taken", "load-without-idx", "store-value-used", "params-two-backends",
    "params-pltpu-taken", "params-unknown-key", "pjit-too-many-positional", "pjit-passed-as-argument",
    "pjit-not-called", "pjit-jit-taken", "shard-map-not-called", "shard-map-star-args", "x64-two-arguments",
    "x64-unknown-keyword", "x64-not-called", "x64-jax-taken", "rename-names-taken", "annotation-type-used-outside",
])
def test_a_call_the_handler_cannot_rewrite_is_left_to_a_person(code: str, source: str, message: str) -> None:
    after, findings = _fix(source)
    assert after == source
    assert [(f.code, f.kind.value, f.message, f.fix) for f in findings] == [(code, "manual", message, None)]


def test_a_triton_dot_is_left_to_a_person_where_the_oldest_supported_jax_lacks_the_triton_one() -> None:
    """pallas.triton.dot came in jax 0.10.2: a floor below it gets a finding, a floor at it the fix."""
    source = PL + TRITON_KERNEL
    after, findings = _fix(source, Settings(TARGET.jax_version, jax_floor=(0, 10, 1)))
    assert after == source
    assert [(f.kind.value, f.message) for f in findings] == [
        ("manual", f"{DOT}in Triton kernels: plt.dot (since jax 0.10.2; the project supports jax 0.10.1), or jnp.dot")]
    after, findings = _fix(source, Settings(TARGET.jax_version, jax_floor=(0, 10, 2)))
    assert after == (PL + "import jax.experimental.pallas.triton as plt\n\n"
                     + TRITON_KERNEL.replace("pl.dot", "plt.dot"))
    assert [f.kind.value for f in findings] == ["fixed"]


DOT_FIXED = ("pl.dot -> jnp.dot: removed in jax 0.11.2 (raises AttributeError on jax 0.12.0.1); unsafe: the result is float32, "
             "as pl.dot's was for floating operands; pl.dot gave int32 for integer operands (and float64 for float64 "
             "ones)")
JNP = "import jax.numpy as jnp\n\n"


@pytest.mark.parametrize("source, expected, message", [
    (PL + "y = pl.dot(trans_a=True, a=x, b=y)\n", JNP + "y = jnp.dot(a=x.T, b=y, preferred_element_type=jnp.float32)\n",
     DOT_FIXED),
    (PL + "y = pl.dot(a, b, allow_tf32=True, precision=None)\n",
     "import jax.numpy as jnp\nfrom jax import lax\n\n"
     "y = jnp.dot(a, b, precision=lax.Precision.HIGH, preferred_element_type=jnp.float32)\n", DOT_FIXED),
    (PL + "y = pl.dot(a, b, False, False, None, P)\n",
     JNP + "y = jnp.dot(a, b, precision=P, preferred_element_type=jnp.float32)\n", DOT_FIXED),
    (PL + "y = pl.dot(a, b, allow_tf32=None)\n", JNP + "y = jnp.dot(a, b, preferred_element_type=jnp.float32)\n",
     DOT_FIXED),
    (PLTPU + "y = pltpu.repeat(axis=-1, x=v, repeats=2)\n", JNP + "y = jnp.tile(v, (2,))\n",
     "pltpu.repeat -> jnp.tile: removed in jax 0.10.2 (raises AttributeError on jax 0.12.0.1); tiles along the axis, as "
     "pltpu.repeat did"),
    (_params("{}"), _params("None"), "compiler_params=dict(...) -> None: removed in jax 0.6.1 (raises TypeError "
                                     "on jax 0.12.0.1); the empty dict asked for nothing"),
    (PJIT + "g = pjit(fun=f)\n", "import jax\n\ng = jax.jit(f)\n",
     "jax.experimental.pjit.pjit -> jax.jit: deprecated since jax 0.8.0"),
    (PJIT + "g = pjit(f, **kw)\n", "import jax\n\ng = jax.jit(f, **kw)\n",
     "jax.experimental.pjit.pjit -> jax.jit: deprecated since jax 0.8.0; unsafe: pjit reads the mesh `with mesh:` "
     "entered (for PartitionSpec and None shardings, and while tracing), jax.jit the one jax.set_mesh set"),
    (SHARD_MAP + "g = shard_map(f, mesh, P(), P(), auto=a | b)\n",
     "import jax\n\ng = jax.shard_map(f, mesh=mesh, in_specs=P(), out_specs=P(), "
     "axis_names=frozenset(mesh.axis_names) - (a | b))\n",
     "jax.experimental.shard_map.shard_map -> jax.shard_map: deprecated since jax 0.8.0; mesh, in_specs, out_specs "
     "passed by keyword; auto=A -> axis_names=frozenset(mesh.axis_names) - A"),
    (SHARD_MAP + "g = shard_map(f, self.mesh, P(), P(), auto=a)\n",
     "import jax\n\ng = jax.shard_map(f, mesh=self.mesh, in_specs=P(), out_specs=P(), "
     "axis_names=frozenset(self.mesh.axis_names) - a)\n",
     "jax.experimental.shard_map.shard_map -> jax.shard_map: deprecated since jax 0.8.0; mesh, in_specs, out_specs "
     "passed by keyword; auto=A -> axis_names=frozenset(mesh.axis_names) - A"),
    ("from jax.lib import xla_bridge\njax = None\nb = xla_bridge.get_backend()\n",
     "from jax.extend.backend import get_backend\n\njax = None\nb = get_backend()\n",
     "jax.lib.xla_bridge.get_backend -> jax.extend.backend.get_backend: removed in jax 0.8.0 (raises "
     "ImportError on jax 0.12.0.1)"),
    ("import jax\nk: jax.random.KeyArray = make()\n", "import jax\nk: jax.Array = make()\n",
     "jax.random.KeyArray -> jax.Array: removed in jax 0.4.24 (raises AttributeError on jax 0.12.0.1)"),
    ("import jax.config as cfg\ncfg.update('x', 1)\n", "from jax import config as cfg\ncfg.update('x', 1)\n",
     "import jax.config as cfg -> from jax import config as cfg: removed in jax 0.4.25 (raises ImportError on jax 0.12.0.1)"),
    ("def f(x):\n    return x.device_buffers\n",
     "def f(x):\n    return [shard.data for shard in x.addressable_shards]\n",
     "x.device_buffers -> [shard.data for shard in x.addressable_shards]: removed in jax 0.4.27 (raises AttributeError "
     "on jax 0.12.0.1); unsafe: the object's type is not known here"),
    ("from jax.experimental import layout\nl = layout.Layout(layout.DeviceLocalLayout.AUTO)\n",
     "from jax.experimental import layout\nl = layout.Format(layout.Layout.AUTO)\n",
     "DeviceLocalLayout, Layout -> Layout, Format (2 references, one fix): removed in jax 0.7.0 (raises AttributeError "
     "on jax 0.12.0.1)"),
    ("from jax.experimental import layout\ntry:\n    old = layout.Layout\nexcept AttributeError:\n    old = None\n"
     "l = layout.Layout(layout.DeviceLocalLayout.AUTO)\n",
     "from jax.experimental import layout\ntry:\n    old = layout.Layout\nexcept AttributeError:\n    old = None\n"
     "l = layout.Format(layout.Layout.AUTO)\n",
     "DeviceLocalLayout, Layout -> Layout, Format (2 references, one fix): removed in jax 0.7.0 (raises AttributeError "
     "on jax 0.12.0.1)"),
    (PL + "from jax.experimental.pallas import triton as plt\n"
     + TRITON_KERNEL.replace("def kernel(x, y, o):\n", "def kernel(x, y, o):\n    plt = None\n"),
     PL + "from jax.experimental.pallas import triton as plt\n"
     + TRITON_KERNEL.replace("def kernel(x, y, o):\n", "def kernel(x, y, o):\n    plt = None\n")
     .replace("pl.dot", "pl.triton.dot"),
     "pl.dot -> plt.dot: removed in jax 0.11.2 (raises AttributeError on jax 0.12.0.1); the same function, in a Triton kernel"),
    (PL + "import functools\nidx = functools.partial(max, 0)\ns = pl.BlockSpec(idx, (8,))\n",
     PL + "import functools\nidx = functools.partial(max, 0)\ns = pl.BlockSpec((8,), idx)\n",
     "pl.BlockSpec(index_map, block_shape) -> pl.BlockSpec(block_shape, index_map): removed in jax 0.4.35 (raises TypeError "
     "in pallas_call ('function' object is not iterable) on jax 0.12.0.1)"),
], ids=[
    "dot-first-argument-removed", "dot-tf32-with-precision-none", "dot-positional-tf32-none-and-precision",
    "dot-tf32-none", "repeat-first-argument-removed", "params-empty-dict", "pjit-function-by-keyword",
    "pjit-double-star-kwargs", "shard-map-auto-expression", "shard-map-mesh-attribute", "rename-from-import",
    "annotated-assignment", "import-module-as", "device-buffers", "layout-attributes",
    "layout-guarded-reference-kept", "triton-dot-where-the-kernel-shadows-plt", "block-spec-index-map-a-partial",
])
def test_a_rarer_call_is_rewritten(source: str, expected: str, message: str) -> None:
    after, findings = _fix(source, UNSAFE)
    assert after == expected
    assert [(f.kind.value, f.message) for f in findings] == [("fixed", message)]


@pytest.mark.parametrize("source", [
    PL + "s = pl.BlockSpec(lambda i: (i,), index_map=f)\n",
    PL + "s = pl.BlockSpec(lambda i: (i,), (8,), block_shape=f)\n",
    "import jax\ntry:\n    f = jax.tree_map\nexcept:\n    pass\n",
    "import jax\nm = config.mesh\nwith m:\n    pass\n",
    "import functools\nimport jax\nmake = functools.partial(jax.make_mesh, (1,))\n",
], ids=["block-spec-index-map-by-keyword", "block-spec-block-shape-twice", "bare-except-guard",
        "mesh-of-an-attribute", "make-mesh-in-partial"])
def test_code_that_is_not_the_old_spelling_or_is_guarded_is_left_alone(source: str) -> None:
    assert _fix(source) == (source, [])


def test_a_mesh_is_followed_through_eight_assignments_and_no_further() -> None:
    chain = "".join(f"m{i + 1} = m{i}\n" for i in range(8))
    source = f"from jax.sharding import Mesh\nm0 = Mesh(d, ('x',))\n{chain}with m7:\n    pass\nwith m8:\n    pass\n"
    after, findings = _fix(source)
    assert after == source and [(f.code, f.line) for f in findings] == [("JAX134", 11)]


def test_an_unused_import_of_a_retired_name_through_the_command(tmp_path) -> None:
    """The command hands the engine its paths as strs, the direct tests a Path: JAX130 read the
    file's `.name` and every run over such a file stopped with `internal error in JAX130:
    AttributeError: 'str' object has no attribute 'name'` (issue 49, item 3b). The rules get a Path
    from every caller; a package's `__init__.py` re-exports the name, so it is left to a person."""
    from tests.test_cli import fix

    (tmp_path / "pkg").mkdir()
    for name in ("p.py", "pkg/__init__.py"):
        (tmp_path / name).write_text(PJIT + "x = 1\n")
    result = fix("--no-cache", "--write", "p.py", "pkg/__init__.py", cwd=tmp_path)
    assert result.returncode == 1 and b"internal error" not in result.stderr, result.stderr
    assert result.stderr.decode().splitlines()[:2] == [
        "p.py:1:1: JAX130 [fixed] import of jax.experimental.pjit.pjit -> removed (nothing here uses it): "
        "deprecated since jax 0.8.0",
        "pkg/__init__.py:1:35: JAX130 [manual] import of jax.experimental.pjit.pjit: deprecated since jax 0.8.0; "
        "it is re-exported: its importers must move to the replacement, and this import go"]
    assert (tmp_path / "p.py").read_text() == "x = 1\n"
    assert (tmp_path / "pkg/__init__.py").read_text() == PJIT + "x = 1\n"


@pytest.mark.parametrize("value, written", [
    # The value continued its line inside pl.store's parentheses: it gets its own (jax 0.4.30's flash
    # attention backward kernel; the rewrite did not parse, an internal error).
    ("pl.load(ref, (i,))\n         + d", "(ref[i,]\n         + d)"),
    ("f(\n    d)", "f(\n    d)"),  # its own brackets carry it: nothing added
    ("(y := d)", "(y := d)"),
])
def test_a_stored_value_keeps_its_line_continuation(value: str, written: str) -> None:
    source = PL + f"def kernel(ref, i, d):\n  pl.store(ref, (i,), {value})\n"
    after, findings = _fix(source)
    assert after == f"def kernel(ref, i, d):\n  ref[i,] = {written}\n"  # pl is no longer used
    assert all(finding.kind.value == "fixed" for finding in findings)


def test_a_dict_compiler_params_handed_on_is_found_only_where_its_key_names_a_pallas_backend() -> None:
    """`dict(compiler_params=dict(mosaic=dict(...)))` handed to a helper that passes it on to pallas_call
    (the eighth trial's `mm_load`): an unsafe fix, as the tool does not follow it there; another library's
    `compiler_params=` (a key no Pallas backend has) is not this rule's."""
    after, findings = _fix(PL + "opts = dict(compiler_params=dict(mosaic=dict(vmem_limit_bytes=1)))\n", UNSAFE, "JAX172")
    assert after == ("from jax.experimental import pallas as pl\nimport jax.experimental.pallas.tpu as pltpu\n\n"
                     "opts = dict(compiler_params=pltpu.CompilerParams(vmem_limit_bytes=1))\n")
    assert [(f.kind.value, f.fix.applicability.value) for f in findings] == [("fixed", "unsafe")]
    assert _fix(PL + "opts = build(compiler_params=dict(num_threads=4))\n", UNSAFE, "JAX172")[1] == []


def test_a_dict_compiler_params_handed_on_says_where_it_was_handed_to() -> None:
    """The unsafe fix of a dict handed on says which call it is handed to, after what the rewrite itself
    says (a backend's CompilerParams object unwrapped: that jax takes it alone); one written in a
    pallas_call says neither."""
    handed = ("handed to `{}(compiler_params=...)`, not to pallas_call: the tool takes it to reach one (its key "
              "names a Pallas backend)")
    alone = "jax takes it alone since 0.6.1"
    for source, new, note in [
            ("opts = dict(compiler_params=dict(mosaic=dict(vmem_limit_bytes=1)))\n", "pltpu.CompilerParams(...)",
             "; " + handed.format("dict")),
            ("opts = ops.build(compiler_params=dict(mosaic_tpu=pltpu.CompilerParams(vmem_limit_bytes=1)))\n",
             "the CompilerParams object", f"; {alone}; " + handed.format("ops.build")),
            (_params("dict(mosaic=dict(vmem_limit_bytes=1))"), "pltpu.CompilerParams(...)", ""),
            (_params("dict(mosaic_tpu=pltpu.CompilerParams(vmem_limit_bytes=1))"), "the CompilerParams object",
             f"; {alone}")]:
        after, findings = _fix(PL + PLTPU + source, UNSAFE, "JAX172")
        assert [f.message for f in findings] == [f"compiler_params=dict(...) -> {new}: removed in jax 0.6.1 (raises "
                                                 f"TypeError on jax 0.12.0.1){note}"], (source, findings)
        assert [f.fix.applicability.value for f in findings] == ["unsafe" if "opts" in source else "safe"]
    # handed on with two keys: which backend's is not known (in a pallas_call: [manual], split it by backend)
    assert _fix(PL + "opts = dict(compiler_params=dict(mosaic=dict(a=1), triton=dict(b=2)))\n", UNSAFE, "JAX172")[1] == []
