"""JAX007 for a jax function a kernel reaches as a value, not by its name: an entry of a table of another
module (`ACTS[name](x)`), bound to the body by a partial, a parameter's default, a dataclass field.
The whole-program link follows it to the kernel's call (`FlowFacts.called`), where a [manual] finding
names the function, the table's entry and what to write; the package fails to lower for Mosaic TPU as
written, and, written as the finding says (a function of the project that calls it), lowers after
the tool's fix. Before, every package here was silent."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codemods import registry
from codemods.engine.diagnostics import Kind
from codemods.engine.discovery import discover
from codemods.engine.runner import run
from codemods.settings import Settings
from tests import jax_support
from tests.test_foreign_kernels import lowering_error

_LAUNCH = """
    import jax
    from jax.experimental import pallas as pl

    def launch(body, x):
        return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(1,))(x)
"""
_TABLES = """
    import functools
    import jax

    ACTS = {
        "elu": jax.nn.elu,
        "gelu": functools.partial(jax.nn.gelu, approximate=False),
        "relu": jax.nn.relu,
    }
"""
# The kernel's module says none of JAX007's words: only the link's answer makes it parsed.
_KMOD = """
    def body(x_ref, o_ref, *, act):
        o_ref[...] = act(x_ref[...])
"""
# case -> (pkg/entry.py, pkg/kmod.py, pkg/tables.py, what lowering says before, the functions named at the call)
CASES = {
    "partial_keyword": ("""
        import functools
        from pkg.kmod import body
        from pkg.launch import launch
        from pkg.tables import ACTS

        def run(x, name="elu"):
            return launch(functools.partial(body, act=ACTS[name]), x)
    """, _KMOD, _TABLES, "expm1", ("jax.nn.elu", "jax.nn.gelu")),
    "subscript_in_kernel": ("""
        from pkg.kmod import body
        from pkg.launch import launch

        def run(x):
            return launch(body, x)
    """, """
        from pkg import tables

        def body(x_ref, o_ref):
            o_ref[...] = tables.ACTS["gelu"](x_ref[...])
    """, _TABLES, "erfc", ("jax.nn.gelu",)),
    "config_default": ("""
        import functools
        from pkg.config import ACT
        from pkg.kmod import body
        from pkg.launch import launch

        def run(x, act_fn=ACT):
            return launch(functools.partial(body, act=act_fn), x)
    """, _KMOD, _TABLES, "expm1", ("jax.nn.elu", "jax.nn.gelu")),
}
_CONFIG = """
    import dataclasses
    from pkg.tables import ACTS

    @dataclasses.dataclass(frozen=True)
    class Config:
        act: str = "elu"

    DEFAULT = Config()
    ACT = ACTS[DEFAULT.act]
"""
# The tables as the finding says to write them: each entry a function of the project that calls jax's.
_TABLES_AS_ADVISED = """
    import jax

    def elu_kernel(x):
        return jax.nn.elu(x)

    def gelu_kernel(x):
        return jax.nn.gelu(x, approximate=False)

    ACTS = {"elu": elu_kernel, "gelu": gelu_kernel, "relu": jax.nn.relu}
"""


def _write(root: Path, entry: str, kmod: str, tables: str) -> Path:
    folder = root / "pkg"
    folder.mkdir(exist_ok=True)
    files = {"__init__.py": "", "launch.py": _LAUNCH, "entry.py": entry, "kmod.py": kmod, "tables.py": tables,
             "config.py": _CONFIG}
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip())
    return folder


def _run(folder: Path) -> list:
    results = run([folder], registry.select(["JAX007"]), Settings(jax_support.JAX_VERSION, unsafe_fixes=True), jobs=1,
                  project=discover([folder]))
    assert all(result.error is None for result in results), [result.error for result in results]
    for result in results:
        if result.new_source is not None:
            Path(result.path).write_bytes(result.new_source)
    return [(Path(result.path).name, finding) for result in results for finding in result.findings]


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_jax_function_reached_as_a_value_is_named_at_the_kernels_call(case: str, tmp_path: Path) -> None:
    entry, kmod, tables, error, functions = CASES[case]
    folder = _write(tmp_path, entry, kmod, tables)
    assert error in (lowering_error(tmp_path) or ""), lowering_error(tmp_path)
    findings = _run(folder)
    at_call = [finding for name, finding in findings if name == "kmod.py"]
    assert [finding.kind for _, finding in findings] == [Kind.MANUAL] * len(functions), findings
    assert len(at_call) == len(functions), findings
    for function, finding in zip(functions, at_call):
        assert function in finding.message and "in `pkg.tables` on line " in finding.message, finding.message
        assert "return " + function in finding.message and "relu" not in finding.message, finding.message
    assert error in (lowering_error(tmp_path) or "")  # (nothing was changed)
    (folder / "tables.py").write_text(textwrap.dedent(_TABLES_AS_ADVISED).lstrip())
    findings = _run(folder)
    assert {(name, finding.kind) for name, finding in findings} == {("tables.py", Kind.FIXED)}, findings
    assert lowering_error(tmp_path) is None, findings


def test_gelus_tanh_form_reached_as_a_value_lowers_and_is_left_alone(tmp_path: Path) -> None:
    """`functools.partial(jax.nn.gelu, approximate=True)` (gelu's default): tanh, which Mosaic TPU lowers."""
    entry, kmod, tables, _, _ = CASES["subscript_in_kernel"]
    folder = _write(tmp_path, entry, kmod, tables.replace("approximate=False", "approximate=True"))
    assert lowering_error(tmp_path) is None
    assert _run(folder) == []


def test_xla_code_calling_the_table_is_left_alone(tmp_path: Path) -> None:
    """The same table read by plain XLA code only: no kernel calls its entries, no finding."""
    folder = _write(tmp_path, """
        from pkg.tables import ACTS

        def run(x, name="elu"):
            return ACTS[name](x)
    """, _KMOD, _TABLES)
    assert _run(folder) == []


# JAX002's kin, `partial(lax.rsqrt, accuracy=...)` in another module's table: tests/test_hinted_op_tables.py


def test_a_partial_of_another_module_called_by_its_name(tmp_path: Path) -> None:
    """`GELU_EXACT = functools.partial(jax.nn.gelu, approximate=False)` in one module, called by that name
    in another's kernel: JAX007's [manual] at the call (silent before). JAX002's kin (`LOG_HI =
    functools.partial(lax.log, accuracy=...)`) is the partial's own module's to report, once, as before."""
    entry = CASES["subscript_in_kernel"][0]
    folder = _write(tmp_path, entry, """
        from pkg.tables import EXACT

        def body(x_ref, o_ref):
            o_ref[...] = EXACT(x_ref[...])
    """, "import functools\nimport jax\n\nEXACT = functools.partial(jax.nn.gelu, approximate=False)\n")
    assert "erfc" in (lowering_error(tmp_path) or "")
    [(name, finding)] = _run(folder)
    assert name == "kmod.py" and finding.kind is Kind.MANUAL and "`pkg.tables` on line 4" in finding.message
    (folder / "tables.py").write_text("import functools\nfrom jax import lax\n\n"
                                      "EXACT = functools.partial(lax.log, accuracy=lax.AccuracyMode.HIGHEST)\n")
    results = run([folder], registry.select(["JAX002"]), Settings(jax_support.JAX_VERSION), jobs=1,
                  project=discover([folder]))
    assert [Path(result.path).name for result in results for _ in result.findings] == ["tables.py"]


def test_a_function_with_no_rewrite_reached_as_a_value_says_so(tmp_path: Path) -> None:
    """lgamma has no rewrite: the finding says what to do instead (not to write the call out)."""
    entry, kmod, _, _, _ = CASES["subscript_in_kernel"]
    folder = _write(tmp_path, entry, kmod.replace('"gelu"', '"lgamma"'),
                    'from jax import lax\n\nACTS = {"lgamma": lax.lgamma}\n')
    assert "lgamma" in (lowering_error(tmp_path) or "")
    [(name, finding)] = _run(folder)
    assert name == "kmod.py" and "lax.lgamma" in finding.message and "no rewrite is written" in finding.message
    assert "the tool then rewrites" not in finding.message


def test_a_partial_bound_to_a_name_of_the_kernels_module_is_said_once_where_it_is_written(tmp_path: Path) -> None:
    """`gelu_exact = functools.partial(jax.nn.gelu, approximate=False)` beside the kernel: the module's own
    analysis says it at the partial; the link's answer at `gelu_exact(x)` adds nothing."""
    folder = _write(tmp_path, CASES["subscript_in_kernel"][0], """
        import functools
        import jax

        gelu_exact = functools.partial(jax.nn.gelu, approximate=False)

        def body(x_ref, o_ref):
            o_ref[...] = gelu_exact(x_ref[...])
    """, _TABLES)
    [(name, finding)] = _run(folder)
    assert name == "kmod.py" and finding.line == 4 and "a functools.partial of it" in finding.message, finding
