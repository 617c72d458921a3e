"""Hostile input and hostile timing: the run goes on, nothing is lost, every problem is named.

FIFOs and devices named `*.py`, a folder named `x.py`, a symlink loop, a 50 MB file, absurd nesting,
NUL bytes, mixed line endings, form feeds, a read-only file that needs a fix, warnings from compiling
the user's code, and `--write` killed with SIGKILL at many points. Nothing here imports jax.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

import pytest

from tests.test_cli import CONV_FIXED, CONV_KERNEL, CONV_PAIR, REPO, TARGET, fix


def test_fifo_is_skipped_with_a_note_and_never_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "kernel.py").write_text(CONV_KERNEL)
    result = subprocess.run([sys.executable, "-m", "codemods", "--jax-version", TARGET, "--write", "."], cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert b"pipe.py: skipped: a FIFO, not read" in result.stderr and b"1 skipped" in result.stderr
    assert CONV_FIXED in (tmp_path / "kernel.py").read_bytes()


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_device_named_explicitly_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "null.py").symlink_to("/dev/null")
    result = fix("null.py", cwd=tmp_path)
    assert result.returncode == 0 and b"null.py: skipped: a device, not read" in result.stderr


def test_folder_named_like_a_module_and_symlink_loops(tmp_path: Path) -> None:
    (tmp_path / "x.py").mkdir()
    (tmp_path / "x.py" / "kernel.py").write_text(CONV_KERNEL)
    (tmp_path / "loop_a.py").symlink_to(tmp_path / "loop_b.py")
    (tmp_path / "loop_b.py").symlink_to(tmp_path / "loop_a.py")
    (tmp_path / "dir_loop").mkdir()
    (tmp_path / "dir_loop" / "self").symlink_to(tmp_path / "dir_loop")
    result = fix("--write", ".", cwd=tmp_path)
    assert result.returncode == 2, "an unreadable file is an error"
    assert b"loop_a.py: error: cannot read: Too many levels of symbolic links" in result.stderr
    assert b"Traceback" not in result.stderr
    assert CONV_FIXED in (tmp_path / "x.py" / "kernel.py").read_bytes(), "the rest of the run proceeds"


def test_a_50_mb_file_is_skipped_quickly(tmp_path: Path) -> None:
    line = b"TABLE.append((0.5, 'precision', 'pallas'))  # generated\n"
    (tmp_path / "table.py").write_bytes(line * (50 * 2**20 // len(line) + 1))
    (tmp_path / "kernel.py").write_text(CONV_KERNEL)
    start = time.monotonic()
    result = fix("--no-cache", ".", cwd=tmp_path)
    assert time.monotonic() - start < 30
    assert result.returncode == 1 and b"table.py: skipped: 50 MiB: larger than 16 MiB" in result.stderr


@pytest.mark.parametrize("source, reason", [
    ("x = " + "(" * 300 + "1" + ")" * 300 + "\n", b"cannot parse: too many nested parentheses"),
    ("x = 1\x00\n", b"cannot parse"),
])
def test_unparsable_files_are_named_with_a_reason(tmp_path: Path, source: str, reason: bytes) -> None:
    (tmp_path / "bad.py").write_text(CONV_KERNEL + source)
    (tmp_path / "kernel.py").write_text(CONV_KERNEL)
    result = fix("--write", ".", cwd=tmp_path)
    assert result.returncode == 2 and b"bad.py: error: " + reason in result.stderr
    assert b"Traceback" not in result.stderr
    assert CONV_FIXED in (tmp_path / "kernel.py").read_bytes()



def _python_before_3_12() -> Optional[str]:
    """A Python older than 3.12 that runs the tool (libcst, typer): this one (`make test`'s second
    run), the Makefile's oldest test venv, or python3.11; None if there is none."""
    candidates = [sys.executable, *map(str, sorted(REPO.glob(".venv-jax*/bin/python"))), shutil.which("python3.11")]
    for python in filter(None, candidates):
        probe = subprocess.run([python, "-c", "import sys, libcst, typer; sys.exit(sys.version_info >= (3, 12))"],
                               capture_output=True, timeout=60)
        if probe.returncode == 0:
            return python
    return None


def test_newer_syntax_under_an_older_python_says_which_python_and_what_to_do(tmp_path: Path) -> None:
    """A tool pipx or pre-commit installed on 3.11 said `invalid syntax` of valid 3.12 code, and every
    run exited 2 with no hint why (issue 49, item 10): the message names the interpreter and how to
    install the tool on 3.12. A file that is wrong in every Python gets no such hint."""
    python = _python_before_3_12()
    if python is None:
        pytest.skip("needs a Python before 3.12 with libcst and typer (make test's second run is one)")
    removed = "y = jax.tree_map(f, t)\n"  # each file has a finding to make, once parsed
    (tmp_path / "aliases.py").write_text("import jax\ntype Tree = dict[str, Tree]\n" + removed)
    (tmp_path / "generic.py").write_text("import jax\ndef first[T](xs: list[T]) -> T:\n    return xs[0]\n" + removed)
    (tmp_path / "broken.py").write_text("import jax\nz = (1 +\n" + removed)
    version = subprocess.run([python, "-c", "import sys; print(f'{sys.version_info[0]}.{sys.version_info[1]}', sys.executable)"],
                             capture_output=True, text=True, check=True).stdout.split()
    result = subprocess.run([python, "-m", "codemods", "--no-cache", "--jax-version", TARGET, "--check", "."],
                            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
                            timeout=120)
    hint = (f"; it is Python 3.12 syntax (a `type` statement or type parameters), and jax-codemod runs on Python "
            f"{version[0]} ({version[1]}): install it on the project's Python (`pipx install --python python3.12 ...`; "
            "pre-commit: `language_version: python3.12`)")
    errors = sorted(line for line in result.stderr.splitlines() if ": error: " in line)
    assert result.returncode == 2 and errors == [
        f"aliases.py: error: cannot parse: invalid syntax (line 2, column 6){hint}",
        "broken.py: error: cannot parse: '(' was never closed (line 2, column 5)",
        f"generic.py: error: cannot parse: expected '(' (line 2, column 10){hint}"], result.stderr


def test_syntax_of_a_python_newer_than_this_one_is_said_to_be(tmp_path: Path) -> None:
    """Python 3.14's `except A, B:` (PEP 758) under the Python the tests run on (3.11 or 3.12)."""
    if sys.version_info >= (3, 14):
        pytest.skip("Python 3.14 reads it")
    (tmp_path / "handler.py").write_text("import jax\ntry:\n    y = jax.tree_map(f, t)\nexcept KeyError, IndexError:\n    pass\n")
    result = fix("--no-cache", "handler.py", cwd=tmp_path)
    assert result.returncode == 2
    assert (f"handler.py: error: cannot parse: multiple exception types must be parenthesized (line 4, column 8); "
            f"it is the syntax of a newer Python, and jax-codemod runs on Python {sys.version_info[0]}."
            f"{sys.version_info[1]} ({sys.executable}): install it on the project's Python "
            "(`pipx install --python python3.X ...`; pre-commit: `language_version: python3.X`)").encode() in result.stderr, \
        result.stderr

def test_deep_nesting_next_to_a_fix(tmp_path: Path) -> None:
    """1,500 terms: Python compiles it, so the fix is made and verified. 3,000: Python's own parser
    gives up (so would `import`): a clear error, the file untouched."""
    legal = "y = " + " + ".join(["x"] * 1500) + "\n"
    (tmp_path / "deep.py").write_text(CONV_KERNEL + legal)
    result = fix("--write", "deep.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "deep.py").read_text() == CONV_KERNEL.replace(CONV_PAIR.decode(), CONV_FIXED.decode()) + legal
    absurd = "y = " + " + ".join(["x"] * 3000) + "\n"
    (tmp_path / "absurd.py").write_text(CONV_KERNEL + absurd)
    result = fix("--write", "absurd.py", cwd=tmp_path)
    assert result.returncode == 2 and b"absurd.py: error: cannot parse: maximum recursion depth" in result.stderr
    assert b"Traceback" not in result.stderr and (tmp_path / "absurd.py").read_text() == CONV_KERNEL + absurd


def test_mixed_line_endings_and_form_feeds_survive_a_fix(tmp_path: Path) -> None:
    lines = CONV_KERNEL.split("\n")
    mixed = "".join(line + ("\r\n" if i % 2 else "\n") for i, line in enumerate(lines[:-1]))
    mixed = mixed.replace("@jax.jit", "\f@jax.jit")
    path = tmp_path / "mixed.py"
    path.write_bytes(mixed.encode())
    result = fix("--write", "mixed.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert path.read_bytes() == mixed.encode().replace(CONV_PAIR, CONV_FIXED)


def test_read_only_file_needing_a_fix_is_an_error_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "locked.py"
    path.write_text(CONV_KERNEL)
    path.chmod(0o444)
    (tmp_path / "kernel.py").write_text(CONV_KERNEL)
    result = fix("--write", ".", cwd=tmp_path)
    assert result.returncode == 2
    assert b"locked.py: error: cannot write: the file is read-only" in result.stderr
    assert path.read_text() == CONV_KERNEL and CONV_FIXED in (tmp_path / "kernel.py").read_bytes()


def test_warnings_from_the_users_code_never_reach_stderr_bare(tmp_path: Path) -> None:
    noisy = CONV_KERNEL + 'PATTERN = "\\d+"  # an invalid escape: SyntaxWarning when compiled\n'
    (tmp_path / "noisy.py").write_text(noisy)
    result = fix("--write", "--no-cache", "noisy.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert b"Warning" not in result.stderr and b"<unknown>" not in result.stderr, result.stderr


# -- --write killed at any point: each file is the original or the whole rewrite --

SLOW_WRITES = """
import os, sys, time
real_replace = os.replace
started = []
def slow_replace(src, dst):
    if not started:  # tell the test the write phase has begun
        started.append(True)
        sys.stdout.write("writing\\n")
        sys.stdout.flush()
    time.sleep(float(os.environ["SLOW_WRITE_SECONDS"]))
    real_replace(src, dst)
os.replace = slow_replace
sys.argv = ["jax-codemod", *sys.argv[1:]]
import cli
cli.main()
"""


def test_sigkill_during_write_leaves_every_file_whole(tmp_path: Path) -> None:
    """50 runs of `--write` over 20 files, each killed with SIGKILL: 10 at a random moment of the whole
    run, 40 at a random moment of the write phase (a wrapper slows each write and says when the first
    begins). Every file is always either the original or the rewrite; temporary files that a kill
    leaves behind are ignored by the next run, which finishes the job."""
    project = tmp_path / "project"
    project.mkdir()
    originals = {f"k{i:02}.py": CONV_KERNEL.replace("conv_kernel", f"conv_kernel_{i}") for i in range(20)}
    rewritten = {name: text.replace(CONV_PAIR.decode(), CONV_FIXED.decode()) for name, text in originals.items()}
    wrapper = tmp_path / "slow_writes.py"
    wrapper.write_text(SLOW_WRITES)
    slow = 0.02
    env = {**os.environ, "PYTHONPATH": str(REPO), "SLOW_WRITE_SECONDS": str(slow),
           "JAX_CODEMOD_CACHE_DIR": str(tmp_path / "cache")}
    rng = random.Random(20261130)
    command = [sys.executable, str(wrapper), "--jax-version", TARGET, "--write", "--jobs", "1", str(project)]
    for name, text in originals.items():
        (project / name).write_text(text)
    start = time.monotonic()
    subprocess.run(command, env=env, capture_output=True, timeout=120, check=True)
    full = time.monotonic() - start
    inside_write_phase = 0
    for trial in range(50):
        for name, text in originals.items():
            (project / name).write_text(text)
        proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        if trial < 10:
            time.sleep(rng.uniform(0, full))
        else:
            assert proc.stdout is not None and proc.stdout.readline() == b"writing\n"
            time.sleep(rng.uniform(0, slow * len(originals)))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        states = set()
        for name in originals:
            text = (project / name).read_text()
            assert text in (originals[name], rewritten[name]), f"trial {trial}: {name} is neither whole file"
            states.add(text == rewritten[name])
        inside_write_phase += len(states) == 2
    assert inside_write_phase >= 20, f"only {inside_write_phase} kills landed between two writes"
    leftovers = [p.name for p in project.iterdir() if p.name.endswith(".jax-codemod.tmp")]
    (project / "k00.py").write_text(originals["k00.py"])  # so that the next run writes in the folder
    result = subprocess.run([sys.executable, "-m", "codemods", "--jax-version", TARGET, "--write", str(project)],
                            env=env, capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert all((project / name).read_text() == rewritten[name] for name in originals)
    assert b"jax-codemod.tmp" not in result.stderr, "stale temporary files are not taken for sources"
    assert sorted(p.name for p in project.iterdir()) == sorted(originals), "the next run removes what kills left"
    print(f"{len(leftovers)} temporary files left by the last killed write, removed by the next run")


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", ""])
    child.wait()
    return child.pid


def test_temporary_files_of_dead_runs_are_removed_by_the_next_write_there(tmp_path: Path) -> None:
    """A SIGKILL between a temporary file's creation and its rename leaves it behind: the next run
    that writes in that folder removes it, but never a live process's, nor a file that is not ours."""
    (tmp_path / "kernel.py").write_text(CONV_KERNEL)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "kernel.py").write_text(CONV_KERNEL.replace(CONV_PAIR.decode(), CONV_FIXED.decode()))
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        dead = _dead_pid()
        stale = [f".kernel.py.{dead}-abcd_123.jax-codemod.tmp", f".gone.py.{dead}-zz9yx8wv.jax-codemod.tmp"]
        kept = [f".kernel.py.{live.pid}-abcd_123.jax-codemod.tmp",  # a run still writing
                ".kernel.py.abcd_123.jax-codemod.tmp",  # no pid in the name: whose?
                f"kernel.py.{dead}-abcd_123.jax-codemod.tmp", f".kernel.py.{dead}-abcd_123.tmp",
                f".kernel.py.{dead}-abcd_123.jax-codemod.tmp.py", "notes.tmp"]
        for name in stale + kept:
            (tmp_path / name).write_bytes(b"half a file")
        (tmp_path / f".link.py.{dead}-abcd_124.jax-codemod.tmp").symlink_to(tmp_path / "notes.tmp")  # not a file
        (tmp_path / f".folder.py.{dead}-abcd_125.jax-codemod.tmp").mkdir()
        kept += [f".link.py.{dead}-abcd_124.jax-codemod.tmp", f".folder.py.{dead}-abcd_125.jax-codemod.tmp"]
        elsewhere = tmp_path / "other" / f".kernel.py.{dead}-abcd_123.jax-codemod.tmp"  # a folder with no write
        elsewhere.write_bytes(b"half a file")
        result = fix("--write", ".", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert CONV_FIXED in (tmp_path / "kernel.py").read_bytes()
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["kernel.py", "other", *kept])
        assert elsewhere.exists()
        assert (tmp_path / "notes.tmp").read_bytes() == b"half a file"
    finally:
        live.kill()
        live.wait()


def test_write_removes_stale_temporaries_once_per_folder(tmp_path: Path) -> None:
    from codemods.engine import source

    dead = _dead_pid()
    (tmp_path / "a.py").write_bytes(b"a = 1\n")
    (tmp_path / "b.py").write_bytes(b"b = 1\n")
    (tmp_path / f".a.py.{dead}-abcdefgh.jax-codemod.tmp").write_bytes(b"")
    source.write_atomically(tmp_path / "a.py", b"a = 2\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py", "b.py"]
    (tmp_path / f".b.py.{dead}-abcdefgh.jax-codemod.tmp").write_bytes(b"")  # after this run's sweep
    source.write_atomically(tmp_path / "b.py", b"b = 2\n")
    assert (tmp_path / f".b.py.{dead}-abcdefgh.jax-codemod.tmp").exists()  # one listing per folder and run
    assert source.remove_stale_temporaries(tmp_path) == [f".b.py.{dead}-abcdefgh.jax-codemod.tmp"]
    assert (tmp_path / "a.py").read_bytes() == b"a = 2\n" and (tmp_path / "b.py").read_bytes() == b"b = 2\n"


# -- a write that fails: the original untouched, no temporary file, the error named with the path --

FAILING_WRITES = """
import errno, os, sys
name, code = os.environ["FAIL_AT"], getattr(errno, os.environ["FAIL_ERRNO"])
real = getattr(os, name)
def failing(*args, **kwargs):
    if name != "fsync" or os.fstat(args[0]).st_size:  # the temporary file, written
        raise OSError(code, os.strerror(code))
    return real(*args, **kwargs)
setattr(os, name, failing)
sys.argv = ["jax-codemod", *sys.argv[1:]]
import cli
cli.main()
"""


@pytest.mark.parametrize("fail_at, errno_name, message", [
    ("fsync", "ENOSPC", b"No space left on device"),  # the disk fills up while the new text is written
    ("chmod", "EPERM", b"Operation not permitted"),
    ("replace", "EACCES", b"Permission denied"),
])
def test_a_failed_write_leaves_the_original_and_no_temporary_file(
    tmp_path: Path, fail_at: str, errno_name: str, message: bytes
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "kernel.py").write_text(CONV_KERNEL)
    (project / "clean.py").write_text("x = 1\n")
    wrapper = tmp_path / "failing_writes.py"
    wrapper.write_text(FAILING_WRITES)
    env = {**os.environ, "PYTHONPATH": str(REPO), "FAIL_AT": fail_at, "FAIL_ERRNO": errno_name}
    result = subprocess.run([sys.executable, str(wrapper), "--jax-version", TARGET, "--write", "--no-cache", "."],
                            cwd=project, env=env, capture_output=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert b"kernel.py: error: cannot write: " + message in result.stderr, result.stderr
    assert (project / "kernel.py").read_text() == CONV_KERNEL
    assert sorted(p.name for p in project.iterdir()) == ["clean.py", "kernel.py"]


def test_a_rewrite_the_files_encoding_cannot_hold_is_an_error_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    from codemods.engine import runner, source
    from codemods.registry import RULES
    from codemods.settings import Settings

    def cannot_encode(self: source.SourceFile, text: str) -> bytes:
        raise UnicodeEncodeError("latin-1", text, 0, 1, "ordinal not in range(256)")

    monkeypatch.setattr(source.SourceFile, "encode", cannot_encode)
    settings = Settings(jax_version=tuple(int(part) for part in TARGET.split(".")))
    result = runner.process_source(Path("kernel.py"), CONV_KERNEL.encode(), RULES, settings)
    assert result.new_source is None
    assert result.error is not None and "cannot be encoded as utf-8" in result.error, result.error


# Every way Python lets a file say its encoding (a BOM, an Emacs or Vim cookie on line 1 or 2), each
# file holding a removed jax name: a file skipped for its first bytes was `0 parsed`, and `--check`
# passed with `jax.tree_map` in it (issue 49, item 1). Each keeps a line no codec spells as ASCII.
REMOVED, RENAMED = b"jax.tree_map", b"jax.tree.map"
ENCODED = {
    "bom_first_line.py": b"\xef\xbb\xbfimport jax\nx = jax.tree_map(f, t)\ns = '\xc3\xa9'\n",
    "bom_and_cookie.py": b"\xef\xbb\xbf# -*- coding: utf-8 -*-\nimport jax\nx = jax.tree_map(f, t)\n",
    "bom_crlf.py": b"\xef\xbb\xbfimport jax\r\nx = jax.tree_map(f, t)\r\n",
    "emacs_latin1.py": b"# -*- coding: latin-1 -*-\nimport jax\ns = '\xe9'\nx = jax.tree_map(f, t)\n",
    "vim_cp1252.py": b"# vim: set fileencoding=cp1252 :\nimport jax\ns = '\x80'\nx = jax.tree_map(f, t)\n",
    "shebang_shift_jis.py": b"#!/usr/bin/env python\n# coding=shift_jis\nimport jax  # \x93\xfa\x96\x7b\n"
                            b"x = jax.tree_map(f, t)\n",
    # utf-7: `+AGk-mport` is `import`; `+AOk-'` is one of two spellings of `é'` (Python writes `+AOk'`).
    "utf7.py": b"# coding: utf-7\n+AGk-mport jax\ns = '+AOk-'\nx = jax.tree_map(f, t)\n",
    # Found auditing the same byte test: what else Python takes where a line starts, or ends one.
    "form_feed.py": b"\x0cimport jax\nx = jax.tree_map(f, t)\n",
    "lone_cr.py": b'"""Old Mac line endings."""\rimport jax\rx = jax.tree_map(f, t)\r',
}


def test_every_encoding_python_accepts_is_read_fixed_and_written_back_byte_for_byte(tmp_path: Path) -> None:
    for name, raw in ENCODED.items():
        compile(raw, name, "exec")  # each is a file Python runs
        (tmp_path / name).write_bytes(raw)
    check = fix("--no-cache", "--check", ".", cwd=tmp_path)
    assert check.returncode == 1, check.stderr
    assert set(check.stdout.decode().split()) == set(ENCODED), check.stdout
    assert f"{len(ENCODED)} files scanned, {len(ENCODED)} parsed, {len(ENCODED)} would change".encode() in check.stderr
    written = fix("--no-cache", "--write", ".", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    for name, raw in ENCODED.items():
        assert (tmp_path / name).read_bytes() == raw.replace(REMOVED, RENAMED), name


@pytest.mark.parametrize("prefix, body_line", [
    (b"\xef\xbb\xbf", b""),
    (b"# -*- coding: latin-1 -*-\n", b"\"\"\"Produit \xe0 pr\xe9cision mixte.\"\"\"\n"),
])
def test_a_kernel_body_in_another_encoding_is_found_from_its_launch_in_another_module(
        tmp_path: Path, prefix: bytes, body_line: bytes) -> None:
    """The project index reads each module as Python does: a body whose file starts with a BOM or
    says latin-1 was unparsed there, its launch never seen, and the fix a `[manual]` guess."""
    body = prefix + body_line + (b"import jax.numpy as jnp\nfrom jax import lax\n\n\n"
                                 b"def body(x_ref, w_ref, o_ref):\n"
                                 b"    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n")
    (tmp_path / "body.py").write_bytes(body)
    (tmp_path / "launch.py").write_text(
        "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n\nfrom body import body\n\n\n"
        "def run(x, w):\n    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x, w)\n")
    result = fix("--no-cache", "--write", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert b"body.py:" in result.stderr and b"JAX001 [fixed]" in result.stderr, result.stderr
    assert (tmp_path / "body.py").read_bytes() == body.replace(
        b"precision=(lax.Precision.DEFAULT, lax.Precision.HIGH)", b"precision=lax.Precision.HIGH")
