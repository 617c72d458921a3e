"""JAX002 against the real compiler: hinted kernels fail to lower, rewritten ones lower and compute
what XLA computes with the hints.

Lowering runs the real Mosaic GPU and Mosaic TPU rules on the CPU (`jax.export` for another
platform). Numerics run the kernels in interpret mode, where XLA honours accuracy hints: the
unmodified program in interpret mode is the reference, with the accuracy its author asked for.
"""

from __future__ import annotations

import functools
import shutil
import sys
import types
from pathlib import Path

import pytest

pytest.importorskip("jax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402
from jax.experimental.pallas import mosaic_gpu as plgpu  # noqa: E402

from codemods import capabilities  # noqa: E402
from codemods.analysis.module_helpers import REFERENCE_SOURCE, reference_helper  # noqa: E402
from codemods.engine.diagnostics import Kind  # noqa: E402
from codemods.engine.runner import process_source  # noqa: E402
from codemods.registry import select  # noqa: E402
from codemods.settings import Settings  # noqa: E402
from tests import jax_support  # noqa: E402

pytestmark = pytest.mark.jax

ACCURACY_ERROR = "Not implemented: accuracy"
FIXTURES = Path(__file__).parent / "fixtures" / "accuracy"
CODEMODS = Path(__file__).resolve().parents[1] / "codemods"
PLATFORMS = {"mosaic_gpu": "cuda", "mosaic_tpu": "tpu"}


def rewrite(source: str, helpers_module: str | None = None) -> tuple[str, list]:
    """The tool's JAX002 rewrite of `source` for the installed jax, and its findings."""
    settings = Settings(jax_support.JAX_VERSION, helpers_module=helpers_module, unsafe_fixes=True)
    result = process_source(Path("program.py"), source.encode(), select(["JAX002"]), settings)
    assert result.error is None, result.error
    return (result.after if result.new_source is not None else source), result.findings


def f32(*shape: int) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(shape, jnp.float32)


# Golden cases that are whole programs: (case, entry point, platform, operand shapes, static args).
# Left out: emit_pipeline_body and pl_kernel_and_nested_calls (they need a TPU device to trace),
# cbrt_expm1_in_kernel (Mosaic lowers neither cbrt nor expm1, so it fails before and after).
PROGRAMS = [
    ("rsqrt_plgpu_kernel_call", "rms_norm", "cuda", (f32(16, 256), f32(256)), ()),
    ("plgpu_kernel_decorator", "rms_norm", "cuda", (f32(16, 256), f32(256)), ()),
    ("partial_decorator", "gelu_tanh", "cuda", (f32(128, 256),), ()),
    ("two_kernels_one_helper", "rms_norm", "cuda", (f32(16, 256),), ("gpu",)),
    ("two_kernels_one_helper", "rms_norm", "tpu", (f32(8, 128),), ("tpu",)),
    ("partial_decorator", "swish", "tpu", (f32(128, 256),), ()),
    ("rsqrt_fully_qualified_jax_lax", "normalize", "tpu", (f32(8, 128),), ()),
    ("rsqrt_imported_function", "layer_norm", "tpu", (f32(8, 128),), ()),
    ("lax_imported_as_L", "scaled_exp", "tpu", (f32(8, 128),), ()),
    ("pallas_call_tpu_softmax", "softcapped_softmax", "tpu", (f32(256, 128),), ()),
    ("helper_called_from_kernel", "mlp", "tpu", (f32(128, 128), f32(128, 128)), ()),
    ("nested_def_in_kernel", "attention_denominator", "tpu", (f32(8, 128), f32(256, 128)), ()),
    ("lambdas", "rotary_tables", "tpu", (f32(8, 128),), ()),
    ("lambdas", "inverse_sqrt", "tpu", (f32(8, 128),), ()),
    ("multiline_calls_with_comments", "fused", "tpu", (f32(8, 128),), ()),
    ("jax_0_10_per_backend", "fused", "tpu", (f32(8, 128),), ()),
    ("accuracy_as_variable", "softplus", "tpu", (f32(8, 128),), ()),
    ("accuracy_mode_import_becomes_unused", "softmax", "tpu", (f32(8, 128),), ()),
    ("accuracy_mode_import_still_used", "softmax", "tpu", (f32(8, 128),), ()),
    ("helper_already_present", "l2_normalize", "tpu", (f32(8, 128),), ()),
    ("helper_name_taken", "rms_norm", "tpu", (f32(8, 128),), ()),
    ("partial_of_lax_function", "fused", "tpu", (f32(8, 128),), ()),
]


def _program_id(program: tuple) -> str:
    case, entry, platform, _, _ = program
    return f"{case}.{entry}-{platform}"


def _entry(source: str, name: str, entry: str, statics: tuple):
    module = jax_support.load_program(source, name)
    return jax.jit(lambda *operands: getattr(module, entry)(*operands, *statics))


@pytest.fixture
def interpreted_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every kernel launched through pl.pallas_call or plgpu.kernel runs in interpret mode.

    Patched before a program is loaded, so decorators evaluated at import time see it too."""
    monkeypatch.setattr(pl, "pallas_call", functools.partial(pl.pallas_call, interpret=True))
    monkeypatch.setattr(plgpu, "kernel", functools.partial(plgpu.kernel, interpret=True))


@pytest.mark.parametrize("program", PROGRAMS, ids=_program_id)
def test_golden_program_lowers_only_after_the_rewrite(program: tuple) -> None:
    case, entry, platform, shapes, statics = program
    source = (FIXTURES / f"{case}.in.py").read_text()
    rewritten, _ = rewrite(source)

    original = _entry(source, f"{case}_original", entry, statics)
    assert jax_support.lowering_error(original, shapes, platform) == ACCURACY_ERROR
    fixed = _entry(rewritten, f"{case}_rewritten", entry, statics)
    assert jax_support.lowering_error(fixed, shapes, platform) is None


# Interpreting a kernel costs seconds: numerics run on the cases that together cover the rsqrt
# helper on both launchers, each dropped function, aliases, partial() and a hint in a variable.
NUMERICS = {
    "rsqrt_plgpu_kernel_call", "lax_imported_as_L", "pallas_call_tpu_softmax", "multiline_calls_with_comments",
    "partial_of_lax_function", "accuracy_as_variable", "jax_0_10_per_backend",
}


@pytest.mark.parametrize("program", [p for p in PROGRAMS if p[0] in NUMERICS], ids=_program_id)
def test_golden_program_computes_what_xla_computes_with_the_hints(program: tuple, interpreted_kernels) -> None:
    case, entry, _, shapes, statics = program
    source = (FIXTURES / f"{case}.in.py").read_text()
    rewritten, _ = rewrite(source)
    keys = jax.random.split(jax.random.PRNGKey(0), len(shapes))
    # Positive operands: every function here is defined there (rsqrt, log1p of sqrt + tan, ...).
    operands = [jax.random.uniform(key, s.shape, s.dtype, 0.1, 2.0) for key, s in zip(keys, shapes)]

    with jax.default_device(jax.devices("cpu")[0]):
        expected = _entry(source, f"{case}_original", entry, statics)(*operands)
        actual = _entry(rewritten, f"{case}_rewritten", entry, statics)(*operands)
    jax_support.assert_close(actual, expected, rtol=2e-6, atol=1e-6)


# -- the examples (examples/README.md contract) --

# The examples that hit "Not implemented: accuracy"; tests/test_examples_rewritten.py runs every
# transform over every example, these show JAX002 alone is the fix.
EXAMPLES = ["gpu_rms_norm", "tpu_softmax_accuracy"]


def _example_source(stem: str) -> str:
    path = jax_support.EXAMPLES_DIR / f"{stem}.py"
    if not path.exists():
        pytest.skip(f"examples/{path.name} is not there")
    return path.read_text()


def _check_rewritten_example(stem: str, rewritten: str) -> None:
    program = jax_support.load_program(rewritten, f"{stem}_rewritten")
    reason = jax_support.jax_too_old(program)
    if reason:
        pytest.skip(reason)
    fn, args = program.build()
    assert jax_support.lowering_error(fn, args, program.PLATFORM) is None
    jax_support.run_matches_reference(program)


@pytest.mark.parametrize("stem", EXAMPLES)
def test_rewritten_example_lowers_and_matches_its_reference(stem: str) -> None:
    source = _example_source(stem)
    original = jax_support.load_program(source, f"{stem}_original")
    reason = jax_support.jax_too_old(original)
    if reason:
        pytest.skip(reason)
    fn, args = original.build()
    assert jax_support.lowering_error(fn, args, original.PLATFORM) == original.EXPECTED_ERROR == ACCURACY_ERROR

    rewritten, findings = rewrite(source)
    assert findings and all(finding.kind is Kind.DROPPED for finding in findings)
    _check_rewritten_example(stem, rewritten)


def test_helpers_module_users_can_copy_the_reference_source(tmp_path, monkeypatch) -> None:
    """With --helpers-module, the rewritten example imports rsqrt_safe from the user's module,
    created by copying codemods/helpers_source.py as its documentation says."""
    package = "jax_codemod_user_pkg"
    (tmp_path / package).mkdir()
    (tmp_path / package / "__init__.py").write_text("")
    shutil.copy(CODEMODS / REFERENCE_SOURCE, tmp_path / package / "jax_compat.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in (package, f"{package}.jax_compat"):
        monkeypatch.delitem(sys.modules, name, raising=False)

    rewritten, _ = rewrite(_example_source("gpu_rms_norm"), helpers_module=f"{package}.jax_compat")
    assert f"from {package}.jax_compat import rsqrt_safe" in rewritten
    assert "def rsqrt_safe" not in rewritten
    _check_rewritten_example("gpu_rms_norm", rewritten)


# -- the rsqrt helper --

def _helper_namespace(lax_module) -> types.SimpleNamespace:
    """The helper exactly as the tool inserts it, its `lax` bound to `lax_module`."""
    namespace: dict = {"lax": lax_module}
    exec(reference_helper("rsqrt_safe").code("rsqrt_safe"), namespace)
    return types.SimpleNamespace(**namespace)


rsqrt_safe = _helper_namespace(lax).rsqrt_safe

TINY = np.finfo(np.float32).tiny
HUGE = np.finfo(np.float32).max
EDGES = np.array([0.0, -0.0, TINY, 1e-40, HUGE, np.inf, -1.0, -np.inf, np.nan, 1.0, 4.0, 2.0], np.float32)


def _inputs() -> np.ndarray:
    """Edge values, then positive floats spread over the whole float32 exponent range."""
    spread = np.exp(np.random.default_rng(0).uniform(-87.0, 88.0, 8 * 128 - EDGES.size))
    return np.concatenate([EDGES, spread.astype(np.float32)]).reshape(8, 128)


def _ulps(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Distance in float32 steps (both finite and of one sign)."""
    return np.abs(actual.view(np.int32).astype(np.int64) - expected.view(np.int32).astype(np.int64))


def _assert_like_xla_rsqrt(x: np.ndarray, y: np.ndarray) -> None:
    xla = np.asarray(lax.rsqrt(x))
    np.testing.assert_array_equal(np.isnan(y), np.isnan(xla))
    np.testing.assert_array_equal(y[~np.isfinite(xla)], xla[~np.isfinite(xla)])  # inf, -inf
    finite = np.isfinite(xla)
    assert _ulps(y[finite], xla[finite]).max() <= 2
    exact = (1 / np.sqrt(x[finite].astype(np.float64))).astype(np.float32)
    assert _ulps(y[finite], exact).max() <= 1


def _rsqrt_kernel(x_ref, o_ref):
    o_ref[...] = rsqrt_safe(x_ref[...])


@pytest.mark.parametrize("launcher", ["pallas_call", "plgpu.kernel"])
def test_rsqrt_safe_in_interpreted_kernels_matches_xla(launcher: str) -> None:
    """Interpreted on the CPU, also on a TPU host: there the default backend would run the Mosaic GPU
    interpreter on the TPU ("mpmd_map requires the mesh to define its core_type")."""
    x = _inputs()
    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)
    if launcher == "pallas_call":
        kernel = pl.pallas_call(_rsqrt_kernel, out_shape=out, interpret=True)
    else:
        kernel = plgpu.kernel(_rsqrt_kernel, out_type=out, interpret=True)
    cpu = jax.devices("cpu")[0]
    with jax.default_device(cpu):
        _assert_like_xla_rsqrt(x, np.asarray(jax.jit(kernel)(jax.device_put(x, cpu))))


@pytest.mark.parametrize("relative_error", [2.0**-22, -(2.0**-22), 2.0**-16])
def test_rsqrt_safe_recovers_from_an_approximate_rsqrt(relative_error: float) -> None:
    """Mosaic GPU may lower rsqrt to rsqrt.approx.f32 (relative error up to about 2**-22.9)."""
    approximate = types.SimpleNamespace(
        rsqrt=lambda x: lax.rsqrt(x) * jnp.float32(1 + relative_error), select=lax.select
    )
    x = _inputs()
    _assert_like_xla_rsqrt(x, np.asarray(jax.jit(_helper_namespace(approximate).rsqrt_safe)(x)))


@pytest.mark.parametrize("platform", ["cuda", "tpu"])
def test_rsqrt_safe_lowers(platform: str) -> None:
    out = f32(8, 128)
    if platform == "cuda":
        kernel = plgpu.kernel(_rsqrt_kernel, out_type=out)
    else:
        kernel = pl.pallas_call(_rsqrt_kernel, out_shape=out)
    assert jax_support.lowering_error(jax.jit(kernel), [out], platform) is None


# -- the capability table JAX002 reads --

def _rejected_functions() -> list[tuple[str, str]]:
    version = jax_support.JAX_VERSION
    return sorted((backend, name) for backend in capabilities.ACCURACY_REJECTED
                  for name in capabilities.accuracy_rejected(backend, version))


@pytest.mark.parametrize("backend, name", _rejected_functions(), ids=lambda value: value)
def test_table_rejection_is_the_hint_alone(backend: str, name: str) -> None:
    """Each function the table lists fails to lower with a hint and lowers without one, so dropping
    the hint is the whole fix."""
    function = getattr(lax, name)
    out = f32(8, 128)

    def lowering_error(**hint):
        def body(x_ref, o_ref):
            o_ref[...] = function(x_ref[...], **hint)

        if backend == "mosaic_gpu":
            kernel = plgpu.kernel(body, out_type=out)
        else:
            kernel = pl.pallas_call(body, out_shape=out)
        return jax_support.lowering_error(jax.jit(kernel), [out], PLATFORMS[backend])

    assert lowering_error(accuracy=lax.AccuracyMode.HIGHEST) == ACCURACY_ERROR
    assert lowering_error() is None
