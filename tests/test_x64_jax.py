"""The JAX005 goldens against the real Mosaic TPU lowering, with jax_enable_x64 as each golden sets it:
every kernel of the `.in.py` fails with the error its finding quotes (capabilities.X64_REJECTED for
the installed jax), and every kernel of the `.out.py` lowers. The int64 arange is the exception the
table records: it lowers on a CPU and only Mosaic's compiler on a TPU refuses it
(capabilities.X64_COMPILE_ONLY; scratch_tpu/x64_debug_print_chip.py checks it on the chip)."""

from __future__ import annotations

import contextlib
import warnings
from pathlib import Path

import pytest

pytest.importorskip("jax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from codemods import capabilities  # noqa: E402
from tests import jax_support  # noqa: E402
from tests.test_fixtures import DEFAULT_TARGET  # noqa: E402

pytestmark = pytest.mark.jax

FIXTURES = Path(__file__).parent / "fixtures" / "x64"
GOLDEN_TARGET = capabilities.parse_version(DEFAULT_TARGET)

# golden -> {entry: (operand dtype, the case of X64_REJECTED its .in.py hits under x64, or None: it lowers)}
LAUNCHES = {
    "x64_enabled_in_module": {
        "int64_accumulator": (jnp.int32, "int64 value"),
        "float_accumulator": (jnp.float32, "float64 value"),
        "row_sum": (jnp.int32, "integer sum"),
        "positive_count": (jnp.float32, "integer sum"),
        "argmax": (jnp.float32, "argmax"),
        "argmax_keepdims": (jnp.float32, "argmax"),
        "iota": (jnp.float32, "iota"),
        "float64_scale": (jnp.float32, "float64 value"),
    },
    # Values XLA code makes and hands to the kernels as scalar-prefetch operands.
    "x64_launch_operands": {
        "grouped": (jnp.float32, "float64 value"),
        "best_column": (jnp.float32, "int64 value"),
        "shifted_column": (jnp.float32, "int64 value"),
    },
    # A module that imports neither jax nor jax.lax: the fix imports lax.
    "argmax_module_without_lax": {"argmax": (jnp.float32, "argmax")},
    # No x64 in the module: both files lower as they are.
    "explicit_dtypes_without_x64": {"run": (jnp.float32, None)},
}
# Kernels a [manual] finding leaves as written: they fail as the finding quotes, before and after.
LEFT_AS_WRITTEN = {"x64_launch_operands": {"last_best_column": (jnp.float32, "int64 value")}}


@contextlib.contextmanager
def x64_as_the_module_sets_it():
    """A golden turns x64 on when imported: lower under it, then put the process's setting back."""
    saved = jax.config.jax_enable_x64
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", saved)


def lowering_error(path: Path, entry: str, dtype) -> str | None:
    with x64_as_the_module_sets_it(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = jax_support.load_program(path, f"x64_{path.stem.replace('.', '_')}_{entry}")
        try:
            jax.export.export(jax.jit(getattr(module, entry)), platforms=["tpu"])(
                jax.ShapeDtypeStruct((8, 128), dtype))
        except Exception as error:  # noqa: BLE001 - the error is what is compared
            return f"{type(error).__name__}: {error}"
    return None


def _expected(case: str | None) -> str | None:
    """The error a case's input gives when lowered here: none for the compile-only iota."""
    if case is None or ("mosaic_tpu", case) in capabilities.X64_COMPILE_ONLY:
        return None
    return capabilities.x64_rejection("mosaic_tpu", case, jax_support.JAX_VERSION)


PARAMS = [pytest.param(golden, entry, dtype, case, id=f"{golden}.{entry}")
          for golden, entries in LAUNCHES.items() for entry, (dtype, case) in entries.items()]


@pytest.mark.parametrize("golden, entry, dtype, case", PARAMS)
def test_the_input_fails_as_the_finding_says_and_the_output_lowers(golden, entry, dtype, case) -> None:
    before = lowering_error(FIXTURES / f"{golden}.in.py", entry, dtype)
    expected = _expected(case)
    if expected is None:
        assert before is None, before
    else:
        assert before is not None and before.startswith(expected), before
        findings = (FIXTURES / f"{golden}.findings").read_text()  # written for the goldens' target, 0.12.0.1
        assert capabilities.x64_rejection("mosaic_tpu", case, GOLDEN_TARGET) in findings
    assert lowering_error(FIXTURES / f"{golden}.out.py", entry, dtype) is None


@pytest.mark.parametrize("golden, entry, dtype, case", [
    pytest.param(golden, entry, dtype, case, id=f"{golden}.{entry}")
    for golden, entries in LEFT_AS_WRITTEN.items() for entry, (dtype, case) in entries.items()])
def test_a_kernel_left_with_a_note_fails_as_the_note_quotes(golden, entry, dtype, case) -> None:
    expected = _expected(case)
    for suffix in (".in.py", ".out.py"):
        error = lowering_error(FIXTURES / f"{golden}{suffix}", entry, dtype)
        assert error is not None and error.startswith(expected), error
    assert "[manual]" in (FIXTURES / f"{golden}.findings").read_text()


def test_every_x64_golden_is_lowered() -> None:
    assert {path.name[: -len(".in.py")] for path in FIXTURES.glob("*.in.py")} == set(LAUNCHES)


def _run_interpreted(path: Path, entry: str, x, x64: bool, monkeypatch):
    """`entry` run by Pallas' interpreter on the CPU, with x64 as asked once the module is imported."""
    import functools

    import numpy as np
    from jax.experimental import pallas as pl

    monkeypatch.setattr(pl, "pallas_call", functools.partial(pl.pallas_call, interpret=True))
    with x64_as_the_module_sets_it(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = jax_support.load_program(path, f"x64_run_{path.stem.replace('.', '_')}_{entry}_{x64}")
        jax.config.update("jax_enable_x64", x64)
        return np.asarray(jax.jit(getattr(module, entry))(x))


def _inputs(kind: str, dtype):
    """Normal draws; values that repeat each row's maximum and minimum (an argmax's ties); NaNs among those."""
    import numpy as np

    if kind == "normal":
        return jnp.asarray((np.random.default_rng(0).standard_normal((8, 128)) * 3).astype(dtype))
    x = ((np.arange(8 * 128).reshape(8, 128) % 37) - 18) / 7.0
    if kind == "nan":
        x[2, 50] = x[2, 70] = x[5, 3] = np.nan
    return jnp.asarray(x.astype(dtype))


@pytest.mark.parametrize("golden, entry, dtype, case, kind", [
    pytest.param(*param.values, kind, id=f"{param.id}-{kind}") for param in PARAMS if param.values[3] is not None
    for kind in ("normal", "ties", "nan")[:3 if param.values[3] == "argmax" else 2]])
def test_the_output_under_x64_computes_what_the_input_computes_without_it(golden, entry, dtype, case, kind,
                                                                         monkeypatch):
    """The fix writes the dtypes jax uses without x64: the same values, now with x64 on too; an
    argmax the first of tied elements, and a NaN's index, as jnp.argmax gives them."""
    import numpy as np

    x = _inputs(kind, dtype)
    without = _run_interpreted(FIXTURES / f"{golden}.in.py", entry, x, False, monkeypatch)
    fixed = _run_interpreted(FIXTURES / f"{golden}.out.py", entry, x, True, monkeypatch)
    assert fixed.dtype == without.dtype and np.array_equal(fixed, without)


@pytest.mark.parametrize("golden, entry, dtype, case", [param for param in PARAMS if param.values[3] == "argmax"])
def test_a_fixed_argmax_builds_no_mosaic_reduce_index(golden, entry, dtype, case) -> None:
    """On a TPU v5e Mosaic's `tpu.reduce_index` (its argmax and argmin) returns the last of tied
    elements, where jnp.argmax returns the first (bench/chip/argmax_ties_v5e.txt); the interpreter
    breaks ties as XLA does, so the values above cannot show it. The fixed kernel must not build it,
    and the original (lowered without x64, where it lowers) does: this is what the check can see."""
    def reduce_indices(path: Path, x64: bool) -> int:
        with x64_as_the_module_sets_it(), warnings.catch_warnings(), jax_support.mosaic_ops("reduce_index") as built:
            warnings.simplefilter("ignore")
            module = jax_support.load_program(path, f"x64_ri_{path.stem.replace('.', '_')}_{entry}_{x64}")
            jax.config.update("jax_enable_x64", x64)
            jax.export.export(jax.jit(getattr(module, entry)), platforms=["tpu"])(jax.ShapeDtypeStruct((8, 128), dtype))
        return len(built)

    assert reduce_indices(FIXTURES / f"{golden}.in.py", x64=False) >= 1
    assert reduce_indices(FIXTURES / f"{golden}.out.py", x64=True) == 0


@pytest.mark.parametrize("kind", ["normal", "ties", "nan"])
@pytest.mark.parametrize("axis, keepdims", [(1, False), (0, False), (-1, True)])
def test_the_index_helpers_compute_what_jnp_computes(kind, axis, keepdims) -> None:
    """argmax_tpu and argmin_tpu as helpers_source.py writes them (the goldens hold argmax_tpu only):
    jnp's indices, the first of tied elements and a NaN's, on any axis."""
    import numpy as np

    helpers = jax_support.load_program(Path(capabilities.__file__).parent / "helpers_source.py", "x64_index_helpers")
    x = _inputs(kind, jnp.float32)
    for helper, reference in ((helpers.argmax_tpu, jnp.argmax), (helpers.argmin_tpu, jnp.argmin)):
        got, want = helper(x, axis, keepdims=keepdims), reference(x, axis=axis, keepdims=keepdims)
        assert got.dtype == jnp.int32 and np.array_equal(got, want), (helper.__name__, got, want)
