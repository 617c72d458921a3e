"""codemods/analysis/precision.py called in the test's process (issue 35, item 3: mutation testing).

Reading `lax.Precision` values from source (`parse_precision`, `scalar_level`, `string_value`) and
writing a level back in the user's spelling (`spell`, `spell_like`): exact levels, exact text.
"""

from __future__ import annotations

import ast

import pytest

from codemods.analysis.module import ModuleIndex
from codemods.analysis.precision import (
    NONE,
    PrecisionLiteral,
    parse_precision,
    quoted,
    scalar_level,
    spell,
    spell_like,
    string_value,
)
from codemods.capabilities import Level

HEADER = "import jax\nfrom jax import lax\nfrom jax.lax import Precision as P\nimport other\n"


def _value(expression: str, before: str = "") -> tuple[ast.expr, ModuleIndex]:
    """`expression` as the value of the module's last statement, `x = ...`."""
    index = ModuleIndex.parse(f"{HEADER}{before}x = {expression}\n")
    statement = index.tree.body[-1]
    assert isinstance(statement, ast.Assign)
    return statement.value, index


# -- parse_precision --

def test_none_is_the_none_literal() -> None:
    value, index = _value("None")
    assert parse_precision(value, index) is NONE


@pytest.mark.parametrize(("expression", "levels", "described", "best"), [
    ("P.HIGH", (Level.HIGH,), "HIGH", Level.HIGH),
    ("'float32'", (Level.HIGHEST,), "HIGHEST", Level.HIGHEST),
    ("(P.DEFAULT, P.HIGHEST)", (Level.DEFAULT, Level.HIGHEST), "(DEFAULT, HIGHEST)", Level.HIGHEST),
    ("(P.HIGHEST, P.DEFAULT)", (Level.HIGHEST, Level.DEFAULT), "(HIGHEST, DEFAULT)", Level.HIGHEST),
    ("['bfloat16', lax.Precision.HIGH]", (Level.DEFAULT, Level.HIGH), "(DEFAULT, HIGH)", Level.HIGH),
    ("(P.HIGH, P.HIGH)", (Level.HIGH, Level.HIGH), "(HIGH, HIGH)", Level.HIGH),
])
def test_a_literal_is_read(expression: str, levels: tuple, described: str, best: Level) -> None:
    value, index = _value(expression)
    parsed = parse_precision(value, index)
    assert isinstance(parsed, PrecisionLiteral)
    assert parsed.levels == levels
    assert parsed.describe() == described
    assert parsed.most_accurate is best
    assert parsed.is_pair is (len(levels) == 2)
    elements = value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]
    assert parsed.elements == tuple(elements)
    assert all(a is b for a, b in zip(parsed.elements, elements))


def test_a_pair_follows_names_bound_once() -> None:
    value, index = _value("(LO, HI)", "LO = 'bfloat16'\nHI = P.HIGHEST\n")
    parsed = parse_precision(value, index)
    assert isinstance(parsed, PrecisionLiteral)
    assert parsed.levels == (Level.DEFAULT, Level.HIGHEST)
    assert [element.id for element in parsed.elements] == ["LO", "HI"]


@pytest.mark.parametrize(("expression", "before"), [
    ("HI", "HI = P.HIGHEST\n"),  # a name alone is the caller's to follow
    ("(LO, HI)", "LO = P.DEFAULT\nHI = P.HIGHEST\nHI = P.HIGH\n"),  # bound twice
    ("(LO, HI)", "LO = P.DEFAULT\n"),  # HI unbound
    ("(LO, HI)", "LO = P.DEFAULT\nA = P.HIGH\nHI = A\n"),  # a name bound to a name: one step only
    ("(P.HIGH, P.HIGH, P.HIGH)", ""),
    ("(P.HIGH,)", ""),
    ("(P.HIGH, *rest)", ""),
    ("(*rest, P.HIGH)", ""),
    ("(P.HIGH, 'bogus')", ""),
    ("('bogus', P.HIGH)", ""),
    ("((P.HIGH, P.HIGH), P.HIGH)", ""),
    ("{P.HIGH, P.DEFAULT}", ""),
    ("'bogus'", ""),
    ("0", ""),
    ("f(P.HIGH)", ""),
])
def test_what_is_not_a_literal(expression: str, before: str) -> None:
    value, index = _value(expression, before)
    assert parse_precision(value, index) is None


# -- string_value --

@pytest.mark.parametrize(("expression", "text"), [
    ("'high'", "high"),
    ('"HIGH"', "HIGH"),
    ("r'high'", "high"),
    ("u'high'", "high"),
    ("'''high'''", "high"),
    ("('high')", "high"),
    ("'a\\nb'", "a\nb"),
    ("b'high'", None),
    ("f'high'", None),
    ("'hi' 'gh'", None),
    ("('hi'\n 'gh')", None),
    ("1", None),
    ("None", None),
    ("high", None),
])
def test_string_value(expression: str, text: object) -> None:
    value, index = _value(expression)
    assert string_value(value, index) == text


# -- scalar_level --

@pytest.mark.parametrize(("expression", "level"), [
    ("'default'", Level.DEFAULT),
    ("'fastest'", Level.DEFAULT),
    ("'high'", Level.HIGH),
    ("'highest'", Level.HIGHEST),
    ("'HIGHEST'", Level.HIGHEST),
    ("'bfloat16'", Level.DEFAULT),
    ("'bfloat16_3x'", Level.HIGH),
    ("'tensorfloat32'", Level.HIGH),
    ("'Float32'", Level.HIGHEST),
    ("'bogus'", None),
    ("b'high'", None),
    ("P.DEFAULT", Level.DEFAULT),
    ("P.HIGH", Level.HIGH),
    ("lax.Precision.HIGHEST", Level.HIGHEST),
    ("jax.lax.Precision.HIGH", Level.HIGH),
    ("P.BOGUS", None),
    ("P.high", None),
    ("P.name", None),
    ("other.Precision.HIGH", None),
    ("other.HIGH", None),
    ("lax.HIGH", None),
    ("P", None),
    ("P('highest')", Level.HIGHEST),
    ("lax.Precision('bfloat16')", Level.DEFAULT),
    ("P(P.HIGH)", Level.HIGH),
    ("P('bogus')", None),
    ("P(*levels)", None),
    ("P('high', x=1)", None),
    ("P(value='high')", None),
    ("P()", None),
    ("P('high', 'high')", None),
    ("other.Precision('high')", None),
    ("P.HIGH.value", None),
    ("None", None),
    # The enum looked up by member name (`Precision.__getitem__`): exact names only.
    ("P['HIGH']", Level.HIGH),
    ('lax.Precision["DEFAULT"]', Level.DEFAULT),
    ("P['high']", None),
    ("P['BOGUS']", None),
    ("P[name]", None),
    ("other.Precision['HIGH']", None),
])
def test_scalar_level(expression: str, level: object) -> None:
    value, index = _value(expression)
    assert scalar_level(value, index) == level


def test_scalar_level_follows_a_name_only_when_asked() -> None:
    value, index = _value("HI", "HI = P.HIGHEST\n")
    assert scalar_level(value, index) is None
    assert scalar_level(value, index, follow_names=True) is Level.HIGHEST
    value, index = _value("HI", "HI = 'high'\n")
    assert scalar_level(value, index) is None  # a name is no string literal
    assert scalar_level(value, index, follow_names=True) is Level.HIGH
    # Followed one step only: the value found is read without following names again.
    value, index = _value("HI", "A = P.HIGH\nHI = A\n")
    assert scalar_level(value, index, follow_names=True) is None
    value, index = _value("HI", "import HI\n")
    assert scalar_level(value, index, follow_names=True) is None
    value, index = _value("HI", "HI = P.HIGH\nHI = P.HIGHEST\n")
    assert scalar_level(value, index, follow_names=True) is None


# -- spell --

@pytest.mark.parametrize(("like", "level", "text"), [
    ("'default'", Level.HIGHEST, "'highest'"),
    ("'fastest'", Level.HIGH, "'high'"),
    ('"high"', Level.DEFAULT, '"default"'),
    ("'HIGH'", Level.HIGHEST, "'highest'"),
    ("'bfloat16'", Level.HIGHEST, "'float32'"),
    ("'bfloat16'", Level.HIGH, "'tensorfloat32'"),
    ("'BFloat16_3x'", Level.DEFAULT, "'bfloat16'"),
    ('"float32"', Level.HIGH, '"tensorfloat32"'),
    ("r'high'", Level.HIGHEST, "r'highest'"),
    ("Rb'high'", None, None),  # bytes: not a spelling (see below)
    ("U'high'", Level.DEFAULT, "U'default'"),
    ("'''high'''", Level.DEFAULT, "'''default'''"),
    ('"""bfloat16"""', Level.HIGHEST, '"""float32"""'),
    ("P.DEFAULT", Level.HIGHEST, "P.HIGHEST"),
    ("lax.Precision.HIGHEST", Level.HIGH, "lax.Precision.HIGH"),
    ("jax.lax.Precision.HIGH", Level.DEFAULT, "jax.lax.Precision.DEFAULT"),
    ("(P\n .HIGH)", Level.DEFAULT, "P\n .DEFAULT"),
    ("P('high')", Level.HIGHEST, "P('highest')"),
    ("lax.Precision( 'bfloat16' )", Level.HIGH, "lax.Precision( 'tensorfloat32' )"),
    ("P(P.HIGH)", Level.DEFAULT, "P(P.DEFAULT)"),
    ("P(r\"high\")", Level.DEFAULT, "P(r\"default\")"),
    ("P['DEFAULT']", Level.HIGH, "P['HIGH']"),
    ('lax.Precision[ r"HIGH" ]', Level.HIGHEST, 'lax.Precision[ r"HIGHEST" ]'),
])
def test_spell_writes_the_level_as_the_element_was_written(like: str, level: object, text: object) -> None:
    value, index = _value(like)
    if level is None:
        with pytest.raises(ValueError, match=r"^not a precision spelling: \"Rb'high'\"$"):
            spell(Level.HIGH, value, index)
        return
    assert spell(level, value, index) == text


def test_spell_a_name_bound_once_writes_its_value_spelled() -> None:
    value, index = _value("HI", "HI = P.HIGHEST\n")
    assert spell(Level.HIGH, value, index) == "P.HIGH"
    value, index = _value("HI", "HI = 'tensorfloat32'\n")
    assert spell(Level.HIGHEST, value, index) == "'float32'"


@pytest.mark.parametrize(("like", "before"), [
    ("HI", ""),
    ("HI", "HI = P.HIGH\nHI = P.HIGHEST\n"),
    ("1", ""),
])
def test_spell_refuses_what_is_no_spelling(like: str, before: str) -> None:
    value, index = _value(like, before)
    with pytest.raises(ValueError) as raised:
        spell(Level.HIGH, value, index)
    assert str(raised.value) == f"not a precision spelling: {like!r}"


# -- spell_like --

@pytest.mark.parametrize(("pair", "level", "text"), [
    ("(P.DEFAULT, lax.Precision.HIGHEST)", Level.HIGHEST, "lax.Precision.HIGHEST"),  # copied
    ("(lax.Precision.HIGHEST, P.DEFAULT)", Level.DEFAULT, "P.DEFAULT"),
    ("(P.DEFAULT, lax.Precision.HIGHEST)", Level.HIGH, "P.HIGH"),  # the first element's style
    ("('bfloat16', P.HIGHEST)", Level.HIGH, "'tensorfloat32'"),
    ("('bfloat16', P.HIGH)", Level.HIGH, "P.HIGH"),
    ("(P.HIGH, 'high')", Level.HIGH, "P.HIGH"),  # the first that names it
    ("('high', P.HIGH)", Level.HIGH, "'high'"),
    ("(LO, P.HIGH)", Level.HIGHEST, "P.HIGHEST"),  # LO bound to P.DEFAULT
])
def test_spell_like(pair: str, level: Level, text: str) -> None:
    value, index = _value(pair, "LO = P.DEFAULT\n")
    parsed = parse_precision(value, index)
    assert isinstance(parsed, PrecisionLiteral)
    assert spell_like(parsed, level, index) == text


def test_spell_like_a_single_level() -> None:
    value, index = _value("  'float32'")
    parsed = parse_precision(value, index)
    assert isinstance(parsed, PrecisionLiteral)
    assert spell_like(parsed, Level.HIGHEST, index) == "'float32'"
    assert spell_like(parsed, Level.DEFAULT, index) == "'bfloat16'"


@pytest.mark.parametrize(("source", "quote"), [
    ("", '"'),  # no string: black's double quotes
    ("a = 'x'\n", "'"),
    ('a = "x"\n', '"'),
    ("a = 'x'\nb = 'y'\nc = \"z\"\n", "'"),  # the majority, not the first
    ("a = \"x\"\nb = 'y'\n", '"'),  # a tie: the first
    ("a = rb'x'\nb = U'y'\n", "'"),  # prefixes
    ('"""Doc."""\na = \'x\'\nb = f"{a}"\nc = "don\'t"\nd = "a\\"b"\ne = """x"""\n', "'"),  # no choice shown
    ("a = ('x'\n     \"y\" \"z\")\n", '"'),  # each piece of an implicit concatenation counts
])
def test_quoted_writes_a_new_string_in_the_modules_own_quotes(source: str, quote: str) -> None:
    assert quoted("highest", ModuleIndex.parse(source)) == f"{quote}highest{quote}"
