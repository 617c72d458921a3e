"""codemods/analysis/precision_values.py called in the test's process: every precision a value of
one module may be, with where each is written, and why a value is not bounded (issue 50, stage 3:
JAX001 asks the shared analysis instead of walking values itself). Static analysis, no jax import.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from codemods.analysis.kernel_scope import find_kernels
from codemods.analysis.module import ModuleIndex
from codemods.analysis.precision import PrecisionLiteral
from codemods.analysis.precision_values import PrecisionValues, Unbounded
from codemods.capabilities import Level

HEAD = """\
import functools
import compat
from compat import SHARED
from jax import lax
from jax.experimental import pallas as pl
P = lax.Precision


"""


def _values(source: str) -> tuple[PrecisionValues, ModuleIndex]:
    module = ModuleIndex.parse(HEAD + textwrap.dedent(source).lstrip("\n"))
    return PrecisionValues(module, find_kernels(module)), module


def _name(module: ModuleIndex, name: str, nth: int = -1) -> ast.Name:
    """The `nth` load of `name` in the module (the last by default)."""
    return [node for node in ast.walk(module.tree) if isinstance(node, ast.Name) and node.id == name
            and isinstance(node.ctx, ast.Load)][nth]


def _function(module: ModuleIndex, name: str) -> ast.FunctionDef:
    return next(node for node in ast.walk(module.tree) if isinstance(node, ast.FunctionDef) and node.name == name)


def _levels(found: list) -> list[tuple[int, tuple[str, ...]]]:
    """(line written, level names) for each value found, in source order."""
    return sorted((written.lineno - HEAD.count("\n"), tuple(level.name for level in literal.levels))
                  for written, literal in found if isinstance(literal, PrecisionLiteral))


def test_a_name_set_two_ways_may_be_either_and_a_pair_of_them_every_combination() -> None:
    values, module = _values("""
        FAST = P.DEFAULT if compat.fast else P.HIGH
        PAIR = (FAST, P.HIGHEST)
        USE = PAIR
    """)
    assert _levels(values.possible(_name(module, "FAST", 0))) == [(1, ("DEFAULT",)), (1, ("HIGH",))]
    pairs = values.possible(_name(module, "PAIR"))
    assert sorted(literal.levels for _, literal in pairs) == [(Level.DEFAULT, Level.HIGHEST), (Level.HIGH, Level.HIGHEST)]
    assert {written.lineno - HEAD.count("\n") for written, _ in pairs} == {2}  # the pair, where it is written


def test_a_parameter_is_what_its_default_and_this_modules_calls_give_it() -> None:
    values, module = _values("""
        def helper(x, precision=P.DEFAULT):
            return precision

        def run(x):
            helper(x, precision=(P.DEFAULT, P.HIGH))
            return helper(x, P.HIGHEST)
    """)
    found = values.possible(_name(module, "precision"))
    assert _levels(found) == [(1, ("DEFAULT",)), (5, ("DEFAULT", "HIGH")), (6, ("HIGHEST",))]
    helper = _function(module, "helper")
    param = helper.args.args[1]
    assert values.passed_by_callers(helper, param)
    assert not values.default_unwritten(helper, param)
    assert [ast.unparse(value) for value in values.bound_values(helper, param)] == ["P.DEFAULT"]


def test_a_local_function_returns_what_it_returns() -> None:
    values, module = _values("""
        def choose(fast):
            if fast:
                return P.DEFAULT
            return (P.DEFAULT, P.HIGHEST)

        USE = choose(True)
    """)
    assert _levels(values.possible(module.module_scope.bindings["USE"][0].value)) == \
        [(3, ("DEFAULT",)), (4, ("DEFAULT", "HIGHEST"))]


@pytest.mark.parametrize(("source", "name", "why"), [
    ("USE = compat.MIXED\n", "USE", "`compat.MIXED` is read from the imported `compat`"),
    ("USE = SHARED\n", "USE", "`SHARED` is imported from `compat`"),
    ("USE = missing\n", "USE", "`missing` comes from outside this module"),
    ("USE = make_precision()\n", "USE", "`make_precision()` is computed"),
    ("USE = lax.DotAlgorithmPreset.BF16_BF16_F32\n", "USE", "a dot algorithm preset"),
    ("def f(x, p):\n    return p\n\nKEEP = [f]\n", "p", "`f` is passed around, so not every call of it is in view"),
    ("def f(x, p):\n    return p\n\nf(1, *rest)\n", "p", "a call of `f` passes *args or **kwargs"),
    ("def f(x, p):\n    return p\n\nf(1, p=P.HIGH)\nf(2)\n", "p", "a call of `f` leaves `p` out"),
    ("def f(x, p):\n    return p\n", "p", "`p` is a parameter of `f`, whose callers are outside this module"),
    ("g = lambda p: p\n", "p", "it is a lambda's parameter"),
    ("A = B\nB = A\n", "A", "it depends on itself"),
])
def test_what_the_module_cannot_bound_is_unbounded_with_why(source: str, name: str, why: str) -> None:
    values, module = _values(source)
    with pytest.raises(Unbounded, match=why.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")):
        values.possible(module.module_scope.bindings[name][0].value if name == "USE" else _name(module, name))


def test_a_parameter_nothing_here_sets_but_its_default() -> None:
    values, module = _values("""
        def helper(x, precision=None):
            return precision

        def other(x, precision=P.HIGH):
            return precision
    """)
    helper, other = _function(module, "helper"), _function(module, "other")
    assert values.passed_by_callers(helper, helper.args.args[1])  # its callers elsewhere set it
    assert not values.passed_by_callers(other, other.args.args[1])  # it runs with its written default


def test_pairs_the_value_flow_carries_where_the_walk_stops() -> None:
    """Through a dict and a partial the walk does not follow: the pair literals the module's value
    flow carries into the value, in source order (strings and scalars are no pair)."""
    values, module = _values("""
        OPTIONS = {"fast": (P.DEFAULT, P.HIGH), "slow": [P.HIGH, P.HIGHEST], "name": ("a", "b")}

        def body(x_ref, o_ref, precision):
            o_ref[...] = x_ref[...]

        def run(x, mode):
            kernel = functools.partial(body, precision=OPTIONS[mode])
            return pl.pallas_call(kernel, out_shape=x)(x)
    """)
    keyword = next(node for node in ast.walk(module.tree) if isinstance(node, ast.keyword) and node.arg == "precision")
    with pytest.raises(Unbounded):
        values.possible(keyword.value)
    found = values.pairs_flowing_into(keyword.value)
    assert [(written.lineno - HEAD.count("\n"), literal.levels) for written, literal in found] == [
        (1, (Level.DEFAULT, Level.HIGH)), (1, (Level.HIGH, Level.HIGHEST))]
    assert [written.col_offset for written, _ in found] == sorted(written.col_offset for written, _ in found)
    body = _function(module, "body")
    assert [ast.unparse(value) for value in values.bound_values(body, body.args.args[2])] == ["OPTIONS[mode]"]


@pytest.mark.parametrize(("source", "pair"), [
    ("PAIR = (P.DEFAULT, P.HIGH)\nUSE = PAIR\n", True),
    ("FAST = P.DEFAULT if compat.fast else P.HIGH\nUSE = [FAST, P.HIGHEST]\n", True),
    ("USE = P.HIGHEST\n", False),
    ("USE = ('float32', 'bfloat16')\n", False),  # strings: a dtype pair as much as a precision
    ("USE = compat.PAIR\n", False),  # not bounded here: the link's to answer
])
def test_a_pair_of_precision_members(source: str, pair: bool) -> None:
    values, module = _values(source)
    assert values.may_be_a_member_pair(module.module_scope.bindings["USE"][0].value) is pair
