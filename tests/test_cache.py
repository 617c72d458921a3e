"""The result cache: an unchanged file is answered from it, anything that could change the answer misses.

Nothing here imports jax.
"""

from __future__ import annotations

import collections
import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codemods import registry
from codemods.engine import runner
from codemods.engine.cache import ResultCache
from codemods.engine.diagnostics import Kind
from codemods.settings import Scope, Settings

REPO = Path(__file__).resolve().parents[1]
KERNEL = b'''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=("default", "highest"))
    o_ref[...] += lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
'''
SETTINGS = Settings((0, 12, 0, 1))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "kernel.py").write_bytes(KERNEL)
    return tmp_path


def _run(project: Path, cache: ResultCache, settings: Settings = SETTINGS, rules=registry.RULES):
    return runner.run([project / "src"], rules, settings, 1, cache)


def _poison(cache_dir: Path) -> int:
    """Rewrite every entry's message, and every run record's, so an answer that came from the cache
    can be told apart: the number of per-file entries."""
    entries = list(cache_dir.rglob("*.json"))
    for entry in entries:
        data = json.loads(entry.read_text())
        for finding in data["findings"]:
            finding["message"] = "FROM THE CACHE"
        entry.write_text(json.dumps(data))
    for record in cache_dir.rglob("*.run"):
        stamps, kept = marshal.loads(record.read_bytes())
        for _, data in kept:
            for finding in data["findings"]:
                finding["message"] = "FROM THE CACHE"
        record.write_bytes(marshal.dumps((stamps, kept)))
    return len(entries)


def test_second_run_is_answered_from_the_cache_with_the_same_result(project: Path, tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    first = _run(project, cache)
    assert first[0].new_source is not None and first[0].findings[0].kind is Kind.FIXED
    again = _run(project, cache)
    assert [(r.new_source, r.findings, r.error, r.raw) for r in again] == \
        [(r.new_source, r.findings, r.error, r.raw) for r in first]
    assert _poison(tmp_path / "cache") == 1
    assert _run(project, cache)[0].findings[0].message == "FROM THE CACHE"


def test_an_edited_file_or_other_options_miss(project: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    _run(project, ResultCache(cache_dir, SETTINGS))
    _poison(cache_dir)
    for settings in (Settings((0, 10, 2)), Settings((0, 12, 0, 1), Scope.ALL)):
        result = _run(project, ResultCache(cache_dir, settings), settings)[0]
        assert result.findings[0].message != "FROM THE CACHE", settings
    only_jax001 = registry.select(["JAX001"])
    result = runner.run([project / "src"], only_jax001, SETTINGS, 1, ResultCache(cache_dir, SETTINGS))[0]
    assert [f.code for f in result.findings] == ["JAX001"] and result.findings[0].message != "FROM THE CACHE"
    (project / "src" / "kernel.py").write_bytes(KERNEL.replace(b"x_ref[...], x_ref", b"x_ref[...],  x_ref"))
    assert _run(project, ResultCache(cache_dir, SETTINGS))[0].findings[0].message != "FROM THE CACHE"


def test_a_broken_entry_is_analysed_again(project: Path, tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    first = _run(project, cache)
    for entry in (tmp_path / "cache").rglob("*.json"):
        entry.write_text("{not json")
    assert _run(project, cache)[0].new_source == first[0].new_source


def test_cli_no_cache_neither_reads_nor_writes(project: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    env = {"JAX_CODEMOD_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    command = [sys.executable, "-m", "codemods", "--jax-version", "0.12.0.1", "src"]
    plain = subprocess.run([*command, "--no-cache"], cwd=project, env=env, capture_output=True)
    assert plain.returncode == 1 and not cache_dir.exists()
    first = subprocess.run(command, cwd=project, env=env, capture_output=True)
    assert (first.returncode, first.stdout, first.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    assert _poison(cache_dir) == 1
    cached = subprocess.run(command, cwd=project, env=env, capture_output=True)
    assert b"FROM THE CACHE" in cached.stderr
    fresh = subprocess.run([*command, "--no-cache"], cwd=project, env=env, capture_output=True)
    assert fresh.stderr == plain.stderr


def test_clean_removes_the_entries_and_only_them(project: Path, tmp_path: Path) -> None:
    """`jax-codemod clean`, as `ruff clean`; the folder may be one the user pointed the variable at,
    holding files of theirs: those stay, and are named."""
    cache_dir = tmp_path / "cache"
    env = {"JAX_CODEMOD_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    tool = [sys.executable, "-m", "codemods"]
    _age(project / "src" / "kernel.py")  # older than the run: it records the run too
    subprocess.run([*tool, "--jax-version", "0.12.0.1", "src"], cwd=project, env=env, capture_output=True)
    written = [path for path in cache_dir.rglob("*") if path.is_file()]
    assert sorted({path.suffix for path in written}) == [".files", ".json", ".lock", ".project", ".run", ".summaries"], \
        written
    (cache_dir / "notes.txt").write_text("mine")
    (cache_dir / written[0].parent.name / "keep.txt").write_text("mine too")
    cleaned = subprocess.run([*tool, "clean"], env=env, capture_output=True, text=True)
    assert cleaned.returncode == 0, cleaned.stderr
    assert f"removed {len(written)} cache entries" in cleaned.stdout
    assert sorted(str(p.relative_to(cache_dir)) for p in cache_dir.rglob("*") if p.is_file()) == \
        sorted(["notes.txt", f"{written[0].parent.name}/keep.txt"])
    assert "notes.txt: not written by jax-codemod" in cleaned.stdout
    (cache_dir / "notes.txt").unlink()
    (cache_dir / written[0].parent.name / "keep.txt").unlink()
    again = subprocess.run([*tool, "clean"], env=env, capture_output=True, text=True)
    assert again.returncode == 0 and not cache_dir.exists(), again.stdout  # the emptied folders went too
    assert "no cache entries" in subprocess.run([*tool, "clean"], env=env, capture_output=True, text=True).stdout


def test_an_entry_is_written_into_a_folder_an_earlier_entry_made(project: Path, tmp_path: Path) -> None:
    """Entries share their two-character folders: one that exists already takes the next entry."""
    cache_dir = tmp_path / "cache"
    for prefix in range(256):
        (cache_dir / f"{prefix:02x}").mkdir(parents=True)
    _run(project, ResultCache(cache_dir, SETTINGS))
    assert _poison(cache_dir) == 1


def test_a_cache_write_that_fails_leaves_no_temporary_and_fails_nothing(project: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry that cannot be put in place (a full disk; a temporary another process's cleanup
    already removed) is dropped: the run's result is whole and the cache folder holds no leftover."""
    import os

    from codemods.engine import cache as cache_module

    replace = os.replace

    def failing_replace(source, target):
        if Path(target).is_relative_to(tmp_path / "cache"):
            Path(source).unlink()  # gone before the cleanup looks for it
            raise OSError(28, "No space left on device")
        return replace(source, target)

    monkeypatch.setattr(cache_module.os, "replace", failing_replace)
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    result = _run(project, cache)[0]
    assert result.new_source is not None and result.error is None
    assert not [path for path in (tmp_path / "cache").rglob("*") if path.is_file()]


def test_an_entry_is_written_beside_its_place_not_in_the_system_temporary_folder(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The temporary is made in the entry's own folder, so the rename into place stays on one file
    system (a cache on another disk than /tmp) and a system temporary folder we cannot use costs nothing."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no such folder"))
    _run(project, ResultCache(tmp_path / "cache", SETTINGS))
    assert _poison(tmp_path / "cache") == 1


# -- a warm run reads no file that has not changed (FileMemo) --

BODIES = b'''\
import jax.numpy as jnp


def body(x_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=("default", "highest"))


def other(x_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=("default", "high"))
'''
LAUNCH = b'''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pkg.bodies import body, other

matmul = pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
'''
PLAIN = b"import numpy as np\n\n\ndef norm(x):\n    return np.sqrt((x * x).sum())\n"


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """A package whose kernel body is launched from another module, and a module with nothing to do;
    every file older than the run (a file the run could not trust is read whatever its memo says)."""
    root = tmp_path / "pkg"
    root.mkdir()
    for name, text in (("__init__.py", b""), ("bodies.py", BODIES), ("launch.py", LAUNCH), ("plain.py", PLAIN)):
        (root / name).write_bytes(text)
        _age(root / name)
    return root


def _age(path: Path, seconds: int = 60) -> None:
    status = path.stat()
    os.utime(path, ns=(status.st_atime_ns - seconds * 10**9, status.st_mtime_ns - seconds * 10**9))


def _counting_reads(monkeypatch) -> collections.Counter:
    reads: collections.Counter = collections.Counter()
    read = runner._read_file

    def counting(path):
        reads[Path(path).name] += 1
        return read(path)

    monkeypatch.setattr(runner, "_read_file", counting)
    return reads


def _outcome(results) -> list:
    return [(Path(r.path).name, r.error, r.new_source, [(f.code, f.kind, f.line, f.column, f.message) for f in r.findings])
            for r in results]


def test_a_warm_run_reads_only_the_files_whose_results_carry_a_fix(package: Path, tmp_path: Path, monkeypatch) -> None:
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    cold = runner.run([package], registry.RULES, SETTINGS, 1, cache)
    reads = _counting_reads(monkeypatch)
    warm = runner.run([package], registry.RULES, SETTINGS, 1, cache)
    assert _outcome(warm) == _outcome(cold)
    assert set(reads) == {"bodies.py"}, reads  # its fix's edits are offsets into its bytes: nothing else is read


def test_a_warm_run_after_an_edit_that_changes_another_modules_facts_equals_a_cold_run(
        package: Path, tmp_path: Path) -> None:
    """launch.py now launches `other`: bodies.py (not edited) has other facts, and other findings."""
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    before = runner.run([package], registry.RULES, SETTINGS, 1, cache)
    (package / "launch.py").write_bytes(LAUNCH.replace(b"pallas_call(body,", b"pallas_call(other,"))
    warm = runner.run([package], registry.RULES, SETTINGS, 1, cache)
    cold = runner.run([package], registry.RULES, SETTINGS, 1, None)
    assert _outcome(warm) == _outcome(cold) != _outcome(before)


def test_a_file_edited_in_the_second_it_was_read_is_read_again(package: Path, tmp_path: Path) -> None:
    """A same-size edit that leaves the mtime as it was (within the file system's granularity, as
    an edit right after a run can) is seen: a memo entry whose mtime was that recent is not kept."""
    bodies = package / "bodies.py"
    bodies.write_bytes(BODIES)  # mtime: now, the second of the run
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    before = runner.run([package], registry.RULES, SETTINGS, 1, cache)
    status = bodies.stat()
    bodies.write_bytes(BODIES.replace(b'("default", "highest")', b'("highest", "highest")'))  # same size
    os.utime(bodies, ns=(status.st_atime_ns, status.st_mtime_ns))
    warm = runner.run([package], registry.RULES, SETTINGS, 1, cache)
    assert _outcome(warm) == _outcome(runner.run([package], registry.RULES, SETTINGS, 1, None)) != _outcome(before)


def test_two_runs_saving_their_memos_at_once_keep_both(package: Path, tmp_path: Path) -> None:
    from codemods.engine.cache import FileMemo, Known

    first, second = (FileMemo(tmp_path / "cache", SETTINGS, registry.RULES) for _ in range(2))
    for memo, name in ((first, "bodies.py"), (second, "plain.py")):
        status = (package / name).stat()
        memo.learn(str(package / name), status, Known(status.st_size, status.st_mtime_ns, b"\0" * 32, "{}", (), ()))
    first.save()
    second.save()
    again = FileMemo(tmp_path / "cache", SETTINGS, registry.RULES)
    assert all(again.lookup(str(package / name), (package / name).stat()) for name in ("bodies.py", "plain.py"))


def _save_many(directory: Path, worker: int, rounds: int, start) -> None:
    from codemods.engine.cache import FileMemo, Known

    start.wait()
    status = os.stat(directory.parent / "file.py")
    for round_ in range(rounds):
        memo = FileMemo(directory, SETTINGS, registry.RULES)
        memo.learn(f"/w{worker}/r{round_}.py", status, Known(status.st_size, status.st_mtime_ns, b"\0" * 32, "{}", (), ()))
        memo.save()


def test_runs_saving_their_memos_at_the_same_time_lose_no_entry(tmp_path: Path) -> None:
    """Four processes each save forty memos into one manifest at once: every entry is there after,
    and the manifest reads (the read and write of a save are one step under a lock)."""
    import multiprocessing

    from codemods.engine.cache import FileMemo

    (tmp_path / "file.py").write_text("")
    os.utime(tmp_path / "file.py", ns=(0, 0))  # old enough to trust
    context = multiprocessing.get_context("fork")
    start = context.Barrier(4)
    workers = [context.Process(target=_save_many, args=(tmp_path / "cache", worker, 40, start)) for worker in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(60)
    assert [process.exitcode for process in workers] == [0] * 4
    status = os.stat(tmp_path / "file.py")
    kept = FileMemo(tmp_path / "cache", SETTINGS, registry.RULES)
    missing = [(worker, round_) for worker in range(4) for round_ in range(40)
               if kept.lookup(f"/w{worker}/r{round_}.py", status) is None]
    assert missing == []


def _replayed_only(monkeypatch) -> None:
    """Make every step of a run that is not the run record's replay fail the test."""
    def never(*args, **kwargs):
        raise AssertionError("the run went the file-by-file way")

    monkeypatch.setattr(runner, "project_index", never)
    monkeypatch.setattr(runner, "_prepare", never)


def test_an_unchanged_tree_is_replayed_from_the_run_record(package: Path, tmp_path: Path, monkeypatch) -> None:
    """Nothing changed: the warm run stats the files, reads only the one whose fix needs its bytes,
    builds no project index and answers what the record says (here poisoned, to tell it apart)."""
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    cold = runner.run([package], registry.RULES, SETTINGS, 1, cache)
    with monkeypatch.context() as patched:
        _replayed_only(patched)
        reads = _counting_reads(patched)
        assert _outcome(runner.run([package], registry.RULES, SETTINGS, 1, cache)) == _outcome(cold)
        assert set(reads) == {"bodies.py"}, reads
    _poison(tmp_path / "cache")
    [replayed] = [r for r in runner.run([package], registry.RULES, SETTINGS, 1, cache) if r.findings]
    assert {f.message for f in replayed.findings} == {"FROM THE CACHE"}


def test_any_change_the_results_could_depend_on_is_not_replayed(package: Path, tmp_path: Path, monkeypatch) -> None:
    """Each of these must go the file-by-file way again (the record is poisoned: a replay shows)."""
    cache_dir = tmp_path / "cache"

    def warm(settings: Settings = SETTINGS, rules=registry.RULES, project=None, skip=lambda path: frozenset()):
        return runner.run([package], rules, settings, 1, ResultCache(cache_dir, settings), rules_to_skip=skip,
                          project=project)

    def poisoned(results) -> bool:
        return any(f.message == "FROM THE CACHE" for r in results for f in r.findings)

    def poison_the_records() -> None:  # not the per-file entries, which a run that misses the record may hit
        for entry in cache_dir.rglob("*.json"):
            entry.unlink()
        _poison(cache_dir)

    warm()
    poison_the_records()
    assert poisoned(warm())  # the control: unchanged, replayed
    assert not poisoned(warm(Settings((0, 10, 2))))  # other settings
    assert not poisoned(warm(rules=registry.select(["JAX001", "JAX002"])))  # other rules
    assert not poisoned(warm(skip=lambda path: frozenset({"JAX002"}) if Path(path).name == "plain.py" else frozenset()))
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_bytes(PLAIN)
    _age(elsewhere)
    assert not poisoned(warm(project=[*package.iterdir(), elsewhere]))  # a project of other files
    for edit in (lambda: _age(package / "plain.py", 30),  # touched: its mtime alone changed
                 lambda: (package / "new.py").write_bytes(PLAIN)):  # a file more
        poison_the_records()
        edit()
        assert not poisoned(warm())


def test_a_run_over_a_file_changed_in_its_second_records_nothing(package: Path, tmp_path: Path) -> None:
    """An edit in the same second as the run could leave size and mtime as they were: a run that
    saw such a file keeps no record, and the next run goes the file-by-file way (and sees the edit)."""
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    (package / "plain.py").write_bytes(PLAIN)  # mtime: now
    runner.run([package], registry.RULES, SETTINGS, 1, cache)
    assert not list((tmp_path / "cache").rglob("*.run"))
    _age(package / "plain.py")
    runner.run([package], registry.RULES, SETTINGS, 1, cache)
    assert len(list((tmp_path / "cache").rglob("*.run"))) == 1


def test_an_interactive_run_is_neither_replayed_nor_recorded(package: Path, tmp_path: Path, monkeypatch) -> None:
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    runner.run([package], registry.RULES, SETTINGS, 1, cache)
    _poison(tmp_path / "cache")
    records = {path: path.read_bytes() for path in (tmp_path / "cache").rglob("*.run")}
    reviewed = runner.run([package], registry.RULES, SETTINGS, 1, cache, review=lambda result: None)
    assert not any(f.message == "FROM THE CACHE" for r in reviewed for f in r.findings if f.code != "JAX001")
    assert {path: path.read_bytes() for path in (tmp_path / "cache").rglob("*.run")} == records


def test_a_file_too_large_to_analyse_is_said_skipped_by_every_warm_run(tmp_path: Path, monkeypatch) -> None:
    """The cached result keeps why the file was not analysed (it was dropped once: the warm run
    then reported nothing of a file the cold run skipped)."""
    source = tmp_path / "kernel.py"
    source.write_bytes(KERNEL)
    _age(source)
    monkeypatch.setattr(runner, "MAX_SOURCE_BYTES", 100)
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    cold = runner.run([source], registry.RULES, SETTINGS, 1, cache)
    replayed = runner.run([source], registry.RULES, SETTINGS, 1, cache)
    for record in (tmp_path / "cache").rglob("*.run"):
        record.unlink()
    from_entries = runner.run([source], registry.RULES, SETTINGS, 1, cache)
    assert cold[0].skipped and "not analysed" in cold[0].skipped
    assert replayed[0].skipped == from_entries[0].skipped == cold[0].skipped


def test_no_trust_mtime_sees_an_edit_that_kept_size_and_mtime(package: Path, tmp_path: Path, monkeypatch) -> None:
    """A same-size edit whose mtime was put back (`cp -p`, a restored checkout): trusting mtimes,
    the run answers for the old bytes, as git and Ruff would; `--no-trust-mtime` reads, hashes and
    sees it, and still answers unchanged files from their entries."""
    cache_dir = tmp_path / "cache"
    before = runner.run([package], registry.RULES, SETTINGS, 1, ResultCache(cache_dir, SETTINGS))
    bodies = package / "bodies.py"
    status = bodies.stat()
    bodies.write_bytes(BODIES.replace(b'("default", "highest")', b'("highest", "highest")'))  # same size
    os.utime(bodies, ns=(status.st_atime_ns, status.st_mtime_ns))
    cold = runner.run([package], registry.RULES, SETTINGS, 1, None)
    assert _outcome(runner.run([package], registry.RULES, SETTINGS, 1, ResultCache(cache_dir, SETTINGS))) == \
        _outcome(before) != _outcome(cold)
    analysed: list[str] = []
    process = runner.process_source
    monkeypatch.setattr(runner, "process_source", lambda path, *a, **k: analysed.append(Path(path).name) or process(path, *a, **k))
    hashed = runner.run([package], registry.RULES, SETTINGS, 1, ResultCache(cache_dir, SETTINGS, trust_mtime=False))
    assert _outcome(hashed) == _outcome(cold)
    assert set(analysed) == {"bodies.py"}  # (process_source calls itself once, to pause the collector)


def test_the_cli_reads_trust_mtime_from_its_option_and_the_environment(package: Path, tmp_path: Path,
                                                                       monkeypatch) -> None:
    from typer.testing import CliRunner

    from codemods.cli import app
    from codemods.engine import cache as cache_module

    made: list[bool] = []
    monkeypatch.setattr(cache_module.ResultCache, "__init__",
                        lambda self, directory, settings, trust_mtime=True: made.append(trust_mtime) or None)
    monkeypatch.setattr(runner, "run", lambda *args, **kwargs: [])
    monkeypatch.setenv("JAX_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))
    for arguments, environment, trusted in (([], None, True), (["--no-trust-mtime"], None, False),
                                            ([], "0", False), ([], "1", True), (["--trust-mtime"], "0", True)):
        if environment is None:
            monkeypatch.delenv("JAX_CODEMOD_TRUST_MTIME", raising=False)
        else:
            monkeypatch.setenv("JAX_CODEMOD_TRUST_MTIME", environment)
        result = CliRunner().invoke(app, [*arguments, "--jax-version", "0.12.0.1", str(package)])
        assert result.exit_code == 0, result.output
        assert made.pop() is trusted, (arguments, environment)


def test_a_run_with_a_file_it_could_not_read_records_nothing(package: Path, tmp_path: Path, monkeypatch) -> None:
    """Permissions put right leave the mtime as it was: a run that failed on a file is not replayed."""
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    read = runner._read_file

    def refusing(path):
        if Path(path).name == "plain.py":
            raise PermissionError(13, "Permission denied")
        return read(path)

    with monkeypatch.context() as patched:
        patched.setattr(runner, "_read_file", refusing)
        failed = runner.run([package], registry.RULES, SETTINGS, 1, cache)
    assert [Path(r.path).name for r in failed if r.error] == ["plain.py"]
    assert not list((tmp_path / "cache").rglob("*.run"))
    assert not any(r.error for r in runner.run([package], registry.RULES, SETTINGS, 1, cache))


@pytest.mark.parametrize("garbage", [
    lambda stamps: b"", lambda stamps: b"\x00not marshal", lambda stamps: marshal.dumps(42),
    lambda stamps: marshal.dumps((stamps, [(99, {})])),  # the files' stamps, a result past the files
    lambda stamps: marshal.dumps((stamps, [(0, {"findings": "x"})])),  # the files' stamps, a result of another shape
], ids=["empty", "not-marshal", "not-a-pair", "a-position-past-the-files", "a-result-of-another-shape"])
def test_a_broken_run_record_is_passed_over(package: Path, tmp_path: Path, garbage) -> None:
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    cold = runner.run([package], registry.RULES, SETTINGS, 1, cache)
    [record] = (tmp_path / "cache").rglob("*.run")
    stamps, _ = marshal.loads(record.read_bytes())
    record.write_bytes(garbage(stamps))
    assert _outcome(runner.run([package], registry.RULES, SETTINGS, 1, cache)) == _outcome(cold)


def test_a_warm_run_after_an_edit_stats_each_file_once(package: Path, tmp_path: Path, monkeypatch) -> None:
    """Where no run record was replayed (none kept: the last run's files were too recent), the
    project's files are stat'ed as they are read, and the record kept at the end is stamped with
    those statuses, not with a second stat of each."""
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    runner.run([package], registry.RULES, SETTINGS, 1, cache)
    (package / "plain.py").write_bytes(PLAIN + b"# edited\n")
    _age(package / "plain.py")
    cold = runner.run([package], registry.RULES, SETTINGS, 1, None)
    for record in (tmp_path / "cache").rglob("*.run"):
        record.unlink()
    stats: collections.Counter = collections.Counter()
    stat = os.stat

    def counting(path, *args, **kwargs):
        stats[os.path.basename(path)] += 1
        return stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counting)
    warm = runner.run([package], registry.RULES, SETTINGS, 1, cache)
    assert _outcome(warm) == _outcome(cold)
    assert {name: stats[name] for name in ("bodies.py", "launch.py", "plain.py")} == \
        {"bodies.py": 1, "launch.py": 1, "plain.py": 1}, stats
    assert list((tmp_path / "cache").rglob("*.run")), "the record is kept"
