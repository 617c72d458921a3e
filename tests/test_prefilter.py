"""The byte prefilter only ever skips work: no file it rules out is one the analysis would change or report.

Checked by running each rule's full analysis on files the byte test rules out for it, bypassing the
test: no edit and no finding may come out. Nothing here imports jax.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from codemods import registry
from codemods.analysis.module import ModuleIndex
from codemods.engine import notebook
from codemods.engine.diagnostics import Finding
from codemods.engine.prefilter import rules_for
from codemods.engine.rule import ParsedFile, Rule
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
    kept = rules_for(source, registry.RULES, settings)
    return [rule for rule in registry.RULES if rule not in kept]


def _analyse(source: bytes, settings: Settings, rule: Rule) -> list[Finding]:
    """The rule's full analysis, whatever the byte test says: its findings (a fix is always a
    finding's)."""
    return rule.check(rule, ParsedFile(Path("case.py"), ModuleIndex.parse(source.decode()), settings))


def _assert_sound(source: bytes) -> None:
    """For every settings: a rule the byte test rules out plans no fix and reports nothing. Under
    one settings the rules share one parse, as they do in a run (`runner.process_source`)."""
    for settings in SETTINGS:
        ruled_out = _ruled_out(source, settings)
        file = ParsedFile(Path("case.py"), ModuleIndex.parse(source.decode()), settings) if ruled_out else None
        for rule in ruled_out:
            findings = rule.check(rule, file)
            assert findings == [], f"{rule.code} was ruled out under {settings} but reports {findings}"


def _acts(source: bytes, settings: Settings, rule: Rule) -> bool:
    return bool(_analyse(source, settings, rule))


@pytest.mark.parametrize("call", KERNEL_CALLS)
def test_byte_test_is_sound_on_kernel_calls(call: str) -> None:
    _assert_sound(HEADER.format(call=call).encode())


def test_kwargs_without_the_word_precision_still_gets_its_note() -> None:
    """`**kwargs` may carry a precision: a kernel that never says the word is still analysed."""
    source = HEADER.format(call="jnp.dot(x_ref[...], y_ref[...], **kwargs)").replace(
        "  # the precision comes from the caller", "").encode()
    assert b"recision" not in source
    jax001 = registry.select(["JAX001"])[0]
    assert jax001 not in _ruled_out(source, Settings((0, 12, 0, 1)))
    assert _acts(source, Settings((0, 12, 0, 1)), jax001)
    _assert_sound(source)


@pytest.mark.parametrize("call", [
    "lax.dot_general(x_ref[...], y_ref[...], DIMS, *rest)",
    "lax.dot_general(x_ref[...], y_ref[...], DIMS,  # spread\n        *rest)",
    "jnp.dot(x_ref[...], y_ref[...], **options)",
    "lax.exp(x_ref[...], **options)",
])
def test_unpacked_arguments_without_the_words_still_get_their_note(call: str) -> None:
    source = (HEADER.format(call=call).replace("  # the precision comes from the caller", "")
              .replace("*args, **kwargs", "*rest, **options")).encode()
    assert b"recision" not in source and b"accuracy" not in source
    settings = Settings((0, 12, 0, 1))
    acting = [rule for rule in registry.RULES if _acts(source, settings, rule)]
    assert acting, "the analysis has something to say about this call"
    assert all(rule not in _ruled_out(source, settings) for rule in acting)
    _assert_sound(source)


def test_byte_test_rules_out_files_without_a_kernel() -> None:
    """Under --scope kernels a file that never says "pallas" cannot hold a kernel; under --scope all it is read."""
    source = b"import jax.numpy as jnp\n\ndef f(x):\n    return jnp.dot(x, x, precision=('default', 'highest'))\n"
    jax001 = registry.select(["JAX001"])[0]
    assert jax001 in _ruled_out(source, Settings((0, 12, 0, 1)))
    assert jax001 not in _ruled_out(source, Settings((0, 12, 0, 1), Scope.ALL))
    assert _acts(source, Settings((0, 12, 0, 1), Scope.ALL), jax001)
    _assert_sound(source)


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
def test_every_kernel_shape_is_found(shape: str) -> None:
    """Each way a body becomes a kernel passes the byte test and gets its per-operand pair rewritten."""
    source = (IMPORTS + KERNEL_SHAPES[shape]).encode()
    jax001 = registry.select(["JAX001"])[0]
    for settings in SETTINGS:
        assert jax001 not in _ruled_out(source, settings), settings
        assert any(f.fix for f in _analyse(source, settings, jax001)), f"{shape}: no rewrite under {settings}"


LSTM_CASES = {
    "aliased import, no word lstm at the call": """
from jax.experimental.rnn import lstm as recurrent
from jax import lax

def run(x, h, c, w, n):
    return recurrent(x, h, c, w, n, 8, 16, 1, 0.0, False, precision=lax.Precision.DEFAULT)
""",
    "module alias": """
import jax.experimental.rnn as R

def run(x, h, c, w, n):
    return R.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, precision="bfloat16")
""",
    "no lstm at all": """
import jax

def run(x):
    return jax.nn.relu(x)
""",
}


@pytest.mark.parametrize("case", LSTM_CASES)
def test_byte_test_is_sound_on_lstm_calls(case: str) -> None:
    _assert_sound(LSTM_CASES[case].encode())


FAMILIES = {"precision": "JAX001", "accuracy": "JAX002", "lstm": "JAX003", "upgrades": "JAX1",
            "x64": "JAX005", "debug_print": "JAX008"}
CASES = [
    pytest.param(path, id=f"{path.parent.name}/{path.name}")
    for path in sorted(FIXTURES.glob("*/*.in.py")) + sorted(FIXTURES.glob("*/*.out.py"))
    if path.parent.name in FAMILIES
]


@pytest.mark.parametrize("case", CASES)
def test_fixtures_ruled_out_are_left_alone(case: Path) -> None:
    """Each golden case against every rule, under every scope and a few target releases."""
    _assert_sound(case.read_bytes())


# How a module may import jax: the JAX1xx rules' gate (an import of jax, then the module's word)
# must let each through, and each file's old spelling is then found.
JAX_IMPORTS = {
    "plain": "import jax\n\nx = jax.tree_map(f, t)\n",
    "in a list": "import os, jax\n\nx = jax.tree_map(f, t)\n",
    "after a semicolon": "import os; import jax\n\nx = jax.tree_map(f, t)\n",
    "on a compound line": "if True: import jax\n\nx = jax.tree_map(f, t)\n",
    "continued import": "import os, \\\n    jax\n\nx = jax.tree_map(f, t)\n",
    "continued from": "from \\\n    jax import tree_map\n\nx = tree_map(f, t)\n",
    "after the keyword in a string": "mode = 'x'\nif 'from' in mode: import jax\n\nx = jax.tree_map(f, t)\n",
    "in a function": "def f(t):\n    import jax\n    return jax.tree_map(g, t)\n",
    "parenthesized": "from jax import (\n    numpy as jnp,\n)\n\nx = jnp.product(a)\n",
    "submodule": "import jax.experimental.pallas.tpu as pltpu\n\nP = pltpu.TPUCompilerParams()\n",
    "tab": "from\tjax.numpy import clip\n\nx = clip(a, a_min=0)\n",
}


@pytest.mark.parametrize("case", JAX_IMPORTS)
def test_every_way_of_importing_jax_passes_the_upgrade_gate(case: str) -> None:
    source = JAX_IMPORTS[case].encode()
    settings = Settings((0, 12, 0, 1))
    acting = [rule for rule in registry.select(["JAX1"]) if _acts(source, settings, rule)]
    assert acting, "the case names an old spelling"
    assert not set(acting) & set(_ruled_out(source, settings))


def test_the_upgrade_gate_rules_out_files_that_import_no_jax() -> None:
    """scipy's and numpy's own files say `product`, `clip` and `config` and mention jax in prose,
    comments and doctests (array-API dispatch): without an import of jax no JAX1xx rule parses them."""
    source = b'"""Works with jax arrays too:\n\n    >>> import jax\n"""\nimport numpy as np\nimport itertools\n\n' \
             b'x = np.clip(itertools.product(a), 0, 1)  # from jax import nothing\nconfig = None\n'
    upgrades = registry.select(["JAX1"])
    assert set(upgrades) <= set(_ruled_out(source, Settings((0, 12, 0, 1))))
    importing = source.replace(b"import itertools", b"import itertools, jax")
    assert registry.select(["JAX140"])[0] not in _ruled_out(importing, Settings((0, 12, 0, 1)))  # `clip`, `numpy`
    _assert_sound(source)


@pytest.mark.parametrize("text", [b"clip", b"clip(x)", b"x.clip", b"clipboard", b"_clip", b"clip_", b"2clip", b"clip2",
                                  b"jnp.clipper + clip", b"uncliped; clip\n", b"", b"cli", b"np.clip(a)\n# clip"])
def test_a_whole_word_is_found_as_the_word_boundary_regex_finds_it(text: bytes) -> None:
    from codemods.engine.rule import contains_word
    assert contains_word(text, b"clip") is bool(re.search(rb"\bclip\b", text))


ATTRIBUTE_ROWS = ["def f(c):\n    return c.input_layouts, c.device_buffers\n", "y = x.device_buffer\n"]


@pytest.mark.parametrize("source", [*(param.values[0].read_bytes() for param in CASES),
                                    *(case.encode() for case in JAX_IMPORTS.values()),
                                    *(case.encode() for case in ATTRIBUTE_ROWS)])
def test_a_rule_whose_byte_test_passes_finds_one_of_its_needles(source: bytes) -> None:
    """Rule.needles rules notebooks out before their JSON is decoded: it must never be stronger
    than the byte test itself (no project facts: no module imports a notebook)."""
    for settings in SETTINGS:
        for rule in rules_for(source, registry.RULES, settings):
            assert any(notebook.holds(source, needle) for needle in rule.needles(settings)), (rule.code, settings)
