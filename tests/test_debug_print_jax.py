"""The JAX008 goldens against the real Mosaic TPU lowering: for the golden whose target release prints
what the installed jax prints (capabilities.placeholder_dtypes), each kernel a finding fixes fails in
the `.in.py` with the error the finding quotes and lowers in the `.out.py`; a kernel with a `[manual]`
note fails in both, with an error the note quotes; a kernel with no finding lowers in both.

The lowering passes where the chip's compiler aborts (an integer scalar printed without placeholders,
capabilities.DEBUG_PRINT_UNFORMATTED_ABORTS, seen on a TPU v5e): the Mosaic `tpu.log` ops the lowering
emits are recorded, and one unformatted with an integer operand counts as that abort's error."""

from __future__ import annotations

import ast
import contextlib
import re
import warnings
from pathlib import Path

import pytest

pytest.importorskip("jax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402

from codemods import capabilities  # noqa: E402
from tests import jax_support  # noqa: E402
from tests.test_fixtures import case_settings  # noqa: E402

pytestmark = pytest.mark.jax

FIXTURES = Path(__file__).parent / "fixtures" / "debug_print"
ENTRIES = ("bfloat16_scalar", "int8_scalar", "mask_scalar", "float32_scalar", "bfloat16_vector", "int32_scalar",
           "grid_index")
# What libtpu says as it aborts on an unformatted integer log (TPU v5e, jax 0.10.2).
ABORT = "Signedness cannot be inferred"


def _prints_as_installed(golden: Path) -> bool:
    target = case_settings(golden.read_text()).jax_version
    return all(capabilities.placeholder_dtypes(backend, target) == capabilities.placeholder_dtypes(
        backend, jax_support.JAX_VERSION) for backend in capabilities.DEBUG_PRINT_PLACEHOLDER_DTYPES)


GOLDENS = sorted(FIXTURES.glob("*.in.py"))
CHECKED = [golden for golden in GOLDENS if _prints_as_installed(golden)]


@contextlib.contextmanager
def mosaic_logs():
    """Each `tpu.log` the Mosaic TPU lowering emits meanwhile: (formatted, its operands' MLIR types)."""
    emitted = []
    with jax_support.mosaic_ops("log") as built:
        yield emitted
    emitted.extend((kwargs["formatted"], [str(arg.type) for arg in args[0]]) for args, kwargs in built)


def lowering_error(path: Path, entry: str):
    """The lowering's error, or the chip compiler's abort that its `tpu.log` ops would meet; None: neither."""
    with warnings.catch_warnings(), mosaic_logs() as logs:
        warnings.simplefilter("ignore")
        module = jax_support.load_program(path, f"debug_print_{path.stem.replace('.', '_')}_{entry}")
        try:
            jax.export.export(jax.jit(getattr(module, entry)), platforms=["tpu"])(
                jax.ShapeDtypeStruct((8, 128), jnp.float32))
        except Exception as error:  # noqa: BLE001 - the error is what is compared
            return f"{type(error).__name__}: {error}"
    aborting = [types for formatted, types in logs if not formatted and any(t.startswith(("i", "ui")) for t in types)]
    return f"{ABORT} (an unformatted tpu.log of {aborting[0]})" if aborting else None


def test_the_recorded_logs_tell_the_aborting_print_from_the_ones_the_chip_compiled() -> None:
    """The chip's cases (bench/chip/debug_print_chip.py): an int32 scalar without placeholders aborted;
    with one, and a float32 scalar without, compiled and ran."""
    def logs(fmt, dtype):
        def kernel(x_ref, o_ref):
            pl.debug_print(fmt, x_ref[...].astype(dtype)[0, 0])
            o_ref[...] = x_ref[...]

        with mosaic_logs() as emitted:
            jax.export.export(jax.jit(pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))),
                              platforms=["tpu"])(jax.ShapeDtypeStruct((8, 128), jnp.float32))
        return emitted

    assert logs("v", jnp.int32) == [(False, ["i32"])]
    assert logs("v {}", jnp.int32) == [(True, ["i32"])]
    assert logs("v", jnp.float32) == [(False, ["f32"])]


def _findings_in(golden: Path, entry: str) -> list[str]:
    """The findings about the kernel of `entry` (`<entry>_kernel`, by its lines)."""
    tree = ast.parse(golden.read_text())
    kernel = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == f"{entry}_kernel")
    findings = golden.with_name(golden.name.replace(".in.py", ".findings")).read_text().splitlines()
    return [line for line in findings if kernel.lineno <= int(line.split(":")[1]) <= kernel.end_lineno]


def test_one_golden_is_checked_on_each_release() -> None:
    assert len(CHECKED) == 1, [golden.name for golden in GOLDENS]


@pytest.mark.parametrize("golden, entry", [pytest.param(golden, entry, id=f"{golden.stem}.{entry}")
                                           for golden in CHECKED for entry in ENTRIES])
def test_each_kernel_lowers_as_its_findings_say(golden: Path, entry: str) -> None:
    findings = _findings_in(golden, entry)
    before = lowering_error(golden, entry)
    after = lowering_error(golden.with_name(golden.name.replace(".in.py", ".out.py")), entry)
    quoted = [quote for finding in findings for quote in re.findall(r'"([^"]+)"', finding)]
    if any("[fixed]" in finding for finding in findings):
        assert before is not None and any(before.startswith(quote) for quote in quoted), before
        assert after is None, after
    elif findings:
        assert all("[manual]" in finding for finding in findings)
        assert before is not None and before == after and any(after.startswith(quote) for quote in quoted), after
    else:
        assert before is None and after is None, (before, after)
