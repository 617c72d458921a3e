"""The command line contract, end to end: `python -m codemods` in a subprocess on small project trees.

Nothing here imports jax; the kernels are only read and rewritten. Every run passes `--jax-version`
where the answer depends on it, so the tests do not depend on the installed jax.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from codemods import registry
from codemods.engine import runner
from codemods.settings import Settings

REPO = Path(__file__).resolve().parents[1]
TARGET = "0.12.0.1"

# A Pallas TPU conv kernel with a per-operand precision: Mosaic TPU rejects the pair.
CONV_KERNEL = '''\
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def conv_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = lax.conv_general_dilated(
        x_ref[...],
        w_ref[...],
        window_strides=(1, 1),
        padding="SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        precision=(lax.Precision.DEFAULT, lax.Precision.HIGH),
    )


@jax.jit
def conv(x, w):
    return pl.pallas_call(
        conv_kernel,
        out_shape=jax.ShapeDtypeStruct((x.shape[0], x.shape[1], x.shape[2], w.shape[3]), jnp.float32),
    )(x, w)
'''
CONV_PAIR = b"precision=(lax.Precision.DEFAULT, lax.Precision.HIGH)"
CONV_FIXED = b"precision=lax.Precision.HIGHEST"

# jnp.dot at HIGH inside a kernel: lowered since jax 0.11.1, rejected before.
DOT_HIGH_KERNEL = '''\
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


@functools.partial(pl.pallas_call, out_shape=jax.ShapeDtypeStruct((128, 128), jnp.float32))
def matmul(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=lax.Precision.HIGH)
'''

# The same per-operand conv, but in plain XLA code: XLA honours it, so only --scope all touches it.
OUTSIDE_KERNEL = '''\
import jax
from jax import lax
from jax.experimental import pallas as pl  # imported, but no kernel uses this conv


@jax.jit
def conv(x, w):
    return lax.conv_general_dilated(
        x, w, (1, 1), "SAME", precision=(lax.Precision.DEFAULT, lax.Precision.HIGH)
    )
'''

# A kernel whose precision arrives as an unbound parameter: reported for a person, not rewritten.
NEEDS_REVIEW = '''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref, *, precision):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=precision)


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
'''

NO_TARGET = '''\
"""Plain numerics: nothing for the tool here."""
import numpy as np


def mean(x):
    return np.mean(x)
'''


# -- helpers --


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(
        [sys.executable, "-m", "codemods", *args], cwd=cwd, env=env, capture_output=True, timeout=120
    )


def fix(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`jax-codemod [fix] ...` aimed at a fixed jax release unless the test names one."""
    if "--jax-version" not in args:
        args = (*args, "--jax-version", TARGET)
    return cli(*args, cwd=cwd)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root (outside .git), by relative path."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(root).parts
    }


def make_project(root: Path) -> Path:
    """A small project: kernels in several files and encodings, and files the tool must leave alone."""
    (root / "kernels").mkdir(parents=True)
    (root / "kernels" / "__init__.py").write_bytes(b"")
    (root / "kernels" / "conv.py").write_text(CONV_KERNEL)
    (root / "kernels" / "matmul.py").write_text(DOT_HIGH_KERNEL)
    (root / "kernels" / "review.py").write_text(NEEDS_REVIEW)
    (root / "model.py").write_text(OUTSIDE_KERNEL)
    (root / "util.py").write_text(NO_TARGET)
    # Same kernel, with CRLF line endings, a UTF-8 BOM, a latin-1 coding cookie (and a non-ASCII
    # comment right next to the edit, so it lands in the diff's context), and no final newline.
    (root / "crlf.py").write_bytes(CONV_KERNEL.replace("\n", "\r\n").encode())
    (root / "bom.py").write_bytes(b"\xef\xbb\xbf" + CONV_KERNEL.encode())
    latin = "# -*- coding: latin-1 -*-\n" + CONV_KERNEL.replace(
        "        dimension_numbers=", "        # façade: NHWC activations, HWIO weights\n        dimension_numbers="
    )
    (root / "latin1.py").write_bytes(latin.encode("latin-1"))
    (root / "no_newline.py").write_bytes(CONV_KERNEL.rstrip("\n").encode())
    return root


def git(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", "-c", "core.autocrlf=false", "-c", "core.safecrlf=false", *args],
        cwd=cwd, capture_output=True, check=True,
    )


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


# -- the dry run: a diff git applies, findings and a summary on stderr --


@needs_git
def test_dry_run_diff_applies_and_matches_write(tmp_path: Path) -> None:
    dry = make_project(tmp_path / "dry")
    written = make_project(tmp_path / "written")
    before = snapshot(dry)
    git("init", "-q", cwd=dry)

    result = fix(cwd=dry)
    assert result.returncode == 1, result.stderr.decode()
    assert snapshot(dry) == before, "a dry run must not touch files"
    changed = {"kernels/conv.py", "crlf.py", "bom.py", "latin1.py", "no_newline.py"}
    assert {line[6:].decode() for line in result.stdout.splitlines() if line.startswith(b"+++ b/")} == changed

    patch = tmp_path / "fix.patch"
    patch.write_bytes(result.stdout)
    git("apply", "--check", str(patch), cwd=dry)
    git("apply", str(patch), cwd=dry)

    # 1: the project holds a [manual] finding, which no write fixes (exit codes as Ruff's).
    assert fix("--write", cwd=written).returncode == 1
    assert fix("--write", "--exit-zero", cwd=written).returncode == 0
    assert snapshot(dry) == {**snapshot(written), **{k: v for k, v in snapshot(dry).items() if k.startswith(".git")}}


def test_dry_run_reports_findings_and_summary_on_stderr(tmp_path: Path) -> None:
    make_project(tmp_path)
    result = fix(cwd=tmp_path)
    stdout, stderr = result.stdout.decode("latin-1"), result.stderr.decode()  # the diff keeps each file's bytes
    assert result.returncode == 1
    assert "JAX001" not in stdout, "findings belong on stderr, the diff alone on stdout"
    assert stdout.startswith("--- a/")
    assert f"{Path('kernels/conv.py')}:16:19: JAX001 [fixed]" in stderr
    assert "(DEFAULT, HIGH) -> HIGHEST" in stderr
    assert f"{Path('kernels/review.py')}:7:60: JAX001 [manual]" in stderr
    summary = stderr.strip().splitlines()[-1]
    # How many files get parsed is the prefilters' business; everything else is fixed by the tree.
    assert re.fullmatch(
        r"10 files scanned, \d+ parsed, 5 would change, 5 fixes, 1 needs manual review, 0 errors \(target jax .*\)",
        summary,
    ), summary
    assert f"target jax {TARGET}" in summary


def test_quiet_keeps_only_the_diff(tmp_path: Path) -> None:
    make_project(tmp_path)
    result = fix("-q", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith(b"--- a/")
    assert result.stderr == b""


# -- --write --


def test_write_preserves_bytes_outside_the_edit(tmp_path: Path) -> None:
    make_project(tmp_path)
    before = snapshot(tmp_path)
    result = fix("--write", cwd=tmp_path)
    assert result.returncode == 1, result.stderr.decode()  # kernels/review.py keeps its [manual] finding
    assert result.stdout == b""
    assert "5 changed" in result.stderr.decode()
    after = snapshot(tmp_path)
    for name in ("kernels/conv.py", "crlf.py", "bom.py", "latin1.py", "no_newline.py"):
        assert before[name].count(CONV_PAIR) == 1
        assert after[name] == before[name].replace(CONV_PAIR, CONV_FIXED), name
    assert after["crlf.py"].count(b"\r\n") == before["crlf.py"].count(b"\r\n")
    assert after["bom.py"].startswith(b"\xef\xbb\xbf")
    assert "façade".encode("latin-1") in after["latin1.py"]
    assert not after["no_newline.py"].endswith(b"\n")
    for name in ("kernels/matmul.py", "kernels/review.py", "model.py", "util.py", "kernels/__init__.py"):
        assert after[name] == before[name], name


def test_write_is_idempotent_keeps_modes_and_leaves_no_temp_files(tmp_path: Path) -> None:
    make_project(tmp_path)
    (tmp_path / "kernels" / "conv.py").chmod(0o755)
    (tmp_path / "crlf.py").chmod(0o640)
    names = set(snapshot(tmp_path))

    assert fix("--write", cwd=tmp_path).returncode == 1  # kernels/review.py keeps its [manual] finding
    first = snapshot(tmp_path)
    assert set(first) == names, "temporary files left behind"
    assert stat.S_IMODE((tmp_path / "kernels" / "conv.py").stat().st_mode) == 0o755
    assert stat.S_IMODE((tmp_path / "crlf.py").stat().st_mode) == 0o640

    second = fix("--write", cwd=tmp_path)
    assert second.returncode == 1
    assert second.stdout == b""
    assert "0 changed" in second.stderr.decode()
    assert snapshot(tmp_path) == first
    dry = fix(cwd=tmp_path)
    assert (dry.returncode, dry.stdout) == (1, b"")


def test_files_without_a_target_are_not_touched(tmp_path: Path) -> None:
    make_project(tmp_path)
    untouched = ["util.py", "model.py", "kernels/matmul.py", "kernels/review.py"]
    old = 1_000_000_000
    for name in untouched:
        os.utime(tmp_path / name, ns=(old, old))
    inodes = {name: (tmp_path / name).stat().st_ino for name in untouched}

    assert fix("--write", cwd=tmp_path).returncode == 1  # kernels/review.py keeps its [manual] finding
    for name in untouched:
        info = (tmp_path / name).stat()
        assert (info.st_mtime_ns, info.st_ino) == (old, inodes[name]), name


def test_write_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    (tmp_path / "real.py").write_text(CONV_KERNEL)
    (tmp_path / "link.py").symlink_to("real.py")
    assert fix("--write", "link.py", cwd=tmp_path).returncode == 0
    assert (tmp_path / "link.py").is_symlink()
    assert (tmp_path / "real.py").read_bytes() == CONV_KERNEL.encode().replace(CONV_PAIR, CONV_FIXED)


# -- --check --


def test_check_lists_files_and_exits_1_while_any_finding_remains(tmp_path: Path) -> None:
    make_project(tmp_path)
    before = snapshot(tmp_path)
    result = fix("--check", "-q", cwd=tmp_path)
    assert result.returncode == 1
    listed = {Path(line).as_posix() for line in result.stdout.decode().splitlines()}
    assert listed == {"kernels/conv.py", "crlf.py", "bom.py", "latin1.py", "no_newline.py"}
    assert snapshot(tmp_path) == before

    assert fix("--write", "-q", cwd=tmp_path).returncode == 1
    # Nothing left to write, but kernels/review.py's [manual] finding fails the check (as Ruff's).
    manual = fix("--check", cwd=tmp_path)
    assert (manual.returncode, manual.stdout) == (1, b"")
    assert "kernels/review.py:7:60: JAX001 [manual]" in manual.stderr.decode().replace(os.sep, "/")
    assert fix("--check", "--exit-zero", cwd=tmp_path).returncode == 0
    (tmp_path / "kernels" / "review.py").unlink()
    clean = fix("--check", cwd=tmp_path)
    assert (clean.returncode, clean.stdout) == (0, b"")


def test_write_and_check_exclude_each_other(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(CONV_KERNEL)
    result = fix("--write", "--check", "k.py", cwd=tmp_path)
    assert result.returncode == 2
    assert b"exclude each other" in result.stderr
    assert (tmp_path / "k.py").read_text() == CONV_KERNEL


# -- errors: exit 2, the other files still processed --

BROKEN = '''\
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = lax.dot(x_ref[...], x_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH)
'''


def _with_bad_files(root: Path) -> None:
    (root / "good.py").write_text(CONV_KERNEL)
    (root / "syntax_error.py").write_text(BROKEN)
    # A latin-1 file that forgot its coding cookie: the kernel's docstring is not valid UTF-8.
    (root / "undecodable.py").write_bytes(
        CONV_KERNEL.replace("def conv_kernel(x_ref, w_ref, o_ref):\n", "def conv_kernel(x_ref, w_ref, o_ref):\n"
                            '    """Convolution \xe0 pr\xe9cision mixte."""\n').encode("latin-1")
    )


def test_unprocessable_files_exit_2_and_others_are_written(tmp_path: Path) -> None:
    _with_bad_files(tmp_path)
    result = fix("--write", cwd=tmp_path)
    stderr = result.stderr.decode()
    assert result.returncode == 2
    assert "syntax_error.py: error: cannot parse" in stderr
    assert "undecodable.py: error: cannot decode" in stderr
    assert "2 errors" in stderr
    assert (tmp_path / "good.py").read_bytes() == CONV_KERNEL.encode().replace(CONV_PAIR, CONV_FIXED)
    assert (tmp_path / "syntax_error.py").read_text() == BROKEN


def test_unprocessable_files_exit_2_in_a_dry_run_too(tmp_path: Path) -> None:
    _with_bad_files(tmp_path)
    result = fix(cwd=tmp_path)
    assert result.returncode == 2
    assert b"+++ b/good.py" in result.stdout
    assert b"syntax_error.py: error: cannot parse" in result.stderr


def test_missing_path_is_reported(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(CONV_KERNEL)
    result = fix("--write", "k.py", "does_not_exist.py", cwd=tmp_path)
    assert result.returncode == 2
    assert b"does_not_exist.py: error: cannot read" in result.stderr
    assert CONV_FIXED in (tmp_path / "k.py").read_bytes()


def test_no_traceback_on_errors(tmp_path: Path) -> None:
    _with_bad_files(tmp_path)
    for args in (("--select", "JAX999"), ("--jax-version", "banana"), ()):
        result = fix(*args, cwd=tmp_path)
        assert result.returncode == 2
        assert b"Traceback" not in result.stderr, args


# -- choosing transforms --


def test_select_and_ignore_by_code_or_name(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(CONV_KERNEL)
    default = fix("k.py", cwd=tmp_path)
    assert default.returncode == 1
    for selection in (["--select", "JAX001"], ["--select", "jax001"], ["--select", "per-operand-precision"]):
        result = fix("k.py", *selection, cwd=tmp_path)
        assert (result.returncode, result.stdout) == (1, default.stdout), selection
    for selection in (["--ignore", "JAX001"], ["--ignore", "per-operand-precision"]):
        result = fix("k.py", *selection, cwd=tmp_path)
        assert (result.returncode, result.stdout) == (0, b""), selection


def test_unknown_transform_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(CONV_KERNEL)
    for option in ("--select", "--ignore"):
        result = fix("k.py", option, "JAX999", cwd=tmp_path)
        assert result.returncode == 2
        stderr = result.stderr.decode()
        assert "unknown rule code, prefix or name: 'JAX999'" in stderr
        assert "`jax-codemod rules` lists every rule" in stderr, "the error says where the rules are listed"
        assert result.stdout == b""


# -- options that change the answer, and those that must not --


def test_jobs_do_not_change_the_output(tmp_path: Path) -> None:
    make_project(tmp_path)
    for i in range(6):  # enough candidates for a real worker pool
        (tmp_path / f"conv_{i}.py").write_text(CONV_KERNEL)
    serial = fix("--jobs", "1", cwd=tmp_path)
    parallel = fix("--jobs", "2", cwd=tmp_path)
    assert serial.returncode == parallel.returncode == 1
    assert serial.stdout == parallel.stdout
    assert serial.stderr == parallel.stderr


def test_jax_version_decides_dot_high(tmp_path: Path) -> None:
    (tmp_path / "matmul.py").write_text(DOT_HIGH_KERNEL)
    new = fix("matmul.py", "--jax-version", "0.12.0.1", cwd=tmp_path)
    assert (new.returncode, new.stdout) == (0, b""), "jax 0.12 lowers HIGH: nothing to change"
    old = fix("matmul.py", "--jax-version", "0.10.2", cwd=tmp_path)
    assert old.returncode == 1
    assert b"-    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=lax.Precision.HIGH)" in old.stdout
    assert b"+    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=lax.Precision.HIGHEST)" in old.stdout
    assert b"HIGH is not lowered for dot on jax 0.10.2" in old.stderr
    assert b"target jax 0.10.2" in old.stderr


def test_scope_all_rewrites_outside_kernels(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(OUTSIDE_KERNEL)
    kernels = fix("model.py", cwd=tmp_path)
    assert (kernels.returncode, kernels.stdout) == (0, b"")
    everywhere = fix("model.py", "--scope", "all", "--write", cwd=tmp_path)
    assert everywhere.returncode == 0
    assert (tmp_path / "model.py").read_bytes() == OUTSIDE_KERNEL.encode().replace(CONV_PAIR, CONV_FIXED)


# -- discovery --


def test_folders_are_walked_skipping_vcs_virtualenvs_and_build_output(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "kernel.py").write_text(CONV_KERNEL)
    (tmp_path / "src" / "pkg" / "notes.txt").write_text(CONV_KERNEL)  # not *.py
    for skipped in (".git", "build", "dist", "__pycache__", ".tox", "node_modules", "pkg.egg-info"):
        (tmp_path / skipped).mkdir()
        (tmp_path / skipped / "kernel.py").write_text(CONV_KERNEL)
    venv = tmp_path / "my-env"  # a virtualenv by its pyvenv.cfg, whatever its name
    (venv / "lib" / "site-packages").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "lib" / "site-packages" / "kernel.py").write_text(CONV_KERNEL)

    result = fix("--check", cwd=tmp_path)
    assert result.returncode == 1
    assert [Path(p) for p in result.stdout.decode().split()] == [Path("src/pkg/kernel.py")]
    assert "1 file scanned" in result.stderr.decode()


def test_named_files_are_processed_whatever_their_suffix(tmp_path: Path) -> None:
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "kernel.py").write_text(CONV_KERNEL)
    (tmp_path / "run_conv").write_text("#!/usr/bin/env python\n" + CONV_KERNEL)
    result = fix("--check", "build/kernel.py", "run_conv", "build", cwd=tmp_path)
    assert result.returncode == 1
    assert [Path(p) for p in result.stdout.decode().split()] == [Path("build/kernel.py"), Path("run_conv")]


def test_default_path_is_the_current_folder(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(CONV_KERNEL)
    result = fix("--check", cwd=tmp_path)
    assert (result.returncode, result.stdout.decode().split()) == (1, ["k.py"])


@needs_git
def test_absolute_paths_give_a_diff_git_applies(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(CONV_KERNEL)
    git("init", "-q", cwd=tmp_path)
    result = fix(str(tmp_path / "k.py"), cwd=tmp_path)
    assert result.stdout.startswith(b"--- a/k.py\n+++ b/k.py\n")
    (tmp_path / "p.patch").write_bytes(result.stdout)
    git("apply", "p.patch", cwd=tmp_path)
    assert CONV_FIXED in (tmp_path / "k.py").read_bytes()


@needs_git
def test_absolute_paths_outside_the_current_folder_apply_from_the_root(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "k.py").write_text(CONV_KERNEL)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = fix(str(project / "k.py"), cwd=elsewhere)
    name = (project / "k.py").as_posix().lstrip("/").encode()
    assert result.stdout.startswith(b"--- a/" + name + b"\n+++ b/" + name + b"\n")
    (tmp_path / "p.patch").write_bytes(result.stdout)
    git("apply", "--check", str(tmp_path / "p.patch"), cwd=Path("/"))


# -- help and rules --


def test_help(tmp_path: Path) -> None:
    result = cli("--help", cwd=tmp_path)
    assert result.returncode == 0
    assert b"Exit codes" in result.stdout
    for command in (b"fix", b"rules"):
        assert command in result.stdout
    fix_help = cli("fix", "--help", cwd=tmp_path)
    assert fix_help.returncode == 0
    for option in (b"--write", b"--check", b"--select", b"--ignore", b"--jobs", b"--jax-version", b"--scope"):
        assert option in fix_help.stdout


def test_rules_lists_every_rule_once(tmp_path: Path) -> None:
    result = cli("rules", cwd=tmp_path)
    assert result.returncode == 0
    lines = result.stdout.decode().splitlines()
    assert registry.RULES
    assert len(lines) == len(registry.RULES)
    for rule, line in zip(registry.RULES, lines):
        assert line.split()[:2] == [rule.code, rule.name] and line.endswith(rule.summary)


@pytest.mark.parametrize("key", ["JAX002", "jax002", "accuracy-hints"])
def test_rules_documents_one_rule(tmp_path: Path, key: str) -> None:
    result = cli("rules", key, cwd=tmp_path)
    assert result.returncode == 0
    out = result.stdout.decode()
    assert out.startswith("JAX002 (accuracy-hints)\n")
    for title in ("What it does", "Why", "Example"):
        assert f"\n{title}\n    " in out
    assert "rsqrt_safe" in out and "JAX001" not in out and "cuDNN" not in out


def test_rules_with_a_prefix_lists_what_it_selects(tmp_path: Path) -> None:
    result = cli("rules", "JAX00", cwd=tmp_path)
    assert result.returncode == 0
    from codemods.registry import RULES
    assert [line.split()[0] for line in result.stdout.decode().splitlines()] == \
        [rule.code for rule in RULES if rule.code.startswith("JAX00")]


def test_rules_names_an_unknown_code(tmp_path: Path) -> None:
    result = cli("rules", "JAX999", cwd=tmp_path)
    assert result.returncode == 2 and "JAX999" in result.stderr.decode() and result.stdout == b""


def test_console_script(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("jax-codemod")
    if not script.exists():
        pytest.skip("the package is not installed in this environment (no jax-codemod script)")
    result = subprocess.run([str(script), "rules"], cwd=tmp_path, capture_output=True, timeout=120)
    assert result.returncode == 0
    assert re.search(rb"^JAX001 +per-operand-precision ", result.stdout, re.M)


# -- the write step itself --


def _planned(path: Path) -> runner.FileResult:
    result = runner.process_source(path, path.read_bytes(), registry.select(), Settings(jax_version=(0, 12, 0, 1)))
    assert result.new_source is not None and result.error is None
    return result


def test_write_refuses_a_file_changed_since_it_was_read(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(CONV_KERNEL)
    result = _planned(path)
    edited = CONV_KERNEL + "\n# edited by someone else meanwhile\n"
    path.write_text(edited)

    runner.write(result)
    assert result.error == "changed on disk during the run; not written"
    assert path.read_text() == edited
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.py"]


def test_write_reports_a_file_removed_since_it_was_read(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(CONV_KERNEL)
    result = _planned(path)
    path.unlink()

    runner.write(result)
    assert result.error is not None and result.error.startswith("cannot write")
    assert list(tmp_path.iterdir()) == []


def test_write_replaces_an_unchanged_file(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(CONV_KERNEL)
    path.chmod(0o600)
    result = _planned(path)

    runner.write(result)
    assert result.error is None
    assert path.read_bytes() == result.new_source == CONV_KERNEL.encode().replace(CONV_PAIR, CONV_FIXED)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.py"]


class _Exited(Exception):
    def __init__(self, status: int) -> None:
        self.status = status


class _Stream:
    """An output whose writes count only once flushed (a pipe's buffer, which os._exit drops)."""

    def __init__(self, fails: bool = False, closed: bool = False) -> None:
        self.pending, self.flushed, self.fails, self.closed = "", "", fails, closed

    def write(self, text: str) -> int:
        self.pending += text
        return len(text)

    def flush(self) -> None:
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        if self.fails:
            raise BrokenPipeError(32, "Broken pipe")
        self.flushed, self.pending = self.flushed + self.pending, ""


@pytest.mark.parametrize("code, status, said", [
    (None, 0, ""), (0, 0, ""), (1, 1, ""), (2, 2, ""), ("bad config", 1, "bad config\n")])
def test_the_command_ends_with_its_status_and_its_output_flushed(
        code: object, status: int, said: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`main` ends the process without tearing its heap down (os._exit): the app's exit status as
    Python would give it, and what was written, flushed first (os._exit drops buffers)."""
    from codemods import cli

    out, err = _Stream(), _Stream()

    def app() -> None:
        sys.stdout.write("diff\n")
        raise SystemExit(code)

    def exit_now(status: int) -> None:
        raise _Exited(status)

    monkeypatch.setattr(cli, "app", app)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(os, "_exit", exit_now)
    monkeypatch.delitem(sys.modules, "coverage", raising=False)  # (measured, it exits as Python does)
    with pytest.raises(_Exited) as exited:
        cli.main()
    assert (exited.value.status, out.flushed, out.pending, err.flushed) == (status, "diff\n", "", said)


def test_the_command_exits_120_when_its_output_cannot_be_flushed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A closed pipe (`jax-codemod . | head -1`): Python's own status when flushing fails at exit."""
    from codemods import cli

    def exit_now(status: int) -> None:
        raise _Exited(status)

    monkeypatch.setattr(cli, "app", lambda: sys.exit(1))
    monkeypatch.setattr(sys, "stdout", _Stream(fails=True))
    monkeypatch.setattr(os, "_exit", exit_now)
    monkeypatch.delitem(sys.modules, "coverage", raising=False)  # (measured, it exits as Python does)
    with pytest.raises(_Exited) as exited:
        cli.main()
    assert exited.value.status == 120


def test_the_command_ends_quietly_when_its_output_was_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    """`jax-codemod server` ends with its stdout closed (the editor's end of the protocol): nothing
    to flush there, no traceback, the app's status."""
    from codemods import cli

    def exit_now(status: int) -> None:
        raise _Exited(status)

    err = _Stream()
    monkeypatch.setattr(cli, "app", lambda: sys.exit(0))
    monkeypatch.setattr(sys, "stdout", _Stream(closed=True))
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(os, "_exit", exit_now)
    monkeypatch.delitem(sys.modules, "coverage", raising=False)  # (measured, it exits as Python does)
    with pytest.raises(_Exited) as exited:
        cli.main()
    assert (exited.value.status, err.flushed) == (0, "")


def test_under_coverage_the_command_exits_as_python_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Coverage saves its data at exit (atexit), which os._exit skips: measured, the command exits
    by SystemExit, its status intact."""
    from codemods import cli

    def exit_now(status: int) -> None:
        raise _Exited(status)

    monkeypatch.setattr(cli, "app", lambda: sys.exit(3))
    monkeypatch.setitem(sys.modules, "coverage", sys)
    monkeypatch.setattr(os, "_exit", exit_now)
    with pytest.raises(SystemExit) as stopped:
        cli.main()
    assert stopped.value.code == 3
