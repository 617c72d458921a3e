"""The capability table must say what the installed jax's kernel lowerings actually do.

A new jax release that lowers more (or less) fails here instead of silently producing rewrites
that are too conservative or that crash the kernel.
"""

import json
import re
import sys

import pytest

pytest.importorskip("jax")

from codemods import api_changes, capabilities, probe  # noqa: E402
from codemods.capabilities import Level  # noqa: E402

pytestmark = pytest.mark.jax


@pytest.fixture(scope="module")
def observations():
    """Lowering is the slow part and does not depend on the table, so do it once."""
    return probe.observe()


@pytest.fixture
def wrong_table(monkeypatch):
    """A table that forgets dot HIGHEST and believes the wrong accuracy rejections."""
    monkeypatch.setattr(capabilities, "PRECISIONS", {
        **capabilities.PRECISIONS,
        ("mosaic_tpu", "dot"): [(capabilities.ALL, capabilities.DEFAULT_ONLY)],
    })
    monkeypatch.setattr(capabilities, "ACCURACY_REJECTED", {
        **capabilities.ACCURACY_REJECTED,
        "mosaic_gpu": [(capabilities.ALL, frozenset({"atan2"}))],
    })


@pytest.fixture
def wrong_triton_table(monkeypatch):
    """A table that treats Triton like Mosaic TPU: pairs refused, HIGH refused, rsqrt's hint refused."""
    monkeypatch.setattr(capabilities, "PER_OPERAND_PRECISION_LOWERED", frozenset())
    monkeypatch.setattr(capabilities, "PRECISIONS", {
        **capabilities.PRECISIONS,
        ("triton", "dot"): [(capabilities.ALL, capabilities.DEFAULT_HIGHEST)],
    })
    monkeypatch.setattr(capabilities, "ACCURACY_REJECTED", {
        **capabilities.ACCURACY_REJECTED,
        "triton": [(capabilities.ALL, frozenset({"rsqrt"}))],
    })


def _rows(report, backend, op=None):
    return {row.case if op else (row.op, row.case): row for row in report.rows
            if row.backend == backend and (op is None or row.op == op)}


def test_capability_table_matches_installed_jax(observations):
    report = probe.compare(observations, probe.installed_jax_version())
    assert report.agree, probe.describe_disagreements(report)


def test_a_wrong_table_is_caught(observations, wrong_table):
    """Guards the guard: the comparison must be able to fail."""
    report = probe.compare(observations, probe.installed_jax_version())

    wrong = {(row.backend, row.op, row.case) for row in report.disagreements}
    assert ("mosaic_tpu", "dot", "precision=HIGHEST") in wrong
    assert ("mosaic_gpu", "rsqrt", "accuracy=HIGHEST") in wrong
    # lax.atan2 takes no accuracy=, so no release can observe the rejection the table claims.
    assert ("mosaic_gpu", "atan2", "accuracy=HIGHEST") in wrong
    message = probe.describe_disagreements(report)
    assert "mosaic_tpu dot precision=HIGHEST: observed accepted, believed rejected" in message
    assert "update codemods/capabilities.py" in message


# --- the Triton backend -----------------------------------------------------------------------

def test_triton_is_probed_on_this_machine(observations):
    """Triton lowers on a CPU-only machine (an abstract GPU device on jax 0.12, compute capability
    9.0 by default on 0.10.2). Should a jax release stop allowing that, the Triton rows would turn
    "not probed" and claim nothing: that must fail here, not pass quietly."""
    report = probe.compare(observations, probe.installed_jax_version())
    assert report.not_probed == {}
    lowered = {case: row.observed for case, row in _rows(report, "triton", "dot").items()
               if not case.endswith("input precision") and "DotAlgorithmPreset" not in case}
    assert lowered == {
        "precision=DEFAULT": probe.ACCEPTED,
        "precision=HIGH": probe.ACCEPTED,
        "precision=HIGHEST": probe.ACCEPTED,
        "precision=(DEFAULT, HIGHEST)": probe.ACCEPTED,
        "precision=(HIGHEST, HIGH)": probe.ACCEPTED,
    }


def test_triton_dot_lowers_pairs_and_picks_tf32_or_ieee(observations):
    """What makes a per-operand pair working code on Triton, spelled out independently of the
    probe's own rule: DEFAULT or HIGH on either side is TF32, HIGHEST alone is IEEE fp32. If jax
    changes that mapping, rewriting (or not rewriting) Triton pairs changes meaning."""
    report = probe.compare(observations, probe.installed_jax_version())
    dot = _rows(report, "triton", "dot")
    assert {case: row.observed for case, row in dot.items() if case.endswith("input precision")} == {
        "precision=DEFAULT input precision": "tf32",
        "precision=HIGH input precision": "tf32",
        "precision=HIGHEST input precision": "ieee",
        "precision=(DEFAULT, HIGHEST) input precision": "tf32",
        "precision=(HIGHEST, HIGH) input precision": "tf32",
    }
    assert "triton" in capabilities.PER_OPERAND_PRECISION_LOWERED
    assert "mosaic_tpu" not in capabilities.PER_OPERAND_PRECISION_LOWERED
    assert _rows(report, "mosaic_tpu", "dot")["precision=(DEFAULT, HIGHEST)"].observed == probe.REJECTED


def test_triton_ignores_accuracy(observations):
    """Triton's elementwise rules take `**_`: the hint lowers and changes nothing in the module."""
    report = probe.compare(observations, probe.installed_jax_version())
    seen = {op: row.observed for (op, case), row in _rows(report, "triton").items()
            if case == "accuracy=HIGHEST"}
    for name in ("rsqrt", "sqrt", "tanh", "logistic", "exp", "exp2", "sin", "cos", "log",
                 "log1p", "tan", "cbrt", "expm1"):
        assert seen[name] == probe.IGNORED, (name, seen[name])
    assert probe.REJECTED not in seen.values()
    assert probe.ACCEPTED not in seen.values()  # accepted = the hint changed the Triton module


def test_a_wrong_triton_table_is_caught(observations, wrong_triton_table):
    report = probe.compare(observations, probe.installed_jax_version())

    wrong = {(row.backend, row.op, row.case) for row in report.disagreements}
    assert ("triton", "dot", "precision=(DEFAULT, HIGHEST)") in wrong
    assert ("triton", "dot", "precision=HIGH") in wrong
    assert ("triton", "rsqrt", "accuracy=HIGHEST") in wrong
    message = probe.describe_disagreements(report)
    assert ("triton dot precision=(DEFAULT, HIGHEST): observed accepted, believed rejected"
            in message)


def test_triton_rows_leave_the_mosaic_answers_alone():
    """The empty Triton accuracy row adds nothing to the union the accuracy rewrite reads."""
    for version in (None, (0, 10, 2), (0, 11, 1), (0, 11, 2), (0, 12, 0, 1)):
        assert capabilities.accuracy_rejected("triton", version) == frozenset()
        assert capabilities.accuracy_rejected_anywhere(version) == (
            capabilities.accuracy_rejected("mosaic_gpu", version)
            | capabilities.accuracy_rejected("mosaic_tpu", version))
    assert capabilities.lowered_precisions("triton", "dot", None) == capabilities.EVERY_LEVEL
    assert capabilities.lowered_precisions("mosaic_tpu", "dot", (0, 10, 2)) == (
        capabilities.DEFAULT_HIGHEST)


def test_without_an_abstract_gpu_triton_fails_with_the_error_we_report(monkeypatch):
    """The "not probed" classification hangs on jax's message. Without the abstract device, jax
    either lowers anyway (0.10.2 falls back to compute capability 9.0) or raises exactly that."""
    import contextlib

    monkeypatch.setattr(probe, "_abstract_gpu", contextlib.nullcontext)
    setting = (Level.HIGHEST,)
    attempt = next(p for p in probe._triton_dot_probes() if p.case == probe._describe(setting))
    with probe._quiet():
        seen = probe._observe(attempt)
    if seen.outcome == probe.NOT_PROBED:
        assert seen.detail.startswith("No supported GPU devices found, please specify an abstract "
                                      "GPU device using AbstractDevice")
    else:
        assert seen.outcome == probe.ACCEPTED
        assert capabilities.parse_version(probe.installed_jax_version()) < (0, 11)


def test_not_probed_is_said_in_text_and_json(observations, capsys, monkeypatch):
    reason = "No supported GPU devices found, please specify an abstract GPU device"
    unseen = [probe.Observation(o.probe, probe.NOT_PROBED, reason)
              if o.probe.backend == "triton" else o for o in observations]
    monkeypatch.setattr(probe, "observe", lambda: unseen)
    line = f"triton: not probed on this machine: {reason}, needs a GPU"

    assert probe.main() == 0
    text = capsys.readouterr().out
    assert line in text.splitlines()
    assert "not probed)." in text

    assert probe.main(json_output=True) == 0
    decoded = json.loads(capsys.readouterr().out)
    assert decoded["not_probed"] == [line]


# --- the command ------------------------------------------------------------------------------

def test_main_exit_status_and_output(observations, monkeypatch, capsys):
    # As in the fresh process `jax-codemod probe` runs in: an earlier main() of this process imported
    # the modules whose import is an old spelling (jax.cloud_tpu_init warns once, when first imported).
    for module in {module for row in api_changes.TABLE for module in row.modules}:
        monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.setattr(probe, "observe", lambda: observations)
    assert probe.main() == 0
    out = capsys.readouterr().out
    assert "All " in out
    assert "not probed" not in out

    assert probe.main(json_output=True) == 0
    decoded = json.loads(capsys.readouterr().out)
    assert decoded["jax_version"] == probe.installed_jax_version()
    assert decoded["agree"] is True
    assert decoded["not_probed"] == []
    assert {row["backend"] for row in decoded["rows"]} == {
        "mosaic_tpu", "mosaic_gpu", "triton", "cudnn"}


def test_main_fails_on_a_wrong_table(observations, wrong_table, monkeypatch, capsys):
    monkeypatch.setattr(probe, "observe", lambda: observations)
    assert probe.main() == 1
    assert "MISMATCH" in capsys.readouterr().out


# --- what the chip's compiler refuses ----------------------------------------------------------

def test_dtype_rows_believe_the_compiler_on_a_tpu_and_the_lowering_elsewhere(monkeypatch):
    """bfloat16 operands at HIGHEST lower everywhere but fail Mosaic's compiler on the chip ("Bad lhs
    type"): the row's belief is the compiler's where the probe compiles (a TPU), the lowering's
    where it cannot."""
    rows = {probe.case: probe for probe in probe._dtype_probes()}
    highest, default = rows["bfloat16 operands, precision=HIGHEST"], rows["bfloat16 operands, precision=DEFAULT"]
    version = (0, 10, 2)
    monkeypatch.setattr(probe, "on_a_tpu", lambda: False)
    assert (highest.believed(version), default.believed(version)) == (probe.ACCEPTED, probe.ACCEPTED)
    monkeypatch.setattr(probe, "on_a_tpu", lambda: True)
    assert (highest.believed(version), default.believed(version)) == (probe.REJECTED, probe.ACCEPTED)
    assert re.search(highest.rejection, "Mosaic failed to compile TPU kernel: Bad lhs type")


def test_narrow_rows_believe_the_compiler_on_a_tpu_and_the_lowering_elsewhere(monkeypatch):
    """int8 addition lowers everywhere but fails Mosaic's compiler on the chip ("Only vector<i16> and
    vector<i32> are supported, but got 'i8'"); an int8 max reduction fails the lowering itself; int16
    addition compiles."""
    rows = {(probe.case, probe.op): probe for probe in probe._narrow_probes()}
    add, reduce, wide = rows[("int8 vectors", "add")], rows[("int8 vectors", "reduce_max")], rows[("int16 vectors", "add")]
    version = (0, 10, 2)
    monkeypatch.setattr(probe, "on_a_tpu", lambda: False)
    assert [row.believed(version) for row in (add, reduce, wide)] == [probe.ACCEPTED, probe.REJECTED, probe.ACCEPTED]
    monkeypatch.setattr(probe, "on_a_tpu", lambda: True)
    assert [row.believed(version) for row in (add, reduce, wide)] == [probe.REJECTED, probe.REJECTED, probe.ACCEPTED]
    assert re.search(add.rejection, "Mosaic failed to compile TPU kernel: Not implemented: Only vector<i16> and "
                     "vector<i32> are supported, but got 'i8'. Please cast your input.")
    assert re.search(reduce.rejection, "Reductions over unsigned integers not implemented.")


def test_on_a_tpu_the_kernel_is_compiled_not_exported(monkeypatch):
    """Told it is on a TPU, the probe compiles for this machine's backend, which (a CPU) has no
    Mosaic compiler: the error says so. Elsewhere the same kernel lowers with jax.export."""
    import jax

    if jax.default_backend() == "tpu":
        pytest.skip("on a TPU the kernel compiles: this is about a machine without one")
    body, operands, out = probe._dot_kernel(probe._lax_precision((Level.HIGHEST,)))
    monkeypatch.setattr(probe, "on_a_tpu", lambda: False)
    probe._lower_mosaic_tpu(body, operands, out)
    monkeypatch.setattr(probe, "on_a_tpu", lambda: True)
    with pytest.raises(Exception, match="interpret|TPU|tpu"):
        probe._lower_mosaic_tpu(body, operands, out)


# --- dot algorithm presets --------------------------------------------------------------------

def test_presets_lower_as_the_table_says_and_a_wrong_row_is_caught(observations, monkeypatch):
    """Mosaic TPU lowers no `lax.DotAlgorithmPreset` (the TypeError every preset raises there);
    Triton lowers all but the fp8 and float64 ones. A table that believed Mosaic TPU took
    BF16_BF16_F32 (as a release that fixes the lowering would) disagrees on both dtypes' rows."""
    report = probe.compare(observations, probe.installed_jax_version())
    tpu = {case: row for case, row in _rows(report, "mosaic_tpu", "dot").items() if "precision=DotAlgorithmPreset" in case}
    assert len(tpu) == 2 * len(capabilities.DOT_ALGORITHM_PRESETS)
    assert {row.observed for row in tpu.values()} == {probe.REJECTED}
    assert "'DotAlgorithmPreset' object is not subscriptable" in tpu[
        "float32 operands, precision=DotAlgorithmPreset.BF16_BF16_F32"].detail
    triton = {case: row.observed for case, row in _rows(report, "triton", "dot").items() if "DotAlgorithmPreset" in case}
    assert {case for case, seen in triton.items() if seen == probe.REJECTED} == {
        f"precision=DotAlgorithmPreset.{name}" for name in
        ("ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM",
         "F64_F64_F64")}

    monkeypatch.setattr(capabilities, "DOT_ALGORITHM_PRESETS_LOWERED", {
        **capabilities.DOT_ALGORITHM_PRESETS_LOWERED,
        "mosaic_tpu": [(capabilities.ALL, frozenset({"BF16_BF16_F32"}))],
    })
    wrong = {row.case for row in probe.compare(observations, probe.installed_jax_version()).disagreements}
    assert wrong == {"float32 operands, precision=DotAlgorithmPreset.BF16_BF16_F32",
                     "bfloat16 operands, precision=DotAlgorithmPreset.BF16_BF16_F32"}


def test_a_preset_jax_adds_is_a_disagreement(observations, monkeypatch):
    """JAX001 reads only the presets the table lists: one a release adds must fail the probe."""
    report = probe.compare(observations, probe.installed_jax_version())
    assert _rows(report, "mosaic_tpu", "dot")["DotAlgorithmPreset members"].observed == probe.ACCEPTED
    monkeypatch.setattr(capabilities, "DOT_ALGORITHM_PRESETS", capabilities.DOT_ALGORITHM_PRESETS[:-1])
    members = next(row for row in probe._preset_probes() if row.case == "DotAlgorithmPreset members")
    row = probe.compare([probe._observe(members)], probe.installed_jax_version()).rows[0]
    assert (row.observed, row.agree, row.detail) == (probe.PRESETS_DIFFER, False, "added F64_F64_F64; gone none")


def test_dynamic_slice_of_a_value_lowers_as_the_table_says_and_a_wrong_row_is_caught(observations, monkeypatch):
    """No Mosaic TPU release so far lowers a dynamic_slice of a loaded value; JAX006's fix, the same
    index on the ref, lowers. A table that believed a release lowered it (as one that adds the
    lowering will) disagrees on the value rows, and the rule then reports nothing."""
    report = probe.compare(observations, probe.installed_jax_version())
    rows = _rows(report, "mosaic_tpu", "dynamic_slice")
    assert {case: row.observed for case, row in rows.items()} == {
        "v[i] of v = x_ref[...]": probe.REJECTED,
        "lax.dynamic_slice(v, (i * 8, 0), (8, 128)) of v = x_ref[...]": probe.REJECTED,
        "x_ref[i] (JAX006's fix)": probe.ACCEPTED,
        "x_ref[pl.ds(i * 8, 8), pl.ds(0, 128)] (JAX006's fix)": probe.ACCEPTED,
    }
    assert all(row.agree for row in rows.values())
    assert "Unimplemented primitive in Pallas TPU lowering for tc: dynamic_slice" in rows["v[i] of v = x_ref[...]"].detail
    monkeypatch.setitem(capabilities.DYNAMIC_SLICE_OF_VALUES, "mosaic_tpu", [(capabilities.ALL, True)])
    wrong = {row.case for row in probe.compare(observations, probe.installed_jax_version()).disagreements}
    assert wrong == {"v[i] of v = x_ref[...]", "lax.dynamic_slice(v, (i * 8, 0), (8, 128)) of v = x_ref[...]"}
# --- 64-bit values under jax_enable_x64 (JAX005) -----------------------------------------------

def test_x64_rows_agree_and_a_wrong_row_is_caught(observations, monkeypatch):
    """Under x64 Mosaic TPU rejects an int64 or float64 value, an integer sum and argmax's int64
    index, with the errors the table quotes for the installed jax; the int64 arange lowers here (only
    the chip's compiler refuses it). A table that believed argmax lowered disagrees on that row."""
    report = probe.compare(observations, probe.installed_jax_version())
    rows = _rows(report, "mosaic_tpu", "x64")
    assert set(rows) == {f"jax_enable_x64, {case}" for _, case in capabilities.X64_REJECTED}
    assert all(row.agree for row in rows.values()), [row for row in rows.values() if not row.agree]
    assert rows["jax_enable_x64, iota"].observed == probe.ACCEPTED
    version = capabilities.parse_version(probe.installed_jax_version())
    assert capabilities.x64_rejection("mosaic_tpu", "argmax", version) in rows["jax_enable_x64, argmax"].detail

    monkeypatch.setitem(capabilities.X64_REJECTED, ("mosaic_tpu", "argmax"), [])
    wrong = {row.case for row in probe.compare(observations, probe.installed_jax_version()).disagreements}
    assert wrong == {"jax_enable_x64, argmax"}


# --- pl.debug_print arguments (JAX008) -----------------------------------------------------------

def test_debug_print_rows_agree_and_a_wrong_row_is_caught(observations, monkeypatch):
    """A bfloat16 or int8 block indexed down to a scalar fails on every release; a float32 scalar fills
    a placeholder from jax 0.11.0 only. A table that believed the other release's placeholders
    disagrees on the float32 row."""
    report = probe.compare(observations, probe.installed_jax_version())
    rows = _rows(report, "mosaic_tpu", "debug_print")
    assert len(rows) == 2 * len(probe.DEBUG_PRINT_DTYPES)
    assert all(row.agree for row in rows.values()), [row for row in rows.values() if not row.agree]
    assert rows["v[0, 0] of bfloat16, no placeholder"].observed == probe.REJECTED
    assert rows["v[0, 0] of int32, a placeholder"].observed == probe.ACCEPTED
    version = capabilities.parse_version(probe.installed_jax_version())
    takes_float32 = "float32" in capabilities.placeholder_dtypes("mosaic_tpu", version)
    assert rows["v[0, 0] of float32, a placeholder"].observed == (probe.ACCEPTED if takes_float32 else probe.REJECTED)

    opposite = frozenset({"int32"}) if takes_float32 else frozenset({"int32", "float32"})
    monkeypatch.setitem(capabilities.DEBUG_PRINT_PLACEHOLDER_DTYPES, "mosaic_tpu", [(capabilities.ALL, opposite)])
    wrong = {row.case for row in probe.compare(observations, probe.installed_jax_version()).disagreements}
    assert wrong == {"v[0, 0] of float32, a placeholder"}


def test_debug_print_rows_believe_the_compiler_aborts_on_a_tpu_and_the_lowering_elsewhere(monkeypatch):
    """On a TPU v5e an int32 scalar printed without placeholders aborts libtpu's compiler (the process:
    "Signedness cannot be inferred"), where the lowering passes; through a placeholder it compiles, and
    a float32 scalar compiles either way. The row's belief is the compiler's where the probe compiles."""
    rows = {row.case: row for row in probe._debug_print_probes()}
    cases = ("v[0, 0] of int32, no placeholder", "v[0, 0] of int32, a placeholder",
             "v[0, 0] of float32, no placeholder", "v[0, 0] of bfloat16, no placeholder")
    version = (0, 10, 2)
    monkeypatch.setattr(probe, "on_a_tpu", lambda: False)
    assert [rows[case].believed(version) for case in cases] == [
        probe.ACCEPTED, probe.ACCEPTED, probe.ACCEPTED, probe.REJECTED]
    monkeypatch.setattr(probe, "on_a_tpu", lambda: True)
    assert [rows[case].believed(version) for case in cases] == [
        probe.ABORTED, probe.ACCEPTED, probe.ACCEPTED, probe.REJECTED]


# --- math Triton has no lowering for (JAX007) ----------------------------------------------------

def test_triton_math_rows_agree_and_a_wrong_row_is_caught(observations, monkeypatch):
    """erf, erfc, round, jnp.all/any (reduce_and, reduce_or) and cumprod fail in a Triton kernel with
    "Unimplemented primitive in Pallas Triton lowering: <primitive>"; a table that believed a release
    lowered round (as one that adds the lowering will) disagrees on that row, and JAX007 stops there."""
    report = probe.compare(observations, probe.installed_jax_version())
    rows = _rows(report, "triton")
    math_rows = {op: row for (op, case), row in rows.items() if case == "in a kernel"}
    assert set(math_rows) == {"erf", "erfc", "round", "reduce_and", "reduce_or", "cumprod"}
    assert all(row.observed == probe.REJECTED and row.agree for row in math_rows.values()), math_rows
    assert "Unimplemented primitive in Pallas Triton lowering: reduce_and" in math_rows["reduce_and"].detail
    everything = capabilities.MATH_UNLOWERED["triton"][0][1]
    monkeypatch.setitem(capabilities.MATH_UNLOWERED, "triton", [(capabilities.ALL, everything - {"round"})])
    wrong = {(row.backend, row.op) for row in probe.compare(observations, probe.installed_jax_version()).disagreements}
    assert wrong == {("triton", "round")}


def test_triton_division_rows_agree_and_a_wrong_row_is_caught(observations, monkeypatch):
    """Triton divides float32, not bfloat16 or float16 ("unsupported types: tensor<8x128xbf16> and
    tensor<8x128xbf16>"); a table that believed a release divided float16 disagrees on that row."""
    report = probe.compare(observations, probe.installed_jax_version())
    rows = _rows(report, "triton", "div")
    assert {case: row.observed for case, row in rows.items()} == {
        "x / y on bfloat16": probe.REJECTED, "x / y on float16": probe.REJECTED, "x / y on float32": probe.ACCEPTED}
    assert all(row.agree for row in rows.values())
    monkeypatch.setitem(capabilities.DIVISION_REJECTED, "triton", [(capabilities.ALL, frozenset({"bfloat16"}))])
    wrong = {row.case for row in probe.compare(observations, probe.installed_jax_version()).disagreements}
    assert wrong == {"x / y on float16"}
