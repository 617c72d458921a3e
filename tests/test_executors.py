"""`--executor dask://HOST:PORT` (codemods/engine/executors.py): the same results as local processes.

A local Dask cluster of 2 worker processes (the `dask` extra; the tests that need it skip, saying so,
where `distributed` is not installed) runs the rules of the golden project trees and of a generated
project large enough for the local run to summarise it in its workers: every result is the local
executor's, field for field, and the driver analysed none of the files (and made none of the
generated project's summaries). Without the extra, or with no scheduler at the address, the run
stops with exit 2 before anything is written.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

import pytest
from typer.testing import CliRunner

from codemods import cli, extras, registry
from codemods.analysis import project as project_index
from codemods.engine import executors, runner
from codemods.engine.cache import ResultCache, content_hash
from codemods.engine.discovery import discover
from codemods.settings import Settings
from tests.test_cli import needs_git
from tests.test_split_patches import make_monorepo

try:
    import distributed
except ImportError:
    distributed = None
needs_dask = pytest.mark.skipif(distributed is None, reason="the dask extra is not installed "
                                "(pip install -e '.[dask]'; `make test` installs it)")

PACKAGES = Path(__file__).parent / "fixtures" / "packages"
SETTINGS = Settings((0, 12, 0, 1), unsafe_fixes=True)
KERNEL = ("import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n\n\n"
          "def body_{i}(x_ref, w_ref, o_ref):\n    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], "
          "precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n\n\n"
          "run_{i} = pl.pallas_call(body_{i}, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))\n")


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of a local Dask cluster, as --executor takes it: a scheduler and 2 worker
    processes (behind their nanny), started as on a real cluster, by Dask's commands. Not in this
    process: a scheduler's threads here would be forked into the local runs' workers."""
    address = tmp_path_factory.mktemp("dask") / "scheduler.json"
    started = [subprocess.Popen([sys.executable, "-m", f"distributed.cli.dask_{command}", *args], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
               for command, args in (("scheduler", ["--port", "0", "--no-dashboard", "--scheduler-file", str(address)]),
                                     ("worker", ["--nworkers", "2", "--nthreads", "1", "--no-dashboard",
                                                 "--scheduler-file", str(address)]))]
    try:
        with distributed.Client(scheduler_file=str(address), timeout=60, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=60)  # then closed: its thread would be forked too
        yield "dask://" + json.loads(address.read_text())["address"].removeprefix("tcp://")
    finally:
        for process in reversed(started):
            process.terminate()
            process.wait(timeout=60)


class _Changed(NamedTuple):
    client: "distributed.Client"
    workers: list[str]  # the addresses of those changed


@contextmanager
def _changed_workers(scheduler: str, change: Callable, on: object, off: object,
                     first_only: bool = False) -> Iterator[_Changed]:
    """A client of the cluster, while `change(on)` holds in its workers (`first_only`: in one of
    them), and `change(off)` in every one after. The workers run this module's functions by value:
    they cannot import the tests."""
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    client = distributed.Client(scheduler.replace("dask://", "tcp://"), set_as_default=False)
    try:
        workers = sorted(client.scheduler_info()["workers"])[:1 if first_only else None]
        client.run(change, on, workers=workers)
        yield _Changed(client, workers)
    finally:
        client.run(change, off)
        client.close()
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def _generated(root: Path) -> Path:
    """A project of SUMMARY_MIN_MODULES plain modules and 4 kernel modules in two packages: a run
    with 2 jobs summarises it in its workers (the local pool's, or the cluster's)."""
    for package in ("pkg", "other"):
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text("")
    for i in range(runner.SUMMARY_MIN_MODULES):
        (root / ("pkg" if i % 2 else "other") / f"plain_{i}.py").write_text(
            f"import jax\n\n\ndef f_{i}(x):\n    return x + {i}\n")
    for i in range(4):
        (root / ("pkg" if i % 2 else "other") / f"kernel_{i}.py").write_text(KERNEL.format(i=i))
    return root


TREES = [pytest.param(lambda tmp, case=case: shutil.copytree(case / "in", tmp / case.name), id=case.name)
         for case in sorted(PACKAGES.iterdir()) if (case / "in").is_dir()] \
    + [pytest.param(lambda tmp: _generated(tmp / "generated"), id="generated")]


@needs_dask
@pytest.mark.parametrize("tree", TREES)
def test_a_dask_cluster_gives_the_local_executors_results(tree, scheduler: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Findings, diffs (new bytes) and errors of every file equal the local run's, and the files were
    analysed on the cluster: the driver's own analysis is made to fail."""
    root = tree(tmp_path)
    files, project = discover([root]), discover([root])
    local = runner.run(files, registry.RULES, SETTINGS, jobs=2, project=project)
    assert any(result.findings for result in local) and any(result.new_source for result in local)

    def not_here(item):
        raise AssertionError(f"{item[0]} analysed on the driver")

    monkeypatch.setattr(runner, "_process_candidate", not_here)
    on_cluster = runner.run(files, registry.RULES, replace(SETTINGS, executor=scheduler), jobs=2, project=project)
    assert on_cluster == local


@needs_dask
@pytest.mark.parametrize("linked", [True, False], ids=["rules-that-follow-values", "none-that-does"])
def test_the_map_stage_is_made_on_the_cluster(linked: bool, scheduler: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The project index's map stage over a project large enough for the local run to summarise it
    in its workers (each module's parts, its byte prefilter, its whole-program summary) is made by
    the cluster's workers (Dask's record of its tasks), none of it on the driver, which tests no
    file's bytes against the rules (but those of a file other modules' kernels call, with that:
    the workers test each module as if it held none) and makes no summary; the results are the
    local run's, with the rules that follow values across modules and without them (JAX004-JAX008:
    nothing is linked)."""
    root = _generated(tmp_path / "generated")
    files = discover([root])
    rules = registry.RULES if linked else [rule for rule in registry.RULES if rule.kernel_scoped and not rule.follows]
    local = runner.run(files, rules, SETTINGS, jobs=2)
    on_driver: list[str] = []
    summarise_tree = project_index.flow.summarise_tree
    monkeypatch.setattr(project_index.flow, "summarise_tree",
                        lambda tree, name, *args: on_driver.append(name) or summarise_tree(tree, name, *args))
    rules_for, rules_for_file = runner.rules_for, runner._rules_for_file

    def tested(code: bytes, *args) -> list:
        if sys._getframe(1).f_code.co_name != "_rules_for_file":
            on_driver.append(code)
        return rules_for(code, *args)

    def file_tested(path: Path, seen, transforms, settings, facts, *args) -> list:
        if not facts.holds_kernels:
            on_driver.append(str(path))
        return rules_for_file(path, seen, transforms, settings, facts, *args)

    monkeypatch.setattr(runner, "rules_for", tested)
    monkeypatch.setattr(runner, "_rules_for_file", file_tested)
    link = project_index.flow.link
    monkeypatch.setattr(project_index.flow, "link", lambda *args: on_driver.append("the link") or link(*args))
    with distributed.Client(scheduler.replace("dask://", "tcp://"), set_as_default=False) as client:
        with distributed.get_task_stream(client) as tasks:
            on_cluster = runner.run(files, rules, replace(SETTINGS, executor=scheduler), jobs=2)
    assert on_cluster == local
    assert on_driver == []
    ran = Counter(task["key"].rsplit("-", 1)[0] for task in tasks.data)
    assert ran["_summary"] >= 2, ran
    if linked:
        assert ran["_linked_summary"] >= 2 and ran["_link_on_cluster"] == 1 and ran["_process_shared"] >= 1, ran


@needs_dask
def test_the_workers_reuse_what_they_made(scheduler: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a worker made in the map stage is used where it is: the link, on one worker, is handed
    the summaries the other made (no module is summarised twice on the cluster); each module's facts
    are worked out in the workers, on their parses (none on the driver); and each file's rules go
    to the worker that parsed it for the map stage, which analyses it on that parse (none parsed
    again). The results are the local run's."""
    root = _generated(tmp_path / "generated")
    files = discover([root])
    local = runner.run(files, registry.RULES, SETTINGS, jobs=2)
    facts_on_driver: list[str] = []
    searched = project_index.facts.FactsSearch._fact_through_cycles
    monkeypatch.setattr(project_index.facts.FactsSearch, "_fact_through_cycles",
                        lambda index, module: facts_on_driver.append(module.name) or searched(index, module))
    with _changed_workers(scheduler, _counting_work, True, False) as counting:
        on_cluster = runner.run(files, registry.RULES, replace(SETTINGS, executor=scheduler), jobs=2)
        summaries, parses = zip(*counting.client.run(_work_done).values())
    assert on_cluster == local
    assert facts_on_driver == []
    made = Counter(name for names in summaries for name in names)
    assert len(made) > runner.SUMMARY_MIN_MODULES and max(made.values()) == 1, made.most_common(3)
    assert sum(parses) == 0, parses


@needs_dask
def test_the_link_goes_to_the_cluster_as_soon_as_its_summaries_are_in(
        scheduler: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The link's task is handed to the cluster once the linked modules are summarised, before the
    maps of the other modules' needy names and who says each: one worker links while the other
    works those out (the link is the run's serial part). The results are the local run's."""
    root = _generated(tmp_path / "generated")
    files = discover([root])
    local = runner.run(files, registry.RULES, SETTINGS, jobs=2)
    handed: list[str] = []
    map_, task = executors.DaskExecutor.map, executors.DaskExecutor.task
    monkeypatch.setattr(executors.DaskExecutor, "map", lambda pool, function, *args, **kwargs: handed.append(
        function.__name__) or map_(pool, function, *args, **kwargs))
    monkeypatch.setattr(executors.DaskExecutor, "task", lambda pool, function, *args, **kwargs: handed.append(
        function.__name__) or task(pool, function, *args, **kwargs))
    on_cluster = runner.run(files, registry.RULES, replace(SETTINGS, executor=scheduler), jobs=2)
    assert on_cluster == local
    summary = [name for name in handed if name in ("_linked_summary", "_link_on_cluster", "_needy_summary", "_names_said")]
    assert summary == ["_linked_summary", "_link_on_cluster", "_needy_summary", "_names_said"], handed


def _counting_work(counting: bool) -> None:
    """In a worker: each whole-program summary made, and each parse a file's rules make, counted from
    now (or, `counting` false, no longer)."""
    from codemods.engine import runner

    _counting_summaries(counting)
    parse = getattr(runner, "_real_parse", runner._parse)
    runner._real_parse, runner._parses = parse, []
    runner._parse = (lambda text, *args: runner._parses.append(1) or parse(text, *args)) if counting else parse


def _work_done() -> tuple[list[str], int]:
    from codemods.analysis.project import flow
    from codemods.engine import runner

    return flow._summaries_made, len(runner._parses)


@needs_dask
def test_a_chunk_is_named_by_its_content_the_project_and_the_tool(tmp_path: Path) -> None:
    """The same modules, project (its files, the hashes of their bytes, rules and settings) and
    tool give the same name, in another driver process too (so that Dask computes them once);
    another project or another tool, another name."""
    files, hashes = (str(tmp_path / "a.py"),), (content_hash(b"x = 1\n"),)

    def named(hashes: tuple[bytes, ...], tool: str = "tool") -> str:
        project = runner._ClusterProject(files, hashes, str(tmp_path), registry.RULES, SETTINGS, None)
        return executors._named(project_index.workers._summary, ["a"], tool + project.key)

    in_another_process = subprocess.run(
        [sys.executable, "-c", "from pathlib import Path; from codemods import registry; "
         "from codemods.analysis import project; from codemods.engine import executors, runner; "
         "from tests.test_executors import SETTINGS; "
         f"project_ = runner._ClusterProject({files!r}, {hashes!r}, {str(tmp_path)!r}, registry.RULES, SETTINGS, None); "
         "print(executors._named(project.workers._summary, ['a'], 'tool' + project_.key))"],
        capture_output=True, text=True, check=True, cwd=Path(__file__).parents[1]).stdout.strip()
    assert named(hashes).startswith("_summary-") and in_another_process == named(hashes)
    assert named((content_hash(b"x = 2\n"),)) != named(hashes)
    assert named(hashes, "another tool") != named(hashes)


@needs_dask
def test_a_module_a_worker_reads_otherwise_leaves_the_rest_of_the_map_stage_to_the_driver(
        scheduler: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that reads other bytes of a module than the driver read (the file changed meanwhile)
    stops the map stage on the cluster: the driver works out what is left from its own bytes, as a
    run of one job does, and every result is still the local run's."""
    root = _generated(tmp_path / "generated")
    files = discover([root])
    local = runner.run(files, registry.RULES, SETTINGS, jobs=2)
    changed = (root / "other" / "kernel_0.py").read_bytes()
    real_hash = runner.content_hash
    monkeypatch.setattr(runner, "content_hash", lambda raw: b"not what the worker reads" if raw == changed
                        else real_hash(raw))
    on_driver: list[str] = []
    summarise_tree = project_index.flow.summarise_tree
    monkeypatch.setattr(project_index.flow, "summarise_tree",
                        lambda tree, name, *args: on_driver.append(name) or summarise_tree(tree, name, *args))
    assert runner.run(files, registry.RULES, replace(SETTINGS, executor=scheduler), jobs=2) == local
    assert "other.kernel_0" in on_driver


@needs_dask
def test_a_second_run_takes_the_summaries_from_the_shared_cache(scheduler: str, tmp_path: Path) -> None:
    """The workers keep the whole-program summaries they make in the cache directory (here every
    node's: one machine), by the hash of each module's bytes: a second run whose project state
    does not serve (other rules: another state) makes none, counted in the workers, and gives the
    local run's results."""
    root = _generated(tmp_path / "generated")
    files = discover([root])
    fewer = [rule for rule in registry.RULES if rule.code != "JAX008"]
    local = runner.run(files, fewer, SETTINGS, jobs=2)
    with _changed_workers(scheduler, _counting_summaries, True, False) as counting:
        made = []
        for rules in (registry.RULES, fewer):
            settings = replace(SETTINGS, executor=scheduler)
            on_cluster = runner.run(files, rules, settings, jobs=2, cache=ResultCache(tmp_path / "cache", settings))
            made.append(sum(counting.client.run(_summaries_made).values()))
    assert on_cluster == local
    assert made[0] >= 2 and made[1] == made[0], made
    assert len(list((tmp_path / "cache").rglob("*.summary"))) >= made[0]  # (`jax-codemod clean` removes them)


def _counting_summaries(counting: bool) -> None:
    """In a worker: each whole-program summary made is counted from now (or, `counting` false, no longer)."""
    from codemods.analysis.project import flow

    made = getattr(flow, "_real_summarise_tree", flow.summarise_tree)
    flow._real_summarise_tree, flow._summaries_made = made, []
    flow.summarise_tree = (lambda tree, name, *args: flow._summaries_made.append(name) or made(tree, name, *args)) \
        if counting else made


def _summaries_made() -> int:
    from codemods.analysis.project import flow

    return len(flow._summaries_made)


@needs_dask
@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")  # (a map's cleanup after the client)
def test_the_files_the_link_does_not_read_are_analysed_while_it_runs(scheduler: str, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules of the files the link can answer nothing for (by their import lines: a package it
    neither starts from nor reads; here, old jax spellings for the JAX1xx rules) are handed to the
    workers before the driver waits for the link's answers, as the local pool's are (on the trees,
    the other worker idled while the link ran on one: docs/executors.md); the results are the
    local run's."""
    root = _generated(tmp_path / "generated")
    (root / "apart").mkdir()
    (root / "apart" / "__init__.py").write_text("")
    for i in range(4):
        (root / "apart" / f"dense_{i}.py").write_text(
            f"from jax.experimental.pjit import with_sharding_constraint\n\n\ndef dense_{i}(x, spec):\n"
            "    return with_sharding_constraint(x, spec)\n")
    files = discover([root])
    local = runner.run(files, registry.RULES, SETTINGS, jobs=2)
    order: list[str] = []
    submit, answer = executors.DaskExecutor._submit, runner._LinkOnCluster.result
    monkeypatch.setattr(executors.DaskExecutor, "_submit",
                        lambda pool, function, *args: order.append(function.__name__) or submit(pool, function, *args))
    monkeypatch.setattr(runner._LinkOnCluster, "result",
                        lambda link: order.append("the link's answers") or answer(link))
    on_cluster = runner.run(files, registry.RULES, replace(SETTINGS, executor=scheduler), jobs=2)
    assert on_cluster == local
    assert "_process_shared" in order[:order.index("the link's answers")], order
    assert any(result.findings for result in on_cluster if "apart" in result.path)  # (JAX131: a file the rules read)


@needs_dask
def test_a_chunk_sets_off_no_collection_in_its_worker(scheduler: str, tmp_path: Path) -> None:
    """A worker builds its index of the run with the cyclic collector paused, as a local run builds
    its own (on the trees, the collections the chunks set off rescanned the index the worker keeps:
    a sixth of its CPU): no collection runs by itself while a chunk runs (those the chunk asks for,
    of its young cycles after it, are not counted), and what the chunks keep is frozen. The results
    are the local run's."""
    root = _generated(tmp_path / "generated")
    files = discover([root])
    local = runner.run(files, registry.RULES, SETTINGS, jobs=2)
    with _changed_workers(scheduler, _counting_collections, True, False) as counting:
        on_cluster = runner.run(files, registry.RULES, replace(SETTINGS, executor=scheduler), jobs=2)
        seen = counting.client.run(_collections_seen)
    assert on_cluster == local
    assert sum(chunks for chunks, _, _ in seen.values()) >= 2, seen
    assert all(automatic == 0 and frozen > 0 for _, automatic, frozen in seen.values()), seen


def _counting_collections(counting: bool) -> None:
    """In a worker: from now (or, `counting` false, no longer), the chunks run, and the collections
    that start by themselves (the collector enabled) in a thread while it runs a chunk."""
    import gc
    import threading

    from codemods.engine import executors

    each = getattr(executors, "_real_each", executors._each)
    executors._real_each, executors._seen = each, [0, 0]
    chunk = threading.local()

    def counted(*args):
        executors._seen[0] += 1
        chunk.running = True
        try:
            return each(*args)
        finally:
            chunk.running = False

    def collection(phase: str, info: dict) -> None:
        # (inside the pause: a chunk's few allocations before and after it, its imports and its result,
        # may set one off; the fresh clone's make test saw one such in 115 chunks)
        if phase == "start" and getattr(chunk, "running", False) and executors._RUNNING and gc.isenabled():
            executors._seen[1] += 1

    gc.callbacks[:] = [callback for callback in gc.callbacks if getattr(callback, "__name__", "") != "collection"]
    if counting:
        gc.callbacks.append(collection)
    executors._each = counted if counting else each


def _collections_seen() -> tuple[int, int, int]:
    """The chunks run and the collections set off in them (see `_counting_collections`), and the
    objects frozen."""
    import gc

    from codemods.engine import executors

    return executors._seen[0], executors._seen[1], gc.get_freeze_count()


@needs_dask
def test_a_file_the_worker_reads_otherwise_is_analysed_on_the_driver(scheduler: str, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that reads other bytes than the driver read (the file changed meanwhile) answers
    nothing: the driver analyses its own bytes, as a local run does."""
    (tmp_path / "kernel.py").write_text(KERNEL.format(i=0))
    files = discover([tmp_path])
    local = runner.run(files, registry.RULES, SETTINGS, jobs=1)
    monkeypatch.setattr(runner, "content_hash", lambda raw: b"not what the worker reads")
    assert runner.run(files, registry.RULES, replace(SETTINGS, executor=scheduler), jobs=1) == local


def _fix(tmp_path: Path, *args: str):
    (tmp_path / "kernel.py").write_text(KERNEL.format(i=0))
    return CliRunner().invoke(cli.app, ["--jax-version", "0.12.0.1", "--no-cache", "--write", *args,
                                        str(tmp_path / "kernel.py")], catch_exceptions=False)


@needs_dask
def test_no_scheduler_at_the_address_exits_2_and_writes_nothing(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(executors, "CONNECT_TIMEOUT_S", 1)
    with socket.socket() as unused:  # a port nobody listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    result = _fix(tmp_path, "--executor", f"dask://127.0.0.1:{port}")
    assert result.exit_code == 2
    assert f"--executor dask://127.0.0.1:{port}: no Dask scheduler answers there" in result.output
    assert (tmp_path / "kernel.py").read_text() == KERNEL.format(i=0)


def test_without_the_extra_the_run_says_what_to_install_and_writes_nothing(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # its import fails, as where it is not installed
    result = _fix(tmp_path, "--executor", "dask://127.0.0.1:8786")
    assert result.exit_code == 2
    assert f"{extras.install_command('dask')}" in result.output
    assert (tmp_path / "kernel.py").read_text() == KERNEL.format(i=0)


@pytest.mark.parametrize("spec, why", [("ray://head:10001", "Ray was measured and not chosen"),
                                       ("spark://x:1", "expected `local` or `dask://HOST:PORT`"),
                                       ("dask://", "expected `local` or `dask://HOST:PORT`")])
def test_an_executor_the_tool_lacks_is_a_usage_error(spec: str, why: str, tmp_path: Path) -> None:
    result = _fix(tmp_path, "--executor", spec)
    assert result.exit_code == 2 and why in result.output
    assert (tmp_path / "kernel.py").read_text() == KERNEL.format(i=0)


@needs_dask
@pytest.mark.parametrize("joined", ["before the run", "during the run"])
def test_a_worker_with_another_tool_version_is_refused(joined: str, scheduler: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A node running another jax-codemod (its fingerprint: the cache's) could give other findings:
    refused when the run connects, and one that joined after (the check at connect not seeing it)
    by the first answer it gives, which carries its fingerprint."""
    if joined == "during the run":
        monkeypatch.setattr(executors.DaskExecutor, "_refuse_other_versions", lambda executor: None)
    with _changed_workers(scheduler, _pretend_another_version, True, False,
                          first_only=joined == "before the run") as changed:
        result = _fix(tmp_path, "--executor", scheduler)
    assert result.exit_code == 2
    assert any(f"the workers {worker} run another jax-codemod" in result.output for worker in changed.workers), \
        result.output
    assert (tmp_path / "kernel.py").read_text() == KERNEL.format(i=0)


def _pretend_another_version(other: bool = True) -> None:
    """In a worker: its tool fingerprint another's (or its own again)."""
    from codemods.engine import cache

    real = getattr(cache, "_real_fingerprint", cache.tool_fingerprint)
    cache._real_fingerprint = real
    cache.tool_fingerprint = (lambda: "another version") if other else real


@needs_dask
def test_a_worker_killed_mid_run_changes_nothing(scheduler: str, tmp_path: Path) -> None:
    """Dask's own API restarts (kills) a worker while it analyses a chunk: the scheduler gives the
    chunk to a worker again, and every result is still the local executor's."""
    for i in range(8):
        (tmp_path / f"kernel_{i}.py").write_text(KERNEL.format(i=i))
    files = discover([tmp_path])
    local = runner.run(files, registry.RULES, SETTINGS, jobs=1)
    # a file takes half a second: a worker is killed in the middle of a chunk
    with _changed_workers(scheduler, _slowly, 0.5, 0) as slow:
        client = slow.client
        on_cluster: list = []
        run = threading.Thread(target=lambda: on_cluster.append(
            runner.run(files, registry.RULES, replace(SETTINGS, executor=scheduler), jobs=1)))
        run.start()
        deadline = time.monotonic() + 60
        while not any(client.processing().values()) and time.monotonic() < deadline:
            time.sleep(0.01)
        busy = next(worker for worker, tasks in client.processing().items() if tasks)
        assert run.is_alive()
        client.restart_workers([busy])  # a chunk (2 files) takes a second, the kill a few milliseconds
        run.join(timeout=120)
    assert on_cluster == [local]


def _slowly(seconds: float) -> None:
    """In a worker: each file's analysis waits `seconds` first (0: as it was)."""
    from codemods.engine import runner

    analyse = getattr(runner, "_real_process_source", runner.process_source)
    runner._real_process_source = analyse
    runner.process_source = (lambda *args, **kwargs: time.sleep(seconds) or analyse(*args, **kwargs)) if seconds \
        else analyse


@needs_dask
def test_workers_that_cannot_read_the_files_stop_the_run(scheduler: str, tmp_path: Path) -> None:
    """Nodes that do not share the checkout at the driver's paths: exit 2 naming the file, nothing
    written (not every file analysed on the driver, silently)."""
    with _changed_workers(scheduler, _unreadable, True, False):
        result = _fix(tmp_path, "--executor", scheduler)
    assert result.exit_code == 2
    assert f"a worker cannot read {tmp_path / 'kernel.py'} (No such file or directory)" in result.output
    assert (tmp_path / "kernel.py").read_text() == KERNEL.format(i=0)


def _unreadable(unreadable: bool) -> None:
    """In a worker: no file can be read (as on a node without the checkout), or they can again."""
    from codemods.engine import runner

    read = getattr(runner, "_real_read_file", runner._read_file)
    runner._real_read_file = read
    runner._read_file = _no_such_file if unreadable else read


def _no_such_file(path: str) -> bytes:
    raise FileNotFoundError(2, "No such file or directory", path)


def _owned(root: Path) -> Path:
    """The generated project with a CODEOWNERS file: a default owner, a team's folder, a file of two
    owners (the last matching line wins), an un-owned file."""
    _generated(root)
    (root / ".github").mkdir()
    (root / ".github" / "CODEOWNERS").write_text("*  @org/infra\n/pkg/  @org/pkg\n"
                                                 "other/kernel_2.py  @alice bob@example.com\n/pkg/kernel_3.py\n")
    return root


@needs_dask
@pytest.mark.parametrize("make, split_by, patches", [
    (_generated, "directory:1", ["other.patch", "pkg.patch"]),
    (_owned, "codeowners", ["alice_bob-example.com.patch", "org-infra.patch", "org-pkg.patch", "unowned.patch"]),
    pytest.param(make_monorepo, "codeowners", ["bob-example.com.patch", "org-infra_alice.patch", "org-ml.patch",
                                               "org-services.patch", "unowned.patch"], marks=needs_git),
], ids=["per-folder", "per-owner", "per-owner-monorepo"])
def test_the_split_patches_are_the_local_runs(make: Callable[[Path], Path], split_by: str, patches: list[str],
                                              scheduler: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--split-by directory:1|codeowners --write-patches`: the same patches and SUMMARY.md, byte for
    byte (the per-owner ones also on test_split_patches.py's monorepo: a notebook, a CRLF file, a
    file no fix changes, the JAX1xx rules)."""
    monkeypatch.chdir(make(tmp_path / "tree"))
    written = {}
    for executor in ("local", scheduler):
        out = tmp_path / executor.replace("/", "_")
        result = CliRunner().invoke(cli.app, ["--jax-version", "0.12.0.1", "--no-cache", "-j", "2", "--unsafe-fixes",
                                              "--executor", executor, "--split-by", split_by, "--write-patches",
                                              str(out), "."], catch_exceptions=False)
        assert result.exit_code == 1, result.output
        written[executor] = {path.name: path.read_bytes() for path in out.iterdir()}
    assert sorted(written["local"]) == ["SUMMARY.md", *patches]
    assert written[scheduler] == written["local"]
