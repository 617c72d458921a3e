"""Analysis behaviours that a one-line change could break while the rest of the suite stays green.

Each test here was checked by making such a change in a scratch checkout and watching the test
fail: `explain` placing the innermost user frame and resolving a foreign path by its longest
suffix; one precision constant shared by a dot and a conv; a helper called from a Mosaic TPU
kernel and from Triton kernels; every module path, backend word and launcher mapped to its
backends; and the capability table's release boundaries, in the table and in what the rules write
for the releases on either side.

Only the tests marked `jax` import jax (to lower the rewritten kernels for TPU on this machine).
"""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest

from codemods import capabilities, explain, registry
from codemods.analysis import kernel_scope
from codemods.analysis.kernel_scope import MOSAIC_GPU, MOSAIC_TPU, TRITON, find_kernels
from codemods.analysis.module import ModuleIndex
from codemods.capabilities import Level
from codemods.engine.diagnostics import Kind
from codemods.engine.runner import process_source
from codemods.settings import Settings

RULES = {rule.code: rule for rule in registry.RULES}
TARGET = Settings((0, 12, 0, 1))
TPU, GPU = MOSAIC_TPU, MOSAIC_GPU


def _fix(source: str, settings: Settings = TARGET, codes=None):
    rules = registry.select(codes) if codes else registry.RULES
    result = process_source(Path("k.py"), source.encode(), rules, settings)
    assert result.error is None, result.error
    return result


def _lowering():
    """tests.jax_support, or a skip where jax is not installed."""
    return pytest.importorskip("tests.jax_support")


# -- explain: the innermost user frame, the longest suffix --


OPS = '''\
import jax.numpy as jnp
from jax import lax

P = lax.Precision


def inner(x, w):
    return jnp.dot(x, w, precision=(P.DEFAULT, P.HIGH))


def outer(x, w):
    return jnp.dot(inner(x, w), w, precision=(P.DEFAULT, P.HIGHEST))
'''
MODEL = '''\
from pkg.ops import outer


def kernel(x_ref, w_ref, o_ref):
    o_ref[...] = outer(x_ref[...], w_ref[...])
'''


def _frame(path: str, line: int, function: str, source: str) -> str:
    return f'  File "{path}", line {line}, in {function}\n    {source.splitlines()[line - 1].strip()}\n'


def _log(frames: list[str], error: str = "NotImplementedError: Per-operand dot precision unsupported") -> str:
    return "Traceback (most recent call last):\n" + "".join(frames) + error + "\n"


def _explain(log: str, root: Path, *, write: bool = True) -> tuple[explain.Outcome, str, bytes]:
    out, err = io.BytesIO(), io.StringIO()
    outcome = explain.run(log, root, RULES, TARGET, write=write, out=out, err=err)
    return outcome, err.getvalue(), out.getvalue()


def test_explain_fixes_the_innermost_frame_that_holds_a_matching_call(tmp_path: Path) -> None:
    """outer()'s line holds a dot too, but the error is raised in inner()'s: that call is fixed."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "ops.py").write_text(OPS)
    (tmp_path / "pkg" / "model.py").write_text(MODEL)
    log = _log([
        _frame("/ci/src/pkg/model.py", 5, "kernel", MODEL),
        _frame("/ci/src/pkg/ops.py", 12, "outer", OPS),
        _frame("/ci/src/pkg/ops.py", 8, "inner", OPS),
        '  File "/ci/venv/lib/python3.12/site-packages/jax/_src/numpy/lax_numpy.py", line 9000, in dot\n',
    ])
    outcome, err, _ = _explain(log, tmp_path)
    assert outcome is explain.Outcome.FIXED, err
    assert "pkg/ops.py:8: JAX001" in err and "ops.py:12" not in err, err
    assert (tmp_path / "pkg" / "ops.py").read_text() == OPS.replace(
        "precision=(P.DEFAULT, P.HIGH))", "precision=P.HIGH)")
    assert (tmp_path / "pkg" / "model.py").read_text() == MODEL


def test_place_takes_the_innermost_user_frame(tmp_path: Path) -> None:
    (tmp_path / "ops.py").write_text(OPS)
    error = explain.parse_log(_log([_frame(str(tmp_path / "ops.py"), 12, "outer", OPS),
                                    _frame(str(tmp_path / "ops.py"), 8, "inner", OPS)]))[0]
    placement = explain.place(error, tmp_path, lambda rule, module, line: True)
    assert (placement.path, placement.line) == (tmp_path / "ops.py", 8)


@pytest.mark.parametrize("present, expected", [
    (["pkg/kernel.py", "kernel.py"], "pkg/kernel.py"),
    (["kernel.py", "pkg/kernel.py"], "pkg/kernel.py"),
    (["kernel.py", "pkg/kernel.py", "src/pkg/kernel.py"], "src/pkg/kernel.py"),
    (["kernel.py"], "kernel.py"),
])
def test_a_foreign_path_resolves_to_its_longest_suffix_under_the_root(present: list[str], expected: str,
                                                                        tmp_path: Path) -> None:
    for name in present:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert explain.resolve("/ci/src/pkg/kernel.py", tmp_path) == tmp_path / expected
    assert explain.resolve("C:\\ci\\src\\pkg\\kernel.py", tmp_path) == tmp_path / expected


KERNEL_FILE = '''\
import jax.numpy as jnp
from jax import lax


def kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))
'''


def test_explain_fixes_the_file_the_longest_suffix_names(tmp_path: Path) -> None:
    """Both root/pkg/kernel.py and root/kernel.py hold the failing line; the log names pkg/kernel.py."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "kernel.py").write_text(KERNEL_FILE)
    (tmp_path / "kernel.py").write_text(KERNEL_FILE)
    outcome, err, _ = _explain(_log([_frame("/ci/src/pkg/kernel.py", 6, "kernel", KERNEL_FILE)]), tmp_path)
    assert outcome is explain.Outcome.FIXED, err
    assert "precision=lax.Precision.HIGHEST)" in (tmp_path / "pkg" / "kernel.py").read_text()
    assert (tmp_path / "kernel.py").read_text() == KERNEL_FILE


# -- one precision constant feeding a dot and a conv --


SHARED_PRECISION = '''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

P = lax.Precision
PREC = (P.DEFAULT, P.HIGH)


def kernel(x_ref, w_ref, y_ref, o_ref):
{body}


def build():
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((1, 8, 8, 128), jnp.float32),
                          compiler_params=pltpu.CompilerParams())
    return jax.jit(call)
'''
CONV_THEN_DOT = '''\
    h = lax.conv_general_dilated(x_ref[...], w_ref[...], (1, 1), "SAME",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"), precision=PREC)
    o_ref[...] = jnp.dot(h.reshape(64, 128), y_ref[...], precision=PREC).reshape(1, 8, 8, 128)'''
DOT_THEN_CONV = '''\
    h = jnp.dot(x_ref[...].reshape(64, 128), y_ref[...], precision=PREC).reshape(1, 8, 8, 128)
    o_ref[...] = lax.conv_general_dilated(h, w_ref[...], (1, 1), "SAME",
                                          dimension_numbers=("NHWC", "HWIO", "NHWC"), precision=PREC)'''
SHAPES = ((1, 8, 8, 128), (3, 3, 128, 128), (128, 128))


@pytest.mark.parametrize("body", [CONV_THEN_DOT, DOT_THEN_CONV], ids=["conv-then-dot", "dot-then-conv"])
def test_a_constant_shared_by_a_dot_and_a_conv_becomes_what_both_lower(body: str) -> None:
    """The dot alone would take HIGH (0.11.1+), but Mosaic TPU lowers no conv at HIGH: the constant
    becomes HIGHEST, which both lower."""
    assert Level.HIGH not in capabilities.lowered_precisions(TPU, "conv", TARGET.jax_version)
    source = SHARED_PRECISION.format(body=body)
    result = _fix(source, codes=["JAX001"])
    assert result.after == source.replace("PREC = (P.DEFAULT, P.HIGH)", "PREC = P.HIGHEST")
    assert [(f.line, f.kind) for f in result.findings] == [(8, Kind.FIXED)]
    assert "-> HIGHEST" in result.findings[0].message


@pytest.mark.parametrize("body", [CONV_THEN_DOT, DOT_THEN_CONV], ids=["conv-then-dot", "dot-then-conv"])
def test_a_constant_shared_with_a_conv_no_release_lowers_is_still_fixed_for_the_dot(body: str) -> None:
    """jax 0.10.2 lowers no conv in a Mosaic TPU kernel: the conv gets its note, and the constant
    (used only by kernel ops) is fixed for the dot. Before, the conv's use counted as one outside
    kernel precisions, and the dot got a note that wrongly spoke of XLA code."""
    assert capabilities.lowered_precisions(MOSAIC_TPU, "conv", (0, 10, 2)) is None
    source = SHARED_PRECISION.format(body=body)
    result = _fix(source, Settings((0, 10, 2)), codes=["JAX001"])
    assert result.after == source.replace("PREC = (P.DEFAULT, P.HIGH)", "PREC = P.HIGHEST")
    assert sorted(f.kind for f in result.findings) == [Kind.FIXED, Kind.MANUAL]
    assert not any("XLA" in f.message for f in result.findings)


@pytest.mark.jax
@pytest.mark.parametrize("body", [CONV_THEN_DOT, DOT_THEN_CONV], ids=["conv-then-dot", "dot-then-conv"])
def test_the_shared_constant_rewrite_lowers_for_tpu(body: str) -> None:
    jax_support = _lowering()
    import jax
    import jax.numpy as jnp

    if jax_support.JAX_VERSION < capabilities.MOSAIC_TPU_CONV_SINCE:
        pytest.skip("this jax has no Mosaic TPU conv lowering")
    source = SHARED_PRECISION.format(body=body)
    after = _fix(source, Settings(jax_support.JAX_VERSION), codes=["JAX001"]).after
    operands = [jax.ShapeDtypeStruct(shape, jnp.float32) for shape in SHAPES]
    name = f"shared_precision_{body is CONV_THEN_DOT}"
    before = jax_support.lowering_error(jax_support.load_program(source, name + "_in").build(), operands, "tpu")
    assert before == "Per-operand conv precision unsupported" or "Per-operand dot" in (before or ""), before
    weaker = after.replace("PREC = P.HIGHEST", "PREC = P.HIGH")
    assert jax_support.lowering_error(jax_support.load_program(weaker, name + "_weak").build(), operands, "tpu") \
        == "Unsupported conv precision: HIGH", "the level the dot alone would take breaks the conv"
    assert jax_support.lowering_error(jax_support.load_program(after, name + "_out").build(), operands, "tpu") is None


# -- a helper called from a Mosaic TPU kernel and from Triton kernels --


HELPER_PROGRAM = '''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import triton as pltriton


def project(x, y):
    return jnp.dot(x, y, precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))


{kernels}
'''
TPU_KERNEL = '''\
def tpu_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = project(x_ref[...], y_ref[...])


def tpu_matmul():
    return jax.jit(pl.pallas_call(tpu_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                                  compiler_params=pltpu.CompilerParams()))
'''
TRITON_KERNEL = '''\
def triton_kernel_{i}(x_ref, y_ref, o_ref):
    o_ref[...] = project(x_ref[...], y_ref[...])


def triton_matmul_{i}():
    return jax.jit(pl.pallas_call(triton_kernel_{i}, out_shape=jax.ShapeDtypeStruct((64, 64), jnp.float32),
                                  compiler_params=pltriton.CompilerParams()))
'''


def _helper_program(tpu_at: int, tritons: int = 4) -> str:
    kernels = [TRITON_KERNEL.format(i=i) for i in range(tritons)]
    kernels.insert(tpu_at, TPU_KERNEL)
    return HELPER_PROGRAM.format(kernels="\n\n".join(kernels))


@pytest.mark.parametrize("tpu_at", [0, 2, 4], ids=["tpu-first", "tpu-between", "tpu-last"])
def test_a_helper_of_tpu_and_triton_kernels_keeps_the_tpu_backend(tpu_at: int) -> None:
    source = _helper_program(tpu_at)
    module = ModuleIndex.parse(source)
    scope = find_kernels(module)
    by_name = {function.name: backends for function, backends in scope.backends.items()}
    assert by_name["project"] == {TPU, TRITON}
    assert by_name["tpu_kernel"] == {TPU} and all(by_name[f"triton_kernel_{i}"] == {TRITON} for i in range(4))
    result = _fix(source, codes=["JAX001"])
    assert [(f.line, f.kind) for f in result.findings] == [(10, Kind.FIXED)]
    assert "forced by Mosaic TPU (Triton lowers it as written)" in result.findings[0].message
    assert result.after == source.replace("precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))",
                                          "precision=lax.Precision.HIGH)")


@pytest.mark.jax
def test_the_helpers_fix_lets_the_tpu_kernel_lower() -> None:
    jax_support = _lowering()
    import jax
    import jax.numpy as jnp

    source = _helper_program(2)
    operands = [jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((128, 128), jnp.float32)]
    before = jax_support.load_program(source, "helper_tpu_triton_in")
    assert jax_support.lowering_error(before.tpu_matmul(), operands, "tpu") == "Per-operand dot precision unsupported"
    after = jax_support.load_program(_fix(source, Settings(jax_support.JAX_VERSION)).after, "helper_tpu_triton_out")
    assert jax_support.lowering_error(after.tpu_matmul(), operands, "tpu") is None


# -- module paths, backend words and launchers, each to its backends --


BACKEND_PROGRAM = '''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
{imports}


def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))


call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32), {selector})
'''
# Every prefix of kernel_scope.BACKEND_MODULES, the way a user's import reaches it. The classes live
# in each package's `core`; names.py reads jax._src.pallas.mosaic_gpu.core as the public module, so
# the private mosaic_gpu prefix is reached only through its other modules (`primitives` here).
MODULE_CASES = {
    "jax.experimental.pallas.tpu.": (TPU, "from jax.experimental.pallas import tpu as params_module"),
    "jax._src.pallas.mosaic.": (TPU, "from jax._src.pallas.mosaic import core as params_module"),
    "jax.experimental.pallas.mosaic_gpu.": (GPU, "from jax.experimental.pallas import mosaic_gpu as params_module"),
    "jax._src.pallas.mosaic_gpu.": (GPU, "from jax._src.pallas.mosaic_gpu import primitives as params_module"),
    "jax.experimental.pallas.triton.": (TRITON, "from jax.experimental.pallas import triton as params_module"),
    "jax._src.pallas.triton.": (TRITON, "from jax._src.pallas.triton import core as params_module"),
}
# Every key of kernel_scope.BACKEND_WORDS (`backend="..."`, `compiler_params=dict(...)`/{...}).
WORD_CASES = {"mosaic": TPU, "mosaic_tpu": TPU, "tpu": TPU, "mosaic_gpu": GPU, "triton": TRITON}


def _backends_of_kernel(source: str, name: str = "kernel") -> frozenset[str]:
    scope = find_kernels(ModuleIndex.parse(source))
    (backends,) = [b for function, b in scope.backends.items() if function.name == name]
    return backends


def _assert_dot_pair_outcome(source: str, backend: str) -> None:
    """What JAX001 does with a per-operand dot pair in a kernel for `backend` alone."""
    result = _fix(source, codes=["JAX001"])
    if backend == TPU:
        assert [f.kind for f in result.findings] == [Kind.FIXED] and "forced by" not in result.findings[0].message
        assert "precision=lax.Precision.HIGH)" in result.after
    elif backend == GPU:
        assert [f.kind for f in result.findings] == [Kind.MANUAL] and result.new_source is None
        assert "Mosaic GPU cannot lower dot_general" in result.findings[0].message
    else:
        assert result.findings == [] and result.new_source is None, "Triton lowers the pair as written"


def test_the_private_mosaic_gpu_core_reads_as_the_public_module() -> None:
    source = BACKEND_PROGRAM.format(imports="from jax._src.pallas.mosaic_gpu import core as params_module",
                                    selector="compiler_params=params_module.CompilerParams()")
    assert _backends_of_kernel(source) == {GPU}
    _assert_dot_pair_outcome(source, GPU)


def test_every_backend_module_and_word_has_a_case() -> None:
    assert [prefix for prefix, _ in kernel_scope.BACKEND_MODULES] == list(MODULE_CASES)
    assert dict(kernel_scope.BACKEND_WORDS) == WORD_CASES


@pytest.mark.parametrize("prefix", list(MODULE_CASES))
def test_a_compiler_params_module_names_its_backend(prefix: str) -> None:
    backend, imports = MODULE_CASES[prefix]
    source = BACKEND_PROGRAM.format(imports=imports, selector="compiler_params=params_module.CompilerParams()")
    assert _backends_of_kernel(source) == {backend}
    _assert_dot_pair_outcome(source, backend)
    aliased = source.replace("call = pl.pallas_call", "PARAMS = params_module.CompilerParams()\ncall = pl.pallas_call") \
        .replace("compiler_params=params_module.CompilerParams()", "compiler_params=PARAMS")
    assert _backends_of_kernel(aliased) == {backend}, "through a variable too"


@pytest.mark.parametrize("word", list(WORD_CASES))
@pytest.mark.parametrize("spelling", ['backend="{word}"', 'compiler_params=dict({word}=dict())',
                                      'compiler_params={{"{word}": {{}}}}'])
def test_a_backend_word_names_its_backend(word: str, spelling: str) -> None:
    source = BACKEND_PROGRAM.format(imports="", selector=spelling.format(word=word))
    assert _backends_of_kernel(source) == {WORD_CASES[word]}


# The backends each launcher reaches when nothing at the launch says which (kernel_scope.LAUNCHERS).
LAUNCHER_CASES = {
    "jax.experimental.pallas.pallas_call": {TPU, TRITON},
    "jax.experimental.pallas.kernel": {TPU, GPU},
    "jax.experimental.pallas.core_map": {TPU, GPU},
    "jax.experimental.pallas.mosaic_gpu.kernel": {GPU},
    "jax.experimental.pallas.mosaic_gpu.emit_pipeline": {GPU},
    "jax.experimental.pallas.mosaic_gpu.emit_pipeline_warp_specialized": {GPU},
    "jax.experimental.pallas.tpu.emit_pipeline": {TPU},
    "jax.experimental.pallas.tpu.emit_pipeline_with_allocations": {TPU},
}


def test_every_launcher_has_a_case() -> None:
    assert set(kernel_scope.LAUNCHERS) == set(LAUNCHER_CASES)


@pytest.mark.parametrize("launcher", list(LAUNCHER_CASES))
def test_a_launcher_reaches_its_backends(launcher: str) -> None:
    module, name = launcher.rsplit(".", 1)
    package, leaf = module.rsplit(".", 1)
    head = f"from {package} import {leaf} as launcher_module\n\n\n"
    if kernel_scope.LAUNCHERS[launcher].body_position is None:  # decorator only: `@pl.core_map(mesh)`
        source = head + f"def run(mesh):\n    @launcher_module.{name}(mesh)\n    def body():\n        pass\n"
    else:
        source = head + f"def body(x_ref):\n    pass\n\n\nlaunched = launcher_module.{name}(body)\n"
    assert _backends_of_kernel(source, "body") == LAUNCHER_CASES[launcher]


# -- the capability table's release boundaries --


# The releases the table's comments say were probed, and what each boundary is: (table, key, the
# release just before, the boundary, the value before, the value from the boundary on).
PROBED = [(0, 10, 2), (0, 11, 0), (0, 11, 1), (0, 11, 2), (0, 12, 0), (0, 12, 0, 1)]
GPU_ACCURACY = {"rsqrt", "tanh", "logistic", "exp", "exp2", "sin", "cos", "log"}
TPU_ACCURACY = {"rsqrt", "sqrt", "exp", "exp2", "logistic", "sin", "cos", "tan", "tanh", "log", "log1p"}
BOUNDARIES = [
    ("dot HIGH on Mosaic TPU", lambda v: capabilities.lowered_precisions(TPU, "dot", v), (0, 11, 0), (0, 11, 1),
     {Level.DEFAULT, Level.HIGHEST}, {Level.DEFAULT, Level.HIGH, Level.HIGHEST}),
    ("conv on Mosaic TPU", lambda v: capabilities.lowered_precisions(TPU, "conv", v), (0, 11, 0), (0, 11, 1),
     None, {Level.DEFAULT, Level.HIGHEST}),
    ("accuracy on Mosaic GPU", lambda v: capabilities.accuracy_rejected(GPU, v), (0, 11, 1), (0, 11, 2),
     GPU_ACCURACY, GPU_ACCURACY | {"sqrt", "log2"}),
    ("accuracy on Mosaic TPU", lambda v: capabilities.accuracy_rejected(TPU, v), (0, 11, 1), (0, 11, 2),
     TPU_ACCURACY, TPU_ACCURACY | {"log2"}),
    # Mosaic GPU's unlowered functions change at two boundaries: each is read on its own.
    ("not lowered on Mosaic GPU (sqrt)", lambda v: capabilities.not_lowered(GPU, v) - {"erfc"}, (0, 11, 1),
     (0, 11, 2), {"cbrt", "expm1", "tan", "log1p", "sqrt"}, {"cbrt", "expm1", "tan", "log1p"}),
    ("not lowered on Mosaic GPU (erfc)", lambda v: capabilities.not_lowered(GPU, v) - {"sqrt"}, (0, 11, 2),
     (0, 12, 0), {"cbrt", "expm1", "tan", "log1p"}, {"cbrt", "expm1", "tan", "log1p", "erfc"}),
    ("not lowered on Mosaic TPU (erfc)", lambda v: capabilities.not_lowered(TPU, v), (0, 11, 2), (0, 12, 0),
     {"cbrt", "expm1"}, {"cbrt", "expm1", "erfc"}),
]


def test_the_table_has_exactly_the_documented_boundaries() -> None:
    assert capabilities._known_versions() == [(0,), (0, 11, 1), (0, 11, 2), (0, 12, 0)]
    assert capabilities.not_lowered(GPU, (0, 11, 1)) == {"cbrt", "expm1", "tan", "log1p", "sqrt"}
    assert capabilities.not_lowered(GPU, (0, 12, 0)) == {"cbrt", "expm1", "tan", "log1p", "erfc"}
    assert capabilities.MOSAIC_TPU_DOT_HIGH_SINCE == (0, 11, 1) and capabilities.MOSAIC_TPU_CONV_SINCE == (0, 11, 1)


@pytest.mark.parametrize("what, read, before, since, old, new", BOUNDARIES, ids=[b[0] for b in BOUNDARIES])
def test_each_boundary_holds_on_either_side(what, read, before, since, old, new) -> None:
    assert PROBED.index(before) + 1 == PROBED.index(since), "the release just before the boundary"
    assert read(before) == (None if old is None else frozenset(old)), f"{what}: jax {before}"
    assert read(since) == frozenset(new), f"{what}: jax {since}"
    for release in PROBED:  # constant on either side of it
        expected = old if release < since else new
        assert read(release) == (None if expected is None else frozenset(expected)), f"{what}: jax {release}"


@pytest.mark.parametrize("backend, op, accepted", [
    ("triton", "dot", set(Level)), ("cudnn", "lstm", {Level.HIGH, Level.HIGHEST}),
    ("mosaic_gpu", "dot", None), ("mosaic_gpu", "conv", None), ("triton", "conv", None),
])
def test_rows_without_a_boundary_hold_on_every_release(backend: str, op: str, accepted) -> None:
    for release in PROBED:
        assert capabilities.lowered_precisions(backend, op, release) == (None if accepted is None else frozenset(accepted))


TPU_PROGRAM = '''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import {module} as params_module


def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = {call}


call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                      compiler_params=params_module.CompilerParams())
'''
PAIR = "(lax.Precision.DEFAULT, lax.Precision.HIGH)"
HINT = "accuracy=lax.AccuracyMode.HIGHEST"
# (backend module, call, release just before, boundary, what the line becomes before, and from it;
# the finding's kind before, and from it). None: no finding, the line unchanged.
REWRITES = [
    ("tpu", f"jnp.dot(x_ref[...], y_ref[...], precision={PAIR})", (0, 11, 0), (0, 11, 1),
     "jnp.dot(x_ref[...], y_ref[...], precision=lax.Precision.HIGHEST)",
     "jnp.dot(x_ref[...], y_ref[...], precision=lax.Precision.HIGH)", Kind.FIXED, Kind.FIXED),
    ("tpu", "jnp.dot(x_ref[...], y_ref[...], precision=lax.Precision.HIGH)", (0, 11, 0), (0, 11, 1),
     "jnp.dot(x_ref[...], y_ref[...], precision=lax.Precision.HIGHEST)", None, Kind.FIXED, None),
    ("tpu", f'lax.conv_general_dilated(x_ref[...], y_ref[...], (1, 1), "SAME", precision={PAIR})', (0, 11, 0),
     (0, 11, 1), None, 'lax.conv_general_dilated(x_ref[...], y_ref[...], (1, 1), "SAME", precision=lax.Precision.HIGHEST)',
     Kind.MANUAL, Kind.FIXED),
    ("tpu", f"lax.log2(x_ref[...], {HINT})", (0, 11, 1), (0, 11, 2), None, "lax.log2(x_ref[...])", None, Kind.DROPPED),
    ("mosaic_gpu", f"lax.log2(x_ref[...], {HINT})", (0, 11, 1), (0, 11, 2), None, "lax.log2(x_ref[...])", None,
     Kind.DROPPED),
    ("mosaic_gpu", f"lax.sqrt(x_ref[...], {HINT})", (0, 11, 1), (0, 11, 2), None, "lax.sqrt(x_ref[...])", Kind.MANUAL,
     Kind.DROPPED),
    ("tpu", f"lax.sqrt(x_ref[...], {HINT})", (0, 11, 1), (0, 11, 2), "lax.sqrt(x_ref[...])", "lax.sqrt(x_ref[...])",
     Kind.DROPPED, Kind.DROPPED),
    ("tpu", f"lax.erfc(x_ref[...], {HINT})", (0, 11, 2), (0, 12, 0), None, None, None, Kind.MANUAL),
    ("mosaic_gpu", f"lax.erfc(x_ref[...], {HINT})", (0, 11, 2), (0, 12, 0), None, None, None, Kind.MANUAL),
]


@pytest.mark.parametrize("module, call, before, since, old_line, new_line, old_kind, new_kind", REWRITES,
                         ids=[f"{r[0]}-{r[1].split('(')[0]}-{'-'.join(map(str, r[3]))}-{i}" for i, r in enumerate(REWRITES)])
def test_the_rules_write_each_boundarys_two_sides(module, call, before, since, old_line, new_line, old_kind,
                                                  new_kind) -> None:
    source = TPU_PROGRAM.format(module=module, call=call)
    for release, line, kind in ((before, old_line, old_kind), (since, new_line, new_kind)):
        result = _fix(source, Settings(release, unsafe_fixes=True))
        written = next(text.strip() for text in (result.after or source).splitlines() if text.startswith("    o_ref"))
        assert written == f"o_ref[...] = {line or call}", release
        # (JAX007's own wall, erfc with no Mosaic TPU lowering at all, is pinned in test_kernel_math_direct.py)
        assert [f.kind for f in result.findings if f.code != "JAX007"] == ([kind] if kind else []), (release, result.findings)


# -- the module index: imports, unpacking, loops, comprehensions (sampled survivors, issue 18) --


def test_import_of_a_submodule_binds_its_top_package() -> None:
    index = ModuleIndex.parse("import jax.numpy\nx = jax.numpy.dot\n")
    (value,) = [node for node in index.tree.body if isinstance(node, ast.Assign)]
    assert index.qualified_names(value.value) == {"jax.numpy.dot"}
    assert set(index.module_scope.bindings) == {"jax", "x"}


def test_a_starred_target_has_no_single_value() -> None:
    index = ModuleIndex.parse("first, *rest = (1, 2)\nfirst, rest\n")
    assert [b.value for b in index.module_scope.bindings["rest"]] == [None]
    assert [b.value for b in index.module_scope.bindings["first"]] == [None]


def test_a_loop_over_items_binds_the_values_to_its_second_name() -> None:
    index = ModuleIndex.parse('for key, level in {"a": 1, "b": 2}.items():\n    pass\n'
                              'for key2, level2 in pairs:\n    pass\n')
    (level,) = index.module_scope.bindings["level"]
    assert [ast.literal_eval(value) for value in level.iterated] == [1, 2]
    (key,) = index.module_scope.bindings["key"]
    assert key.iterated == ()  # the keys are not what the loop's second name takes
    (unknown,) = index.module_scope.bindings["level2"]
    assert unknown.iterated == ()


def test_a_comprehension_element_knows_its_parent() -> None:
    index = ModuleIndex.parse("ys = [f(x) for x in xs]\nd = {k: g(k) for k in xs}\n")
    calls = {call.func.id: call for call in index.calls if isinstance(call.func, ast.Name)}
    assert isinstance(index.parent[calls["f"]], ast.ListComp)
    assert isinstance(index.parent[calls["g"]], ast.DictComp)


# -- kernels found through launch helpers bound by partial --

HELPER_BOUND_BY_PARTIAL = '''\
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def run(body, x):
    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def square_kernel(x_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=("default", "high"))


square = functools.partial(run, square_kernel)
'''


def test_a_body_bound_to_a_launch_helper_by_partial_is_a_kernel() -> None:
    result = _fix(HELPER_BOUND_BY_PARTIAL, codes=["JAX001"])
    assert [(f.code, f.kind) for f in result.findings] == [("JAX001", Kind.FIXED)]
    assert 'precision="high")' in result.after


def test_a_batched_matmul_in_a_triton_kernel_gets_a_note_not_a_fix() -> None:
    source = HELPER_BOUND_BY_PARTIAL.replace(
        "from jax.experimental import pallas as pl\n",
        "from jax import lax\nfrom jax.experimental import pallas as pl\nfrom jax.experimental.pallas import triton as plt\n",
    ).replace("out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))", "out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), "
              "compiler_params=plt.CompilerParams())").replace(
        'jnp.dot(x_ref[...], x_ref[...], precision=("default", "high"))',
        'lax.batch_matmul(x_ref[...], x_ref[...], ("default", "high"))')
    (finding,) = _fix(source, codes=["JAX001"]).findings
    assert finding.kind is Kind.MANUAL and "cannot lower" in finding.message and "Triton" in finding.message


# -- how far a precision is followed --

CHAIN = '''\
import os

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

P = lax.Precision
FAST = os.environ.get("FAST") == "1"
{chain}


def kernel(x_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=A)


run = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
'''


@pytest.mark.parametrize(("chain", "said"), [
    # A -> B -> C: six steps, the depth the rule follows: the pair it reaches is named
    ("C = (P.DEFAULT, P.HIGH)\nB = C if FAST else P.HIGHEST\nA = B if FAST else P.HIGHEST",
     "can be (DEFAULT, HIGH) (set on line 10;"),
    # one name more: followed too far, and said so
    ("D = (P.DEFAULT, P.HIGH)\nC = D if FAST else P.HIGHEST\nB = C if FAST else P.HIGHEST\nA = B if FAST else P.HIGHEST",
     "(it is followed too far)"),
], ids=["at-the-depth", "past-the-depth"])
def test_a_precision_is_followed_six_steps_and_no_further(chain: str, said: str) -> None:
    (finding,) = _fix(CHAIN.format(chain=chain), codes=["JAX001"]).findings
    assert finding.kind is Kind.MANUAL and said in finding.message, finding.message


def test_names_bound_by_except_and_match_shadow_the_module_ones() -> None:
    """`except E as P`, `case ... as whole`, `case [*rest]` and `case {**others}` bind in the
    function: a load there reads that binding, not the module constant of the same name (which a
    fix may rewrite)."""
    module = ModuleIndex.parse(
        "P = (1, 2)\nwhole = rest = P\n\n\ndef f(x):\n    try:\n        pass\n    except ValueError as P:\n"
        "        return P\n    match x:\n        case [*rest] as whole:\n            return rest, whole\n"
        "        case {'k': 1, **others}:\n            return others\n")
    loads = {node.id: node for node in ast.walk(module.tree.body[2]) if isinstance(node, ast.Name)
             and isinstance(node.ctx, ast.Load) and node.id in ("P", "rest", "whole", "others")}
    kinds = {name: [type(binding.node).__name__ for binding in module.bindings(load)] for name, load in loads.items()}
    assert kinds == {"P": ["ExceptHandler"], "rest": ["MatchStar"], "whole": ["MatchAs"], "others": ["MatchMapping"]}


# -- why a precision is left [manual]: each way the analysis stops following a value --

REASON_HEAD = """\
import functools
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from config import IMPORTED
P = lax.Precision
"""
DOT = "jnp.dot(x_ref[...], x_ref[...], precision={})"


@pytest.mark.parametrize("body, reason", [
    (f"def kernel(x_ref, o_ref):\n    o_ref[...] = {DOT.format('UNDEFINED')}\n",
     "`UNDEFINED` is not a literal (`UNDEFINED` comes from outside this module)"),
    (f"LEVEL = UNDEFINED\ndef kernel(x_ref, o_ref):\n    o_ref[...] = {DOT.format('LEVEL')}\n",
     "`LEVEL` is a module constant that is not a precision literal (`UNDEFINED` comes from outside this module)"),
    (f"def kernel(x_ref, o_ref):\n    o_ref[...] = {DOT.format('IMPORTED')}\n",
     "`IMPORTED` is not a literal (`IMPORTED` is imported from `config`; a precision is followed within its own "
     "module only)"),
    (f"from .. import UP\ndef kernel(x_ref, o_ref):\n    o_ref[...] = {DOT.format('UP')}\n",
     "`UP` is not a literal (`UP` is imported from `..`; a precision is followed within its own module only)"),
    (f"import config as LEVEL\ndef kernel(x_ref, o_ref):\n    o_ref[...] = {DOT.format('LEVEL')}\n",
     "`LEVEL` is not a literal (`LEVEL` is set in a way this analysis does not follow)"),
    (f"with open('f') as LEVEL:\n    pass\ndef kernel(x_ref, o_ref):\n    o_ref[...] = {DOT.format('LEVEL')}\n",
     "`LEVEL` is not a literal (`LEVEL` is set in a way this analysis does not follow)"),
    (f"def kernel(x_ref, o_ref):\n    f = lambda p: {DOT.format('p')}\n    o_ref[...] = f(P.HIGH)\n",
     "`p` is a kernel parameter whose value is not bound in this module (it is a lambda's parameter)"),
    ("def helper(x, p):\n    return jnp.dot(x, x, precision=p)\n"
     "def kernel(x_ref, o_ref):\n    o_ref[...] = helper(x_ref[...], p=P.HIGH) + helper(x_ref[...])\n",
     "`p` is a kernel parameter whose value is not bound in this module (a call of `helper` leaves `p` out)"),
    (f"def kernel(x_ref, o_ref, *, precision):\n    o_ref[...] = {DOT.format('precision')}\n"
     "body = functools.partial(kernel, precision=getattr(P, 'HIGH'))\n",
     "`precision` is a kernel parameter bound to `getattr(P, 'HIGH')`, not a literal (`getattr(P, 'HIGH')` is computed)"),
    (f"LEVEL = getattr(P, 'HIGH')\ndef kernel(x_ref, o_ref, *, precision):\n    o_ref[...] = {DOT.format('precision')}\n"
     "body = functools.partial(kernel, precision=LEVEL)\n",
     "`precision` is a kernel parameter bound to `LEVEL`, not a literal (`getattr(P, 'HIGH')` is computed)"),
], ids=["unbound", "constant-of-unbound", "imported", "imported-relative", "module", "with-as", "lambda", "left-out", "partial-computed",
        "partial-constant-computed"])
def test_why_a_precision_is_left_for_review(body: str, reason: str) -> None:
    launched = "body" if "body =" in body else "kernel"
    source = REASON_HEAD + body + f"call = pl.pallas_call({launched}, out_shape=None)\n"
    (finding,) = _fix(source, codes=["JAX001"]).findings
    assert finding.kind is Kind.MANUAL
    assert finding.message == (f"jnp.dot: precision {reason}: if it is not a single scalar the Mosaic TPU lowering "
                               "accepts, Mosaic TPU raises \"Per-operand dot precision unsupported\" for a pair")


def test_a_note_for_several_uses_names_the_op_of_the_use_it_stands_at() -> None:
    """One note per source, at its first use: the op it names is that use's, not the last one's."""
    source = (REASON_HEAD + "def kernel(x_ref, o_ref):\n"
              "    o_ref[...] = jnp.einsum('ij,jk->ik', x_ref[...], x_ref[...], precision=IMPORTED)\n"
              "    o_ref[...] += jnp.matmul(x_ref[...], x_ref[...], precision=IMPORTED)\n"
              "call = pl.pallas_call(kernel, out_shape=None)\n")
    (finding,) = _fix(source, codes=["JAX001"]).findings
    assert finding.line == REASON_HEAD.count("\n") + 2
    assert finding.message.startswith("jnp.einsum: precision `IMPORTED` (used on lines 9, 10) is not a literal")


def test_a_kernel_parameter_bound_to_none_and_to_a_pair_gets_the_pair_fixed() -> None:
    """None is the lowering's default: nothing to fix there, and no reason to stop at it."""
    source = (REASON_HEAD + f"def kernel(x_ref, o_ref, *, precision):\n    o_ref[...] = {DOT.format('precision')}\n"
              "default = functools.partial(kernel, precision=None)\n"
              "paired = functools.partial(kernel, precision=(P.DEFAULT, P.HIGH))\n"
              "calls = pl.pallas_call(default, out_shape=None), pl.pallas_call(paired, out_shape=None)\n")
    result = _fix(source, codes=["JAX001"])
    assert result.after == source.replace("precision=(P.DEFAULT, P.HIGH))", "precision=P.HIGH)")
    assert [finding.kind for finding in result.findings] == [Kind.FIXED]


def test_a_helper_launched_by_partial_and_called_from_a_kernel_is_followed_to_both() -> None:
    """The pair the launching partial binds is fixed; the scalar the kernel's call passes is kept."""
    source = (REASON_HEAD + "def helper(x_ref, o_ref, p=None):\n    o_ref[...] = " + DOT.format("p") + "\n"
              "body = functools.partial(helper, p=(P.DEFAULT, P.HIGH))\n"
              "def kernel(x_ref, o_ref):\n    helper(x_ref, o_ref, P.HIGHEST)\n"
              "calls = pl.pallas_call(body, out_shape=None), pl.pallas_call(kernel, out_shape=None)\n")
    result = _fix(source, codes=["JAX001"])
    assert result.after == source.replace("p=(P.DEFAULT, P.HIGH))", "p=P.HIGH)")


def test_a_helpers_precision_that_a_kernel_passes_on_is_followed_to_the_partial_that_sets_it() -> None:
    """`mm(a, b, precision=precision)` in a kernel whose `precision` a launching partial binds: the
    helper's parameter is set by its callers, not only its None default (before: no finding at all,
    and the kernel failed to lower for TPU)."""
    source = (REASON_HEAD + "def mm(a, b, precision=None):\n    return jnp.dot(a, b, precision=precision)\n"
              "def body(x_ref, o_ref, *, precision=None):\n    o_ref[...] = mm(x_ref[...], x_ref[...], precision=precision)\n"
              "run = pl.pallas_call(functools.partial(body, precision=(P.DEFAULT, P.HIGHEST)), out_shape=None)\n")
    (finding,) = _fix(source, codes=["JAX001"]).findings
    assert finding.kind is Kind.MANUAL and "can be (DEFAULT, HIGHEST)" in finding.message, finding.message
