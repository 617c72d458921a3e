"""codemods/rules/dynamic_index.py (JAX006) run in the test's process: what is fixed, and what must not be.

Each case is one kernel body, launched for Mosaic TPU, run through `process_source` with JAX006 alone:
the text it becomes (None: unchanged) and each finding's line, kind and the words that say why. The
cases that must NOT be fixed are those where something may write the ref between the load and the
index (a store, a call it is passed to, an async copy, another name, a loop back-edge, a closure), or
where the index cannot be moved (a part of a ref, a computed value, the lane dimension). Nothing here
imports jax; tests/test_dynamic_index_jax.py lowers the goldens.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Optional

import pytest

from codemods import capabilities, registry
from codemods.analysis.module import ModuleIndex
from codemods.engine.rule import ParsedFile
from codemods.engine.runner import process_source
from codemods.explain import parse_log
from codemods.rules.dynamic_index import ERROR, RULE
from codemods.settings import Scope, Settings

TARGET = Settings((0, 12, 0, 1), unsafe_fixes=True)
HEADER = ("import functools\nimport jax\nimport jax.numpy as jnp\nfrom jax import lax\n"
          "from jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\n\n\n")
LAUNCH = "\n\ndef run(x):\n    return pl.pallas_call(kernel, out_shape=x, grid=(2,))(x)\n"


def _module(body: str, header: str = HEADER, launch: str = LAUNCH) -> str:
    return header + "def kernel(x_ref, o_ref):\n" + textwrap.indent(textwrap.dedent(body), "    ") + launch


def _run(source: str, settings: Settings = TARGET, proven: Optional[dict] = None):
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX006"]), settings, proven)
    assert result.error is None, result.error
    findings = [(f.line, f.kind.value, f.message, f.fix.applicability.value if f.fix else None)
                for f in result.findings]
    return (result.after or None), findings


# The module's line k lines into the kernel `_module` writes (its `def` is line 1): BODY[k].
BODY = [HEADER.count("\n") + k for k in range(40)]


def _body_after(after: Optional[str]) -> Optional[str]:
    """The kernel's body lines of the output (None: unchanged)."""
    if after is None:
        return None
    body = after[after.index("def kernel"):after.index("\n\ndef run")]
    return textwrap.dedent(body.split("\n", 1)[1])


# -- fixed --

FIXED = [
    ("a row, through a name", "v = x_ref[...]\ni = pl.program_id(0)\no_ref[...] = jnp.broadcast_to(v[i], o_ref.shape)\n",
     "v = x_ref[...]\ni = pl.program_id(0)\no_ref[...] = jnp.broadcast_to(x_ref[i], o_ref.shape)\n"),
    ("the load itself", "o_ref[...] = jnp.broadcast_to(x_ref[:][pl.program_id(0)], o_ref.shape)\n",
     "o_ref[...] = jnp.broadcast_to(x_ref[pl.program_id(0)], o_ref.shape)\n"),
    ("a parenthesized value", "v = x_ref[...]\no_ref[...] = (v)[pl.program_id(0)]\n",
     "v = x_ref[...]\no_ref[...] = x_ref[pl.program_id(0)]\n"),
    ("a tuple index", "v = x_ref[...]\no_ref[...] = jnp.broadcast_to(v[pl.program_id(0), 5], o_ref.shape)\n",
     "v = x_ref[...]\no_ref[...] = jnp.broadcast_to(x_ref[pl.program_id(0), 5], o_ref.shape)\n"),
    ("dynamic_slice, keywords", "v = x_ref[...]\no_ref[...] = lax.dynamic_slice(v, slice_sizes=(8, 128), "
     "start_indices=(pl.program_id(0) * 8, 0))\n",
     "v = x_ref[...]\no_ref[...] = x_ref[pl.ds(pl.program_id(0) * 8, 8), pl.ds(0, 128)]\n"),
    ("dynamic_slice, sizes from a shape", "v = x_ref[...]\no_ref[...] = lax.dynamic_slice(v, (pl.program_id(0) * 8, 0), "
     "o_ref.shape)\n", "v = x_ref[...]\no_ref[...] = x_ref[pl.ds(pl.program_id(0) * 8, o_ref.shape[0]), "
     "pl.ds(0, o_ref.shape[1])]\n"),
    ("a lane start the compiler can prove", "v = x_ref[...]\no_ref[...] = lax.dynamic_slice(v, (0, pl.multiple_of("
     "pl.program_id(0) * 128, 128)), (8, 128))\n", "v = x_ref[...]\no_ref[...] = x_ref[pl.ds(0, 8), pl.ds(pl.multiple_of("
     "pl.program_id(0) * 128, 128), 128)]\n"),
    ("dynamic_slice_in_dim on axis 1 of 3, negative", "v = x_ref[...]\no_ref[...] = lax.dynamic_slice_in_dim(v, "
     "pl.program_id(0), 1, axis=-3)\n", "v = x_ref[...]\no_ref[...] = x_ref[..., pl.ds(pl.program_id(0), 1), :, :]\n"),
    ("dynamic_index_in_dim keeps its dimension", "v = x_ref[...]\no_ref[...] = lax.dynamic_index_in_dim(v, "
     "pl.program_id(0))\n", "v = x_ref[...]\no_ref[...] = x_ref[pl.ds(pl.program_id(0), 1)]\n"),
    ("pltpu.load", "v = pltpu.load(x_ref)\no_ref[...] = v[pl.program_id(0)]\n",
     "v = pltpu.load(x_ref)\no_ref[...] = x_ref[pl.program_id(0)]\n"),
    ("a store before the load", "x_ref[...] = x_ref[...] + 1\nv = x_ref[...]\no_ref[...] = v[pl.program_id(0)]\n",
     "x_ref[...] = x_ref[...] + 1\nv = x_ref[...]\no_ref[...] = x_ref[pl.program_id(0)]\n"),
    ("a store after the index", "v = x_ref[...]\no_ref[...] = v[pl.program_id(0)]\nx_ref[...] = v * 2\n",
     "v = x_ref[...]\no_ref[...] = x_ref[pl.program_id(0)]\nx_ref[...] = v * 2\n"),
    ("a store the index's own statement makes, after reading", "v = x_ref[...]\nx_ref[...] = jnp.broadcast_to("
     "v[pl.program_id(0)], x_ref.shape)\n", "v = x_ref[...]\nx_ref[...] = jnp.broadcast_to(x_ref[pl.program_id(0)], "
     "x_ref.shape)\n"),
    ("a loop that loads again before each index", "for k in range(2):\n    v = x_ref[...]\n    o_ref[...] = "
     "v[pl.program_id(0)]\n    x_ref[...] = v + 1\n", "for k in range(2):\n    v = x_ref[...]\n    o_ref[...] = "
     "x_ref[pl.program_id(0)]\n    x_ref[...] = v + 1\n"),
    ("a fori_loop's index, in its body", "v = x_ref[...]\ndef body(t, total):\n    return total + v[t]\n"
     "o_ref[...] = lax.fori_loop(0, 8, body, o_ref[...])\n",
     "v = x_ref[...]\ndef body(t, total):\n    return total + x_ref[t]\no_ref[...] = lax.fori_loop(0, 8, body, o_ref[...])\n"),
    ("a pl.loop's index", "v = x_ref[...]\n@pl.loop(0, 8)\ndef body(t):\n    o_ref[t] = v[t]\n",
     "v = x_ref[...]\n@pl.loop(0, 8)\ndef body(t):\n    o_ref[t] = x_ref[t]\n"),
    # (the comment lets the file through the prefilter's words: program_id, loop, ...)
    ("an index read from a ref", "# not program_id\nv = x_ref[...]\nj = o_ref[0, 0].astype(jnp.int32)\no_ref[...] = v[j]\n",
     "# not program_id\nv = x_ref[...]\nj = o_ref[0, 0].astype(jnp.int32)\no_ref[...] = x_ref[j]\n"),
    ("an index through arithmetic and unpacking", "v = x_ref[...]\nb, r = divmod(pl.program_id(0), 4)\n"
     "o_ref[...] = v[r + 1]\n", "v = x_ref[...]\nb, r = divmod(pl.program_id(0), 4)\no_ref[...] = x_ref[r + 1]\n"),
    ("the ref passed on with the index, read first", "v = x_ref[...]\nconsume(x_ref, v[pl.program_id(0)])\n",
     "v = x_ref[...]\nconsume(x_ref, x_ref[pl.program_id(0)])\n"),
    ("reads that write nothing, between", "v = x_ref[...]\nz = jnp.zeros_like(x_ref) if x_ref is not None else 0\n"
     "o_ref[...] = v[pl.program_id(0)] + z\n", "v = x_ref[...]\nz = jnp.zeros_like(x_ref) if x_ref is not None else 0\n"
     "o_ref[...] = x_ref[pl.program_id(0)] + z\n"),
    ("a pl.when body that stores before the load", "@pl.when(pl.program_id(0) == 0)\ndef init():\n"
     "    x_ref[...] = jnp.zeros_like(x_ref)\nv = x_ref[...]\no_ref[...] = v[pl.program_id(0)]\n",
     "@pl.when(pl.program_id(0) == 0)\ndef init():\n    x_ref[...] = jnp.zeros_like(x_ref)\nv = x_ref[...]\n"
     "o_ref[...] = x_ref[pl.program_id(0)]\n"),
    ("a call of its own before the load", "pltpu.sync_copy(o_ref, x_ref)\nv = x_ref[...]\no_ref[...] = "
     "v[pl.program_id(0)]\n", "pltpu.sync_copy(o_ref, x_ref)\nv = x_ref[...]\no_ref[...] = x_ref[pl.program_id(0)]\n"),
]


@pytest.mark.parametrize("body, expected", [case[1:] for case in FIXED], ids=[case[0] for case in FIXED])
def test_the_index_moves_onto_the_ref(body: str, expected: str) -> None:
    after, findings = _run(_module(body))
    assert _body_after(after) == expected
    assert [(kind, applicability) for _, kind, _, applicability in findings] == [("fixed", "unsafe")]
    assert ERROR in findings[0][2] and "which nothing writes in between" in findings[0][2]
    assert "a negative one faulted a TPU v5e" in findings[0][2]


def test_a_fix_that_needs_pl_imports_it() -> None:
    source = _module("v = x_ref[...]\no_ref[...] = lax.dynamic_slice(v, (i, 0), (8, 128))\n",
                     header="import jax\nfrom jax import lax\nfrom jax.experimental.pallas import pallas_call, "
                            "program_id\n\n\n",
                     launch="\n\ndef run(x, i):\n    return pallas_call(functools.partial(kernel), out_shape=x)(x)\n")
    source = source.replace("def kernel(x_ref, o_ref):\n", "def kernel(x_ref, o_ref):\n    i = program_id(0)\n")
    source = source.replace("import jax\n", "import functools\nimport jax\n", 1)
    after, findings = _run(source)
    assert after is not None and "from jax.experimental import pallas as pl\n" in after
    assert "o_ref[...] = x_ref[pl.ds(i, 8), pl.ds(0, 128)]\n" in after
    assert "from jax import lax\n" not in after  # the dynamic_slice was its only use
    assert [kind for _, kind, _, _ in findings] == ["fixed"]


# -- left alone --

ALONE = [
    ("a static index", "v = x_ref[...]\no_ref[...] = v[3]\n"),
    ("a static slice", "v = x_ref[...]\no_ref[...] = v[0:8]\n"),
    ("a Python loop's index", "v = x_ref[...]\nfor k in range(8):\n    o_ref[k] = v[k]\n"),
    ("the ref indexed", "o_ref[...] = x_ref[pl.program_id(0)]\n"),
    ("a static shape", "v = x_ref[...]\no_ref[...] = v[x_ref.shape[0] - 1]\n"),
    ("a length", "v = x_ref[...]\no_ref[...] = v[len(x_ref) - 1]\n"),
]


@pytest.mark.parametrize("body", [case[1] for case in ALONE], ids=[case[0] for case in ALONE])
def test_a_static_index_or_the_ref_itself_is_left_alone(body: str) -> None:
    assert _run(_module(body)) == (None, [])


def test_a_parameter_a_partial_binds_is_static() -> None:
    source = HEADER + "def kernel(x_ref, o_ref, row):\n    v = x_ref[...]\n    o_ref[...] = v[row]\n" \
        "\n\ndef run(x):\n    return pl.pallas_call(functools.partial(kernel, row=3), out_shape=x)(x)\n"
    assert _run(source) == (None, [])


def test_plain_xla_code_is_left_alone_unless_the_scope_is_all() -> None:
    source = HEADER + "def f(x, i):\n    return lax.dynamic_slice(x, (i, 0), (8, 128))\n" + LAUNCH
    assert _run(source) == (None, [])
    after, findings = _run(source, Settings((0, 12, 0, 1), Scope.ALL, unsafe_fixes=True))
    assert after is None and [kind for _, kind, _, _ in findings] == ["manual"]


def test_a_jax_whose_mosaic_tpu_lowers_dynamic_slice_gets_no_finding(monkeypatch) -> None:
    source = _module("v = x_ref[...]\no_ref[...] = v[pl.program_id(0)]\n")
    assert _run(source)[1]
    monkeypatch.setitem(capabilities.DYNAMIC_SLICE_OF_VALUES, "mosaic_tpu",
                        [(capabilities.Span(until=(0, 13)), False), (capabilities.Span(since=(0, 13)), True)])
    assert _run(source)[1]
    assert _run(source, Settings((0, 13, 0), unsafe_fixes=True)) == (None, [])
    assert _run(source, Settings(None, unsafe_fixes=True))[1]  # an unknown jax: not every release lowers it


def test_the_capability_row_says_no_release_lowers_it_yet() -> None:
    for version in ((0, 10, 2), (0, 12, 0, 1), None):
        assert not capabilities.lowers_dynamic_slice_of_values("mosaic_tpu", version)


# -- not fixed: something may write the ref, or the index cannot move --

NOT_FIXED = [
    ("a store between", "v = x_ref[...]\nx_ref[...] = v + 1\no_ref[...] = v[pl.program_id(0)]\n",
     "`x_ref` is stored to on line {3}, between the load and the index"),
    ("an augmented store between", "v = x_ref[...]\nx_ref[0] += 1\no_ref[...] = v[pl.program_id(0)]\n",
     "`x_ref` is stored to on line {3}, between the load and the index"),
    ("a call between", "v = x_ref[...]\npltpu.sync_copy(o_ref, x_ref)\no_ref[...] = v[pl.program_id(0)]\n",
     "`x_ref` is passed to `pltpu.sync_copy` on line {3}, between the load and the index"),
    ("a call whose result is used", "v = x_ref[...]\no_ref[...] = touch(x_ref) + v[pl.program_id(0)]\n",
     "`x_ref` is given another name or kept on line {3}"),
    ("a call in the index's statement, before it", "v = x_ref[...]\nfinish(touch(x_ref), v[pl.program_id(0)])\n",
     "`x_ref` is given another name or kept on line {3}"),
    ("an async copy, even before the load", "pltpu.make_async_copy(o_ref, x_ref, o_ref).start()\nv = x_ref[...]\n"
     "o_ref[...] = v[pl.program_id(0)]\n", "an async copy may land at any time"),
    ("another name, even before the load", "alias = x_ref\nv = x_ref[...]\nalias[...] = v + 1\n"
     "o_ref[...] = v[pl.program_id(0)]\n", "`x_ref` is given another name or kept on line {2}"),
    ("the ref again, through or", "other = x_ref or o_ref\nv = x_ref[...]\nother[...] = v + 1\n"
     "o_ref[...] = v[pl.program_id(0)]\n", "`x_ref` is given another name or kept on line {2}"),
    ("a view kept", "view = x_ref.at[0]\nv = x_ref[...]\no_ref[...] = v[pl.program_id(0)]\n",
     "`x_ref` is given another name or kept on line {2}"),
    ("a loop's back-edge", "v = x_ref[...]\nfor k in range(2):\n    o_ref[...] = v[pl.program_id(0)]\n"
     "    x_ref[...] = x_ref[...] + 1\n", "(the loop on line {3} runs it before the index again)"),
    ("a store in the loop body that indexes", "v = x_ref[...]\ndef body(t, total):\n    x_ref[t] = total\n"
     "    return total + v[t]\no_ref[...] = lax.fori_loop(0, 8, body, o_ref[...])\n",
     "`x_ref` is stored to on line {4}, in `body`, which may run between the load and the index"),
    ("a pl.when body that stores between", "v = x_ref[...]\n@pl.when(pl.program_id(0) == 0)\ndef init():\n"
     "    x_ref[...] = v + 1\no_ref[...] = v[pl.program_id(0)]\n", "`x_ref` is stored to on line {5}, between the load "
     "and the index"),
    ("a store in another nested function", "v = x_ref[...]\ndef clear():\n    x_ref[...] = 0\nclear()\n"
     "o_ref[...] = v[pl.program_id(0)]\n", "in `clear`, which may run between the load and the index"),
    ("a store after the load, the index in a closure", "v = x_ref[...]\nx_ref[...] = v + 1\ndef body(t, total):\n"
     "    return total + v[t]\no_ref[...] = lax.fori_loop(0, 8, body, o_ref[...])\n",
     "after the load, and the index runs in `body`, called later"),
    ("a name bound twice", "v = x_ref[...]\nif o_ref.shape[0] > 8:\n    v = x_ref[...] * 2\n"
     "o_ref[...] = v[pl.program_id(0)]\n", "`v` is bound on lines {2}, {4}, not once"),
    ("a computed value", "v = jnp.tanh(x_ref[...])\no_ref[...] = v[pl.program_id(0)]\n",
     "it is computed by jnp.tanh(...)"),
    ("a part of the ref", "v = x_ref[0:8]\no_ref[...] = v[pl.program_id(0)]\n", "it is a part of `x_ref`"),
    ("a cast load", "v = x_ref[...].astype(jnp.float32)\no_ref[...] = v[pl.program_id(0)]\n",
     "it is `.astype(...)` of a loaded value"),
    ("a masked load", "v = pltpu.load(x_ref, mask=o_ref[...] > 0)\no_ref[...] = v[pl.program_id(0)]\n",
     "is a masked load"),
    ("a lane index", "v = x_ref[...]\no_ref[...] = v[:, pl.program_id(0)]\n",
     "a traced index after the first dimension may be in the last"),
    ("a lane start", "v = x_ref[...]\no_ref[...] = lax.dynamic_slice(v, (0, pl.program_id(0)), (8, 1))\n",
     "its start in the last dimension is traced"),
    ("a lane axis", "v = x_ref[...]\no_ref[...] = lax.dynamic_index_in_dim(v, pl.program_id(0), axis=-1)\n",
     "its start in the last dimension is traced"),
    ("starts not written out", "v = x_ref[...]\nstarts = (pl.program_id(0), 0)\n"
     "o_ref[...] = lax.dynamic_slice(v, starts, SIZES)\n", "its starts and sizes are not written out"),
    ("an axis not written out", "v = x_ref[...]\no_ref[...] = lax.dynamic_slice_in_dim(v, pl.program_id(0), 1, "
     "axis=AXIS)\n", "its axis is not a number written in the call"),
    ("arguments unpacked", "v = x_ref[...]\no_ref[...] = lax.dynamic_slice(*args)\n",
     "its arguments are not written out"),
]


@pytest.mark.parametrize("body, why", [case[1:] for case in NOT_FIXED], ids=[case[0] for case in NOT_FIXED])
def test_what_may_be_written_in_between_or_cannot_move_is_a_note_not_a_fix(body: str, why: str) -> None:
    after, findings = _run(_module(body))
    assert after is None
    assert [(kind, applicability) for _, kind, _, applicability in findings] == [("manual", None)]
    assert why.format(*BODY) in findings[0][2] and ERROR in findings[0][2]


def test_an_index_of_an_indexed_value_is_a_note_beside_the_fix_of_the_first() -> None:
    after, findings = _run(_module("v = x_ref[...]\no_ref[...] = v[pl.program_id(0)][pl.program_id(1)]\n"))
    assert "o_ref[...] = x_ref[pl.program_id(0)][pl.program_id(1)]\n" in after
    assert [kind for _, kind, _, _ in findings] == ["fixed", "manual"]
    assert "it is a part of a loaded value (index the ref once: `x_ref[i, j]`)" in findings[1][2]


def test_a_ref_that_is_no_parameter_may_have_other_names() -> None:
    source = HEADER + "def kernel(*refs):\n    x_ref, o_ref = refs\n    v = x_ref[...]\n" \
        "    o_ref[...] = v[pl.program_id(0)]\n" + LAUNCH
    after, findings = _run(source)
    assert after is None and "`x_ref` is not a parameter of the kernel bound once" in findings[0][2]


def test_a_shadowed_ref_name_is_a_note() -> None:
    body = "v = x_ref[...]\ndef body(x_ref, total):\n    return total + v[x_ref]\n" \
           "o_ref[...] = lax.fori_loop(0, 8, body, o_ref[...])\n"
    after, findings = _run(_module(body))
    assert after is None and "`x_ref` names something else where the index is" in findings[0][2]


# -- explain --

TRACEBACK = """Traceback (most recent call last):
  File "m.py", line {line}, in kernel
    {code}
jax._src.source_info_util.JaxStackTraceBeforeTransformation: NotImplementedError: {error}. Please file an issue at https://github.com/jax-ml/jax/issues/new/choose.
"""


def test_explain_reads_the_error_as_jax006() -> None:
    errors = parse_log(TRACEBACK.format(line=3, code="o_ref[...] = v[i]", error=ERROR))
    assert [(error.rule, error.message) for error in errors] == [("JAX006", ERROR)]
    other = ERROR.replace("dynamic_slice", "dynamic_slice_p2")
    assert parse_log(TRACEBACK.format(line=3, code="x", error=other)) == []


def test_locate_finds_the_index_on_the_traceback_line() -> None:
    source = _module("v = x_ref[...]\ni = helper()\no_ref[...] = jnp.broadcast_to(\n    v[i], o_ref.shape)\n"
                     "o_ref[0] = x_ref[i]\n")
    start = source[:source.index("def kernel")].count("\n")
    file = ParsedFile(Path("m.py"), ModuleIndex.parse(source), TARGET)
    assert RULE.locate(RULE, file, start + 5) == (start + 5, start + 5)  # v[i] on its line
    assert RULE.locate(RULE, file, start + 6) is None  # the ref indexed
    assert RULE.locate(RULE, file, start + 2) is None  # the load


def test_a_proven_line_is_fixed_where_the_analysis_cannot_see_the_index_traced() -> None:
    """`helper()` may return a static int, so nothing is said without the traceback; with it, the
    index is proven traced and the kernel a Mosaic TPU one."""
    source = _module("v = x_ref[...]\ni = helper()\no_ref[...] = v[i]\n")
    assert _run(source) == (None, [])
    line = source.count("\n", 0, source.index("o_ref[...] = v[i]")) + 1
    after, findings = _run(source, proven={"JAX006": frozenset({line})})
    assert "o_ref[...] = x_ref[i]\n" in after and [kind for _, kind, _, _ in findings] == ["fixed"]


def test_a_name_rebound_from_itself_ends() -> None:
    """`v = v.astype(...)`, `w = w.T + w`: the value is followed a bounded number of steps."""
    body = "v = x_ref[...]\nv = v.astype(jnp.float32)\nw = w * 2 + w\no_ref[...] = v[pl.program_id(0)] + w[pl.program_id(0)]\n"
    after, findings = _run(_module(body))
    assert after is None and [kind for _, kind, _, _ in findings] == ["manual"]
    assert "`v` is bound on lines" in findings[0][2]


def test_a_helpers_parameter_is_traced_where_the_module_passes_a_traced_value() -> None:
    source = HEADER + "def row(x_ref, o_ref, i):\n    v = x_ref[...]\n    o_ref[...] = v[i]\n\n\n" \
        "def kernel(x_ref, o_ref):\n    row(x_ref, o_ref, pl.program_id(0))\n" + LAUNCH
    after, findings = _run(source)
    assert "    o_ref[...] = x_ref[i]\n" in after and [kind for _, kind, _, _ in findings] == ["fixed"]
    static = source.replace("row(x_ref, o_ref, pl.program_id(0))", "row(x_ref, o_ref, 3)  # not program_id")
    assert _run(static) == (None, [])


def test_a_function_a_launch_the_analysis_cannot_resolve_may_run_gets_a_note() -> None:
    source = HEADER + "def body(x_ref, o_ref):\n    v = x_ref[...]\n    i = pl.program_id(0)\n" \
        "    o_ref[...] = v[i] + lax.dynamic_slice(v, (i, 0), (8, 128))\n\n\n" \
        "def run(x, name):\n    return pl.pallas_call(globals()[name], out_shape=x)(x)\n"
    after, findings = _run(source)
    assert after is None and [kind for _, kind, _, _ in findings] == ["manual", "manual"]
    assert all("may run in a kernel" in message and "`body` may be it" in message and ERROR in message
               for _, _, message, _ in findings), findings
