"""codemods/engine/source.py called directly, in the test's process, on tmp_path: decoding a source
as Python does (and why it cannot be), the atomic write (the bytes, the permission bits, a link
kept, the temporary's name and folder, a failure), and the removal of the temporaries that killed
runs left (once per folder, only ours, only dead processes').

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks an outcome.
Nothing here imports jax.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from codemods.engine import source
from codemods.engine.source import SourceError, SourceFile, decode, remove_stale_temporaries, write_atomically

NO_SUCH_PID = 2_147_483_647  # above any pid_max: os.kill says no such process
TOO_BIG_PID = 9_999_999_999  # matches the name pattern, but os.kill cannot take it (OverflowError)


def _ours(pid: int, stem: str = "k.py", random: str = "abc_123") -> str:
    return f".{stem}.{pid}-{random}.jax-codemod.tmp"


# -- decode --


@pytest.mark.parametrize(("raw", "encoding", "text"), [
    (b"x = 1\n", "utf-8", "x = 1\n"),
    (b"", "utf-8", ""),
    (b"s = '\xc3\xa9'\r\n", "utf-8", "s = 'é'\r\n"),
    (b"\xef\xbb\xbfx = 1\r\n", "utf-8-sig", "x = 1\r\n"),
    (b"# -*- coding: latin-1 -*-\ns = '\xe9'\n", "iso-8859-1", "# -*- coding: latin-1 -*-\ns = 'é'\n"),
    (b"#!/usr/bin/env python\n# coding=cp1252\ns = '\x80'\n", "cp1252", "#!/usr/bin/env python\n# coding=cp1252\ns = '€'\n"),
])
def test_decode_as_python_does(raw: bytes, encoding: str, text: str) -> None:
    assert decode(Path("pkg/a.py"), raw) == SourceFile(Path("pkg/a.py"), raw, text, encoding)


def test_encode_gives_back_the_bytes_with_their_codec() -> None:
    for raw in [b"\xef\xbb\xbfx = 1\r\n", b"# coding: latin-1\ns = '\xe9'\n", b"s = '\xc3\xa9'\n"]:
        decoded = decode(Path("a.py"), raw)
        assert decoded.encode(decoded.text) == raw
    assert decode(Path("a.py"), b"# coding: latin-1\n").encode("s = 'é'") == b"s = '\xe9'"



def test_encode_keeps_the_spelling_of_every_line_the_edit_leaves_alone() -> None:
    """utf-7 spells `é'` `+AOk'` or `+AOk-'`: encoding the whole text again respelt a line nobody edited."""
    decoded = decode(Path("a.py"), b"# coding: utf-7\ns = '+AOk-'\nx = 1\nt = '+AOk-'\n")
    assert decoded.encode(decoded.text.replace("x = 1", "x = 2")) == b"# coding: utf-7\ns = '+AOk-'\nx = 2\nt = '+AOk-'\n"
    assert decoded.encode(decoded.text + "y = 'é'\n") == decoded.raw + b"y = '+AOk'\n"


def test_encode_refuses_a_codec_whose_lines_are_not_its_bytes_lines() -> None:
    """unicode_escape spells two lines in one line of bytes: no line of bytes can be kept whole."""
    decoded = decode(Path("a.py"), b"# coding: unicode_escape\nx = 1\\ny = 2\n")
    assert decoded.text == "# coding: unicode_escape\nx = 1\ny = 2\n"
    with pytest.raises(UnicodeError, match="cannot spell the rewritten file without changing lines the fix leaves alone"):
        decoded.encode(decoded.text.replace("y = 2", "y = 3"))


@pytest.mark.parametrize(("raw", "code"), [
    (b"x = 1\n", b"x = 1\n"),
    (b"\xef\xbb\xbfimport jax\n", b"import jax\n"),
    (b"# -*- coding: latin-1 -*-\ns = '\xe9'\n", b"# -*- coding: latin-1 -*-\ns = '\xc3\xa9'\n"),
    (b"#!/bin/python\n# coding: utf-7\n+AGk-mport jax\n", b"#!/bin/python\n# coding: utf-7\nimport jax\n"),
    (b"x = 1\n\n# coding: latin-1\ns = '\xe9'\n", b"x = 1\n\n# coding: latin-1\ns = '\xe9'\n"),  # line 4: no cookie
    (b"# coding: nope\nx = 1\n", b"# coding: nope\nx = 1\n"),  # undecodable: its own processing says why
])
def test_utf8_code_is_what_python_reads_as_utf8(raw: bytes, code: bytes) -> None:
    assert source.utf8_code(raw) == code


@pytest.mark.parametrize(("raw", "message"), [
    (b"# -*- coding: nope -*-\nx = 1\n", "unknown encoding: nope"),                 # SyntaxError
    (b"# coding: hex\nx = 1\n",                                                  # LookupError
     "'hex' is not a text encoding; use codecs.decode() to handle arbitrary codecs"),
    (b"a = '\xff'\n", "invalid or missing encoding declaration"),
    (b"# coding: ascii\nc = '\xff'\n",                                           # UnicodeDecodeError
     "'ascii' codec can't decode byte 0xff in position 21: ordinal not in range(128)"),
])
def test_an_undecodable_source_says_why(raw: bytes, message: str) -> None:
    with pytest.raises(SourceError) as error:
        decode(Path("a.py"), raw)
    assert str(error.value) == f"cannot decode: {message}"
    assert error.value.__cause__ is None and error.value.__suppress_context__


# -- write_atomically --


@pytest.mark.parametrize("mode", [0o644, 0o600, 0o751, 0o4755, 0o1777, 0o640])
def test_a_write_replaces_the_bytes_and_keeps_the_permission_bits(tmp_path: Path, mode: int) -> None:
    target = tmp_path / "a.py"
    target.write_bytes(b"a = 1\n")
    os.chmod(target, mode)
    write_atomically(target, b"a = 2\r\n\xff")
    assert target.read_bytes() == b"a = 2\r\n\xff"
    assert stat.S_IMODE(os.stat(target).st_mode) == mode
    assert stat.S_ISREG(os.stat(target).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]


def test_a_write_through_a_link_replaces_its_target_and_keeps_the_link(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "a.py"
    real.write_bytes(b"a = 1\n")
    os.chmod(real, 0o600)
    link = tmp_path / "link.py"
    link.symlink_to(real)
    write_atomically(link, b"a = 2\n")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() == b"a = 2\n"
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o600
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["a.py"]


def test_a_write_goes_through_our_temporary_beside_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "k.py"
    target.write_bytes(b"old\n")
    replaced = []
    real_replace = os.replace

    def replace(src, dst):
        replaced.append((Path(src), Path(dst), Path(src).read_bytes(), stat.S_IMODE(os.stat(src).st_mode)))
        real_replace(src, dst)

    os.chmod(target, 0o640)
    monkeypatch.setattr(os, "replace", replace)
    write_atomically(target, b"new\n")
    [(tmp, dst, data, mode)] = replaced
    assert (tmp.parent, dst, data, mode) == (tmp_path, target, b"new\n", 0o640)
    assert tmp.name.startswith(f".k.py.{os.getpid()}-") and tmp.name.endswith(".jax-codemod.tmp")
    assert source._TEMPORARY.match(tmp.name)["pid"] == str(os.getpid())


def test_a_missing_file_is_not_created(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_atomically(tmp_path / "gone.py", b"x = 1\n")
    assert list(tmp_path.iterdir()) == []


def _fail(*args, **kwargs):
    raise OSError(errno.ENOSPC, "disk on fire")


@pytest.mark.parametrize("where", ["replace", "chmod", "fsync"])
def test_a_failed_write_leaves_the_original_and_no_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    target = tmp_path / "a.py"
    target.write_bytes(b"a = 1\n")
    monkeypatch.setattr(os, where, _fail)
    with pytest.raises(OSError, match=r"disk on fire") as error:
        write_atomically(target, b"a = 2\n")
    monkeypatch.undo()
    assert error.value.errno == errno.ENOSPC
    assert target.read_bytes() == b"a = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]


def test_an_interrupted_write_leaves_no_temporary_and_is_not_swallowed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "a.py"
    target.write_bytes(b"a = 1\n")

    def interrupt(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupt)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, b"a = 2\n")
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]


def test_a_temporary_that_cannot_be_removed_leaves_the_writes_own_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "a.py"
    target.write_bytes(b"a = 1\n")
    monkeypatch.setattr(os, "replace", _fail)
    monkeypatch.setattr(os, "unlink", lambda path: (_ for _ in ()).throw(PermissionError("no")))
    with pytest.raises(OSError, match=r"\A\[Errno 28\] disk on fire\Z"):
        write_atomically(target, b"a = 2\n")
    monkeypatch.undo()
    left = sorted(p.name for p in tmp_path.iterdir() if p != target)
    assert len(left) == 1 and left[0].startswith(f".a.py.{os.getpid()}-")
    assert (tmp_path / left[0]).read_bytes() == b"a = 2\n"


# -- the sweep: once per folder and process --


def test_the_first_write_into_each_folder_removes_its_stale_temporaries_once(tmp_path: Path) -> None:
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "a.py").write_bytes(b"a = 1\n")
        (tmp_path / folder / "b.py").write_bytes(b"b = 1\n")
        (tmp_path / folder / _ours(NO_SUCH_PID, "a.py")).write_bytes(b"")
    write_atomically(tmp_path / "one" / "a.py", b"a = 2\n")
    assert sorted(p.name for p in (tmp_path / "one").iterdir()) == ["a.py", "b.py"]
    assert (tmp_path / "two" / _ours(NO_SUCH_PID, "a.py")).exists()  # another folder: not yet
    write_atomically(tmp_path / "two" / "a.py", b"a = 2\n")
    assert sorted(p.name for p in (tmp_path / "two").iterdir()) == ["a.py", "b.py"]
    (tmp_path / "one" / _ours(NO_SUCH_PID, "b.py")).write_bytes(b"")  # after that folder's sweep
    write_atomically(tmp_path / "one" / "b.py", b"b = 2\n")
    assert sorted(p.name for p in (tmp_path / "one").iterdir()) == [_ours(NO_SUCH_PID, "b.py"), "a.py", "b.py"]
    assert (tmp_path / "one" / "b.py").read_bytes() == b"b = 2\n"


def test_the_sweep_is_of_the_files_folder_not_the_current_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "here").mkdir()
    (tmp_path / "there").mkdir()
    (tmp_path / "here" / _ours(NO_SUCH_PID)).write_bytes(b"")
    (tmp_path / "there" / _ours(NO_SUCH_PID)).write_bytes(b"")
    (tmp_path / "there" / "a.py").write_bytes(b"a = 1\n")
    monkeypatch.chdir(tmp_path / "here")
    write_atomically(Path("../there/a.py"), b"a = 2\n")
    assert sorted(p.name for p in (tmp_path / "there").iterdir()) == ["a.py"]
    assert (tmp_path / "here" / _ours(NO_SUCH_PID)).exists()
    assert remove_stale_temporaries(tmp_path / "there") == []
    assert (tmp_path / "here" / _ours(NO_SUCH_PID)).exists()


# -- remove_stale_temporaries --


def test_only_our_regular_temporaries_of_dead_processes_are_removed(tmp_path: Path) -> None:
    stale = [_ours(NO_SUCH_PID), _ours(NO_SUCH_PID, "a b.py", "z"), _ours(NO_SUCH_PID, "x\ny.py", "9_"),
             _ours(1_000_000_001, ".hidden.py")]
    kept = [
        _ours(os.getpid()),                       # a live process's (this one)
        _ours(TOO_BIG_PID),                       # a pid os.kill cannot take: taken for alive
        _ours(0), f".k.py.0{NO_SUCH_PID % 10**9}-abc.jax-codemod.tmp",  # no pid starts with 0
        f".k.py.{NO_SUCH_PID}0-abc.jax-codemod.tmp",  # 11 digits
        f".k.py.{NO_SUCH_PID}-ABC.jax-codemod.tmp",   # the random part is lower case
        f".k.py.{NO_SUCH_PID}-.jax-codemod.tmp",      # and not empty
        f"k.py.{NO_SUCH_PID}-abc.jax-codemod.tmp",    # no leading dot
        f"..{NO_SUCH_PID}-abc.jax-codemod.tmp",       # no name
        f".k.py{NO_SUCH_PID}-abc.jax-codemod.tmp",    # no dot before the pid
        f".k.py.{NO_SUCH_PID}-abc.jax-codemod.tmp.py", f".k.py.{NO_SUCH_PID}-abc.tmp", ".k.py.jax-codemod.tmp",
        "notes.tmp", "a.py",
    ]
    for name in stale + kept:
        (tmp_path / name).write_bytes(b"half")
    (tmp_path / _ours(NO_SUCH_PID, "folder")).mkdir()
    (tmp_path / _ours(NO_SUCH_PID, "link")).symlink_to(tmp_path / "notes.tmp")
    (tmp_path / _ours(NO_SUCH_PID, "dangling")).symlink_to(tmp_path / "nothing")
    kept += [_ours(NO_SUCH_PID, "folder"), _ours(NO_SUCH_PID, "link"), _ours(NO_SUCH_PID, "dangling")]
    assert sorted(remove_stale_temporaries(tmp_path)) == sorted(stale)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(kept)
    assert (tmp_path / "notes.tmp").read_bytes() == b"half"
    assert remove_stale_temporaries(tmp_path) == []


def test_a_folder_given_as_text(tmp_path: Path) -> None:
    (tmp_path / _ours(NO_SUCH_PID)).write_bytes(b"")
    assert remove_stale_temporaries(os.fspath(tmp_path)) == [_ours(NO_SUCH_PID)]  # type: ignore[arg-type]


def test_a_stale_temporary_that_cannot_be_removed_is_left_and_not_listed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (_ours(NO_SUCH_PID, "a.py"), _ours(NO_SUCH_PID, "b.py")):
        (tmp_path / name).write_bytes(b"")
    real_unlink = os.unlink

    def unlink(path, *args, **kwargs):
        if ".a.py." in os.fspath(path):
            raise PermissionError("no")
        real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", unlink)
    assert remove_stale_temporaries(tmp_path) == [_ours(NO_SUCH_PID, "b.py")]
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == [_ours(NO_SUCH_PID, "a.py")]


def test_a_folder_that_cannot_be_listed_has_nothing_removed(tmp_path: Path) -> None:
    assert remove_stale_temporaries(tmp_path / "missing") == []
    (tmp_path / "file").write_bytes(b"")
    assert remove_stale_temporaries(tmp_path / "file") == []


def test_nothing_is_removed_on_windows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / _ours(NO_SUCH_PID)
    stale.write_bytes(b"")
    folder = os.fspath(tmp_path)
    with monkeypatch.context() as patched:
        patched.setattr(os, "name", "nt")
        removed = remove_stale_temporaries(folder)  # type: ignore[arg-type]
    assert removed == [] and stale.exists()


# -- _alive --


def test_alive() -> None:
    assert source._alive(os.getpid()) is True
    assert source._alive(NO_SUCH_PID) is False
    assert source._alive(TOO_BIG_PID) is True


@pytest.mark.parametrize(("error", "alive"), [
    (ProcessLookupError(errno.ESRCH, "gone"), False), (PermissionError(errno.EPERM, "not yours"), True),
    (OSError(errno.EINVAL, "?"), True), (OverflowError("too big"), True)])
def test_alive_by_what_the_system_says(monkeypatch: pytest.MonkeyPatch, error: BaseException, alive: bool) -> None:
    asked = []

    def kill(pid, signal):
        asked.append((pid, signal))
        raise error

    monkeypatch.setattr(os, "kill", kill)
    assert source._alive(4242) is alive
    assert asked == [(4242, 0)]


def test_alive_asks_with_signal_0(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = []
    monkeypatch.setattr(os, "kill", lambda pid, signal: asked.append((pid, signal)))
    assert source._alive(77) is True
    assert asked == [(77, 0)]


def test_a_temporary_that_cannot_be_removed_does_not_stop_the_others(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = [_ours(NO_SUCH_PID, f"{stem}.py") for stem in "abcde"]
    for name in names:
        (tmp_path / name).write_bytes(b"")
    real_unlink, refused = os.unlink, []

    def unlink(path, *args, **kwargs):  # the first removal asked for fails, whichever file the listing gives first
        if not refused:
            refused.append(os.path.basename(path))
            raise PermissionError("no")
        real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", unlink)
    removed = remove_stale_temporaries(tmp_path)
    monkeypatch.undo()
    assert sorted(removed + refused) == sorted(names) and len(refused) == 1
    assert [p.name for p in tmp_path.iterdir()] == refused
