"""A `**kwargs` helper that kernels and plain XLA code both call, each caller passing its own pair
(`helpers.mm(a, b, **kw)`, the trial of 2026-12-07c's M2): the link tells the values each kind of caller
passes apart, however deep through such helpers, so a pair only the kernel's callers pass is fixed where
it is written, one only XLA code passes is XLA's alone (left as written, and no note says it reaches a
kernel), and a note at the helper names the kernel's value only. Where code writes into the `**kwargs`
(`kw.setdefault(...)`), what each caller passes is not all it holds: both are read by both, as before."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from codemods.engine.diagnostics import Kind
from tests import jax_support
from tests.test_hinted_op_tables import fixed

_HELPERS = """
    import jax.numpy as jnp

    def mm(a, b, **kw):
        return jnp.dot(a, b, **kw)

    def mm_acc(a, b, **kw):
        return mm(a, b, preferred_element_type=jnp.float32, **kw)
"""
_CONFIG = """
    from jax import lax

    UP = (lax.Precision.HIGH, lax.Precision.HIGHEST)
"""
_ENTRY = """
    import functools
    import jax
    from jax import lax
    from jax.experimental import pallas as pl
    from {package} import config, helpers

    def ffn_kernel(x_ref, w_ref, o_ref, **dot_kw):
        o_ref[...] = helpers.mm_acc(x_ref[...], w_ref[...], **dot_kw)

    def run(x, w):
        body = functools.partial(ffn_kernel, precision=config.UP)
        return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)

    def reference(x, w):
        return helpers.mm_acc(x, w, precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT)){also}
"""
_SHARED = "\n\n    def reference_up(x, w):\n        return jax.numpy.dot(x, w, precision=config.UP)"


def _project(root: Path, package: str, also: str = "", helpers: str = _HELPERS) -> Path:
    folder = root / package
    folder.mkdir()
    files = {"__init__.py": "", "helpers.py": helpers, "config.py": _CONFIG,
             "entry.py": _ENTRY.format(package=package, also=also)}
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip())
    return folder


def _lowered(package: str) -> tuple["str | None", str]:
    """What lowering the kernel for TPU says (None: it lowers), and the XLA reference's jaxpr."""
    entry = importlib.import_module(f"{package}.entry")
    x, w = jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((128, 128), jnp.float32)
    try:
        with jax_support.abstract_tpu():
            return jax_support.lowering_error(jax.jit(entry.run), (x, w), "tpu"), str(jax.make_jaxpr(entry.reference)(x, w))
    finally:
        for name in [name for name in sys.modules if name.split(".")[0] == package]:
            del sys.modules[name]


@pytest.fixture
def on_path(tmp_path: Path):
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))


def test_the_pair_only_the_kernels_caller_passes_is_fixed_where_it_is_written(on_path: Path) -> None:
    folder = _project(on_path, "kwcase_own")
    error, reference = _lowered("kwcase_own")
    assert "Per-operand dot precision unsupported" in (error or "")
    findings = fixed(folder, "JAX001")
    assert [(name, finding.kind) for name, finding in findings] == [("config.py", Kind.FIXED)], findings
    assert "`kwcase_own.helpers` line 4" in findings[0][1].message
    assert _lowered("kwcase_own") == (None, reference)  # the XLA caller's pair is its own, left as written


def test_a_note_at_the_helper_names_the_kernels_value_only(on_path: Path) -> None:
    folder = _project(on_path, "kwcase_shared", also=_SHARED)
    findings = fixed(folder, "JAX001")
    assert len(findings) == 1, [(name, finding.kind, finding.line, finding.message) for name, finding in findings]
    [(name, finding)] = findings
    assert name == "helpers.py" and finding.kind is Kind.MANUAL, findings
    assert "(HIGH, HIGHEST), written in `kwcase_shared.config` on line 3" in finding.message, finding.message
    assert "(HIGHEST, DEFAULT)" not in finding.message and "written in `kwcase_shared.entry`" not in finding.message
    assert "Per-operand dot precision unsupported" in (_lowered("kwcase_shared")[0] or "")


def test_kwargs_the_helper_writes_into_hold_what_every_caller_passes(on_path: Path) -> None:
    """The kernel's caller passes no pair; the helper sets the one XLA code passes too: the kernel's
    dot reads it (never silent)."""
    helpers = _HELPERS.replace("        return jnp.dot(a, b, **kw)",
                               "        kw.setdefault(\"precision\", config.UP)\n        return jnp.dot(a, b, **kw)")
    folder = _project(on_path, "kwcase_written", helpers=f"from kwcase_written import config\n{textwrap.dedent(helpers)}")
    entry = folder / "entry.py"
    entry.write_text(entry.read_text().replace("functools.partial(ffn_kernel, precision=config.UP)", "ffn_kernel")
                     .replace("precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT)", "precision=config.UP"))
    assert "Per-operand dot precision unsupported" in (_lowered("kwcase_written")[0] or "")
    findings = fixed(folder, "JAX001")
    assert {finding.kind for _, finding in findings} == {Kind.MANUAL}, findings
    [at_dot] = [finding for name, finding in findings if name == "helpers.py"]
    assert "written in `kwcase_written.config` on line 3" in at_dot.message, at_dot.message


@pytest.mark.parametrize("call", ["helpers.mm_acc(x, w, precision=config.UP)",
                                  "functools.partial(helpers.mm_acc, precision=config.UP)(x, w)"])
def test_a_pair_both_kinds_of_caller_pass_is_xla_s_too_and_left_as_written(call: str, on_path: Path) -> None:
    """The XLA reference passes the kernel's own pair (`config.UP`) through the same helper, or binds it
    by a partial (no call's keyword: either code's): XLA code reads it, so it is not rewritten where it
    is written (XLA's jaxpr unchanged), and the kernel's dot gets a note (it still fails to lower)."""
    package = f"kwcase_both{'_partial' if 'partial' in call else ''}"
    folder = _project(on_path, package)
    entry = folder / "entry.py"
    entry.write_text(entry.read_text().replace(
        "helpers.mm_acc(x, w, precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT))", call))
    error, reference = _lowered(package)
    assert "Per-operand dot precision unsupported" in (error or "")
    findings = fixed(folder, "JAX001")
    assert {finding.kind for _, finding in findings} == {Kind.MANUAL}, findings
    error, after = _lowered(package)
    assert "Per-operand dot precision unsupported" in (error or "") and after == reference
