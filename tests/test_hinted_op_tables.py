"""JAX002 for a hint a partial of the op binds in another module's table (`OPS = {"rsqrt":
functools.partial(lax.rsqrt, accuracy=...)}`), called by a kernel as a value (held-out projects 91 and
92): the link says whether every call of that partial is a kernel's and no code it does not follow is
handed it; then the hint is dropped where it is written (rsqrt through `rsqrt_safe`), and the package
lowers for Mosaic TPU. A table XLA code reads too, or hands to an installed package, keeps its hint:
[manual] at the kernel's call, naming that reader."""

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
from tests.test_kernel_math_values import _KMOD, _LAUNCH

_OPS = """
    import functools
    from jax import lax

    OPS = {{
        "{op}": functools.partial(lax.{op}, accuracy=lax.AccuracyMode.HIGHEST),
        "exp": lax.exp,
    }}
"""
_ENTRY = """
    import functools
    from pkg.kmod import body
    from pkg.launch import launch
    from pkg.tables import OPS

    def run(x, name="{op}"):
        return launch(functools.partial(body, act=OPS[name]), x)
"""
# XLA code of the package reading the same table (calling the entry, or handing it or the table to jax),
# and how the finding names it
READERS = {
    "called": ('return OPS["rsqrt"](x)', "`jax.lax.rsqrt` outside kernels (pkg.reference:5)"),
    # (jax.vmap hands back the function it maps, which the call runs: since the ninth trial, S1)
    "handed_to_jax": ('return jax.vmap(OPS["rsqrt"])(x)', "`jax.lax.rsqrt` outside kernels (pkg.reference:5)"),
    "table_handed_to_jax": ("return jax.tree.map(lambda f: f(x), OPS)", "`jax.tree.map` (pkg.reference:5)"),
}


def _write(root: Path, op: str = "rsqrt", reference: str = "") -> Path:
    folder = root / "pkg"
    folder.mkdir()
    files = {"__init__.py": "", "launch.py": _LAUNCH, "kmod.py": _KMOD, "tables.py": _OPS.format(op=op),
             "entry.py": _ENTRY.format(op=op), "reference.py": reference}
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip())
    return folder


def fixed(folder: Path, rule: str = "JAX002", paths: "list[Path] | None" = None) -> list:
    """The rule's findings over the package `folder` (or `paths` of it), its fixes (unsafe ones too) written."""
    results = run(paths or [folder], registry.select([rule]), Settings(jax_support.JAX_VERSION, unsafe_fixes=True),
                  jobs=1, project=discover([folder]))
    assert all(result.error is None for result in results), [result.error for result in results]
    for result in results:
        if result.new_source is not None:
            Path(result.path).write_bytes(result.new_source)
    return [(Path(result.path).name, finding) for result in results for finding in result.findings]


@pytest.mark.parametrize("op", ["rsqrt", "log"])
def test_a_hint_in_a_table_only_kernels_read_is_dropped_where_it_is_written(op: str, tmp_path: Path) -> None:
    folder = _write(tmp_path, op)
    assert "Not implemented: accuracy" in (lowering_error(tmp_path) or ""), lowering_error(tmp_path)
    [(name, finding)] = fixed(folder)
    assert name == "tables.py" and finding.kind is Kind.DROPPED and finding.line == 5, finding
    assert "`pkg.kmod` line 2" in finding.message and "nothing else calls this partial" in finding.message
    tables = (folder / "tables.py").read_text()
    assert "AccuracyMode" not in tables and ('"rsqrt": rsqrt_safe,' if op == "rsqrt" else '"exp": lax.exp,') in tables
    assert lowering_error(tmp_path) is None
    assert fixed(folder) == []


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_hint_in_a_table_xla_code_reads_too_is_said_at_the_kernels_call(reader: str, tmp_path: Path) -> None:
    code, named = READERS[reader]
    folder = _write(tmp_path, reference=f"import jax\nfrom pkg.tables import OPS\n\ndef reference(x):\n    {code}\n")
    tables = (folder / "tables.py").read_text()
    [(name, finding)] = fixed(folder)
    assert name == "kmod.py" and finding.kind is Kind.MANUAL, finding
    assert f"written in `pkg.tables` on line 5, which {named} also reads" in finding.message, finding.message
    assert (folder / "tables.py").read_text() == tables  # what XLA code reads is left as written
    assert "Not implemented: accuracy" in (lowering_error(tmp_path) or "")


def test_a_run_without_the_tables_module_says_so_at_the_kernels_call(tmp_path: Path) -> None:
    folder = _write(tmp_path)
    [(name, finding)] = fixed(folder, paths=[folder / "kmod.py"])
    assert name == "kmod.py" and finding.kind is Kind.MANUAL, finding
    assert "`pkg.tables` on line 5, a file this run does not process" in finding.message, finding.message
    assert "give the kernel a value of its own" not in finding.message


# A module the link reads only as far as other code reads its names (one of a package that launches
# no kernel and imports none that does), whose own function, which nothing in the project calls (a
# library's API), reads the value too: until session 26 not read, so the value was rewritten under it
# (JAX001's pair as well).
_PAIR = """
    import jax.numpy as jnp
    from jax import lax

    PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)

    def reference(x, w):
        return jnp.dot(x, w, precision=PAIR)
"""
_PAIR_KERNEL = """
    import jax.numpy as jnp
    from {tables} import PAIR

    def body(x_ref, o_ref, *, act):
        o_ref[...] = jnp.dot(x_ref[...], jnp.ones((128, 128), x_ref.dtype), precision=PAIR)
"""


@pytest.mark.parametrize("rule", ["JAX001", "JAX002"])
def test_a_value_xla_code_of_its_own_module_reads_is_not_rewritten(rule: str, tmp_path: Path) -> None:
    folder, tables = _write(tmp_path), f"ops_{rule.lower()}.tables"
    (tmp_path / tables.split(".")[0]).mkdir()
    (tmp_path / tables.split(".")[0] / "__init__.py").write_text("")
    held = tmp_path / tables.replace(".", "/")
    held = held.with_suffix(".py")
    if rule == "JAX001":
        held.write_text(textwrap.dedent(_PAIR).lstrip())
        (folder / "kmod.py").write_text(textwrap.dedent(_PAIR_KERNEL.format(tables=tables)).lstrip())
        entry = (folder / "entry.py").read_text()
        (folder / "entry.py").write_text(entry.replace("from pkg.tables import OPS\n", "").replace("OPS[name]", "None"))
    else:
        held.write_text((folder / "tables.py").read_text() + '\n\ndef reference(x):\n    return OPS["rsqrt"](x)\n')
        (folder / "entry.py").write_text((folder / "entry.py").read_text().replace("pkg.tables", tables))
    written = held.read_text()
    error = lowering_error(tmp_path)
    assert ("Per-operand dot precision" if rule == "JAX001" else "Not implemented: accuracy") in (error or ""), error
    findings = fixed(tmp_path, rule)
    assert [(name, finding.kind) for name, finding in findings] == [("kmod.py", Kind.MANUAL)], findings
    assert f"outside kernels ({tables}:" in findings[0][1].message, findings[0][1].message
    assert held.read_text() == written and lowering_error(tmp_path) == error
