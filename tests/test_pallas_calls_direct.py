"""codemods/upgrades/pallas_calls.py (JAX150 pl.dot, JAX170 pltpu.repeat, JAX171 pl.load/store, JAX172
compiler_params dicts, JAX173 BlockSpec order) run in the test's process (issue 35, item 3: mutation
testing).

Each outcome test runs one rule on a small module and checks the exact text it becomes and every
finding (line, column, kind, message, applicability); the helpers (`_bind`, `_literal`, `_Code`,
`_primary`, `_reshape`, `_cut`, `_pairs`) are called directly. No jax, no subprocess.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from codemods import registry
from codemods.engine.runner import process_source
from codemods.settings import Settings
from codemods.upgrades.pallas_calls import (_DOT, _REPEAT, _bind, _Code, _cut, _literal, _New, _pairs, _primary,
                                            _reshape)

TARGET = Settings((0, 12, 0, 1), unsafe_fixes=True)
PL = "from jax.experimental import pallas as pl\n\n"
PLTPU = "from jax.experimental.pallas import tpu as pltpu\n\n"

DOT = ("pl.dot -> jnp.dot: removed in jax 0.11.2 (raises AttributeError on jax 0.12.0.1); unsafe: the result is "
       "float32, as pl.dot's was for floating operands; pl.dot gave int32 for integer operands (and float64 for "
       "float64 ones)")
DOT_WANTED = "jnp.dot(a, b, precision=..., preferred_element_type=jnp.float32), with a.T / b.T for trans_a / trans_b"
DOT_GONE = "pl.dot: removed in jax 0.11.2 (raises AttributeError on jax 0.12.0.1)"
REPEAT_GONE = "removed in jax 0.10.2 (raises AttributeError on jax 0.12.0.1)"
TILE = "jnp.tile(x, [repeats if i == axis else 1 for i in range(x.ndim)])"
REPEAT_TILE = f"pltpu.repeat -> jnp.tile: {REPEAT_GONE}; tiles along the axis, as pltpu.repeat did"
REPEAT_CONCAT = f"pltpu.repeat -> jnp.concatenate: {REPEAT_GONE}; tiles along the axis, as pltpu.repeat did"
REPEAT_MANUAL = (f"pltpu.repeat: {REPEAT_GONE}; repeats is no literal count, and axis no literal negative int: {TILE}")
LS_GONE = "removed in jax 0.9.0 (raises AttributeError on jax 0.12.0.1)"
LOAD = f"pl.load -> ref[idx]: {LS_GONE}"
STORE = f"pl.store -> ref[idx] = val: {LS_GONE}"
MASKED = ("a masked load or store: jax.experimental.pallas.triton.load(ref.at[idx], mask=...) / store(ref.at[idx], "
          "value, mask=...) in Triton kernels (since 0.7.1)")
PARAMS = "compiler_params=dict(...)"
PARAMS_GONE = "removed in jax 0.6.1 (raises TypeError on jax 0.12.0.1)"
ONE_OBJECT = ("pass one CompilerParams object: pltpu.CompilerParams(...), plt.CompilerParams(...) or "
              "plgpu.CompilerParams(...)")
SPEC = ("pl.BlockSpec(index_map, block_shape) -> {}: removed in jax 0.4.35 (raises TypeError in pallas_call "
        "('function' object is not iterable) on jax 0.12.0.1)")
SWAPPED, KEYWORD = SPEC.format("pl.BlockSpec(block_shape, index_map)"), SPEC.format("pl.BlockSpec(index_map=...)")
IMPORT_JNP = "import jax.numpy as jnp\n"


def _run(source: str, code: str, settings: Settings = TARGET):
    result = process_source(Path("m.py"), source.encode(), registry.select([code]), settings)
    assert result.error is None, result.error
    return (result.after or source), [(f.line, f.column, f.kind.value, f.message,
                                        f.fix.applicability.value if f.fix else None) for f in result.findings]


def _imports(*lines: str) -> str:
    return "from jax.experimental import pallas as pl\n" + "".join(lines) + "\n"


# -- JAX150: pl.dot --

@pytest.mark.parametrize(("line", "after", "finding"), [
    ("y = pl.dot(a, b, True, True)", "y = jnp.dot(a.T, b.T, preferred_element_type=jnp.float32)", DOT),
    ("y = pl.dot(a + 1, b, trans_a=True)", "y = jnp.dot((a + 1).T, b, preferred_element_type=jnp.float32)", DOT),
    ("y = pl.dot(a=x, b=y2, trans_b=True)", "y = jnp.dot(a=x, b=y2.T, preferred_element_type=jnp.float32)", DOT),
    ("y = pl.dot(b=y2, a=x, trans_a=True)", "y = jnp.dot(b=y2, a=x.T, preferred_element_type=jnp.float32)", DOT),
    ("y = pl.dot(a, b, precision=P)", "y = jnp.dot(a, b, precision=P, preferred_element_type=jnp.float32)", DOT),
    ("y = pl.dot(a, b, False, False, False, P)", None,
     f"{DOT_GONE}; allow_tf32 is not a literal True or False, or comes with a precision (pl.dot raised then): jnp.dot "
     "with precision=lax.Precision.HIGH where allow_tf32 is true, HIGHEST where it is false"),
    ("y = pl.dot(a, b, trans_a=False, trans_b=False)", "y = jnp.dot(a, b, preferred_element_type=jnp.float32)", DOT),
    ("y = pl.dot(a, b)", "y = jnp.dot(a, b, preferred_element_type=jnp.float32)", DOT),
    ("y = pl.dot(a, b,)", "y = jnp.dot(a, b, preferred_element_type=jnp.float32,)", DOT),
    ("y = pl.dot(a,b)", "y = jnp.dot(a,b,preferred_element_type=jnp.float32)", DOT),
    ("y = pl.dot(a, b, trans_a=flag)", None, f"{DOT_GONE}; trans_a is not a literal True or False: {DOT_WANTED}"),
    ("y = pl.dot(a, b, trans_b=1)", None, f"{DOT_GONE}; trans_b is not a literal True or False: {DOT_WANTED}"),
    ("y = pl.dot(a, b, allow_tf32=1)", None,
     f"{DOT_GONE}; allow_tf32 is not a literal True or False, or comes with a precision (pl.dot raised then): jnp.dot "
     "with precision=lax.Precision.HIGH where allow_tf32 is true, HIGHEST where it is false"),
    ("y = pl.dot(b=b)", None, f"{DOT_GONE}; arguments that do not bind to pl.dot{_DOT}: {DOT_WANTED}"),
    ("y = pl.dot(a, b, False, False, None, P)", "y = jnp.dot(a, b, precision=P, preferred_element_type=jnp.float32)",
     DOT),  # jnp.dot takes precision by keyword only
    ("y = pl.dot(x[0], y[1].z, trans_a=True, trans_b=True)",
     "y = jnp.dot(x[0].T, y[1].z.T, preferred_element_type=jnp.float32)", DOT),
], ids=["positional-flags", "expression-operand", "keyword-operands", "keyword-operands-swapped", "precision",
        "tf32-false-with-precision", "false-flags", "plain", "trailing-comma", "no-spaces", "flag-not-literal",
        "flag-an-int", "tf32-an-int", "no-a", "positional-precision", "subscripts"])
def test_dot(line: str, after, finding: str) -> None:
    source = _imports() + line + "\n"
    expected = source if after is None else IMPORT_JNP + "\n" + after + "\n"  # the pl import goes with its use
    kind = "manual" if after is None else "fixed"
    assert _run(source, "JAX150") == (expected, [(3, 5, kind, finding, "unsafe" if after else None)])


@pytest.mark.parametrize(("line", "precision"), [
    ("y = pl.dot(a, b, allow_tf32=False)", "HIGHEST"), ("y = pl.dot(a, b, allow_tf32=True)", "HIGH"),
    ("y = pl.dot(a, b, False, False, True)", "HIGH"), ("y = pl.dot(a, b, allow_tf32=False, precision=None)", "HIGHEST"),
])
def test_dot_allow_tf32_becomes_the_precision_it_meant(line: str, precision: str) -> None:
    source = _imports() + line + "\n"
    assert _run(source, "JAX150") == (
        IMPORT_JNP + "from jax import lax\n\n"
        + f"y = jnp.dot(a, b, precision=lax.Precision.{precision}, preferred_element_type=jnp.float32)\n",
        [(3, 5, "fixed", DOT, "unsafe")])


@pytest.mark.parametrize(("taken", "name"), [("jax = jnp = dot = None", "jnp"), ("jax = jnp = float32 = None", "jnp"),
                                            ("jax = lax = Precision = None", "lax")])
def test_dot_where_the_names_it_needs_are_taken_is_left_to_a_person(taken: str, name: str) -> None:
    source = _imports() + taken + "\ny = pl.dot(a, b, allow_tf32=True)\n"
    assert _run(source, "JAX150") == (source, [(4, 5, "manual", f"{DOT_GONE}; {DOT_WANTED} (the name {name} is taken here)",
                                                None)])


def test_dot_keeps_the_layout_and_drops_a_flags_line_with_its_comment() -> None:
    source = _imports() + "s = pl.dot(a, b,\n           trans_a=True,  # why\n           precision=P)\n"
    assert _run(source, "JAX150") == (
        IMPORT_JNP + "\ns = jnp.dot(a.T, b,\n           precision=P, preferred_element_type=jnp.float32)\n",
        [(3, 5, "fixed", DOT, "unsafe")])


def test_dot_after_a_comment_separates_the_new_argument_with_a_plain_comma() -> None:
    source = _imports() + "s = pl.dot(\n    a,  # left\n    b\n)\n"
    assert _run(source, "JAX150")[0] == (
        IMPORT_JNP + "\ns = jnp.dot(\n    a,  # left\n    b, preferred_element_type=jnp.float32\n)\n")


def test_dot_in_a_triton_kernel_is_the_triton_dot() -> None:
    source = _imports() + ("def kernel(x, y, o):\n    o[...] = pl.dot(x[...], y[...], trans_b=True)\n"
                           "f = pl.pallas_call(kernel, out_shape=None, backend='triton')\n")
    assert _run(source, "JAX150") == (
        _imports("import jax.experimental.pallas.triton as plt\n") + source[len(_imports()):].replace("pl.dot", "plt.dot"),
        [(4, 14, "fixed", "pl.dot -> plt.dot: removed in jax 0.11.2 (raises AttributeError on jax 0.12.0.1); the same "
                          "function, in a Triton kernel", "safe")])
    held = _run(source, "JAX150", Settings(TARGET.jax_version, jax_floor=(0, 10, 1), unsafe_fixes=True))
    assert held == (source, [(4, 14, "manual", f"{DOT_GONE}; in Triton kernels: plt.dot (since jax 0.10.2; the project "
                                               "supports jax 0.10.1), or jnp.dot", None)])
    assert _run(source, "JAX150", Settings(TARGET.jax_version, jax_floor=(0, 10, 2), unsafe_fixes=True))[1][0][2] == "fixed"


# -- JAX170: pltpu.repeat --

@pytest.mark.parametrize(("line", "after", "finding"), [
    ("y = pltpu.repeat(v, 2, -1)", "y = jnp.tile(v, (2,))", REPEAT_TILE),
    ("y = pltpu.repeat(v, 3, -3)", "y = jnp.tile(v, (3, 1, 1))", REPEAT_TILE),
    ("y = pltpu.repeat(v, 2, axis=-2)", "y = jnp.tile(v, (2, 1))", REPEAT_TILE),
    ("y = pltpu.repeat(v, n, -1)", "y = jnp.tile(v, (n,))", REPEAT_TILE),
    ("y = pltpu.repeat(v, 3, 0)", "y = jnp.concatenate([v] * 3, axis=0)", REPEAT_CONCAT),
    ("y = pltpu.repeat(v, 1, 2)", "y = jnp.concatenate([v] * 1, axis=2)", REPEAT_CONCAT),
    ("y = pltpu.repeat(v + 1, repeats=2, axis=1)", "y = jnp.concatenate([v + 1] * 2, axis=1)", REPEAT_CONCAT),
    ("y = pltpu.repeat(v, 0, 1)", None, REPEAT_MANUAL),
    ("y = pltpu.repeat(v, n, 1)", None, REPEAT_MANUAL),
    ("y = pltpu.repeat(v, True, 1)", None, REPEAT_MANUAL),
    ("y = pltpu.repeat(v, 2, True)", "y = jnp.concatenate([v] * 2, axis=True)", REPEAT_CONCAT),
    ("y = pltpu.repeat(v, 2, ax)", "y = jnp.concatenate([v] * 2, axis=ax)", REPEAT_CONCAT),
    ("y = pltpu.repeat(v, 2)", None,
     f"pltpu.repeat: {REPEAT_GONE}; arguments that do not bind to pltpu.repeat{_REPEAT}: {TILE}"),
    ("y = pltpu.repeat(v, 2, 1, 0)", None,
     f"pltpu.repeat: {REPEAT_GONE}; arguments that do not bind to pltpu.repeat{_REPEAT}: {TILE}"),
    ("y = pltpu.repeat(repeats=2, x=v, axis=-1)", None, f"pltpu.repeat: {REPEAT_GONE}; repeats before x: {TILE}"),
    ("y = pltpu.repeat(v, axis=-1, repeats=2)", "y = jnp.tile(v, (2,))", REPEAT_TILE),
], ids=["tile-last", "tile-third-last", "tile-keyword-axis", "tile-any-count", "concatenate-first", "one-copy",
        "concatenate-keywords", "zero", "count-not-literal", "count-a-bool", "axis-a-bool", "axis-a-name",
        "no-axis", "too-many", "repeats-before-x", "axis-before-repeats"])
def test_repeat(line: str, after, finding: str) -> None:
    source = PLTPU + line + "\n"
    expected = source if after is None else IMPORT_JNP + "\n" + after + "\n"
    assert _run(source, "JAX170") == (expected, [(3, 5, "manual" if after is None else "fixed", finding,
                                                  None if after is None else "safe")])


# -- JAX171: pl.load / pl.store --

@pytest.mark.parametrize(("line", "after", "finding"), [
    ("y = pl.load(ref, (0, 1))", "y = ref[0, 1]", LOAD),
    ("y = pl.load(ref, (i,))", "y = ref[i,]", LOAD),
    ("y = pl.load(a.b, idx)", "y = a.b[idx]", LOAD),
    ("y = pl.load(f(), idx)", "y = f()[idx]", LOAD),
    ("y = pl.load(r[0], idx)", "y = r[0][idx]", LOAD),
    ("y = pl.load(a + b, idx)", "y = (a + b)[idx]", LOAD),
    ("y = pl.load(ref, ())", "y = ref[()]", LOAD),
    ("y = pl.load(ref, (*a, 1))", "y = ref[(*a, 1)]", LOAD),
    ("y = pl.load(x_ref_or_view=ref, idx=i)", "y = ref[i]", LOAD),
    ("y = pl.load(ref, i, volatile=False)", "y = ref[i]", LOAD),
    ("y = pl.load(ref, i, mask=None, other=None, cache_modifier=None, eviction_policy=None)", "y = ref[i]", LOAD),
    ("y = pl.load(ref, i, mask=m)", None, f"pl.load: {LS_GONE}; {MASKED}"),
    ("y = pl.load(ref, i, other=0)", None, f"pl.load: {LS_GONE}; {MASKED}"),
    ("y = pl.load(ref, i, volatile=True)", None, f"pl.load: {LS_GONE}; {MASKED}"),
    ("y = pl.load(ref, i, cache_modifier='.cg')", None, f"pl.load: {LS_GONE}; {MASKED}"),
    ("y = pl.load(ref, i, eviction_policy=e)", None, f"pl.load: {LS_GONE}; {MASKED}"),
    ("y = pl.load(ref)", None,
     f"pl.load: {LS_GONE}; arguments that do not bind to pl.load('x_ref_or_view', 'idx'): ref[idx]"),
    ("y = pl.load(ref, i, val=1)", None,
     f"pl.load: {LS_GONE}; arguments that do not bind to pl.load('x_ref_or_view', 'idx'): ref[idx]"),
    ("y = pl.load", None, f"pl.load: {LS_GONE}; not a call this tool can rewrite: ref[idx]"),
    ("y = pl.load(*a)", None, f"pl.load: {LS_GONE}; not a call this tool can rewrite: ref[idx]"),
], ids=["tuple", "one-tuple", "attribute-ref", "call-ref", "subscript-ref", "expression-ref", "empty-tuple",
        "starred-tuple", "keywords", "volatile-false", "defaults", "mask", "other", "volatile", "cache-modifier",
        "eviction-policy", "no-idx", "store-keyword", "not-called", "star-args"])
def test_load(line: str, after, finding: str) -> None:
    source = PL + line + "\n"
    expected = source if after is None else "\n" + after + "\n"  # the pl import goes with its use
    assert _run(source, "JAX171") == (expected, [(3, 5, "manual" if after is None else "fixed", finding, None if after
                                                  is None else "safe")])


@pytest.mark.parametrize(("line", "after", "finding"), [
    ("pl.store(ref, (i, j), v)", "ref[i, j] = v", STORE),
    ("pl.store(ref, 0, val=(w := 1))", "ref[0] = (w := 1)", STORE),
    ("pl.store(ref + 1, (), v)", "(ref + 1)[()] = v", STORE),
    ("pl.store(ref, i, v + 1)", "ref[i] = v + 1", STORE),
    ("pl.store(ref, i, v, mask=None, eviction_policy=None)", "ref[i] = v", STORE),
    ("pl.store(ref, i, v, eviction_policy='x')", None, f"pl.store: {LS_GONE}; {MASKED}"),
    ("pl.store(ref, i, v, mask=m)", None, f"pl.store: {LS_GONE}; {MASKED}"),
    ("pl.store(ref, i)", None,
     f"pl.store: {LS_GONE}; arguments that do not bind to pl.store('x_ref_or_view', 'idx', 'val'): ref[idx] = val"),
    ("pl.store(ref, i, v, volatile=False)", None,
     f"pl.store: {LS_GONE}; arguments that do not bind to pl.store('x_ref_or_view', 'idx', 'val'): ref[idx] = val"),
    ("y = pl.store(ref, i, v)", None, f"pl.store: {LS_GONE}; its value (None) is used: ref[idx] = val is a statement"),
], ids=["tuple", "walrus-value", "expression-ref", "expression-value", "defaults", "eviction-policy", "mask",
        "no-val", "load-option", "value-used"])
def test_store(line: str, after, finding: str) -> None:
    source = PL + line + "\n"
    expected = source if after is None else "\n" + after + "\n"
    column = 5 if line.startswith("y") else 1
    assert _run(source, "JAX171") == (expected, [(3, column, "manual" if after is None else "fixed", finding,
                                                  None if after is None else "safe")])


def test_load_inside_a_store_is_made_first() -> None:
    source = PL + "pl.store(o, i, pl.load(x, (j, k)) + 1)\n"
    after, findings = _run(source, "JAX171")
    assert after == "\no[i] = x[j, k] + 1\n"
    assert sorted(f[:3] for f in findings) == [(3, 1, "fixed"), (3, 16, "fixed")]


# -- JAX172: compiler_params dicts --

CALL = "f = pl.pallas_call(k, out_shape=None, compiler_params={})\n"


@pytest.mark.parametrize(("params", "imports", "after", "finding"), [
    ("dict(mosaic=dict(vmem_limit_bytes=1, flags={}))", "import jax.experimental.pallas.tpu as pltpu\n",
     "pltpu.CompilerParams(vmem_limit_bytes=1, flags={})", f"{PARAMS} -> pltpu.CompilerParams(...): {PARAMS_GONE}"),
    ('{"triton": {"num_warps": 4, "num_stages": n}}', "import jax.experimental.pallas.triton as plt\n",
     "plt.CompilerParams(num_warps=4, num_stages=n)", f"{PARAMS} -> plt.CompilerParams(...): {PARAMS_GONE}"),
    ('{"mosaic_gpu": {"approx_math": True}}', "import jax.experimental.pallas.mosaic_gpu as plgpu\n",
     "plgpu.CompilerParams(approx_math=True)", f"{PARAMS} -> plgpu.CompilerParams(...): {PARAMS_GONE}"),
    ("dict(mosaic=dict())", "import jax.experimental.pallas.tpu as pltpu\n", "pltpu.CompilerParams()",
     f"{PARAMS} -> pltpu.CompilerParams(...): {PARAMS_GONE}"),
    ("{}", "", "None", f"{PARAMS} -> None: {PARAMS_GONE}; the empty dict asked for nothing"),
    ("dict()", "", "None", f"{PARAMS} -> None: {PARAMS_GONE}; the empty dict asked for nothing"),
    ("dict(mosaic_tpu=pltpu.CompilerParams(x=1))", None, None, f"{PARAMS}: {PARAMS_GONE}; {ONE_OBJECT}"),
    ('{"mosaic_gpu": dict(foo=1, bar=2)}', None, None,
     f"{PARAMS}: {PARAMS_GONE}; bar, foo: not a parameter of plgpu.CompilerParams in every release that has it"),
    ('{"mosaic": {1: 2}}', None, None,
     f"{PARAMS}: {PARAMS_GONE}; None: not a parameter of pltpu.CompilerParams in every release that has it"),
    ("dict(triton=params)", None, None, f"{PARAMS}: {PARAMS_GONE}; {ONE_OBJECT}"),
    ("{1: {}}", None, None, f"{PARAMS}: {PARAMS_GONE}; {ONE_OBJECT}"),
    ("{**d}", None, None, f"{PARAMS}: {PARAMS_GONE}; {ONE_OBJECT}"),
    ("dict(mosaic_tpu=make())", None, None, f"{PARAMS}: {PARAMS_GONE}; {ONE_OBJECT}"),
    ("dict(mosaic={}, triton={})", None, None,
     f"{PARAMS}: {PARAMS_GONE}; {ONE_OBJECT}; a dict for several backends must be split by backend"),
    ("dict(other={})", None, None, f"{PARAMS}: {PARAMS_GONE}; {ONE_OBJECT}"),
], ids=["mosaic", "triton", "mosaic-gpu", "mosaic-empty", "empty-display", "empty-call", "tpu-object-of-other-module",
        "unknown-keys", "key-not-a-string", "not-a-dict", "key-not-a-string-outer", "double-star", "object-unknown",
        "two-backends", "unknown-backend"])
def test_dict_params(params: str, imports, after, finding: str) -> None:
    source = PL + CALL.format(params)
    expected = source if after is None else (PL.replace("\n\n", "\n" + imports + "\n") + CALL.format(after))
    assert _run(source, "JAX172") == (expected, [(3, 55, "manual" if after is None else "fixed", finding,
                                                  None if after is None else "safe")])


def test_dict_params_unwraps_a_compiler_params_object_by_its_backend_key() -> None:
    source = ("from jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\n\n"
              + CALL.format("dict(mosaic_tpu=pltpu.CompilerParams(x=1))")
              + CALL.format("{'triton': pltpu.CompilerParams()}"))
    assert _run(source, "JAX172") == (
        source.replace("dict(mosaic_tpu=pltpu.CompilerParams(x=1))", "pltpu.CompilerParams(x=1)")
        .replace("{'triton': pltpu.CompilerParams()}", "pltpu.CompilerParams()"),
        [(line, 55, "fixed", f"{PARAMS} -> the CompilerParams object: {PARAMS_GONE}; jax takes it alone since 0.6.1",
          "safe") for line in (4, 5)])


@pytest.mark.parametrize("source", [
    PL + "f = other(k, compiler_params=dict(num_threads=4))\n",  # (a Pallas backend's key handed on: unsafe, test_upgrade_edges)
    PL + "dict = make\nf = pl.pallas_call(k, compiler_params=dict(mosaic={}))\n",
    PL + "f = pl.pallas_call(k, compiler_params=params)\n",
    PL + "f = pl.pallas_call(k, compiler_params=dict({'mosaic': {}}))\n",
    PL + "f = pl.pallas_call(k, params=dict(mosaic={}))\n",
    PL + "f = pl.pallas_call(k, compiler_params=pl.CompilerParams())\n",
], ids=["not-pallas-call-nor-backend-key", "dict-rebound", "a-name", "dict-positional", "other-keyword", "an-object"])
def test_dict_params_are_only_dicts_in_a_pallas_call(source: str) -> None:
    assert _run(source, "JAX172") == (source, [])


def test_dict_params_spelled_through_a_name_taken_are_left_to_a_person() -> None:
    source = PL + "pltpu = jax = CompilerParams = None\n" + CALL.format("dict(mosaic=dict(flags=1))")
    assert _run(source, "JAX172") == (source, [(4, 55, "manual", f"{PARAMS}: {PARAMS_GONE}; pltpu.CompilerParams(...) "
                                                                 "(its module's usual name is taken here)", None)])


# -- JAX173: BlockSpec order --

SPEC_HEAD = PL + "import functools\n\ndef imap(i):\n    return (i,)\np = functools.partial(max, 0)\n"


@pytest.mark.parametrize(("line", "after", "finding"), [
    ("s = pl.BlockSpec(imap, (8,))", "s = pl.BlockSpec((8,), imap)", SWAPPED),
    ("s = pl.BlockSpec(lambda i: (i,))", "s = pl.BlockSpec(index_map=lambda i: (i,))", KEYWORD),
    ("s = pl.BlockSpec(p, block_shape=(8,))", "s = pl.BlockSpec(index_map=p, block_shape=(8,))", KEYWORD),
    ("s = pl.BlockSpec(imap,  # the map\n                 (8, 8))", "s = pl.BlockSpec((8, 8),  # the map\n                 imap)",
     SWAPPED),
    ("s = pl.BlockSpec(g, (8,))", "s = pl.BlockSpec((8,), g)", SWAPPED),
    ("s = pl.BlockSpec((8,), imap)", None, None),
    ("s = pl.BlockSpec(q, (8,))", None, None),
    ("s = pl.BlockSpec(imap, index_map=f)", None, None),
    ("s = pl.BlockSpec(imap, (8,), block_shape=f)", None, None),
    ("s = pl.BlockSpec(*a)", None, None),
    ("s = pl.BlockSpec()", None, None),
    ("s = pl.BlockSpec", None, None),
    ("s = pl.BlockSpec(n, (8,))", None, None),
    ("s = pl.BlockSpec(m, (8,))", None, None),
], ids=["swapped", "lambda-alone", "partial-with-block-shape", "lines", "async-def", "new-order", "unbound",
        "index-map-twice", "block-shape-twice", "star-args", "no-arguments", "not-called", "bound-to-other-too",
        "bound-to-other-call"])
def test_block_spec(line: str, after, finding) -> None:
    head = SPEC_HEAD + "async def g(i):\n    return (i,)\nn = imap\nn = 1\nm = make(0)\n"
    source = head + line + "\n"
    line_number = head.count("\n") + 1
    expected = (source, []) if after is None else (head + after + "\n", [(line_number, 5, "fixed", finding, "safe")])
    assert _run(source, "JAX173") == expected


# -- the helpers --

def _parsed(source: str) -> ast.Call:
    node = ast.parse(source, mode="eval").body
    assert isinstance(node, ast.Call)
    return node


@pytest.mark.parametrize(("source", "expected"), [
    ("f(a, b)", {"x": "a", "repeats": "b"}),
    ("f(a, b, c)", {"x": "a", "repeats": "b", "axis": "c"}),
    ("f(a, axis=c)", {"x": "a", "axis": "axis=c"}),  # the keyword itself
    ("f(a, b, c, d)", None),
    ("f(a, x=b)", None),
    ("f(a, foo=b)", None),
    ("f(*a)", None),
    ("f(a, **k)", None),
    ("f()", {}),
])
def test_bind(source: str, expected) -> None:
    bound = _bind(_parsed(source), _REPEAT)
    assert (bound if bound is None else {k: ast.unparse(v) for k, v in bound.items()}) == expected


def test_bind_takes_the_keyword_only_parameters_given_and_no_others() -> None:
    bound = _bind(_parsed("f(r, i, mask=m)"), ("x", "idx"), ("mask",))
    assert bound is not None and {k: ast.unparse(v) for k, v in bound.items()} == {"x": "r", "idx": "i", "mask": "mask=m"}
    assert _bind(_parsed("f(r, i, mask=m)"), ("x", "idx")) is None
    assert _bind(_parsed("f(r, i, other=m)"), ("x", "idx"), ("mask",)) is None


@pytest.mark.parametrize(("source", "expected"), [
    ("f(1)", 1), ("f(-1)", -1), ("f(-0)", 0), ("f(True)", True), ("f(None)", None), ("f('s')", "s"), ("f(x)", ...),
    ("f(-x)", ...), ("f(-1.5)", ...), ("f(-True)", ...), ("f(+1)", ...), ("f(~1)", ...), ("f(k=2)", 2), ("f(k=-3)", -3),
])
def test_literal(source: str, expected) -> None:
    call = _parsed(source)
    assert _literal([*call.args, *call.keywords][0], "default") == expected


def test_literal_of_nothing_is_the_default() -> None:
    assert _literal(None, "default") == "default" and _literal(None, None) is None


@pytest.mark.parametrize(("code", "expected"), [
    ("x", "x"), ("x.y", "x.y"), ("f()", "f()"), ("x[0]", "x[0]"), ("a + b", "(a + b)"), ("-a", "(-a)"),
    (" x ", " x "), ("(a, b)", "((a, b))"), ("1", "(1)"), ("lambda: 1", "(lambda: 1)"),
])
def test_primary(code: str, expected: str) -> None:
    assert _primary(code) == expected


def test_code_reads_spans_in_characters_where_ast_counts_bytes() -> None:
    code = _Code("f('é€', b,\n  'ü', c)")
    args = code.call.args
    assert [code.text(a) for a in args] == ["'é€'", "b", "'ü'", "c"]
    assert [code.span(a) for a in args] == [(2, 6), (8, 9), (13, 16), (18, 19)]
    statement = _Code("f(x)\n", statement=True)
    assert statement.text(statement.call.args[0]) == "x" and statement.lines == [0, 5]


def test_code_of_a_statement_needs_statement_true() -> None:
    with pytest.raises(SyntaxError):
        _Code("x = f(1)")
    assert ast.unparse(_Code("f(1)\n", statement=True).node) == "f(1)"
    assert ast.unparse(_Code("f(1)").node) == "f(1)"


@pytest.mark.parametrize(("code", "index", "expected"), [
    ("f(a, b, c)", 0, "f(b, c)"),
    ("f(a, b, c)", 1, "f(a, c)"),
    ("f(a, b, c)", 2, "f(a, b)"),
    ("f(a,\n  b,  # comment\n  c)", 1, "f(a,\n  c)"),
    ("f(a,\n  b,  # comment\n  c)", 2, "f(a,\n  b)"),
    ("f(a,\n  b\n)", 1, "f(a,\n)"),
    ("f(a,\r\n  b,\r\n  c)", 1, "f(a,\r\n  c)"),
    ("f(a, b,\n  c)", 1, "f(a,\n  c)"),
])
def test_cut(code: str, index: int, expected: str) -> None:
    parsed = _Code(code)
    spans = [parsed.span(a) for a in parsed.call.args]
    start, end = _cut(code, spans, index)
    assert code[:start] + code[end:] == expected


@pytest.mark.parametrize(("code", "changes", "extra", "expected"), [
    ("old(a, b, c)", {"b": None}, "", "new(a, c)"),
    ("old(a, b, c)", {"c": None}, "k=1", "new(a, b, k=1)"),
    ("old(a, b, c)", {"a": _New(value=lambda t: t + ".T")}, "", "new(a.T, b, c)"),
    ("old(a, b, c)", {"c": _New("axis")}, "", "new(a, b, axis=c)"),
    ("old(a)", {}, "k=1", "new(a, k=1)"),
    ("old(a,\n    b)", {}, "k=1", "new(a,\n    b,\n    k=1)"),
    ("old(a,  # x\n    b)", {}, "k=1", "new(a,  # x\n    b, k=1)"),
    ("old(a, b, c=3)", {"b": None, "c": None}, "k=1", "new(a, k=1)"),
])
def test_reshape(code: str, changes: dict, extra: str, expected: str) -> None:
    assert _reshape(("a", "b", "c"), changes, "new", extra)(code) == expected


@pytest.mark.parametrize(("source", "expected"), [
    ("{}", []), ("{'a': 1, 2: 3}", [("a", "1"), (None, "3")]), ("{**d}", [(None, "d")]), ("dict()", []),
    ("dict(a=1)", [("a", "1")]), ("dict(**d)", [(None, "d")]), ("dict([('a', 1)])", None), ("other(a=1)", None),
    ("x.dict(a=1)", None), ("[1]", None), ("{'a'.upper(): 1}", [(None, "1")]),
])
def test_pairs(source: str, expected) -> None:
    pairs = _pairs(ast.parse(source, mode="eval").body)
    assert (pairs if pairs is None else [(k, ast.unparse(v)) for k, v in pairs]) == expected


# -- issue 35, item 3 (2026-12-05): survivors of the earlier mutmut run, killed here --

def test_a_triton_dot_the_floor_holds_back_is_counted_held_back() -> None:
    source = _imports() + ("def kernel(x, y, o):\n    o[...] = pl.dot(x[...], y[...])\n"
                           "f = pl.pallas_call(kernel, out_shape=None, backend='triton')\n")
    settings = Settings(TARGET.jax_version, jax_floor=(0, 10, 1), unsafe_fixes=True)
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX150"]), settings)
    assert [(f.kind.value, f.held_back) for f in result.findings] == [("manual", True)]
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX150"]), TARGET)
    assert [(f.kind.value, f.held_back) for f in result.findings] == [("fixed", False)]


def test_the_new_names_are_spelled_through_a_functions_own_import() -> None:
    params = ("from jax.experimental import pallas as pl\n\n\ndef f(k):\n"
              "    from jax.experimental.pallas import tpu as tp\n"
              "    return pl.pallas_call(k, out_shape=None, compiler_params=dict(mosaic=dict(vmem_limit_bytes=1)))\n")
    assert _run(params, "JAX172")[0] == params.replace("dict(mosaic=dict(vmem_limit_bytes=1))",
                                                       "tp.CompilerParams(vmem_limit_bytes=1)")
    repeat = ("from jax.experimental.pallas import tpu as pltpu\n\n\ndef f(x):\n    import jax.numpy as jn\n"
              "    return pltpu.repeat(x, 2, 0)\n")
    assert _run(repeat, "JAX170")[0] == (
        "\n\ndef f(x):\n    import jax.numpy as jn\n    return jn.concatenate([x] * 2, axis=0)\n")
