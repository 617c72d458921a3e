"""The prefilters only ever skip work: a file they rule out for a transform is one that transform leaves alone.

Checked by running each transform on files its prefilters rule out, bypassing them: no change and no
finding may come out. Nothing here imports jax.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import libcst as cst
import pytest
from libcst.codemod import CodemodContext

from codemods import registry
from codemods.engine.prefilter import select_for_file, summarize
from codemods.rules import Rule
from codemods.settings import Scope, Settings

FIXTURES = Path(__file__).parent / "fixtures"
# The policy only changes what a rewrite writes, never whether a file is worth parsing.
VERSIONS = [None, (0, 10, 2), (0, 12, 0, 1)]
SETTINGS = [Settings(version, scope) for version, scope in itertools.product(VERSIONS, Scope)]

HEADER = '''\
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref, *args, **kwargs):  # the precision comes from the caller
    o_ref[...] = {call}


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
'''

# Calls inside a kernel body, spelled in the ways the string-literal shortcut must get right.
KERNEL_CALLS = [
    'jnp.dot(x_ref[...], y_ref[...], precision=None)',
    'jnp.dot(x_ref[...], y_ref[...], precision="highest")',
    'jnp.dot(x_ref[...], y_ref[...], precision="HIGH")',
    "jnp.dot(x_ref[...], y_ref[...], precision='high')",
    'jnp.dot(x_ref[...], y_ref[...], precision="bfloat16")',
    'jnp.dot(x_ref[...], y_ref[...], precision="tensorfloat32")',
    'jnp.dot(x_ref[...], y_ref[...], precision=("high", "high"))',
    'jnp.dot(x_ref[...], y_ref[...], precision=["float32", "highest"])',
    'jnp.dot(x_ref[...], y_ref[...], precision=("default", "highest"))',
    'jnp.dot(x_ref[...], y_ref[...], precision=("highest",))',
    'jnp.dot(x_ref[...], y_ref[...], precision="hi" "gh")',
    'jnp.dot(x_ref[...], y_ref[...], precision=u"high")',
    'jnp.dot(x_ref[...], y_ref[...], precision=r"high")',
    'jnp.dot(x_ref[...], y_ref[...], precision="""high""")',
    'jnp.dot(x_ref[...], y_ref[...], precision="hig\\x68")',
    'jnp.dot(x_ref[...], y_ref[...], precision=b"high")',
    'jnp.dot(x_ref[...], y_ref[...], precision=f"high")',
    'jnp.dot(x_ref[...], y_ref[...], precision="medium")',
    'jnp.dot(x_ref[...], y_ref[...], precision=lax.Precision.HIGHEST)',
    'jnp.dot(x_ref[...], y_ref[...], **kwargs)',
    'jnp.dot(x_ref[...], y_ref[...], precision="high", **kwargs)',
    'lax.dot_general(x_ref[...], y_ref[...], (((1,), (0,)), ((), ())), "high")',
    'lax.dot_general(x_ref[...], y_ref[...], (((1,), (0,)), ((), ())), None)',
    'lax.dot_general(x_ref[...], y_ref[...], *args)',
    'lax.conv_general_dilated(x_ref[...], y_ref[...], (1, 1), "SAME", precision="high")',
    'lax.conv_general_dilated(x_ref[...], y_ref[...], (1, 1), "SAME", precision="float32")',
    'lax.conv_general_dilated(x_ref[...], y_ref[...], (1, 1), "SAME", None, None, None, 1, 1, "high")',
    'pl.dot(x_ref[...], y_ref[...], False, False, None, "high")',
    'pl.dot(x_ref[...], y_ref[...], False, False, None, "highest")',
]


def _ruled_out(source: bytes, settings: Settings) -> list[Rule]:
    transforms = [t for t in registry.RULES if t.might_apply(source, settings)]
    kept = select_for_file(transforms, summarize(source), settings)
    return [t for t in registry.RULES if t not in kept]


def _assert_leaves_alone(source: bytes, settings: Settings, rule: Rule) -> None:
    module = cst.parse_module(source.decode())  # a fresh tree each time: libcst copies it anyway
    transform = rule.load()(CodemodContext(filename="case.py"), settings)
    new = transform.transform_module(module)
    assert new.code == module.code, f"{rule.code} was ruled out but rewrites"
    assert transform.findings == [], f"{rule.code} was ruled out but reports {transform.findings}"


JAX001 = registry.select(["JAX001"])[0]


@pytest.mark.parametrize("call", KERNEL_CALLS)
def test_string_literal_shortcut_is_sound(call: str) -> None:
    source = HEADER.format(call=call).encode()
    for settings in SETTINGS:
        if JAX001 in _ruled_out(source, settings):
            _assert_leaves_alone(source, settings, JAX001)


def test_string_literal_shortcut_rules_out_what_already_lowers() -> None:
    """The shortcut does skip work: a kernel whose precisions all lower as written is not parsed."""
    jax_0_12 = Settings((0, 12, 0, 1))
    lowers = HEADER.format(call='jnp.dot(x_ref[...], y_ref[...], precision="high")').encode()
    assert JAX001 in _ruled_out(lowers, jax_0_12)
    assert JAX001 not in _ruled_out(lowers, Settings((0, 10, 2)))


PAIR = "(lax.Precision.DEFAULT, lax.Precision.HIGH)"
IMPORTS = """\
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import pallas_call as launch
from jax.experimental.pallas import tpu as pltpu
"""

# Ways a body becomes a kernel, each with a per-operand pair JAX001 must rewrite: the kernel-scope
# shortcut may never rule these files out (and where it does rule a file out, nothing may change).
KERNEL_SHAPES = {
    "alias chain": f"""
def body(x_ref, o_ref, *, scale):
    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision={PAIR}) * scale

bound = functools.partial(body, scale=2.0)
again = bound
matmul = pl.pallas_call(again, out_shape=jax.ShapeDtypeStruct((8, 8), jnp.float32))
""",
    "imported launcher alias": f"""
def body(x_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision={PAIR})

matmul = launch(body, out_shape=jax.ShapeDtypeStruct((8, 8), jnp.float32))
""",
    "factory through a helper": f"""
def contract(a, b):
    return lax.dot_general(a, b, (((1,), (0,)), ((), ())), {PAIR})

def make(scale):
    def body(x_ref, o_ref):
        o_ref[...] = contract(x_ref[...], x_ref[...]) * scale
    return body

matmul = pl.pallas_call(make(2.0), out_shape=jax.ShapeDtypeStruct((8, 8), jnp.float32))
""",
    "core_map decorator": f"""
def run(x_ref, o_ref, mesh):
    @pl.core_map(mesh)
    def _():
        o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision={PAIR})
""",
    "pipeline body in a keyword": f"""
def inner(x_ref, o_ref):
    o_ref[...] = jnp.matmul(x_ref[...], x_ref[...], precision={PAIR})

def outer(x_hbm, o_hbm):
    pltpu.emit_pipeline(body=inner, grid=(4,))(x_hbm, o_hbm)

matmul = pl.pallas_call(outer, out_shape=jax.ShapeDtypeStruct((8, 8), jnp.float32))
""",
    "deeply nested expression": "\n".join([
        "def body(x_ref, o_ref):",
        f"    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision={PAIR}) + " + " + ".join(["x_ref[...]"] * 1500),
        "",
        "matmul = pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 8), jnp.float32))",
    ]),
}


@pytest.mark.parametrize("shape", KERNEL_SHAPES)
def test_kernel_shortcut_keeps_every_kernel(shape: str) -> None:
    source = (IMPORTS + KERNEL_SHAPES[shape]).encode()
    for settings in SETTINGS:
        assert JAX001 not in _ruled_out(source, settings), settings


def test_kernel_shortcut_rules_out_xla_code_next_to_a_kernel() -> None:
    source = (IMPORTS + f"""
def body(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2

double = pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 8), jnp.float32))

@jax.jit
def reference(x):
    return jnp.dot(x, x, precision={PAIR})
""").encode()
    assert JAX001 in _ruled_out(source, Settings((0, 12, 0, 1)))
    assert JAX001 not in _ruled_out(source, Settings((0, 12, 0, 1), Scope.ALL))
    for settings in SETTINGS:
        if JAX001 in _ruled_out(source, settings):
            _assert_leaves_alone(source, settings, JAX001)


@pytest.mark.xfail(strict=True, reason="known gap: the byte prefilter wants the word 'precision', so a "
                   "kernel passing only **kwargs in a file that never says it gets no [manual] finding")
def test_kwargs_without_the_word_precision() -> None:
    source = HEADER.format(call="jnp.dot(x_ref[...], y_ref[...], **kwargs)").replace(
        "  # the precision comes from the caller", "").encode()
    for rule in _ruled_out(source, Settings((0, 12, 0, 1))):
        _assert_leaves_alone(source, Settings((0, 12, 0, 1)), rule)


FAMILIES = {"precision": "JAX001", "accuracy": "JAX002", "lstm": "JAX003"}
KWARGS_GAP = pytest.mark.xfail(strict=True, reason="the byte prefilter gap above: no 'precision' word in the file")
GAP_CASES = ("precision/kwargs_needs_review.in.py", "precision/kwargs_needs_review.out.py")
CASES = [
    pytest.param(path, id=f"{path.parent.name}/{path.name}",
                 marks=[KWARGS_GAP] if f"{path.parent.name}/{path.name}" in GAP_CASES else [])
    for path in sorted(FIXTURES.glob("*/*.in.py")) + sorted(FIXTURES.glob("*/*.out.py"))
    if path.parent.name in FAMILIES
]


@pytest.mark.parametrize("case", CASES)
def test_fixtures_ruled_out_are_left_alone(case: Path) -> None:
    """Each golden case against its own transform, under every scope and a few target releases."""
    source = case.read_bytes()
    rule = registry.select([FAMILIES[case.parent.name]])[0]
    for settings in SETTINGS:
        if rule in _ruled_out(source, settings):
            _assert_leaves_alone(source, settings, rule)
