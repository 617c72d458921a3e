"""The module index's scoping rules that no rule's golden reaches: `global` declarations, `:=` in
comprehensions, star imports, loops over a dict's keys, and precision literals that are no pair.

Each test pins one line of codemods/analysis/ that every other test executes none of (line
coverage of the suite), so that a one-line change there fails here. No jax.
"""

from __future__ import annotations

import ast

import pytest

from codemods.analysis.module import ModuleIndex
from codemods.analysis.module_helpers import _insertion_point
from codemods.analysis.precision import parse_precision


def _attribute(index: ModuleIndex, dotted: str) -> ast.Attribute:
    """The (last) load of `dotted` in the module, e.g. `LEVEL.HIGH`."""
    found = [node for node in ast.walk(index.tree)
             if isinstance(node, ast.Attribute) and ast.unparse(node) == dotted]
    assert found, dotted
    return found[-1]


def test_a_global_declaration_binds_and_reads_the_module_name_past_an_enclosing_local() -> None:
    """`global LEVEL` in a function binds the module's LEVEL; a `global LEVEL` read in a nested
    function skips the enclosing function's own LEVEL."""
    index = ModuleIndex.parse(
        "from jax import lax\n\n\ndef configure():\n    global LEVEL\n    LEVEL = lax.Precision\n\n\n"
        "def outer():\n    LEVEL = 'local'\n\n    def use():\n        global LEVEL\n        return LEVEL.HIGH\n"
        "    return use\n")
    assert [binding.scope.kind for binding in index.module_scope.bindings["LEVEL"]] == ["module"]
    assert index.qualified_names(_attribute(index, "LEVEL.HIGH")) == {"jax.lax.Precision.HIGH"}


def test_a_method_reads_a_name_past_its_class_body() -> None:
    """Python does not look names up in an enclosing class body: `LEVEL` in a method is the
    module's, not the class attribute of that name (the class body itself reads its own)."""
    index = ModuleIndex.parse("from jax import lax\n\nLEVEL = lax.Precision\n\n\nclass Block:\n    LEVEL = 'mine'\n"
                              "    OWN = LEVEL\n\n    def body(self):\n        return LEVEL.HIGH\n")
    assert index.qualified_names(_attribute(index, "LEVEL.HIGH")) == {"jax.lax.Precision.HIGH"}
    own = next(node.value for node in ast.walk(index.tree) if isinstance(node, ast.Assign)
               and ast.unparse(node.targets[0]) == "OWN")
    assert [binding.scope.kind for binding in index.bindings(own)] == ["class"]


def test_a_walrus_in_a_comprehension_binds_in_the_scope_around_it() -> None:
    index = ModuleIndex.parse("from jax import lax\n\n\ndef f(xs):\n    ys = [(last := lax.Precision) for x in xs]\n"
                              "    return last\n")
    (returned,) = [node.value for node in ast.walk(index.tree) if isinstance(node, ast.Return)]
    assert [binding.scope.kind for binding in index.bindings(returned)] == ["function"]


def test_a_star_import_binds_no_name() -> None:
    index = ModuleIndex.parse("from jax.lax import *\nfrom jax import numpy as jnp\n")
    assert set(index.module_scope.bindings) == {"jnp"}
    assert [binding.name for binding in index.imports] == ["jnp"]


@pytest.mark.parametrize("loop, values", [
    ('for level in {"a": 1, "b": 2}:\n    pass\n', []),  # a dict iterates its keys
    ('for level in {"a": 1, "b": 2}.keys():\n    pass\n', []),
    ('for level in {"a": 1, "b": 2}.values():\n    pass\n', [1, 2]),
    ("for level in (1, *more, 2):\n    pass\n", [1, 2]),  # a starred element takes no single value
    ("for level in (1, 2).count():\n    pass\n", []),
], ids=["dict", "keys", "values", "starred", "method-of-tuple"])
def test_what_a_loop_over_a_literal_binds(loop: str, values: list) -> None:
    index = ModuleIndex.parse(loop)
    (level,) = index.module_scope.bindings["level"]
    assert [ast.literal_eval(value) for value in level.iterated] == values


@pytest.mark.parametrize("literal", [
    "(P.HIGH, P.HIGH, P.HIGH)", "(P.HIGH,)", "(P.HIGH, *rest)", "[*pair]",
])
def test_a_precision_tuple_that_is_no_pair_is_not_read(literal: str) -> None:
    index = ModuleIndex.parse(f"from jax.lax import Precision as P\nx = {literal}\n")
    assert parse_precision(index.tree.body[-1].value, index) is None


def test_a_pair_is_read() -> None:
    """The counterpart of the test above: the same spelling with two elements is a literal."""
    index = ModuleIndex.parse("from jax.lax import Precision as P\nx = (P.DEFAULT, P.HIGH)\n")
    parsed = parse_precision(index.tree.body[-1].value, index)
    assert parsed is not None and parsed.describe() == "(DEFAULT, HIGH)"


@pytest.mark.parametrize("source, expected", [
    ("import os\nimport sys\n", (len("import os\nimport sys\n"), True, 0)),
    ('"""Docs."""\nimport os\n', (len('"""Docs."""\nimport os\n'), True, 0)),
    ("", (0, False, 0)),
])
def test_a_module_of_imports_only_takes_a_helper_at_its_end(source: str, expected: tuple) -> None:
    assert _insertion_point(ModuleIndex.parse(source)) == expected


@pytest.mark.parametrize("code, attribute, expected", [
    ("from . import compat as c\n\nc.lax.dot\n", "c.lax.dot", "jax.lax.dot"),  # a module's attribute
    ("from .compat import lax\n\nlax.dot\n", "lax.dot", "jax.lax.dot"),  # the name itself
    ("from . import compat as c\n\nc.laxer.dot\n", "c.laxer.dot", ".compat.laxer.dot"),  # a longer name: not it
    ("from . import compat as c\n\nc.dot\n", "c.dot", ".compat.dot"),  # the module's own
], ids=["attribute", "name", "longer-name", "own-name"])
def test_a_name_read_through_the_projects_re_exports_of_jax(code: str, attribute: str, expected: str) -> None:
    """`through` (the project index's ModuleFacts.through) reads `.compat.lax` as `jax.lax`, as an
    imported name and as an attribute of the imported module, up to a whole dotted part only."""
    index = ModuleIndex.parse(code, {".compat.lax": "jax.lax"})
    assert index.qualified_names(_attribute(index, attribute)) == {expected}
