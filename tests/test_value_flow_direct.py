"""codemods/analysis/value_flow.py called in the test's process (issue 35, item 3: mutation testing).

tests/test_value_flow.py checks that each construct carries a kernel body to its launch; these check
that it carries only what it should: exactly the values each launch's body may be (a tuple's element
by position, a dict's values and not its keys, the element `enumerate` pairs with its index, another
module's value with the mention that reads it, why a value is unknown), the launches found and the
calls that configure them, the parameters a body comes from, and `returned_values`. Static analysis,
no jax import.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from codemods.analysis.kernel_scope import _BODY_KEYWORDS, LAUNCHERS
from codemods.analysis.module import ModuleIndex
from codemods.analysis.value_flow import (
    Bound, Class, Foreign, ForeignResult, Function, Instance, Launcher, Mapping, Partial, Sequence, Unknown,
    ValueFlow, returned_values,
)

HEAD = """\
import functools
from functools import partial
from jax.experimental import pallas as pl
import jax.numpy as jnp
import other


def a(x_ref):
    pass


def b(x_ref):
    pass


def c(x_ref):
    pass


"""
SPECS = {name: (spec.body_position, _BODY_KEYWORDS) for name, spec in LAUNCHERS.items()}


def _flow(source: str) -> ValueFlow:
    return ValueFlow(ModuleIndex.parse(HEAD + textwrap.dedent(source)), SPECS)


def _label(value) -> str:
    if isinstance(value, Function):
        return getattr(value.node, "name", "lambda")
    if isinstance(value, Bound):
        return "bound " + value.node.name
    if isinstance(value, (Class, Instance)):
        return f"{type(value).__name__.lower()} {value.node.name}"
    if isinstance(value, Foreign):
        return "foreign " + ast.unparse(value.mention)
    if isinstance(value, ForeignResult):
        return "result of " + ast.unparse(value.mention)
    if isinstance(value, Unknown):
        return "unknown: " + value.reason
    if isinstance(value, Launcher):
        return "launcher " + value.name.rsplit(".", 1)[-1]
    return type(value).__name__.lower()


def _bodies(source: str) -> list[set[str]]:
    """For each launch, in the order found: what its body may be, through partials."""
    flow = _flow(source)
    return [{_label(leaf) for leaf, _ in flow.leaves(flow.of(launch.body))} for launch in flow.launches]


def _body(source: str) -> set[str]:
    (found,) = _bodies(source)
    return found


@pytest.mark.parametrize(("source", "body"), [
    ("pl.pallas_call(a)", {"a"}),
    ("pl.pallas_call(kernel=a)", {"a"}),
    ("pl.pallas_call(body=a)", {"a"}),
    ("pl.pallas_call(f=a)", {"a"}),
    ("pl.pallas_call(a, kernel=b)", {"a"}),
    ("k = a\npl.pallas_call(k)", {"a"}),
    ("k: object = a\npl.pallas_call(k)", {"a"}),
    ("k: object\npl.pallas_call(k)", set()),
    ("k = a if cond else b\npl.pallas_call(k)", {"a", "b"}),
    ("pl.pallas_call(cond and a or b)", {"a", "b"}),
    ("(k := a)\npl.pallas_call(k)", {"a"}),
    ("B = (a, b)\npl.pallas_call(B[1])", {"b"}),
    ("B = (a, b)\npl.pallas_call(B[0])", {"a"}),
    # A list changed after it is built: a read by position finds what was stored since, too.
    ("B = [a, b]\nB[0] = c\npl.pallas_call(B[0])", {"a", "c"}),
    ("B = [a, b]\nB[1] = c\npl.pallas_call(B[0])", {"a", "c"}),  # which position: not followed
    ("B = [a]\nB.insert(0, c)\npl.pallas_call(B[0])", {"a", "c"}),
    ("B = [a]\nB.append(c)\npl.pallas_call(B[-1])", {"a", "c"}),
    ("B = [a, b]\nB.extend([c])\nk, _ = B\npl.pallas_call(k)", {"a", "c"}),
    ("B = [a, b]\npl.pallas_call(B[0])", {"a"}),  # unchanged: the position alone
    ("B = [a, b]\nB.pop(0)\npl.pallas_call(B[0])", {"a", "b"}),  # what moved to another position
    ("B = [a, b]\ndel B[0]\npl.pallas_call(B[0])", {"a", "b"}),
    ("B = [a, b]\nB.reverse()\npl.pallas_call(B[0])", {"a", "b"}),
    ("B = [a, b]\nB.sort(key=id)\npl.pallas_call(B[1])", {"a", "b"}),
    ("B = [a, b]\nB.remove(a)\npl.pallas_call(B[0])", {"a", "b"}),
    ("B = [a, b]\nB.insert(0, c)\npl.pallas_call(B[1])", {"a", "b", "c"}),
    ("B = (a, b)\nC = list(B)\nC.pop(0)\npl.pallas_call(B[0])", {"a"}),  # a tuple does not move
    ("B = (a, b)\npl.pallas_call(B[-2])", {"a"}),  # a negative constant counts from the end
    ("B = (a, b)\npl.pallas_call(B[-1])", {"b"}),
    ("B = (a, b)\npl.pallas_call(B[2])", {"a", "b"}),
    ("B = (a, b)\npl.pallas_call(B[-3])", {"a", "b"}),
    ("B = (a, b)\npl.pallas_call(B[i])", {"a", "b"}),
    ("B = (a, b)\npl.pallas_call(B['x'])", {"a", "b"}),
    ("B = (a, b)\npl.pallas_call(B[0:1])", {"sequence"}),
    ("B = (a, b)\npl.pallas_call(B[0:1][0])", {"a", "b"}),
    ("B = (a, b)\npl.pallas_call(B[1:][0])", {"a", "b"}),  # was `a` alone: the slice kept the positions
    ("B = [a, *C]\nC = (b,)\npl.pallas_call(B[0])", {"a", "b"}),
    ("B = {a, b}\npl.pallas_call(B[0])", {"a", "b"}),
    ("B = (a, b)\nB += (c,)\npl.pallas_call(B[0])", {"a", "c"}),
    ("B = (a,) + (b,)\npl.pallas_call(B[0])", {"a", "b"}),
    ("B = (a,) | (b,)\npl.pallas_call(B[0])", {"a", "b"}),
    ("B = (a,) * 2\npl.pallas_call(B[0])", set()),
    ("D = {'x': a, b: c}\npl.pallas_call(D['x'])", {"a", "c"}),
    ("D = {'x': a, b: c}\nfor k in D:\n    pl.pallas_call(k)", {"b"}),
    ("D = {'x': a, b: c}\nfor k in D.keys():\n    pl.pallas_call(k)", {"b"}),
    ("D = {'x': a, b: c}\nfor k in D.values():\n    pl.pallas_call(k)", {"a", "c"}),
    ("D = {'x': a, b: c}\nfor k, v in D.items():\n    pl.pallas_call(v)", {"a", "c"}),
    ("D = {'x': a, b: c}\nfor k, v in D.items():\n    pl.pallas_call(k)", {"b"}),
    ("D = {**E, 'y': b}\nE = {'x': a}\npl.pallas_call(D['x'])", {"a", "b"}),
    ("D = {**E}\nE = {a: c}\nfor k in D:\n    pl.pallas_call(k)", {"a"}),
    ("D = {k: v for k, v in ((a, b),)}\npl.pallas_call(D[0])", {"b"}),
    ("D = {k: v for k, v in ((a, b),)}\nfor k in D:\n    pl.pallas_call(k)", {"a"}),
    ("B = [f for f in (a, b)]\npl.pallas_call(B[0])", {"a", "b"}),
    ("B = {f for f in (a, b) if f}\npl.pallas_call(next(iter(B)))", {"a", "b"}),
    ("for f in (a, b):\n    pl.pallas_call(f)", {"a", "b"}),
    ("for i, f in enumerate([a, b]):\n    pl.pallas_call(f)", {"a", "b"}),
    ("for f, i in enumerate([a, b]):\n    pl.pallas_call(f)", set()),
    ("for x, f in zip([a], [b]):\n    pl.pallas_call(f)", {"b"}),
    ("for f, x in zip([a], [b]):\n    pl.pallas_call(f)", {"a"}),
    ("for f in zip([a], [b]):\n    pl.pallas_call(f)", {"sequence"}),
    ("for f in reversed([a]):\n    pl.pallas_call(f)", {"a"}),
    ("for f in sorted([a]):\n    pl.pallas_call(f)", {"a"}),
    ("for f in list():\n    pl.pallas_call(f)", set()),
    ("pl.pallas_call(tuple([a])[0])", {"a"}),
    ("pl.pallas_call(next(iter([a, b])))", {"a", "b"}),
    ("pl.pallas_call(next())", set()),
    ("x, y = a, b\npl.pallas_call(y)", {"b"}),
    ("x, y = a, b\npl.pallas_call(x)", {"a"}),
    ("[x, y] = [a, b]\npl.pallas_call(y)", {"b"}),
    ("x, y = a, b, c\npl.pallas_call(y)", {"a", "b", "c"}),
    ("x, *y = a, b, c\npl.pallas_call(x)", {"a", "b", "c"}),
    ("x, *y = a, b, c\npl.pallas_call(y[0])", {"a", "b", "c"}),
    ("x, *y = a, b, c\npl.pallas_call(y)", {"sequence"}),
    ("x, y = {a: b}\npl.pallas_call(y)", {"a"}),
    ("(x, y), z = (a, b), c\npl.pallas_call(y)", {"b"}),
    ("x, y = other.PAIR\npl.pallas_call(y)", {"foreign other.PAIR"}),
    ("x, y = getattr(m, 'n')\npl.pallas_call(y)", {"unknown: `getattr(...)`"}),
    ("B = []\nB.append(a)\npl.pallas_call(B[0])", {"a"}),
    ("B = set()\nB.add(a)\npl.pallas_call(next(iter(B)))", set()),  # `set()`: no argument, no sequence
    ("B = []\nB.insert(0, a)\npl.pallas_call(B[0])", {"a"}),
    ("B = []\nB.insert(a)\npl.pallas_call(B[0])", set()),
    ("B = []\nB.extend([a, b])\npl.pallas_call(B[0])", {"a", "b"}),
    ("B = [a]\npl.pallas_call(B.pop())", {"a"}),
    ("B = [a]\npl.pallas_call(B.pop(0))", {"a"}),
    ("pl.pallas_call(locals()['a'])", {"unknown: `locals(...)`"}),
    ("pl.pallas_call(vars(m)['a'])", {"unknown: `vars(...)`"}),
    ("pl.pallas_call(__import__('m').body)", {"unknown: `__import__(...)`"}),
    ("for p in other.TABLE.items():\n    pl.pallas_call(p)", {"sequence", "result of other.TABLE.items"}),  # a pair
    ("B = [a]\npl.pallas_call(B.copy()[0])", {"a"}),
    ("B = []\nB[0] = a\npl.pallas_call(B[0])", {"a"}),
    ("D = {}\nD['x'] = a\npl.pallas_call(D['x'])", {"a"}),
    ("D = {}\nD[b] = a\nfor k in D:\n    pl.pallas_call(k)", {"b"}),
    ("D = {}\nD.update({'x': a}, y=b)\npl.pallas_call(D['x'])", {"a", "b"}),
    ("D = {'x': a}\npl.pallas_call(D.get('x'))", {"a"}),
    ("D = {'x': a}\npl.pallas_call(D.get('x', b))", {"a", "b"}),
    ("D = {}\nD.setdefault('x', b)\npl.pallas_call(D['x'])", {"b"}),
    ("D = {}\npl.pallas_call(D.setdefault('x', b))", {"b"}),
    ("D = {'x': a}\npl.pallas_call(D.pop('x'))", {"a"}),
    ("D = {'x': a}\npl.pallas_call(D.copy()['x'])", {"a"}),
    ("D = {'x': a}\npl.pallas_call(D.get())", {"a"}),
    ("D = dict(x=a)\npl.pallas_call(D['x'])", {"a"}),
    ("D = dict({'x': a}, **E)\nE = {'y': b}\npl.pallas_call(D['x'])", {"a", "b"}),
    ("D = dict([(a, b)])\npl.pallas_call(D[0])", {"b"}),
    ("D = dict([(a, b)])\nfor k in D:\n    pl.pallas_call(k)", {"a"}),
    ("D = dict([(a, b, c)])\npl.pallas_call(D[0])", set()),
    ("pl.pallas_call(functools.partial(a, n=1))", {"a"}),
    ("pl.pallas_call(partial(partial(a), n=1))", {"a"}),
    ("pl.pallas_call(partial(*fs))", set()),
    ("def make():\n    return a\npl.pallas_call(make())", {"a"}),
    ("def make():\n    def inner():\n        return b\n    return a\npl.pallas_call(make())", {"a"}),
    ("make = lambda: a\npl.pallas_call(make())", {"a"}),
    ("pl.pallas_call(lambda x_ref: None)", {"lambda"}),
    ("pl.pallas_call(getattr(m, 'body'))", {"unknown: `getattr(...)`"}),
    ("pl.pallas_call(eval('a'))", {"unknown: `eval(...)`"}),
    ("pl.pallas_call(getattr(m, 'body')())", {"unknown: calls a value this analysis does not follow"}),
    ("def run(*bodies):\n    return pl.pallas_call(bodies[0])\nrun(a)", {"unknown: `*args` / `**kwargs`"}),
    ("def run(**bodies):\n    return pl.pallas_call(bodies['k'])\nrun(k=a)", {"unknown: `*args` / `**kwargs`"}),
    ("def run(u):\n    return pl.pallas_call(u.body)\nrun(getattr(m, 'x'))", {"unknown: `getattr(...)`"}),
    ("pl.pallas_call(other.body)", {"foreign other.body"}),
    ("pl.pallas_call(other.make(1))", {"result of other.make"}),
    ("pl.pallas_call(other.make(1).body)", {"foreign other.make(1).body"}),
    ("pl.pallas_call(other.BODIES[0])", {"foreign other.BODIES"}),
    ("for f in other.BODIES:\n    pl.pallas_call(f)", {"foreign other.BODIES"}),
    ("for f in other.TABLE.values():\n    pl.pallas_call(f)", {"foreign other.TABLE", "result of other.TABLE.values"}),
    ("for k, f in other.TABLE.items():\n    pl.pallas_call(f)", {"foreign other.TABLE", "result of other.TABLE.items"}),
    ("pl.pallas_call(other.TABLE.get('x'))", {"foreign other.TABLE", "result of other.TABLE.get"}),
    ("pl.pallas_call(other.TABLE.pop('x'))", {"foreign other.TABLE", "result of other.TABLE.pop"}),
    ("pl.pallas_call(other.TABLE.copy())", {"result of other.TABLE.copy"}),
    ("from other import body\npl.pallas_call(body)", {"foreign body"}),
    ("from .kernels import body\npl.pallas_call(body)", {"foreign body"}),
    ("import numpy as np\npl.pallas_call(np.body)", set()),
    ("pl.pallas_call(jnp.body)", set()),
    ("pl.pallas_call(jnp.make())", set()),
    ("import os\npl.pallas_call(os.path.join)", set()),
    ("class H:\n    body = a\npl.pallas_call(H.body)", {"a"}),
    ("class H:\n    body: object = a\npl.pallas_call(H().body)", {"a"}),
    ("class H:\n    body = staticmethod(a)\npl.pallas_call(H.body)", {"a"}),
    ("class H:\n    body = classmethod(a)\npl.pallas_call(H.body)", {"a"}),
    ("class H:\n    body = a\npl.pallas_call(H.other)", set()),
    ("class H:\n    x, body = b, a\npl.pallas_call(H.body)", {"a"}),
    ("class H:\n    def body(self, x_ref):\n        pass\npl.pallas_call(H().body)", {"bound body", "body"}),
    ("class H:\n    def body(self, x_ref):\n        pass\npl.pallas_call(H.body)", {"body"}),
    ("class H:\n    @staticmethod\n    def body(x_ref):\n        pass\npl.pallas_call(H().body)", {"body"}),
    ("class H:\n    class Inner:\n        pass\npl.pallas_call(H.Inner)", {"class Inner"}),
    ("class H:\n    def __call__(self):\n        return a\npl.pallas_call(H()())", {"a"}),
    ("class H:\n    pass\npl.pallas_call(H())", {"instance H"}),
    ("class H:\n    pass\nh = H()\nh.k = a\npl.pallas_call(h.k)", {"a"}),
    ("class H:\n    pass\nH.k = a\npl.pallas_call(H.k)", {"a"}),
    ("class H:\n    def __init__(self, k):\n        self.k = k\n    def go(self):\n        return pl.pallas_call(self.k)\nH(a)",
     {"a"}),
    ("class H:\n    def __init__(self, k):\n        self.k = k\n    def go(self):\n        return pl.pallas_call(self.k)\nH(k=b)",
     {"b"}),
    ("class H:\n    @classmethod\n    def make(cls):\n        return cls.k\n    k = a\npl.pallas_call(H.make())", {"a"}),
    # a method under another decorator still takes an instance (`@classmethod` alone gives the class)
    ("class H:\n    def __init__(self, k):\n        self.k = k\n    @functools.cache\n    def go(self):\n"
     "        return pl.pallas_call(self.k)\nH(a)", {"a"}),
    ("class H:\n    def body(self, x_ref):\n        pass\n    @property\n    def go(self):\n"
     "        return pl.pallas_call(self.body)", {"bound body", "body"}),
    ("async def f():\n    pl.pallas_call(await g())\nasync def g():\n    return a", {"a"}),
    ("def f(k=a, *, j=b):\n    pl.pallas_call(j)", {"b"}),
    ("def f(k=a, *, j=b):\n    pl.pallas_call(k)", {"a"}),
    ("def f(x, k=a):\n    pl.pallas_call(x)", set()),
    ("def f(x, /, k=a):\n    pl.pallas_call(k)", {"a"}),
    ("def f(x, k):\n    pl.pallas_call(k)\nf(a, b)", {"b"}),
    ("def f(x, k):\n    pl.pallas_call(k)\nf(a, k=c)", {"c"}),
    ("def f(x, k):\n    pl.pallas_call(k)\nf(a, **opts)", set()),
    ("def f(x, k):\n    pl.pallas_call(k)\nf(*[a, b])", {"a", "b"}),
    ("def f(x, k):\n    pl.pallas_call(x)\nf(b, *[a])", {"b"}),
    ("def f(x, k):\n    pl.pallas_call(k)\nf(a, b, c)", {"b"}),
    ("def f(x, k):\n    pl.pallas_call(k)\nfunctools.partial(f, a)(b)", {"b"}),
    ("def f(x, k):\n    pl.pallas_call(k)\nfunctools.partial(f, k=a)(c)", {"a"}),
    ("def f(x, k):\n    pl.pallas_call(k)\nfunctools.partial(f, k=a)(c, k=b)", {"a", "b"}),  # what a partial binds reaches k when it is made
    ("def f(x, k):\n    pl.pallas_call(k)\nfunctools.partial(f, a, b)", {"b"}),
    ("def f(x, *, k):\n    pl.pallas_call(k)\nf(a, k=c)", {"c"}),
    ("def f(x):\n    pl.pallas_call(x)\nlist(map(f, [a], [b]))", {"a"}),
    ("def f(x):\n    return x\npl.pallas_call(list(map(f, [a]))[0])", {"a"}),  # what the function returns
    ("def f(x, y):\n    pl.pallas_call(y)\nlist(map(f, [a], [b]))", {"b"}),
    ("class H:\n    def m(self, k):\n        pl.pallas_call(k)\nH().m(a)", {"a"}),
    ("def deco(k):\n    return k\n@deco\ndef wrapped(x_ref):\n    pass\npl.pallas_call(wrapped)", {"wrapped"}),
    ("def deco(k):\n    return b\n@deco\ndef wrapped(x_ref):\n    pass\npl.pallas_call(wrapped)", {"b", "wrapped"}),
])
def test_what_a_launchs_body_may_be(source: str, body: set) -> None:
    assert _body(source) == body


@pytest.mark.parametrize(("source", "launches"), [
    ("pl.pallas_call(out_shape=a)", []),
    ("pl.pallas_call(*bodies)", []),
    ("pl.pallas_call(**options)", []),
    ("pl.pallas_call(b)(a)", [{"b"}]),
    ("launch = pl.pallas_call\nlaunch(a)\nlaunch(b)", [{"a"}, {"b"}]),
    ("from jax.experimental.pallas import pallas_call as launch\nlaunch(a)", [{"a"}]),
    ("pl.kernel(a, mesh=m)", [{"a"}]),
    ("pl.core_map(m)(a)", [{"a"}]),
    ("pl.core_map(a)", []),
    ("pl.kernel(mesh=m)(a)", [{"a"}]),
    ("pl.kernel(mesh=m)(out_shape=1)(a)", [{"a"}]),
    ("@pl.kernel(mesh=m)\ndef k(x_ref):\n    pass", [{"k"}]),
    ("@pl.core_map(m)\ndef k():\n    pass", [{"k"}]),
    ("@functools.partial(pl.pallas_call, out_shape=1)\ndef k(x_ref):\n    pass", [{"k"}]),
    ("functools.partial(pl.pallas_call, out_shape=1)(a)", [{"a"}]),
    ("functools.partial(pl.pallas_call, a)", [{"a"}]),
    ("list(map(pl.pallas_call, [a, b]))", [{"a", "b"}]),
    ("list(map(pl.pallas_call))", []),
    ("jnp.dot(a, b)", []),
    ("other.pallas_call(a)", []),
    ("def run(k):\n    return pl.pallas_call(k)\nrun(a)\nrun(b)", [{"a", "b"}]),
])
def test_the_launches_found(source: str, launches: list) -> None:
    assert sorted(map(sorted, _bodies(source))) == sorted(map(sorted, launches))


def test_the_calls_that_configure_a_launch() -> None:
    flow = _flow("pl.kernel(mesh=m)(out_shape=1)(a)\nfunctools.partial(pl.pallas_call, out_shape=2)(b)\n")
    first, second = flow.launches
    assert [ast.unparse(call) for call in first.calls] == [
        "pl.kernel(mesh=m)", "pl.kernel(mesh=m)(out_shape=1)", "pl.kernel(mesh=m)(out_shape=1)(a)"]
    assert first.launcher == "jax.experimental.pallas.kernel"
    assert first.site is first.calls[-1]
    assert [ast.unparse(call) for call in second.calls] == [
        "functools.partial(pl.pallas_call, out_shape=2)", "functools.partial(pl.pallas_call, out_shape=2)(b)"]
    assert second.launcher == "jax.experimental.pallas.pallas_call"


def test_a_decorated_body_is_launched_at_its_def() -> None:
    flow = _flow("@pl.kernel(mesh=m)\ndef k(x_ref):\n    pass\n")
    (launch,) = flow.launches
    assert isinstance(launch.site, ast.FunctionDef) and launch.site.name == "k"
    assert [ast.unparse(call) for call in launch.calls] == ["pl.kernel(mesh=m)"]


def test_what_a_partial_binds_reaches_the_bodys_parameters() -> None:
    flow = _flow("def body(x_ref, fn=None):\n    fn()\npl.pallas_call(functools.partial(body, fn=a))\n")
    (fn,) = [node for node in ast.walk(flow.module.tree) if isinstance(node, ast.arg) and node.arg == "fn"]
    assert {_label(v) for v in flow.of(flow.binding_of(fn))} == {"a"}
    ((function, partials),) = list(flow.functions(flow.of(flow.launches[0].body)))
    assert function.name == "body"
    assert [ast.unparse(p) for p in partials] == ["functools.partial(body, fn=a)"]


def test_partials_of_partials_outermost_first() -> None:
    flow = _flow("p1 = partial(a, n=1)\np2 = partial(p1, m=2)\npl.pallas_call(p2)\n")
    ((function, partials),) = list(flow.functions(flow.of(flow.launches[0].body)))
    assert function.name == "a"
    assert [ast.unparse(p) for p in partials] == ["partial(p1, m=2)", "partial(a, n=1)"]
    assert {type(v) for v in flow.of(flow.launches[0].body)} == {Partial}


def test_a_partial_of_itself_ends() -> None:
    flow = _flow("p = partial(a)\np = partial(p)\npl.pallas_call(p)\n")
    assert {function.name for function, _ in flow.functions(flow.of(flow.launches[0].body))} == {"a"}


def test_a_name_aliasing_a_partial_is_a_partial() -> None:
    flow = _flow("P = functools.partial\npl.pallas_call(P(a, n=1))\n")
    assert {type(v) for v in flow.of(flow.launches[0].body)} == {Partial}


def _label_set(flow: ValueFlow) -> set[str]:
    return {_label(leaf) for leaf, _ in flow.leaves(flow.of(flow.launches[0].body))}


@pytest.mark.parametrize(("source", "parameters"), [
    ("def run(k):\n    return pl.pallas_call(k)", ["k"]),
    ("def run(k):\n    return pl.pallas_call(functools.partial(k, n=1))", ["k"]),
    ("def run(k):\n    j = k\n    return pl.pallas_call(j)", ["k"]),
    ("def run(k, ks):\n    return pl.pallas_call((k, ks)[0])", ["k"]),
    ("def run(k):\n    return pl.pallas_call(a)", []),
    ("def run(x, *, k=a):\n    return pl.pallas_call(k)", ["k"]),
])
def test_the_parameters_a_body_comes_from(source: str, parameters: list) -> None:
    flow = _flow(source)
    (launch,) = flow.launches
    assert [arg.arg for arg in flow.parameters_into(launch.body)] == parameters
    assert [arg.arg for arg in flow.parameters_into(launch.body)] == parameters  # asked again: the same


def test_values_of_a_key_nothing_flows_into() -> None:
    flow = _flow("")
    assert flow.of(("no", "such", "key")) == frozenset()
    assert flow.launches == []
    assert flow.binding_of(ast.Name("x")) is None


def test_the_values_of_containers() -> None:
    flow = _flow("B = (a, b)\nD = {'x': a}\nS = [*B]\n")
    tuple_node, dict_node, list_node = [statement.value for statement in flow.module.tree.body[-3:]]
    (sequence,) = flow.of(tuple_node)
    assert sequence == Sequence(tuple_node, tuple(tuple_node.elts))
    assert flow.of(dict_node) == {Mapping(dict_node)}
    assert flow.of(list_node) == {Sequence(list_node, None)}
    assert {_label(v) for v in flow.of(("elements", list_node))} == {"a", "b"}


def test_a_launcher_read_through_a_name_and_an_import() -> None:
    flow = _flow("launch = pl.pallas_call\nx = launch\n")
    x = flow.module.tree.body[-1].value
    assert flow.of(x) == {Launcher("jax.experimental.pallas.pallas_call")}


def test_returned_values() -> None:
    function = ast.parse(textwrap.dedent("""
        def f(x):
            if x:
                return 1
            for y in x:
                return 2
            def inner():
                return 3
            class C:
                def m(self):
                    return 4
            g = lambda: 5
            return
        """)).body[0]
    assert sorted(ast.unparse(value) for value in returned_values(function)) == ["1", "2"]


def test_a_function_of_the_modules_own_named_partial_is_called() -> None:
    """`partial` is functools.partial only when it is bound so: a def of that name is called."""
    source = "from jax.experimental import pallas as pl\n\n\ndef a(x_ref):\n    pass\n\n\ndef b(x_ref):\n    pass\n\n\n" \
        "def partial(f):\n    return b\n\n\npl.pallas_call(partial(a))\n"
    flow = ValueFlow(ModuleIndex.parse(source), SPECS)
    (launch,) = flow.launches
    assert {_label(leaf) for leaf, _ in flow.leaves(flow.of(launch.body))} == {"b"}


def test_displays_into_are_the_tuples_and_lists_that_reach_a_value_in_source_order() -> None:
    """What JAX001 asks for the pairs flowing into a precision it cannot follow by name: the tuple and
    list displays the flow carries there (through a dict, a partial and a call), not a dict's keys."""
    flow = _flow("""
        TABLE = {("k", 1): [1, 2], "b": (3, 4)}
        late = (5, 6)

        def pick(options, key):
            return options[key]

        chosen = functools.partial(pick, TABLE)("b") or late
    """)
    chosen = flow.module.module_scope.bindings["chosen"][0].value
    assert [ast.unparse(display) for display in flow.displays_into(chosen)] == ["[1, 2]", "(3, 4)", "(5, 6)"]
