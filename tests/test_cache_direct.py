"""codemods/engine/cache.py called directly, in the test's process, on tmp_path: the result cache's
round trips, the project state, the warm run's manifest (FileMemo), `clean` and the cache folder.

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks an outcome.
Nothing here imports jax.
"""

from __future__ import annotations

import json
import marshal
import os
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from codemods.analysis.flow.flow_facts import Called, FlowFacts, SinkAnswer
from codemods.analysis.kernel_scope import NO_FACTS, ModuleFacts
from codemods.analysis.kept_summaries import KeptSummaries
from codemods.analysis.project import ProjectState
from codemods.engine import cache
from codemods.engine.cache import FileMemo, Known, ResultCache, clean, content_hash, default_directory, facts_key
from codemods.engine.diagnostics import Applicability, Finding, Fix, Kind, TextEdit
from codemods.engine.report import FileResult
from codemods.settings import Settings

SETTINGS = Settings((0, 12, 0, 1))
RULES = [SimpleNamespace(code="JAX001"), SimpleNamespace(code="JAX002")]
FACTS = ModuleFacts(kernels=(("body", frozenset({"tpu", "gpu"}), "launched", "body"),),
                    shared=frozenset({"b", "a"}),
                    launchers=(("pkg.launch", 1, "kernel", frozenset({"gpu", "cpu"})),))
SOURCE = b"x = f(1, 2)\n"
AFTER = "x = f(1, 3)\n"


def _fixed() -> Finding:
    return Finding("JAX001", Kind.FIXED, 1, 5, "a fix", 1, 12,
                   Fix(Applicability.UNSAFE, (TextEdit(9, 10, "3"), TextEdit(0, 0, "")), True), held_back=True)


def _manual() -> Finding:
    return Finding("JAX002", Kind.MANUAL, 2, 1, "look", 0, 0, None)


def _result(**changes) -> FileResult:
    values = dict(path="m.py", parsed=True, new_source=AFTER.encode(), raw=SOURCE, after=AFTER,
                  findings=[_fixed(), _manual()], error=None, encoding="utf-8", suppressed=2)
    values.update(changes)
    return FileResult(**values)


def _never_read() -> bytes:
    raise AssertionError("read() asked for a result without a fix")


# ResultCache: get / put


def test_a_result_with_a_fix_comes_back_equal(tmp_path: Path) -> None:
    results = ResultCache(tmp_path, SETTINGS)
    key = content_hash(SOURCE)
    results.put(key, RULES, _result(), FACTS)
    got = results.get(Path("elsewhere/m.py"), key, RULES, FACTS, lambda: SOURCE)
    assert got is not None
    assert got.path == "elsewhere/m.py"
    assert got.parsed is True and got.error is None and got.encoding == "utf-8" and got.suppressed == 2
    assert got.new_source == AFTER.encode() and got.after == AFTER and got.raw == SOURCE
    assert got.findings == [_fixed(), _manual()]
    assert got.findings[0].fix.edits == (TextEdit(9, 10, "3"), TextEdit(0, 0, ""))
    assert got.findings[0].fix.applicability is Applicability.UNSAFE and got.findings[0].fix.applied is True
    assert got.findings[0].kind is Kind.FIXED and got.findings[1].kind is Kind.MANUAL
    assert got.cells is None


def test_a_result_without_a_fix_reads_nothing(tmp_path: Path) -> None:
    results = ResultCache(tmp_path, SETTINGS)
    key = content_hash(SOURCE)
    results.put(key, RULES, _result(new_source=None, after="", raw=b"", findings=[_manual()], suppressed=0,
                                    error="why", parsed=False, encoding="latin-1"))
    got = results.get(Path("m.py"), key, RULES, NO_FACTS, _never_read)
    assert got is not None
    assert (got.parsed, got.new_source, got.raw, got.after, got.error, got.encoding, got.suppressed) == \
        (False, None, b"", "", "why", "latin-1", 0)
    assert got.findings == [_manual()]


def test_after_is_kept_only_with_a_new_source(tmp_path: Path) -> None:
    results = ResultCache(tmp_path, SETTINGS)
    key = content_hash(SOURCE)
    results.put(key, RULES, _result(new_source=None, findings=[_manual()]))
    [entry] = tmp_path.rglob("*.json")
    data = json.loads(entry.read_text())
    assert data["after"] is None
    assert set(data) == {"parsed", "error", "encoding", "suppressed", "skipped", "after", "findings"}
    assert data["findings"][0]["kind"] == "manual" and data["findings"][0]["fix"] is None


def test_the_new_source_is_encoded_with_the_files_codec(tmp_path: Path) -> None:
    results = ResultCache(tmp_path, SETTINGS)
    key = content_hash(b"s = 'caf\xe9'\n")
    results.put(key, RULES, _result(after="s = 'café!'\n", new_source=b"", encoding="latin-1"))
    got = results.get(Path("m.py"), key, RULES, NO_FACTS, lambda: b"s = 'caf\xe9'\n")
    assert got.new_source == "s = 'café!'\n".encode("latin-1")


def test_the_entry_is_keyed_by_content_rules_facts_and_settings_not_path(tmp_path: Path) -> None:
    results = ResultCache(tmp_path, SETTINGS)
    key = content_hash(SOURCE)
    results.put(key, RULES, _result(), FACTS)
    [entry] = tmp_path.rglob("*.json")
    assert len(entry.parent.name) == 2 and len(entry.stem) == 62
    assert entry.parent.parent == tmp_path
    assert results.get(Path("a/b.py"), key, RULES, FACTS, lambda: SOURCE) is not None
    assert results.get(Path("m.py"), content_hash(b"other"), RULES, FACTS, lambda: SOURCE) is None
    assert results.get(Path("m.py"), key, RULES[:1], FACTS, lambda: SOURCE) is None
    assert results.get(Path("m.py"), key, RULES[::-1], FACTS, lambda: SOURCE) is None
    assert results.get(Path("m.py"), key, RULES, NO_FACTS, lambda: SOURCE) is None
    other = ResultCache(tmp_path, Settings((0, 10, 2)))
    assert other.get(Path("m.py"), key, RULES, FACTS, lambda: SOURCE) is None
    # the rule codes are joined with a separator: ("JAX001", "JAX002") is not ("JAX001JAX002",)
    assert results.get(Path("m.py"), key, [SimpleNamespace(code="JAX001JAX002")], FACTS, lambda: SOURCE) is None


def test_put_with_no_facts_is_get_with_no_facts(tmp_path: Path) -> None:
    results = ResultCache(tmp_path, SETTINGS)
    key = content_hash(SOURCE)
    results.put(key, RULES, _result())
    assert results.get(Path("m.py"), key, RULES, NO_FACTS, lambda: SOURCE) is not None


def test_the_entry_key_is_the_documented_hash(tmp_path: Path) -> None:
    import hashlib
    results = ResultCache(tmp_path, SETTINGS)
    salt = hashlib.sha256(f"{cache.tool_fingerprint()}\0{SETTINGS!r}".encode()).digest()
    key = hashlib.sha256(salt + b"JAX001,JAX002\0" + facts_key(FACTS).encode() + b"\0None\0" + b"C").hexdigest()
    assert results._entry(b"C", RULES, FACTS) == tmp_path / key[:2] / f"{key[2:]}.json"
    floored = hashlib.sha256(salt + b"JAX001,JAX002\0" + facts_key(FACTS).encode() + b"\0(0, 4, 30)\0"
                             + b"C").hexdigest()
    assert results._entry(b"C", RULES, FACTS, (0, 4, 30)) == tmp_path / floored[:2] / f"{floored[2:]}.json"


@pytest.mark.parametrize("text", ["", "not json", "[]", "{}", '{"findings": [], "after": null}',
                                  '{"findings": [{"code": 1}], "after": null, "parsed": true}',
                                  '{"findings": [], "after": "x", "parsed": true, "encoding": "no-such-codec"}',
                                  '{"findings": [], "after": 3, "parsed": true, "encoding": "utf-8"}',
                                  '{"findings": [{"fix": null, "kind": "nonsense"}], "after": null}'])
def test_a_broken_entry_gives_none(tmp_path: Path, text: str) -> None:
    results = ResultCache(tmp_path, SETTINGS)
    entry = results._entry(b"C", RULES, NO_FACTS)
    entry.parent.mkdir(parents=True)
    entry.write_text(text)
    assert results.get(Path("m.py"), b"C", RULES, NO_FACTS, lambda: SOURCE) is None


def test_a_missing_entry_or_folder_gives_none(tmp_path: Path) -> None:
    assert ResultCache(tmp_path / "none", SETTINGS).get(Path("m.py"), b"C", RULES, NO_FACTS, _never_read) is None


def test_a_read_that_fails_gives_none(tmp_path: Path) -> None:
    results = ResultCache(tmp_path, SETTINGS)
    results.put(b"C", RULES, _result())

    def read() -> bytes:
        raise OSError("gone")

    assert results.get(Path("m.py"), b"C", RULES, NO_FACTS, read) is None


NOTEBOOK = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                       "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                                  "source": ["x = f(1, 2)\n"]}]}, indent=1).encode()


def test_a_notebooks_result_is_put_back_into_its_cells(tmp_path: Path) -> None:
    results = ResultCache(tmp_path, SETTINGS)
    results.put(b"N", RULES, _result(findings=[_fixed()], new_source=b"ignored"))
    got = results.get(Path("nb.IPYNB"), b"N", RULES, NO_FACTS, lambda: NOTEBOOK)
    assert got is not None and got.cells is not None
    assert got.raw == NOTEBOOK
    assert got.new_source == NOTEBOOK.replace(b"f(1, 2)", b"f(1, 3)")


def test_a_notebook_with_findings_but_no_fix_is_read_for_its_cells_and_keeps_no_raw(tmp_path: Path) -> None:
    results = ResultCache(tmp_path, SETTINGS)
    results.put(b"N", RULES, _result(findings=[_manual()], new_source=None))
    reads = []
    got = results.get(Path("nb.ipynb"), b"N", RULES, NO_FACTS, lambda: reads.append(1) or NOTEBOOK)
    assert reads == [1] and got.cells is not None and got.raw == b"" and got.new_source is None


def test_a_notebook_without_findings_or_unparsed_is_not_read(tmp_path: Path) -> None:
    results = ResultCache(tmp_path, SETTINGS)
    results.put(b"A", RULES, _result(findings=[], new_source=None))
    got = results.get(Path("nb.ipynb"), b"A", RULES, NO_FACTS, _never_read)
    assert got is not None and got.cells is None and got.findings == []
    results.put(b"B", RULES, _result(findings=[_manual()], new_source=None, parsed=False))
    got = results.get(Path("nb.ipynb"), b"B", RULES, NO_FACTS, _never_read)
    assert got is not None and got.cells is None


def test_a_notebook_that_no_longer_reads_gives_none(tmp_path: Path) -> None:
    results = ResultCache(tmp_path, SETTINGS)
    results.put(b"N", RULES, _result(findings=[_fixed()]))
    assert results.get(Path("nb.ipynb"), b"N", RULES, NO_FACTS, lambda: b"not a notebook") is None


# ResultCache: the project's state

STATE = ProjectState(contents={"pkg.a": b"\x01" * 32, "pkg.b": b"\x02" * 32},
                     facts={"pkg.a": (FACTS, frozenset({"pkg.b"})), "pkg.b": (NO_FACTS, frozenset()),
                            "pkg.c": (replace(FACTS, read_elsewhere=(("MIXED", ("pkg.a",)),),
                                              precision_wrappers=(("pkg.a.mm", None, "p", frozenset({"tpu"}), True),)),
                                      frozenset())},
                     parts={("pkg.b", "word"): 7}, tables=({"w": ("pkg.a",)}, None),
                     table_dependencies=frozenset({"pkg.a"}))


def test_the_project_state_round_trips(tmp_path: Path) -> None:
    results = ResultCache(tmp_path, SETTINGS)
    assert results.project_state("layout") is None
    results.store_project_state("layout", STATE)
    got = ResultCache(tmp_path, SETTINGS).project_state("layout")
    assert got == STATE
    assert isinstance(got.facts["pkg.a"][0], ModuleFacts)
    assert results.project_state("other layout") is None
    assert ResultCache(tmp_path, Settings((0, 10, 2))).project_state("layout") is None
    [entry] = tmp_path.rglob("*.project")
    assert len(entry.parent.name) == 2 and len(entry.stem) == 62 and entry.parent.parent == tmp_path
    assert list(tmp_path.rglob("*.tmp")) == []


SUMMARY = ("pkg.a", {}, {}, (), (), (), ())


def test_the_summaries_are_an_entry_of_their_own_written_only_where_one_changed(tmp_path: Path, monkeypatch) -> None:
    """The state names the `.summaries` entry; kept again as read, it is neither read nor written; a
    changed summary writes a new one, and the one named before goes."""
    results = ResultCache(tmp_path, SETTINGS)
    blob = marshal.dumps({"pkg.a": SUMMARY})
    results.store_project_state("layout", replace(STATE, summaries=KeptSummaries({"pkg.a": b"A"}, blob)))
    [summaries] = tmp_path.rglob("*.summaries")
    [entry] = tmp_path.rglob("*.project")
    assert summaries.read_bytes() == blob and blob not in entry.read_bytes()
    written: list[Path] = []
    write = ResultCache._write_bytes
    monkeypatch.setattr(ResultCache, "_write_bytes", staticmethod(lambda path, data: (written.append(path), write(path, data))))
    again = ResultCache(tmp_path, SETTINGS)
    got = again.project_state("layout")
    assert got is not None and got.summaries.blob == b"" and got.summaries.path == str(summaries)
    again.store_project_state("layout", got)  # as read: only the state is written
    assert written == [entry] and got.summaries._data is None
    assert ResultCache(tmp_path, SETTINGS).project_state("layout").summaries.data("pkg.a") == SUMMARY
    new = ("pkg.a", {}, {}, (), (), (), ("pkg.b",))
    changed = got.summaries.updated({"pkg.a": b"A2"}, {"pkg.a": new})
    third = ResultCache(tmp_path, SETTINGS)
    third.project_state("layout")
    third.store_project_state("layout", replace(got, summaries=changed))
    [now] = tmp_path.rglob("*.summaries")
    assert now != summaries and marshal.loads(now.read_bytes()) == {"pkg.a": new}
    summaries_kept = ResultCache(tmp_path, SETTINGS).project_state("layout").summaries
    now.unlink()  # (another run's store removed it): the summary is made again, not read
    assert summaries_kept.data("pkg.a") is None


@pytest.mark.parametrize("damage", ["truncate", "empty", "other data", "wrong shape"])
def test_a_damaged_project_state_gives_none(tmp_path: Path, damage: str) -> None:
    results = ResultCache(tmp_path, SETTINGS)
    results.store_project_state("layout", STATE)
    [entry] = tmp_path.rglob("*.project")
    data = entry.read_bytes()
    entry.write_bytes({"truncate": data[:len(data) // 2], "empty": b"", "other data": marshal.dumps((1, 2)),
                       "wrong shape": marshal.dumps((1, {"m": 3}, 3, 4, 5))}[damage])
    assert results.project_state("layout") is None


def test_the_project_entry_is_the_documented_hash(tmp_path: Path) -> None:
    import hashlib
    results = ResultCache(tmp_path, SETTINGS)
    key = hashlib.sha256(results._salt + b"project\0" + b"L").hexdigest()
    assert results._project_entry("L") == tmp_path / key[:2] / f"{key[2:]}.project"


# Writing


def test_a_write_makes_its_folders_and_replaces_an_entry(tmp_path: Path) -> None:
    entry = tmp_path / "a" / "b" / "e.json"
    ResultCache._write(entry, {"k": 1})
    assert json.loads(entry.read_text()) == {"k": 1}
    ResultCache._write_bytes(entry, b"second")
    assert entry.read_bytes() == b"second"
    assert sorted(p.name for p in entry.parent.iterdir()) == ["e.json"]


def test_a_write_that_cannot_make_its_folder_fails_nothing(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    ResultCache._write_bytes(tmp_path / "file" / "e.json", b"x")
    assert (tmp_path / "file").read_text() == ""


def test_a_write_that_cannot_replace_leaves_no_temporary(tmp_path: Path) -> None:
    entry = tmp_path / "e.json"
    entry.mkdir()
    (entry / "inside").write_text("")
    ResultCache._write_bytes(entry, b"x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.json"]


def test_a_write_that_fails_midway_leaves_no_temporary(tmp_path: Path, monkeypatch) -> None:
    def replace(*args):
        raise OSError("no")

    monkeypatch.setattr(cache.os, "replace", replace)
    ResultCache._write_bytes(tmp_path / "d" / "e.json", b"x")
    assert list((tmp_path / "d").iterdir()) == []


# FileMemo


def _old(path: Path, text: str = "x = 1\n", ago: float = 10) -> os.stat_result:
    path.write_text(text)
    when = time.time() - ago
    os.utime(path, (when, when))
    return path.stat()


def _known(tag: str = "a", size: int = 6, mtime: int = 1) -> Known:
    return Known(size, mtime, bytes([1, 2, 255]), f"facts {tag}", ("JAX003",), ("JAX001", "JAX002"))


def _memo(tmp_path: Path, rules=RULES, settings=SETTINGS) -> FileMemo:
    return FileMemo(tmp_path / "cache", settings, rules)


def test_what_a_run_learnt_is_looked_up_by_the_next(tmp_path: Path) -> None:
    status = _old(tmp_path / "m.py")
    memo = _memo(tmp_path)
    known = _known(size=status.st_size, mtime=status.st_mtime_ns)
    assert memo.lookup("m.py", status) is None
    memo.learn("m.py", status, known)
    assert memo.lookup("m.py", status) is None  # not before the next run
    memo.save()
    again = _memo(tmp_path)
    assert again.lookup("m.py", status) == known
    assert again.lookup("other.py", status) is None
    [manifest] = (tmp_path / "cache").rglob("*.files")
    assert len(manifest.parent.name) == 2 and len(manifest.stem) == 62
    assert marshal.loads(manifest.read_bytes()) == {
        "m.py": (status.st_size, status.st_mtime_ns, b"\x01\x02\xff", "facts a", ("JAX003",), ("JAX001", "JAX002"))}
    assert manifest.with_suffix(".lock").is_file()
    assert list((tmp_path / "cache").rglob("*.tmp")) == []


def test_a_file_of_another_size_or_mtime_is_not_trusted(tmp_path: Path) -> None:
    status = _old(tmp_path / "m.py")
    memo = _memo(tmp_path)
    memo.learn("m.py", status, _known(size=status.st_size, mtime=status.st_mtime_ns))
    memo.save()
    again = _memo(tmp_path)
    touched = _old(tmp_path / "m.py", ago=20)
    assert touched.st_size == status.st_size and again.lookup("m.py", touched) is None
    grown = _old(tmp_path / "m.py", "x = 12\n", ago=10)
    os.utime(tmp_path / "m.py", ns=(status.st_mtime_ns, status.st_mtime_ns))
    grown = (tmp_path / "m.py").stat()
    assert grown.st_mtime_ns == status.st_mtime_ns and again.lookup("m.py", grown) is None


def test_a_file_modified_during_the_run_or_its_last_second_is_not_learnt(tmp_path: Path) -> None:
    memo = _memo(tmp_path)
    for ago in (0, 0.5):
        status = _old(tmp_path / "m.py", ago=ago)
        memo.learn("m.py", status, _known())
    memo.save()
    assert list((tmp_path / "cache").rglob("*.files")) == []
    status = _old(tmp_path / "m.py", ago=1.5)
    memo.learn("m.py", status, _known())
    memo.save()
    assert _memo(tmp_path).lookup("m.py", SimpleNamespace(st_size=6, st_mtime_ns=1)) == _known()


def test_the_trust_boundary_is_one_second_before_the_run(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(cache.time, "time_ns", lambda: 5_000_000_000)
    memo = _memo(tmp_path)
    memo.learn("at.py", SimpleNamespace(st_mtime_ns=4_000_000_000), _known("at"))
    memo.learn("before.py", SimpleNamespace(st_mtime_ns=3_999_999_999), _known("before"))
    assert set(memo._learnt) == {"before.py"}


def test_learning_what_was_known_writes_nothing(tmp_path: Path) -> None:
    status = _old(tmp_path / "m.py")
    memo = _memo(tmp_path)
    memo.learn("m.py", status, _known())
    memo.save()
    [manifest] = (tmp_path / "cache").rglob("*.files")
    manifest.write_bytes(manifest.read_bytes())  # same content, new mtime
    before = manifest.stat().st_mtime_ns
    again = _memo(tmp_path)
    again.learn("m.py", status, _known())
    assert again._learnt == {}
    again.save()
    assert manifest.stat().st_mtime_ns == before


def test_learn_replace_false_keeps_what_the_run_learnt_first(tmp_path: Path) -> None:
    status = _old(tmp_path / "m.py")
    memo = _memo(tmp_path)
    memo.learn("m.py", status, _known("first"), replace=False)
    memo.learn("m.py", status, _known("second"), replace=False)
    assert memo._learnt == {"m.py": _known("first")}
    memo.learn("m.py", status, _known("third"))
    assert memo._learnt == {"m.py": _known("third")}
    memo.learn("n.py", status, _known("n"), replace=False)
    assert memo._learnt["n.py"] == _known("n")


def test_save_merges_with_what_another_run_saved(tmp_path: Path) -> None:
    status = _old(tmp_path / "m.py")
    one, two = _memo(tmp_path), _memo(tmp_path)
    one.learn("a.py", status, _known("a"))
    one.learn("both.py", status, _known("one"))
    two.learn("b.py", status, _known("b"))
    two.learn("both.py", status, _known("two"))
    one.save()
    two.save()
    again = _memo(tmp_path)
    fake = SimpleNamespace(st_size=6, st_mtime_ns=1)
    assert again.lookup("a.py", fake) == _known("a")
    assert again.lookup("b.py", fake) == _known("b")
    assert again.lookup("both.py", fake) == _known("two")


def test_a_memo_with_nothing_learnt_writes_nothing(tmp_path: Path) -> None:
    _memo(tmp_path).save()
    assert not (tmp_path / "cache").exists()


def test_the_manifest_is_per_settings_and_rules(tmp_path: Path) -> None:
    status = _old(tmp_path / "m.py")
    memo = _memo(tmp_path)
    memo.learn("m.py", status, _known())
    memo.save()
    fake = SimpleNamespace(st_size=6, st_mtime_ns=1)
    assert _memo(tmp_path).lookup("m.py", fake) == _known()
    assert _memo(tmp_path, rules=RULES[:1]).lookup("m.py", fake) is None
    assert _memo(tmp_path, rules=[SimpleNamespace(code="JAX001JAX002")]).lookup("m.py", fake) is None
    assert _memo(tmp_path, settings=Settings((0, 10, 2))).lookup("m.py", fake) is None


def test_the_manifest_path_is_the_documented_hash(tmp_path: Path) -> None:
    import hashlib
    salt = f"{cache.tool_fingerprint()}\0{SETTINGS!r}\0JAX001,JAX002"
    key = hashlib.sha256(salt.encode()).hexdigest()
    assert _memo(tmp_path)._path == tmp_path / "cache" / key[:2] / f"{key[2:]}.files"


@pytest.mark.parametrize("data", [b"", b"not marshal", marshal.dumps([]), marshal.dumps(None),
                                  marshal.dumps({"m.py": (1, 2)}), marshal.dumps({"m.py": 3}),
                                  b'{"m.py": [1, 2, "0aff", "f", [], []]}'])  # (the last: a manifest in JSON, as kept before)
def test_a_broken_manifest_is_empty(tmp_path: Path, data: bytes) -> None:
    memo = _memo(tmp_path)
    memo._path.parent.mkdir(parents=True)
    memo._path.write_bytes(data)
    assert _memo(tmp_path)._load() == {}


def test_load_reads_every_field(tmp_path: Path) -> None:
    memo = _memo(tmp_path)
    memo._path.parent.mkdir(parents=True)
    memo._path.write_bytes(marshal.dumps({"m.py": (6, 9, b"\x0a\xff", "f", ("S",), ("R1", "R2"))}))
    assert _memo(tmp_path)._load() == {"m.py": Known(6, 9, b"\x0a\xff", "f", ("S",), ("R1", "R2"))}


def test_a_manifest_that_cannot_be_locked_is_still_saved(tmp_path: Path) -> None:
    status = _old(tmp_path / "m.py")
    memo = _memo(tmp_path)
    memo.learn("m.py", status, _known())
    memo._path.parent.mkdir(parents=True)
    memo._path.with_suffix(".lock").mkdir()  # open() fails
    memo.save()
    assert memo._path.is_file()


def test_locked_holds_an_exclusive_lock(tmp_path: Path) -> None:
    import fcntl
    lock = tmp_path / "d" / "x.lock"
    with cache._locked(lock):
        assert lock.is_file()
        with open(lock, "a+b") as other:
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    with open(lock, "a+b") as other:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)


# clean


def test_clean_removes_only_the_caches_files_and_names_what_it_left(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    (root / "ab").mkdir(parents=True)
    (root / "0f").mkdir()
    for name, size in (("e.json", 3), ("e.project", 4), ("e.files", 5), ("e.lock", 0), ("x.tmp", 1)):
        (root / "ab" / name).write_bytes(b"x" * size)
    (root / "0f" / "e.json").write_bytes(b"yy")
    (root / "0f" / "notes.txt").write_text("mine")
    (root / "0f" / "sub").mkdir()
    (root / "0f" / "link.json").symlink_to(root / "0f" / "notes.txt")
    (root / "AB").mkdir()
    (root / "AB" / "e.json").write_text("")
    (root / "abc").mkdir()
    (root / "g0").mkdir()
    (root / "readme.json").write_text("")
    (root / "cd").symlink_to(root / "abc")
    removed, size, left = clean(root)
    assert (removed, size) == (6, 15)
    assert left == [root / "0f" / "link.json", root / "0f" / "notes.txt", root / "0f" / "sub",
                    root / "AB", root / "abc", root / "cd", root / "g0", root / "readme.json"]
    assert not (root / "ab").exists()
    assert (root / "0f" / "notes.txt").read_text() == "mine" and (root / "AB" / "e.json").exists()
    assert root.is_dir()


def test_clean_removes_the_emptied_folder_and_is_idempotent(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    ResultCache(root, SETTINGS).put(b"C", RULES, _result())
    assert clean(root)[:2][0] == 1
    assert not root.exists()
    assert clean(root) == (0, 0, [])
    assert tmp_path.exists()


def test_clean_of_a_file_leaves_it(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    assert clean(tmp_path / "f") == (0, 0, [])
    assert (tmp_path / "f").exists()


def test_clean_keeps_a_folder_with_entries_it_left(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    (root / "ab").mkdir(parents=True)
    (root / "ab" / "keep").write_text("")
    assert clean(root) == (0, 0, [root / "ab" / "keep"])
    assert (root / "ab" / "keep").exists()


# The folder, the fingerprint, the facts' key


def test_default_directory(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JAX_CODEMOD_CACHE_DIR", str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_directory() == tmp_path / "mine"
    monkeypatch.setenv("JAX_CODEMOD_CACHE_DIR", "")
    assert default_directory() == tmp_path / "xdg" / "jax-codemod"
    monkeypatch.delenv("JAX_CODEMOD_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_directory() == tmp_path / "home" / ".cache" / "jax-codemod"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert default_directory() == tmp_path / "home" / ".cache" / "jax-codemod"


def test_tool_fingerprint_is_stable_and_covers_the_source(monkeypatch) -> None:
    import hashlib
    import sys
    from codemods.capabilities import installed_version
    first = cache.tool_fingerprint()
    assert cache.tool_fingerprint() == first and len(first) == 64
    cache.tool_fingerprint.cache_clear()
    try:
        assert cache.tool_fingerprint() == first
        package = Path(cache.__file__).resolve().parents[1]
        digest = hashlib.sha256(f"{cache.FORMAT}\0{sys.version}\0{installed_version('libcst')}".encode())
        for path in sorted(package.rglob("*.py")):
            digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
        assert first == digest.hexdigest()
    finally:
        cache.tool_fingerprint.cache_clear()


def test_facts_key_is_the_facts_sorted(tmp_path: Path) -> None:
    assert json.loads(facts_key(FACTS)) == {
        "kernels": [["body", ["gpu", "tpu"], "launched", "body"]],
        "shared": ["a", "b"],
        "launchers": [["pkg.launch", 1, "kernel", ["cpu", "gpu"]]], "through": [], "read_elsewhere": [],
        "precision_wrappers": [], "flow": [[]] * 11, "x64_elsewhere": []}
    assert facts_key(NO_FACTS) == \
        '{"kernels": [], "shared": [], "launchers": [], "through": [], "read_elsewhere": [], "precision_wrappers": [], ' \
        '"flow": [[], [], [], [], [], [], [], [], [], [], []], "x64_elsewhere": []}'
    assert json.loads(facts_key(replace(FACTS, x64_elsewhere=("pkg.main", 3))))["x64_elsewhere"] == ["pkg.main", 3]
    assert json.loads(facts_key(replace(FACTS, through=(("pkg.ops.lax", "jax.lax"),))))["through"] == [["pkg.ops.lax", "jax.lax"]]
    assert json.loads(facts_key(replace(FACTS, read_elsewhere=(("MIXED", ("pkg.reference",)),))))["read_elsewhere"] == \
        [["MIXED", ["pkg.reference"]]]
    wrapped = replace(FACTS, precision_wrappers=(("pkg.ops.matmul", 2, "precision", frozenset({"tpu", "gpu"}), False),))
    assert json.loads(facts_key(wrapped))["precision_wrappers"] == [["pkg.ops.matmul", 2, "precision", ["gpu", "tpu"], False]]
    flowing = replace(FACTS, flow=FlowFacts(sinks=(SinkAnswer(
        (3, 4), "jax.numpy.dot", frozenset({"triton", "mosaic_tpu"}), (), ("why",), True),)))
    assert json.loads(facts_key(flowing))["flow"] == [
        [[[3, 4], "jax.numpy.dot", ["mosaic_tpu", "triton"], [], ["why"], True, [], False, []]], [], [], [], [], [], [], [], [], [], []]
    run_there = replace(FACTS, flow=FlowFacts(kernels=(("body", frozenset({"triton", "mosaic_tpu"}), "launched by m.run",
                                                        "body", False),)))
    assert json.loads(facts_key(run_there))["flow"][5] == [["body", ["mosaic_tpu", "triton"], "launched by m.run", "body", False]]
    called = replace(FACTS, flow=FlowFacts(called=(Called((3, 17), "jax.nn.elu", frozenset({"triton", "mosaic_tpu"}), (),
                                                          ("the entry 'elu' of the dict in `t` on line 4",)),)))
    assert json.loads(facts_key(called))["flow"][6] == [[[3, 17], "jax.nn.elu", ["mosaic_tpu", "triton"], [],
                                                         ["the entry 'elu' of the dict in `t` on line 4"], False]]
    given = replace(FACTS, flow=FlowFacts(dtypes=(("body", "dtype", ("int8",), False),),
                                          operands=(("raw", ("int8",), "`m` line 3"),),
                                          refs=(("raw", "x_ref", (("int8", ("(m:3)",)),)),),
                                          named_dtypes=(("pkg.config.QDTYPE", "int8"),)))
    assert json.loads(facts_key(given))["flow"][7:] == [[["body", "dtype", ["int8"], False]], [["raw", ["int8"], "`m` line 3"]],
                                                        [["raw", "x_ref", [["int8", ["(m:3)"]]]]],
                                                        [["pkg.config.QDTYPE", "int8"]]]
    same = ModuleFacts(kernels=(("body", frozenset({"gpu", "tpu"}), "launched", "body"),),
                       shared=frozenset({"a", "b"}),
                       launchers=(("pkg.launch", 1, "kernel", frozenset({"cpu", "gpu"})),))
    assert facts_key(same) == facts_key(FACTS)


def test_content_hash_is_sha256() -> None:
    import hashlib
    assert content_hash(b"abc") == hashlib.sha256(b"abc").digest()


def test_clean_leaves_a_two_letter_folder_that_is_not_hex(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    (root / "XX").mkdir(parents=True)
    (root / "XX" / "e.json").write_text("mine")
    assert clean(root) == (0, 0, [root / "XX"])
    assert (root / "XX" / "e.json").read_text() == "mine"


def test_a_write_goes_through_a_tmp_file_beside_its_entry(tmp_path: Path, monkeypatch) -> None:
    temporaries = []
    real_replace = os.replace

    def replace(source, target):
        temporaries.append(Path(source))
        assert Path(source).read_bytes() == b"data"
        return real_replace(source, target)

    monkeypatch.setattr(cache.os, "replace", replace)
    entry = tmp_path / "ab" / "e.json"
    ResultCache._write_bytes(entry, b"data")
    [temporary] = temporaries
    assert temporary.parent == entry.parent and temporary.name.endswith(".tmp") and temporary.suffix == ".tmp"
    assert entry.read_bytes() == b"data"


def test_a_temporary_removed_meanwhile_fails_nothing(tmp_path: Path, monkeypatch) -> None:
    """`jax-codemod clean` run at the same time removes the `.tmp` file before it is renamed."""
    def replace(source, target):
        os.unlink(source)
        raise FileNotFoundError(source)

    monkeypatch.setattr(cache.os, "replace", replace)
    ResultCache._write_bytes(tmp_path / "ab" / "e.json", b"x")
    assert list((tmp_path / "ab").iterdir()) == []


# Added for session 10's changed functions (mutation run of session 11, docs/testing.md) ----------

@pytest.mark.skipif(os.name != "posix", reason="a file name that is not UTF-8 needs a POSIX file system")
def test_a_run_over_a_file_whose_name_is_not_utf8_is_recorded_and_replayed(tmp_path: Path) -> None:
    """The run record's key spells such a name with surrogateescape (RunRecord.__init__)."""
    path = tmp_path / os.fsdecode(b"m\xff.py")
    path.write_bytes(SOURCE)
    old = time.time() - 10
    os.utime(path, (old, old))
    results = ResultCache(tmp_path / "cache", SETTINGS)
    files = [path]
    cache.RunRecord(results, RULES, files, files, lambda p: frozenset()).store(
        [_result(path=os.fspath(path), findings=[_manual()], new_source=None)])
    [replayed] = cache.RunRecord(results, RULES, files, files, lambda p: frozenset()).replay(lambda p: path.read_bytes())
    assert (replayed.path, replayed.findings) == (os.fspath(path), [_manual()])


def _recorded(tmp_path: Path, files: list, project: list) -> ResultCache:
    """A run record of `files` (a [manual] finding in each) over `project`, stored in tmp_path/cache."""
    results = ResultCache(tmp_path / "cache", SETTINGS)
    cache.RunRecord(results, RULES, files, project, lambda p: frozenset()).store(
        [_result(path=os.fspath(path), findings=[_manual()], new_source=None) for path in files])
    return results


def _aged(*paths: Path) -> None:
    old = time.time() - 10
    for path in paths:
        os.utime(path, (old, old))


def test_a_change_to_a_project_file_the_run_did_not_name_is_not_replayed(tmp_path: Path) -> None:
    """The record stamps the project's files too (RunRecord._stamps): a module the named file
    imports may change what is found in it."""
    named, other = tmp_path / "a.py", tmp_path / "b.py"
    named.write_bytes(SOURCE)
    other.write_bytes(SOURCE)
    _aged(named, other)
    files, project = [named], [named, other]
    results = _recorded(tmp_path, files, project)
    record = lambda: cache.RunRecord(results, RULES, files, project, lambda p: frozenset())  # noqa: E731
    assert [r.findings for r in record().replay(lambda p: b"")] == [[_manual()]]
    other.write_bytes(SOURCE + b"y = 2\n")
    _aged(other)
    assert record().replay(lambda p: b"") is None


def test_clean_removes_a_run_record(tmp_path: Path) -> None:
    """A run record lies where `clean` looks for the cache's entries (a two-letter hex folder)."""
    named = tmp_path / "a.py"
    named.write_bytes(SOURCE)
    _aged(named)
    _recorded(tmp_path, [named], [named])
    [entry] = (tmp_path / "cache").rglob("*.run")
    size = entry.stat().st_size
    assert clean(tmp_path / "cache") == (1, size, []) and not (tmp_path / "cache").exists()
