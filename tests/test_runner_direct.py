"""The engine's run loop (codemods/engine/runner.py), tested directly: what a run reports for each
file, in order, and what it remembers between runs. Written for the survivors of its mutation run
(docs/testing.md, "Per module: engine/runner.py").

Nothing here imports jax.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import replace
from pathlib import Path

import pytest

from codemods import registry
from codemods.analysis.kernel_scope import NO_LAUNCH_FOUND
from codemods.analysis.project import ProjectIndex
from codemods.engine import runner
from codemods.engine.cache import ResultCache
from codemods.engine.diagnostics import Applicability, Finding, Fix, Kind
from codemods.engine.fixes import Edit, FixPlan
from codemods.engine.rule import Rule
from codemods.settings import Settings

SETTINGS = Settings((0, 12, 0, 1))
KERNEL = b'''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=("default", "highest"))


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
'''


def _age(path: Path, seconds: int = 60) -> None:
    status = path.stat()
    os.utime(path, ns=(status.st_atime_ns - seconds * 10**9, status.st_mtime_ns - seconds * 10**9))


def _findings(result) -> list:
    return [(f.code, f.line, f.column, f.message) for f in result.findings]


def test_an_unchanged_size_and_mtime_answers_from_what_the_last_run_learnt_of_the_file(tmp_path: Path) -> None:
    """Trusting mtimes (the default), a file whose size and mtime are those the last run saw is not
    read again: its rules are those the last run chose, and its result that run's, even when its
    bytes were swapped for others of the same size (here: bytes no rule would even look at)."""
    kernel = tmp_path / "kernel.py"
    kernel.write_bytes(KERNEL)
    _age(kernel)
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    first = runner.run([kernel], registry.RULES, SETTINGS, 1, cache)
    assert _findings(first[0])
    status = kernel.stat()
    kernel.write_bytes(b"#" * len(KERNEL))
    os.utime(kernel, ns=(status.st_atime_ns, status.st_mtime_ns))
    for record in (tmp_path / "cache").rglob("*.run"):  # not the whole-run replay: the file's own memo
        record.unlink()
    again = runner.run([kernel], registry.RULES, SETTINGS, 1, cache)
    assert _findings(again[0]) == _findings(first[0])
    # Without the cache the new bytes are what is read: nothing to say.
    assert runner.run([kernel], registry.RULES, SETTINGS, 1, None)[0].findings == []


def test_an_unreadable_notebook_is_reported_and_the_files_after_it_are_still_processed(tmp_path: Path) -> None:
    (tmp_path / "a_broken.ipynb").write_bytes(b'{"cells": [\n')
    (tmp_path / "b_kernel.py").write_bytes(KERNEL)
    results = {Path(r.path).name: r for r in runner.run([tmp_path], registry.RULES, SETTINGS, 1)}
    assert sorted(results) == ["a_broken.ipynb", "b_kernel.py"]
    assert results["a_broken.ipynb"].error.startswith("cannot read notebook: not valid JSON")
    assert results["b_kernel.py"].error is None and results["b_kernel.py"].new_source is not None


def test_a_socket_or_a_folder_where_a_file_was_found_is_skipped_and_says_what_it_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`discovered=True`: the paths are the CLI's walk; by the time the run gets to them, one is a
    socket and another a folder (replaced meanwhile). Neither is opened; each says what it is."""
    monkeypatch.chdir(tmp_path)  # a short name: a socket's path has a length limit
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind("sock.py")
        (tmp_path / "folder.py").mkdir()
        (tmp_path / "kernel.py").write_bytes(KERNEL)
        results = runner.run([Path("sock.py"), Path("folder.py"), Path("kernel.py")], registry.RULES, SETTINGS, 1,
                             discovered=True)
    finally:
        server.close()
    assert [(r.path, r.skipped, r.error) for r in results[:2]] == [
        ("sock.py", "a socket, not read", None), ("folder.py", "not a regular file, not read", None)]
    assert results[2].new_source is not None


def _rule(code: str, check, *, reviews_suppressions: bool = False) -> Rule:
    return Rule(code=code, name=f"stub-{code.lower()}", summary="", what="", why="", example="", words=(b"",),
                kernel_scoped=False, check=check, reviews_suppressions=reviews_suppressions)


def _boom(rule: Rule, file) -> list:
    raise RuntimeError("boom")


@pytest.mark.parametrize("reviews_suppressions", [False, True], ids=["checking", "reviewing-suppressions"])
def test_a_rule_that_fails_is_an_internal_error_of_that_rule(tmp_path: Path, reviews_suppressions: bool) -> None:
    """A rule that raises (one that checks the code, or one that reviews the suppression comments,
    run after the others) is reported by its code, with the exception, and the file's findings are
    dropped (nothing half-done is written)."""
    found = Finding("JAX002", Kind.MANUAL, 1, 1, "a note")
    rules = [_rule("JAX002", lambda rule, file: [found]), _rule("JAX100", _boom, reviews_suppressions=reviews_suppressions)]
    result = runner.process_source(tmp_path / "m.py", b"x = 1\n", rules, SETTINGS)
    assert (result.error, result.findings, result.new_source) == (
        "internal error in JAX100: RuntimeError: boom", [], None)


def _fixing(text: str, start: int = 0, end: int = 0):
    """A JAX002 check whose one finding's fix replaces [start, end) of the module with `text`."""
    def check(rule: Rule, file) -> list:
        plan = FixPlan([Edit(start, end, lambda old: text)])
        return [Finding("JAX002", Kind.FIXED, 1, 1, "stub fix", fix=Fix(Applicability.SAFE, plan=plan))]
    return check


def test_a_fix_a_notebook_cannot_hold_is_an_internal_error_and_nothing_is_written() -> None:
    """A fix that lands in a code cell stored without `source` cannot be written back into the
    notebook: the file is reported, left unchanged, and its findings dropped."""
    raw = (b'{"cells": [{"cell_type": "code"}, {"cell_type": "code", "source": "x = 1\\n"}], '
           b'"metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    result = runner.process_source(Path("nb.ipynb"), raw, [_rule("JAX002", _fixing("import os\n"))], SETTINGS)
    assert (result.error, result.findings, result.new_source) == (
        "internal error: cell 1 has no `source` to write; left unchanged", [], None)


def test_process_source_applies_the_prefilter_unless_told_the_rules_passed_it(tmp_path: Path) -> None:
    """Called alone (the editor, `explain`), process_source runs only the rules whose words the
    file holds; the runner, which has already chosen them, says `prefiltered`."""
    note = Finding("JAX002", Kind.MANUAL, 1, 1, "a note")
    rule = replace(_rule("JAX002", lambda rule, file: [note]), words=(b"needle_word",))
    alone = runner.process_source(tmp_path / "m.py", b"x = 1\n", [rule], SETTINGS)
    chosen = runner.process_source(tmp_path / "m.py", b"x = 1\n", [rule], SETTINGS, prefiltered=True)
    assert (alone.parsed, alone.findings) == (False, [])
    assert (chosen.parsed, chosen.findings) == (True, [note])


def test_a_file_over_the_size_limit_says_its_size_and_the_limit_in_mib(tmp_path: Path) -> None:
    raw = b"x = 1\n" + b"#" * (17 * 2**20)
    result = runner.process_source(tmp_path / "big.py", raw, [_rule("JAX002", _boom)], SETTINGS, prefiltered=True)
    assert (result.skipped, result.error, result.parsed) == (
        "17 MiB: larger than 16 MiB, taken for generated code; not analysed", None, False)


def test_review_is_shown_each_result_and_its_answer_decides_which_fixes_are_applied(tmp_path: Path) -> None:
    """`--interactive`: the review sees the file's result (its findings with their fixes) and answers
    which to apply; the file is then fixed again with that answer: here none, so nothing changes,
    and the findings stay, each said not applied."""
    kernel = tmp_path / "kernel.py"
    kernel.write_bytes(KERNEL)
    plain = runner.run([kernel], registry.RULES, SETTINGS, 1)[0]
    assert plain.new_source is not None and any(f.applied for f in plain.findings)
    shown = []

    def review(result):
        shown.append((Path(result.path).name, _findings(result)))
        return lambda finding: False

    reviewed = runner.run([kernel], registry.RULES, SETTINGS, 1, review=review)[0]
    assert shown == [("kernel.py", _findings(plain))]
    assert (reviewed.error, reviewed.new_source) == (None, None)
    assert _findings(reviewed) == _findings(plain) and not any(f.applied for f in reviewed.findings)


def test_a_module_whose_kernels_another_module_launches_is_answered_from_the_cache(tmp_path: Path) -> None:
    """The result is cached with the project's facts about the module (which of its functions are
    launched elsewhere) and looked up with them: the next run, the file-by-file way (no run record),
    answers bodies.py from its entry, not by analysing it again."""
    from tests.test_cache import BODIES, LAUNCH, _poison

    root = tmp_path / "pkg"
    root.mkdir()
    for name, text in (("__init__.py", b""), ("bodies.py", BODIES), ("launch.py", LAUNCH)):
        (root / name).write_bytes(text)
        _age(root / name)
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    first = {Path(r.path).name: r for r in runner.run([root], registry.RULES, SETTINGS, 1, cache)}
    assert first["bodies.py"].findings  # found only through launch.py's pallas_call
    _poison(tmp_path / "cache")
    for record in (tmp_path / "cache").rglob("*.run"):
        record.unlink()
    again = {Path(r.path).name: r for r in runner.run([root], registry.RULES, SETTINGS, 1, cache)}
    assert [f.message for f in again["bodies.py"].findings] == ["FROM THE CACHE"] * len(first["bodies.py"].findings)


def test_what_a_run_keeps_in_the_cache_is_written_while_the_runs_heap_is_frozen(tmp_path: Path, monkeypatch) -> None:
    """The project state, the file memo and the run record are written before the collector sees the
    run's heap again: a collection set off while they are built rescans the whole project index
    (0.4 of 1.65 s of CPU on a file touched in a 6,000-module project). Counted, not timed."""
    import gc
    from codemods.engine import cache as cache_module
    from tests.test_cache import BODIES, LAUNCH

    root = tmp_path / "pkg"
    root.mkdir()
    for name, text in (("__init__.py", b""), ("bodies.py", BODIES), ("launch.py", LAUNCH)):
        (root / name).write_bytes(text)
        _age(root / name)
    frozen: dict[str, int] = {}
    for owner, method in ((cache_module.ResultCache, "store_project_state"), (cache_module.FileMemo, "save"),
                          (cache_module.RunRecord, "store")):
        def recording(*args, _real=getattr(owner, method), _name=method, **kwargs):
            frozen[_name] = gc.get_freeze_count()
            return _real(*args, **kwargs)
        monkeypatch.setattr(owner, method, recording)
    runner.run([root], registry.RULES, SETTINGS, 1, ResultCache(tmp_path / "cache", SETTINGS))
    assert set(frozen) == {"store_project_state", "save", "store"} and all(frozen.values())
    assert gc.get_freeze_count() == 0  # and the heap is handed back after


def test_a_file_analysed_in_turn_finds_what_its_facts_made_frozen(tmp_path: Path, monkeypatch) -> None:
    """At --jobs 1 each file is analysed as soon as its facts are known, and the young objects are
    collected after it: what the facts made (kept for the run: 3.5 million objects over the trees'
    770 files, 1.2 s of the collections' 1.7 s) is frozen first, so that the collection scans the
    analysis's own objects only. Its facts, made just before, are no longer young when it starts."""
    import gc
    from tests.test_cache import BODIES, LAUNCH

    root = tmp_path / "pkg"
    root.mkdir()
    for name, text in (("__init__.py", b""), ("bodies.py", BODIES), ("launch.py", LAUNCH)):
        (root / name).write_bytes(text)
    young: dict[str, bool] = {}
    real = runner._process_candidate

    def analysing(item):
        facts = item[4]
        young[Path(item[0]).name] = gc.is_tracked(facts) and any(o is facts for o in gc.get_objects(0))
        return real(item)
    monkeypatch.setattr(runner, "_process_candidate", analysing)
    results = {Path(r.path).name: r for r in runner.run([root], registry.RULES, SETTINGS, 1)}
    assert results["bodies.py"].findings and young == {"bodies.py": False}


def test_a_module_read_only_for_the_project_is_remembered_and_trusted_by_the_next_run(tmp_path: Path) -> None:
    """launch.py is not processed, only read for the project's facts (that bodies.py's `body` is a
    kernel). Its size and mtime are remembered with its hash, so the next run trusts them, as it
    trusts a processed file's: a same-size edit that kept the mtime is not seen (`--no-trust-mtime`
    sees it), and bodies.py keeps the findings its launch gave it."""
    from tests.test_cache import BODIES, LAUNCH

    root = tmp_path / "pkg"
    root.mkdir()
    for name, text in (("__init__.py", b""), ("bodies.py", BODIES), ("launch.py", LAUNCH)):
        (root / name).write_bytes(text)
        _age(root / name)
    project = sorted(root.iterdir())
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    first = runner.run([root / "bodies.py"], registry.RULES, SETTINGS, 1, cache, project=project)
    assert first[0].findings
    launch = root / "launch.py"
    status = launch.stat()
    launch.write_bytes(LAUNCH.replace(b"matmul = pl.pallas_call(body", b"matmul = pl.pallas_cell(body"))
    os.utime(launch, ns=(status.st_atime_ns, status.st_mtime_ns))
    for record in (tmp_path / "cache").rglob("*.run"):
        record.unlink()
    again = runner.run([root / "bodies.py"], registry.RULES, SETTINGS, 1, cache, project=project)
    assert _findings(again[0]) == _findings(first[0])
    hashed = runner.run([root / "bodies.py"], registry.RULES, SETTINGS, 1,
                        ResultCache(tmp_path / "cache", SETTINGS, trust_mtime=False), project=project)
    # The launch is gone: only the note that a launch this analysis does not follow may run the body.
    assert hashed[0].findings and all(f.kind is Kind.MANUAL and NO_LAUNCH_FOUND in f.message for f in hashed[0].findings)


def test_the_project_index_alone_finds_a_kernel_launched_from_another_module(tmp_path: Path) -> None:
    """`explain` and the editor ask for the index of the files they fix, with no run around it (no
    files read before, no cache): bodies.py's `body` is a kernel because launch.py launches it."""
    from tests.test_cache import BODIES, LAUNCH

    root = tmp_path / "pkg"
    root.mkdir()
    for name, text in (("__init__.py", b""), ("bodies.py", BODIES), ("launch.py", LAUNCH)):
        (root / name).write_bytes(text)
    index = runner.project_index(sorted(root.iterdir()), registry.RULES, SETTINGS)
    assert index is not None
    assert [name for name, *_ in index.facts(root / "bodies.py").kernels] == ["body"]
    assert not index.facts(root / "launch.py").holds_kernels


def test_a_module_that_says_neither_pallas_nor_ref_is_analysed_when_another_module_launches_its_body(
        tmp_path: Path) -> None:
    """The byte prefilter alone would rule bodies.py out (no "pallas", no `_ref` name): the project
    index's word that launch.py launches `body` lets the kernel rules run on it."""
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_bytes(b"")
    (root / "bodies.py").write_bytes(b"import jax.numpy as jnp\nfrom jax import lax\n\n\ndef body(x, y, o):\n"
                                     b"    o[...] = jnp.dot(x[...], y[...], "
                                     b"precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n")
    (root / "launch.py").write_bytes(
        b"import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n\n"
        b"from pkg.bodies import body\n\n"
        b"f = pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))\n")
    results = {Path(r.path).name: r for r in runner.run([root], registry.RULES, SETTINGS, 1, None)}
    assert [f.code for f in results["bodies.py"].findings] == ["JAX001"], results["bodies.py"].findings


# Written for the survivors of the seed-38 sample (session 11).

BODY_WITHOUT_PALLAS = (b"import jax.numpy as jnp\nfrom jax import lax\n\n\ndef body(x, y, o):\n"
                       b"    o[...] = jnp.dot(x[...], y[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n")


def test_process_source_alone_runs_the_kernel_rules_on_a_module_the_facts_say_holds_kernels(tmp_path: Path) -> None:
    """`explain` and the editor call process_source with the project index's facts and no rules
    chosen: the prefilter it applies itself lets the kernel rules run on a body that says neither
    pallas nor `_ref`, because another module launches it."""
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_bytes(b"")
    (root / "bodies.py").write_bytes(BODY_WITHOUT_PALLAS)
    (root / "launch.py").write_bytes(
        b"import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n\n"
        b"from pkg.bodies import body\n\n"
        b"f = pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))\n")
    index = runner.project_index(sorted(root.iterdir()), registry.RULES, SETTINGS)
    assert index is not None
    result = runner.process_source(root / "bodies.py", BODY_WITHOUT_PALLAS, registry.RULES, SETTINGS,
                                   facts=index.facts(root / "bodies.py"))
    assert [f.code for f in result.findings] == ["JAX001"], result.findings


def test_a_worker_yields_the_cpu_once_before_its_first_file_not_again_for_each(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker lowers its priority (and freezes what it inherited) before its first file only:
    niceness adds up, so doing it for every file would soon leave the worker at the lowest."""
    from codemods.analysis.kernel_scope import NO_FACTS

    calls: list = []
    monkeypatch.setattr(runner, "_ANALYSING", False)
    monkeypatch.setattr(runner.os, "nice", calls.append)
    monkeypatch.setattr(runner.gc, "freeze", lambda: calls.append("freeze"))
    note = Finding("JAX002", Kind.MANUAL, 1, 1, "a note")
    for _ in range(3):
        result = runner._process_in_worker((tmp_path / "m.py", b"x = 1\n", [_rule("JAX002", lambda rule, file: [note])],
                                            SETTINGS, NO_FACTS))
        assert result.findings == [note]
    assert calls == ["freeze", 10]


def _notebooks_seen() -> int:
    return len(runner._NOTEBOOKS)


def test_the_workers_are_forked_where_the_default_start_method_is_not_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's pool forks its workers wherever fork exists, so that they inherit the run's project
    index and decoded notebooks, even where fork is not the default (Python 3.14: forkserver)."""
    import multiprocessing

    before = multiprocessing.get_start_method(allow_none=True)
    multiprocessing.set_start_method("spawn", force=True)
    monkeypatch.setattr(runner, "_NOTEBOOKS", {"nb.ipynb": None})
    try:
        with runner._pool(1) as pool:
            assert pool.submit(_notebooks_seen).result(timeout=60) == 1
    finally:
        multiprocessing.set_start_method(before, force=True)


# -- the run's pool: a module is analysed in the worker that summarised it --


def _item_and_worker(item: object) -> tuple[object, int]:
    return item, os.getpid()


def _slowly_in_worker(seconds: float) -> int:
    import time

    time.sleep(seconds)
    return os.getpid()


def test_the_pools_map_answers_in_order_and_a_module_goes_back_to_the_worker_that_had_it() -> None:
    """`map` spreads runs of items over the workers and answers in the items' order; `submit` of a
    module hands it to the worker its summary ran in (where the parse was kept), each worker's."""
    names = [f"pkg.m{i}" for i in range(200)]
    with runner._Pool(2) as pool:
        answers = pool.map(_item_and_worker, names)
        assert [item for item, _ in answers] == names
        worker_of = dict(answers)
        assert len(set(worker_of.values())) == 2  # both workers summarised some
        for name in (names[0], names[-1], names[100]):
            assert pool.submit(_item_and_worker, name, 10, name).result(timeout=60) == (name, worker_of[name])


def test_a_module_goes_to_the_least_busy_worker_when_its_own_has_much_more_queued() -> None:
    """The worker that summarised a module gets it unless it has more than AFFINITY_SLACK bytes
    queued beyond the least busy worker: then the idle one parses it again rather than wait."""
    names = [f"pkg.m{i}" for i in range(200)]
    with runner._Pool(2) as pool:
        worker_of = dict(pool.map(_item_and_worker, names))
        first = names[0]
        other = next(name for name in names if worker_of[name] != worker_of[first])
        busy = pool.submit(_slowly_in_worker, 2.0, runner.AFFINITY_SLACK + 1, first)
        same = next(name for name in names[1:] if worker_of[name] == worker_of[first])
        assert pool.submit(_item_and_worker, same, 0, same).result(timeout=60) == (same, worker_of[other])
        assert busy.result(timeout=60) == worker_of[first]
        # Once its queue is done (a future's callback takes what it had queued off), its own worker again.
        deadline = time.monotonic() + 30
        while any(pool._queued) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert pool.submit(_item_and_worker, same, runner.AFFINITY_SLACK, same).result(timeout=60) \
            == (same, worker_of[first])


def test_the_rules_do_not_parse_again_in_a_worker_what_the_summary_parsed_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A project large enough to be summarised in the workers (SUMMARY_MIN_MODULES): each kernel
    module is parsed once in the run, by the summary in a worker, and its rules run on that parse
    (they parsed it a second time, in one worker or the other), and the main process does not parse
    it to ask which of its defs take refs (it did, a third parse)."""
    import ast

    package = tmp_path / "proj" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for i in range(runner.SUMMARY_MIN_MODULES):
        (package / f"plain_{i}.py").write_text(f"import jax\n\n\ndef f_{i}(x):\n    return x + {i}\n")
    for i in range(4):
        (package / f"kernel_{i}.py").write_text(
            "import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n\n\n"
            f"def body_{i}(x_ref, w_ref, o_ref):\n    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], "
            "precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n\n\n"
            f"run_{i} = pl.pallas_call(body_{i}, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))\n")
    log, parse, main = tmp_path / "parses.log", ast.parse, os.getpid()

    def logged_parse(source, *args, **kwargs):  # forked workers inherit it
        text = source.decode() if isinstance(source, bytes) else source
        if "def body_" in text:
            with open(log, "a") as out:
                out.write(("main " if os.getpid() == main else "") + text[text.index("def body_"):][:10] + "\n")
        return parse(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", logged_parse)
    results = runner.run([tmp_path / "proj"], registry.RULES, SETTINGS, jobs=2)
    assert sorted(Path(r.path).name for r in results for f in r.findings if f.code == "JAX001") \
        == [f"kernel_{i}.py" for i in range(4)]
    assert sorted(log.read_text().splitlines()) == [f"def body_{i}" for i in range(4)]


def test_a_file_the_project_index_does_not_hold_has_no_module(tmp_path: Path) -> None:
    """A file whose name is no module name (`my-kernel.py`) is not in the index: analysed anywhere,
    never a crash (the pool hands it to the least busy worker)."""
    (tmp_path / "ok.py").write_text("x = 1\n")
    (tmp_path / "my-kernel.py").write_text("x = 1\n")
    index = ProjectIndex([tmp_path / "ok.py", tmp_path / "my-kernel.py"], lambda path: Path(path).read_bytes())
    assert (index.module_of(tmp_path / "ok.py"), index.module_of(tmp_path / "my-kernel.py")) == ("ok", None)


def test_one_process_analyses_each_file_on_the_parse_its_facts_read(tmp_path: Path, monkeypatch) -> None:
    """At --jobs 1 each file is analysed as soon as its facts are known, on the parse they read,
    which the index still holds. Worked out for every file first, the facts of the later files
    pushed the earlier ones' trees out (the index keeps a few: base.TREES_KEPT), and each of those
    was parsed again for its analysis (361 of the 767 files of the trees: docs/speed.md)."""
    from codemods.analysis.project import base

    monkeypatch.setattr(base, "TREES_KEPT", 1)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/__init__.py").write_text("")
    for number in range(3):
        (tmp_path / f"pkg/kernel{number}.py").write_bytes(KERNEL)
    parsed_again: list[str] = []
    real_parse = runner._parse
    monkeypatch.setattr(runner, "_parse", lambda text, *rest: parsed_again.append(text) or real_parse(text, *rest))
    results = runner.run([tmp_path], registry.RULES, SETTINGS, 1)
    assert sorted(Path(result.path).name for result in results if result.findings) == \
        ["kernel0.py", "kernel1.py", "kernel2.py"]
    assert all(finding.code == "JAX001" for result in results for finding in result.findings)
    assert parsed_again == []  # each analysis took the index's parse
