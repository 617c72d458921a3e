"""codemods/analysis/module.py called in the test's process (issue 35, item 3: mutation testing).

The module index every rule reads: positions (UTF-8 byte columns to text offsets and back, the
line ends Python reads), the scopes and what each name may refer to (imports, aliases, `global`,
`nonlocal`, class bodies, comprehensions, `:=`), what a loop over a literal binds, and the maps
the walk builds (parents, calls in source order, enclosing functions). Exact answers.
"""

from __future__ import annotations

import ast
import warnings

import pytest

from codemods.analysis.module import (
    MAX_ALIAS_DEPTH,
    ModuleIndex,
    _walked_fields,
    ordered_arguments,
)


def _names(index: ModuleIndex, name: str) -> list[ast.Name]:
    """Every Name `name` in the module, in source order."""
    found = [node for node in ast.walk(index.tree) if isinstance(node, ast.Name) and node.id == name]
    return sorted(found, key=lambda node: (node.lineno, node.col_offset))


def _last_load(index: ModuleIndex, name: str) -> ast.Name:
    return [node for node in _names(index, name) if isinstance(node.ctx, ast.Load)][-1]


def _expr(index: ModuleIndex, text: str) -> ast.expr:
    """The (last) expression of the module spelled `text`."""
    found = [node for node in ast.walk(index.tree) if isinstance(node, ast.expr) and ast.unparse(node) == text]
    assert found, text
    return sorted(found, key=lambda node: (node.lineno, node.col_offset))[-1]


def _call(index: ModuleIndex, text: str) -> ast.Call:
    node = _expr(index, text)
    assert isinstance(node, ast.Call)
    return node


def _kinds(index: ModuleIndex, name: ast.Name) -> list[tuple[str, int]]:
    """The bindings a load may read: (their scope's kind, their line)."""
    return [(binding.scope.kind, binding.node.lineno) for binding in index.bindings(name)]


# -- positions --

def test_offsets_from_byte_columns() -> None:
    index = ModuleIndex.parse("x = 'é'\ny = 'ab'\nz = 'ü' + w")
    assert index.line_starts == [0, 8, 17]
    assert index.offset(1, 0) == 0
    assert index.offset(1, 4) == 4
    assert index.offset(1, 8) == 7  # past the two-byte é: one character
    assert index.offset(2, 5) == 13
    assert index.offset(3, 12) == 28  # the last line, with no line end
    (w,) = _names(index, "w")
    assert index.span(w) == (27, 28)
    assert index.segment(w) == "w"
    (z_value,) = [node.value for node in index.tree.body if isinstance(node, ast.Assign) and node.targets[0].id == "z"]
    assert index.segment(z_value) == "'ü' + w"
    assert index.end_position(z_value) == (3, 12)


def test_offsets_with_every_line_end_python_reads() -> None:
    index = ModuleIndex.parse("a = 1\r\nb = 2\rc = 3\n\x0cd = 4\n")
    assert index.line_starts == [0, 7, 13, 19, 26]
    (d,) = _names(index, "d")
    assert index.span(d) == (20, 21)
    assert index.line_column(20) == (4, 2)
    assert index.line_column(0) == (1, 1)
    assert index.line_column(6) == (1, 7)
    assert index.line_column(7) == (2, 1)
    assert index.line_column(26) == (5, 1)


def test_line_start_past_the_last_line_is_the_end() -> None:
    index = ModuleIndex.parse("a = 1\nb = 2")
    assert [index.line_start(line) for line in (1, 2, 3, 4)] == [0, 6, 11, 11]
    index = ModuleIndex.parse("a = 1\n")
    assert [index.line_start(line) for line in (1, 2, 3)] == [0, 6, 6]


@pytest.mark.parametrize(("source", "position"), [
    ("x = (a, b)\n", (1, 6)),
    ("x = ( \t a, b)\n", (1, 9)),
    ("x = (\n    a, b)\n", (2, 5)),
    ("x = (\\\n  a, b)\n", (2, 3)),
    ("x = (\r\n a, b)\n", (2, 2)),
    ("x = a, b\n", (1, 5)),
    ("x = [a, b]\n", (1, 5)),
    ("x = (a)\n", (1, 6)),
    ("x = (X, b)\n", (1, 6)),  # only whitespace and line continuations are skipped
])
def test_a_finding_points_inside_a_tuples_parentheses(source: str, position: tuple) -> None:
    index = ModuleIndex.parse(source)
    assert index.position(index.tree.body[0].value) == position


def test_the_users_syntax_warnings_are_not_printed() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ModuleIndex.parse("x = '\\d'\n")
    assert caught == []


# -- what a name refers to --

HEADER = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n"


@pytest.mark.parametrize(("source", "expression", "names"), [
    ("", "jnp.dot", {"jax.numpy.dot"}),
    ("", "jax.numpy.dot", {"jax.numpy.dot"}),
    ("", "lax.Precision.HIGHEST", {"jax.lax.Precision.HIGHEST"}),
    ("", "pl.pallas_call", {"jax.experimental.pallas.pallas_call"}),
    ("", "jax", {"jax"}),
    ("P = lax.Precision\n", "P.HIGH", {"jax.lax.Precision.HIGH"}),
    ("L = lax\nP = L.Precision\n", "P.HIGH", {"jax.lax.Precision.HIGH"}),
    ("if c:\n    dot = jnp.dot\nelse:\n    dot = lax.dot\n", "dot", {"jax.numpy.dot", "jax.lax.dot"}),
    ("dot = jnp.dot()\n", "dot", set()),  # the result of a call is not the function
    ("x = 1\n", "x", set()),
    ("", "undefined.attr", set()),
    ("", "f().attr", set()),
    ("", "x[0].attr", set()),
    ("import jax._src.lax.lax as private\n", "private.dot_general", {"jax.lax.dot_general"}),
    ("from .sibling import helper\n", "helper.run", {".sibling.helper.run"}),
    ("a, b = jnp, lax\n", "b.dot", {"jax.lax.dot"}),
    ("a: object = jnp\n", "a.dot", {"jax.numpy.dot"}),
])
def test_qualified_names(source: str, expression: str, names: set) -> None:
    index = ModuleIndex.parse(f"{HEADER}{source}y = {expression}\n")
    assert index.qualified_names(index.tree.body[-1].value) == names


def test_qualified_names_are_worked_out_once_per_node_and_depth() -> None:
    """The rules ask of the same nodes again and again: the second answer is the first, not
    worked out again (nor copied: a copy may list its names in another order)."""
    index = ModuleIndex.parse(f"{HEADER}if c:\n    dot = jnp.dot\nelse:\n    dot = lax.dot\ny = dot\n")
    node = index.tree.body[-1].value
    first = index.qualified_names(node)
    worked_out = []
    find = index._find_qualified_names
    index._find_qualified_names = lambda *arguments: worked_out.append(arguments) or find(*arguments)
    assert index.qualified_names(node) is first == {"jax.numpy.dot", "jax.lax.dot"}
    assert worked_out == []
    assert index.qualified_names(node, depth=0) == set() and worked_out == [(node, 0)]


def _chain(length: int) -> str:
    """`a1 = jnp`, `a2 = a1`, ..., `y = a<length>.dot`."""
    lines = ["a1 = jnp"] + [f"a{i} = a{i - 1}" for i in range(2, length + 1)]
    return "\n".join(lines) + f"\ny = a{length}.dot\n"


def test_aliases_are_followed_to_a_depth() -> None:
    for length, names in [(MAX_ALIAS_DEPTH, {"jax.numpy.dot"}), (MAX_ALIAS_DEPTH + 1, set())]:
        index = ModuleIndex.parse(HEADER + _chain(length))
        assert index.qualified_names(index.tree.body[-1].value) == names, length
    index = ModuleIndex.parse(HEADER + _chain(3))
    assert index.qualified_names(index.tree.body[-1].value, depth=3) == {"jax.numpy.dot"}
    assert index.qualified_names(index.tree.body[-1].value, depth=2) == set()
    assert index.qualified_names(index.tree.body[-1].value, depth=0) == set()


def test_an_alias_cycle_ends() -> None:
    index = ModuleIndex.parse("a = b\nb = a\ny = a.x\n")
    assert index.qualified_names(index.tree.body[-1].value) == set()
    assert index.aliases == {"a", "b", "y"}


def test_a_node_of_another_tree_refers_to_nothing() -> None:
    index = ModuleIndex.parse(HEADER)
    assert index.qualified_names(ast.parse("jnp.dot", mode="eval").body) == set()
    assert index.bindings(ast.parse("jnp", mode="eval").body) == []


@pytest.mark.parametrize("wanted", [["jax.numpy.dot"], {"jax.numpy.dot"}, frozenset({"jax.numpy.dot"}),
                                    {"jax.numpy.dot": 1}, ("jax.lax.dot", "jax.numpy.dot")])
def test_matching_name_and_callee(wanted) -> None:
    index = ModuleIndex.parse(f"{HEADER}y = jnp.dot(a, b)\n")
    call = index.tree.body[-1].value
    assert index.matching_name(call.func, wanted) == "jax.numpy.dot"
    assert index.callee(call, wanted) == "jax.numpy.dot"
    assert index.callee(call, ["jax.lax.dot"]) is None
    assert index.matching_name(call.func, iter(["jax.numpy.dot"])) == "jax.numpy.dot"


@pytest.mark.parametrize(("expression", "applied"), [
    ("jnp.dot(a, b)", ("jax.numpy.dot", "jnp.dot", 0)),
    ("functools.partial(jnp.dot, a)(b)", None),
    ("functools.partial(jnp.dot, a)", ("jax.numpy.dot", "jnp.dot", 1)),
    ("partial(jnp.dot, precision=p)", ("jax.numpy.dot", "jnp.dot", 1)),
    ("functools.partial(*fs)", None),
    ("functools.partial(func=jnp.dot)", None),
    ("functools.partial()", None),
    ("functools.partial(other, jnp.dot)", None),
    ("other(jnp.dot, a)", None),
    ("lax.dot(a, b)", None),
])
def test_applied(expression: str, applied) -> None:
    index = ModuleIndex.parse(f"{HEADER}import functools\nfrom functools import partial\ny = {expression}\n")
    call = index.tree.body[-1].value
    got = index.applied(call, {"jax.numpy.dot"})
    assert (got if got is None else (got[0], ast.unparse(got[1]), got[2])) == applied


@pytest.mark.parametrize(("source", "expression", "line"), [
    ("x = jnp.dot\n", "jnp.dot", 5),
    ("x = jnp.dot if new else lax.dot\n", "jnp.dot", 5),
    ("x = jnp.dot if new else lax.dot\n", "lax.dot", 5),
    ("x = jnp.dot if new else (lax.dot if old else None)\n", "lax.dot", 5),
    ("x = jnp.dot if new else lax.dot\n", "new", None),
    ("x = y = jnp.dot\n", "jnp.dot", None),
    ("x, y = jnp.dot, lax.dot\n", "jnp.dot", None),
    ("x.a = jnp.dot\n", "jnp.dot", None),
    ("x += jnp.dot\n", "jnp.dot", None),
    ("f(jnp.dot)\n", "jnp.dot", None),
    ("x = [jnp.dot]\n", "jnp.dot", None),
    ("def f():\n    global x\n    x = jnp.dot\n", "jnp.dot", 7),
    # a `nonlocal` store is kept in the inner function, which looks the name up outside: no binding found
    ("def f():\n    x = 1\n    def g():\n        nonlocal x\n        x = jnp.dot\n", "jnp.dot", None),
])
def test_binding_of_value(source: str, expression: str, line) -> None:
    index = ModuleIndex.parse(HEADER + source)
    binding = index.binding_of_value(_expr(index, expression))
    assert (binding.node.lineno if binding is not None else None) == line
    if binding is not None:
        assert binding.name == "x"


# -- scopes --

def test_a_function_local_hides_the_modules_name_in_all_of_the_function() -> None:
    index = ModuleIndex.parse("x = 1\n\n\ndef f():\n    print(x)\n    x = 2\n\n\nprint(x)\n")
    first, second = [node for node in _names(index, "x") if isinstance(node.ctx, ast.Load)]
    assert _kinds(index, first) == [("function", 6)]
    assert _kinds(index, second) == [("module", 1)]
    assert [name.lineno for name in index.module_scope.bindings["x"][0].references] == [9]


def test_global_and_nonlocal() -> None:
    index = ModuleIndex.parse(
        "x = 1\n"
        "def f():\n"
        "    x = 2\n"
        "    def g():\n"
        "        nonlocal x\n"
        "        x = 3\n"
        "        return x\n"
        "    def h():\n"
        "        global x\n"
        "        x = 4\n"
        "        return x\n"
        "    return x\n")
    g_load, h_load, f_load = [node for node in _names(index, "x") if isinstance(node.ctx, ast.Load)]
    assert _kinds(index, g_load) == [("function", 3)]  # nonlocal: f's x
    assert sorted(_kinds(index, h_load)) == [("module", 1), ("module", 10)]
    assert _kinds(index, f_load) == [("function", 3)]
    g = index.scopes[2] if index.scopes[2].node.name == "g" else index.scopes[3]
    assert g.nonlocals == {"x"}


def test_a_class_body_reads_its_own_names_and_its_methods_skip_it() -> None:
    index = ModuleIndex.parse(
        "x = 1\n"
        "class C:\n"
        "    x = 2\n"
        "    y = x\n"
        "    def m(self):\n"
        "        return x\n"
        "    z = [x for _ in ()]\n")
    body_load, method_load, comprehension_load = [node for node in _names(index, "x") if isinstance(node.ctx, ast.Load)]
    assert _kinds(index, body_load) == [("class", 3)]
    assert _kinds(index, method_load) == [("module", 1)]
    assert _kinds(index, comprehension_load) == [("module", 1)]  # a comprehension skips the class too


def test_a_global_the_module_never_binds_reads_nothing() -> None:
    index = ModuleIndex.parse("def f():\n    global g\n    return g\n")
    assert index.bindings(_last_load(index, "g")) == []
    assert index.module_scope.node is index.tree and index.module_scope.parent is None


def test_scope_module_and_lookup_of_an_unbound_name() -> None:
    index = ModuleIndex.parse("def f():\n    def g():\n        return open\n")
    inner = [scope for scope in index.scopes if scope.kind == "function"][-1]
    assert inner.module is index.module_scope
    assert index.module_scope.module is index.module_scope
    assert inner.lookup("open") == []
    assert [binding.name for binding in inner.lookup("g")] == ["g"]


def test_a_nonlocal_name_is_looked_up_from_the_enclosing_scope() -> None:
    index = ModuleIndex.parse("def f():\n    x = 1\n    def g():\n        nonlocal x\n        return x\n")
    g_scope = next(scope for scope in index.scopes if getattr(scope.node, "name", None) == "g")
    assert [binding.node.lineno for binding in g_scope.lookup("x")] == [2]
    assert "x" not in g_scope.bindings


def test_a_walrus_binds_past_every_comprehension() -> None:
    index = ModuleIndex.parse("def f(xs):\n    return [[(y := x) for x in row] for row in xs], y\n")
    (y_store,) = [node for node in _names(index, "y") if isinstance(node.ctx, ast.Store)]
    y_load = _last_load(index, "y")
    assert _kinds(index, y_load) == [("function", 2)]
    assert index.bindings(y_load)[0].node is y_store
    assert index.bindings(y_load)[0].value is None


def test_a_walrus_at_module_level_binds_in_the_module() -> None:
    index = ModuleIndex.parse("z = [(y := x) for x in xs]\nprint(y)\n")
    assert _kinds(index, _last_load(index, "y")) == [("module", 1)]


def test_comprehension_scopes() -> None:
    index = ModuleIndex.parse("x = 1\nr = [x for x in range(x) for y in x if y]\nd = {k: v for k, v in x}\n")
    loads = [node for node in _names(index, "x") if isinstance(node.ctx, ast.Load)]
    # `range(x)`: the first iterable is read outside; `x` in the element and the second `in x`: inside
    assert [_kinds(index, node) for node in loads] == [
        [("comprehension", 2)], [("module", 1)], [("comprehension", 2)], [("module", 1)],
    ]
    assert [node.col_offset for node in loads] == [5, 22, 34, 22]
    assert _kinds(index, _last_load(index, "k")) == [("comprehension", 3)]
    assert _kinds(index, _last_load(index, "v")) == [("comprehension", 3)]
    assert [scope.kind for scope in index.scopes] == ["module", "comprehension", "comprehension"]
    list_comp, dict_comp = index.tree.body[1].value, index.tree.body[2].value
    assert {scope.node for scope in index.scopes[1:]} == {list_comp, dict_comp}
    assert [index.parent[generator] for generator in list_comp.generators] == [list_comp, list_comp]
    assert index.parent[list_comp.generators[1].iter] is list_comp.generators[1]
    assert index.parent[list_comp.elt] is list_comp
    assert index.parent[dict_comp.key] is dict_comp and index.parent[dict_comp.value] is dict_comp


def test_decorators_defaults_and_annotations_belong_to_the_enclosing_scope() -> None:
    index = ModuleIndex.parse(
        "a = 1\n"
        "def outer(a=0):\n"
        "    @dec(a)\n"
        "    def f(b: a = a, *c: a, d=a, e, **g: a) -> a:\n"
        "        return a\n"
        "    return f\n")
    loads = [node for node in _names(index, "a") if isinstance(node.ctx, ast.Load)]
    assert [_kinds(index, node) for node in loads] == [[("function", 2)]] * len(loads)
    assert len(loads) == 8
    f = next(node for node in ast.walk(index.tree) if isinstance(node, ast.FunctionDef) and node.name == "f")
    assert set(index.nested) == {None, index.tree.body[1]}
    assert index.function_parent[f] is index.tree.body[1]
    assert index.scope_of_definition(f).node is index.tree.body[1]
    f_scope = next(scope for scope in index.scopes if scope.node is f)
    assert set(f_scope.bindings) == {"b", "c", "d", "e", "g"}
    assert all(binding.is_parameter for bindings in f_scope.bindings.values() for binding in bindings)
    # each of them, decorators and defaults included, is enclosed by f, as a kernel body contains them
    assert {ast.unparse(index.parent[node]) if isinstance(index.parent[node], ast.expr) else type(index.parent[node]).__name__
            for node in loads} >= {"dec(a)"}
    assert [index.enclosing[node] is f for node in loads] == [True] * 8


def test_parents_of_defaults_annotations_and_arguments() -> None:
    index = ModuleIndex.parse("def f(x: int = d1, *, y=d2, z) -> r:\n    return x\n")
    f = index.tree.body[0]
    x, y, z = f.args.args[0], f.args.kwonlyargs[0], f.args.kwonlyargs[1]
    assert index.parent[x] is f.args and index.parent[y] is f.args and index.parent[z] is f.args
    assert index.parent[x.annotation] is x
    assert index.parent[f.args] is f
    assert index.parent[f.args.defaults[0]] is f.args
    assert index.parent[f.args.kw_defaults[0]] is f.args
    assert index.parent[f.returns] is f
    assert index.parent[f.body[0]] is f
    (lam,) = [node for node in ast.walk(ModuleIndex.parse("g = lambda a=1: a\n").tree) if isinstance(node, ast.Lambda)]
    assert lam is not None


def test_a_lambda_binds_no_name_and_its_body_is_inside_it() -> None:
    index = ModuleIndex.parse("g = lambda a, /, b=d: a + b\n")
    lam = index.tree.body[0].value
    assert set(index.module_scope.bindings) == {"g"}
    lam_scope = next(scope for scope in index.scopes if scope.node is lam)
    assert set(lam_scope.bindings) == {"a", "b"}
    assert index.parent[lam.body] is lam
    assert index.enclosing[_last_load(index, "a")] is lam
    assert _kinds(index, _last_load(index, "d")) == []
    assert index.nested == {None: [lam]}
    assert list(index.functions_within(lam)) == [lam]


def test_class_bases_and_decorators_are_read_outside_the_class() -> None:
    index = ModuleIndex.parse("B = 1\n@dec(B)\nclass C(B, metaclass=B):\n    B = 2\n    x = B\n")
    loads = [node for node in _names(index, "B") if isinstance(node.ctx, ast.Load)]
    assert [_kinds(index, node) for node in loads] == [[("module", 1)]] * 3 + [[("class", 4)]]
    c = index.tree.body[1]
    assert [scope.node for scope in index.scopes if scope.kind == "class"] == [c]
    assert index.parent[c.bases[0]] is c and index.parent[c.keywords[0]] is c and index.parent[c.decorator_list[0]] is c
    assert index.parent[c.body[0]] is c


def test_functions_within() -> None:
    index = ModuleIndex.parse("def f():\n    def g():\n        h = lambda: 0\n    def k():\n        pass\n\ndef other():\n    pass\n")
    f = index.tree.body[0]
    assert sorted(getattr(node, "name", "lambda") for node in index.functions_within(f)) == ["f", "g", "k", "lambda"]
    assert next(index.functions_within(f)) is f
    assert index.scope_of_definition(f) is index.module_scope
    assert index.scope_of_definition(index.tree.body[1]) is index.module_scope
    g = f.body[0]
    assert index.scope_of_definition(g).node is f
    assert index.scope_of_definition(ast.parse("def x(): pass").body[0]) is None


# -- bindings --

@pytest.mark.parametrize(("statement", "bound"), [
    ("import a.b.c", [("a", "a", False)]),
    ("import a.b as c", [("c", "a.b", False)]),
    ("import a, b as c", [("a", "a", False), ("c", "b", False)]),
    ("from a.b import c", [("c", "a.b.c", False)]),
    ("from a.b import c as d", [("d", "a.b.c", False)]),
    ("from . import x", [("x", ".x", True)]),
    ("from .m import x", [("x", ".m.x", True)]),
    ("from ..m import x as y", [("y", "..m.x", True)]),
    ("from a import *", []),
])
def test_imports(statement: str, bound: list) -> None:
    index = ModuleIndex.parse(statement + "\n")
    assert [(b.name, b.imported, b.is_relative_import) for b in index.imports] == bound
    assert [(b.name, b.imported) for bindings in index.module_scope.bindings.values() for b in bindings] == \
        [(name, imported) for name, imported, _ in bound]
    assert all(isinstance(b.statement, (ast.Import, ast.ImportFrom)) for b in index.imports)
    assert all(b.node in b.statement.names and b.scope is index.module_scope for b in index.imports)
    assert not any(b.is_parameter for b in index.imports)


def test_imports_in_functions_are_listed_too() -> None:
    index = ModuleIndex.parse("def f():\n    import os\n    from jax import lax\n")
    assert sorted(b.name for b in index.imports) == ["lax", "os"]
    assert set(index.module_scope.bindings) == {"f"}
    assert index.qualified_names(ast.parse("lax").body[0].value) == set()


def test_a_plain_binding_is_neither_parameter_nor_import() -> None:
    index = ModuleIndex.parse("def f(p):\n    x = p\n")
    f_scope = index.scopes[1]
    (p,), (x,) = f_scope.bindings["p"], f_scope.bindings["x"]
    assert p.is_parameter and not x.is_parameter
    assert not p.is_relative_import and not x.is_relative_import
    assert x.imported is None and x.statement is None
    assert isinstance(x.value, ast.Name) and x.value.id == "p"
    assert [ref.lineno for ref in p.references] == [2]
    assert index.aliases == {"x"}


@pytest.mark.parametrize(("source", "values"), [
    ("x = 1\n", {"x": "1"}),
    ("x = y = 1\n", {"x": "1", "y": "1"}),
    ("x: int = 1\n", {"x": "1"}),
    ("x: int\n", {"x": None}),
    ("a, b = 1, 2\n", {"a": "1", "b": "2"}),
    ("[a, b] = (1, 2)\n", {"a": "1", "b": "2"}),
    ("a, b = 1, 2, 3\n", {"a": None, "b": None}),
    ("a, b = t\n", {"a": None, "b": None}),
    ("a, *b = 1, 2\n", {"a": None, "b": None}),
    ("a, b = 1, *c\n", {"a": None, "b": None}),
    ("(a, b), c = (1, 2), 3\n", {"a": None, "b": None, "c": "3"}),
    ("x += 1\n", {"x": None}),
    ("for x in y: pass\n", {"x": None}),
    ("with f() as x: pass\n", {"x": None}),
    ("a, b = c, d = 1, 2\n", {"a": "1", "b": "2", "c": "1", "d": "2"}),
    ("(x := 5)\n", {"x": None}),
])
def test_the_value_a_name_is_bound_to(source: str, values: dict) -> None:
    index = ModuleIndex.parse(source)
    got = {name: (ast.unparse(bindings[0].value) if bindings[0].value is not None else None)
           for name, bindings in index.module_scope.bindings.items()}
    assert got == values


@pytest.mark.parametrize(("source", "values"), [
    ("for x in (1, 2): pass\n", ["1", "2"]),
    ("for x in [1, *m, 2]: pass\n", ["1", "2"]),
    ("for x in {1}: pass\n", ["1"]),
    ("for x in f(1, 2): pass\n", []),
    ("for x in {'a': 1}.values(): pass\n", ["1"]),
    ("for x in {'a': 1}.items(): pass\n", []),
    ("for k, x in {'a': 1}.items(): pass\n", ["1"]),
    ("for k, x in {'a': 1}.values(): pass\n", []),
    ("for k, x in [(1, 2)]: pass\n", []),
    ("for x, k in {'a': 1}.items(): pass\n", []),
    ("for k, x in {'a': 1}.items(1): pass\n", []),
    ("for (k, x) in {'a': 1}.items(): pass\n", ["1"]),
    ("B = (1, 2)\nfor x in B: pass\n", ["1", "2"]),
    ("B = {'a': 1}\nfor x in B.values(): pass\n", ["1"]),
    ("B = (1, 2)\nB = (3,)\nfor x in B: pass\n", []),
    ("for x in B: pass\n", []),
    ("def f(B):\n    for x in B: pass\n", []),
    ("y = [x for x in (1, 2)]\n", ["1", "2"]),
    ("async def f():\n    async for x in (1, 2): pass\n", ["1", "2"]),
    ("for x in (1, 2).index(1): pass\n", []),
    ("for x in (1, 2).copy(): pass\n", []),
    ("for x in o.items: pass\n", []),
])
def test_what_a_loop_binds(source: str, values: list) -> None:
    index = ModuleIndex.parse(source)
    bindings = [b for scope in index.scopes for b in scope.bindings.get("x", ())]
    assert len(bindings) == 1
    assert [ast.unparse(value) for value in bindings[0].iterated] == values


def test_a_name_bound_in_a_tuple_that_is_not_a_loop_iterates_nothing() -> None:
    index = ModuleIndex.parse("k, x = {'a': 1}.items()\n")
    (x,) = index.module_scope.bindings["x"]
    assert x.iterated == ()


def test_except_and_match_names() -> None:
    index = ModuleIndex.parse(
        "try:\n    pass\nexcept E as err:\n    pass\nexcept F:\n    pass\n"
        "match v:\n    case [1, *rest]:\n        pass\n    case {'k': 1, **others}:\n        pass\n"
        "    case {'k': 2}:\n        pass\n    case P() as whole:\n        pass\n    case _:\n        pass\n")
    assert set(index.module_scope.bindings) == {"err", "rest", "others", "whole"}
    kinds = {name: [(type(b.node).__name__, b.scope is index.module_scope) for b in bindings]
             for name, bindings in index.module_scope.bindings.items()}
    assert kinds == {"err": [("ExceptHandler", True)], "rest": [("MatchStar", True)],
                     "others": [("MatchMapping", True)], "whole": [("MatchAs", True)]}


# -- the walk's maps --

def test_calls_in_source_order_outer_first() -> None:
    index = ModuleIndex.parse("a(b(c()), d())\ne()\ndef f(x=g()):\n    return h(i())\n")
    assert [ast.unparse(call.func) for call in index.calls] == ["a", "b", "c", "d", "e", "g", "h", "i"]


def test_calls_on_one_position_outer_first() -> None:
    index = ModuleIndex.parse("f()()()\n")
    assert [ast.unparse(call) for call in index.calls] == ["f()()()", "f()()", "f()"]
    index = ModuleIndex.parse("f(\n)(\n)\n")  # the outer ends on a later line
    assert [ast.unparse(call) for call in index.calls] == ["f()()", "f()"]


def test_enclosing_functions_and_mentions() -> None:
    index = ModuleIndex.parse("import jax\nx = jax.jit(f)\ndef f(a):\n    return jax.numpy.dot(a)\n")
    f = index.tree.body[2]
    outer_call, inner_call = index.calls
    assert index.enclosing[outer_call] is None
    assert index.enclosing[inner_call] is f
    assert sorted(ast.unparse(node) for node in index.mentions[None]) == ["f", "jax", "jax.jit", "x"]
    assert sorted(ast.unparse(node) for node in index.mentions[f]) == ["a", "jax", "jax.numpy", "jax.numpy.dot"]
    attribute = _expr(index, "jax.numpy.dot")
    assert index.scope_of[attribute].node is f
    assert attribute not in index.enclosing


def test_parents() -> None:
    index = ModuleIndex.parse("x = f(a, k=b)[0]\n")
    assign = index.tree.body[0]
    subscript = assign.value
    call = subscript.value
    assert index.parent[assign] is index.tree
    assert index.parent[subscript] is assign
    assert index.parent[call] is subscript
    assert index.parent[call.args[0]] is call
    assert index.parent[call.keywords[0]] is call
    assert index.parent[call.keywords[0].value] is call.keywords[0]
    assert subscript.slice not in index.parent  # constants are not walked
    assert assign.targets[0] in index.scope_of


def test_import_aliases_are_walked() -> None:
    assert "names" in _walked_fields(ast.Import)
    assert "names" in _walked_fields(ast.ImportFrom)
    assert _walked_fields(ast.Name) == ()
    assert _walked_fields(ast.Attribute) == ("value",)
    assert _walked_fields(ast.Call) == ("func", "args", "keywords")
    assert "names" not in _walked_fields(ast.Global)
    index = ModuleIndex.parse("import os\n")
    assert index.parent[index.tree.body[0].names[0]] is index.tree.body[0]


def test_a_def_and_a_class_bind_their_node() -> None:
    index = ModuleIndex.parse("def f():\n    pass\nclass C:\n    pass\nasync def g():\n    pass\n")
    f, c, g = index.tree.body
    assert [(b.node, b.scope) for b in index.module_scope.bindings["f"]] == [(f, index.module_scope)]
    assert [(b.node, b.scope) for b in index.module_scope.bindings["C"]] == [(c, index.module_scope)]
    assert [(b.node, b.scope) for b in index.module_scope.bindings["g"]] == [(g, index.module_scope)]
    assert sorted(scope.kind for scope in index.scopes) == ["class", "function", "function", "module"]


def test_a_dict_with_a_double_star_is_walked() -> None:
    index = ModuleIndex.parse("d = {**x, 'a': y}\n")
    assert {name.id for name in index.mentions[None]} == {"d", "x", "y"}
    assert None not in index.parent


def test_ordered_arguments() -> None:
    call = ast.parse("f(a, k=1, *b, j=2, **c)").body[0].value
    assert [ast.unparse(node) for node in ordered_arguments(call)] == ["a", "k=1", "*b", "j=2", "**c"]
    call = ast.parse("f(\n  k=1,\n  *b)").body[0].value
    assert [ast.unparse(node) for node in ordered_arguments(call)] == ["k=1", "*b"]
    assert ordered_arguments(ast.parse("f()").body[0].value) == []


def test_references_to_a_def_are_where_the_module_names_it() -> None:
    """The def's name in the scope it binds it in: not a same-named local of another function; a
    lambda has no name to be referred to by."""
    index = ModuleIndex.parse("def mm(a):\n    return a\n\n\nx = mm(1) + mm(2)\nfast = lambda a: a\n\n\n"
                              "def outer():\n    mm = 3\n    return mm\n\n\ny = [mm]\n")
    loads = [node for node in _names(index, "mm") if isinstance(node.ctx, ast.Load)]
    found = sorted(index.references_to(index.tree.body[0]), key=lambda node: (node.lineno, node.col_offset))
    assert found == [loads[0], loads[1], loads[3]]  # not `return mm` in outer
    assert index.references_to(index.tree.body[2].value) == []  # the lambda
