"""codemods/upgrades/transform.py (the JAX1xx rules' transform) run in the test's process (issue 35,
item 3: mutation testing): an import nothing uses dropped or, re-exported, left to a person; a
private import left alone; `__all__` read; the finding held back by the target, the floor or a
replacement deprecated too; what the target raises (ImportError, AttributeError,
ModuleNotFoundError); how a replacement is spelled (the file's own names, a new import); an import
moved; an attribute of any object. Each test checks the exact text and every finding. No jax, no
subprocess.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from codemods import registry
from codemods.engine.runner import process_source
from codemods.settings import Settings
from codemods.upgrades.transform import _dunder_all, _in_annotation, _root

TARGET = (0, 12, 0, 1)
PJIT = "from jax.experimental.pjit import pjit\n"
DROPPED = "import of jax.experimental.pjit.pjit -> removed (nothing here uses it): deprecated since jax 0.8.0"
REEXPORTED = ("import of jax.experimental.pjit.pjit: deprecated since jax 0.8.0; it is re-exported: its importers must "
              "move to the replacement, and this import go")


def _run(source: str, version=TARGET, floor=None, path: str = "m.py", select: str = "JAX1"):
    settings = Settings(version, jax_floor=floor, unsafe_fixes=True)
    result = process_source(Path(path), source.encode(), registry.select([select]), settings)
    assert result.error is None, result.error
    return (result.after if result.new_source is not None else None), [(f.line, f.column, f.code, f.kind.value, f.message,
                           f.fix.applicability.value if f.fix else None, f.held_back) for f in result.findings]


# -- an import nothing uses --

@pytest.mark.parametrize(("source", "after", "findings"), [
    (PJIT + "x = 1\n", "x = 1\n", [(1, 1, "JAX130", "fixed", DROPPED, "safe", False)]),
    ("from jax.experimental.pjit import pjit, other\n", "from jax.experimental.pjit import other\n",
     [(1, 35, "JAX130", "fixed", DROPPED, "safe", False)]),
    ("def f():\n    from jax.experimental.pjit import pjit\n", "def f():\n    pass\n",
     [(2, 5, "JAX130", "fixed", DROPPED, "safe", False)]),
    ("from jax.experimental.pallas import dot\nx = 1\n", "x = 1\n",
     [(1, 1, "JAX150", "fixed", "import of pl.dot -> removed (nothing here uses it): removed in jax 0.11.2 (raises "
                                "ImportError on jax 0.12.0.1)", "safe", False)]),
    # Re-exported: `as` itself, a package's __init__, a name __all__ lists.
    ("from jax.experimental.pjit import pjit as pjit\n", None,
     [(1, 35, "JAX130", "manual", REEXPORTED, None, False)]),
    (PJIT + "__all__ = ['pjit', 1, name]\n", None, [(1, 35, "JAX130", "manual", REEXPORTED, None, False)]),
    (PJIT + "__all__ = ('x', 'pjit')\n", None, [(1, 35, "JAX130", "manual", REEXPORTED, None, False)]),
    (PJIT + "__all__ = []\n__all__ += ['pjit']\n", None, [(1, 35, "JAX130", "manual", REEXPORTED, None, False)]),
    # Not __all__, or not a list or tuple of it: not re-exported, so a fix. The engine keeps an import
    # whose name a string of `__all__` (or of an annotation) holds, engine/fixes.py _names_used: the
    # text stays there; any other string is text, and the import goes.
    (PJIT + "x.__all__ = ['pjit']\n", "x.__all__ = ['pjit']\n", [(1, 1, "JAX130", "fixed", DROPPED, "safe", False)]),
    (PJIT + "names = ['pjit']\n", "names = ['pjit']\n", [(1, 1, "JAX130", "fixed", DROPPED, "safe", False)]),
    (PJIT + "__all__ = other(['pjit'])\n", None, [(1, 35, "JAX130", "fixed", DROPPED, "safe", False)]),
    (PJIT + "__all__: list = ['pjit']\n", None, [(1, 35, "JAX130", "fixed", DROPPED, "safe", False)]),
    (PJIT + "__all__ = [name]\n", "__all__ = [name]\n", [(1, 1, "JAX130", "fixed", DROPPED, "safe", False)]),
    (PJIT + "def f():\n    __all__ = ['pjit']\n", None, [(1, 35, "JAX130", "fixed", DROPPED, "safe", False)]),
    # jax's private spelling is no public import the row speaks of; a row that keeps the name.
    ("from jax._src.pallas.primitives import dot\n", None, []),
    ("from jax.numpy import clip\n", None, []),
    ("import jax.experimental.pjit\n", None, []),
], ids=["alone", "one-of-two", "a-blocks-only-statement", "pallas-dot", "as-itself", "all-list", "all-tuple",
        "all-augmented", "attribute-all", "other-list", "all-computed", "all-annotated", "all-of-names",
        "all-in-a-function", "private", "clip-stays", "module-import"])
def test_an_import_nothing_uses(source: str, after, findings: list) -> None:
    assert _run(source) == (after, findings)


def test_an_import_in_a_packages_init_is_re_exported() -> None:
    assert _run(PJIT, path="pkg/__init__.py") == (None, [(1, 35, "JAX130", "manual", REEXPORTED, None, False)])
    assert _run(PJIT, path="pkg/__init__.pyi")[1][0][3] == "fixed"


@pytest.mark.parametrize(("source", "expected"), [
    ("__all__ = ['a', 'b']", {"a", "b"}), ("__all__ = ('a',)", {"a"}), ("__all__ += ['a']", {"a"}),
    ("__all__ = ['a', 1, b, f'c']", {"a"}), ("x = ['a']", set()), ("__all__ = f(['a'])", set()),
    ("x.__all__ = ['a']", set()), ("__all__: list = ['a']", set()), ("x = __all__ = ['a']", {"a"}),
    ("if x:\n    __all__ = ['a']", set()), ("__all__ = ['a']\n__all__ = ['b']", {"a", "b"}), ("x += ['a']", set()),
])
def test_dunder_all(source: str, expected: set) -> None:
    assert _dunder_all(ast.parse(source)) == expected


# -- held back --

def test_a_replacement_deprecated_too_holds_the_fix_back_not_by_the_floor() -> None:
    source = "from jax.experimental.pallas.tpu import DeviceIdType\nx = DeviceIdType.MESH\n"
    assert _run(source) == (None, [(1, 41, "JAX161", "manual", (
        "from jax.experimental.pallas.tpu import DeviceIdType -> from jax.experimental.pallas import DeviceIdType: "
        "removed in jax 0.11.0 (raises ImportError on jax 0.12.0.1); not rewritten: pl.DeviceIdType is deprecated too "
        "since jax 0.12.0: drop device_id_type=DeviceIdType.MESH (the default); for LOGICAL, pass the device's mesh "
        "coordinates as device_id"), None, False)])


def test_a_target_before_the_replacement_came_holds_the_fix_back_not_by_the_floor() -> None:
    assert _run("import jax.numpy as jnp\ny = jnp.trapz(x)\n", (0, 4, 24)) == (None, [(2, 5, "JAX143", "manual", (
        "jnp.trapz -> jnp.trapezoid: removed in jax 0.4.24 (raises AttributeError on jax 0.4.24); not rewritten: "
        "jnp.trapezoid needs jax >= 0.4.26 and the target is jax 0.4.24"), None, False)])


def test_a_target_before_the_replacement_came_takes_its_older_spelling() -> None:
    """jax.tree_leaves warns from 0.4.20; jax.tree.leaves came in 0.4.25, jax.tree_util.tree_leaves long before."""
    after, findings = _run("import jax\ny = jax.tree_leaves(x)\n", (0, 4, 22))
    assert after == "import jax\ny = jax.tree_util.tree_leaves(x)\n" and findings[0][3] == "fixed", findings


def test_a_floor_below_the_replacement_holds_the_fix_back_by_the_floor() -> None:
    assert _run("import jax\ny = jax.tree_map(f, x)\n", floor=(0, 2, 0)) == (None, [(2, 5, "JAX101", "manual", (
        "jax.tree_map -> jax.tree.map: removed in jax 0.6.0 (raises AttributeError on jax 0.12.0.1); not rewritten: "
        "jax.tree_util.tree_map needs jax >= 0.3.0 and the project supports jax >= 0.2.0 (guard it, or raise the lowest "
        "supported jax)"), None, True)])
    assert _run("import jax\ny = jax.tree_map(f, x)\n", floor=(0, 4, 20))[0] == "import jax\ny = jax.tree_util.tree_map(f, x)\n"
    assert _run("import jax\ny = jax.tree_map(f, x)\n", floor=(0, 4, 25))[0] == "import jax\ny = jax.tree.map(f, x)\n"


MESHES = "import jax\nmesh = jax.make_mesh((1,), ('x',))\nwith mesh:\n    pass\n"
MAKE_MESH = ("jax.make_mesh() without axis_types: removed in jax 0.9.0 (a different default (Explicit axes) on jax "
             "0.12.0.1); pass axis_types=(jax.sharding.AxisType.Auto,) * len(axis_names) to keep the old behaviour, or "
             "adopt explicit sharding")
WITH_MESH = ("with Mesh: deprecated since jax 0.10.1; `with mesh:` -> `with jax.set_mesh(mesh):`; set_mesh also sets "
             "the abstract mesh (jax.sharding.get_abstract_mesh()) that explicit-sharding code reads")


def test_a_manual_row_below_the_floor_says_it_is_a_persons_change_whatever_the_floor() -> None:
    """JAX191 and JAX134 write no fix on any floor: "not rewritten ... raise the lowest supported
    jax" promised a fix that raising it would never bring (issue 49, item 6)."""
    above = [(2, 8, "JAX191", "manual", MAKE_MESH, None, False), (3, 6, "JAX134", "manual", WITH_MESH, None, False)]
    assert _run(MESHES, floor=(0, 8, 0)) == _run(MESHES) == (None, above)
    assert _run(MESHES, floor=(0, 4, 30)) == (None, [
        (2, 8, "JAX191", "manual", f"{MAKE_MESH}; no fix is written for this change, whatever the lowest supported jax; "
         "the replacement needs jax >= 0.5.0 and the project supports jax >= 0.4.30: guard it", None, False),
        (3, 6, "JAX134", "manual", f"{WITH_MESH}; no fix is written for this change, whatever the lowest supported jax; "
         "jax.set_mesh needs jax >= 0.7.1 and the project supports jax >= 0.4.30: guard it", None, False)])


def test_a_target_that_still_has_the_name_reports_nothing() -> None:
    assert _run("import jax\ny = jax.tree_map(f, x)\n", (0, 4, 20)) == (None, [])
    assert _run("import jax\ny = jax.tree_map(f, x)\n", None) == (None, [])


# -- what the target raises, and how the replacement is spelled --

@pytest.mark.parametrize(("source", "after", "findings"), [
    ("import jax\nb = jax.lib.xla_bridge.get_backend()\n",
     "import jax\nimport jax.extend.backend\n\nb = jax.extend.backend.get_backend()\n",
     [(2, 5, "JAX112", "fixed", "jax.lib.xla_bridge.get_backend -> jax.extend.backend.get_backend: removed in jax 0.8.0 "
                                "(raises AttributeError on jax 0.12.0.1)", "safe", False)]),
    ("from jax.lib import xla_bridge\nb = xla_bridge.get_backend()\n",
     "import jax.extend.backend\n\nb = jax.extend.backend.get_backend()\n",
     [(2, 5, "JAX112", "fixed", "jax.lib.xla_bridge.get_backend -> jax.extend.backend.get_backend: removed in jax 0.8.0 "
                                "(raises ImportError on jax 0.12.0.1)", "safe", False)]),
    ("from jax.lib.xla_bridge import get_backend\nb = get_backend()\n",
     "from jax.extend.backend import get_backend\nb = get_backend()\n",
     [(1, 10, "JAX112", "fixed", "from jax.lib.xla_bridge import get_backend -> from jax.extend.backend import "
                                 "get_backend: removed in jax 0.8.0 (raises ImportError on jax 0.12.0.1)", "safe", False)]),
    ("import jax.config\njax.config.update('x', 1)\n", "import jax\njax.config.update('x', 1)\n",
     [(1, 8, "JAX110", "fixed", "import jax.config -> import jax: removed in jax 0.4.25 (raises ImportError on jax "
                                "0.12.0.1)", "safe", False)]),
    ("import jax.config as c\nimport jax\nc.update('x', 1)\n", "from jax import config as c\nimport jax\nc.update('x', 1)\n",
     [(1, 1, "JAX110", "fixed", "import jax.config as c -> from jax import config as c: removed in jax 0.4.25 (raises "
                                "ImportError on jax 0.12.0.1)", "safe", False)]),
    ("import jax\nimport jax.config\njax.config.update('x', 1)\n", "import jax\njax.config.update('x', 1)\n",
     [(2, 1, "JAX110", "fixed", "import jax.config -> import jax (already imported): removed in jax 0.4.25 (raises "
                                "ImportError on jax 0.12.0.1)", "safe", False)]),
    ("import jax\nimport jax.config; x = 1\njax.config.update('x', 1)\n",
     "import jax\nimport jax; x = 1\njax.config.update('x', 1)\n",
     [(2, 8, "JAX110", "fixed", "import jax.config -> import jax: removed in jax 0.4.25 (raises ImportError on jax "
                                "0.12.0.1)", "safe", False)]),
    ("def f(compiled):\n    return compiled.input_layouts()\n", "def f(compiled):\n    return compiled.input_formats\n",
     [(2, 12, "JAX128", "fixed", "x.input_layouts -> x.input_formats: removed in jax 0.7.0 (raises AttributeError on jax "
                                 "0.12.0.1); unsafe: the object's type is not known here", "unsafe", False)]),
    ("def f(compiled):\n    return compiled.input_layouts(1)\n", "def f(compiled):\n    return compiled.input_formats(1)\n",
     [(2, 12, "JAX128", "fixed", "x.input_layouts -> x.input_formats: removed in jax 0.7.0 (raises AttributeError on jax "
                                 "0.12.0.1); unsafe: the object's type is not known here", "unsafe", False)]),
    ("from jax import tree_map\ny = tree_map(f, x)\n", "from jax.tree_util import tree_map\ny = tree_map(f, x)\n",
     [(1, 9, "JAX101", "fixed", "from jax import tree_map -> from jax.tree_util import tree_map: removed in jax 0.6.0 "
                                "(raises ImportError on jax 0.12.0.1)", "safe", False)]),
    ("from jax.experimental.pallas import tpu as pltpu\nfrom jax.experimental import pallas as pl\n"
     "x = pltpu.TPUCompilerParams()\n",
     "from jax.experimental.pallas import tpu as pltpu\nfrom jax.experimental import pallas as pl\n"
     "x = pltpu.CompilerParams()\n",
     [(3, 5, "JAX151", "fixed", "pltpu.TPUCompilerParams -> pltpu.CompilerParams: removed in jax 0.7.2 (raises "
                                "AttributeError on jax 0.12.0.1)", "safe", False)]),
    ("def f():\n    import jax.config\n    jax.config.update('x', 1)\n",
     "def f():\n    import jax\n    jax.config.update('x', 1)\n",
     [(2, 12, "JAX110", "fixed", "import jax.config -> import jax: removed in jax 0.4.25 (raises ImportError on jax "
                                 "0.12.0.1)", "safe", False)]),
    # A from-import of a name `jax` is no `import jax`: the line is rewritten, not deleted.
    ("from foo import jax\nimport jax.config\njax.config.update('x', 1)\n",
     "from foo import jax\nimport jax\njax.config.update('x', 1)\n",
     [(2, 8, "JAX110", "fixed", "import jax.config -> import jax: removed in jax 0.4.25 (raises ImportError on jax "
                                "0.12.0.1)", "safe", False)]),
], ids=["through-the-package", "module-imported-by-name", "member-imported", "import-module", "import-module-as",
        "import-module-already-imported", "import-module-not-alone", "method-becomes-property", "called-with-arguments",
        "from-import-moved", "attribute-of-module-name", "import-module-in-a-function",
        "jax-from-imported"])
def test_status_and_spelling(source: str, after, findings: list) -> None:
    assert _run(source) == (after, findings)


# -- helpers --

def test_root_and_in_annotation() -> None:
    tree = ast.parse("def f(a: x.y = z.w) -> r.s:\n    v: t.u = q.p\n    return a\n")
    from codemods.analysis.module import ModuleIndex

    module = ModuleIndex(ast.unparse(tree), tree)
    attributes = {ast.unparse(n): n for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert {name: _in_annotation(module, node) for name, node in attributes.items()} == {
        "x.y": True, "z.w": False, "r.s": True, "t.u": True, "q.p": False}
    assert ast.unparse(_root(attributes["x.y"])) == "x"
    name = ast.Name("n")
    assert _root(name) is name


TREE = "removed in jax 0.6.0 (raises ImportError on jax 0.12.0.1)"


@pytest.mark.parametrize(("source", "after", "where"), [
    ("from jax import tree_map, tree_leaves", "from jax.tree_util import tree_map\nfrom jax.tree_util import tree_leaves",
     (1, 9)),  # no line end in the file: the statements are joined by "\n"
    ("def f():\n    from jax import tree_map, tree_leaves\n    return tree_map, tree_leaves\n",
     "def f():\n    from jax.tree_util import tree_map\n    from jax.tree_util import tree_leaves\n"
     "    return tree_map, tree_leaves\n", (2, 13)),
    ("if x:\n    from jax import tree_map, tree_leaves; y = 1\n    z = tree_map, tree_leaves\n",
     "if x:\n    from jax.tree_util import tree_map\n    from jax.tree_util import tree_leaves; y = 1\n"
     "    z = tree_map, tree_leaves\n", (2, 13)),
    ("def f():\r\n    from jax import tree_map, tree_leaves\r\n    return tree_map, tree_leaves\r\n",
     "def f():\r\n    from jax.tree_util import tree_map\r\n    from jax.tree_util import tree_leaves\r\n"
     "    return tree_map, tree_leaves\r\n", (2, 13)),
], ids=["no-line-end", "indented-whole-lines", "indented-not-alone", "crlf"])
def test_two_names_of_one_import_moved_by_two_fixes(source: str, after: str, where: tuple) -> None:
    assert _run(source) == (after, [
        (*where, "JAX101", "fixed", f"from jax import tree_map -> from jax.tree_util import tree_map: {TREE}", "safe", False),
        (*where, "JAX102", "fixed", f"from jax import tree_leaves -> from jax.tree_util import tree_leaves: {TREE}", "safe",
         False)])
