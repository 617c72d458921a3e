"""Dtypes that cross a module boundary into a kernel's parameter (`FlowFacts.dtypes`): a config
dataclass's `jnp.int8` or `jnp.int64` field, bound by a partial of another module, that a kernel of a
third casts to or makes values with. Its own code shows no dtype; JAX004 and JAX005 take the dtypes the
whole-program link says every call gives the parameter. Each package fails to lower for TPU as written
and lowers after `--write --unsafe-fixes`; a parameter given several dtypes gets a [manual] note."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codemods import registry
from codemods.engine.diagnostics import Applicability, Kind
from codemods.engine.discovery import discover
from codemods.engine.runner import run
from codemods.settings import Settings
from tests import jax_support
from tests.test_foreign_kernels import lowering_error

_CONFIG = """
    import dataclasses

    import jax.numpy as jnp

    @dataclasses.dataclass(frozen=True)
    class QuantConfig:
        qdtype: object = jnp.int8
        acc_dtype: object = jnp.int64

    DEFAULT = QuantConfig()
"""
_LAUNCH = """
    import jax
    from jax.experimental import pallas as pl

    def launch(body, *args, out_dtype=None):
        x = args[0]
        return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, out_dtype or x.dtype))(*args)
"""
_KMOD = """
    import jax.numpy as jnp

    def rowmax_as(x_ref, o_ref, *, dtype):
        q = x_ref[...].astype(dtype)
        m = jnp.max(q, axis=1, keepdims=True)
        o_ref[...] = jnp.broadcast_to(m, o_ref.shape).astype(jnp.int32)

    def count_kernel(x_ref, o_ref, *, acc_dtype):
        acc = jnp.zeros(o_ref.shape, dtype=acc_dtype)
        acc = acc + (x_ref[...] > 0).astype(acc_dtype)
        o_ref[...] = acc.astype(jnp.float32)
"""
# pkg/entry.py's `run`, by rule: what it launches, and how
ENTRIES = {
    "JAX004": """
        import functools

        import jax.numpy as jnp

        from pkg import config, kmod
        from pkg.launch import launch

        def run(x, cfg=config.DEFAULT):
            return launch(functools.partial(kmod.rowmax_as, dtype=cfg.qdtype), x, out_dtype=jnp.int32)
    """,
    "JAX005": """
        import functools

        import jax

        from pkg import config, kmod
        from pkg.launch import launch

        jax.config.update("jax_enable_x64", True)

        def run(x, cfg=config.DEFAULT):
            return launch(functools.partial(kmod.count_kernel, acc_dtype=cfg.acc_dtype), x)
    """,
}
ERRORS = {"JAX004": "Reductions over int8", "JAX005": "64-bit types"}


def _write(root: Path, entry: str, config: str = _CONFIG) -> Path:
    folder = root / "pkg"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for name, text in {"config.py": config, "launch.py": _LAUNCH, "kmod.py": _KMOD, "entry.py": entry}.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip())
    return folder


def _findings(folder: Path, rule: str, unsafe: bool = True, write: bool = False) -> list:
    results = run([folder], registry.select([rule]), Settings(jax_support.JAX_VERSION, unsafe_fixes=unsafe), jobs=1,
                  project=discover([folder]))
    assert all(result.error is None for result in results), [result.error for result in results]
    for result in results if write else ():
        if result.new_source is not None:
            Path(result.path).write_bytes(result.new_source)
    return [(Path(result.path).name, finding) for result in results for finding in result.findings]


@pytest.mark.parametrize("rule", sorted(ENTRIES))
def test_a_dtype_a_config_field_gives_a_kernel_parameter_in_another_module_is_fixed(rule: str, tmp_path: Path) -> None:
    folder = _write(tmp_path, ENTRIES[rule])
    assert ERRORS[rule] in (lowering_error(tmp_path) or ""), lowering_error(tmp_path)
    findings = _findings(folder, rule, write=True)
    assert findings and all(finding.kind is Kind.FIXED and finding.fix.applicability is Applicability.UNSAFE
                            and name == "kmod.py" for name, finding in findings), findings
    assert lowering_error(tmp_path) is None, findings


@pytest.mark.parametrize("rule, spelt", [("JAX004", 'jnp.dtype("int8")'), ("JAX004", "jnp.dtype(jax.numpy.int8)"),
                                         ("JAX005", 'jnp.dtype("int64")'), ("JAX005", "jax.numpy.int64")])
def test_a_config_field_s_dtype_is_read_however_it_is_spelt(rule: str, spelt: str, tmp_path: Path) -> None:
    """jax takes a dtype from `jnp.dtype(...)` as from `jnp.int8`, and from `jax.numpy.int8` through
    `import jax`: the link reads each, so the kernel's op is fixed and lowers."""
    field = "jnp.int8" if rule == "JAX004" else "jnp.int64"
    config = textwrap.dedent(_CONFIG).replace("import jax.numpy", "import jax\nimport jax.numpy").replace(field, spelt)
    folder = _write(tmp_path, ENTRIES[rule], config)
    assert ERRORS[rule] in (lowering_error(tmp_path) or ""), lowering_error(tmp_path)
    findings = _findings(folder, rule, write=True)
    assert findings and all(finding.kind is Kind.FIXED for _, finding in findings), findings
    assert lowering_error(tmp_path) is None, findings


@pytest.mark.parametrize("rule", sorted(ENTRIES))
def test_without_unsafe_fixes_the_check_still_names_the_site(rule: str, tmp_path: Path) -> None:
    folder = _write(tmp_path, ENTRIES[rule])
    findings = _findings(folder, rule, unsafe=False)
    assert findings and all(finding.unapplied_fix for _, finding in findings), findings


@pytest.mark.parametrize("rule, second", [("JAX004", "jnp.int32"), ("JAX005", "jnp.int32")])
def test_a_parameter_given_two_dtypes_is_a_manual_note(rule: str, second: str, tmp_path: Path) -> None:
    entry = textwrap.dedent(ENTRIES[rule]) + textwrap.dedent(f"""
        def other(x):
            return launch(functools.partial(kmod.{'rowmax_as' if rule == 'JAX004' else 'count_kernel'},
                                            {'dtype' if rule == 'JAX004' else 'acc_dtype'}={second}), x)
    """)
    entry = entry if rule == "JAX004" else entry.replace("import jax\n", "import jax\nimport jax.numpy as jnp\n", 1)
    folder = _write(tmp_path, entry)
    findings = _findings(folder, rule)
    assert findings and all(finding.kind is Kind.MANUAL and "int32" in finding.message for _, finding in findings), findings


# pkg/kmod.py's bodies whose operands another module casts: the i-th operand of each launch reaches the
# body's i-th ref (kernel_dtypes._Placed); where every launch the link follows passes a ref one narrow cast,
# JAX004 fixes its op (unsafe: a launch it does not see may pass another); else a [manual] note.
_OPERAND_KERNELS = """
    import jax.numpy as jnp

    def rowmax_raw(x_ref, o_ref):
        m = jnp.max(x_ref[...], axis=1, keepdims=True)
        o_ref[...] = jnp.broadcast_to(m, o_ref.shape).astype(jnp.int32)

    def add8_kernel(a_ref, b_ref, o_ref):
        o_ref[...] = a_ref[...] + b_ref[...]

    def scaled_kernel(x_ref, o_ref):
        o_ref[...] = jnp.max(x_ref[...], axis=1, keepdims=True) + 1
"""
_OPERAND_ENTRY = """
    import jax.numpy as jnp

    from pkg import kmod
    from pkg.launch import launch

    def run(x):
        return launch(kmod.rowmax_raw, x.astype(jnp.int8), out_dtype=jnp.int32)

    def add(a, b):
        a8, b8 = a.astype(jnp.int8), b.astype(jnp.int8)
        return launch(kmod.add8_kernel, a8, b8)

    def scaled(x):
        return launch(kmod.scaled_kernel, x)
"""


def _fixed_unsafe(findings: list, lines: list[int]) -> bool:
    return [(name, finding.kind, finding.line) for name, finding in findings] == [
        ("kmod.py", Kind.FIXED, line) for line in lines] and all(
        finding.fix.applicability is Applicability.UNSAFE and "every launch of the kernel the tool follows passes "
        "this ref" in finding.message for _, finding in findings)


def test_an_operand_another_module_casts_to_int8_is_fixed_at_the_kernel_s_op(tmp_path: Path) -> None:
    """`run`'s max reduction fails to lower (on a CPU too); `add`'s int8 addition only on the chip
    (Mosaic's compiler: "Only vector<i16> and vector<i32> are supported"): each launch's operands reach the
    refs in order through the launch helper's `*args`, so both are fixed (they were [manual] notes) and
    lower. `scaled` passes its operand as it is: nothing said there."""
    folder = _write(tmp_path, _OPERAND_ENTRY)
    (folder / "kmod.py").write_text(textwrap.dedent(_OPERAND_KERNELS).lstrip())
    assert "Reductions over int8" in (lowering_error(tmp_path) or ""), lowering_error(tmp_path)
    findings = _findings(folder, "JAX004", write=True)
    assert _fixed_unsafe(findings, [4, 8]), findings
    assert "a_ref[...].astype(jnp.int32) + b_ref[...].astype(jnp.int32)" in (folder / "kmod.py").read_text()
    assert lowering_error(tmp_path) is None


@pytest.mark.parametrize("cast", ["x.astype(jax.numpy.int8)", 'x.astype(jnp.dtype("int8"))', "jax.numpy.int8(x)",
                                  "jax.lax.convert_element_type(x, jnp.int8)",
                                  "jax.lax.convert_element_type(x, new_dtype=jnp.int8)", "x.astype(dtype=jnp.int8)",
                                  "jnp.astype(x, jnp.int8)", "jnp.asarray(x, dtype=jnp.int8)", "jnp.array(x, jnp.int8)",
                                  "jnp.full_like(x, 3, jnp.int8)", "jnp.zeros_like(x, dtype=jnp.int8)"])
def test_an_operand_cast_however_jax_takes_the_dtype_is_fixed(cast: str, tmp_path: Path) -> None:
    """The cast's dtype read through `import jax` (`jax.numpy.int8`), `jnp.dtype(...)`,
    `lax.convert_element_type`, `jnp.astype`, `jnp.asarray` and `jnp.array` too, by position or keyword,
    and a value made int8 (`jnp.full_like(x, 3, jnp.int8)`: wherever codemods/analysis/dtype_arguments.py
    places a dtype; the keyword forms, the jnp functions and the made values were silent): else the int8
    reduction fails to lower with nothing said. The fixed kernel lowers."""
    folder = _write(tmp_path, f"""
        import jax
        import jax.numpy as jnp

        from pkg import kmod
        from pkg.launch import launch

        def run(x):
            return launch(kmod.rowmax_raw, {cast}, out_dtype=jnp.int32)
    """)
    (folder / "kmod.py").write_text(textwrap.dedent(_OPERAND_KERNELS).lstrip())
    assert "Reductions over int8" in (lowering_error(tmp_path) or ""), lowering_error(tmp_path)
    findings = _findings(folder, "JAX004", write=True)
    assert _fixed_unsafe(findings, [4]), findings
    assert lowering_error(tmp_path) is None



@pytest.mark.parametrize("cast", ["x.astype(config.QDTYPE)", "x.astype(QD)", "jax.lax.convert_element_type(x, QD)",
                                  "x.astype(config.DEFAULT.qdtype)"])
def test_an_operand_cast_to_a_dtype_a_name_holds_is_fixed(cast: str, tmp_path: Path) -> None:
    """The dtype held by a name of this module or another (`x.astype(config.QDTYPE)`), as the link has
    it: the tenth trial's S1, where the int8 reduction failed to lower with nothing said ("0 parsed")."""
    folder = _write(tmp_path, f"""
        import jax
        import jax.numpy as jnp

        from pkg import config, kmod
        from pkg.launch import launch

        QD = config.QDTYPE

        def run(x):
            return launch(kmod.rowmax_raw, {cast}, out_dtype=jnp.int32)
    """, config=_CONFIG + "\n    QDTYPE = jnp.int8\n")
    (folder / "kmod.py").write_text(textwrap.dedent(_OPERAND_KERNELS).lstrip())
    assert "Reductions over int8" in (lowering_error(tmp_path) or ""), lowering_error(tmp_path)
    findings = _findings(folder, "JAX004", write=True)
    assert _fixed_unsafe(findings, [4]), findings
    assert lowering_error(tmp_path) is None


@pytest.mark.parametrize("reduced", ["q", "jnp.maximum(q, q.dtype.type(-100))"])
def test_a_cast_in_the_kernel_to_a_dtype_another_module_names_is_fixed(reduced: str, tmp_path: Path) -> None:
    """`lax.convert_element_type(x, config.QDTYPE)` in the kernel, the dtype a name of another module
    holds (the link's `named_dtypes`), and `q.dtype.type(c)` a scalar of q's dtype: the tenth trial's S4,
    silent where the op fails (on the chip, an int8 shift). The fix is safe: the name holds int8 alone."""
    folder = _write(tmp_path, """
        import jax.numpy as jnp

        from pkg import kmod
        from pkg.launch import launch

        def run(x):
            return launch(kmod.requant_kernel, x, out_dtype=jnp.int32)
    """, config=_CONFIG + "\n    QDTYPE = jnp.int8\n")
    (folder / "kmod.py").write_text(textwrap.dedent(f"""
        import jax.numpy as jnp
        from jax import lax

        from pkg import config

        def requant_kernel(x_ref, o_ref):
            q = lax.convert_element_type(x_ref[...] * 16.0, config.QDTYPE)
            m = jnp.max({reduced}, axis=1, keepdims=True)
            o_ref[...] = jnp.broadcast_to(m, o_ref.shape).astype(jnp.int32)
    """).lstrip())
    assert "Reductions over int8" in (lowering_error(tmp_path) or ""), lowering_error(tmp_path)
    findings = _findings(folder, "JAX004", write=True)
    assert [(name, finding.kind, finding.fix.applicability) for name, finding in findings] == [
        ("kmod.py", Kind.FIXED, Applicability.SAFE)], findings
    assert lowering_error(tmp_path) is None

def test_an_operand_cast_on_one_of_its_assignments_is_a_manual_note(tmp_path: Path) -> None:
    """A name assigned twice, cast to int8 on one path only: the int8 operand may reach the launch (it does
    by default, and the reduction fails to lower), so the op's note is said (it was silent)."""
    folder = _write(tmp_path, """
        import jax.numpy as jnp

        from pkg import kmod
        from pkg.launch import launch

        def run(x, narrow=True):
            y = x
            if narrow:
                y = y.astype(jnp.int8)
            return launch(kmod.rowmax_raw, y, out_dtype=jnp.int32)
    """)
    (folder / "kmod.py").write_text(textwrap.dedent(_OPERAND_KERNELS).lstrip())
    assert "Reductions over int8" in (lowering_error(tmp_path) or ""), lowering_error(tmp_path)
    findings = _findings(folder, "JAX004")
    assert [(name, finding.kind, finding.line) for name, finding in findings] == [("kmod.py", Kind.MANUAL, 4)], findings


def test_names_assigned_to_each_other_before_a_launch_end(tmp_path: Path) -> None:
    """Following an operand back through names ends on a cycle (`a = b`, `b = a`), with nothing to say."""
    folder = _write(tmp_path, """
        from pkg import kmod
        from pkg.launch import launch

        def run(x):
            if x is None:
                a = b
                b = a
            return launch(kmod.rowmax_raw, b)
    """)
    (folder / "kmod.py").write_text(textwrap.dedent(_OPERAND_KERNELS).lstrip())
    assert _findings(folder, "JAX004") == []


def test_an_operand_a_notebook_casts_is_named_by_its_cell(tmp_path: Path) -> None:
    """The launch a note names is the notebook's cell and line, as the notebook's own findings name it:
    the cast's, and (another launch passing the ref a float) which launch passes the ref what."""
    from tests.test_link import _notebook

    folder = _write(tmp_path, "")
    (folder / "kmod.py").write_text(textwrap.dedent(_OPERAND_KERNELS).lstrip())
    _notebook(tmp_path / "proto.ipynb", ["# int8 rows", "import jax.numpy as jnp\nfrom pkg import kmod\n"
                                         "from pkg.launch import launch\n\n"
                                         "def run(x):\n    return launch(kmod.rowmax_raw, x.astype(jnp.int8))\n\n"
                                         "def wide(x):\n    return launch(kmod.rowmax_raw, x)\n"])
    results = run([tmp_path], registry.select(["JAX004"]), Settings(jax_support.JAX_VERSION), jobs=1,
                  project=discover([tmp_path]))
    notes = [finding.message for result in results for finding in result.findings]
    assert len(notes) == 1 and "proto.ipynb:cell 2:6) passes this kernel" in notes[0], notes
    assert "`x_ref` gets an operand of another dtype or one not followed (" in notes[0] and \
           "proto.ipynb:cell 2:9), int8 (" in notes[0], notes


def test_a_parameter_given_a_64_bit_dtype_and_a_value_not_followed_is_a_manual_note(tmp_path: Path) -> None:
    """One call gives `acc_dtype` the config's int64, another a value that names no dtype: the tool
    writes no int32 for it (the other call's dtype is not known), and the note says so."""
    folder = _write(tmp_path, textwrap.dedent(ENTRIES["JAX005"]) + textwrap.dedent("""
        def other(x):
            return launch(functools.partial(kmod.count_kernel, acc_dtype=None), x)
    """))
    findings = _findings(folder, "JAX005")
    assert findings and all(finding.kind is Kind.MANUAL and "values the tool does not follow" in finding.message
                            for _, finding in findings), findings


def test_a_parameter_fix_in_a_kernel_only_mosaic_tpu_runs_is_unsafe_too(tmp_path: Path) -> None:
    """Unsafe for its own reason, not only because Triton lowers the kernel too: a call the tool does
    not see may give the parameter another dtype."""
    folder = _write(tmp_path, ENTRIES["JAX005"])
    launch = (folder / "launch.py").read_text()
    (folder / "launch.py").write_text(launch.replace("from jax.experimental import pallas as pl\n",
                                                     "from jax.experimental import pallas as pl\n"
                                                     "from jax.experimental.pallas import tpu as pltpu\n").replace(
        "out_dtype or x.dtype))", "out_dtype or x.dtype), compiler_params=pltpu.CompilerParams())"))
    findings = _findings(folder, "JAX005")
    assert findings and all(finding.fix.applicability is Applicability.UNSAFE and "Triton" not in finding.message
                            and "a call the tool does not see" in finding.message for _, finding in findings), findings


def test_dtype_of_names_a_dtype_of_a_dtype_module_only() -> None:
    from codemods.analysis.flow.kernel_dtypes import dtype_of

    assert dtype_of(("ext", "jax.numpy.int8")) == "int8" and dtype_of(("lit", "int64")) == "int64"
    assert dtype_of(("ext", "torch.int8")) is None and dtype_of(("ext", "jax.numpy.zeros")) is None


def test_an_operand_cast_two_names_back_is_followed(tmp_path: Path) -> None:
    """`y = x.astype(jnp.int8); z = y; launch(..., z)`: the cast is followed back through both names."""
    folder = _write(tmp_path, """
        import jax.numpy as jnp

        from pkg import kmod
        from pkg.launch import launch

        def run(x):
            y = x.astype(jnp.int8)
            z = y
            return launch(kmod.rowmax_raw, z, out_dtype=jnp.int32)
    """)
    (folder / "kmod.py").write_text(textwrap.dedent(_OPERAND_KERNELS).lstrip())
    findings = _findings(folder, "JAX004")
    assert _fixed_unsafe(findings, [4]), findings


# pkg/ops.py's forwarders between pkg/entry.py's cast and the launch: the launch's operand is a parameter,
# read back to what the forwarder's callers pass (`*args`, an element of it, `**kwargs`, a partial's call).
_FORWARDERS = {
    "star-args-twice": ("""
        from pkg.launch import launch

        def apply(body, *args, **kw):
            return launch(body, *args, **kw)
    """, "ops.apply(kmod.rowmax_raw, q, out_dtype=jnp.int32)"),
    "registry-by-name": ("""
        from pkg import kmod
        from pkg.launch import launch

        KERNELS = {"rowmax": kmod.rowmax_raw}

        def apply(name, *args, **kw):
            return launch(KERNELS[name], *args, **kw)
    """, 'ops.apply("rowmax", q, out_dtype=jnp.int32)'),
    "spread-list": ("""
        from pkg.launch import launch

        def apply(body, *args, **kw):
            return launch(body, *args, **kw)
    """, "ops.apply(kmod.rowmax_raw, *[q], out_dtype=jnp.int32)"),
    "element-of-star-args": ("""
        from pkg.launch import launch

        def first(body, *args, **kw):
            return launch(body, args[0], **kw)
    """, "ops.first(kmod.rowmax_raw, q, out_dtype=jnp.int32)"),
    "keyword-through-kwargs": ("""
        from pkg.launch import launch

        def launch_x(body, x, out_dtype=None):
            return launch(body, x, out_dtype=out_dtype)

        def apply(body, **operands):
            return launch_x(body, **operands)
    """, "ops.apply(kmod.rowmax_raw, x=q, out_dtype=jnp.int32)"),
    "entry-of-kwargs": ("""
        from pkg.launch import launch

        def apply(body, **operands):
            return launch(body, operands["x"], out_dtype=operands.get("out_dtype"))
    """, "ops.apply(kmod.rowmax_raw, x=q, out_dtype=jnp.int32)"),
    "keyword-of-a-launch-helper": ("""
        import jax
        from jax.experimental import pallas as pl

        def launch_x(body, x, out_dtype=None):
            return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, out_dtype))(x)
    """, "ops.launch_x(kmod.rowmax_raw, x=q, out_dtype=jnp.int32)"),
    "partial-of-forwarder": ("""
        import functools

        from pkg import kmod
        from pkg.launch import launch

        def apply(body, *args, **kw):
            return launch(body, *args, **kw)

        rowmax = functools.partial(apply, kmod.rowmax_raw)
    """, "ops.rowmax(q, out_dtype=jnp.int32)"),
    "positional-parameter": ("""
        import jax.numpy as jnp

        from pkg import kmod
        from pkg.launch import launch

        def rowmax(q):
            return launch(kmod.rowmax_raw, q, out_dtype=jnp.int32)
    """, "ops.rowmax(q)"),
}


# Forwarders whose operands reach the launch by keyword: which ref gets one is not followed (a [manual] note)
_BY_KEYWORD = {"keyword-through-kwargs"}


@pytest.mark.parametrize("case", sorted(_FORWARDERS))
def test_an_operand_cast_before_a_forwarder_is_fixed_or_a_manual_note_whose_advice_lowers(case: str, tmp_path: Path) -> None:
    """The held-out 99's wall (the eighth trial's S2): the int8 operand reaches the launch through a
    parameter of another module's forwarder, which the note was blind to: `--check` passed on a kernel
    that fails. Its position is followed through `*args`, an element of it, a keyword bound to a launch
    helper's parameter, a partial of the forwarder: the op is fixed and lowers (it was a note). Through
    `**operands` into a helper's parameter by keyword it is not: the note is placed at the op and names
    the call passing the cast; its advice (the reduction in int32) lowers."""
    forwarder, call = _FORWARDERS[case]
    folder = _write(tmp_path, f"""
        import jax.numpy as jnp

        from pkg import kmod, ops

        def run(x):
            q = (x * 8.0).astype("int8")
            return {call}
    """)
    (folder / "ops.py").write_text(textwrap.dedent(forwarder).lstrip())
    (folder / "kmod.py").write_text(textwrap.dedent(_OPERAND_KERNELS).lstrip())
    assert "Reductions over int8" in (lowering_error(tmp_path) or ""), lowering_error(tmp_path)
    findings = _findings(folder, "JAX004", write=True)
    if case not in _BY_KEYWORD:
        assert _fixed_unsafe(findings, [4]), findings
        assert lowering_error(tmp_path) is None
        return
    assert [(name, finding.kind, finding.line) for name, finding in findings] == [("kmod.py", Kind.MANUAL, 4)], findings
    assert "a Mosaic TPU launch (pkg.entry:7) passes this kernel an operand cast to int8" in findings[0][1].message
    kmod = (folder / "kmod.py").read_text()
    (folder / "kmod.py").write_text(kmod.replace("jnp.max(x_ref[...], axis=1", "jnp.max(x_ref[...].astype(jnp.int32), axis=1"))
    assert lowering_error(tmp_path) is None


def test_a_forwarder_whose_callers_pass_no_cast_says_nothing(tmp_path: Path) -> None:
    """The same forwarder given a float operand: the kernel lowers, and nothing is said."""
    folder = _write(tmp_path, """
        import jax.numpy as jnp

        from pkg import kmod, ops

        def run(x):
            return ops.apply(kmod.rowmax_raw, x * 8.0, out_dtype=jnp.int32)
    """)
    (folder / "ops.py").write_text(textwrap.dedent(_FORWARDERS["star-args-twice"][0]).lstrip())
    (folder / "kmod.py").write_text(textwrap.dedent(_OPERAND_KERNELS).lstrip())
    assert lowering_error(tmp_path) is None
    assert _findings(folder, "JAX004") == []


def test_an_operand_cast_for_a_launch_helper_of_the_kernel_s_own_module_is_fixed(tmp_path: Path) -> None:
    """One module: the kernel, a launch helper `_call(kernel, *args)` and the call passing it the cast.
    The module's own rule reads only a `pallas_call` of the body written with its operands, so the link's
    operands of its own launches count too (they were left to that rule: silent), and their positions."""
    folder = _write(tmp_path, textwrap.dedent(_OPERAND_KERNELS) + textwrap.dedent("""
        from jax.experimental import pallas as pl

        import jax

        def _call(kernel, *args, out_dtype=None):
            x = args[0]
            return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, out_dtype))(*args)

        def run(x):
            return _call(rowmax_raw, x.astype(jnp.int8), out_dtype=jnp.int32)
    """))
    assert "Reductions over int8" in (lowering_error(tmp_path) or ""), lowering_error(tmp_path)
    findings = _findings(folder, "JAX004", write=True)
    assert [(name, finding.kind, finding.line) for name, finding in findings] == [("entry.py", Kind.FIXED, 4)], findings
    assert lowering_error(tmp_path) is None


def test_an_operand_its_own_module_s_launch_shows_is_left_to_that_launch(tmp_path: Path) -> None:
    """`pl.pallas_call(two_refs, ...)(x.astype(jnp.int8), x)` in the kernel's module: the rule reads which
    ref gets the int8 operand there, so the float ref's row max (which lowers) gets no note."""
    folder = _write(tmp_path, """
        import jax
        import jax.numpy as jnp
        from jax.experimental import pallas as pl

        def two_refs(a_ref, b_ref, o_ref):
            o_ref[...] = jnp.broadcast_to(jnp.max(b_ref[...], axis=1, keepdims=True), o_ref.shape)

        def run(x):
            return pl.pallas_call(two_refs, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x.astype(jnp.int8), x)
    """)
    assert lowering_error(tmp_path) is None
    assert _findings(folder, "JAX004") == []


def test_a_reduction_of_an_op_on_a_ref_cast_elsewhere_is_fixed_with_it(tmp_path: Path) -> None:
    """`jnp.max(jnp.abs(q_ref[...]))` (the trial's absmax_i8): the abs keeps the ref's int8, so the max
    fails too: one fix of both lowers. Where the ref's launches pass int8 and a float (not followed which
    ref: a note each, as before), fixing the abs alone (int32, cast back) still fails to lower, both lowers."""
    folder = _write(tmp_path, """
        import jax.numpy as jnp

        from pkg import kmod, ops

        def run(x):
            return ops.apply(kmod.absmax_raw, (x * 8.0).astype(jnp.int8), out_dtype=jnp.int32)
    """)
    (folder / "ops.py").write_text(textwrap.dedent(_FORWARDERS["star-args-twice"][0]).lstrip())
    (folder / "kmod.py").write_text(textwrap.dedent("""
        import jax.numpy as jnp

        def absmax_raw(q_ref, o_ref):
            m = jnp.max(jnp.abs(q_ref[...]), axis=1, keepdims=True)
            o_ref[...] = jnp.broadcast_to(m, o_ref.shape).astype(jnp.int32)
    """).lstrip())
    assert "Reductions over int8" in (lowering_error(tmp_path) or ""), lowering_error(tmp_path)
    kmod = (folder / "kmod.py").read_text()
    findings = _findings(folder, "JAX004", write=True)
    assert _fixed_unsafe(findings, [4]) and "(with the abs inside it)" in findings[0][1].message, findings
    assert lowering_error(tmp_path) is None
    (folder / "kmod.py").write_text(kmod)
    entry = (folder / "entry.py").read_text()
    (folder / "entry.py").write_text(entry + "\n\ndef wide(x):\n    return ops.apply(kmod.absmax_raw, x, out_dtype=jnp.int32)\n")
    findings = _findings(folder, "JAX004")
    assert [(finding.kind, finding.line, finding.message.split(" on ")[0]) for _, finding in findings] == [
        (Kind.MANUAL, 4, "max reduction"), (Kind.MANUAL, 4, "abs")], findings
    kmod = (folder / "kmod.py").read_text()
    abs_fixed = kmod.replace("jnp.abs(q_ref[...])", "jnp.abs(q_ref[...].astype(jnp.int32)).astype(q_ref.dtype)")
    (folder / "kmod.py").write_text(abs_fixed)
    assert "Reductions over int8" in (lowering_error(tmp_path) or ""), lowering_error(tmp_path)
    (folder / "kmod.py").write_text(abs_fixed.replace("jnp.max(jnp.abs(q_ref[...].astype(jnp.int32)).astype(q_ref.dtype),",
                                                      "jnp.max(jnp.abs(q_ref[...].astype(jnp.int32)).astype(q_ref.dtype).astype(jnp.int32),"))
    assert lowering_error(tmp_path) is None


_DIRECT = """
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl

    from pkg import kmod

    def run(x):
        q = jax.numpy.clip(x * 8.0, -127, 127).astype(jax.numpy.int8)
        return pl.pallas_call(kmod.rowmax_raw, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.int32))(q)
"""


def test_an_operand_another_module_casts_for_its_pallas_call_is_fixed(tmp_path: Path) -> None:
    """The held-out 96: `pl.pallas_call(kmod.rowmax_raw, ...)(q)` in another module, `q` cast to int8
    through `import jax`: the kernel's row max was a [manual] note; the one launch passes `x_ref` int8,
    so it is fixed (unsafe) and lowers."""
    folder = _write(tmp_path, _DIRECT)
    (folder / "kmod.py").write_text(textwrap.dedent(_OPERAND_KERNELS).lstrip())
    assert "Reductions over int8" in (lowering_error(tmp_path) or ""), lowering_error(tmp_path)
    findings = _findings(folder, "JAX004", write=True)
    assert _fixed_unsafe(findings, [4]), findings
    assert "jnp.max(x_ref[...].astype(jnp.int32), axis=1, keepdims=True).astype(jnp.int8)" in (folder / "kmod.py").read_text()
    assert lowering_error(tmp_path) is None


def test_a_ref_one_launch_passes_int8_and_another_float32_is_a_manual_note_naming_each(tmp_path: Path) -> None:
    """A second launch of the same kernel passes `x_ref` a float32: an int32 cast back to int8 would give
    that launch the wrong dtype, so nothing is rewritten, and the note says which launch passes what."""
    folder = _write(tmp_path, textwrap.dedent(_DIRECT) + textwrap.dedent("""
        def wide(x):
            return pl.pallas_call(kmod.rowmax_raw, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.int32))(x)
    """))
    (folder / "kmod.py").write_text(textwrap.dedent(_OPERAND_KERNELS).lstrip())
    results = run([folder], registry.select(["JAX004"]), Settings(jax_support.JAX_VERSION, unsafe_fixes=True), jobs=1,
                  project=discover([folder]))
    findings = [finding for result in results for finding in result.findings]
    assert [(finding.kind, finding.line) for finding in findings] == [(Kind.MANUAL, 4)], findings
    assert all(result.new_source is None for result in results)
    assert findings[0].message.endswith("; `x_ref` gets an operand of another dtype or one not followed "
                                        "(pkg.entry:12), int8 (pkg.entry:9)"), findings[0].message
    assert "Reductions over int8" in (lowering_error(tmp_path) or "")


@pytest.mark.parametrize("prefetch", [False, True])
def test_a_launch_with_scalar_prefetch_is_not_placed(prefetch: bool, tmp_path: Path) -> None:
    """With a grid spec's scalar prefetch operands lead (which ref an operand reaches is not read there):
    the row max of the int8 ref stays a [manual] note; the same launch without it is fixed and lowers."""
    grid = ", grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(1,), in_specs=[spec], " \
           "out_specs=spec)" if prefetch else ""
    folder = _write(tmp_path, f"""
        import jax
        import jax.numpy as jnp
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        from pkg import kmod

        def run(x):
            spec = pl.BlockSpec((8, 128), lambda i, s_ref: (0, 0))
            s = jnp.zeros((1,), jnp.int32)
            return pl.pallas_call(kmod.rowmax_prefetched, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.int32){grid})(
                s, x.astype(jnp.int8))
    """)
    (folder / "kmod.py").write_text(textwrap.dedent("""
        import jax.numpy as jnp

        def rowmax_prefetched(s_ref, x_ref, o_ref):
            m = jnp.max(x_ref[...], axis=1, keepdims=True)
            o_ref[...] = jnp.broadcast_to(m, o_ref.shape).astype(jnp.int32) + s_ref[0]
    """).lstrip())
    assert "Reductions over int8" in (lowering_error(tmp_path) or ""), lowering_error(tmp_path)
    findings = _findings(folder, "JAX004", write=True)
    if prefetch:
        assert [(name, finding.kind, finding.line) for name, finding in findings] == [("kmod.py", Kind.MANUAL, 4)], findings
        assert "Reductions over int8" in (lowering_error(tmp_path) or "")
    else:
        assert _fixed_unsafe(findings, [4]), findings
        assert lowering_error(tmp_path) is None


@pytest.mark.parametrize("second", ["q", "x, q"])
def test_operands_whose_positions_are_not_known_stay_a_manual_note(second: str, tmp_path: Path) -> None:
    """`*args` of a forwarder whose callers pass different numbers of operands (`x, q`): which ref gets
    the int8 operand is not known, so the op keeps its note. Two callers passing the same (`q`): fixed."""
    folder = _write(tmp_path, f"""
        import jax.numpy as jnp

        from pkg import kmod, ops

        def run(x):
            q = (x * 8.0).astype("int8")
            return ops.apply(kmod.rowmax_raw, q, out_dtype=jnp.int32), ops.apply(kmod.rowmax_raw, {second})
    """)
    (folder / "ops.py").write_text(textwrap.dedent(_FORWARDERS["star-args-twice"][0]).lstrip())
    (folder / "kmod.py").write_text(textwrap.dedent(_OPERAND_KERNELS).lstrip())
    findings = _findings(folder, "JAX004")
    if second == "q":
        assert _fixed_unsafe(findings, [4]), findings
    else:
        assert [(name, finding.kind, finding.line) for name, finding in findings] == [("kmod.py", Kind.MANUAL, 4)], findings
