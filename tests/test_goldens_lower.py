"""Every precision and accuracy golden against the real lowerings: what its findings say of a
backend is true of that backend.

For each golden, the kernels of its `.out.py` (the stored, reviewed output) are lowered for the
backends its findings name (Mosaic TPU and Mosaic GPU with `jax.export` for `tpu`/`cuda`, Triton on
an abstract GPU, all on the CPU), and so are those of its `.in.py`:
- a backend a fix is made for (`[fixed]`/`[dropped]` "... in Mosaic TPU kernels", "rejected by
  Mosaic GPU kernels") rejects the `.in.py`;
- the `.out.py` lowers there, unless a finding says it cannot ("Mosaic GPU cannot lower dot_general
  ... ("Unimplemented primitive ...")"): then it fails with the very error the finding quotes;
- a backend a finding says "lowers it as written" lowers the `.in.py`;
- where the tool changed nothing for a backend the `.out.py` fares as the `.in.py`, and a failure
  there has a `[manual]` finding (quoting the error, where it quotes one).

A golden records the output for its target release (0.12.0.1 unless its first line says otherwise).
When the installed jax's lowerings differ from the target's (capabilities.py decides: for example
jax 0.10.2 has no Mosaic TPU conv), the tool's own output and findings for the installed release are
checked instead, and the test id says so. Goldens whose kernels cannot be lowered here for a reason
outside the tool are listed in NOT_LOWERED_HERE with that reason; a golden in neither table fails.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import re
import shutil
import sys
import types
import warnings
from pathlib import Path
from typing import Optional

import pytest

pytest.importorskip("jax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402
from jax.experimental.pallas import mosaic_gpu as plgpu  # noqa: E402
from jax.experimental.pallas import tpu as pltpu  # noqa: E402

from codemods import capabilities, probe  # noqa: E402
from codemods.analysis.kernel_scope import BACKEND_NAMES  # noqa: E402
from codemods.engine.runner import process_source  # noqa: E402
from codemods.registry import select  # noqa: E402
from tests import jax_support  # noqa: E402
from tests.test_accuracy_jax import PROGRAMS  # noqa: E402
from tests.test_fixtures import case_rules, case_settings  # noqa: E402

pytestmark = pytest.mark.jax

FIXTURES = Path(__file__).parent / "fixtures"
HELPERS_SOURCE = Path(__file__).resolve().parents[1] / "codemods" / "helpers_source.py"
TPU, GPU, TRITON = "mosaic_tpu", "mosaic_gpu", "triton"
RULES = {"precision": "JAX001", "accuracy": "JAX002", "math": "JAX007"}


@dataclasses.dataclass(frozen=True)
class Launch:
    """One kernel launch of a golden: `entry(*operands, *statics)` lowered for `backend`."""

    entry: str
    backend: str
    shapes: tuple[tuple[int, ...], ...]
    statics: tuple = ()
    # The lines of the .in.py whose findings are about this launch (None: every finding).
    lines: Optional[tuple[int, ...]] = None


def _launches(entry: str, shapes, *backends: str, statics: tuple = (),
              lines: Optional[tuple[int, ...]] = None) -> list[Launch]:
    return [Launch(entry, backend, tuple(shapes), statics, lines) for backend in backends]


MATMUL = ((8, 128), (128, 128))
# NCHW convolutions with 2x2 windows: powers of two, as Triton requires of every array, so Triton
# reaches the conv itself (and says it has no lowering for it).
CONV = ((1, 8, 8, 128), (8, 8, 2, 2))
PAIR = (jax.lax.Precision.DEFAULT, jax.lax.Precision.HIGH)
PAIR_SPELLED = "(jax.lax.Precision.DEFAULT, jax.lax.Precision.HIGH)"
_OUT = "jax.ShapeDtypeStruct((8, 128), jnp.float32)"  # the out_shape of a launch written here
# Plain `pl.pallas_call` launches reach Mosaic TPU and Triton: both are lowered.
PORTABLE = (TPU, TRITON)

def _preset_launches() -> list[Launch]:
    """dot_algorithm_presets_*: each kernel's launch, judged by its own line's finding (tf32's launch
    passes pltpu.CompilerParams, so it reaches Mosaic TPU only)."""
    entries = {"one_pass": 15, "three_pass": 23, "six_pass": 31, "named": 47, "cast": 56, "float64": 65}
    return [launch for entry, line in entries.items() for launch in _launches(entry, MATMUL, *PORTABLE, lines=(line,))] \
        + _launches("tf32", MATMUL, TPU, lines=(39,))


PRECISION: dict[str, list[Launch]] = {
    # No finding names a backend: the kernel lowers for Mosaic TPU as written (Triton, which its
    # launch also reaches, has no conv lowering: nothing here is about that).
    "already_valid": _launches("fused", [*CONV, (128, 128)], TPU),
    "backend_core_map_meshes": [],  # listed in NOT_LOWERED_HERE
    "backend_tpu_compiler_params": _launches("run", MATMUL, TPU),
    "backend_triton_compiler_params": _launches("run", [(128, 128), (128, 128)], TRITON),
    "backend_triton_params_aliased_variable": _launches("run", [(64, 64), (64, 64)], TRITON)
    + _launches("decorated", [(64, 64), (64, 64)], TRITON),
    # Mixed bfloat16 x float32 operands: Triton wants one element type ("a and b must have the same
    # element type"), so that kernel is lowered for Mosaic TPU only.
    "bfloat16_operands_visible": _launches("cast", MATMUL, *PORTABLE) + _launches("string_dtype", MATMUL, *PORTABLE)
    + _launches("mixed", MATMUL, TPU) + _launches("scaled", MATMUL, *PORTABLE) + _launches("unseen", MATMUL, *PORTABLE),
    "batch_matmul_positional": _launches("bmm", [(2, 8, 128), (2, 128, 128)], *PORTABLE),
    "comments_and_formatting": _launches("conv", CONV, *PORTABLE),
    "conv_general_dilated_positional": _launches("conv", [(8, 8, 128), (8, 8, 2)], *PORTABLE),
    "conv_pair_lax_precision": _launches("conv", CONV, *PORTABLE),
    "conv_precision_imported_as_P": _launches("call", [(1, 8, 8, 128), (8, 8, 1, 1)], *PORTABLE),
    "conv_scalar_high": _launches("conv", CONV, *PORTABLE),
    "conv_with_general_padding_keyword": _launches("conv", [(1, 8, 8, 128), (8, 8, 1, 1)], *PORTABLE),
    "decorated_partial_pallas_call": _launches("matmul", MATMUL, *PORTABLE),
    "dot_algorithm_presets_jax_0_10": _preset_launches(),
    "dot_algorithm_presets_jax_0_12": _preset_launches(),
    "dot_general_positional": _launches("matmul", MATMUL, *PORTABLE),
    "dot_high_jax_0_10": _launches("matmul", MATMUL, *PORTABLE),
    "dot_high_jax_0_12": _launches("matmul", MATMUL, *PORTABLE),
    "dot_pair_jax_0_10": _launches("matmul", MATMUL, *PORTABLE),
    "dot_pair_jax_0_12": _launches("matmul", MATMUL, *PORTABLE),
    "dot_pair_policy_highest": _launches("matmul", MATMUL, *PORTABLE),
    "equal_pairs": _launches("conv", CONV, *PORTABLE),
    "fully_qualified_jax_lax": _launches("conv", CONV, *PORTABLE),
    "functions_passed_to_kernels": _launches("matmul", MATMUL, *PORTABLE),
    "helper_called_from_kernel": _launches("fused", MATMUL, *PORTABLE),
    "helper_shared_with_xla": _launches("fused", MATMUL, *PORTABLE),
    "helper_table_read_in_kernel": _launches("fused", MATMUL, *PORTABLE),
    "helper_table_shared_with_xla": _launches("fused", MATMUL, *PORTABLE),
    # On Triton the conv (line 9) fails first, so the matmul's "Triton lowers it as written" (line
    # 11) is proven by the other goldens, not this kernel.
    "imported_functions": _launches("fused", [*CONV, (128, 128)], TPU)
    + _launches("fused", [*CONV, (128, 128)], TRITON, lines=(9,)),
    "jnp_dot_dtype_strings": _launches("matmul", MATMUL, *PORTABLE),
    "jnp_einsum_list": _launches("scores", [(128, 128), (128, 128)], *PORTABLE),
    "list_of_bodies_changed_after_it_is_built": _launches("run", MATMUL, *PORTABLE),
    # Triton's tt.dot wants every dimension >= 16 and the golden's outputs are 8x8: TPU only.
    "jnp_inner_and_tensordot": _launches("both", [(8, 8), (8, 8)], TPU),
    "jnp_matmul_enum_strings": _launches("matmul", MATMUL, *PORTABLE),
    "kernel_factory": _launches("fused_matmul", MATMUL, *PORTABLE),
    "kernel_parameter_default": _launches("matmul", MATMUL, *PORTABLE),
    "kernel_via_partial_and_variable": _launches("scaled_matmul", MATMUL, *PORTABLE),
    "kwargs_needs_review": _launches("matmul", MATMUL, *PORTABLE),
    "lambda_helpers": _launches("matmul", MATMUL, *PORTABLE, lines=(10,))
    + _launches("shared_matmul", MATMUL, *PORTABLE, lines=(11,)),
    "lambda_kernel": _launches("matmul", MATMUL, *PORTABLE),
    "lax_conv_positional": _launches("conv", CONV, *PORTABLE),
    "lax_imported_as_L": _launches("matmul", MATMUL, *PORTABLE),
    "method_kernels": _launches("matmul", MATMUL, *PORTABLE, lines=(12,))
    + _launches("static_matmul", MATMUL, *PORTABLE, lines=(16,)),
    "module_constant_kernel_only": _launches("matmul", MATMUL, *PORTABLE),
    "module_constant_shared_with_xla": _launches("matmul", MATMUL, *PORTABLE),
    "nested_def_in_kernel": _launches("matmul", [(2, 8, 128), (128, 128)], *PORTABLE),
    "parameter_followed_to_callers": _launches("matmul", [(8, 128), (128, 128)], *PORTABLE),
    "partial_binds_precision": _launches("matmul", MATMUL, *PORTABLE),
    "partial_pallas_call_applied": _launches("matmul", MATMUL, *PORTABLE)
    + _launches("add_bias", MATMUL, *PORTABLE),
    "pl_dot_positional_jax_0_10": _launches("matmul", MATMUL, *PORTABLE),
    "pl_dot_removed_jax_0_12": _launches("matmul", MATMUL, *PORTABLE),
    "pl_kernel_decorator": _launches("make(pltpu.create_tensorcore_mesh('core'))", MATMUL, TPU)
    + _launches("make(plgpu.Mesh(num_threads=1, thread_name='thread'))", MATMUL, GPU),
    "emit_pipeline_body": _launches("pl.pallas_call(outer_kernel, out_shape=jax.ShapeDtypeStruct((32, 128), "
                                    "jnp.float32), in_specs=[pl.BlockSpec(memory_space=pl.ANY)] * 2, "
                                    "out_specs=pl.BlockSpec(memory_space=pl.ANY))", [(32, 128), (128, 128)], TPU),
    "plgpu_kernel_call": _launches("matmul", [(128, 128), (128, 128)], GPU),
    "precision_constructor_calls": _launches("matmul", MATMUL, *PORTABLE),
    "precision_in_parentheses": _launches("conv", CONV, *PORTABLE),
    "shadowed_names_not_jax": [],  # listed in NOT_LOWERED_HERE
    "star_args_needs_review": _launches("matmul", MATMUL, *PORTABLE),
    # The [manual] notes are about values set outside the module: launched with one that lowers and
    # one that does not (the note quotes its error).
    "unbound_parameter_needs_review": _launches("matmul", MATMUL, *PORTABLE, statics=(jax.lax.Precision.HIGHEST,))
    + _launches("matmul", MATMUL, TPU, statics=(PAIR,))
    + _launches("pl.pallas_call(functools.partial(kernel2, precision=jax.lax.Precision.HIGHEST), "
                "out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))", MATMUL, *PORTABLE),
    "backend_dict_compiler_params": _launches("run", MATMUL, TPU),
    "launches_through_loops_and_dispatch": _launches("run_all", MATMUL, *PORTABLE),
    "names_bound_by_assignment": _launches("matmul", MATMUL, *PORTABLE),
    "partial_of_op_at_module_level": _launches("matmul", MATMUL, *PORTABLE),
    "conditional_partials": _launches("matmul", MATMUL, *PORTABLE),
    "rebound_names_need_review": _launches("matmul", MATMUL, *PORTABLE),
    "names_bound_by_assignment_jax_0_10": _launches("matmul", MATMUL, *PORTABLE),
    "values_the_analysis_cannot_follow": _launches("matmul", MATMUL, *PORTABLE),
    # Launched here as the launch the tool does not see would: each note's error where the value
    # is a pair, lowered where it is a scalar both backends take.
    "unlaunched_body_values_the_analysis_cannot_follow": [
        launch for body, line in (("from_an_import", 14), ("from_a_module_attribute", 18), ("accepted", 26))
        for launch in _launches(f"pl.pallas_call({body}, out_shape={_OUT})", MATMUL, *PORTABLE, lines=(line,))]
    + _launches(f"pl.pallas_call(functools.partial(from_a_parameter, precision={PAIR_SPELLED}), out_shape={_OUT})",
                MATMUL, TPU, lines=(22,))
    + _launches(f"pl.pallas_call(functools.partial(from_a_parameter, precision=jax.lax.Precision.HIGHEST), "
                f"out_shape={_OUT})", MATMUL, *PORTABLE, lines=(22,))
    + _launches(f"pl.pallas_call(functools.partial(triton_only, precision={PAIR_SPELLED}), out_shape={_OUT})",
                MATMUL, TRITON, lines=(30,)),
    "module_constant_default_of_xla_function": _launches("matmul", MATMUL, *PORTABLE),
}

_PLATFORM_BACKENDS = {"tpu": TPU, "cuda": GPU}
ACCURACY: dict[str, list[Launch]] = {}
for _case, _entry, _platform, _shapes, _statics in PROGRAMS:
    ACCURACY.setdefault(_case, []).append(
        Launch(_entry, _PLATFORM_BACKENDS[_platform], tuple(s.shape for s in _shapes), _statics))
ACCURACY.update({
    "backend_mosaic_gpu_compiler_params": _launches("run", [(128, 128)], GPU),
    "backend_triton_kernel_untouched": _launches("run", [(64, 64)], TRITON),
    "cbrt_expm1_in_kernel": _launches("gated_elu", [(8, 128)], TPU),
    "class_attribute_partials": _launches("norm", [(8, 128)], TPU, lines=(13,))
    + _launches("scale", [(8, 128)], TPU, lines=(27,)),
    "helpers_module": _launches("rms_norm", [(8, 128)], TPU) + _launches("l2_normalize", [(8, 128)], TPU),
    "helpers_module_already_imported": _launches("rms_norm", [(8, 128)], TPU, lines=())
    + _launches("l2_normalize", [(8, 128)], TPU),
    "helpers_module_name_taken": _launches("rms_norm", [(8, 128)], TPU),
    "kwargs_needs_review": _launches("activation", [(8, 128)], TPU),
    "nothing_to_change": _launches("rms_norm", [(8, 128)], TPU),
    "outside_kernel_untouched": _launches("add_rsqrt", [(8, 128), (8, 128)], TPU),
    "relative_import_value": _launches("fused", [(8, 128)], TPU),
    "approx_math_launch": _launches("gelu_rms_norm", [(16, 256)], GPU) + _launches("exp", [(128, 128)], GPU),
    "partial_of_op_at_module_level": _launches("fused", [(128, 128)], GPU),
    "emit_pipeline_body": _launches("silu", [(512, 512)], TPU),
    "pl_kernel_and_nested_calls": _launches("log_rsqrt_kernel", [(8, 128)], TPU),
    "shadowed_names_not_jax": [],  # listed in NOT_LOWERED_HERE
})
for _case in ("partial_decorator", "lambdas", "two_kernels_one_helper", "multiline_calls_with_comments"):
    ACCURACY[_case] = ACCURACY.get(_case, [])

# JAX007: each kernel its own Mosaic TPU launch (pltpu.CompilerParams, or a plain pallas_call lowered for
# TPU alone: what Triton makes of these functions is no claim of JAX007's), judged by its own lines' findings.
MATH: dict[str, list[Launch]] = {
    "kernel_math": [launch for entry, line in (
        ("arctan", 21), ("expm1", 25), ("activations", 30), ("gelu", 34), ("erfc", 38), ("hyperbolic", 42),
        ("inverse", 47), ("cumsum", 52), ("int_cumsum", 56), ("lgamma", 60), ("sort", 64), ("partial", 13))
        for launch in _launches(entry, [(8, 128)], TPU, lines=(line,))],
    # Triton's walls (each kernel launched with Triton's CompilerParams), and a Mosaic TPU kernel that lowers
    # the same functions as written.
    "triton_math": [launch for entry, line in (
        ("erf", 20), ("rounding", 25), ("reductions", 31), ("gelu", 35), ("cumprod", 39), ("unread_decimals", 43))
        for launch in _launches(entry, [(8, 128)], TRITON, lines=(line,))]
    + _launches("on_tpu", [(8, 128)], TPU, lines=(72,)),
    "triton_division": [launch for entry, line in (("bfloat16", 18), ("float16", 23), ("floor", 28), ("float32", 32))
                        for launch in _launches(entry, [(8, 128)], TRITON, lines=(line,))],
    "spellings_jax_0_10": _launches("fused", [(8, 128)], TPU, lines=(15, 24))
    + _launches("shared_kernel", [(8, 128)], TPU, lines=(19,)) + _launches("unreadable", [(8, 128)], TPU, lines=(32,)),
}

# Goldens whose kernels are not lowered here, each with the reason. A reason names something
# outside the tool (a device the CPU machine lacks, code that is not a kernel).
NOT_LOWERED_HERE: dict[str, str] = {
    "precision/backend_core_map_meshes": "pltpu.create_tensorcore_mesh and plgpu.Mesh core_map launches need "
    "a TPU or GPU device to trace (no abstract mesh for them on a CPU)",
    "precision/shadowed_names_not_jax": "its kernel calls a NumPy function on traced values (np.dot): it is "
    "not JAX code and fails to trace on every backend; the golden only proves nothing is rewritten",
    "precision/outside_kernel_scope_all": "no kernel: plain XLA code (--scope all rewrites it anyway)",
    "precision/outside_kernel_untouched": "its only kernel is a copy with no contraction; the contractions are "
    "plain XLA code, which is not lowered by a kernel backend",
    "accuracy/scope_all": "no kernel: plain XLA code (--scope all rewrites it anyway)",
    "accuracy/shadowed_names_not_jax": "its `rsqrt` is the module's own function taking a string accuracy=, "
    "and lax.exp(accuracy=\"ulp\") is not valid JAX: the golden only proves nothing is rewritten",
}

# Launches that fail for a reason outside the tool on some release: (case, entry, backend) ->
# (releases it applies to, the error, why). The test checks the failure is exactly that one.
KNOWN_FAILURES: dict[tuple[str, str, str], tuple[capabilities.Span, str, str]] = {
    ("precision/pl_kernel_decorator", "make(pltpu.create_tensorcore_mesh('core'))", TPU): (
        capabilities.ALL, "ValueError: Loads are only allowed on VMEM and SMEM references",
        "pl.kernel on a TPU mesh hands the body HBM refs, which it reads directly (a TPU body copies them to "
        "VMEM first); the golden's body is written for a mesh of either kind, so only Mosaic GPU is lowered"),
    **{(case, entry, GPU): (
        capabilities.Span(since=(0, 12, 0)), "AssertionError",
        "pl.pallas_call(..., compiler_params=plgpu.CompilerParams()) no longer reaches Mosaic GPU on jax 0.12 "
        "(an assertion in the GPU lowering; shared/NOTES.md): lowered on jax 0.10.2 only")
       for case, entry in (("accuracy/backend_mosaic_gpu_compiler_params", "run"),
                           ("accuracy/partial_of_op_at_module_level", "fused"))},
}

# Misses of the tool that a golden records as its output: the launch fails as the test says it must
# not, until the tool is fixed (strict: a fixed miss fails here until its entry goes).
KNOWN_MISSES: dict[tuple[str, str, str], str] = {}

GOLDENS = {f"precision/{case}": launches for case, launches in PRECISION.items()}
GOLDENS.update({f"accuracy/{case}": launches for case, launches in ACCURACY.items()})
GOLDENS.update({f"math/{case}": launches for case, launches in MATH.items()})


def test_every_golden_is_lowered_or_has_a_reason() -> None:
    cases = {f"{path.parent.name}/{path.name[: -len('.in.py')]}"
             for family in RULES for path in (FIXTURES / family).glob("*.in.py")}
    lowered = {case for case, launches in GOLDENS.items() if launches}
    missing = sorted(cases - lowered - set(NOT_LOWERED_HERE))
    assert not missing, f"goldens neither lowered nor given a reason: {missing}"
    assert not (lowered & set(NOT_LOWERED_HERE)), "a golden is both lowered and excused"
    assert set(NOT_LOWERED_HERE) <= cases and set(GOLDENS) <= cases


# -- what the findings say --------------------------------------------------------------------

_QUOTED = re.compile(r'"([^"]+)"')
_MARKERS = {TPU: ("Pallas TPU", "unhashable"), GPU: ("Pallas Mosaic GPU",), TRITON: ("Pallas Triton",)}


@dataclasses.dataclass(frozen=True)
class Claims:
    """What a golden's findings say about one backend."""

    fixed: bool  # a fix is made because this backend rejects the input
    cannot_lower: tuple[str, ...]  # errors the output still fails with, as quoted (or exception names)
    lowers_as_written: bool  # "<backend> lowers it as written"
    manual: tuple[str, ...]  # every [manual] finding (a person must look)


def claims_for(findings: list[str], backend: str) -> Claims:
    name = BACKEND_NAMES[backend]
    fixed, cannot, as_written, manual = False, [], False, []
    for finding in findings:
        head = finding.split("; ", 1)[0]
        if ("[fixed" in finding or "[dropped" in finding) and (f"in {name} kernels" in head or
                                                                   re.search(rf"rejected by [\w ]*{name}", head)
                                                                   or "needed on every backend" in finding):
            fixed = True
        if re.search(r"\[fixed(, unsafe)?\] .*: removed in jax [\d.]+ \(raises \w+Error on jax ", finding):
            fixed = True  # a JAX1xx fix of a removed name: the old spelling fails on every backend
        if re.search(rf"{name}( and [\w ]+)? cannot lower", finding):
            cannot += [quote for quote in _QUOTED.findall(finding)
                       if any(marker in quote for marker in _MARKERS[backend])]
            if f"{name} cannot lower a batched dot_general" in finding:
                cannot.append("AssertionError")  # Triton asserts batch_dims == ((), ())
        if f"{name} lowers it as written" in finding:
            as_written = True
        if "[manual]" in finding:
            manual.append(finding)
    return Claims(fixed, tuple(cannot), as_written, tuple(manual))


# -- lowering -----------------------------------------------------------------------------------

_module_ids = itertools.count()


@pytest.fixture(scope="module")
def golden_packages(tmp_path_factory):
    with installed_golden_packages(tmp_path_factory.mktemp("golden_packages")) as root:
        yield root


@contextlib.contextmanager
def installed_golden_packages(root: Path):
    """The modules goldens import, importable from `root` while in scope (tests/tpu/check_tpu.py
    uses it too): `pkg.jax_compat` (a copy of codemods/helpers_source.py, as the docs/fixes.md says
    a --helpers-module should be), `legacy.math`, and the package of a relative import
    (`golden_pkg.config`, `golden_pkg.precisions`)."""
    for package in ("pkg", "legacy", "golden_pkg"):
        (root / package).mkdir()
        (root / package / "__init__.py").write_text("")
    shutil.copy(HELPERS_SOURCE, root / "pkg" / "jax_compat.py")
    (root / "legacy" / "math.py").write_text("def rsqrt_safe(x):\n    return x ** -0.5\n")
    (root / "golden_pkg" / "config.py").write_text(
        "from jax import lax\n\nKERNEL_ACCURACY = lax.AccuracyMode.HIGHEST\n")
    (root / "golden_pkg" / "precisions.py").write_text(
        "from jax import lax\n\nMIXED = (lax.Precision.DEFAULT, lax.Precision.HIGH)\nSAFE = lax.Precision.HIGHEST\n")
    sys.path.insert(0, str(root))
    try:
        yield root
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n.split(".")[0] in ("pkg", "legacy", "golden_pkg")]:
            del sys.modules[name]


def load(source: str, stem: str) -> types.ModuleType:
    """Import a golden's text as a fresh module of `golden_pkg` (so relative imports resolve)."""
    name = f"golden_pkg.case_{stem}_{next(_module_ids)}"
    module = types.ModuleType(name)
    module.__package__ = "golden_pkg"
    module.__file__ = f"<golden {stem}>"
    sys.modules[name] = module
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


@contextlib.contextmanager
def _triton_on_gpu():
    """Plain pallas_call lowers with Triton on a GPU: jax 0.10.2 chose Mosaic GPU unless told
    otherwise (jax_pallas_use_mosaic_gpu, default True there); later releases choose Triton."""
    flag = getattr(jax.config, "jax_pallas_use_mosaic_gpu", None)
    if flag is None:
        with probe._abstract_gpu():
            yield
        return
    saved = flag if isinstance(flag, bool) else flag.value
    jax.config.update("jax_pallas_use_mosaic_gpu", False)
    try:
        with probe._abstract_gpu():
            yield
    finally:
        jax.config.update("jax_pallas_use_mosaic_gpu", saved)


def lowering_failure(source: str, stem: str, launch: Launch) -> Optional[str]:
    """None when the launch lowers for its backend, else "ExceptionName: message"."""
    try:
        with jax_support.abstract_tpu() if launch.backend == TPU else contextlib.nullcontext():
            _lower(source, stem, launch)
    except Exception as error:  # noqa: BLE001 - every failure is compared with what the findings say
        return f"{type(error).__name__}: {error}"
    return None


def entry_function(source: str, stem: str, launch: Launch):
    """The launch's entry of a freshly imported golden, jitted, taking the launch's operands."""
    module = load(source, stem)
    # An entry is a name in the module, or an expression over it (a kernel factory's call).
    names = {"functools": functools, "jax": jax, "jnp": jnp, "pl": pl, "pltpu": pltpu, "plgpu": plgpu}
    entry = eval(launch.entry, {**names, **module.__dict__})  # noqa: S307
    return jax.jit(lambda *operands: entry(*operands, *launch.statics))


def _lower(source: str, stem: str, launch: Launch) -> None:
    fn = entry_function(source, stem, launch)
    operands = [jax.ShapeDtypeStruct(shape, jnp.float32) for shape in launch.shapes]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if launch.backend == TRITON:
            with _triton_on_gpu():
                fn.trace(*operands).lower(lowering_platforms=("cuda",))
        else:
            jax.export.export(fn, platforms=["tpu" if launch.backend == TPU else "cuda"])(*operands)


# -- the golden as checked on this release --------------------------------------------------------

def _signature(version: Optional[capabilities.Version]) -> tuple:
    """Everything the capability table says about a release."""
    return (tuple(capabilities.lowered_precisions(b, op, version) for b, op in sorted(capabilities.PRECISIONS)),
            tuple(capabilities.accuracy_rejected(b, version) for b in sorted(capabilities.ACCURACY_REJECTED)),
            tuple(capabilities.not_lowered(b, version) for b in sorted(capabilities.NOT_LOWERED)),
            tuple(capabilities.math_unlowered(b, version) for b in sorted(capabilities.MATH_UNLOWERED)))


def golden_for_this_release(case: str) -> tuple[str, str, list[tuple[int, str]], bool]:
    """(input, output, findings with their lines, stored): the stored .out.py and .findings when the
    target release lowers as the installed one does; otherwise the tool's output and findings for the
    installed jax."""
    family, stem = case.split("/")
    source = (FIXTURES / family / f"{stem}.in.py").read_text()
    settings = case_settings(source)
    if _signature(settings.jax_version) == _signature(jax_support.JAX_VERSION):
        output = (FIXTURES / family / f"{stem}.out.py").read_text()
        findings = [(int(line.split(":")[1]), line)
                    for line in (FIXTURES / family / f"{stem}.findings").read_text().splitlines()]
        return source, output, findings, True
    settings = dataclasses.replace(settings, jax_version=jax_support.JAX_VERSION)
    result = process_source(Path(f"{stem}.in.py"), source.encode(), case_rules(FIXTURES / family / f"{stem}.in.py", source),
                            settings)
    assert result.error is None, result.error
    findings = [(finding.line, f"[{finding.kind.value}] {finding.message}") for finding in result.findings]
    return source, result.after if result.new_source is not None else source, findings, False


def _launch_id(param) -> str:
    case, launch = param
    return f"{case}.{launch.entry}-{launch.backend}"


LAUNCHES = [
    pytest.param(case, launch, id=_launch_id((case, launch)), marks=[pytest.mark.xfail(
        reason=KNOWN_MISSES[(case, launch.entry, launch.backend)], strict=True)]
        if (case, launch.entry, launch.backend) in KNOWN_MISSES else [])
    for case, launches in sorted(GOLDENS.items()) for launch in launches
]


@pytest.mark.parametrize("case, launch", LAUNCHES)
def test_golden_lowers_as_its_findings_say(case: str, launch: Launch, golden_packages) -> None:
    source, output, findings, stored = golden_for_this_release(case)
    stem = case.replace("/", "_")
    claims = claims_for([text for line, text in findings if launch.lines is None or line in launch.lines],
                        launch.backend)
    where = f"{case} ({'stored .out.py' if stored else f'tool output for jax {jax.__version__}'})"
    after = lowering_failure(output, f"{stem}_out", launch)
    before = lowering_failure(source, f"{stem}_in", launch)

    known = KNOWN_FAILURES.get((case, launch.entry, launch.backend))
    if known is not None and known[0].contains(jax_support.JAX_VERSION):
        assert after is not None and after.startswith(known[1]), f"{where}: {after}"
        assert before is not None and before.startswith(known[1]), f"{where}: {before}"
        pytest.skip(known[2])

    if claims.cannot_lower:
        assert after is not None and any(error in after for error in claims.cannot_lower), (
            f"{where}: a finding says {BACKEND_NAMES[launch.backend]} cannot lower it "
            f"({claims.cannot_lower}), but lowering gave: {after}")
    elif after is not None:
        quoted = [quote for finding in claims.manual for quote in _QUOTED.findall(finding)]
        assert claims.manual and (not quoted or any(quote in after for quote in quoted)) and after == before, (
            f"{where}: the output does not lower for {BACKEND_NAMES[launch.backend]} and no finding says why: {after}")

    if claims.fixed:
        assert before is not None, f"{where}: fixed for {BACKEND_NAMES[launch.backend]}, yet the input lowers there"
    elif claims.lowers_as_written:
        assert before is None, f"{where}: a finding says {BACKEND_NAMES[launch.backend]} lowers it as written: {before}"
    elif not claims.cannot_lower:
        assert (before is None) == (after is None), f"{where}: unchanged for this backend, yet {before} -> {after}"


# -- approx_math: "will be approximated" is what Mosaic GPU lowers --------------------------------

# The PTX instruction Mosaic GPU emits for a function under approx_math (jax/_src/pallas/mosaic_gpu/
# lowering.py: `approx=ctx.module_ctx.approx_math`, which the Lane lowering turns into `<op>.approx.f32`).
APPROX_PTX = {"tanh": "tanh.approx.f32", "rsqrt": "rsqrt.approx.f32"}


def _mosaic_gpu_text(source: str, stem: str, entry: str, shape: tuple[int, ...]) -> str:
    module = load(source, stem)
    operand = jax.ShapeDtypeStruct(shape, jnp.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return jax.export.export(jax.jit(getattr(module, entry)), platforms=["cuda"])(operand).mlir_module()


def test_approx_math_findings_say_what_mosaic_gpu_lowers(golden_packages) -> None:
    """The finding says tanh will be approximated under the launch's approx_math=True: the lowered kernel
    holds tanh.approx.f32 (and rsqrt.approx.f32, which rsqrt_safe's Newton step refines: see
    test_accuracy_jax.test_rsqrt_safe_recovers_from_an_approximate_rsqrt); the kernel launched without
    approx_math holds no approximation, and its finding says nothing of one."""
    case = FIXTURES / "accuracy" / "approx_math_launch"
    findings = (case.with_suffix(".findings")).read_text().splitlines()
    approximated = [line for line in findings if "will be approximated" in line]
    assert [line.split(": ", 2)[1].split(":")[0].split()[-1] for line in approximated] == ["lax.tanh"]
    output = case.with_suffix(".out.py").read_text()
    fast = _mosaic_gpu_text(output, "approx_out", "gelu_rms_norm", (16, 256))
    assert APPROX_PTX["tanh"] in fast
    # rsqrt: the PTX approximation (jax 0.10.2, Lane semantics) or math.rsqrt with fastmath afn (0.12).
    assert APPROX_PTX["rsqrt"] in fast or "afn" in fast
    plain = _mosaic_gpu_text(output, "approx_out_plain", "exp", (128, 128))
    assert ".approx" not in plain
    assert not any("approximat" in line or "approx_math=" in line for line in findings if "lax.exp:" in line)


# -- the dict compiler_params golden: the fix is right once the launch is migrated ----------------

def test_dict_compiler_params_fix_lowers_once_the_launch_passes_the_class(golden_packages) -> None:
    """backend_dict_compiler_params' finding says the kernel still cannot lower because its launch
    passes a dict: with the dict replaced by pltpu.CompilerParams() (the migration the finding
    names), the tool's precision fix lowers, and the input's precision still does not."""
    case = FIXTURES / "precision" / "backend_dict_compiler_params"
    findings = case.with_suffix(".findings").read_text()
    assert "unhashable type: 'dict'" in findings and "pltpu.CompilerParams(...)" in findings
    migrate = ("from jax.experimental.pallas import tpu as pltpu\n", "compiler_params=dict(mosaic=dict())",
               "compiler_params=pltpu.CompilerParams()")
    launch = Launch("run", TPU, MATMUL)
    for suffix, lowers in ((".out.py", True), (".in.py", False)):
        source = case.with_suffix(suffix).read_text()
        assert migrate[1] in source
        migrated = migrate[0] + source.replace(migrate[1], migrate[2])
        failure = lowering_failure(migrated, f"dict_params{suffix.replace('.', '_')}", launch)
        assert (failure is None) == lowers, failure
        if not lowers:
            assert failure.startswith("NotImplementedError: Per-operand dot precision unsupported")
