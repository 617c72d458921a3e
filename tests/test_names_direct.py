"""codemods/analysis/names.py called in the test's process (issue 35, item 3: mutation testing).

Exact answers of the name folding (`canonical`, `display`, `qualify`), the argument lookup
(`find_arg`, `value_of`, the star tests, `is_none`) and `one_line`, which writes a value's source
into a finding's message.
"""

from __future__ import annotations

import ast

import pytest

from codemods.analysis.names import (
    PARTIAL,
    canonical,
    display,
    find_arg,
    has_double_star,
    has_star,
    is_none,
    one_line,
    qualify,
    value_of,
)


def _call(source: str) -> ast.Call:
    node = ast.parse(source, mode="eval").body
    assert isinstance(node, ast.Call)
    return node


@pytest.mark.parametrize(("name", "short"), [
    ("jax.numpy.dot", "jnp.dot"),
    ("jax.lax.conv_general_dilated", "lax.conv_general_dilated"),
    ("jax.experimental.pallas.mosaic_gpu.CompilerParams", "plgpu.CompilerParams"),
    ("jax.experimental.pallas.tpu.CompilerParams", "pltpu.CompilerParams"),
    ("jax.experimental.pallas.triton.dot", "plt.dot"),
    ("jax.experimental.pallas.dot", "pl.dot"),
    ("jax.experimental.pallas.pallas_call", "pl.pallas_call"),
    ("jax.experimental.rnn.lstm", "rnn.lstm"),
    ("jax.numpy", "jax.numpy"),  # the module itself: no trailing dot, no prefix
    ("jax.numpyx.dot", "jax.numpyx.dot"),
    ("functools.partial", "functools.partial"),
    ("", ""),
])
def test_display_shortens_the_usual_modules(name: str, short: str) -> None:
    assert display(name) == short


@pytest.mark.parametrize(("name", "public"), [
    ("jax._src.lax.lax.dot_general", "jax.lax.dot_general"),
    ("jax._src.lax.convolution.conv_general_dilated", "jax.lax.conv_general_dilated"),
    ("jax._src.numpy.lax_numpy.matmul", "jax.numpy.matmul"),
    ("jax._src.numpy.tensor_contractions.einsum", "jax.numpy.einsum"),
    ("jax._src.pallas.primitives.dot", "jax.experimental.pallas.dot"),
    ("jax._src.pallas.pallas_call.pallas_call", "jax.experimental.pallas.pallas_call"),
    ("jax._src.pallas.helpers.empty", "jax.experimental.pallas.empty"),
    ("jax._src.pallas.core.BlockSpec", "jax.experimental.pallas.BlockSpec"),
    ("jax._src.pallas.mosaic_gpu.core.CompilerParams", "jax.experimental.pallas.mosaic_gpu.CompilerParams"),
    ("jax._src.pallas.mosaic_gpu.pipeline.emit_pipeline", "jax.experimental.pallas.mosaic_gpu.emit_pipeline"),
    ("jax._src.pallas.mosaic.pipeline.emit_pipeline", "jax.experimental.pallas.tpu.emit_pipeline"),
    ("jax.lax.dot_general", "jax.lax.dot_general"),
    ("jax._src.lax.lax", "jax._src.lax.lax"),
    ("jax._src.lax.other.f", "jax._src.lax.other.f"),
    ("", ""),
])
def test_canonical_folds_private_modules_onto_public_ones(name: str, public: str) -> None:
    assert canonical(name) == public


def test_qualify() -> None:
    assert qualify("jax.lax", ["dot", "conv"]) == frozenset({"jax.lax.dot", "jax.lax.conv"})
    assert qualify("m", []) == frozenset()
    assert PARTIAL == frozenset({"functools.partial"})


def test_find_arg_by_position() -> None:
    call = _call("f(a, b, c)")
    assert ast.unparse(find_arg(call, 0, ())) == "a"
    assert ast.unparse(find_arg(call, 1, ("precision",))) == "b"
    assert ast.unparse(find_arg(call, 2, ())) == "c"
    assert find_arg(call, 3, ()) is None


def test_find_arg_by_keyword_is_the_keyword_itself() -> None:
    call = _call("f(a, b, precision=p, other=o)")
    found = find_arg(call, 2, ("precision",))
    assert isinstance(found, ast.keyword)
    assert found.arg == "precision" and ast.unparse(found.value) == "p"
    found = find_arg(call, None, ("accuracy", "other"))
    assert isinstance(found, ast.keyword) and found.arg == "other"
    # A keyword wins over the position.
    found = find_arg(call, 0, ("precision",))
    assert isinstance(found, ast.keyword) and found.arg == "precision"


def test_find_arg_without_position_or_keyword() -> None:
    call = _call("f(a, b)")
    assert find_arg(call, None, ("precision",)) is None
    assert find_arg(call, None, ()) is None


def test_find_arg_skips_a_double_star() -> None:
    call = _call("f(a, **kw)")
    assert find_arg(call, None, ("precision",)) is None
    assert ast.unparse(find_arg(call, 0, ("precision",))) == "a"


def test_find_arg_behind_a_star_is_unknown() -> None:
    call = _call("f(a, *rest, c, precision=p)")
    assert ast.unparse(find_arg(call, 0, ())) == "a"
    assert find_arg(call, 1, ()) is None
    assert find_arg(call, 2, ()) is None
    # A keyword after `*args` is still found.
    found = find_arg(call, 2, ("precision",))
    assert isinstance(found, ast.keyword) and found.arg == "precision"
    # A star after the position hides nothing.
    assert ast.unparse(find_arg(_call("f(a, b, *rest)"), 1, ())) == "b"
    assert find_arg(_call("f(*rest)"), 0, ()) is None


def test_value_of() -> None:
    call = _call("f(a, precision=p)")
    assert ast.unparse(value_of(call.keywords[0])) == "p"
    assert ast.unparse(value_of(call.args[0])) == "a"


@pytest.mark.parametrize(("source", "double", "star"), [
    ("f(a, b=1)", False, False),
    ("f()", False, False),
    ("f(**kw)", True, True),
    ("f(a, b=1, **kw)", True, True),
    ("f(*args)", False, True),
    ("f(a, *args, b=1)", False, True),
    ("f(*args, **kw)", True, True),
])
def test_stars(source: str, double: bool, star: bool) -> None:
    call = _call(source)
    assert has_double_star(call) is double
    assert has_star(call) is star


@pytest.mark.parametrize(("source", "answer"), [
    ("None", True),
    ("0", False),
    ("False", False),
    ("''", False),
    ("none", False),
    ("(None,)", False),
])
def test_is_none(source: str, answer: bool) -> None:
    assert is_none(ast.parse(source, mode="eval").body) is answer


@pytest.mark.parametrize(("code", "line"), [
    ("lax.Precision.HIGH", "lax.Precision.HIGH"),
    ("(\n    lax.Precision.DEFAULT,\n    lax.Precision.HIGH,\n)", "(lax.Precision.DEFAULT, lax.Precision.HIGH)"),
    ("[\n  a,\n  b\n]", "[a, b]"),
    ("{\n  'a': 1,\n}", "{'a': 1}"),
    ("f(x,   )", "f(x)"),
    ("(a,)", "(a,)"),  # a one-element tuple keeps its comma
    ("(  a, b  )", "(a, b)"),
    ("a  +  b", "a  +  b"),  # spaces within a line are the user's
    ("a\n\n\t+ b", "a + b"),
    ("(\ta)", "(a)"),
    ("f(x,\n)", "f(x)"),
    ("x", "x"),
    ("", ""),
])
def test_one_line(code: str, line: str) -> None:
    assert one_line(code) == line
