"""The JAX1xx machinery without jax: which references are found, which are left alone, how the
fixes spell the replacement, and that the table of docs/upgrading-jax.md is the rules' table.

The goldens (tests/fixtures/upgrades/) show whole files and are executed on jax by
tests/test_upgrades_jax.py; each test here pins one behaviour a one-line change could break.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codemods import registry
from codemods.analysis.names import display
from codemods.api_changes import TABLE
from codemods.capabilities import format_version
from codemods.engine.runner import process_source
from codemods.engine.rule import code_order
from codemods.settings import Settings
from codemods.upgrades.scan import ROWS

UPGRADING = Path(__file__).resolve().parents[1] / "docs" / "upgrading-jax.md"
TARGET = Settings((0, 12, 0, 1))


def _fix(source: str, settings: Settings = TARGET, select: str = "JAX1"):
    result = process_source(Path("m.py"), source.encode(), registry.select([select]), settings)
    assert result.error is None, result.error
    return (result.after or source), result.findings


def test_every_row_is_a_rule_selectable_by_the_family_prefix() -> None:
    codes = [row.code for row in TABLE]
    assert len(codes) == len(set(codes)) and all(re.fullmatch(r"JAX1\d\d|JAX1\d{3}", code) for code in codes)
    assert [rule.code for rule in registry.select(["JAX1"])] == sorted(codes, key=code_order)
    assert not {rule.code for rule in registry.select(["JAX0"])} & set(codes)


def upgrade_table() -> str:
    """The table of the JAX1xx rows in docs/upgrading-jax.md, generated from codemods/api_changes.py."""
    def release(version) -> str:
        return format_version(version) if version else "—"

    def new(row) -> str:
        if not row.new:
            return "—"
        superseded = f" (deprecated too from {release(row.superseded)}: [manual] there)" if row.superseded else ""
        older = "".join(f" ({'by position' if name == row.new else f'`{display(name)}`'} under a floor from "
                        f"{release(since)})" for name, since in row.also)
        same_name = ".<name>" if row.moves_members else ""
        return f"`{display(row.new)}{same_name}`{older}{superseded}"

    rows = [f"| {row.code} | {', '.join(f'`{display(old)}`' for old in row.old)} | "
            f"{new(row)} | {row.change.value} | {release(row.since)} | "
            f"{release(row.deprecated)} | {release(row.removed)} |" for row in TABLE]
    return "\n".join(["| code | old | new | kind | new since | deprecated | removed |",
                      "| --- | --- | --- | --- | --- | --- | --- |", *rows]) + "\n"


def test_the_upgrade_page_lists_every_row_as_the_table_says(update_goldens: bool) -> None:
    """Regenerated with `pytest tests/test_upgrades.py --update-goldens`, like the goldens."""
    def table_span(text: str) -> tuple[int, int]:  # the table ends at a blank line or the page's end
        start = text.index("| code | old | new | kind |")
        end = text.find("\n\n", start)
        return start, len(text) if end == -1 else end + 1

    text = UPGRADING.read_text()
    start, end = table_span(text)
    if update_goldens:
        UPGRADING.write_text(text[:start] + upgrade_table() + text[end:])
        text = UPGRADING.read_text()
        start, end = table_span(text)
    assert text[start:end] == upgrade_table()


@pytest.mark.parametrize("guarded", [
    "try:\n    from jax import tree_map\nexcept ImportError:\n    from jax.tree_util import tree_map\n",
    "try:\n    f = jax.tree_map\nexcept (ValueError, AttributeError):\n    f = jax.tree.map\n",
    "if hasattr(jax, 'tree_map'):\n    f = jax.tree_map\nelse:\n    f = jax.tree.map\n",
    "if jax.__version__ < '0.4.25':\n    f = jax.tree_map\n",
    "f = jax.tree_map if jax.__version_info__ < (0, 4, 25) else jax.tree.map\n",
    # The handler of a missing name is the fallback for the jax that lacks the try's spelling.
    "try:\n    f = jax.tree.map\nexcept AttributeError:\n    f = jax.tree_map\n",
    "try:\n    from jax.tree import map\nexcept (ImportError, KeyError):\n    from jax import tree_map as map\n",
    "try:\n    import jax.tree\nexcept ModuleNotFoundError:\n    f = jax.tree_map\n",
], ids=["try-import", "try-attribute", "hasattr", "version", "version-ifexp", "except-attribute-fallback",
        "except-import-fallback", "except-module-fallback"])
def test_code_in_a_version_guard_is_left_alone(guarded: str) -> None:
    source = "import jax\n" + guarded
    assert _fix(source) == (source, [])


def test_a_try_that_catches_something_else_is_no_guard() -> None:
    after, findings = _fix("import jax\ntry:\n    f = jax.tree_map\nexcept KeyError:\n    pass\n")
    assert "jax.tree.map" in after and [f.code for f in findings] == ["JAX101"]


@pytest.mark.parametrize("handler", ["except KeyError:", "except Exception:", "except:"])
def test_a_handler_of_other_errors_is_no_fallback(handler: str) -> None:
    """Only the errors a missing name raises make a handler the fallback of a version guard: a
    broad `except Exception:` handles any failure of its try, not an older jax."""
    after, findings = _fix(f"import jax\ntry:\n    f = g()\n{handler}\n    f = jax.tree_map\n")
    assert "jax.tree.map" in after and [f.code for f in findings] == ["JAX101"]


def test_a_row_applies_only_where_the_target_retired_the_old_spelling_and_has_the_new() -> None:
    source = "import jax\nf = jax.tree_map\n"
    assert _fix(source, Settings((0, 4, 25)))[1] == []  # jax.tree exists, tree_map not yet deprecated
    assert _fix(source, Settings((0, 4, 26)))[0] == "import jax\nf = jax.tree.map\n"
    assert _fix(source, Settings(None))[1] == []  # no target: nothing to move to
    assert _fix(source, Settings((0, 12, 0, 1), jax_floor=(0, 4, 25)))[0].endswith("jax.tree.map\n")


def test_a_reference_is_respelled_through_its_own_names_first() -> None:
    source = ("from jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\n"
              "tpu = pltpu\nP = tpu.TPUCompilerParams()\nA = pltpu.ANY\n")
    after, _ = _fix(source)
    assert "P = tpu.CompilerParams()\n" in after and "A = pl.ANY\n" in after


@pytest.mark.parametrize("source, expected", [
    ("import jax as j\ny = j.tree_map(abs, [1])\n", "import jax as j\ny = j.tree.map(abs, [1])\n"),
    ("def f():\n    import jax\n    return jax.tree_map(abs, [1])\n",  # the function's own import
     "def f():\n    import jax\n    return jax.tree.map(abs, [1])\n"),
    ("import jax as jx\n\ndef f(jax):\n    return jx.tree_map(abs, jax)\n",  # `jax` is a parameter there
     "import jax as jx\n\ndef f(jax):\n    return jx.tree.map(abs, jax)\n"),
    ("import jax\nfrom jax import tree_util as tu\ny = tu.tree_map(abs, [1])\n",  # its own module's name
     "import jax\nfrom jax import tree_util as tu\ny = tu.tree_map(abs, [1])\n"),
    ("import jax.numpy as jnp\nimport jax\njax = None\n\ndef f():\n    return jnp.round_(1.5)\n",
     "import jax.numpy as jnp\nimport jax\njax = None\n\ndef f():\n    return jnp.round(1.5)\n"),
    ("import jax\nimport jax\ny = jax.tree_map(abs, [1])\n", "import jax\nimport jax\ny = jax.tree.map(abs, [1])\n"),
    ("from jax import numpy as np_\ny = np_.round_(1.5)\n", "from jax import numpy as np_\ny = np_.round(1.5)\n"),
], ids=["alias", "function-import", "parameter-shadows", "module-alias", "reassigned-jax", "imported-twice",
        "from-import-alias"])
def test_a_fix_spells_the_new_name_through_the_users_own_imports(source: str, expected: str) -> None:
    after, findings = _fix(source)
    assert after == expected, after
    assert all(f.kind.value == "fixed" for f in findings), findings


def test_a_module_the_replacement_needs_is_imported_and_the_old_one_dropped() -> None:
    after, findings = _fix("import jax\nfrom jax.lib import xla_bridge\n\n\ndef f():\n    return xla_bridge.get_backend()\n")
    assert after == "import jax\nimport jax.extend.backend\n\n\ndef f():\n    return jax.extend.backend.get_backend()\n"
    assert [f.code for f in findings] == ["JAX112"]


def test_an_import_of_a_moved_name_keeps_its_alias_and_its_uses() -> None:
    after, _ = _fix("from jax.nn import normalize as norm\ny = norm(1)\n")
    assert after == "from jax.nn import standardize as norm\ny = norm(1)\n"


def test_a_renamed_import_renames_its_uses_unless_the_new_name_is_taken() -> None:
    free = _fix("from jax.experimental.pallas.tpu import TPUMemorySpace\nm = TPUMemorySpace.VMEM\n")[0]
    assert free == "from jax.experimental.pallas.tpu import MemorySpace\nm = MemorySpace.VMEM\n"
    taken = _fix("from jax.experimental.pallas.tpu import TPUMemorySpace\nMemorySpace = 1\nm = TPUMemorySpace.VMEM\n")[0]
    assert taken.startswith("from jax.experimental.pallas.tpu import MemorySpace as TPUMemorySpace\n")
    assert "m = TPUMemorySpace.VMEM\n" in taken


def test_names_moved_out_of_one_import_keep_their_order_and_the_rest_stays() -> None:
    """Each moved name gets a statement of its own, before the one it leaves: the same text whether
    the fixes are applied together or one by one (tests/test_fixes.py)."""
    after, findings = _fix("if True:\n    from jax import numpy, tree_map, tree_leaves as leaves  # old\n"
                           "    x = tree_map, leaves, numpy\n")
    assert after == ("if True:\n    from jax.tree_util import tree_map\n    from jax.tree_util import tree_leaves as leaves\n"
                     "    from jax import numpy  # old\n    x = tree_map, leaves, numpy\n")
    assert [f.code for f in findings] == ["JAX101", "JAX102"]


def test_import_of_a_gone_module_becomes_its_package_once() -> None:
    assert _fix("import jax.config\njax.config.update('x', 1)\n")[0] == "import jax\njax.config.update('x', 1)\n"
    assert _fix("import jax\nimport jax.config\n")[0] == "import jax\n"
    assert _fix("import jax\nimport jax.config; y = 1\n")[0] == "import jax\nimport jax; y = 1\n"


def test_a_type_rename_is_made_in_annotations_only() -> None:
    after, findings = _fix("import jax\ndef f(k: jax.random.KeyArray) -> bool:\n"
                           "    return isinstance(k, jax.random.KeyArray)\n")
    assert "def f(k: jax.Array)" in after and "isinstance(k, jax.random.KeyArray)" in after
    assert [(f.code, f.kind.value) for f in findings] == [("JAX118", "fixed"), ("JAX118", "manual")]


def test_an_attribute_of_any_object_is_an_unsafe_fix() -> None:
    _, findings = _fix("def f(x):\n    return x.device_buffer\n")
    (finding,) = findings
    assert finding.code == "JAX120" and finding.fix is not None and finding.fix.applicability.value == "unsafe"
    assert _fix("import jax\ny = jax.device_buffer\n")[1] == []  # a module's attribute is no array's


def test_layout_means_format_only_beside_device_local_layout() -> None:
    new_api = "from jax.experimental.layout import Layout\nl = Layout.AUTO\n"
    assert _fix(new_api) == (new_api, [])
    after, _ = _fix("from jax.experimental.layout import DeviceLocalLayout, Layout\nl = Layout(DeviceLocalLayout.AUTO)\n")
    assert after == "from jax.experimental.layout import Layout, Format\nl = Format(Layout.AUTO)\n"
    (finding,) = _fix("from jax.experimental.layout import DeviceLocalLayout, Layout\nl = Layout(DeviceLocalLayout.AUTO)\n")[1]
    assert finding.code == "JAX125"  # one fix for both renames: one alone would change what Layout means


def test_findings_say_what_the_target_does_with_the_old_spelling() -> None:
    (removed,) = _fix("import jax\nf = jax.tree_map\n")[1]
    assert removed.message == "jax.tree_map -> jax.tree.map: removed in jax 0.6.0 (raises AttributeError on jax 0.12.0.1)"
    (deprecated,) = _fix("import jax\nf = jax.tree_map\n", Settings((0, 5, 0)))[1]
    assert deprecated.message == "jax.tree_map -> jax.tree.map: deprecated since jax 0.4.26"


def test_a_fix_the_oldest_supported_jax_could_not_run_becomes_a_manual_finding() -> None:
    source = "import jax\nf = jax.tree_map\n"
    after, (finding,) = _fix(source, Settings((0, 12, 0, 1), jax_floor=(0, 2, 0)))
    assert after == source and finding.kind.value == "manual" and finding.fix is None
    assert finding.message == ("jax.tree_map -> jax.tree.map: removed in jax 0.6.0 (raises AttributeError on jax 0.12.0.1); "
                               "not rewritten: jax.tree_util.tree_map needs jax >= 0.3.0 and the project supports jax >= "
                               "0.2.0 (guard it, or raise the lowest supported jax)")


@pytest.mark.parametrize("floor, expected", [
    ((0, 4, 25), "jax.tree.map"),  # the floor has the newest spelling
    ((0, 4, 24), "jax.tree_util.tree_map"),  # it lacks jax.tree: the spelling both ends run
    ((0, 3, 0), "jax.tree_util.tree_map"),
])
def test_a_floor_below_the_replacement_gets_the_spelling_the_whole_range_runs(floor, expected: str) -> None:
    after, (finding,) = _fix("import jax\nf = jax.tree_map\n", Settings((0, 12, 0, 1), jax_floor=floor))
    assert after == f"import jax\nf = {expected}\n" and finding.kind.value == "fixed", finding
    assert ("jax.tree.map needs jax >= 0.4.25" in finding.message) is (expected != "jax.tree.map")


def test_an_old_name_inside_a_longer_attribute_chain_is_found() -> None:
    after, findings = _fix("from jax.experimental.pallas import tpu as pltpu\nkind = pltpu.TPUMemorySpace.VMEM\n")
    assert after.endswith("kind = pltpu.MemorySpace.VMEM\n") and [f.code for f in findings] == ["JAX152"]


@pytest.mark.parametrize("target, floor, expected", [
    ((0, 10, 1), None, "pltpu.MemorySpace.HOST"),  # MemorySpace.HOST still there
    ((0, 12, 0, 1), None, "pl.HOST"),  # gone in 0.10.2: the fix lands on its successor
    ((0, 12, 0, 1), (0, 6, 2), None),  # pl.HOST came in 0.7.0: held back, not written half way
])
def test_a_rename_lands_on_a_spelling_the_target_has(target, floor, expected) -> None:
    source = ("from jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\n"
              "space = pltpu.TPUMemorySpace.HOST\n")
    after, (finding,) = _fix(source, Settings(target, jax_floor=floor))
    if expected is None:
        assert after == source and finding.kind.value == "manual" and finding.held_back
        assert finding.message == (
            "pltpu.TPUMemorySpace.HOST: removed in jax 0.7.2 (raises AttributeError on jax 0.12.0.1); not rewritten: "
            "its replacement pltpu.MemorySpace.HOST is retired on jax 0.12.0.1 too (JAX168); pl.HOST needs jax >= "
            "0.7.0 and the project supports jax >= 0.6.2")
    else:
        assert after.endswith(f"space = {expected}\n") and finding.kind.value == "fixed", finding


@pytest.mark.parametrize("source, expected", [
    ("from jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\n"
     "s = pltpu.semaphore\n", "from jax.experimental import pallas as pl\ns = pl.semaphore\n"),
    ("import jax\nfrom jax.lib import xla_bridge\no = xla_bridge.get_compile_options(1, 1)\n",
     "import jax\nimport jax.extend.backend\n\no = jax.extend.backend.get_compile_options(1, 1)\n"),
], ids=["JAX169", "JAX109"])
def test_renames_real_code_needs(source: str, expected: str) -> None:
    """Issue 49, item 5c: pltpu.semaphore (gone in 0.11.0) and xla_bridge.get_compile_options (0.8.0)."""
    after, findings = _fix(source)
    assert after == expected and [f.kind.value for f in findings] == ["fixed"], (after, findings)


def test_a_target_that_retired_the_old_spelling_before_the_replacement_came_gets_a_finding_not_a_fix() -> None:
    """compiler_params dicts fail from jax 0.6.1; the CompilerParams classes came in 0.6.2."""
    source = ("from jax.experimental import pallas as pl\n"
              "f = pl.pallas_call(k, out_shape=None, compiler_params=dict(mosaic=dict(vmem_limit_bytes=1)))\n")
    after, (finding,) = _fix(source, Settings((0, 6, 1)))
    assert after == source and finding.kind.value == "manual" and finding.fix is None
    assert finding.message.endswith("needs jax >= 0.6.2 and the target is jax 0.6.1")
    assert _fix(source, Settings((0, 6, 2)))[1][0].kind.value == "fixed"


def test_a_replacement_the_target_deprecates_too_is_not_written() -> None:
    """pltpu.DeviceIdType moved to pl.DeviceIdType in 0.10, which 0.12 deprecates with device_id_type=
    itself: on 0.11 the rename is the fix; on 0.12 it would trade one warning for another."""
    source = ("from jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\n\n\n"
              "def signal(sem, peer):\n    pl.semaphore_signal(sem, 1, device_id=peer, "
              "device_id_type=pltpu.DeviceIdType.MESH)\n")
    after, (finding,) = _fix(source, Settings((0, 11, 2)))
    assert finding.code == "JAX161" and after == source.replace("pltpu.DeviceIdType", "pl.DeviceIdType").replace(
        "from jax.experimental.pallas import tpu as pltpu\n", "")  # and the import left unused goes
    after, (finding,) = _fix(source, Settings((0, 12, 0, 1)))
    assert after == source and finding.kind.value == "manual" and finding.fix is None
    assert finding.message == (
        "pltpu.DeviceIdType -> pl.DeviceIdType: removed in jax 0.11.0 (raises AttributeError on jax 0.12.0.1); not rewritten: "
        "pl.DeviceIdType is deprecated too since jax 0.12.0: drop device_id_type=DeviceIdType.MESH (the default); "
        "for LOGICAL, pass the device's mesh coordinates as device_id")


def test_a_layout_method_called_as_old_code_did_becomes_the_property() -> None:
    """`Compiled.input_layouts` was a method until jax 0.4.32; its successor is a property."""
    after, _ = _fix("def f(compiled):\n    return compiled.input_layouts(), compiled.output_layouts\n",
                    Settings((0, 12, 0, 1), unsafe_fixes=True))
    assert after == "def f(compiled):\n    return compiled.input_formats, compiled.output_formats\n"


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_names_moved_out_of_an_import_keep_the_files_line_endings(newline: str) -> None:
    source = f"from jax import numpy, tree_map, tree_leaves{newline}x = tree_map, tree_leaves, numpy{newline}"
    after, _ = _fix(source)
    assert after == newline.join(["from jax.tree_util import tree_map", "from jax.tree_util import tree_leaves",
                                  "from jax import numpy", "x = tree_map, tree_leaves, numpy", ""])


# -- what the messages say (issue 32, item 6) --

COMPILER_PARAMS = "from jax.experimental.pallas import tpu as pltpu\np = pltpu.TPUCompilerParams(dimension_semantics=())\n"


@pytest.mark.parametrize("floor, fixed", [
    ((0, 4, 30), True),   # 0.4.30 has neither spelling: the old one does not run there either, the fix breaks nothing
    ((0, 5, 0), False),   # 0.5.0 runs pltpu.TPUCompilerParams and lacks pltpu.CompilerParams (0.6.2)
    ((0, 6, 2), True),
], ids=["floor-below-the-old-spelling", "floor-with-only-the-old-spelling", "floor-with-both"])
def test_a_floor_that_runs_neither_spelling_holds_no_fix_back(floor, fixed: bool) -> None:
    after, findings = _fix(COMPILER_PARAMS, Settings((0, 12, 0, 1), jax_floor=floor), "JAX151")
    assert ("pltpu.CompilerParams(" in after) is fixed, findings
    assert [f.held_back for f in findings] == [not fixed]


@pytest.mark.parametrize("target, says", [
    ((0, 12, 0, 1), "removed in jax 0.6.1 (raises TypeError on jax 0.12.0.1)"),
    ((0, 7, 0), "removed in jax 0.6.1 (raises ValueError on jax 0.7.0)"),
])
def test_the_failure_named_is_the_targets_own(target, says: str) -> None:
    source = "from jax.experimental import pallas as pl\nf = pl.pallas_call(k, out_shape=None, compiler_params=dict(mosaic={}))\n"
    _, findings = _fix(source, Settings(target), "JAX172")
    assert findings and says in findings[0].message, findings


def test_a_held_back_argument_order_names_the_order_not_the_class() -> None:
    source = "from jax.experimental import pallas as pl\ns = pl.BlockSpec(lambda i: (i,), (8,))\n"
    _, findings = _fix(source, Settings((0, 12, 0, 1), jax_floor=(0, 4, 30)), "JAX173")
    assert findings and "not rewritten: pl.BlockSpec's new argument order (block_shape, index_map) needs jax >= 0.4.31" \
        in findings[0].message, findings


def test_two_rules_on_one_call_name_the_same_removal() -> None:
    """JAX001 and JAX150 both speak of a removed pl.dot: one fact (JAX150's row), one release."""
    source = ("import jax\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n\n\n"
              "def kernel(x_ref, o_ref):\n"
              "    o_ref[...] = pl.dot(x_ref[...], x_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n\n\n"
              "f = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), 'float32'))\n")
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX001", "JAX150"]), TARGET)
    removals = {f.code: re.findall(r"removed in (?:jax )?([\d.]+)", f.message) for f in result.findings}
    assert set(removals) == {"JAX001", "JAX150"} and removals["JAX001"] == removals["JAX150"] == ["0.11.2"], removals


@pytest.mark.parametrize("source, raises", [
    ("from jax import tree_map\n", "ImportError"),          # the name imported from a module that exists
    ("import jax\nf = jax.tree_map\n", "AttributeError"),
    ("from jax.experimental import enable_x64\n", "ImportError"),
], ids=["from-import", "attribute", "from-import-of-a-function"])
def test_the_failure_named_is_the_one_that_spelling_raises(source: str, raises: str) -> None:
    _, findings = _fix(source)
    assert findings and f"(raises {raises} on jax 0.12.0.1)" in findings[0].message, findings


@pytest.mark.parametrize("source, expected", [
    ("from jax.numpy import clip\n", []),  # JAX140 retires `a_max=`, not the name
    ("from jax.experimental.pallas import BlockSpec\n", []),  # JAX173: the argument order
    ("from jax._src.numpy.lax_numpy import clip as clip\n", []),  # jax's own module, not the public spelling
    ("from jax.experimental.pallas import dot\nx = 1\n", [("JAX150", "fixed")]),  # the import fails: dropped
    ("from jax.experimental.pallas import dot as dot\n", [("JAX150", "manual")]),  # re-exported
    ("from jax.experimental.pallas import dot\n__all__ = ['dot']\n", [("JAX150", "manual")]),
], ids=["arguments-row", "argument-order-row", "private-module", "removed-name", "as-reexport", "dunder-all"])
def test_an_unused_import_is_dropped_only_where_it_fails_and_is_not_a_reexport(source: str, expected) -> None:
    """jax 0.12's own jax/numpy/__init__.py lost `clip as clip` to "nothing here uses it" (JAX140,
    a keyword change) before this rule was narrowed: the sweep over site-packages showed it."""
    after, findings = _fix(source)
    assert [(f.code, f.kind.value) for f in findings] == expected, findings
    assert (after == source) == (expected != [("JAX150", "fixed")])


def test_an_import_of_a_removed_module_goes_with_the_uses_fixed() -> None:
    """jraph's tests: `from jax.lib import xla_bridge` read only as `xla_bridge.get_backend`: the
    fix rewrites each use and drops the import; no [manual] finding on a line the fix removes."""
    after, findings = _fix("from jax.lib import xla_bridge\n\nxla_bridge.get_backend.cache_clear()\n")
    assert after == "import jax.extend.backend\n\njax.extend.backend.get_backend.cache_clear()\n", after
    assert {(f.code, f.kind.value) for f in findings} == {("JAX112", "fixed")}, findings
    assert "(raises ImportError on jax 0.12.0.1)" in findings[0].message


def test_a_gone_module_read_through_its_package_raises_attribute_error() -> None:
    """`import jax` then `jax.lib.xla_bridge.default_backend()`: jax.lib has no attribute xla_bridge;
    only importing the module by its path raises ModuleNotFoundError."""
    _, through_package = _fix("import jax\n\nb = jax.lib.xla_bridge.default_backend()\n")
    _, by_path = _fix("import jax.lib.xla_bridge\n\nb = jax.lib.xla_bridge.default_backend()\n")
    assert ["AttributeError" in f.message for f in through_package] == [True], through_package
    assert [f.code for f in by_path] == ["JAX195", "JAX113"], by_path
    assert all("(raises ModuleNotFoundError on jax 0.12.0.1)" in f.message for f in by_path), by_path


# Members of emptied modules and removed modules (issue 49, item 3), one per row, and removed names
# without a mechanical replacement: each source fails on jax 0.12.0.1 as its finding says
# (tests/test_upgrades_jax.py runs them on the installed jax).
MANUAL_REMOVALS = [
    # From 0.11.0 jax.extend.core.ClosedJaxpr is Jaxpr itself: no rename for such a target (JAX137).
    ("import jax\nc = jax.core.ClosedJaxpr\n", "JAX137", "AttributeError"),
    ("from jax import core as jax_core\ns = jax_core.cur_sublevel\n", "JAX100", "AttributeError"),  # dm-haiku 0.0.10
    ("from jax.interpreters import xla\nE = xla.xe.XlaRuntimeError\n", "JAX180", "AttributeError"),  # dm-haiku 0.0.12
    ("import jax\nr = jax.interpreters.xla.register_translation\n", "JAX181", "AttributeError"),
    ("import jax\na = jax.interpreters.xla.abstractify\n", "JAX182", "AttributeError"),
    ("from jax.interpreters import xla\nc = xla.canonicalize_dtype\n", "JAX183", "AttributeError"),
    ("from jax.interpreters import pxla\ns = pxla.ShardingSpec\n", "JAX184", "AttributeError"),
    ("from jax.interpreters.pxla import Index\n", "JAX185", "ImportError"),
    ("from jax.interpreters import pxla\nm = pxla.thread_resources\n", "JAX186", "DeprecationWarning"),
    ("from jax.lib import xla_client\ns = xla_client.OpSharding\n", "JAX187", "ImportError"),
    ("import jax.linear_util as lu\n", "JAX188", "ModuleNotFoundError"),
    ("from jax.experimental.maps import xmap\n", "JAX189", "ModuleNotFoundError"),
    ("from jax.experimental import export\n", "JAX174", "ImportError"),
    ("import jax.experimental.array_api as xp\n", "JAX175", "ModuleNotFoundError"),
    ("from jax.extend import ffi\n", "JAX176", "ImportError"),
    ("from jax.experimental.pallas import gpu as plgpu\n", "JAX177", "ImportError"),
    ("from jax.experimental.shard import reshard\n", "JAX178", "ModuleNotFoundError"),
    ("import jax.cloud_tpu_init\n", "JAX179", "ModuleNotFoundError"),
    ("from jax.experimental.x64_context import enable_x64\n", "JAX196", "ModuleNotFoundError"),
    ("import jax.experimental.attrs\n", "JAX197", "ModuleNotFoundError"),
    # issue 49, item 5c: removed names real code uses, and the rest of jax.util
    ("import jax\nd = jax.dlpack.to_dlpack(jax.numpy.ones(2))\n", "JAX198", "AttributeError"),
    ("import jax\ny = jax.random.shuffle(jax.random.PRNGKey(0), jax.numpy.ones(2))\n", "JAX199", "AttributeError"),
    ("from jax import util\nh = util.safe_zip_helper\n", "JAX194", "ImportError"),
    ("import jax\ny = jax.jit(lambda x: x + 1, backend='cpu')(1.0)\n", "JAX138", "DeprecationWarning"),
]


@pytest.mark.parametrize(("source", "step", "other"), [
    ("import jax.linear_util as lu\nf = lu.wrap_init\n", "jax.linear_util -> jax.extend.linear_util", "jax.prng"),
    ("from jax import linear_util\nf = linear_util.wrap_init\n", "jax.linear_util -> jax.extend.linear_util", "jax.prng"),
    ("import jax.prng\nk = jax.prng.PRNGKeyArray\n", "jax.prng -> jax.extend.random", "linear_util"),
])
def test_a_two_module_rows_note_names_the_migration_of_the_module_used(source: str, step: str, other: str) -> None:
    """JAX188 covers jax.linear_util and jax.prng: each note printed both modules' migrations
    (issue 49's trial, B6), naming a module the file never imports."""
    _, findings = _fix(source)
    assert findings and all(f.code == "JAX188" and f.message.endswith(f"; {step}") and other not in f.message
                            for f in findings), findings


def test_a_rows_migration_that_is_no_step_per_name_is_shown_whole() -> None:
    """JAX187's two modules share one migration (by member, not by module): nothing is left out."""
    row = ROWS["JAX187"]
    assert row.migration_for("jax.lib.xla_client.OpSharding") == row.migration


@pytest.mark.parametrize("call, expected, kind", [
    ("jnp.clip(x, a_min=0.0)", "jnp.clip(x, 0.0)", "fixed"),
    ("jnp.clip(x, a_max=1.0)", "jnp.clip(x, None, 1.0)", "fixed"),
    ("jnp.clip(a=x, a_max=h(), a_min=l())", "jnp.clip(x, l(), h())", "fixed, unsafe"),  # evaluated in another order
    ("functools.partial(jnp.clip, a_min=0)", None, "manual"),  # the array comes later: no position for a bound
    ("jnp.clip(x, a_min=0, out=None)", None, "manual"),
])
def test_clip_under_a_floor_before_its_new_keywords_passes_them_by_position(call: str, expected, kind: str) -> None:
    """min=/max= came in 0.4.27; by position, jnp.clip(x, lo, hi) runs on jax 0.3.0 and 0.12 alike."""
    source = f"import functools\nimport jax.numpy as jnp\ny = {call}\n"
    after, (finding,) = _fix(source, Settings((0, 12, 0, 1), jax_floor=(0, 3, 0), unsafe_fixes=True))
    assert after == (source if expected is None else source.replace(call, expected))
    assert (finding.kind.value + (", unsafe" if finding.fix and finding.fix.applicability.value == "unsafe" else "")
            ) == kind, finding


def test_a_row_of_a_calls_keywords_judges_the_call_and_leaves_the_name() -> None:
    """jax.jit(backend=/device=) warns on every release read; jax.jit itself stays, and is what the
    pjit fix (JAX130) writes."""
    source = ("import functools\nimport jax\nfrom jax.experimental.pjit import pjit\n"
              "f = jax.jit(abs)\ng = functools.partial(jax.jit, device=None)\np = pjit(abs)\n")
    after, findings = _fix(source)
    assert [(f.line, f.code, f.kind.value) for f in findings] == [(5, "JAX138", "manual"), (6, "JAX130", "fixed")]
    assert "f = jax.jit(abs)\n" in after and "p = jax.jit(abs)\n" in after


@pytest.mark.parametrize("source, code, raises", [
    ("from jax.util import unzip2\n", "JAX194", "ModuleNotFoundError"),   # the module is gone (0.8.0)
    ("import jax\nxs = jax.device_put_replicated(1, jax.devices())\n", "JAX193", "AttributeError"),
    ("import jax\nxs = jax.device_put_sharded([1], jax.devices())\n", "JAX192", "AttributeError"),
    ("import jax\nb = jax.lib.xla_bridge._backends\n", "JAX195", "AttributeError"),   # chex's fake.py
    ("import jax.lib.xla_bridge\n", "JAX195", "ModuleNotFoundError"),
    ("from jax.lib import xla_bridge\nc = xla_bridge.xla_client\n", "JAX195", "ImportError"),  # the use, once
    *MANUAL_REMOVALS,
], ids=["jax-util", "device-put-replicated", "device-put-sharded", "xla-bridge-private", "xla-bridge-import",
        "xla-bridge-from-import", *(code for _, code, _ in MANUAL_REMOVALS)])
def test_removed_names_without_a_replacement_are_reported_not_passed_over(source: str, code: str, raises: str) -> None:
    """Names chex 0.1.85's suite fails on under jax 0.12 (bench/UPGRADE_SWEEP.md): [manual], never silence."""
    _, findings = _fix(source)
    assert [(f.code, f.kind.value) for f in findings] == [(code, "manual")], findings
    if raises == "DeprecationWarning":
        assert "deprecated since jax" in findings[0].message
    else:
        assert f"(raises {raises} on jax 0.12.0.1)" in findings[0].message


def test_closed_jaxpr_is_renamed_only_for_a_target_where_it_is_not_jaxpr_itself() -> None:
    """jax.core.ClosedJaxpr -> jax.extend.core.ClosedJaxpr is right up to jax 0.10.x; from 0.11.0 that
    name is Jaxpr itself and `.jaxpr` returns self, so the rename would turn `isinstance(x, ClosedJaxpr):
    recurse(x.jaxpr)` into endless recursion (dm-haiku's jaxpr_info): a [manual] finding says so."""
    from codemods.engine.runner import process_source
    from codemods.registry import select
    from codemods.settings import Settings

    source = b"import jax\n\n\ndef closed(x):\n    return isinstance(x, jax.core.ClosedJaxpr)\n"
    before = process_source(Path("c.py"), source, select(["JAX137"]), Settings(jax_version=(0, 10, 2)))
    assert [f.kind.value for f in before.findings] == ["fixed"] and b"jax.extend.core.ClosedJaxpr" in before.new_source
    after = process_source(Path("c.py"), source, select(["JAX137"]), Settings(jax_version=(0, 11, 0)))
    assert [f.kind.value for f in after.findings] == ["manual"] and after.new_source is None
    assert "jax.extend.core.ClosedJaxpr is Jaxpr itself since jax 0.11.0" in after.findings[0].message
