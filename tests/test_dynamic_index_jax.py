"""JAX006's goldens against the real Mosaic TPU lowering and interpret mode, on the installed jax.

Each launch of a `dynamic_index` golden is judged by the findings on its kernel's lines:
- a kernel with a [fixed] finding and no [manual] one: its `.in.py` fails to lower for TPU with the
  very error the finding quotes, its `.out.py` lowers, and in interpret mode both give the same array;
- a kernel with a [manual] finding: both fail with that error (the tool left it as written);
- a kernel with no finding: both lower (a static index, plain XLA code).
What a TPU v5e's compiler makes of the rewrites (jax 0.10.2): docs/walls.md.
"""

from __future__ import annotations

import ast
import functools
import warnings
from pathlib import Path

import pytest

pytest.importorskip("jax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402

from codemods.rules.dynamic_index import ERROR  # noqa: E402
from tests import jax_support  # noqa: E402

pytestmark = pytest.mark.jax

FIXTURES = Path(__file__).parent / "fixtures" / "dynamic_index"
# launch -> its kernel and the rows of its operand (both goldens hold the same kernels, for two targets).
LAUNCHES = {"row": ("row_kernel", 8), "load": ("load_kernel", 8), "block": ("block_kernel", 16),
            "in_dim": ("in_dim_kernel", 16), "loop": ("loop_kernel", 8), "stored": ("stored_kernel", 8),
            "loop_stored": ("loop_stored_kernel", 8), "lane": ("lane_kernel", 8),
            "computed": ("computed_kernel", 8), "static": ("static_kernel", 8)}
FIXED, MANUAL, AS_WRITTEN = "fixed", "manual", "as written"
# What the findings say of each launch, pinned so that a golden whose findings change is read again.
EXPECTED = {"row": FIXED, "load": FIXED, "block": FIXED, "in_dim": FIXED, "loop": FIXED, "stored": MANUAL,
            "loop_stored": MANUAL, "lane": MANUAL, "computed": MANUAL, "static": AS_WRITTEN}
GOLDENS = ("loaded_values_jax_0_12", "loaded_values_jax_0_10")


def _verdicts(stem: str) -> dict[str, str]:
    """Each launch's kind, from the findings on its kernel's lines."""
    source = (FIXTURES / f"{stem}.in.py").read_text()
    spans = {node.name: (node.lineno, node.end_lineno) for node in ast.parse(source).body
             if isinstance(node, ast.FunctionDef)}
    findings = [(int(line.split(":")[1]), line) for line in (FIXTURES / f"{stem}.findings").read_text().splitlines()]
    verdicts = {}
    for launch, (kernel, _) in LAUNCHES.items():
        if kernel not in spans:
            continue
        start, end = spans[kernel]
        mine = [text for line, text in findings if start <= line <= end]
        verdicts[launch] = MANUAL if any("[manual]" in text for text in mine) else FIXED if mine else AS_WRITTEN
        assert all(ERROR in text for text in mine), mine
    return verdicts


def _entry(source: str, name: str, launch: str):
    return getattr(jax_support.load_program(source, name), launch)


def _lowering_error(run, rows: int):
    with warnings.catch_warnings(), jax_support.abstract_tpu():
        warnings.simplefilter("ignore")
        return jax_support.lowering_error(jax.jit(run), [jax.ShapeDtypeStruct((rows, 128), jnp.float32)], "tpu")


def _interpreted(run, x):
    """`run(x)` with its pallas_call run in interpret mode."""
    real = pl.pallas_call
    pl.pallas_call = functools.partial(real, interpret=True)
    try:
        return np.asarray(jax.jit(run)(x))
    finally:
        pl.pallas_call = real


@pytest.mark.parametrize("stem", GOLDENS)
def test_the_findings_say_what_the_golden_was_written_for(stem: str) -> None:
    assert _verdicts(stem) == EXPECTED


@pytest.mark.parametrize("stem, launch", [(stem, launch) for stem in GOLDENS for launch in LAUNCHES])
def test_golden_lowers_and_computes_as_its_findings_say(stem: str, launch: str) -> None:
    verdict = _verdicts(stem)[launch]
    rows = LAUNCHES[launch][1]
    before = _entry((FIXTURES / f"{stem}.in.py").read_text(), f"{stem}_in_{launch}", launch)
    after = _entry((FIXTURES / f"{stem}.out.py").read_text(), f"{stem}_out_{launch}", launch)
    failed_before, failed_after = _lowering_error(before, rows), _lowering_error(after, rows)
    if verdict == AS_WRITTEN:
        assert failed_before is None and failed_after is None, (failed_before, failed_after)
        return
    assert failed_before is not None and ERROR in failed_before, failed_before
    if verdict == MANUAL:
        assert failed_after == failed_before
        return
    assert failed_after is None, failed_after
    x = jnp.asarray(np.random.default_rng(0).standard_normal((rows, 128)), jnp.float32)
    np.testing.assert_array_equal(_interpreted(after, x), _interpreted(before, x))


def test_plain_xla_code_is_left_alone_and_runs() -> None:
    """`outside` (plain XLA code) has no finding and runs as written."""
    source = (FIXTURES / "loaded_values_jax_0_12.out.py").read_text()
    assert "lax.dynamic_slice(x, (i, 0), ROW)" in source
    outside = jax_support.load_program(source, "dynamic_index_outside").outside
    x = jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128)
    np.testing.assert_array_equal(np.asarray(jax.jit(outside)(x, 8)), np.asarray(x[8:16]))


DYNAMIC_SLICE_KERNEL = '''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

PLATFORM = "tpu"


def kernel(x_ref, o_ref):
    v = x_ref[...]
    i = pl.program_id(0)
    o_ref[...] = lax.dynamic_slice(v, (i * 8, 0), (8, 128))


def build():
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32), grid=(2,))
    return jax.jit(call), (jax.ShapeDtypeStruct((16, 128), jnp.float32),)
'''


def test_explain_places_the_dynamic_slice_error_and_its_fix_lowers(tmp_path: Path) -> None:
    """The traceback JAX prints for the value's dynamic_slice names the kernel's line; explain maps it to
    JAX006, shows the fix, writes it only with --unsafe-fixes, and the program then lowers."""
    from tests.test_explain import explain, lower

    program = tmp_path / "dynamic.py"
    program.write_text(DYNAMIC_SLICE_KERNEL)
    failed = lower(program, tmp_path)
    assert ERROR in failed.stderr, failed.stderr[-2000:]
    refused = explain(failed.stderr, tmp_path, "--write")
    assert refused.returncode == 1, refused.stderr
    assert "dynamic.py:12: JAX006: the traceback's `" + ERROR + "` comes from this call" in refused.stderr
    assert "[fixed, unsafe fix: --unsafe-fixes]" in refused.stderr
    assert program.read_text() == DYNAMIC_SLICE_KERNEL
    written = explain(failed.stderr, tmp_path, "--write", "--unsafe-fixes")
    assert written.returncode == 0, written.stderr
    assert "    o_ref[...] = x_ref[pl.ds(i * 8, 8), pl.ds(0, 128)]\n" in program.read_text()
    assert lower(program, tmp_path).stdout.strip() == "lowered"


def test_explain_gives_the_note_where_the_ref_is_written_in_between(tmp_path: Path) -> None:
    from tests.test_explain import explain, lower

    program = tmp_path / "stored.py"
    source = DYNAMIC_SLICE_KERNEL.replace("    i = pl.program_id(0)\n", "    x_ref[...] = v + 1\n    i = pl.program_id(0)\n")
    program.write_text(source)
    failed = lower(program, tmp_path)
    assert ERROR in failed.stderr, failed.stderr[-2000:]
    result = explain(failed.stderr, tmp_path, "--write", "--unsafe-fixes")
    assert result.returncode == 1, result.stderr
    assert "[manual]" in result.stderr and "`x_ref` is stored to on line 11, between the load and the index" \
        in result.stderr
    assert "no fix can be written for this call" in result.stderr
    assert program.read_text() == source


def test_the_injection_over_jax_kernels_changes_nothing_else(capsys, monkeypatch) -> None:
    """bench/inject_dynamic_index.py over the installed jax's splash attention kernels (the bench's whole run,
    every TPU kernel, takes 15 s: docs/walls.md): no site wrong (a fix that changes more than the read, a
    finding elsewhere, a crash); fixed where a `@pl.when` body stores the scratch ref before the load."""
    import importlib.util
    import sys

    monkeypatch.setattr(sys, "path", list(sys.path))  # the bench puts the checkout first
    spec = importlib.util.spec_from_file_location("inject_dynamic_index",
                                                  Path(__file__).parents[1] / "bench" / "inject_dynamic_index.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--jax-version", jax.__version__, "--show", "silent", "--only", "splash_attention_kernel"]) == 0
    summary = capsys.readouterr().out.splitlines()[-1]
    counts = dict((kind, int(n)) for n, kind in (part.split() for part in summary.split(": ", 1)[1].split(", ")))
    assert counts["wrong"] == 0 and counts["fixed"] >= 2 and counts["silent"] == 0, summary
