"""The value flow (codemods/analysis/value_flow.py): every construct that carries a kernel body to its
launch, asked directly, and input built to make such an analysis loop or blow up.

Each construct is one line of the flow; dropping it (a one-line bug) leaves its body unfound here. The
compositions are the property test's (tests/test_flow_property.py) and the goldens'. Static analysis,
no jax import.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from codemods.analysis.kernel_scope import find_kernels
from codemods.analysis.module import ModuleIndex

HEAD = """\
import functools
from functools import partial
from jax.experimental import pallas as pl


def body(x_ref, o_ref):
    pass


def other(x_ref, o_ref):
    pass


"""


def _kernels(source: str) -> set[str]:
    scope = find_kernels(ModuleIndex.parse(HEAD + textwrap.dedent(source)))
    return {getattr(function, "name", "lambda") for function in scope.kernels}


@pytest.mark.parametrize("source", [
    "for k, w in zip((body,), (1,)):\n    pl.pallas_call(k)",
    "for i, k in enumerate([body]):\n    pl.pallas_call(k)",
    "for name, k in {'a': body}.items():\n    pl.pallas_call(k)",
    "for k in {'a': body}.values():\n    pl.pallas_call(k)",
    "for k in reversed((body,)):\n    pl.pallas_call(k)",
    "for k in sorted([body], key=id):\n    pl.pallas_call(k)",
    "ks = list((body,))\npl.pallas_call(ks[0])",
    "calls = [pl.pallas_call(k) for k in (body,)]",
    "calls = {n: pl.pallas_call(k) for n, k in (('a', body),)}",
    "pl.pallas_call(next(k for k in (body,)))",
    "pl.pallas_call(partial(partial(body, a=1), b=2))",
    "ks = (other, body)\npl.pallas_call(ks[1])",
    "ks = (other, body)\npl.pallas_call(ks[-1])",
    "a, b = other, body\npl.pallas_call(b)",
    "a, *rest = (other, body)\npl.pallas_call(rest[0])",
    "(k := body)\npl.pallas_call(k)",
    "pl.pallas_call(None or body)",
    "pl.pallas_call(body if True else None)",
    "ks = []\nks.append(body)\npl.pallas_call(ks[0])",
    "ks = []\nks.extend((body,))\npl.pallas_call(ks[0])",
    "table = {}\ntable.update(a=body)\npl.pallas_call(table['a'])",
    "table = {}\ntable['a'] = body\npl.pallas_call(table.get('a'))",
    "table = dict(a=body)\npl.pallas_call(table['a'])",
    "table = dict(zip(('a',), (body,)))\npl.pallas_call(table['a'])",
    "table = {**{'a': body}}\npl.pallas_call(table['a'])",
    "ks = (other,) + (body,)\npl.pallas_call(ks[1])",
    "list(map(pl.pallas_call, (body,)))",
    "def make():\n    return body\npl.pallas_call(make())",
    "def make():\n    return lambda x_ref, o_ref: body(x_ref, o_ref)\nk = make()\npl.pallas_call(k)",
    "def run(k):\n    return pl.pallas_call(k)\nrun(*(body,))",
    "def run(k=body):\n    return pl.pallas_call(k)",
    "def deco(k):\n    return k\n@deco\ndef wrapped(x_ref):\n    body(x_ref, x_ref)\npl.pallas_call(wrapped)",
    "class C:\n    k = body\npl.pallas_call(C.k)",
    "class C:\n    def __init__(self, k):\n        self.k = k\n    def go(self):\n        return pl.pallas_call(self.k)\nC(body)",
    "class C:\n    k = staticmethod(body)\n    @classmethod\n    def go(cls):\n        return pl.pallas_call(cls.k)",
    "class C:\n    def kernel(self, x_ref, o_ref):\n        body(x_ref, o_ref)\n    def go(self):\n        return pl.pallas_call(self.kernel)",
    "tpu_call = functools.partial(pl.pallas_call, out_shape=1)\ntpu_call(body)",
    "@functools.partial(pl.pallas_call, out_shape=1)\ndef decorated(x_ref):\n    body(x_ref, x_ref)",
    "launch = pl.pallas_call\nlaunch(body)",
])
def test_each_construct_carries_a_body_to_its_launch(source: str) -> None:
    assert "body" in _kernels(source)


def test_a_value_bound_in_one_module_level_loop_is_every_value_the_name_takes() -> None:
    """Flow-insensitive by design: a name holds what any of its bindings holds (a body is never missed
    because the loop that binds it comes later)."""
    found = _kernels("for k in (other,):\n    pass\nfor k in (body,):\n    pass\npl.pallas_call(k)\n")
    assert found == {"body", "other"}


@pytest.mark.parametrize("index, launched", [
    ("-1", "body"), ("1", "body"), ("-2", "other"), ("0", "other"), ("+1", "body"), ("- 1", "body"),
])
def test_a_constant_index_launches_that_element_only(index: str, launched: str) -> None:
    """`BODIES[-1]` is a `UnaryOp` in the tree, not a constant: it was read as an unknown index, and
    the plain function beside the body got a kernel's fix."""
    for container in ("(other, body)", "[other, body]"):
        assert _kernels(f"ks = {container}\npl.pallas_call(ks[{index}])\n") == {launched}


def test_an_unknown_index_launches_each_element_that_takes_refs() -> None:
    """Each may be the body (an element that takes no refs is code the launch may run, not kernel
    code: tests/test_packages.py)."""
    assert _kernels("ks = (other, body)\ndef go(i):\n    pl.pallas_call(ks[i])\n") == {"body", "other"}
    assert _kernels("def plain(x):\n    return x\nks = (plain, body)\ndef go(i):\n    pl.pallas_call(ks[i])\n") == {"body"}


def test_a_function_called_by_name_only_is_no_kernel() -> None:
    assert _kernels("def plain():\n    return body\nplain()\n") == set()


# -- input that would loop or blow up a resolver that recurses on the user's code --

@pytest.mark.parametrize("source", [
    "a = b\nb = a\nb = body\npl.pallas_call(a)",  # a cycle of assignments
    "a = a\na = body\npl.pallas_call(a)",
    "xs = []\nxs.append(xs)\nxs.append(body)\npl.pallas_call(xs[0][0][0])",  # a container that holds itself
    "d = {}\nd['d'] = d\nd['k'] = body\npl.pallas_call(d['d']['d']['k'])",
    "def f():\n    return g()\ndef g():\n    return f() or body\npl.pallas_call(f())",  # mutually recursive factories
    "p = partial(body)\np = partial(p, a=1)\npl.pallas_call(p)",  # a partial of itself
    "def run(k):\n    return run(k) or pl.pallas_call(k)\nrun(body)",
])
def test_cycles_end_and_still_find_the_body(source: str) -> None:
    assert "body" in _kernels(source)


def test_a_ten_thousand_deep_alias_chain() -> None:
    chain = "a0 = body\n" + "".join(f"a{i + 1} = a{i}\n" for i in range(10_000))
    assert _kernels(chain + "pl.pallas_call(a10000)\n") == {"body"}


def test_a_launch_inside_a_five_thousand_element_literal() -> None:
    elements = ", ".join(["other"] * 2_500 + ["pl.pallas_call(body)"] + ["1"] * 2_499)
    assert _kernels(f"TABLE = [{elements}]\n") == {"body"}


def test_many_partials_of_partials_end() -> None:
    """Each partial applied through every other: the chain of partials applied is bounded."""
    lines = ["p0 = partial(body)"] + [f"p{i + 1} = partial(p{i}, a{i}=1)" for i in range(200)]
    lines += [f"p0 = partial(p{200})", "pl.pallas_call(p0)"]
    assert _kernels("\n".join(lines) + "\n") == {"body"}


def test_the_flow_never_recurses_on_deep_expressions() -> None:
    """A body nested 150 conditionals deep (the parser allows 200 nested parentheses)."""
    expression = "body"
    for _ in range(150):
        expression = f"({expression} if c else None)"
    source = HEAD + f"c = 1\npl.pallas_call({expression})\n"
    tree = ast.parse(source)
    scope = find_kernels(ModuleIndex(source, tree))
    assert {function.name for function in scope.kernels} == {"body"}  # type: ignore[union-attr]
