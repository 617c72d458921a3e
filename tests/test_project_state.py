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

import itertools
import json
import marshal
import multiprocessing
import os
import sys
import random
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from codemods.analysis.project import base, flow
from codemods.analysis.kernel_scope import ModuleFacts
from codemods.analysis.project import ProjectIndex
from codemods.engine.cache import ResultCache
from codemods.settings import Settings
from tests.test_project_index import read_bytes

PALLAS = "from jax.experimental import pallas as pl\n"
CHAINS = max(1, int(os.environ.get("JAX_CODEMOD_PROPERTY_EXAMPLES", "150")) // 3)
EDITS = 10

PRECISIONS = ["precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST)", "precision=lax.Precision.HIGHEST",
              "precision=None", ""]
# How a kernel module reaches the helpers module `pkg.ops` (each binds the name `ops` or `mm0`).
OPS_IMPORTS = ["from pkg import ops", "from . import ops", "import pkg.ops as ops", "from .ops import mm0",
               "from pkg.ops import mm0", "from pkg import mm0",  # re-exported by pkg/__init__.py
               "from pkg import fast_mm as mm0"]  # re-exported under another name
LAUNCH_IMPORTS = ["from pkg.launch import run", "from .launch import run", "from pkg import launch",
                  "from pkg.relay import run"]  # a launcher of its own only if it hands the body on


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


def _relay(rng: random.Random) -> str:
    """A module that hands a body on to `pkg.launch.run` (a def, a partial), or does not: the same
    imports whichever, so that only what its code does tells them apart."""
    imports = "import functools\nfrom pkg import launch\nfrom pkg.launch import run as _run\n\n\n"
    return imports + rng.choice(["def run(body, x):\n    return _run(body, x)\n", "run = functools.partial(_run)\n",
                                 "def run(body, x):\n    return launch.run(body, x)\n",
                                 "def run(body, x):\n    return body\n"])


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
    tool = rng.random() < 0.4  # imports pkg.tool: kernel land reaches it
    named = layers.startswith("from pkg.layers")
    body, helper, make = ("lbody", "helper", "make") if named else ("layers.body", "layers.helper", "layers.make")
    own = f"body{index}"
    lines = ["from jax.experimental import pallas as pl" if rng.random() < 0.8 else "", spelling, launch_import, layers,
             "from pkg import tool" if tool else "", "", "", f"def {own}(x_ref, o_ref):",
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
    if tool and rng.random() < 0.5:
        lines += ["def go_tool(x):", "    return pl.pallas_call(tool.body, out_shape=x)(x)", "", ""]
    if rng.random() < 0.3:
        lines += [f"# edited {rng.randrange(1000)}"]
    return "\n".join(lines) + "\n"


def _tool(rng: random.Random, helpers: list[str]) -> str:
    """Plain code that uses the helpers and holds a body; kernel code only if it says pallas or a
    kernel module imports it (then its body may be launched from there)."""
    lines = ["from pkg import ops", "", "", "def body(x_ref, o_ref):", f"    o_ref[...] = ops.{rng.choice(helpers)}(x_ref[...], 1)",
             "", "", "def summary(x):", f"    return ops.{rng.choice(helpers)}(x, x)", ""]
    if rng.random() < 0.3:
        lines = [PALLAS.strip(), *lines, "", "def go(x):", "    return pl.pallas_call(body, out_shape=x)(x)", ""]
    return "\n".join(lines)


def _project(rng: random.Random) -> dict[str, str]:
    helpers = [f"mm{i}" for i in range(rng.randint(1, 3))]
    files = {"pkg/__init__.py": rng.choice(["from pkg.ops import mm0\n", "from pkg.ops import mm0 as fast_mm\n", ""]),
             "pkg/ops.py": _ops(rng, helpers), "pkg/launch.py": _launch(rng), "pkg/relay.py": _relay(rng), "pkg/layers.py": _layers(rng, helpers),
             "pkg/tool.py": _tool(rng, helpers)}
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
    elif target == "pkg/relay.py":
        edited[target] = _relay(rng)
    elif target == "pkg/layers.py":
        edited[target] = _layers(rng, helpers)
    elif target == "pkg/tool.py":
        edited[target] = _tool(rng, helpers)
    elif target == "pkg/__init__.py":
        edited[target] = rng.choice(["", "from pkg.ops import mm0\n", "from pkg.layers import body\n",
                                     "from .launch import run\n", "from pkg.ops import mm0 as fast_mm\n"])
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
    index = ProjectIndex(paths, read_bytes)
    _all_facts(index, paths)
    for step in range(EDITS):
        state = index.state()
        files = _edit(rng, files)
        paths = _write(tmp_path, files)
        index = ProjectIndex(paths, read_bytes)
        index.restore(state)
        warm = _all_facts(index, paths)
        fresh = ProjectIndex(paths, read_bytes)
        cold = _all_facts(fresh, paths)
        shown = "\n".join(f"--- {name}\n{text}" for name, text in files.items())
        assert warm == cold, f"seed {seed}, edit {step}:\n{shown}"
        fresh._importers_of(b"pkg")  # the word table, built whole
        assert index._importers_of(b"pkg") is not None and index._importing == fresh._importing, shown



def _in_forked_workers(function, items: list) -> list:
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        return list(pool.map(function, items))


FORKS = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="workers inherit the index by fork")
# A pool forked right after another shut down may find one of its threads still exiting: harmless
# here (the child never touches the old pool's queues); CPython 3.12 warns all the same.
FORK_WARNING = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")


@FORKS
@FORK_WARNING
@pytest.mark.parametrize("seed", range(max(1, CHAINS // 5)))
def test_summarised_in_workers_the_index_gives_the_lazy_facts_and_state(seed: int, tmp_path: Path) -> None:
    """`summarise` (the per-module parts worked out in forked workers) changes what is computed
    where, never what: cold and warm, every module's facts and the state kept for the next run are
    those of the lazy index; the needy names of every changed module in kernel land that a prefilter
    passes come from the workers."""
    rng = random.Random(seed)
    files = _project(rng)
    state = None
    for step in range(3):
        paths = _write(tmp_path, files)
        lazy = ProjectIndex(paths, read_bytes)
        lazy_facts = _all_facts(lazy, paths)
        summarised = ProjectIndex(paths, read_bytes)
        changed = summarised.changed(state)
        summarised.summarise(changed, _in_forked_workers)
        modules = summarised._modules.values()
        assert changed <= {m.name for m in modules if m.import_texts is not None}  # kernel land read the others'
        land = {m.name for m in modules if m.name in summarised._kernel_land() or summarised._marked(m)}
        assert {m.name for m in modules if m.relevant is not None} == land & changed
        assert {m.name for m in modules if m.needy is not None} == {m.name for m in modules if m.relevant}
        assert all(m.holders is not None for m in modules if m.needy)  # what holds a needy name: from its parse there
        # Who says each needy name came from the workers too: the searches below read it.
        assert summarised._named == {name.encode() for m in modules for name in m.needy or ()}
        assert all(m.said is not None for m in modules if m.name in changed) or not summarised._named
        summarised.restore(state)
        shown = "\n".join(f"--- {name}\n{text}" for name, text in files.items())
        assert _all_facts(summarised, paths) == lazy_facts, f"seed {seed}, step {step}:\n{shown}"
        if state is None:
            list(lazy.flow_summaries())  # the value flow's summaries: worked out by the workers above, here lazily
            assert summarised.state() == lazy.state(), shown
        state = summarised.state()
        files = _edit(rng, files)



@FORKS
@FORK_WARNING
def _log_where_the_link_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The file each run of the link writes a line to: "main" in this process, "forked" in another
    (a forked process inherits the patch)."""
    log, main, link = tmp_path / "linked-in.log", os.getpid(), flow.link

    def logged_link(*args, **kwargs):
        with open(log, "a") as out:
            out.write("main\n" if os.getpid() == main else "forked\n")
        return link(*args, **kwargs)

    monkeypatch.setattr(flow, "link", logged_link)
    return log


@pytest.mark.parametrize("jobs, processed, summarised, seed", [
    *[(2, "all", True, seed) for seed in (3, 11, 12, 13, 14)], (1, "all", False, 3), (2, "one", False, 3)])
def test_a_run_over_most_of_a_large_project_summarises_it_in_workers(
        jobs: int, processed: str, summarised: bool, seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With `--jobs 2` a run over the project has its modules summarised in the pool, whose workers
    then analyse each file as soon as its facts are known, and linked in a process of its own while
    the main one works out the facts, and finds what the lazy index finds; a run of one file of it (pre-commit, the editor) or on one core
    asks the lazy index for a few modules' facts instead, and links here."""
    from codemods import registry
    from codemods.engine import runner

    paths = _write(tmp_path, {**_project(random.Random(seed)),
                              **{name.replace("pkg", "lib"): text.replace("pkg", "lib") for name, text in PACKAGE.items()}})
    monkeypatch.setattr(runner, "SUMMARY_MIN_MODULES", len(paths))  # the pool's threshold: this project
    calls = []
    summarise = ProjectIndex.summarise
    monkeypatch.setattr(ProjectIndex, "summarise", lambda index, names, map_in_workers, *then: calls.append(sorted(names))
                        or summarise(index, names, map_in_workers, *then))
    handed = []  # the files handed to the summary's workers as soon as their facts were known
    submit = runner._Pool.submit
    monkeypatch.setattr(runner._Pool, "submit", lambda pool, function, item, *where: handed.append(item[0])
                        or submit(pool, function, item, *where))
    here = []  # the files analysed in this process (a worker's list is its own)
    process = runner._process_candidate
    monkeypatch.setattr(runner, "_process_candidate", lambda item: here.append(item[0]) or process(item))
    log = _log_where_the_link_runs(monkeypatch, tmp_path)
    settings = Settings((0, 12, 0, 1))
    chosen = paths if processed == "all" else [tmp_path / "lib" / "ops.py"]
    results = runner.run(chosen, registry.RULES, settings, jobs, None, project=paths)
    assert log.read_text() == ("forked\n" if summarised else "main\n")
    names = {".".join(p.relative_to(tmp_path).with_suffix("").parts).removesuffix(".__init__") for p in paths}
    assert calls == ([sorted(names)] if summarised else [])
    assert bool(handed) == summarised and len(handed) == len(set(handed))
    assert not (handed and here)  # a file handed to the workers is not analysed again here
    lazy = {r.path: r for r in runner.run(paths, registry.RULES, settings, 1, None)}
    assert [(r.findings, r.new_source) for r in results] == [(lazy[r.path].findings, lazy[r.path].new_source)
                                                             for r in results]
    assert any(r.new_source for r in results)  # the project has fixes to find (lib/ops.py)


@FORKS
@FORK_WARNING
@pytest.mark.parametrize("seed", (3, 13, 23))  # projects where another module launches a needy name
def test_a_summarised_run_works_out_the_facts_in_the_workers_that_hold_the_parses(
        seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With `--jobs 2` each module's facts are worked out in the worker that summarised it, on the
    parses it kept (`learn_facts_in_workers`): the main process parses no module once the summary
    is done, and the facts, the state kept and the findings are those of the lazy index of a run on
    one core."""
    from codemods import registry
    from codemods.engine import runner

    paths = _write(tmp_path, {**_project(random.Random(seed)),
                              **{name.replace("pkg", "lib"): text.replace("pkg", "lib") for name, text in PACKAGE.items()}})
    monkeypatch.setattr(runner, "SUMMARY_MIN_MODULES", len(paths))
    indexes, parsed = [], []  # each run's index; the modules the main process had parsed when the summary was done

    def parsed_here(index: ProjectIndex) -> set[str]:
        return {module.name for module in index._modules.values() if module.tree is not None or module.index is not None}

    project_index = runner.project_index
    monkeypatch.setattr(runner, "project_index", lambda *args: indexes.append(project_index(*args))
                        or parsed.append(parsed_here(indexes[-1])) or indexes[-1])
    settings = Settings((0, 12, 0, 1))
    results = runner.run(paths, registry.RULES, settings, 2, None, project=paths)
    summarised, lazy_run = indexes[0], runner.run(paths, registry.RULES, settings, 1, None)
    lazy = indexes[1]
    assert parsed_here(summarised) == parsed[0]
    assert _all_facts(summarised, paths) == _all_facts(lazy, paths)
    assert any(facts.kernels for facts in _all_facts(summarised, paths).values())  # a search had something to find
    assert summarised.state() == lazy.state()
    assert [(r.findings, r.new_source) for r in results] == [(r.findings, r.new_source) for r in lazy_run]


@FORKS
@FORK_WARNING
def test_the_summary_asks_of_a_module_again_in_the_worker_that_parsed_it(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The summary's stages (each module's parts; the needy names of those in kernel land; the flow
    summaries of the linked ones) hand a module to the worker an earlier stage handed it to, which
    keeps its parse (`runner._Pool.map`): no module is parsed in two workers."""
    from codemods.engine import runner

    paths = _write(tmp_path, {**_project(random.Random(3)), **CROSSING, **PACKAGE})
    log, main, tree = tmp_path / "parsed.log", os.getpid(), base.ProjectBase._tree

    def logged_tree(index: ProjectIndex, module):
        if os.getpid() != main and module.tree is None and module.index is None and not module.parse_failed:
            with open(log, "a") as out:
                out.write(f"{module.name} {os.getpid()}\n")
        return tree(index, module)

    monkeypatch.setattr(base.ProjectBase, "_tree", logged_tree)
    index = ProjectIndex(paths, read_bytes)
    with runner._Pool(2) as pool:
        index.summarise(index.changed(None), pool.map)
    workers: dict[str, set[str]] = {}
    for name, pid in (line.split() for line in log.read_text().splitlines()):
        workers.setdefault(name, set()).add(pid)
    assert index.linked() and workers  # flow summaries were made, and needy names found on parses
    assert {name: pids for name, pids in workers.items() if len(pids) > 1} == {}


@FORKS
@FORK_WARNING
@pytest.mark.parametrize("hidden", (False, True))
def test_a_summarised_run_hands_out_before_the_link_the_files_it_cannot_answer_for(
        hidden: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With `--jobs 2` the files whose modules the link neither starts from nor reads by their
    import lines are analysed while it runs (`facts_before_the_link`), the others once its answers
    are in. `hidden`: the link reads a module the import lines do not say (here every one: what
    it may read is patched to nothing), so a file it answers for (`cfg/consts.py`, where the pair
    is written) had its facts early: they are worked out again with the answers. The findings are those
    of a run on one core either way."""
    from codemods import registry
    from codemods.engine import runner

    # (`old.py`: no kernel's, a JAX1xx row's to move)
    paths = _write(tmp_path, {**CROSSING, **PACKAGE, "old.py": "from jax.experimental.pjit import pjit\n\nf = pjit(abs)\n"})
    monkeypatch.setattr(runner, "SUMMARY_MIN_MODULES", len(paths))
    if hidden:
        monkeypatch.setattr(flow.LinkedFlow, "_may_read", lambda index, scope: set())
    events, early = [], []  # files handed out and the link's answers taken, in order; the files found early
    submit, take_link, before_the_link = runner._Pool.submit, flow.LinkedFlow._take_link, flow.LinkedFlow.facts_before_the_link
    monkeypatch.setattr(flow.LinkedFlow, "facts_before_the_link", lambda index, files: early.extend(
        Path(files[position]).relative_to(tmp_path).as_posix() for position in before_the_link(index, files))
        or before_the_link(index, files))
    monkeypatch.setattr(runner._Pool, "submit", lambda pool, function, item, *where: events.append(
        Path(item[0]).relative_to(tmp_path).as_posix()) or submit(pool, function, item, *where))
    monkeypatch.setattr(flow.LinkedFlow, "_take_link", lambda index, linked: events.append("linked")
                        or take_link(index, linked))
    settings = Settings((0, 12, 0, 1))
    results = runner.run(paths, registry.RULES, settings, 2, None)
    before = events[:events.index("linked")]
    assert "old.py" in before and "kern/body.py" not in before
    assert ("cfg/consts.py" in early) == hidden and events.count("cfg/consts.py") == 1
    lazy = runner.run(paths, registry.RULES, settings, 1, None)
    assert [(r.path, r.findings, r.new_source) for r in results] == [(r.path, r.findings, r.new_source) for r in lazy]
    assert any(r.new_source for r in results if r.path.endswith("consts.py"))  # the link's answer: the fix is there


@FORKS
@FORK_WARNING
def test_a_summarised_run_starts_the_link_as_soon_as_its_summaries_are_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With `--jobs 2` the link is forked once the linked modules are summarised (their needy names
    on the same parse), before the workers find the other modules' needy names and who says each:
    the link, the run's longest serial part, runs while they do (it read neither). The findings
    are those of a run on one core."""
    from codemods import registry
    from codemods.engine import runner

    paths = _write(tmp_path, {**_project(random.Random(3)), **CROSSING, **PACKAGE})
    monkeypatch.setattr(runner, "SUMMARY_MIN_MODULES", len(paths))
    events: list[str] = []
    pool_map, fork = runner._Pool.map, runner._Pool.fork
    monkeypatch.setattr(runner._Pool, "map", lambda pool, function, items: events.append(function.__name__)
                        or pool_map(pool, function, items))
    monkeypatch.setattr(runner._Pool, "fork", lambda pool, function: events.append("fork") or fork(pool, function))
    settings = Settings((0, 12, 0, 1))
    results = runner.run(paths, registry.RULES, settings, 2, None)
    assert [event for event in events if event != "_prefilter_summary"] == [
        "_summary", "_linked_summary", "fork", "_needy_summary", "_names_said"]
    lazy = runner.run(paths, registry.RULES, settings, 1, None)
    assert [(r.path, r.findings, r.new_source) for r in results] == [(r.path, r.findings, r.new_source) for r in lazy]
    assert any(r.findings for r in results)
    # With a kept state (here every module changed since), after the whole summary: restoring it
    # reads the changed modules' parts, which the summary's later stages bring.
    cache = ResultCache(tmp_path / "cache", settings)
    runner.run(paths, registry.RULES, settings, 1, cache)
    for path in paths:
        path.write_text(path.read_text() + "\n")
    del events[:]
    warm = runner.run(paths, registry.RULES, settings, 2, ResultCache(tmp_path / "cache", settings))
    assert [event for event in events if event != "_prefilter_summary"] == [
        "_summary", "_linked_summary", "_needy_summary", "_names_said", "fork"]
    assert [(r.path, r.findings) for r in warm] == [(r.path, r.findings) for r in lazy]


@FORKS
@FORK_WARNING
def test_a_summarised_run_chooses_each_files_rules_from_its_workers_prefilter(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The summary's workers answer the byte test of each module with its summary: the main process
    neither reads nor tests a file to choose its rules (it did, serially, for thousands of files),
    but for a module other modules' kernels call (its facts hold kernels: a few), whose bytes it
    tests with that, as a run of one job does; the workers never test the kernel-scoped rules
    as if every module held kernels (more CPU than all the rules' test). The per-file ignores
    still apply to the rules they choose."""
    from codemods import registry
    from codemods.engine import runner

    paths = _write(tmp_path, PACKAGE)
    monkeypatch.setattr(runner, "SUMMARY_MIN_MODULES", len(paths))
    main, log, rules_for, rules_for_file = os.getpid(), tmp_path / "holding.log", runner.rules_for, runner._rules_for_file

    def logged(raw: bytes, rules, settings, holds_kernels: bool = False) -> list:
        if holds_kernels and os.getpid() != main and sys._getframe(1).f_code.co_name == "prefilter":
            with open(log, "a") as out:
                out.write("a worker tested the kernel-scoped rules as if the module held kernels\n")
        return rules_for(raw, rules, settings, holds_kernels)

    def only_holding(path: Path, seen, transforms, settings, facts, skipped) -> list:
        assert facts.holds_kernels, f"the main process prefiltered {path}"
        return rules_for_file(path, seen, transforms, settings, facts, skipped)

    monkeypatch.setattr(runner, "rules_for", logged)
    monkeypatch.setattr(runner, "_rules_for_file", only_holding)
    settings = Settings((0, 12, 0, 1))
    ignored = {"api.py"}  # its kernel's call of ops.mm is no finding of its own: the fix is in ops.py
    results = runner.run(paths, registry.RULES, settings, 2, rules_to_skip=lambda path: frozenset(
        {"JAX001"} if Path(path).name in ignored else ()))
    found = {Path(r.path).name: sorted(f.code for f in r.findings) for r in results if r.findings}
    assert found == {"ops.py": ["JAX001"]}  # a helper that never says pallas, called from a kernel
    ignored = {"ops.py"}
    results = runner.run(paths, registry.RULES, settings, 2, rules_to_skip=lambda path: frozenset(
        {"JAX001"} if Path(path).name in ignored else ()))
    assert not [f for r in results for f in r.findings]
    assert not log.exists()


def _notebook(*cells: str) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {},
                                  "outputs": [], "source": cell.splitlines(keepends=True)} for i, cell in enumerate(cells)],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1, sort_keys=True) + "\n"


@FORKS
@FORK_WARNING
def test_a_summarised_run_reads_no_notebook_here_that_nothing_would_decode(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The summary's workers search each notebook for the rules' needles: the main process reads only
    those a rule or the index decodes (a kernel; refs with a precision), and finds what a run on one
    core finds. Thousands of notebooks without jax were searched one after another here."""
    from codemods import registry
    from codemods.engine import runner

    kernel = ("import jax\nfrom jax import lax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n\n\n"
              "def body(x_ref, o_ref):\n    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], "
              "precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n\n\n"
              "run = pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))\n")
    refs = "from mylib import mm\n\n\ndef body(x_ref, o_ref):\n    o_ref[...] = mm(x_ref[...], precision=p)\n"
    files = {**PACKAGE, "nb/kernel.ipynb": _notebook(kernel), "nb/refs.ipynb": _notebook(refs),
             **{f"nb/plain_{i}.ipynb": _notebook("import numpy as np\n", f"x_ref = np.ones({i})\n") for i in range(8)}}
    paths = _write(tmp_path, files) + sorted(tmp_path.rglob("*.ipynb"))
    monkeypatch.setattr(runner, "SUMMARY_MIN_MODULES", len(paths))
    read_here: list[str] = []
    read = runner._read_file
    monkeypatch.setattr(runner, "_read_file", lambda path: read_here.append(Path(path).name) or read(path))
    settings = Settings((0, 12, 0, 1))
    results = runner.run(paths, registry.RULES, settings, 2)
    assert sorted(name for name in read_here if name.endswith(".ipynb")) == ["kernel.ipynb", "refs.ipynb"]
    lazy = {r.path: r.findings for r in runner.run(paths, registry.RULES, settings, 1)}
    assert {r.path: r.findings for r in results} == lazy
    assert [f.code for r in results if r.path.endswith("kernel.ipynb") for f in r.findings] == ["JAX001"]


# A value written in one module, read by a kernel of another through a helper of a third that the
# link reads on demand (`shared` imports nothing of the kernels' packages): the link's answers and
# the summary it makes on demand are what a link in another process must send back.
CROSSING = {
    "shared/__init__.py": "",
    "shared/pick.py": "def pick(pair):\n    return pair\n",
    "cfg/__init__.py": "",
    "cfg/consts.py": "from jax import lax\n\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
    "kern/__init__.py": "",
    "kern/body.py": "import jax.numpy as jnp\nfrom jax.experimental import pallas as pl\nfrom cfg.consts import PAIR\n"
                    "from shared.pick import pick\n\n\ndef body(x_ref, o_ref):\n"
                    "    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=pick(PAIR))\n\n\n"
                    "def go(x):\n    return pl.pallas_call(body, out_shape=x)(x)\n",
}


@FORKS
@FORK_WARNING
@pytest.mark.parametrize("seed", range(max(1, CHAINS // 5)))
def test_linked_in_a_forked_process_the_index_gives_the_facts_and_state_of_a_link_here(
        seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`link_flow_elsewhere` (`--jobs` > 1 on a large tree: the link runs in a process forked from the
    main one while the main one works out the facts that do not read its answers) changes where
    the link runs, never what: every module's facts, the link's answers among them, and the state
    kept for the next run are those of `link_flow` run here, in the same order."""
    from codemods import registry

    follows = {name: place for rule in registry.RULES if rule.kernel_scoped for name, place in rule.follows.items()}
    paths = _write(tmp_path, {**_project(random.Random(seed)), **CROSSING})
    here = ProjectIndex(paths, read_bytes)
    here.learn_facts(paths)
    here.link_flow(follows)
    facts_here = _all_facts(here, paths)
    assert facts_here["body.py"].flow.sinks and facts_here["consts.py"].flow.origins  # the link's answers
    log = _log_where_the_link_runs(monkeypatch, tmp_path)
    elsewhere = ProjectIndex(paths, read_bytes)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        elsewhere.link_flow_elsewhere(follows, None, pool.submit)
        elsewhere.learn_facts(paths)
        assert _all_facts(elsewhere, paths) == facts_here
    assert log.read_text() == "forked\n"
    assert "shared.pick" in elsewhere.flow_modules - elsewhere.linked()  # read on demand, there
    assert elsewhere.state() == here.state()


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
    cold = ProjectIndex(paths, read_bytes)
    _all_facts(cold, paths)
    state = cold.state()
    paths = _write(tmp_path, after)
    index = ProjectIndex(paths, read_bytes)
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
    assert index.facts(tmp_path / "pkg/ops.py") == ProjectIndex(_write(tmp_path, after), read_bytes).facts(
        tmp_path / "pkg/ops.py")
    assert not index.facts(tmp_path / "pkg/ops.py").kernels


RELAYED = {
    **PACKAGE,
    "pkg/launch.py": "from jax.experimental import pallas as pl\n\n\ndef run(body, x):\n"
                     "    return pl.pallas_call(body, out_shape=x)(x)\n",
    "pkg/relay.py": "from pkg.launch import run as _run\n\n\ndef run(body, x):\n    return _run(body, x)\n",
    "pkg/api.py": "from pkg import ops\nfrom pkg.relay import run\n\n\ndef body(x_ref, o_ref):\n"
                  "    o_ref[...] = ops.mm(x_ref[...], x_ref[...])\n\n\ndef go(x):\n    return run(body, x)\n",
}
STOPS_RELAYING = {**RELAYED, "pkg/relay.py": RELAYED["pkg/relay.py"].replace("return _run(body, x)", "return body")}
# The same, where nothing in the module says the launcher's name before the edit (`_launch` only in its import).
RELAYED_AS = {**RELAYED, "pkg/relay.py": "from pkg.launch import run as _launch\n\n\ndef go(body, x):\n"
                                         "    return _launch(body, x)\n",
              "pkg/api.py": RELAYED["pkg/api.py"].replace("import run", "import go").replace("return run(", "return go(")}
STOPS_RELAYING_AS = {**RELAYED_AS, "pkg/relay.py": RELAYED_AS["pkg/relay.py"].replace("return _launch(body, x)", "return body")}


@pytest.mark.parametrize("before, after", [(RELAYED, STOPS_RELAYING), (STOPS_RELAYING, RELAYED),
                                           (RELAYED_AS, STOPS_RELAYING_AS), (STOPS_RELAYING_AS, RELAYED_AS)],
                         ids=["stops-handing-on", "starts-handing-on", "stops-through-an-alias", "starts-through-an-alias"])
def test_an_edit_of_what_a_module_hands_on_to_a_launcher_changes_the_facts_it_decides(
        tmp_path: Path, before: dict[str, str], after: dict[str, str]) -> None:
    """`relay.run(body)` hands its body on to `launch.run`, a launcher: an edit of `relay` alone (its
    imports as they were) changes which launchers `api` imports and whether `ops.mm` is kernel code."""
    index, changed, _ = _warm(tmp_path, before, after)
    assert changed == {"pkg.relay"}
    cold = ProjectIndex(_write(tmp_path, after), read_bytes)
    for module in ("api", "ops"):
        assert index.facts(tmp_path / f"pkg/{module}.py") == cold.facts(tmp_path / f"pkg/{module}.py")
    assert bool(index.facts(tmp_path / "pkg/ops.py").kernels) == (after in (RELAYED, RELAYED_AS))


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


def test_a_new_import_recomputes_only_the_facts_whose_search_it_changes(tmp_path: Path) -> None:
    tools = PACKAGE["other/tools.py"]
    _, _, computed = _warm(tmp_path / "a", PACKAGE, {**PACKAGE, "other/tools.py": "import os\n" + tools})
    assert computed == ["other.tools"]
    # It imports the package, but never says `mm`: no search for `mm`'s users answers otherwise.
    _, _, computed = _warm(tmp_path / "b", PACKAGE, {**PACKAGE, "other/tools.py": "from pkg import ops\n" + tools})
    assert computed == ["other.tools"]
    uses = {**PACKAGE, "other/tools.py": "from pkg import ops\n" + tools + "\n\ndef f(x):\n    return ops.mm(x, x)\n"}
    index, _, computed = _warm(tmp_path / "c", PACKAGE, uses)
    assert computed == ["other.tools", "pkg.ops"]
    assert index.facts(tmp_path / "c/pkg/ops.py").shared == {"mm"}  # plain code runs it now


def test_a_first_import_of_a_module_that_defines_a_launcher_lets_others_launch_with_it(tmp_path: Path) -> None:
    """A module that says pallas and that nothing imported was not asked what it launches with; once
    another module imports its launcher and launches a body with it, the kept state's kernel land
    is built again with it, as a cold run's."""
    launch = ("from jax.experimental import pallas as pl\n\n\ndef run(body, x):\n"
              "    return pl.pallas_call(body, out_shape=x)(x)\n")
    ops = "import jax.numpy as jnp\n\n\ndef body(x_ref, o_ref):\n    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision='highest')\n"
    before = {"pkg/__init__.py": "", "pkg/launch.py": launch, "pkg/ops.py": ops,
              "pkg/uses.py": "from pkg import ops\n\n\ndef go(x):\n    return ops.body\n"}
    after = {**before, "pkg/uses.py": "from pkg import ops\nfrom pkg.launch import run\n\n\ndef go(x):\n    return run(ops.body, x)\n"}
    index, changed, _ = _warm(tmp_path, before, after)
    assert changed == {"pkg.uses"}
    assert [name for name, *_ in index.facts(tmp_path / "pkg/ops.py").kernels] == ["body"]
    assert _all_facts(index, sorted(tmp_path.rglob("*.py"))) == _all_facts(ProjectIndex(sorted(tmp_path.rglob("*.py")), read_bytes),
                                                                        sorted(tmp_path.rglob("*.py")))


def test_the_state_survives_the_cache_and_an_unreadable_one_is_no_state(tmp_path: Path) -> None:
    paths = _write(tmp_path / "p", PACKAGE)
    index = ProjectIndex(paths, read_bytes)
    facts = _all_facts(index, paths)
    cache = ResultCache(tmp_path / "cache", Settings())
    cache.store_project_state("layout", index.state())
    restored = ProjectIndex(paths, read_bytes)
    assert restored.restore(cache.project_state("layout")) == set()
    assert _all_facts(restored, paths) == facts and not restored.learnt()
    entry = cache._project_entry("layout")
    whole = entry.read_bytes()
    entry.write_bytes(whole[:100])  # cut short, as by a full disk
    assert cache.project_state("layout") is None
    for shape in ((1, [], {}, (None, None), frozenset()), ({}, {"m": (1,)}, {}, (None, None), frozenset()), [], 7):
        entry.write_bytes(marshal.dumps(shape))  # plain data of another shape: another tool's, or a bug's
        assert cache.project_state("layout") is None, shape
    assert cache.project_state("another layout") is None


# -- each part a fact can depend on: an edit that changes that part alone --

PRECISE = "jnp.dot(a, a, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))"
NUMERICS = "import jax.numpy as jnp\nfrom jax import lax\n"


OPS_MM = NUMERICS + "\n\ndef mm(a):\n    return " + PRECISE + "\n"
LAUNCH = PALLAS + "\n\ndef run(body, x):\n    return pl.pallas_call(body, out_shape=x)(x)\n"
GO = "\n\n\ndef go(x):\n    return "
# (the part the edit changes alone, the project, {file: (old, new)} the edit, whose facts it changes)
EDITS_OF_ONE_PART = [
    ("one entry of a package's top level: what `run` is (kern reads nothing else of pkg/__init__.py)", {
        "pkg/__init__.py": "from pkg.launch import run\n", "pkg/launch.py": LAUNCH,
        "pkg/plain.py": "def run(body, x):\n    return body(x)\n",
        "pkg/kern.py": PALLAS + NUMERICS + "from pkg import run\n\n\ndef body(a):\n    return " + PRECISE + GO + "run(body, x)\n",
    }, {"pkg/__init__.py": ("pkg.launch", "pkg.plain")}, "kern.py"),
    ("a module's launch helpers: `run` stops launching (its imports and names stay)", {
        "pkg/__init__.py": "", "pkg/launch.py": LAUNCH,
        "pkg/kern.py": NUMERICS + "from pkg.launch import run\n\n\ndef body(x_ref, o_ref):\n"
                       "    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision='highest')" + GO + "run(body, x)\n",
    }, {"pkg/launch.py": ("return pl.pallas_call(body, out_shape=x)(x)", "return body(x)  # pl.pallas_call no more")},
        "kern.py"),
    ("kernel land: the kernel module that imported `user` stops (ops reads whether user is kernel code)", {
        "pkg/__init__.py": "", "pkg/ops.py": OPS_MM,
        "pkg/user.py": "from pkg import ops\n\n\ndef body(x_ref, o_ref):\n    o_ref[...] = ops.mm(x_ref[...])\n",
        "pkg/kern.py": PALLAS + "from pkg import user" + GO + "pl.pallas_call(user.body, out_shape=x)(x)\n",
    }, {"pkg/kern.py": ("from pkg import user", ""), "pkg/kern.py ": ("pl.pallas_call(user.body, out_shape=x)(x)", "x")},
        "ops.py"),
    ("kernel land: a module that starts saying pallas (no kernel module imports it)", {
        "pkg/__init__.py": "", "pkg/ops.py": OPS_MM,
        "pkg/tool.py": "from pkg import ops\n\n\ndef body(x_ref, o_ref):\n    o_ref[...] = ops.mm(x_ref[...])\n",
        "pkg/kern.py": PALLAS + GO + "x\n",
    }, {"pkg/tool.py": ("from pkg import ops\n", PALLAS + "from pkg import ops\n"),
        "pkg/tool.py ": ("[...])\n", "[...])" + GO + "pl.pallas_call(body, out_shape=x)(x)\n")}, "ops.py"),
    ("a search's answer: `kern` imports the package and starts saying `mm`", {
        "pkg/__init__.py": "", "pkg/ops.py": OPS_MM,
        "pkg/kern.py": PALLAS + "from pkg import ops\n\n\ndef body(x_ref, o_ref):\n    o_ref[...] = x_ref[...]"
                       + GO + "pl.pallas_call(body, out_shape=x)(x)\n",
    }, {"pkg/kern.py": ("= x_ref[...]\n", "= ops.mm(x_ref[...])\n")}, "ops.py"),
    ("a remembered use: `layers.body`'s, computed for layers' facts first and reused for ops' (it read kern)", {
        "pkg/__init__.py": "", "pkg/ops.py": OPS_MM,
        "pkg/layers.py": NUMERICS + "from pkg import ops\n\n\ndef body(x_ref, o_ref):\n"
                         "    o_ref[...] = ops.mm(x_ref[...]) + jnp.dot(x_ref[...], x_ref[...], precision='highest')\n",
        "pkg/kern.py": PALLAS + "from pkg import layers" + GO + "pl.pallas_call(layers.body, out_shape=x)(x)\n",
    }, {"pkg/kern.py": ("pl.pallas_call(layers.body, out_shape=x)(x)", "layers.body(x, x)")}, "ops.py"),
    ("a jax name a module re-exports: `compat.pl` stops being pallas (kern launches through it)", {
        "pkg/__init__.py": "", "pkg/compat.py": "from jax.experimental import pallas as _pallas\n\npl = _pallas\n",
        "pkg/ops.py": OPS_MM,
        "pkg/kern.py": "from pkg.compat import pl\nfrom pkg import ops\n\n\ndef body(x_ref, o_ref):\n"
                       "    o_ref[...] = ops.mm(x_ref[...])" + GO + "pl.pallas_call(body, out_shape=x)(x)\n",
    }, {"pkg/compat.py": ("pl = _pallas", "pl = None")}, "ops.py"),
    ("an unresolved launch: `util.body` may be what api launches (util's needy names come from the state)", {
        "pkg/__init__.py": "", "pkg/util.py": NUMERICS + "\n\ndef body(x_ref, o_ref):\n    o_ref[...] = "
                                              + PRECISE.replace("a, a", "x_ref[...], x_ref[...]") + "\n",
        "pkg/api.py": PALLAS + "from pkg import util" + GO + "pl.pallas_call(util.body, out_shape=x)(x)\n",
    }, {"pkg/api.py": ("pl.pallas_call(util.body,", "pl.pallas_call(getattr(util, 'bo' + 'dy'),")}, "util.py"),
]


@pytest.mark.parametrize("part, before, edit, module", EDITS_OF_ONE_PART, ids=[case[0].split(":")[0] for case in EDITS_OF_ONE_PART])
def test_an_edit_of_one_part_changes_the_facts_that_read_it(part: str, before: dict, edit: dict, module: str,
                                                            tmp_path: Path) -> None:
    """Warm facts equal cold ones for every module after the edit, and `module`'s did change: the
    edit reached it through that part alone. (A key with a trailing space: a second edit of a file.)"""
    after = dict(before)
    for name, (old, new) in edit.items():
        assert old in after[name.strip()], (part, old)
        after[name.strip()] = after[name.strip()].replace(old, new)
    paths = _write(tmp_path, before)
    index = ProjectIndex(paths, read_bytes)
    old_facts = _all_facts(index, paths)
    state = index.state()
    paths = _write(tmp_path, after)
    warm = ProjectIndex(paths, read_bytes)
    warm.restore(state)
    cold = _all_facts(ProjectIndex(paths, read_bytes), paths)
    assert _all_facts(warm, paths) == cold
    assert cold[module] != old_facts[module], "the edit should change this module's facts"


# A launch helper in one module, a kernel launched with it in another, calling a helper of a third.
LAUNCHED_THROUGH_A_HELPER = {
    "pkg/__init__.py": "",
    "pkg/launch.py": PALLAS + "\n\ndef run(body, x):\n    return pl.pallas_call(body, out_shape=x)(x)\n",
    "pkg/ops.py": NUMERICS + "\n\ndef mm(a):\n    return " + PRECISE + "\n",
    "pkg/kern.py": "from pkg.launch import run\nfrom pkg import ops\n\n\ndef body(x_ref, o_ref):\n"
                   "    o_ref[...] = ops.mm(x_ref[...])\n\n\ndef go(x):\n    return run(body, x)\n",
}


def test_kernel_land_built_again_does_not_parse_the_unchanged_launch_modules_again(tmp_path: Path, monkeypatch) -> None:
    """Their launch helpers were kept by value: only the changed module's code is parsed."""
    before = LAUNCHED_THROUGH_A_HELPER
    paths = _write(tmp_path, before)
    index = ProjectIndex(paths, read_bytes)
    _all_facts(index, paths)
    state = index.state()
    paths = _write(tmp_path, {**before, "pkg/kern.py": "import os\n" + before["pkg/kern.py"]})
    parsed: list[str] = []
    parse = base.ast.parse
    monkeypatch.setattr(base.ast, "parse", lambda source, *a, **k: parsed.append(source) or parse(source, *a, **k))
    built = []
    find = ProjectIndex._find_kernel_land
    monkeypatch.setattr(ProjectIndex, "_find_kernel_land", lambda self: built.append(1) or find(self))
    warm = ProjectIndex(paths, read_bytes)
    warm.restore(state)
    facts = _all_facts(warm, paths)
    assert built == [1]  # what it read changed (kern's imports): kernel land is built again
    assert facts["ops.py"].kernels and not [text for text in parsed if "pallas_call" in text and "def run" in text]


def test_a_comment_in_a_second_importer_of_a_launcher_keeps_kernel_land(tmp_path: Path, monkeypatch) -> None:
    """Kernel land asked whether any module imports `pkg.launch` (it stopped at the first, pkg.kern):
    pkg.tool importing it too, then edited, leaves that answer as it was, and kernel land is kept
    (it was built again on every edit of such a module: a touched-file run went from 0.47 to 0.89 s)."""
    before = {**LAUNCHED_THROUGH_A_HELPER, "pkg/tool.py": "from pkg import launch\n\n\ndef helper():\n    return launch\n"}
    built = []
    find = ProjectIndex._find_kernel_land
    monkeypatch.setattr(ProjectIndex, "_find_kernel_land", lambda self: built.append(1) or find(self))
    index, changed, _ = _warm(tmp_path, before, {**before, "pkg/tool.py": before["pkg/tool.py"] + "# tuned\n"})
    assert changed == {"pkg.tool"} and built == [1]  # the cold run's, not the warm one's
    assert _all_facts(index, sorted(tmp_path.rglob("*.py"))) == _all_facts(
        ProjectIndex(sorted(tmp_path.rglob("*.py")), read_bytes), sorted(tmp_path.rglob("*.py")))


CYCLE = {
    "pkg/__init__.py": "",
    "pkg/ops.py": "import jax.numpy as jnp\nfrom pkg import helpers\n\n\ndef mm(a, b):\n"
                  "    return jnp.dot(helpers.h(a), b, precision='highest')\n",
    "pkg/helpers.py": "import jax.numpy as jnp\nfrom pkg import ops\n\n\ndef h(a):\n"
                      "    return ops.mm(a, jnp.dot(a, a, precision='highest'))\n",
    "pkg/kern.py": PALLAS + "from pkg import helpers\n\n\ndef kern(x_ref, o_ref):\n    o_ref[...] = helpers.h(x_ref[...])\n\n\n"
                   "run = pl.pallas_call(kern, out_shape=None)\n",
    "pkg/plain.py": "from pkg import ops\n\n\ndef g(x):\n    return ops.mm(x, 1)\n",
}


@pytest.mark.parametrize("order", list(itertools.permutations(["ops.py", "helpers.py", "kern.py", "plain.py"])),
                         ids="-".join)
def test_facts_through_a_cycle_do_not_depend_on_which_module_is_asked_first(tmp_path: Path, order) -> None:
    """`ops.mm` and `helpers.h` call each other, a kernel calls `h`: both are kernel code (and plain
    code, through `plain.g`), whichever module is asked about first. Asked after `helpers`, `mm` was
    plain code: its usage was computed while `h`'s was in progress, and a run over ops.py alone (a
    pre-commit hook) differed from a run over the package."""
    paths = _write(tmp_path, CYCLE)
    index = ProjectIndex(paths, read_bytes)
    for name in order:
        index.facts(tmp_path / "pkg" / name)
    assert [entry[0] for entry in index.facts(tmp_path / "pkg/ops.py").kernels] == ["mm"]
    assert [entry[0] for entry in index.facts(tmp_path / "pkg/helpers.py").kernels] == ["h"]
    assert index.facts(tmp_path / "pkg/ops.py").shared == {"mm"}


# A kernel module's precision constant, a precision wrapper, and a module that reads one or calls the other.
_SHARED_AND_WRAPPED = {
    "sw/__init__.py": "",
    "sw/kernels.py": "import jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n\n"
                     "MIXED = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n\n\n"
                     "def body(x_ref, o_ref):\n    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=MIXED)\n\n\n"
                     "def matmul(x, precision=None):\n    def kernel(x_ref, o_ref):\n"
                     "        o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=precision)\n\n"
                     "    return pl.pallas_call(body, out_shape=x)(x) + pl.pallas_call(kernel, out_shape=x)(x)\n",
    "sw/reference.py": "import jax.numpy as jnp\n\nfrom sw.kernels import MIXED\n\n\n"
                       "def reference(x):\n    return jnp.dot(x, x, precision=MIXED)\n",
    "sw/model.py": "from jax import lax\n\nfrom sw import kernels\n\n\n"
                   "def forward(x):\n    return kernels.matmul(x, precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n",
}


@pytest.mark.parametrize("edited, edit", [
    ("sw/reference.py", lambda code: code.replace("precision=MIXED", "precision=None")),  # reads it no more
    ("sw/reference.py", lambda code: code + "\n\nOTHER = MIXED\n"),  # reads it once more
    ("sw/kernels.py", lambda code: code.replace("precision=precision)", "precision=None)")),  # no wrapper now
    ("sw/kernels.py", lambda code: code.replace("    return pl.pallas_call", "    jnp.dot(x, x, precision=precision)\n"
                                                "    return pl.pallas_call")),  # its plain code reads it too
    ("sw/kernels.py", lambda code: code + "# tuned\n"),
], ids=["reader-stops-reading", "reader-reads-it-twice", "no-wrapper-left", "wrapper-read-plainly-too", "a-comment"])
def test_a_warm_run_after_an_edit_gives_the_cold_facts_of_shared_constants_and_precision_wrappers(
        tmp_path: Path, edited: str, edit) -> None:
    """ModuleFacts.read_elsewhere and precision_wrappers are recomputed where an edit changes them
    (the reader's code, the wrapper's), and kept where it cannot: a warm run equals a cold one."""
    after = {**_SHARED_AND_WRAPPED, edited: edit(_SHARED_AND_WRAPPED[edited])}
    index, _, _ = _warm(tmp_path / "warm", _SHARED_AND_WRAPPED, after)
    cold_paths = _write(tmp_path / "cold", after)
    cold = ProjectIndex(cold_paths, read_bytes)
    for name in ("kernels", "reference", "model"):
        warm_facts = index.facts(tmp_path / "warm" / f"sw/{name}.py")
        assert warm_facts == cold.facts(tmp_path / "cold" / f"sw/{name}.py"), name
    before = ProjectIndex(_write(tmp_path / "before", _SHARED_AND_WRAPPED), read_bytes)
    assert before.facts(tmp_path / "before/sw/kernels.py").read_elsewhere == (("MIXED", ("sw.reference",)),)
    assert [name for name, *_ in before.facts(tmp_path / "before/sw/model.py").precision_wrappers] == \
        ["sw.kernels.matmul"]


def test_a_link_hashes_the_summaries_it_read_only_when_its_state_is_kept(tmp_path: Path) -> None:
    """The key a link's answers are kept by hashes every summary it read (0.5 s of a cold run on the
    trees): a run that keeps no state (`--no-cache`) never reads it, so the link leaves it to
    `state`, which gives the key the link would have worked out, and restored, the answers."""
    from codemods import registry

    follows = {name: place for rule in registry.RULES if rule.kernel_scoped for name, place in rule.follows.items()}
    paths = _write(tmp_path, {**_project(random.Random(0)), **CROSSING})
    index = ProjectIndex(paths, read_bytes)
    index.link_flow(follows)
    assert index.flow and not any(module.summary_hash for module in index._modules.values())
    key = index.state().flow[0]
    assert key == index._flow_key_of(index.flow_modules, follows)
    warm = ProjectIndex(paths, read_bytes)
    warm.restore(index.state())
    warm.link_flow(follows)
    assert warm.flow == index.flow and warm._flow_key == key
