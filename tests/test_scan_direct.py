"""codemods/upgrades/scan.py called directly, in the test's process: the references the JAX1xx scan
finds in a module (names, imports, imported modules, attributes of any object, finders), the version
guards that hide them, `named_on`, `references_to` and the per-file memo.

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks exact values.
Nothing here imports jax.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from codemods.analysis.module import ModuleIndex
from codemods.engine.rule import ParsedFile
from codemods.settings import Settings
from codemods.upgrades import scan as scan_module
from codemods.upgrades.scan import ROWS, Reference, Scan, guarded, named_on, references_to


def _found(text: str, finders=None) -> dict:
    scan = Scan(ModuleIndex.parse(text), finders or {})
    return {code: sorted((r.old, r.node.lineno, r.node.col_offset, type(r.node).__name__, r.binding is not None)
                         for r in refs) for code, refs in scan.by_code.items()}


# What the scan finds


@pytest.mark.parametrize(("text", "found"), [
    ("import jax\nx = jax.tree_map(f, t)\n", {"JAX101": [("jax.tree_map", 2, 4, "Attribute", False)]}),
    ("from jax import tree_map as tm\ny = tm(f, t)\n",
     {"JAX101": [("jax.tree_map", 1, 16, "alias", True), ("jax.tree_map", 2, 4, "Name", False)]}),
    ("from jax import tree_map\n", {"JAX101": [("jax.tree_map", 1, 16, "alias", True)]}),
    # a plain `import` before or after does not end the walk over the imports
    ("from jax import tree_map\nimport os\n", {"JAX101": [("jax.tree_map", 1, 16, "alias", True)]}),
    ("import os\nfrom jax import tree_map\nimport sys\n", {"JAX101": [("jax.tree_map", 2, 16, "alias", True)]}),
    ("import jax\ntm = jax.tree_map\ntm(f)\n",  # a name bound to the old name
     {"JAX101": [("jax.tree_map", 2, 5, "Attribute", False), ("jax.tree_map", 3, 0, "Name", False)]}),
    # an imported module that is itself the old spelling, and an IMPORT row's import
    ("import jax.config\nfrom jax.config import config\n",
     {"JAX110": [("jax.config", 1, 7, "alias", True), ("jax.config.config", 2, 23, "alias", True)]}),
    ("import jax.lib.xla_bridge\nfrom jax.lib import xla_bridge\n",
     {"JAX195": [("jax.lib.xla_bridge", 1, 7, "alias", True), ("jax.lib.xla_bridge", 2, 20, "alias", True)]}),
    ("from jax.config import config\nimport jax.config\n",
     {"JAX110": [("jax.config", 2, 7, "alias", True), ("jax.config.config", 1, 23, "alias", True)]}),
    ("import jax.lib\n", {}),
    # a removed module's import that something reads: its uses are the references
    ("from jax.lib import xla_bridge\nxla_bridge.get_backend()\n",
     {"JAX112": [("jax.lib.xla_bridge.get_backend", 2, 0, "Attribute", False)]}),
    ("from jax.lib import xla_bridge\nxla_bridge.other()\n",
     {"JAX195": [("jax.lib.xla_bridge", 2, 0, "Name", False)]}),
    # an attribute of any object, not of a module
    ("import jax\ny = x.device_buffer\nz = jax.device_buffer\n",
     {"JAX120": [(".device_buffer", 2, 4, "Attribute", False)]}),
    ("y = x.device_buffers[0]\n", {"JAX121": [(".device_buffers", 1, 4, "Attribute", False)]}),
    ("x.device_buffer = 1\n", {}),  # a store
    # the longest part that is an old name; a name bound to a module
    ("import jax.experimental.pallas.tpu as pltpu\nP = pltpu\nq = P.TPUCompilerParams()\nm = pltpu.DeviceIdType.MESH\n",
     {"JAX151": [("jax.experimental.pallas.tpu.TPUCompilerParams", 3, 4, "Attribute", False)],
      "JAX161": [("jax.experimental.pallas.tpu.DeviceIdType", 4, 4, "Attribute", False)]}),
    ("from jax import numpy as jnp\nx = jnp.product(a)\ny = np.product(a)\n",
     {"JAX145": [("jax.numpy.product", 2, 4, "Attribute", False)]}),
    ("import jax\njax.tree_map = 1\n", {}),
    ("import numpy as np\nx = np.product(a)\nproduct = 1\ny = product\n", {}),
    ("from jax.numpy import product\nx = product(a)\n",
     {"JAX145": [("jax.numpy.product", 1, 22, "alias", True), ("jax.numpy.product", 2, 4, "Name", False)]}),
    ("from jax import numpy\nx = numpy.product(a)\n", {"JAX145": [("jax.numpy.product", 2, 4, "Attribute", False)]}),
    ("x = tree_map(f)\n", {}),  # a bare name nothing binds
])
def test_the_scan_finds(text: str, found: dict) -> None:
    assert _found(text) == found


# Version guards


GUARDED = {
    "try, except ImportError": "try:\n    import jax\n    x = jax.tree_map(f)\nexcept ImportError:\n    pass\n",
    "a handler's tuple, an attribute": "import jax\ntry:\n    x = jax.tree_map(f)\nexcept (ValueError, builtins.AttributeError):\n    pass\n",
    "a bare except": "import jax\ntry:\n    x = jax.tree_map(f)\nexcept:\n    pass\n",
    "the second handler": "import jax\ntry:\n    x = jax.tree_map(f)\nexcept ValueError:\n    pass\nexcept TypeError:\n    pass\n",
    "Exception": "import jax\ntry:\n    x = jax.tree_map(f)\nexcept Exception:\n    pass\n",
    "ModuleNotFoundError": "import jax\ntry:\n    x = jax.tree_map(f)\nexcept ModuleNotFoundError:\n    pass\n",
    "BaseException": "import jax\ntry:\n    x = jax.tree_map(f)\nexcept BaseException:\n    pass\n",
    "hasattr, its body": "import jax\nif hasattr(jax, 'tree_map'):\n    a = jax.tree_map(f)\n",
    "hasattr, its else": "import jax\nif hasattr(jax, 'Array') and x:\n    pass\nelse:\n    b = jax.tree_map(g)\n",
    "hasattr, its elif": "import jax\nif hasattr(jax, 'tree_map'):\n    pass\nelif x:\n    a = jax.tree_map(f)\n",
    "a version": "import jax\nif jax.__version__ > '0.4':\n    a = jax.tree_map(f)\nelse:\n    b = jax.tree_map(g)\n",
    "version_info": "import jax\nif sys.version_info >= (3, 9):\n    a = jax.tree_map(f)\n",
    "a name with version in it": "import jax\nif jax_version >= 3:\n    a = jax.tree_map(f)\n",
    "__jax_version__": "import jax\nif x.__jax_version__:\n    a = jax.tree_map(f)\n",
    "getattr of a computed name": "import jax\nif getattr(jax, name):\n    a = jax.tree_map(f)\n",
    "hasattr of a number": "import jax\nif hasattr(jax, 42):\n    a = jax.tree_map(f)\n",
    "a method named hasattr": "import jax\nif o.hasattr(jax, 'tree_map'):\n    a = jax.tree_map(f)\n",
    "an if expression's body": "import jax\nf = jax.tree_map if hasattr(jax, 'tree_map') else g\n",
    "an if expression's else": "import jax\nf = g if hasattr(jax, 'tree_map') else jax.tree_map\n",
    "a def in the body": "import jax\nif hasattr(jax, 'tree_map'):\n    def f():\n        return jax.tree_map(g)\n",
    "asked through a name's import": "import jax\nfrom jax import tree_map as tm\nif hasattr(jax, 'tree_map'):\n    a = tm(f)\n",
    "the asked call deep in the test": "import jax\nif not (x and hasattr(jax, 'tree_map')):\n    pass\nelse:\n    a = jax.tree_map(f)\n",
    # issue 49, item 5b: the handler of a missing name is the fallback for the jax that lacks the try's name
    "in a missing-name handler": "import jax\ntry:\n    x = jax.tree.map\nexcept AttributeError:\n    x = jax.tree_map\n",
}


@pytest.mark.parametrize("case", GUARDED)
def test_a_guarded_reference_is_left_out(case: str) -> None:
    found = _found(GUARDED[case])
    assert [r for r in found.get("JAX101", []) if r[3] != "alias"] == []


NOT_GUARDED = {
    "another exception": ("import jax\ntry:\n    x = jax.tree_map(f)\nexcept ValueError:\n    pass\n", 3),
    "in a handler of another error": ("import jax\ntry:\n    x = 1\nexcept KeyError:\n    x = jax.tree_map(f)\n", 5),
    "in the finally": ("import jax\ntry:\n    x = 1\nexcept ImportError:\n    pass\nfinally:\n    x = jax.tree_map(f)\n", 7),
    "a call as the handler's type": ("import jax\ntry:\n    x = jax.tree_map(f)\nexcept foo():\n    pass\n", 3),
    "hasattr of another name, its body": (
        "import jax\nif hasattr(jax, 'Array') and x:\n    a = jax.tree_map(f)\nelse:\n    pass\n", 3),
    "the if's own test": ("import jax\nif jax.tree_map:\n    pass\n", 2),
    "hasattr with one argument": ("import jax\nif hasattr(jax):\n    a = jax.tree_map(f)\n", 3),
    "a plain if": ("import jax\nif x:\n    a = jax.tree_map(f)\n", 3),
    "a call of two arguments that asks nothing": ("import jax\nif isinstance(x, int):\n    a = jax.tree_map(f)\n", 3),
    "a called call of two arguments": ("import jax\nif f()(x, 'tree_map'):\n    a = jax.tree_map(f)\n", 3),
    "an if expression's test": ("import jax\nf = a if jax.tree_map else b\n", 2),
    "a word that only contains the name": ("import jax\nif hasattr(jax, 'tree'):\n    a = jax.tree_map(f)\n", 3),
}


@pytest.mark.parametrize("case", NOT_GUARDED)
def test_an_unguarded_reference_is_found(case: str) -> None:
    text, line = NOT_GUARDED[case]
    assert [r[1] for r in _found(text)["JAX101"] if r[3] != "alias"] == [line]


def test_an_import_in_a_hasattr_body_is_guarded_by_the_name_it_imports() -> None:
    """An import's alias is no name or attribute: the words of its text are what the test asks about."""
    assert _found("import jax\nif hasattr(jax, 'tree_map'):\n    from jax import tree_map\n") == {}
    assert _found("import jax\nif hasattr(jax, 'tree_leaves'):\n    from jax import tree_map\n") == {
        "JAX101": [("jax.tree_map", 3, 20, "alias", True)]}


def test_guarded_of_a_node_itself() -> None:
    module = ModuleIndex.parse("import jax\nif hasattr(jax, 'tree_map'):\n    a = jax.tree_map(f)\nb = jax.tree_map(g)\n")
    attributes = sorted((n for n in ast.walk(module.tree) if isinstance(n, ast.Attribute)), key=lambda n: n.lineno)
    assert [(n.lineno, guarded(module, n)) for n in attributes] == [(3, True), (4, False)]
    assert guarded(module, module.tree) is False  # no parent


# Finders


def test_a_finder_runs_only_when_its_rows_word_is_in_the_text() -> None:
    asked: list = []

    def find(module, row):
        asked.append(row.code)
        return [Reference(row, "with Mesh", node) for node in ast.walk(module.tree) if isinstance(node, ast.With)]

    text = "import jax\nwith make_mesh():\n    x = jax.tree_map(f)\n"
    scan = Scan(ModuleIndex.parse(text), {"JAX134": find})
    assert asked == ["JAX134"]
    assert {code: [(r.old, r.node.lineno) for r in refs] for code, refs in scan.by_code.items()} == {
        "JAX101": [("jax.tree_map", 3)], "JAX134": [("with Mesh", 2)]}
    asked.clear()
    Scan(ModuleIndex.parse("import jax\nwith open(p):\n    pass\n"), {"JAX134": find})
    assert asked == []


def test_a_finders_rows_are_not_looked_up_as_names() -> None:
    text = "from jax import tree_map\nx = tree_map(f)\n"
    assert _found(text, {"JAX101": lambda module, row: []}) == {}


def test_a_finders_guarded_references_are_left_out() -> None:
    text = "import jax\ntry:\n    with make_mesh():\n        pass\nexcept ImportError:\n    pass\n"
    module = ModuleIndex.parse(text)
    with_node = next(node for node in ast.walk(module.tree) if isinstance(node, ast.With))
    scan = Scan(module, {"JAX134": lambda module, row: [Reference(row, "with Mesh", with_node)]})
    assert scan.by_code == {}


# Scan.of


def test_scan_of_is_computed_once_per_file() -> None:
    file = ParsedFile(Path("m.py"), ModuleIndex.parse("import jax\njax.tree_map(f)\n"), Settings())
    first = Scan.of(file, {})
    assert file.shared == {"Scan": first}
    assert first.module is file.module
    assert Scan.of(file, {}) is first
    assert [r.old for r in first.by_code["JAX101"]] == ["jax.tree_map"]
    other = ParsedFile(Path("m.py"), file.module, Settings(), shared={"Scan": "kept"})
    assert Scan.of(other, {}) == "kept"


# named_on


def test_named_on() -> None:
    text = "from jax.lib import xla_bridge\n\nb = xla_bridge.get_backend()\nc = (xla_bridge\n     .get_backend())\n"
    module = ModuleIndex.parse(text)
    references = sorted(Scan(module, {}).by_code["JAX112"], key=lambda r: r.node.lineno)
    assert [(r.node.lineno, r.node.end_lineno) for r in references] == [(3, 3), (4, 5)]
    first, second = references
    assert [line for line in range(1, 7) if named_on(module, first, frozenset({line}))] == [1, 3]
    assert [line for line in range(1, 7) if named_on(module, second, frozenset({line}))] == [1, 4, 5]
    assert named_on(module, first, frozenset({2, 3})) is True
    assert named_on(module, first, frozenset()) is False
    assert named_on(module, first, frozenset({2, 6})) is False


def test_named_on_an_import_over_lines() -> None:
    text = "from jax.lib import (\n    xla_bridge,\n)\nb = xla_bridge.get_backend()\n"
    module = ModuleIndex.parse(text)
    reference, = Scan(module, {}).by_code["JAX112"]
    assert [line for line in range(1, 6) if named_on(module, reference, frozenset({line}))] == [1, 2, 3, 4]


def test_named_on_a_name_bound_by_assignment_and_a_call() -> None:
    text = "import jax\n\ntm = jax.tree_map\nx = f().device_buffer\n"
    module = ModuleIndex.parse(text)
    scan = Scan(module, {})
    name, = scan.by_code["JAX101"]
    assert [line for line in range(1, 6) if named_on(module, name, frozenset({line}))] == [1, 3]
    attribute, = scan.by_code["JAX120"]  # its chain ends in a call, no name
    assert [line for line in range(1, 6) if named_on(module, attribute, frozenset({line}))] == [4]


# references_to


def test_references_to() -> None:
    module = ModuleIndex.parse("import jax\nfrom jax import tree_map\nx = jax.tree_map(f)\ny = jax.tree_leaves(t)\n")
    found = references_to(module, "jax.tree_map")
    assert sorted((r.old, r.node.lineno, r.row.code) for r in found) == [
        ("jax.tree_map", 2, "JAX101"), ("jax.tree_map", 3, "JAX101")]
    found = references_to(module, "jax.tree_map", ROWS["JAX107"])
    assert sorted((r.old, r.node.lineno, r.row.code) for r in found) == [
        ("jax.tree_map", 2, "JAX107"), ("jax.tree_map", 3, "JAX107")]
    assert references_to(module, "jax.tree_flatten") == []


def test_the_tables() -> None:
    assert scan_module.ROWS["JAX101"].old == ("jax.tree_map",)
    assert scan_module.ROWS_BY_OLD["jax.tree_util.tree_multimap"].code == "JAX107"
