"""The project index across runs (ProjectIndex.state / restore): after any edit, the facts a warm
run gives are the facts a cold run gives, and an edit that cannot change a fact keeps it.

The property: seeded random packages whose kernels, helpers and launchers sit in different
modules and reach each other through every import spelling the index follows (absolute, relative,
aliased, a package's re-export), then a chain of random edits. Each edit rewrites one module: a
helper gains or loses its precision, a body is launched directly, through a launch helper, held in
a list or used by plain code, an import changes spelling, a function is renamed, a word or a
comment is added. After each edit the index restored from the previous run's state must answer
exactly as a fresh index over the same files, for every module. Static analysis only: no jax.
`JAX_CODEMOD_PROPERTY_EXAMPLES=N` runs more chains (`make sweep`).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from codemods.analysis.kernel_scope import ModuleFacts
from codemods.analysis.project import ProjectIndex
from codemods.engine.cache import ResultCache
from codemods.settings import Settings

CHAINS = max(1, int(os.environ.get("JAX_CODEMOD_PROPERTY_EXAMPLES", "150")) // 3)
EDITS = 10

PRECISIONS = ["precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST)", "precision=lax.Precision.HIGHEST",
              "precision=None", ""]
# How a kernel module reaches the helpers module `pkg.ops` (each binds the name `ops` or `mm0`).
OPS_IMPORTS = ["from pkg import ops", "from . import ops", "import pkg.ops as ops", "from .ops import mm0",
               "from pkg.ops import mm0", "from pkg import mm0"]  # the last: re-exported by pkg/__init__.py
LAUNCH_IMPORTS = ["from pkg.launch import run", "from .launch import run", "from pkg import launch"]


def _ops(rng: random.Random, names: list[str]) -> str:
    lines = ["import functools", "import jax.numpy as jnp", "from jax import lax", ""]
    for name in names:
        lines += [f"def {name}(a, b):", f"    return jnp.dot(a, b{', ' if (p := rng.choice(PRECISIONS)) else ''}{p})", ""]
    if rng.random() < 0.5:
        lines += [f"exp_hi = functools.partial(lax.exp, accuracy={rng.choice(['(1e-6, 1e-6)', 'None'])})", ""]
    if rng.random() < 0.3:
        lines += ["# a comment", f"WORD_{rng.randrange(3)} = 1", ""]
    return "\n".join(lines)


def _launch(rng: random.Random) -> str:
    if rng.random() < 0.2:
        return "def run(f, x):\n    return f(x)\n"  # launches nothing
    return ("from jax.experimental import pallas as pl\n\n\n"
            "def run(body, x):\n    return pl.pallas_call(body, out_shape=x)(x)\n")


LAYERS_IMPORTS = ["from pkg import layers", "from . import layers", "import pkg.layers as layers"]


def _layers(rng: random.Random, helpers: list[str]) -> str:
    """Bodies and helpers that call `pkg.ops`, launched (or not) from the kernel modules."""
    spelling = rng.choice(OPS_IMPORTS)
    call = "mm0" if spelling.endswith("mm0") else f"ops.{rng.choice(helpers)}"
    lines = [spelling, "", "",
             "def body(x_ref, o_ref):", f"    o_ref[...] = {call}(x_ref[...], x_ref[...])", "", "",
             "def helper(a):", f"    return {call}(a, a)", "", ""]
    if rng.random() < 0.5:
        lines += ["def make():", "    def kernel(x_ref, o_ref):", f"        o_ref[...] = {call}(x_ref[...], x_ref[...])",
                  "    return kernel", "", ""]
    if rng.random() < 0.4:
        lines += ["BODIES = [body]", ""]
    return "\n".join(lines) + "\n"


def _kernel_module(rng: random.Random, index: int, helpers: list[str]) -> str:
    spelling = rng.choice(OPS_IMPORTS)
    call = "mm0" if spelling.endswith("mm0") else f"ops.{rng.choice(helpers)}"
    launch_import = rng.choice(LAUNCH_IMPORTS)
    runner = "launch.run" if launch_import.endswith("launch") else "run"
    layers = rng.choice([*LAYERS_IMPORTS, "from pkg.layers import body as lbody, helper, make"])
    named = layers.startswith("from pkg.layers")
    body, helper, make = ("lbody", "helper", "make") if named else ("layers.body", "layers.helper", "layers.make")
    own = f"body{index}"
    lines = ["from jax.experimental import pallas as pl" if rng.random() < 0.8 else "", spelling, launch_import, layers,
             "", "", f"def {own}(x_ref, o_ref):",
             f"    o_ref[...] = {rng.choice([call, helper])}(x_ref[...], x_ref[...])", "", ""]
    for use in rng.sample(["direct", "helper", "held", "plain", "partial", "layers", "factory", "layers held"],
                          rng.randint(0, 3)):
        launched = body if use.startswith("layers") else own
        if use in ("direct", "layers"):
            lines += [f"def go_{use}(x):", f"    return pl.pallas_call({launched}, out_shape=x)(x)", "", ""]
        elif use == "helper":
            lines += [f"def go_{use}(x):", f"    return {runner}({rng.choice([own, body])}, x)", "", ""]
        elif use in ("held", "layers held"):
            held = "layers.BODIES" if use == "layers held" and not named else f"[{launched}]"
            lines += [f"def go_{use.replace(' ', '_')}(x):", f"    for b in {held}:",
                      "        x = pl.pallas_call(b, out_shape=x)(x)", "    return x", "", ""]
        elif use == "partial":
            lines += ["import functools", "", "", f"def go_{use}(x):",
                      f"    return pl.pallas_call(functools.partial({call}, precision=None), out_shape=x)(x)", "", ""]
        elif use == "factory":
            lines += [f"def go_{use}(x):", f"    return pl.pallas_call({make}(), out_shape=x)(x)", "", ""]
        else:
            lines += [f"def go_{use}(x):", f"    return {rng.choice([call, helper])}(x, x)", "", ""]
    if rng.random() < 0.3:
        lines += [f"# edited {rng.randrange(1000)}"]
    return "\n".join(lines) + "\n"


def _project(rng: random.Random) -> dict[str, str]:
    helpers = [f"mm{i}" for i in range(rng.randint(1, 3))]
    files = {"pkg/__init__.py": "from pkg.ops import mm0\n" if rng.random() < 0.7 else "",
             "pkg/ops.py": _ops(rng, helpers), "pkg/launch.py": _launch(rng), "pkg/layers.py": _layers(rng, helpers)}
    for k in range(rng.randint(1, 3)):
        files[f"pkg/kern{k}.py"] = _kernel_module(rng, k, helpers)
    files["pkg/__helpers__.txt"] = ",".join(helpers)  # what the edits may call (not a module)
    return files


def _edit(rng: random.Random, files: dict[str, str]) -> dict[str, str]:
    """One module rewritten: regenerated with new choices, a name renamed, or only a comment or a
    word added."""
    helpers = files["pkg/__helpers__.txt"].split(",")
    modules = sorted(name for name in files if name.endswith(".py"))
    target = rng.choice(modules)
    edited = dict(files)
    kind = rng.random()
    if kind < 0.2:
        edited[target] = files[target] + f"\n# a comment {rng.randrange(10**6)}\n"
    elif kind < 0.3:
        edited[target] = files[target] + f"\nunrelated_{rng.randrange(10**6)} = 0\n"
    elif kind < 0.45 and target in ("pkg/ops.py", "pkg/layers.py"):
        old = rng.choice(helpers if target == "pkg/ops.py" else ["body", "helper", "make", "BODIES"])
        edited[target] = files[target].replace(f"{old}", f"renamed{rng.randrange(3)}", 1)
    elif target == "pkg/ops.py":
        edited[target] = _ops(rng, helpers)
    elif target == "pkg/launch.py":
        edited[target] = _launch(rng)
    elif target == "pkg/layers.py":
        edited[target] = _layers(rng, helpers)
    elif target == "pkg/__init__.py":
        edited[target] = rng.choice(["", "from pkg.ops import mm0\n", "from pkg.layers import body\n",
                                     "from .launch import run\n"])
    else:
        edited[target] = _kernel_module(rng, int(target[len("pkg/kern"):-3]), helpers)
    return edited


def _write(root: Path, files: dict[str, str]) -> list[Path]:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    return sorted(root.rglob("*.py"))


def _all_facts(index: ProjectIndex, files: list[Path]) -> dict[str, ModuleFacts]:
    return {path.name: index.facts(path) for path in files}


@pytest.mark.parametrize("seed", range(CHAINS))
def test_after_any_edit_a_warm_run_gives_the_facts_of_a_cold_run(seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    files = _project(rng)
    paths = _write(tmp_path, files)
    index = ProjectIndex(paths, Path.read_bytes)
    _all_facts(index, paths)
    for step in range(EDITS):
        state = index.state()
        files = _edit(rng, files)
        paths = _write(tmp_path, files)
        index = ProjectIndex(paths, Path.read_bytes)
        index.restore(state)
        warm = _all_facts(index, paths)
        cold = _all_facts(ProjectIndex(paths, Path.read_bytes), paths)
        assert warm == cold, f"seed {seed}, edit {step}:\n" + "\n".join(
            f"--- {name}\n{text}" for name, text in files.items())


# -- what an edit keeps --

PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/ops.py": "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef mm(a, b):\n"
                  "    return jnp.dot(a, b, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n",
    "pkg/api.py": "from jax.experimental import pallas as pl\nfrom pkg import ops\n\n\ndef body(x_ref, o_ref):\n"
                  "    o_ref[...] = ops.mm(x_ref[...], x_ref[...])\n\n\n"
                  "def go(x):\n    return pl.pallas_call(body, out_shape=x)(x)\n",
    "other/__init__.py": "",
    "other/tools.py": "import jax.numpy as jnp\n\n\ndef norm(x):\n    return jnp.dot(x, x, precision='highest')\n",
}


def _warm(tmp_path: Path, before: dict[str, str], after: dict[str, str]) -> tuple[ProjectIndex, set[str], list[str]]:
    """The index of `after` restored from a run over `before` (every module's facts asked), the
    modules found changed, and the modules whose facts it computed again."""
    paths = _write(tmp_path, before)
    cold = ProjectIndex(paths, Path.read_bytes)
    _all_facts(cold, paths)
    state = cold.state()
    paths = _write(tmp_path, after)
    index = ProjectIndex(paths, Path.read_bytes)
    changed = index.restore(state)
    computed: list[str] = []
    facts_of = index._facts_of
    index._facts_of = lambda module: computed.append(module.name) or facts_of(module)  # type: ignore[method-assign]
    _all_facts(index, paths)
    return index, changed, sorted(computed)


def test_a_comment_in_the_launching_module_recomputes_what_it_launches_and_nothing_else(tmp_path: Path) -> None:
    after = {**PACKAGE, "pkg/api.py": PACKAGE["pkg/api.py"] + "# tuned\n"}
    index, changed, computed = _warm(tmp_path, PACKAGE, after)
    assert changed == {"pkg.api"}
    assert computed == ["pkg.api", "pkg.ops"]  # its own, and the helper it calls from its kernel
    assert index.facts(tmp_path / "pkg/ops.py").kernels[0][0] == "mm"


def test_an_edit_that_stops_a_launch_changes_the_facts_of_the_module_it_launched(tmp_path: Path) -> None:
    """The touched file changes another module's facts: `ops.mm` is no longer kernel code."""
    after = {**PACKAGE, "pkg/api.py": PACKAGE["pkg/api.py"].replace("pl.pallas_call(body, out_shape=x)(x)", "body(x, x)")}
    index, _, computed = _warm(tmp_path, PACKAGE, after)
    assert "pkg.ops" in computed
    assert index.facts(tmp_path / "pkg/ops.py") == ProjectIndex(_write(tmp_path, after), Path.read_bytes).facts(
        tmp_path / "pkg/ops.py")
    assert not index.facts(tmp_path / "pkg/ops.py").kernels


def test_an_edit_in_an_unrelated_package_keeps_every_other_fact(tmp_path: Path) -> None:
    after = {**PACKAGE, "other/tools.py": PACKAGE["other/tools.py"] + "\n\ndef more(x):\n    return x\n"}
    _, changed, computed = _warm(tmp_path, PACKAGE, after)
    assert changed == {"other.tools"} and computed == ["other.tools"]


def test_an_edit_of_a_helpers_body_keeps_the_facts_of_the_modules_that_only_import_it(tmp_path: Path) -> None:
    """`pkg.api` reads only the imports and top-level names of `pkg.ops`: a new precision in a body
    there changes neither."""
    after = {**PACKAGE, "pkg/ops.py": PACKAGE["pkg/ops.py"].replace("lax.Precision.DEFAULT, ", "")}
    _, changed, computed = _warm(tmp_path, PACKAGE, after)
    assert changed == {"pkg.ops"} and computed == ["pkg.ops"]


def test_a_new_import_anywhere_builds_the_tables_again_and_keeps_the_facts_if_they_are_the_same(tmp_path: Path) -> None:
    after = {**PACKAGE, "other/tools.py": "import os\n" + PACKAGE["other/tools.py"]}
    index, _, computed = _warm(tmp_path, PACKAGE, after)
    assert computed == ["other.tools"]  # the tables came out the same: the other facts stand
    after = {**PACKAGE, "other/tools.py": "from pkg import ops\n" + PACKAGE["other/tools.py"]}
    index, _, computed = _warm(tmp_path, PACKAGE, after)
    assert "pkg.ops" in computed  # `other.tools` now imports the project: who may use `ops.mm` changed


def test_the_state_survives_the_cache_and_an_unreadable_one_is_no_state(tmp_path: Path) -> None:
    paths = _write(tmp_path / "p", PACKAGE)
    index = ProjectIndex(paths, Path.read_bytes)
    facts = _all_facts(index, paths)
    cache = ResultCache(tmp_path / "cache", Settings())
    cache.store_project_state("layout", index.state())
    restored = ProjectIndex(paths, Path.read_bytes)
    assert restored.restore(cache.project_state("layout")) == set()
    assert _all_facts(restored, paths) == facts and not restored.learnt()
    entry = cache._project_entry("layout")
    entry.write_bytes(entry.read_bytes()[:100])  # cut short, as by a full disk
    assert cache.project_state("layout") is None
    assert cache.project_state("another layout") is None
