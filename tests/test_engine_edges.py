"""The engine's edge paths, called in-process: notebooks that are not notebooks, list layouts a fix
must keep, IPython lines next to strings and continuations, undecodable sources, failed writes and
stale temporary files, shards, virtualenvs and git that cannot answer. Until these tests, only the
CLI's subprocess tests (not measured) or nothing reached these lines. Nothing here imports jax.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from codemods.engine import cache, discovery, notebook, source, suppression
from codemods.engine.discovery import DiscoveryError, Shard

# -- notebooks: reading what is not a notebook --


@pytest.mark.parametrize("raw, reason", [
    (b'{"cells": [], "nbformat": 4\xff}', "not UTF-8 ('utf-8' codec can't decode byte 0xff in position 27: invalid start byte)"),
    (b'{"cells": [], "nbformat": 4', "not valid JSON (Expecting ',' delimiter: line 1 column 28 (char 27))"),
    (b"[" * 100_000, "not valid JSON (maximum recursion depth exceeded while decoding a JSON array from a unicode string)"),
    (b'[{"cells": []}]', "no `cells` list (not a Jupyter notebook)"),
    (b'{"nbformat": 4}', "no `cells` list (not a Jupyter notebook)"),
    (b'{"cells": {}, "nbformat": 4}', "no `cells` list (not a Jupyter notebook)"),
    (b'{"nbformat": 3, "worksheets": []}', "nbformat 3; only nbformat 4 is read"),
    (b'{"cells": [], "nbformat": 3}', "nbformat 3; only nbformat 4 is read"),
    (b'{"cells": []}', "nbformat None; only nbformat 4 is read"),
    (b'{"cells": [], "nbformat": "4"}', "nbformat '4'; only nbformat 4 is read"),
    (b'{"cells": [{"source": ""}, []], "nbformat": 4}', "cell 2 is not an object"),
    (b'{"cells": [{"source": 5}], "nbformat": 4}', "cell 1: `source` is not text"),
    (b'{"cells": [{"source": ["x = 1\\n", null]}], "nbformat": 4}', "cell 1: `source` is not text"),
])
def test_a_file_that_is_not_an_nbformat_4_notebook_is_refused_with_the_reason(raw: bytes, reason: str) -> None:
    with pytest.raises(notebook.NotebookError) as error:
        notebook.read(Path("nb.ipynb"), raw)
    assert str(error.value) == f"cannot read notebook: {reason}"


# -- notebooks: where module lines come from --


def _notebook(*cells: str, compact: bool = False) -> bytes:
    """An nbformat 4 notebook whose cells are the given JSON texts, laid out as Jupyter lays it out
    (indent 1, a final newline), or on one line with no newline anywhere (`compact`)."""
    if compact:
        return ('{"cells": [' + ", ".join(cells) + '], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}').encode()
    body = ",\n".join("  " + cell for cell in cells)
    return ('{\n "cells": [\n' + body + '\n ],\n "metadata": {},\n "nbformat": 4,\n "nbformat_minor": 5\n}\n').encode()


def _code(source_json: str) -> str:
    return '{\n   "cell_type": "code",\n   "metadata": {},\n   "source": ' + source_json + '\n  }'


THREE_CELLS = _notebook('{"cell_type": "markdown", "metadata": {}, "source": "# Title"}',
                        _code('"a = 1\\nb = 2\\n"'), _code('["c = 3"]'))


@pytest.mark.parametrize("line, where", [(-1, None), (0, None), (1, (2, 1)), (2, (2, 2)), (3, (3, 1))])
def test_a_module_line_is_located_in_its_cell_counting_markdown(line: int, where) -> None:
    assert notebook.read(Path("nb.ipynb"), THREE_CELLS).cells.locate(line) == where


def test_a_line_before_the_first_cell_is_located_nowhere() -> None:
    """read() always starts the first cell at line 0; Cells built otherwise must not wrap to the last cell."""
    cell = notebook.CodeCell(4, 0, 6, 2, "x = 1\n", False, (), False)
    assert notebook.Cells("\n\nx = 1\n", (cell,)).locate(1) is None
    assert notebook.Cells("\n\nx = 1\n", (cell,)).locate(3) == (4, 1)


def test_a_parse_errors_lines_are_said_in_cells_and_out_of_range_ones_kept() -> None:
    cells = notebook.read(Path("nb.ipynb"), THREE_CELLS).cells
    message = "'(' was never closed (line 3, column 15); see (line 2, column 1) and (line 0, column 7)"
    assert cells.locate_message(message) == \
        "'(' was never closed (cell 3, line 1, column 15); see (cell 2, line 2, column 1) and (line 0, column 7)"


# -- notebooks: writing a fixed cell back, every other byte kept --


@pytest.mark.parametrize("before, fixed, after", [
    pytest.param('[\n    "x = 1\\n",\n    "y = 2"\n   ]', "x = 10\ny = 2\n", '[\n    "x = 10\\n",\n    "y = 2"\n   ]',
                 id="jupyter"),
    pytest.param('[\n\t\t"x = 1\\n",\n\t\t"y = 2"\n\t]', "x = 10\ny = 2\n", '[\n\t\t"x = 10\\n",\n\t\t"y = 2"\n\t]',
                 id="tabs"),
    pytest.param('[ "x = 1\\n" ,  "y = 2" ]', "x = 10\ny = 2\n", '[ "x = 10\\n" ,  "y = 2" ]', id="spaced-one-line"),
    pytest.param('[\n      "x = 1"\n    ]', "import os\nx = 1\n", '[\n      "import os\\n",\n      "x = 1"\n    ]',
                 id="one-item-one-per-line"),
    pytest.param('["x = 1"]', "import os\nx = 1\n", '["import os\\n", "x = 1"]', id="one-item-on-one-line"),
    pytest.param('[\n    "x = 1\\n"\n   ]', "", "[]", id="emptied"),
])
def test_a_fixed_list_source_keeps_the_files_list_layout(before: str, fixed: str, after: str) -> None:
    raw = _notebook(_code(before))
    written = notebook.read(Path("nb.ipynb"), raw).encode(fixed)
    assert written == _notebook(_code(after))


def test_an_empty_list_in_a_notebook_on_one_line_stays_on_one_line() -> None:
    raw = _notebook('{"cell_type": "code", "source": []}', compact=True)
    written = notebook.read(Path("nb.ipynb"), raw).encode("import os\nimport re\n")
    assert written == _notebook('{"cell_type": "code", "source": ["import os\\n", "import re"]}', compact=True)


@pytest.mark.parametrize("empty", ["{}", "{ \n }"])
def test_an_empty_cell_object_is_stepped_over_when_writing(empty: str) -> None:
    raw = _notebook(empty, '{"cell_type": "code", "source": "x = 1\\n"}', compact=True)
    written = notebook.read(Path("nb.ipynb"), raw).encode("x = 2\n")
    assert written == _notebook(empty, '{"cell_type": "code", "source": "x = 2\\n"}', compact=True)


def test_a_fix_for_a_code_cell_without_source_is_refused() -> None:
    raw = _notebook('{"cell_type": "code"}', '{"cell_type": "code", "source": "x = 1\\n"}', compact=True)
    ipynb = notebook.read(Path("nb.ipynb"), raw)
    with pytest.raises(notebook.NotebookError, match=r"\Acell 1 has no `source` to write\Z"):
        ipynb.encode("import os\nx = 1\n")


# -- notebooks: which lines are IPython, next to strings and continuations --


@pytest.mark.parametrize("lines, ipython", [
    pytest.param(['s = "("\n', "%time f()\n"], ["%time f()"], id="bracket-in-string"),
    pytest.param(["s = '('  # )\n", "%time f()\n"], ["%time f()"], id="bracket-in-single-quotes"),
    pytest.param(['f("a")\n', "%time f()\n"], ["%time f()"], id="bracket-after-string"),
    pytest.param(['s = "(\n', "%time f()\n"], ["%time f()"], id="unclosed-string"),
    pytest.param(['s = "?#"\n'], [], id="question-mark-in-string"),
    pytest.param(['s = "\\"?#"\n'], [], id="escaped-quote"),
    pytest.param(['s = "\\\\"?\n'], ['s = "\\\\"?'], id="escaped-backslash"),
    pytest.param(['s = "\\n\\"?#"\n'], [], id="escaped-quote-after-an-escape"),
    pytest.param(["x = a \\\n", "% b\n"], [], id="backslash-continuation"),
    pytest.param(["x = a \\ \n", "% b\n"], ["% b"], id="backslash-not-last"),
])
def test_ipython_lines_are_told_from_strings_and_continuations(lines: list[str], ipython: list[str]) -> None:
    code, found = notebook._python_lines(lines, False)[:2]
    assert [text for _, _, text in found] == ipython
    assert len("".join(code)) == len("".join(lines))


# -- Python sources: decoding as Python would --


@pytest.mark.parametrize("raw, message", [
    (b"# -*- coding: nope -*-\nx = 1\n", "unknown encoding: nope"),
    (b"x = '\xff'\n", "invalid or missing encoding declaration"),
    (b"\xef\xbb\xbf# coding: latin-1\n", "encoding problem: utf-8"),
    (b"a = 1\nb = 2\nc = '\xff'\n", "'utf-8' codec can't decode byte 0xff in position 17: invalid start byte"),
    (b"# coding: ascii\na = 1\nc = '\xff'\n", "'ascii' codec can't decode byte 0xff in position 27: ordinal not in range(128)"),
])
def test_an_undecodable_source_says_why(raw: bytes, message: str) -> None:
    with pytest.raises(source.SourceError) as error:
        source.decode(Path("a.py"), raw)
    assert str(error.value) == f"cannot decode: {message}"


# -- Python sources: a write that fails, stale temporary files --


def _fail(*args, **kwargs):
    raise OSError("disk on fire")


@pytest.mark.parametrize("unlink_fails", [False, True])
def test_a_failed_write_leaves_the_original_and_raises_its_own_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unlink_fails: bool) -> None:
    target = tmp_path / "a.py"
    target.write_bytes(b"a = 1\n")
    monkeypatch.setattr(os, "replace", _fail)
    if unlink_fails:  # the temporary file stays, but the error reported is the write's
        monkeypatch.setattr(os, "unlink", lambda path: (_ for _ in ()).throw(PermissionError("no")))
    with pytest.raises(OSError, match=r"\Adisk on fire\Z"):
        source.write_atomically(target, b"a = 2\n")
    monkeypatch.undo()
    assert target.read_bytes() == b"a = 1\n"
    left = sorted(p.name for p in tmp_path.iterdir() if p != target)
    assert len(left) == unlink_fails and all(name.startswith(f".a.py.{os.getpid()}-") for name in left)


NO_SUCH_PID = 2_147_483_647  # above any pid_max: os.kill says no such process
TOO_BIG_PID = 9_999_999_999  # matches the name pattern, but os.kill cannot even take it


def test_only_our_temporaries_of_dead_processes_are_removed(tmp_path: Path) -> None:
    def name(pid: int, stem: str = "k.py") -> str:
        return f".{stem}.{pid}-abc_123.jax-codemod.tmp"

    for kept in [name(os.getpid()), name(TOO_BIG_PID), ".k.py.jax-codemod.tmp", "k.py.1-abc.jax-codemod.tmp"]:
        (tmp_path / kept).write_bytes(b"")
    (tmp_path / name(NO_SUCH_PID, "folder")).mkdir()
    (tmp_path / name(NO_SUCH_PID, "link")).symlink_to(tmp_path / ".k.py.jax-codemod.tmp")
    (tmp_path / name(NO_SUCH_PID)).write_bytes(b"half")
    assert source.remove_stale_temporaries(tmp_path) == [name(NO_SUCH_PID)]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [name(os.getpid()), name(TOO_BIG_PID), ".k.py.jax-codemod.tmp", "k.py.1-abc.jax-codemod.tmp",
         name(NO_SUCH_PID, "folder"), name(NO_SUCH_PID, "link")])


@pytest.mark.parametrize("pid, alive", [(os.getpid(), True), (TOO_BIG_PID, True), (NO_SUCH_PID, False)],
                         ids=["this-process", "beyond-any-pid", "no-such-process"])  # ids: a pid changes each run
def test_a_process_is_taken_for_alive_unless_the_system_says_it_is_gone(pid: int, alive: bool) -> None:
    assert source._alive(pid) is alive


def test_a_stale_temporary_that_cannot_be_removed_is_left_and_not_listed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / f".k.py.{NO_SUCH_PID}-abc.jax-codemod.tmp"
    stale.write_bytes(b"")
    monkeypatch.setattr(os, "unlink", _fail)
    assert source.remove_stale_temporaries(tmp_path) == []
    monkeypatch.undo()
    assert stale.exists()


def test_a_folder_that_cannot_be_listed_has_nothing_removed(tmp_path: Path) -> None:
    assert source.remove_stale_temporaries(tmp_path / "missing") == []


def test_nothing_is_removed_on_windows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """os.kill(pid, 0) would terminate the process there."""
    stale = tmp_path / f".k.py.{NO_SUCH_PID}-abc.jax-codemod.tmp"
    stale.write_bytes(b"")
    folder = os.fspath(tmp_path)  # no Path made while os.name lies
    with monkeypatch.context() as patched:
        patched.setattr(os, "name", "nt")
        removed = source.remove_stale_temporaries(folder)  # type: ignore[arg-type]
    assert removed == [] and stale.exists()


# -- suppression comments in a file the tokenizer gives up on --


@pytest.mark.parametrize("text", [
    "x = 1  # jax-codemod: ignore[jax001, ]\ns = '''\n# jax-codemod: ignore\n",
    "x = 1  # jax-codemod: ignore[jax001, ]\nif x:\n    a\n  b  # jax-codemod: ignore\n",
])
def test_suppressions_before_a_tokenize_error_are_kept(text: str) -> None:
    assert suppression.suppressions(text) == {1: suppression.Comment(1, 10, 39, ("jax001",))}


# -- discovery: shards, virtualenvs, git that cannot answer --


@pytest.mark.parametrize("text, shard", [("1/1", Shard(1, 1)), ("2/4", Shard(2, 4)), ("4/4", Shard(4, 4))])
def test_a_shard_is_parsed(text: str, shard: Shard) -> None:
    assert Shard.parse(text) == shard


@pytest.mark.parametrize("text, why", [
    ("x/4", "expected K/N, e.g. 1/4"), ("1/2/3", "expected K/N, e.g. 1/4"), ("3", "expected K/N, e.g. 1/4"),
    ("0/4", "K must be between 1 and N"), ("5/4", "K must be between 1 and N"), ("-1/4", "K must be between 1 and N"),
])
def test_a_bad_shard_is_refused_with_the_reason(text: str, why: str) -> None:
    with pytest.raises(DiscoveryError) as error:
        Shard.parse(text)
    assert str(error.value) == f"--shard {text!r}: {why}"


@pytest.mark.parametrize("path, shard", [
    ("/proj/pkg/a.py", 4),  # crc32 of b"pkg/a.py" (the absolute path's would give 5)
    ("/elsewhere/a.py", 5),  # outside the root: crc32 of its absolute path (b"elsewhere/a.py" would give 2)
])
def test_a_file_belongs_to_the_shard_its_path_hashes_to(path: str, shard: int) -> None:
    """The same file goes to the same shard on every machine: the hash is of these exact bytes."""
    assert [i for i in range(1, 6) if Shard(i, 5).holds(Path(path), Path("/proj"))] == [shard]


def test_a_folder_inside_a_virtualenv_says_which(tmp_path: Path) -> None:
    (tmp_path / "venv-like" / "lib" / "site").mkdir(parents=True)
    (tmp_path / "venv-like" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    why = discovery.why_empty(tmp_path / "venv-like" / "lib" / "site", lambda path: False)
    assert why == f"it lies in a virtualenv ({tmp_path / 'venv-like'}); name its files to process them"
    assert discovery.why_empty(tmp_path, lambda path: False) is None


def _git_answers(check_ignore):
    """subprocess.run as git would answer: inside a work tree, and `check-ignore` as given."""
    real = subprocess.run

    def run(args, **kwargs):
        if args[:2] == ["git", "rev-parse"]:
            return subprocess.CompletedProcess(args, 0, b"/work/tree\n", b"")
        if args[:2] == ["git", "check-ignore"]:
            return check_ignore(args)
        return real(args, **kwargs)
    return run


def _git_missing(args):
    raise FileNotFoundError("git")


@pytest.mark.parametrize("check_ignore, ignored", [
    (_git_missing, set()),
    (lambda args: subprocess.CompletedProcess(args, 128, b"b.py\0", b"fatal"), set()),
    (lambda args: subprocess.CompletedProcess(args, 1, b"", b""), set()),
    (lambda args: subprocess.CompletedProcess(args, 0, b"b.py\0", b""), {"/proj/b.py"}),
])
def test_files_are_kept_when_git_cannot_say_which_it_ignores(monkeypatch: pytest.MonkeyPatch, check_ignore, ignored) -> None:
    monkeypatch.setattr(subprocess, "run", _git_answers(check_ignore))
    assert discovery.git_ignored(Path("/proj"), [Path("/proj/a.py"), Path("/proj/b.py")]) == ignored


def test_without_git_no_folder_is_a_work_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", os.fspath(tmp_path))  # no git to run
    assert discovery.git_toplevel(tmp_path) is None


def test_diff_base_names_a_revision_the_repository_lacks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    subprocess.run(["git", "init", "-q", os.fspath(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DiscoveryError) as error:
        discovery.changed_since("no-such-rev", [])
    assert str(error.value) == f"--diff-base no-such-rev: no such revision in {tmp_path.resolve()}"


# -- the result cache: where it lives, and a folder it cannot make --


def test_the_cache_folder_named_by_the_environment_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JAX_CODEMOD_CACHE_DIR", os.fspath(tmp_path / "mine"))
    monkeypatch.setenv("XDG_CACHE_HOME", os.fspath(tmp_path / "xdg"))
    assert cache.default_directory() == tmp_path / "mine"


def test_a_cache_entry_that_cannot_be_made_is_skipped_silently(tmp_path: Path) -> None:
    (tmp_path / "file").write_bytes(b"")
    entry = tmp_path / "file" / "ab" / "cd.json"
    cache.ResultCache._write(entry, {"parsed": True})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"] and (tmp_path / "file").read_bytes() == b""
