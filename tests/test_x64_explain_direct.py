"""`jax-codemod explain` for JAX005, fed what a TPU v5e printed for an int64 iota in a kernel (jax 0.10.2,
2026-12-06, bench/chip/x64_iota_traceback.py, recorded in bench/chip/x64_iota_traceback*_v5e.txt).

The iota lowers on a CPU and only Mosaic's compiler on the chip refuses it, after tracing; its error
still names the kernel's lines: an MLIR location under the compiler's JaxRuntimeError (`at location:
loc(... "column_ids"("/tmp/s/x64_iota_traceback.py":12:11 ...) at "iota_kernel"(...:16:30 ...))`) and,
below it, the MosaicError's frames jax builds from that location. `explain` places the error on the
arange's line (12, in the helper the kernel calls) and writes JAX005's fix there. The program is the
one that ran, copied where the log's path `/tmp/s/...` finds it by its suffix. No jax."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from codemods import explain, registry
from codemods.engine.runner import process_source
from codemods.explain import Outcome
from codemods.settings import Settings

RULES = {rule.code: rule for rule in registry.RULES}
TARGET = Settings((0, 10, 2))  # what the chip ran
CHIP = Path(__file__).resolve().parents[1] / "bench" / "chip"
PROGRAM = CHIP / "x64_iota_traceback.py"
FILTERED = (CHIP / "x64_iota_traceback_v5e.txt").read_text()
UNFILTERED = (CHIP / "x64_iota_traceback_unfiltered_v5e.txt").read_text()
# The compiler's JaxRuntimeError alone (a log cut before the MosaicError's frames): its MLIR location.
COMPILER_ONLY = FILTERED.split("\n\nThe above exception")[0] + "\n"
X64_ON = 'jax.config.update("jax_enable_x64", True)\n'
FIXED = "    return jnp.arange(128, dtype=jnp.int32)[None, :]\n"


def _explain(tmp_path: Path, log: str, program: str) -> tuple[Outcome, str, str]:
    path = tmp_path / "s" / "x64_iota_traceback.py"
    path.parent.mkdir()
    path.write_text(program)
    out, err = io.BytesIO(), io.StringIO()
    outcome = explain.run(log, tmp_path, RULES, TARGET, write=False, out=out, err=err)
    return outcome, err.getvalue(), out.getvalue().decode()


def _x64_from_the_environment() -> str:
    """The recorded program with its x64 line made a comment (no line moves): x64 is then on only
    through `JAX_ENABLE_X64=1`, which the module does not show."""
    source = PROGRAM.read_text()
    assert X64_ON in source
    return source.replace(X64_ON, "# x64 on through JAX_ENABLE_X64=1 in the environment\n")


def test_the_recorded_programs_lines_are_the_ones_the_chip_named() -> None:
    lines = PROGRAM.read_text().splitlines()
    assert lines[11] == "    return jnp.arange(128)[None, :]"
    assert lines[15] == "    o_ref[...] = x_ref[...] + column_ids().astype(o_ref.dtype)"


@pytest.mark.parametrize("log", [FILTERED, UNFILTERED, COMPILER_ONLY], ids=["filtered", "unfiltered", "compiler-only"])
def test_the_chips_iota_error_is_placed_on_the_arange_and_fixed(tmp_path: Path, log: str) -> None:
    """x64 turned on where the module cannot see it: `fix` alone leaves the arange, the chip's
    traceback proves x64 on there, and explain writes the int32 dtype on line 12."""
    program = _x64_from_the_environment()
    alone = process_source(Path("s/x64_iota_traceback.py"), program.encode(), registry.select(["JAX005"]), TARGET)
    assert alone.error is None and alone.findings == []
    outcome, err, out = _explain(tmp_path, log, program)
    assert outcome is Outcome.PENDING, err
    assert "s/x64_iota_traceback.py:12: JAX005: the traceback's `Only 8-, 16- and 32-bit Iota supported` comes " \
           "from this call" in err
    assert "s/x64_iota_traceback.py:12:12: JAX005 [fixed] jnp.arange over integer bounds makes jax's default " \
           "int, an int64 iota under x64: dtype=jnp.int32 added" in err
    assert [line for line in out.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")] == \
        ["-    return jnp.arange(128)[None, :]", "+" + FIXED.rstrip("\n")]  # that line alone


def test_the_error_of_a_log_without_the_program_is_not_placed_and_says_why(tmp_path: Path) -> None:
    out, err = io.BytesIO(), io.StringIO()
    outcome = explain.run(FILTERED, tmp_path, RULES, TARGET, write=False, out=out, err=err)
    assert outcome is Outcome.UNRESOLVED and out.getvalue() == b""
    assert "Only 8-, 16- and 32-bit Iota supported" in err.getvalue()
    assert "/tmp/s/x64_iota_traceback.py" in err.getvalue()
