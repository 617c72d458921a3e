"""codemods/upgrades/layouts.py (JAX125) run in the test's process (issue 35, item 3: mutation testing).

jax 0.7.0 renamed Layout to Format and DeviceLocalLayout to Layout at once. Each test runs JAX125
alone on a small module and checks the exact text it becomes and the one finding: where it is, what
it says (the count of references), and that it is a safe fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods import registry
from codemods.engine.runner import process_source
from codemods.settings import Settings

TARGET = Settings((0, 12, 0, 1))
IMPORT = "from jax.experimental.layout import "
MODULE = "from jax.experimental import layout\n"


def _message(count: int, error: str) -> str:
    return (f"DeviceLocalLayout, Layout -> Layout, Format ({count} references, one fix): removed in jax 0.7.0 "
            f"(raises {error} on jax 0.12.0.1)")


def _run(source: str, settings: Settings = TARGET):
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX125"]), settings)
    assert result.error is None, result.error
    return result.after, [(f.line, f.column, f.code, f.kind.value, f.message,
                           f.fix.applicability.value if f.fix else None) for f in result.findings]


@pytest.mark.parametrize(("source", "after", "where", "count", "error"), [
    (f"{IMPORT}DeviceLocalLayout, Layout\nl = Layout(DeviceLocalLayout.AUTO)\n",
     f"{IMPORT}Layout, Format\nl = Format(Layout.AUTO)\n", (1, 37), 4, "ImportError"),
    (f"{MODULE}l = layout.Layout(layout.DeviceLocalLayout.AUTO)\n",
     f"{MODULE}l = layout.Format(layout.Layout.AUTO)\n", (2, 12), 2, "AttributeError"),
    (f"{MODULE}x = layout.Layout.AUTO\ny = layout.DeviceLocalLayout.AUTO\n",
     f"{MODULE}x = layout.Format.AUTO\ny = layout.Layout.AUTO\n", (2, 12), 2, "AttributeError"),
    ("import jax\nl = jax.experimental.layout.Layout(jax.experimental.layout.DeviceLocalLayout.AUTO)\n",
     "import jax\nl = jax.experimental.layout.Format(jax.experimental.layout.Layout.AUTO)\n", (2, 29), 2,
     "AttributeError"),
    ("import jax.experimental.layout as jl\nl = jl.Layout(jl.DeviceLocalLayout.AUTO)\n",
     "import jax.experimental.layout as jl\nl = jl.Format(jl.Layout.AUTO)\n", (2, 8), 2, "AttributeError"),
    # DeviceLocalLayout alone: still the one rule, its one reference moved.
    (f"{IMPORT}DeviceLocalLayout\nx = DeviceLocalLayout.AUTO\n", f"{IMPORT}Layout\nx = Layout.AUTO\n", (1, 37), 2,
     "ImportError"),
    (f"{MODULE}L = layout.DeviceLocalLayout\nx = L.AUTO\n", f"{MODULE}L = layout.Layout\nx = L.AUTO\n", (2, 12), 2,
     "AttributeError"),
    # Aliases keep their names; the imported name changes.
    (f"{IMPORT}Layout as L, DeviceLocalLayout\nx = L(DeviceLocalLayout.AUTO)\n",
     f"{IMPORT}Format as L, Layout\nx = L(Layout.AUTO)\n", (1, 37), 4, "ImportError"),
    (f"{IMPORT}Layout, DeviceLocalLayout as DLL\nx = Layout(DLL.AUTO)\n",
     f"{IMPORT}Format, Layout as DLL\nx = Format(DLL.AUTO)\n", (1, 37), 4, "ImportError"),
    # Format is taken: Layout becomes `Format as Layout`, so the name Layout is not freed, and
    # DeviceLocalLayout becomes `Layout as DeviceLocalLayout`, the uses untouched.
    (f"{IMPORT}DeviceLocalLayout, Layout\nFormat = 1\nl = Layout(DeviceLocalLayout.AUTO)\n",
     f"{IMPORT}Layout as DeviceLocalLayout, Format as Layout\nFormat = 1\nl = Layout(DeviceLocalLayout.AUTO)\n",
     (1, 37), 4, "ImportError"),
    # Two statements, either order: the name Layout freed by the first move is the other's.
    (f"{IMPORT}DeviceLocalLayout\n{IMPORT}Layout\nl = Layout(DeviceLocalLayout.AUTO)\n",
     f"{IMPORT}Layout\n{IMPORT}Format\nl = Format(Layout.AUTO)\n", (1, 1), 4, "ImportError"),
    (f"{IMPORT}Layout\n{IMPORT}DeviceLocalLayout\nl = Layout(DeviceLocalLayout.AUTO)\n",
     f"{IMPORT}Format\n{IMPORT}Layout\nl = Format(Layout.AUTO)\n", (2, 1), 4, "ImportError"),
    # An import and an attribute in one fix.
    (f"{IMPORT}DeviceLocalLayout\nimport jax\nx = DeviceLocalLayout\ny = jax.experimental.layout.Layout\n",
     f"{IMPORT}Layout\nimport jax\nx = Layout\ny = jax.experimental.layout.Format\n", (1, 37), 3, "ImportError"),
    # Every reference in the one finding.
    (f"{IMPORT}DeviceLocalLayout, Layout\nl = Layout(DeviceLocalLayout.AUTO)\nm = Layout(DeviceLocalLayout.AUTO)\n",
     f"{IMPORT}Layout, Format\nl = Format(Layout.AUTO)\nm = Format(Layout.AUTO)\n", (1, 37), 6, "ImportError"),
], ids=["from-import", "attributes", "attributes-apart", "jax-dotted", "module-alias", "old-alone",
        "old-attribute-bound", "layout-aliased", "old-aliased", "format-taken", "statements-old-first",
        "statements-layout-first", "import-and-attribute", "two-uses"])
def test_both_renames_are_one_fix(source: str, after: str, where: tuple, count: int, error: str) -> None:
    assert _run(source) == (after, [(*where, "JAX125", "fixed", _message(count, error), "safe")])


@pytest.mark.parametrize(("source", "after", "where", "count"), [
    (f"{MODULE}try:\n    old = layout.Layout\nexcept AttributeError:\n    old = None\n"
     "l = layout.Layout(layout.DeviceLocalLayout.AUTO)\n",
     f"{MODULE}try:\n    old = layout.Layout\nexcept AttributeError:\n    old = None\n"
     "l = layout.Format(layout.Layout.AUTO)\n", (6, 12), 2),
    (f"{MODULE}try:\n    old = layout.DeviceLocalLayout\nexcept AttributeError:\n    old = None\n"
     "l = layout.Layout(layout.DeviceLocalLayout.AUTO)\n",
     f"{MODULE}try:\n    old = layout.DeviceLocalLayout\nexcept AttributeError:\n    old = None\n"
     "l = layout.Format(layout.Layout.AUTO)\n", (6, 12), 2),
    (f"{MODULE}if hasattr(layout, 'DeviceLocalLayout'):\n    pass\nelse:\n    x = layout.DeviceLocalLayout\n"
     "y = layout.DeviceLocalLayout\n",
     f"{MODULE}if hasattr(layout, 'DeviceLocalLayout'):\n    pass\nelse:\n    x = layout.DeviceLocalLayout\n"
     "y = layout.Layout\n", (6, 5), 1),
], ids=["layout-guarded", "old-guarded", "old-guarded-by-hasattr"])
def test_a_guarded_reference_is_left_and_not_counted(source: str, after: str, where: tuple, count: int) -> None:
    assert _run(source) == (after, [(*where, "JAX125", "fixed", _message(count, "AttributeError"), "safe")])


@pytest.mark.parametrize(("source", "settings"), [
    (f"{IMPORT}Layout\nx = Layout.AUTO\n", TARGET),  # the new API: Layout alone is the new Layout
    (f"{IMPORT}Format, Layout\nx = Format(Layout.AUTO)\n", TARGET),
    (f"{IMPORT}DeviceLocalLayout, Layout\nl = Layout(DeviceLocalLayout.AUTO)\n", Settings((0, 6, 2))),
    (f"{IMPORT}*\nx = DeviceLocalLayout\n", TARGET),
])
def test_nothing_to_do(source: str, settings: Settings) -> None:
    assert _run(source, settings) == ("", [])  # after: "" when nothing changed
