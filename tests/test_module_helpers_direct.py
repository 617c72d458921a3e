"""codemods/analysis/module_helpers.py called in the test's process (issue 35, item 3: mutation testing).

Where a helper's `def` goes (`_insertion_point`: after the docstring and the imports, past a
notebook's magics, with the blank lines it needs), the name it gets (a free one, or the one a
matching definition or import already has), the imports it needs in the module's own spelling
(`_in_module_names`, `_rename_names`), its indentation like the module's (`_default_indent`,
`_indented`), and the reference helpers as codemods/helpers_source.py defines them.
"""

from __future__ import annotations

import ast
from typing import Optional

import pytest

from codemods.analysis.module import ModuleIndex
from codemods.analysis.module_helpers import (
    Helper,
    HelperInserter,
    _bound,
    _default_indent,
    _escape,
    _first_newline,
    _imports,
    _indented,
    _insertion_point,
    _is_placeholder,
    _rename_names,
    _target,
    reference_helper,
)
from codemods.engine.fixes import Definition, FixPlan, Insertion

IDENTITY = Helper("identity", "def {name}(x):\n    return x\n")
USES_JNP = Helper("h", "def {name}(x):\n    return jnp.float32(x)\n", (("jax.numpy", None, "jnp"),))


def _inserter(source: str, helpers_module: Optional[str] = None) -> HelperInserter:
    return HelperInserter(ModuleIndex.parse(source), helpers_module)


def _use(source: str, helper: Helper = IDENTITY, helpers_module: Optional[str] = None) -> tuple[str, FixPlan]:
    plan = FixPlan()
    name = _inserter(source, helpers_module).use(helper, plan)
    return name, plan


# -- the reference helpers --

def test_reference_helpers_with_the_imports_their_bodies_use() -> None:
    rsqrt = reference_helper("rsqrt_safe")
    assert rsqrt.name == "rsqrt_safe"
    assert rsqrt.needs == (("jax", "lax", None),)
    code = rsqrt.code("my_rsqrt")
    assert code.startswith("def my_rsqrt(x):\n    \"\"\"`lax.rsqrt(x)` with float32 accuracy")
    assert code.endswith("return lax.select((y > 0) & (y < float(\"inf\")), refined, y)")
    lstm = reference_helper("lstm_float32")
    assert lstm.needs == (("jax.numpy", None, "jnp"),)
    assert lstm.code("f").startswith("def f(lstm, x, h_0, c_0, weights, seq_lengths, *args, **kwargs):\n")
    assert lstm.code("f").endswith("return y.astype(x.dtype), h_n.astype(h_0.dtype), c_n.astype(c_0.dtype)")


def test_a_helper_that_is_not_there_is_an_error() -> None:
    with pytest.raises(StopIteration):
        reference_helper("no_such_helper")


def test_braces_in_a_helper_survive_its_template() -> None:
    assert _escape("{'a': {b}}") == "{{'a': {{b}}}}"
    assert Helper("h", "def {name}():\n    return " + _escape("{'a': 1}") + "\n").code("g") == \
        "def g():\n    return {'a': 1}\n"


@pytest.mark.parametrize(("statement", "expected"), [
    ("import jax.numpy as jnp", [("jnp", ("jax.numpy", None, "jnp"))]),
    ("import jax.numpy", [("jax", ("jax.numpy", None, None))]),
    ("import os, sys as system", [("os", ("os", None, None)), ("system", ("sys", None, "system"))]),
    ("from jax import lax", [("lax", ("jax", "lax", None))]),
    ("from jax import numpy as np, lax", [("np", ("jax", "numpy", "np")), ("lax", ("jax", "lax", None))]),
    ("from . import sibling", []),
    ("from .pkg import sibling", []),
    ("x = 1", []),
    ("def f(): import os", []),
])
def test_imports_give_the_name_bound_and_the_import(statement: str, expected: list) -> None:
    assert list(_imports(ast.parse(statement).body[0])) == expected


@pytest.mark.parametrize(("need", "target", "bound"), [
    (("jax.numpy", None, "jnp"), "jax.numpy", "jnp"),
    (("jax.numpy", None, None), "jax", "jax"),
    (("os", None, None), "os", "os"),
    (("jax", "lax", None), "jax.lax", "lax"),
    (("jax", "numpy", "np"), "jax.numpy", "np"),
    (("jax.experimental", "pallas", None), "jax.experimental.pallas", "pallas"),
])
def test_target_and_bound_name_of_an_import(need, target: str, bound: str) -> None:
    assert _target(need) == target
    assert _bound(need) == bound


# -- the name, the definition, the imports --

def test_a_new_helper_is_defined_at_the_top() -> None:
    name, plan = _use("x = 1\n")
    assert name == "identity"
    assert plan.imports_to_add == []
    assert plan.definitions == [Definition("def identity(x):\n    return x\n", Insertion(0, False, 2, "\n"))]


def test_a_helper_brings_the_imports_its_body_needs() -> None:
    name, plan = _use("import os\n", USES_JNP)
    assert name == "h"
    assert plan.imports_to_add == [("jax.numpy", None, "jnp")]
    assert plan.definitions == [Definition("def h(x):\n    return jnp.float32(x)\n", Insertion(10, True, 0, "\n"))]


def test_one_definition_and_one_import_however_often_it_is_used() -> None:
    inserter = _inserter("x = 1\n")
    plan = FixPlan(imports_to_add=[("os", None, None)])
    assert inserter.use(USES_JNP, plan) == "h"
    assert inserter.use(USES_JNP, plan) == "h"
    assert inserter.use(IDENTITY, plan) == "identity"
    assert plan.imports_to_add == [("os", None, None), ("jax.numpy", None, "jnp")]
    assert [d.code for d in plan.definitions] == [
        "def h(x):\n    return jnp.float32(x)\n", "def identity(x):\n    return x\n",
    ]
    other = FixPlan()
    assert inserter.use(USES_JNP, other) == "h"
    assert other.imports_to_add == [("jax.numpy", None, "jnp")]
    assert len(other.definitions) == 1


def test_an_import_already_planned_is_not_added_again() -> None:
    plan = FixPlan(imports_to_add=[("jax.numpy", None, "jnp")])
    _inserter("x = 1\n").use(USES_JNP, plan)
    assert plan.imports_to_add == [("jax.numpy", None, "jnp")]


@pytest.mark.parametrize(("source", "name", "defined"), [
    ("identity = None\n", "identity_2", True),
    ("identity = None\nidentity_2 = None\n", "identity_3", True),
    ("def identity(x):\n    return x\n", "identity", False),
    ("def identity(x):\r\n    return x\r\n", "identity", False),
    ("def identity(y):\n    return y\n", "identity_2", True),
    ("def identity(x):\n    return x + 0\n", "identity_2", True),
    ("@cache\ndef identity(x):\n    return x\n", "identity_2", True),
    ("async def identity(x):\n    return x\n", "identity_2", True),
    ("class identity:\n    pass\n", "identity_2", True),
    ("def identity(x):\n    return x\n\n\ndef identity(x):\n    return x\n", "identity_2", True),
    ("identity = None\n\n\ndef identity_2(x):\n    return x\n", "identity_2", False),
    ("def f():\n    identity = None\n", "identity", True),  # a local is not the module's name
    ("from helpers import identity\n", "identity_2", True),
])
def test_the_name_is_free_or_the_definition_is_reused(source: str, name: str, defined: bool) -> None:
    got, plan = _use(source)
    assert got == name
    assert [d.code for d in plan.definitions] == ([f"def {name}(x):\n    return x\n"] if defined else [])


def test_a_builtin_name_is_not_shadowed() -> None:
    got, plan = _use("x = 1\n", Helper("len", "def {name}(x):\n    return 0\n"))
    assert got == "len_2"
    assert plan.definitions[0].code == "def len_2(x):\n    return 0\n"


@pytest.mark.parametrize(("source", "name", "imports"), [
    ("x = 1\n", "identity", [("pkg.compat", "identity", None)]),
    ("identity = 1\n", "identity_2", [("pkg.compat", "identity", "identity_2")]),
    ("from pkg.compat import identity\n", "identity", []),
    ("from pkg.compat import identity as identity_2\nidentity = 1\n", "identity_2", []),
    ("from other import identity\n", "identity_2", [("pkg.compat", "identity", "identity_2")]),
    ("import pkg.compat as identity\n", "identity_2", [("pkg.compat", "identity", "identity_2")]),
    # a definition with the helper's code is not the helpers module's
    ("def identity(x):\n    return x\n", "identity_2", [("pkg.compat", "identity", "identity_2")]),
])
def test_with_a_helpers_module_the_helper_is_imported(source: str, name: str, imports: list) -> None:
    got, plan = _use(source, helpers_module="pkg.compat")
    assert got == name
    assert plan.imports_to_add == imports
    assert plan.definitions == []


def test_with_a_helpers_module_its_body_imports_are_not_added() -> None:
    got, plan = _use("x = 1\n", USES_JNP, helpers_module="pkg.compat")
    assert (got, plan.imports_to_add) == ("h", [("pkg.compat", "h", None)])


# -- the module's own import names --

@pytest.mark.parametrize(("source", "code", "needs"), [
    ("x = 1\n", "def h(x):\n    return jnp.float32(x)\n", (("jax.numpy", None, "jnp"),)),
    ("import jax.numpy as jnp\n", "def h(x):\n    return jnp.float32(x)\n", ()),
    ("import jax.numpy as np\n", "def h(x):\n    return np.float32(x)\n", ()),
    ("from jax import numpy as jnp2, numpy as a\n", "def h(x):\n    return a.float32(x)\n", ()),
    ("import jax\n", "def h(x):\n    return jnp.float32(x)\n", (("jax.numpy", None, "jnp"),)),
    ("import numpy as jnp\n", "def h(x):\n    return jnp_2.float32(x)\n", (("jax.numpy", None, "jnp_2"),)),
    ("jnp = None\n", "def h(x):\n    return jnp_2.float32(x)\n", (("jax.numpy", None, "jnp_2"),)),
    ("import numpy as jnp\njnp_2 = 0\n", "def h(x):\n    return jnp_3.float32(x)\n", (("jax.numpy", None, "jnp_3"),)),
    ("def f():\n    import jax.numpy as np\n", "def h(x):\n    return jnp.float32(x)\n", (("jax.numpy", None, "jnp"),)),
])
def test_the_helper_uses_the_modules_own_imports(source: str, code: str, needs: tuple) -> None:
    _, plan = _use(source, USES_JNP)
    assert [d.code for d in plan.definitions] == [code]
    assert tuple(plan.imports_to_add) == needs


def test_a_need_the_module_lacks_is_kept_when_another_is_renamed() -> None:
    helper = Helper("h", "def {name}(x):\n    return lax.abs(jnp.float32(x))\n",
                    (("jax.numpy", None, "jnp"), ("jax", "lax", None)))
    _, plan = _use("import jax.numpy as np\n", helper)
    assert plan.imports_to_add == [("jax", "lax", None)]
    assert plan.definitions[0].code == "def h(x):\n    return lax.abs(np.float32(x))\n"


def test_a_from_import_the_module_binds_to_something_else_is_aliased() -> None:
    """`lax = None` below the inserted `from jax import lax` would be what the helper's body reads."""
    _, plan = _use("import jax.numpy as jnp\nlax = None\n", reference_helper("argmax_tpu"))
    assert plan.imports_to_add == [("jax", "lax", "lax_2")]
    assert "index = lax_2.broadcasted_iota(" in plan.definitions[0].code


def test_the_reference_rsqrt_in_a_module_that_imports_lax_under_another_name() -> None:
    _, plan = _use("import jax.lax as L\n", reference_helper("rsqrt_safe"))
    code = plan.definitions[0].code
    assert plan.imports_to_add == []
    assert "    y = L.rsqrt(x)\n" in code
    assert code.endswith("return L.select((y > 0) & (y < float(\"inf\")), refined, y)")
    assert "`lax.rsqrt(x)`" in code  # the docstring is text, not a name


def test_renaming_keeps_attributes_keywords_and_braces() -> None:
    template = "def {name}(x):\n    return f(a, b=b).b + {{'b': b}}[a.b]\n"
    assert _rename_names(template, {"b": "B", "a": "A"}) == \
        "def {name}(x):\n    return f(A, b=B).b + {{'b': B}}[A.b]\n"
    # names met by the walk in another order than the text's, and of other lengths
    assert _rename_names("def {name}():\n    return g(x) + y\n", {"x": "xx", "y": "yyy"}) == \
        "def {name}():\n    return g(xx) + yyy\n"


# -- indentation --

@pytest.mark.parametrize(("source", "indent"), [
    ("x = 1\n", "    "),
    ("", "    "),
    ("def f():\n  return 1\n", "  "),
    ("if x:\n\ty = 1\n", "\t"),
    ("class C:\n   def f(self):\n      pass\n", "   "),
    ("def f(): return 1\ndef g():\n  pass\n", "  "),
    ("x = [\n  1]\nwhile x:\n        pass\n", "        "),
    ("if x: pass\nelse:\n  if y:\n    z\n", "  "),  # found below an indented header: its own step
    ("def f():\n\f  pass\n", "  "),  # a form feed resets the count
    ("def f():\n\f \f  pass\n", "  "),  # from the last one
    ("if x: pass\nelse:\n\f \f  if y:\n  \f    z\n", "  "),
    ("if x: pass\nelse:\n \f  if y:\n  \f    z\n", "  "),
])
def test_the_modules_indentation(source: str, indent: str) -> None:
    assert _default_indent(ModuleIndex.parse(source)) == indent


def test_a_helper_is_indented_like_the_module() -> None:
    helper = Helper("h", 'def {name}(x):\n    """Doc.\n\n    More.\n    """\n    if x:\n        return 1\n     # odd\n    return 2\n')
    assert _indented(helper, "    ") is helper
    assert _indented(helper, "  ").template == \
        'def {name}(x):\n  """Doc.\n\n  More.\n  """\n  if x:\n    return 1\n   # odd\n  return 2\n'
    tabs = _indented(helper, "\t")
    assert tabs.template == 'def {name}(x):\n\t"""Doc.\n\n\tMore.\n\t"""\n\tif x:\n\t\treturn 1\n\t # odd\n\treturn 2\n'
    assert (tabs.name, tabs.needs) == (helper.name, helper.needs)


def test_the_definition_is_indented_like_the_module() -> None:
    _, plan = _use("def f():\n  pass\n", Helper("h", "def {name}(x):\n    if x:\n        return x\n"))
    assert plan.definitions[0].code == "def h(x):\n  if x:\n    return x\n"


def test_a_definition_indented_like_the_module_is_reused() -> None:
    name, plan = _use("def identity(x):\n  return x\n")
    assert (name, plan.definitions) == ("identity", [])


# -- where the definition goes --

@pytest.mark.parametrize(("source", "point"), [
    ("", (0, False, 0)),
    ("import os\n", (10, True, 0)),
    ("import os", (9, True, 0)),
    ("import os\nimport sys\n", (21, True, 0)),
    ("import os\n# c\n\n", (10, True, 0)),  # right below the last import, above what follows it
    ("x = 1\n", (0, False, 2)),
    ("# c\n\n@dec\ndef f(): pass\n", (5, False, 2)),
    ("# c\n\n@dec(\n  1)\n@other\ndef f(): pass\n", (5, False, 2)),
    ("import os\nx = 1\n", (10, True, 2)),
    ("import os\n\nx = 1\n", (10, True, 1)),
    ("import os\n\n\nx = 1\n", (10, True, 0)),
    ("import os\n\n\n\nx = 1\n", (10, True, 0)),
    ("import os\n\n# c\n\nx = 1\n", (10, True, 1)),
    ("import os\n  \t\nx = 1\n", (10, True, 1)),
    ("import os\n\n@dec\ndef f(): pass\n", (10, True, 1)),
    ('"""D."""\nimport os\nx = 1\n', (19, True, 2)),
    ('"""D."""\nx = 1\n', (9, True, 2)),
    ('"""D."""\n', (9, True, 0)),
    ('import os\n"""s"""\nx = 1\n', (10, True, 2)),  # a string below the imports is a statement
    ("b'x'\nimport os\n", (0, False, 2)),
    ("1\nimport os\n", (0, False, 2)),
    ("import os\nimport sys; x = 1\ny = 2\n", (10, True, 2)),
    ("import os; import sys\nx = 1\n", (22, True, 2)),
    ("import os\nfrom a import (\n  b)\nx = 1\n", (31, True, 2)),
    # notebook magics (`pass` or `0`) are skipped on the way to the imports below them
    ("pass\nimport os\nx = 1\n", (15, True, 2)),
    ("0\n0\nimport os\nx = 1\n", (14, True, 2)),
    ("pass\n'''doc'''\nimport os\n", (25, True, 0)),
    ("0\nx = 1\n", (0, False, 2)),
    ("pass\n", (0, False, 2)),
    ("x = 'a'\nimport os\ny = 1\n", (0, False, 2)),  # a string assigned is no docstring
    ("pass\nx = 'a'\nimport os\ny = 1\n", (0, False, 2)),
    ("pass; x = 1\nimport os\n", (0, False, 2)),
    ("import os\npass\nimport sys\nx = 1\n", (26, True, 2)),
    ("import os\n'''s'''\nimport sys\n", (10, True, 2)),
])
def test_where_the_definition_goes(source: str, point: tuple) -> None:
    assert _insertion_point(ModuleIndex.parse(source)) == point


@pytest.mark.parametrize(("statement", "placeholder"), [
    ("pass", True), ("0", True), ("pass; 0", True), ("1", False), ("'0'", False), ("x", False),
    ("pass; x = 1", False), ("0.0", True), ("x = 0", False),
])
def test_notebook_placeholders(statement: str, placeholder: bool) -> None:
    assert _is_placeholder(ast.parse(statement).body) is placeholder


def test_the_definition_keeps_the_modules_line_ends() -> None:
    _, plan = _use("import os\r\nx = 1\r\n")
    assert plan.definitions[0].at == Insertion(11, True, 2, "\r\n")
    _, plan = _use("import os\rx = 1\r")
    assert plan.definitions[0].at == Insertion(10, True, 2, "\r")


@pytest.mark.parametrize(("text", "newline"), [
    ("a\nb\r\n", "\n"), ("a\r\nb\n", "\r\n"), ("a\rb", "\r"), ("abc", "\n"), ("", "\n"), ("a\fb\x1cc", "\n"),
])
def test_first_newline(text: str, newline: str) -> None:
    assert _first_newline(text) == newline
