"""codemods/upgrades/core_calls.py (JAX111, JAX130, JAX132, JAX134, JAX140, JAX191) run in the test's
process (issue 35, item 3: mutation testing).

Each outcome test runs one rule on a small module and checks the exact text it becomes and every
finding (line, column, kind, message, applicability); the helpers (`_remap`, `_conflict`,
`_argument`, `_plain`, `_x64_value`, `_Remap`) are called directly on parsed calls. No jax, no
subprocess.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from codemods import registry
from codemods.analysis.module import ModuleIndex
from codemods.engine.runner import process_source
from codemods.settings import Settings
from codemods.upgrades import core_calls
from codemods.upgrades.core_calls import (_PJIT, _SHARD_MAP, _SHARD_MAP_RENAMED, _argument, _conflict, _plain, _remap,
                                          _Remap, _x64_value)

TARGET = Settings((0, 12, 0, 1), unsafe_fixes=True)
PJIT = "from jax.experimental.pjit import pjit\n\n"
SHARD_MAP = "from jax.experimental.shard_map import shard_map\n\n"
JNP = "import jax.numpy as jnp\n\n"
JAX = "import jax\n\n"

PJIT_OLD = "jax.experimental.pjit.pjit -> jax.jit: deprecated since jax 0.8.0"
PJIT_UNSAFE = ("unsafe: pjit reads the mesh `with mesh:` entered (for PartitionSpec and None shardings, and while "
               "tracing), jax.jit the one jax.set_mesh set")
PJIT_MANUAL = ("jax.experimental.pjit.pjit: deprecated since jax 0.8.0; use jax.jit, every argument after the function "
               "passed by keyword (these could not be mapped)")
SM_OLD = "jax.experimental.shard_map.shard_map -> jax.shard_map: deprecated since jax 0.8.0"
SM_MANUAL = ("jax.experimental.shard_map.shard_map: deprecated since jax 0.8.0; use jax.shard_map, mesh, in_specs, "
             "out_specs and check_vma (for check_rep) passed by keyword (these could not be mapped)")
SM_AUTO_MANUAL = ("jax.experimental.shard_map.shard_map: deprecated since jax 0.8.0; use jax.shard_map; for auto=A, pass "
                  "axis_names=frozenset(mesh.axis_names) - A (the mesh axes f is manual over): the mesh is not a plain "
                  "name here")
AUTO = "auto=A -> axis_names=frozenset(mesh.axis_names) - A"
CLIP = "removed in jax 0.10.0 (raises TypeError on jax 0.12.0.1)"
CLIP_MANUAL = ("pass the array first by position, min= for a_min= and max= for a_max= (these arguments could not be "
               "mapped)")
CLIP_ORDER = "unsafe: a= moves first, so the arguments are evaluated in another order"
X64_GONE = "removed in jax 0.9.0 (raises ImportError on jax 0.12.0.1)"
X64_WANTED = ("use jax.enable_x64(True) for enable_x64() and jax.enable_x64(False) for disable_x64(), in a `with` "
              "statement or as a decorator")
MESH = ("with Mesh: deprecated since jax 0.10.1; `with mesh:` -> `with jax.set_mesh(mesh):`; set_mesh also sets the "
        "abstract mesh (jax.sharding.get_abstract_mesh()) that explicit-sharding code reads")
MAKE_MESH = ("jax.make_mesh() without axis_types: removed in jax 0.9.0 (a different default (Explicit axes) on jax "
             "0.12.0.1); pass axis_types=(jax.sharding.AxisType.Auto,) * len(axis_names) to keep the old behaviour, "
             "or adopt explicit sharding")


def _run(source: str, code: str, settings: Settings = TARGET):
    result = process_source(Path("m.py"), source.encode(), registry.select([code]), settings)
    assert result.error is None, result.error
    return (result.after or source), [(f.line, f.column, f.kind.value, f.message,
                                        f.fix.applicability.value if f.fix else None) for f in result.findings]


def _call(source: str) -> tuple[ModuleIndex, ast.Call]:
    tree = ast.parse(source)
    return ModuleIndex(source, tree), next(n for n in ast.walk(tree) if isinstance(n, ast.Call))


# -- JAX130: pjit --

@pytest.mark.parametrize(("source", "after", "findings"), [
    (PJIT + "g = pjit(f, in_shardings=s, static_argnums=0)\n", JAX + "g = jax.jit(f, in_shardings=s, static_argnums=0)\n",
     [(3, 5, "fixed", f"{PJIT_OLD}; {PJIT_UNSAFE}", "unsafe")]),
    (PJIT + "g = pjit(in_shardings=s, fun=f)\n", JAX + "g = jax.jit(f, in_shardings=s)\n",
     [(3, 5, "fixed", f"{PJIT_OLD}; {PJIT_UNSAFE}", "unsafe")]),
    (PJIT + "g = pjit(f, s, fun=h)\n", None, [(3, 5, "manual", PJIT_MANUAL, None)]),
    (PJIT + "g = pjit(f, s, in_shardings=t)\n", None, [(3, 5, "manual", PJIT_MANUAL, None)]),
    (PJIT + "g = pjit(f, *s)\n", None, [(3, 5, "manual", PJIT_MANUAL, None)]),
    (PJIT + "g = pjit(f, static_argnums=1, static_argnums=2)\n", None, [(3, 5, "manual", PJIT_MANUAL, None)]),
    # Sharding objects: safe; bound once or twice to them, through a list and a tuple.
    ("from jax.sharding import NamedSharding\n" + PJIT + "s = NamedSharding(m, p)\n"
     "g = pjit(f, s, [s, NamedSharding(m, q)])\n",
     "from jax.sharding import NamedSharding\nimport jax\n\ns = NamedSharding(m, p)\n"
     "g = jax.jit(f, in_shardings=s, out_shardings=[s, NamedSharding(m, q)])\n",
     [(5, 5, "fixed", f"{PJIT_OLD}; in_shardings, out_shardings passed by keyword", "safe")]),
    ("import jax.sharding\n" + PJIT + "g = pjit(f, out_shardings=(jax.sharding.SingleDeviceSharding(d),))\n",
     "import jax.sharding\n\ng = jax.jit(f, out_shardings=(jax.sharding.SingleDeviceSharding(d),))\n",
     [(4, 5, "fixed", PJIT_OLD, "safe")]),
    ("import jax\n" + PJIT + "g = pjit(f, in_shardings=jax.NamedSharding(m, p))\n",
     "import jax\n\ng = jax.jit(f, in_shardings=jax.NamedSharding(m, p))\n",
     [(4, 5, "fixed", PJIT_OLD, "safe")]),
    # A name bound to something else once, a name bound nowhere, None, a PartitionSpec: unsafe.
    ("from jax.sharding import NamedSharding\n" + PJIT + "s = NamedSharding(m, p)\ns = other\ng = pjit(f, s)\n",
     "from jax.sharding import NamedSharding\nimport jax\n\ns = NamedSharding(m, p)\ns = other\n"
     "g = jax.jit(f, in_shardings=s)\n",
     [(6, 5, "fixed", f"{PJIT_OLD}; in_shardings passed by keyword; {PJIT_UNSAFE}", "unsafe")]),
    (PJIT + "g = pjit(f, s)\n", JAX + "g = jax.jit(f, in_shardings=s)\n",
     [(3, 5, "fixed", f"{PJIT_OLD}; in_shardings passed by keyword; {PJIT_UNSAFE}", "unsafe")]),
    (PJIT + "g = pjit(f, None, None)\n", JAX + "g = jax.jit(f, in_shardings=None, out_shardings=None)\n",
     [(3, 5, "fixed", f"{PJIT_OLD}; in_shardings, out_shardings passed by keyword; {PJIT_UNSAFE}", "unsafe")]),
    ("from jax.sharding import NamedSharding\n" + PJIT + "g = pjit(f, [NamedSharding(m, p), P()])\n",
     "from jax.sharding import NamedSharding\nimport jax\n\ng = jax.jit(f, in_shardings=[NamedSharding(m, p), P()])\n",
     [(4, 5, "fixed", f"{PJIT_OLD}; in_shardings passed by keyword; {PJIT_UNSAFE}", "unsafe")]),
    ("from jax.sharding import NamedSharding\n" + PJIT + "g = pjit(f, NamedSharding(m, p), **kw)\n",
     "from jax.sharding import NamedSharding\nimport jax\n\ng = jax.jit(f, in_shardings=NamedSharding(m, p), **kw)\n",
     [(4, 5, "fixed", f"{PJIT_OLD}; in_shardings passed by keyword; {PJIT_UNSAFE}", "unsafe")]),
    # No shardings passed: safe, unless the module enters a mesh by `with`.
    (PJIT + "g = pjit(f, static_argnums=(0,))\n", JAX + "g = jax.jit(f, static_argnums=(0,))\n",
     [(3, 5, "fixed", PJIT_OLD, "safe")]),
    ("from jax.sharding import Mesh\n" + PJIT + "g = pjit(f)\nwith Mesh(d, n):\n    pass\n",
     "from jax.sharding import Mesh\nimport jax\n\ng = jax.jit(f)\nwith Mesh(d, n):\n    pass\n",
     [(4, 5, "fixed", f"{PJIT_OLD}; {PJIT_UNSAFE}", "unsafe")]),
    ("from jax.sharding import Mesh\n" + PJIT + "@pjit\ndef g(x):\n    return x\nwith Mesh(d, n):\n    pass\n",
     "from jax.sharding import Mesh\nimport jax\n\n@jax.jit\ndef g(x):\n    return x\nwith Mesh(d, n):\n    pass\n",
     [(4, 2, "fixed", f"{PJIT_OLD}; {PJIT_UNSAFE}", "unsafe")]),
    (PJIT + "@pjit\nclass C:\n    pass\n", JAX + "@jax.jit\nclass C:\n    pass\n", [(3, 2, "fixed", PJIT_OLD, "safe")]),
    (PJIT + "@pjit\nasync def g():\n    pass\n", JAX + "@jax.jit\nasync def g():\n    pass\n",
     [(3, 2, "fixed", PJIT_OLD, "safe")]),
    # functools.partial: the arguments after the function are pjit's.
    ("import functools\n" + PJIT + "g = functools.partial(pjit, static_argnums=1)(f)\nh = functools.partial(pjit, f, s)\n",
     "import functools\nimport jax\n\ng = functools.partial(jax.jit, static_argnums=1)(f)\n"
     "h = functools.partial(jax.jit, f, in_shardings=s)\n",
     [(4, 23, "fixed", PJIT_OLD, "safe"),
      (5, 23, "fixed", f"{PJIT_OLD}; in_shardings passed by keyword; {PJIT_UNSAFE}", "unsafe")]),
    # Not a partial of pjit: pjit is an argument; a partial whose function is a keyword.
    ("import functools\n" + PJIT + "g = functools.partial(f, pjit)\n", None,
     [(4, 26, "manual", "jax.experimental.pjit.pjit: deprecated since jax 0.8.0; use jax.jit, its shardings and options "
                        "passed by keyword", None)]),
    ("import functools\n" + PJIT + "g = functools.partial(wrap, pjit)\n", None,
     [(4, 29, "manual", "jax.experimental.pjit.pjit: deprecated since jax 0.8.0; use jax.jit, its shardings and options "
                        "passed by keyword", None)]),
    (PJIT + "g = other(pjit, f)\n", None,
     [(3, 11, "manual", "jax.experimental.pjit.pjit: deprecated since jax 0.8.0; use jax.jit, its shardings and options "
                        "passed by keyword", None)]),
    (PJIT + "@wrap(pjit)\ndef g():\n    pass\n", None,
     [(3, 7, "manual", "jax.experimental.pjit.pjit: deprecated since jax 0.8.0; use jax.jit, its shardings and options "
                       "passed by keyword", None)]),
    # Spelled through the reference's own name for jax, a function's import (which stays).
    ("def f(g):\n    import jax\n    return jax.experimental.pjit.pjit(g)\n",
     "def f(g):\n    import jax\n    return jax.jit(g)\n", [(3, 12, "fixed", PJIT_OLD, "safe")]),
    (PJIT + "g = pjit(f, s,\n         t)  # the shardings\n",
     JAX + "g = jax.jit(f, in_shardings=s,\n         out_shardings=t)  # the shardings\n",
     [(3, 5, "fixed", f"{PJIT_OLD}; in_shardings, out_shardings passed by keyword; {PJIT_UNSAFE}", "unsafe")]),
], ids=["keywords-kept", "fun-by-keyword", "fun-twice", "in-shardings-twice", "star-args", "keyword-twice",
        "named-sharding-bound", "single-device-sharding", "jax-named-sharding", "bound-to-other-too", "unbound-name",
        "none-shardings", "partition-spec-in-list", "double-star", "no-shardings", "with-mesh-in-module",
        "decorator-with-mesh", "class-decorator", "async-decorator", "partials", "partial-of-other", "partial-of-wrap",
        "argument", "decorator-argument", "local-import", "two-lines"])
def test_pjit(source: str, after, findings: list) -> None:
    assert _run(source, "JAX130") == (source if after is None else after, findings)


def test_pjit_alone_in_its_import_goes_with_its_uses_and_the_import_is_not_a_finding() -> None:
    assert _run(PJIT + "g = pjit(f)\nh = pjit(f)\n", "JAX130") == (
        JAX + "g = jax.jit(f)\nh = jax.jit(f)\n", [(3, 5, "fixed", PJIT_OLD, "safe"), (4, 5, "fixed", PJIT_OLD, "safe")])


def test_pjit_follows_a_sharding_through_eight_assignments_and_no_further() -> None:
    head = "from jax.sharding import NamedSharding\n" + PJIT + "s0 = NamedSharding(m, p)\n"
    chain = "".join(f"s{i + 1} = s{i}\n" for i in range(8))
    safe = _run(head + chain + "g = pjit(f, s7)\n", "JAX130")[1]
    unsafe = _run(head + chain + "g = pjit(f, s8)\n", "JAX130")[1]
    assert [f[4] for f in safe] == ["safe"] and [f[4] for f in unsafe] == ["unsafe"]


# -- JAX132: shard_map --

@pytest.mark.parametrize(("source", "after", "findings"), [
    (SHARD_MAP + "g = shard_map(f, m, P(), P(), True)\n",
     JAX + "g = jax.shard_map(f, mesh=m, in_specs=P(), out_specs=P(), check_vma=True)\n",
     [(3, 5, "fixed", f"{SM_OLD}; mesh, in_specs, out_specs, check_rep passed by keyword; check_rep= -> check_vma=",
       "safe")]),
    (SHARD_MAP + "g = shard_map(f, m, P(), P(), False, frozenset({'x'}))\n",
     JAX + "g = jax.shard_map(f, mesh=m, in_specs=P(), out_specs=P(), check_vma=False, "
           "axis_names=frozenset(m.axis_names) - frozenset({'x'}))\n",
     [(3, 5, "fixed", f"{SM_OLD}; mesh, in_specs, out_specs, check_rep, auto passed by keyword; check_rep= -> "
                      f"check_vma=; {AUTO}", "safe")]),
    (SHARD_MAP + "g = shard_map(f, mesh=m, in_specs=P(), out_specs=P(), check_rep = False)\n",
     JAX + "g = jax.shard_map(f, mesh=m, in_specs=P(), out_specs=P(), check_vma = False)\n",
     [(3, 5, "fixed", f"{SM_OLD}; check_rep= -> check_vma=", "safe")]),
    (SHARD_MAP + "g = shard_map(f, m, P(), P(), auto={'x'})\n",
     JAX + "g = jax.shard_map(f, mesh=m, in_specs=P(), out_specs=P(), axis_names=frozenset(m.axis_names) - {'x'})\n",
     [(3, 5, "fixed", f"{SM_OLD}; mesh, in_specs, out_specs passed by keyword; {AUTO}", "safe")]),
    (SHARD_MAP + "g = shard_map(f, m, P(), P(), auto=a.b[0])\n",
     JAX + "g = jax.shard_map(f, mesh=m, in_specs=P(), out_specs=P(), axis_names=frozenset(m.axis_names) - a.b[0])\n",
     [(3, 5, "fixed", f"{SM_OLD}; mesh, in_specs, out_specs passed by keyword; {AUTO}", "safe")]),
    (SHARD_MAP + "g = shard_map(f, m, P(), P(), auto=a.b)\n",
     JAX + "g = jax.shard_map(f, mesh=m, in_specs=P(), out_specs=P(), axis_names=frozenset(m.axis_names) - a.b)\n",
     [(3, 5, "fixed", f"{SM_OLD}; mesh, in_specs, out_specs passed by keyword; {AUTO}", "safe")]),
    (SHARD_MAP + "g = shard_map(f, m, P(), P(), auto=frozenset())\n",
     JAX + "g = jax.shard_map(f, mesh=m, in_specs=P(), out_specs=P(), axis_names=frozenset(m.axis_names) - frozenset())\n",
     [(3, 5, "fixed", f"{SM_OLD}; mesh, in_specs, out_specs passed by keyword; {AUTO}", "safe")]),
    (SHARD_MAP + "g = shard_map(f, m, P(), P(), auto=x if c else y)\n",
     JAX + "g = jax.shard_map(f, mesh=m, in_specs=P(), out_specs=P(), "
           "axis_names=frozenset(m.axis_names) - (x if c else y))\n",
     [(3, 5, "fixed", f"{SM_OLD}; mesh, in_specs, out_specs passed by keyword; {AUTO}", "safe")]),
    (SHARD_MAP + "g = shard_map(f, m, P(), P(), auto=())\n",
     JAX + "g = jax.shard_map(f, mesh=m, in_specs=P(), out_specs=P(), axis_names=frozenset(m.axis_names) - (()))\n",
     [(3, 5, "fixed", f"{SM_OLD}; mesh, in_specs, out_specs passed by keyword; {AUTO}", "safe")]),
    # auto with a mesh that is no plain name, none, a constant: left to a person.
    (SHARD_MAP + "g = shard_map(f, make(), P(), P(), auto=a)\n", None, [(3, 5, "manual", SM_AUTO_MANUAL, None)]),
    (SHARD_MAP + "g = shard_map(f, None, P(), P(), auto=a)\n", None, [(3, 5, "manual", SM_AUTO_MANUAL, None)]),
    (SHARD_MAP + "g = shard_map(f, in_specs=P(), out_specs=P(), auto=a)\n", None,
     [(3, 5, "manual", SM_AUTO_MANUAL, None)]),
    (SHARD_MAP + "g = shard_map(f, m, P(), P(), f=h)\n", None, [(3, 5, "manual", SM_MANUAL, None)]),
    (SHARD_MAP + "g = shard_map(f, m, P(), P(), True, a, b)\n", None, [(3, 5, "manual", SM_MANUAL, None)]),
    ("import functools\n" + SHARD_MAP + "g = functools.partial(shard_map, f, m)(P(), P())\n",
     "import functools\nimport jax\n\ng = functools.partial(jax.shard_map, f, mesh=m)(P(), P())\n",
     [(4, 23, "fixed", f"{SM_OLD}; mesh passed by keyword", "safe")]),
    ("import functools\n" + SHARD_MAP + "g = functools.partial(shard_map, f, m, P(), P(), auto=a)\n",
     "import functools\nimport jax\n\ng = functools.partial(jax.shard_map, f, mesh=m, in_specs=P(), out_specs=P(), "
     "axis_names=frozenset(m.axis_names) - a)\n",
     [(4, 23, "fixed", f"{SM_OLD}; mesh, in_specs, out_specs passed by keyword; {AUTO}", "safe")]),
    (SHARD_MAP + "g = shard_map(f, mesh=m, in_specs=P(), out_specs=P())\n",
     JAX + "g = jax.shard_map(f, mesh=m, in_specs=P(), out_specs=P())\n", [(3, 5, "fixed", SM_OLD, "safe")]),
    (SHARD_MAP + "g = shard_map(mesh=m, f=h, in_specs=P(), out_specs=P())\n",
     JAX + "g = jax.shard_map(h, mesh=m, in_specs=P(), out_specs=P())\n", [(3, 5, "fixed", SM_OLD, "safe")]),
    (SHARD_MAP + "jax = None\ng = shard_map(f, m, P(), P())\n", None,
     [(4, 5, "manual", "jax.experimental.shard_map.shard_map: deprecated since jax 0.8.0; use jax.shard_map (its names "
                       "are taken here)", None)]),
], ids=["check-rep-by-position", "auto-by-position", "check-rep-spaced", "auto-set", "auto-subscript",
        "auto-attribute", "auto-call", "auto-if-expression", "auto-tuple", "auto-mesh-a-call", "auto-mesh-none",
        "auto-no-mesh", "f-twice", "too-many-positional", "partial", "partial-auto", "all-keywords",
        "f-by-keyword", "names-taken"])
def test_shard_map(source: str, after, findings: list) -> None:
    assert _run(source, "JAX132") == (source if after is None else after, findings)


# -- JAX140: jnp.clip --

@pytest.mark.parametrize(("source", "after", "findings"), [
    (JNP + "y = jnp.clip(x, a_max=1.0)\n", JNP + "y = jnp.clip(x, max=1.0)\n",
     [(3, 5, "fixed", f"jnp.clip(a_max=) -> jnp.clip(max=): {CLIP}", "safe")]),
    (JNP + "y = jnp.clip(a=x)\n", JNP + "y = jnp.clip(x)\n", [(3, 5, "fixed", f"jnp.clip(a=) -> jnp.clip(a): {CLIP}", "safe")]),
    (JNP + "y = jnp.clip(x, 0, 1)\nz = jnp.clip\nw = jnp.clip(x, min=0)\n", None, []),
    (JNP + "y = jnp.clip(a_min=0, a=f())\n", JNP + "y = jnp.clip(f(), min=0)\n",
     [(3, 5, "fixed", f"jnp.clip(a_min=, a=) -> jnp.clip(a, min=): {CLIP}; {CLIP_ORDER}", "unsafe")]),
    (JNP + "y = jnp.clip(a_min=g(), a=x)\n", JNP + "y = jnp.clip(x, min=g())\n",
     [(3, 5, "fixed", f"jnp.clip(a_min=, a=) -> jnp.clip(a, min=): {CLIP}; {CLIP_ORDER}", "unsafe")]),
    (JNP + "y = jnp.clip(a_min=lo.v, a=x.y)\n", JNP + "y = jnp.clip(x.y, min=lo.v)\n",
     [(3, 5, "fixed", f"jnp.clip(a_min=, a=) -> jnp.clip(a, min=): {CLIP}", "safe")]),
    (JNP + "y = jnp.clip(a=g(), a_min=h())\n", JNP + "y = jnp.clip(g(), min=h())\n",
     [(3, 5, "fixed", f"jnp.clip(a=, a_min=) -> jnp.clip(a, min=): {CLIP}", "safe")]),
    (JNP + "y = jnp.clip(*xs, a_min=0)\n", None,
     [(3, 5, "manual", f"jnp.clip(a_min=): {CLIP}; {CLIP_MANUAL}", None)]),
    (JNP + "y = jnp.clip(x, a_min=0, min=1)\n", None,
     [(3, 5, "manual", f"jnp.clip(a_min=): {CLIP}; {CLIP_MANUAL}", None)]),
    (JNP + "y = jnp.clip(x, a=z)\n", None, [(3, 5, "manual", f"jnp.clip(a=): {CLIP}; {CLIP_MANUAL}", None)]),
    ("import functools\n" + JNP + "y = functools.partial(jnp.clip, a_max=1)\nz = functools.partial(jnp.clip, a_max=g(), a=x)\n",
     "import functools\n" + JNP + "y = functools.partial(jnp.clip, max=1)\nz = functools.partial(jnp.clip, x, max=g())\n",
     [(4, 23, "fixed", f"jnp.clip(a_max=) -> jnp.clip(max=): {CLIP}", "safe"),
      (5, 23, "fixed", f"jnp.clip(a_max=, a=) -> jnp.clip(a, max=): {CLIP}; {CLIP_ORDER}", "unsafe")]),
    (JNP + "y = jnp.clip(\n    a_max=1.0,\n    a=x,\n)\n", JNP + "y = jnp.clip(\n    x,\n    max=1.0,\n)\n",
     [(3, 5, "fixed", f"jnp.clip(a_max=, a=) -> jnp.clip(a, max=): {CLIP}", "safe")]),
    (JNP + "y = jnp.clip(a_max=1.0, a=x )\nz = jnp.clip(\n    a_max=1.0,\n    a=x\n)\n",
     JNP + "y = jnp.clip(x, max=1.0 )\nz = jnp.clip(\n    x,\n    max=1.0\n)\n",
     [(3, 5, "fixed", f"jnp.clip(a_max=, a=) -> jnp.clip(a, max=): {CLIP}", "safe"),
      (4, 5, "fixed", f"jnp.clip(a_max=, a=) -> jnp.clip(a, max=): {CLIP}", "safe")]),
    (JNP + "y = jnp.clip(a_max=1.0, a_min=0.0, a=x)\n", JNP + "y = jnp.clip(x, max=1.0, min=0.0)\n",
     [(3, 5, "fixed", f"jnp.clip(a_max=, a_min=, a=) -> jnp.clip(a, max=, min=): {CLIP}", "safe")]),
    # Only the arguments up to a= are read in another order: a call after it stays after it.
    (JNP + "y = jnp.clip(a_min=0, a=x, a_max=f())\n", JNP + "y = jnp.clip(x, min=0, max=f())\n",
     [(3, 5, "fixed", f"jnp.clip(a_min=, a=, a_max=) -> jnp.clip(a, min=, max=): {CLIP}", "safe")]),
    (JNP + "y = jnp.clip(a_max=1.0,a=x)\n", JNP + "y = jnp.clip(x,max=1.0)\n",
     [(3, 5, "fixed", f"jnp.clip(a_max=, a=) -> jnp.clip(a, max=): {CLIP}", "safe")]),
    (JNP + "y = jnp.clip(a_max = 1.0, a = x)\n", JNP + "y = jnp.clip(x, max = 1.0)\n",
     [(3, 5, "fixed", f"jnp.clip(a_max=, a=) -> jnp.clip(a, max=): {CLIP}", "safe")]),
    ("from jax.numpy import clip\n\ny = clip(x, 0, a_max=1)\n", "from jax.numpy import clip\n\ny = clip(x, 0, max=1)\n",
     [(3, 5, "fixed", f"jnp.clip(a_max=) -> jnp.clip(max=): {CLIP}", "safe")]),
], ids=["a-max", "a-alone", "current-calls", "a-a-call-moves", "a-min-a-call", "plain-attributes", "a-first",
        "star-args", "min-twice", "a-and-positional", "partials", "lines", "last-a-spaced", "three", "call-after-a", "no-space", "spaced-equals",
        "imported-name"])
def test_clip(source: str, after, findings: list) -> None:
    assert _run(source, "JAX140") == (source if after is None else after, findings)


# -- JAX111: enable_x64 / disable_x64 --

X64 = "from jax.experimental import enable_x64, disable_x64\n\n"


@pytest.mark.parametrize(("source", "after", "findings"), [
    (X64 + "with enable_x64(new_val=flag):\n    pass\nwith enable_x64(False):\n    pass\nwith disable_x64():\n    pass\n",
     JAX + "with jax.enable_x64(flag):\n    pass\nwith jax.enable_x64(False):\n    pass\n"
           "with jax.enable_x64(False):\n    pass\n",
     [(3, 6, "fixed", f"jax.experimental.enable_x64() -> jax.enable_x64(flag): {X64_GONE}", "safe"),
      (5, 6, "fixed", f"jax.experimental.enable_x64() -> jax.enable_x64(False): {X64_GONE}", "safe"),
      (7, 6, "fixed", f"jax.experimental.disable_x64() -> jax.enable_x64(False): {X64_GONE}", "safe")]),
    (X64 + "with enable_x64():\n    pass\nwith disable_x64(True):\n    pass\n",
     "from jax.experimental import disable_x64\nimport jax\n\nwith jax.enable_x64(True):\n    pass\n"
     "with disable_x64(True):\n    pass\n",
     [(3, 6, "fixed", f"jax.experimental.enable_x64() -> jax.enable_x64(True): {X64_GONE}", "safe"),
      (5, 6, "manual", f"jax.experimental.disable_x64: {X64_GONE}; {X64_WANTED}", None)]),
    (X64 + "with disable_x64(*a):\n    pass\nwith enable_x64(*a):\n    pass\nwith disable_x64(new_val=1):\n    pass\n",
     None,
     [(3, 6, "manual", f"jax.experimental.disable_x64: {X64_GONE}; {X64_WANTED}", None),
      (5, 6, "manual", f"jax.experimental.enable_x64: {X64_GONE}; {X64_WANTED}", None),
      (7, 6, "manual", f"jax.experimental.disable_x64: {X64_GONE}; {X64_WANTED}", None)]),
    ("import functools\nfrom jax.experimental import enable_x64\n\nf = functools.partial(enable_x64)()\n", None,
     [(4, 23, "manual", f"jax.experimental.enable_x64: {X64_GONE}; {X64_WANTED}", None)]),
    ("from jax.experimental import enable_x64\n\nwith enable_x64(**kw):\n    pass\n", None,
     [(3, 6, "manual", f"jax.experimental.enable_x64: {X64_GONE}; {X64_WANTED}", None)]),
    # Spelled through the reference's own name for jax, a function's import.
    ("def f():\n    import jax as j\n    with j.experimental.enable_x64():\n        pass\n",
     "def f():\n    import jax as j\n    with j.enable_x64(True):\n        pass\n",
     [(3, 10, "fixed", "jax.experimental.enable_x64() -> jax.enable_x64(True): removed in jax 0.9.0 (raises "
                       "AttributeError on jax 0.12.0.1)", "safe")]),
], ids=["values", "disable-with-argument", "star-args-and-keyword", "partial", "double-star", "local-import"])
def test_enable_x64(source: str, after, findings: list) -> None:
    assert _run(source, "JAX111") == (source if after is None else after, findings)


# -- JAX191: make_mesh; JAX134: with mesh --

def test_make_mesh_is_reported_only_where_a_direct_call_may_lack_axis_types() -> None:
    source = (JAX + "m = jax.make_mesh((1,), ('x',))\nn = jax.make_mesh((1,), ('x',), t)\no = jax.make_mesh(*a)\n"
              "p = jax.make_mesh(s, n, **kw)\nq = jax.make_mesh(s, n, axis_types=t)\nr = jax.make_mesh\n"
              "s = jax.make_mesh(s, n, devices=d)\nimport functools\nu = functools.partial(jax.make_mesh, (1,))()\n"
              "v = jax.make_mesh(s, *a)\nw = jax.make_mesh(s)\n")
    assert _run(source, "JAX191") == (source, [(3, 5, "manual", MAKE_MESH, None), (9, 5, "manual", MAKE_MESH, None),
                                               (13, 5, "manual", MAKE_MESH, None)])


def test_with_mesh_is_reported_where_the_module_shows_a_mesh() -> None:
    source = ("import jax\nfrom jax.sharding import Mesh\n\ndef f(m: Mesh, n: int, o, p: 'x'):\n    with m:\n        pass\n"
              "    with n:\n        pass\n    with o:\n        pass\n    with p:\n        pass\n"
              "    with jax.make_mesh(a, b) as mm, Mesh(d, n):\n        pass\n    with make():\n        pass\n"
              "k = Mesh(d, n)\nk = other()\nwith k:\n    pass\nj = Mesh(d, n)\nwith j:\n    pass\nwith (j):\n    pass\n"
              "with u:\n    pass\nwith m.x:\n    pass\nwith j, j:\n    pass\n")
    assert _run(source, "JAX134") == (source, [(line, column, "manual", MESH, None) for line, column in [
        (5, 10), (13, 10), (13, 37), (22, 6), (24, 7), (30, 6), (30, 9)]])


def test_with_mesh_items_are_reported_in_the_order_of_the_file() -> None:
    source = "from jax.sharding import Mesh\nm = Mesh(d, n)\nwith Mesh(d, n), m:\n    with m:\n        pass\n"
    assert [f[:2] for f in _run(source, "JAX134")[1]] == [(3, 6), (3, 18), (4, 10)]


# -- the helpers --

@pytest.mark.parametrize(("source", "shift", "params", "renamed", "expected"), [
    ("pjit(f, a, b)", 0, _PJIT, {}, ({1: "in_shardings", 2: "out_shardings"}, None)),
    ("pjit(f, a, fun=g)", 0, _PJIT, {}, ({1: "in_shardings"}, 2)),
    ("pjit(fun=g)", 0, _PJIT, {}, ({}, 0)),
    ("pjit(f, *a)", 0, _PJIT, {}, None),
    ("pjit(f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)", 0, _PJIT, {}, ({i: _PJIT[i] for i in range(1, 11)}, None)),
    ("pjit(f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)", 0, _PJIT, {}, None),
    ("shard_map(f, m, i, o, c, a)", 0, _SHARD_MAP, _SHARD_MAP_RENAMED,
     ({1: "mesh", 2: "in_specs", 3: "out_specs", 4: "check_vma", 5: "axis_names"}, None)),
    ("shard_map(f, check_rep=c, auto=a, mesh=m)", 0, _SHARD_MAP, _SHARD_MAP_RENAMED,
     ({1: "check_vma", 2: "axis_names"}, None)),
    ("partial(shard_map, f, m)", 1, _SHARD_MAP, _SHARD_MAP_RENAMED, ({2: "mesh"}, None)),
    ("partial(shard_map, f, m, i, o, c, a)", 1, _SHARD_MAP, _SHARD_MAP_RENAMED,
     ({2: "mesh", 3: "in_specs", 4: "out_specs", 5: "check_vma", 6: "axis_names"}, None)),
    ("partial(shard_map, f, m, i, o, c, a, x)", 1, _SHARD_MAP, _SHARD_MAP_RENAMED, None),
    ("partial(shard_map, m, f=g)", 1, _SHARD_MAP, _SHARD_MAP_RENAMED, ({}, 2)),
])
def test_remap(source: str, shift: int, params: tuple, renamed: dict, expected) -> None:
    remap = _remap(_call(source)[1], shift, params, renamed)
    assert (remap if remap is None else (remap.keywords, remap.first)) == expected
    if remap is not None:
        assert remap.values == {}


@pytest.mark.parametrize(("source", "shift", "positional", "expected"), [
    ("pjit(f, a)", 0, _PJIT[:1], False),
    ("pjit(fun=f, in_shardings=a)", 0, _PJIT[:1], False),
    ("pjit(f, fun=g)", 0, _PJIT[:1], True),
    ("pjit(f, a, in_shardings=b)", 0, _PJIT[:1], True),
    ("pjit(f, donate_argnums=1, donate_argnums=2)", 0, _PJIT[:1], True),
    ("clip(x, a_min=0, min=1)", 0, ("arr", "min", "max"), True),
    ("clip(x, y, a_min=0)", 0, ("arr", "min", "max"), True),
    ("clip(x, y, a_max=0)", 0, ("arr", "min", "max"), False),
    ("clip(x, y, z, a_max=0)", 0, ("arr", "min", "max"), True),
    ("clip(x, y, z, w)", 0, ("arr", "min", "max"), True),
    ("clip(x, y, z)", 0, ("arr", "min", "max"), False),
    ("clip(x, a=z)", 0, ("arr", "min", "max"), True),
    ("clip(a=z, a_min=0)", 0, ("arr", "min", "max"), False),
    ("clip(a_min=0, a=z)", 0, ("arr", "min", "max"), False),
    ("clip(x, arr=z)", 0, ("arr", "min", "max"), True),
    ("partial(clip, x, a_min=0)", 1, ("arr", "min", "max"), False),
    ("partial(clip, x, y, a_min=0)", 1, ("arr", "min", "max"), True),
    ("partial(clip, x, a=z)", 1, ("arr", "min", "max"), True),
    ("partial(clip, a=z, a_max=1)", 1, ("arr", "min", "max"), False),
])
def test_conflict(source: str, shift: int, positional: tuple, expected: bool) -> None:
    call = _call(source)[1]
    if positional == _PJIT[:1]:
        remap = _remap(call, shift, _PJIT, {})
        assert remap is not None
    else:  # jnp.clip's remap, as _clip builds it
        remap = _Remap()
        for index, argument in enumerate(core_calls.ordered_arguments(call)):
            if isinstance(argument, ast.keyword) and argument.arg == "a":
                remap.first = index
            elif isinstance(argument, ast.keyword) and argument.arg in core_calls._CLIP_OLD:
                remap.keywords[index] = core_calls._CLIP_OLD[argument.arg]
    assert _conflict(call, shift, remap, positional) is expected


@pytest.mark.parametrize(("source", "shift", "name", "expected"), [
    ("shard_map(f, m, i)", 0, "mesh", (1, "m")),
    ("shard_map(f, m, i)", 0, "in_specs", (2, "i")),
    ("shard_map(f, m, i)", 0, "out_specs", None),
    ("shard_map(f, m, auto=a)", 0, "auto", (2, "a")),
    ("shard_map(f, auto=a, mesh=m)", 0, "mesh", (2, "m")),
    ("shard_map(f, auto=a, mesh=m)", 0, "auto", (1, "a")),
    ("partial(shard_map, f, m)", 1, "mesh", (2, "m")),
    ("partial(shard_map, f, m)", 1, "f", (1, "f")),
    ("partial(shard_map, f)", 1, "mesh", None),
])
def test_argument(source: str, shift: int, name: str, expected) -> None:
    module, call = _call(source)
    found = _argument(call, shift, _SHARD_MAP, name)
    assert (found if found is None else (found[0], module.segment(found[1]))) == expected


@pytest.mark.parametrize(("source", "expected"), [
    ("x", True), ("x.y.z", True), ("1", True), ("'s'", True), ("None", True), ("f()", False), ("f().y", False),
    ("x[0]", False), ("x[0].y", False), ("(a, b)", False), ("-1", False),
])
def test_plain(source: str, expected: bool) -> None:
    assert _plain(ast.parse(source, mode="eval").body) is expected


@pytest.mark.parametrize(("source", "disable", "expected"), [
    ("enable_x64()", False, "True"), ("enable_x64(flag)", False, "flag"), ("enable_x64(new_val=a.b)", False, "a.b"),
    ("enable_x64(1, 2)", False, None), ("enable_x64(1, new_val=2)", False, None), ("enable_x64(*a)", False, None),
    ("enable_x64(foo=1)", False, None), ("enable_x64(**kw)", False, None), ("disable_x64()", True, "False"),
    ("disable_x64(True)", True, None), ("disable_x64(new_val=True)", True, None), ("disable_x64(*a)", True, None),
])
def test_x64_value(source: str, disable: bool, expected) -> None:
    module, call = _call(source)
    assert _x64_value(module, call, disable) == expected


def test_x64_value_of_no_call_is_none() -> None:
    module, _ = _call("f()")
    assert _x64_value(module, None, False) is None and _x64_value(module, None, True) is None


@pytest.mark.parametrize(("remap", "expected"), [
    (_Remap(), False), (_Remap(keywords={1: "x"}), True), (_Remap(values={1: "x"}), True), (_Remap(first=0), True),
    (_Remap(first=2), True),
])
def test_a_remap_is_true_when_it_changes_anything(remap: _Remap, expected: bool) -> None:
    assert bool(remap) is expected


@pytest.mark.parametrize(("source", "shift", "remap", "expected"), [
    ("f(a, b)", 0, _Remap(keywords={1: "k"}), "f(a, k=b)"),
    ("f(a, b = 1)", 0, _Remap(keywords={1: "k"}), "f(a, k = 1)"),
    ("f(a, b)", 0, _Remap(values={1: "c + 1"}), "f(a, c + 1)"),
    ("f(b=1, a=x)", 0, _Remap(first=1), "f(x, b=1)"),
    ("f(a=x, b=1)", 0, _Remap(first=0), "f(x, b=1)"),
    ("f(b=1,  c=2, a=x)", 0, _Remap(first=2), "f(x,  b=1,  c=2)"),  # separated as b=1 was
    ("p(f, b=1, a=x)", 1, _Remap(first=2), "p(f, x, b=1)"),
    ("p(f, a=x)", 1, _Remap(first=1), "p(f, x)"),
    ("f(\n    b=1,\n    a=x,\n)", 0, _Remap(first=1), "f(\n    x,\n    b=1,\n)"),
    ("f(b=1, a=x, c=2)", 0, _Remap(keywords={0: "d"}, first=1), "f(x, d=1, c=2)"),
])
def test_remap_change_rewrites_the_calls_text(source: str, shift: int, remap: _Remap, expected: str) -> None:
    assert remap.change(shift)(source) == expected


# -- JAX1000: jax.xla_computation(f)(*args) --

XLA_GONE = "removed in jax 0.4.34 (raises AttributeError on jax 0.12.0.1)"
XLA_HLO = "jax.jit(f).lower(*args).compiler_ir('hlo')"


def test_xla_computation_built_and_applied_at_once_is_an_unsafe_fix_the_rest_is_a_persons() -> None:
    source = (JAX + "a = jax.xla_computation(f)(x, *ys, k=1).as_hlo_text()\n"
              "b = (jax.xla_computation(f))(x)\n"
              "c = jax.xla_computation(f, backend='tpu', static_argnums=0, tuple_args=True)(x)\n"
              "d = jax.xla_computation(f)\n"
              "e = jax.xla_computation(f, 1, **kw)(x)\n"
              "g = jax.xla_computation(*fs)(x)\n")
    after, findings = _run(source, "JAX1000")
    assert after == (JAX + "a = jax.jit(f).lower(x, *ys, k=1).compiler_ir('hlo').as_hlo_text()\n"
                     "b = (jax.jit(f).lower)(x).compiler_ir('hlo')\n" + source.split("\n", 4)[4])
    fixed = (f"jax.xla_computation(f)(*args) -> {XLA_HLO}: {XLA_GONE}; {core_calls._XLA_UNSAFE}", "unsafe")
    assert findings == [
        (3, 5, "fixed", *fixed), (4, 6, "fixed", *fixed),
        (5, 5, "manual", f"jax.xla_computation(f, backend=, static_argnums=, tuple_args=): {XLA_GONE}; use {XLA_HLO}; "
                         "backend=B -> jax.jit(f).trace(*args).lower(lowering_platforms=(B,)).compiler_ir('hlo'); "
                         "static_argnums=S -> jax.jit(f, static_argnums=S); tuple_args= has no replacement: jax.jit "
                         "decides", None),
        (6, 5, "manual", f"jax.xla_computation: {XLA_GONE}; use {XLA_HLO} where the computation is applied to its "
                         "arguments", None),
        (7, 5, "manual", f"jax.xla_computation(f, ..., **): {XLA_GONE}; use {XLA_HLO}", None),
        (8, 5, "manual", f"jax.xla_computation(f): {XLA_GONE}; use {XLA_HLO}", None),
    ]


def test_xla_computation_under_an_imported_name_writes_jax_jit_and_drops_the_import() -> None:
    after, findings = _run("from jax import xla_computation as xc\n\nc = xc(f)(x)\n", "JAX1000")
    assert after == 'import jax\n\nc = jax.jit(f).lower(x).compiler_ir("hlo")\n'
    assert [(line, kind) for line, _, kind, *_ in findings] == [(3, "fixed")]
    jit = "from jax import xla_computation as xc\njit = 1\njax = 2\n\nc = xc(f)(x)\n"
    assert _run(jit, "JAX1000") == (jit, [(5, 5, "manual", "jax.xla_computation: removed in jax 0.4.34 (raises "
                                                             f"ImportError on jax 0.12.0.1); use {XLA_HLO} (the name jax "
                                                             "is taken here)", None)])


@pytest.mark.parametrize("quote", ["'", '"'])
def test_xla_computation_writes_hlo_in_the_modules_own_quotes(quote: str) -> None:
    """The trial of 2026-12-07e, N2: a new string literal takes the quotes the module's strings use."""
    source = f"import jax\n\nNAMES = ({quote}a{quote}, {quote}b{quote}, \"c\" 'd')\nc = jax.xla_computation(f)(x)\n"
    after, _ = _run(source, "JAX1000")
    assert after == source.replace("jax.xla_computation(f)(x)", f"jax.jit(f).lower(x).compiler_ir({quote}hlo{quote})")


def test_xla_computation_waits_for_its_deprecation_and_a_floor_that_has_the_replacement() -> None:
    source = JAX + "c = jax.xla_computation(f)(x)\n"
    assert _run(source, "JAX1000", Settings((0, 4, 29), unsafe_fixes=True)) == (source, [])
    after, findings = _run(source, "JAX1000", Settings((0, 4, 30), unsafe_fixes=True))
    assert after == JAX + 'c = jax.jit(f).lower(x).compiler_ir("hlo")\n' and findings[0][2] == "fixed"
    after, findings = _run(source, "JAX1000", Settings((0, 12, 0, 1), jax_floor=(0, 4, 0), unsafe_fixes=True))
    assert after == source and findings[0][2] == "manual" and "needs jax >= 0.4.13" in findings[0][3]
