"""Pull-request and monorepo workflows, end to end through the CLI: the project config, git-aware
discovery and excludes, inline suppression, --diff-base, --shard, --version, the progress bar and
--interactive (both under a pseudo-terminal). Nothing here imports jax.
"""

from __future__ import annotations

import os
import pty
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_cli import CONV_FIXED, CONV_KERNEL, CONV_PAIR, REPO, TARGET, cli, fix, git

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
DOT_KERNEL = '''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST)){comment}


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
'''
DOT_PAIR = b"precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST)"


def dot_kernel(comment: str = "") -> str:
    return DOT_KERNEL.format(comment=comment)


def pyproject(root: Path, body: str) -> None:
    (root / "pyproject.toml").write_text(f"[project]\nname = 'demo'\n\n[tool.jax-codemod]\n{body}")


# -- 1. config --


def test_config_is_found_from_a_subfolder_and_the_command_line_wins(tmp_path: Path) -> None:
    pyproject(tmp_path, 'select = ["JAX002"]\njax-version = "0.12.0.1"\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.py").write_text(dot_kernel())
    from_config = cli("src", cwd=tmp_path)
    assert from_config.returncode == 0, "JAX001 is not selected by the config: nothing to change"
    overridden = cli("--select", "JAX001", "src", cwd=tmp_path / "src" / "..")
    assert overridden.returncode == 1 and b"precision=lax.Precision.HIGHEST" in overridden.stdout
    assert b"target jax 0.12.0.1" in overridden.stderr, "jax-version comes from the config"


TANH_KERNEL = DOT_KERNEL.replace(
    "jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST)){comment}",
    "lax.tanh(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)")
TANH_HINT = b"lax.tanh(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)"


def test_an_unsafe_fix_keeps_check_failing_until_applied(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(TANH_KERNEL)
    check = fix("--check", "--no-cache", "k.py", cwd=tmp_path)
    assert check.returncode == 1, "the kernel still fails: --check must not pass"
    assert b"1 unsafe fix not applied" in check.stderr and b"[dropped, unsafe fix: --unsafe-fixes]" in check.stderr
    written = fix("--write", "--no-cache", "k.py", cwd=tmp_path)
    assert written.returncode == 1 and TANH_HINT in (tmp_path / "k.py").read_bytes(), "--write applies safe fixes only"
    unsafe = fix("--write", "--unsafe-fixes", "--no-cache", "k.py", cwd=tmp_path)
    assert unsafe.returncode == 0 and b"lax.tanh(x_ref[...])" in (tmp_path / "k.py").read_bytes()
    assert fix("--check", "--no-cache", "k.py", cwd=tmp_path).returncode == 0


def test_unsafe_fixes_from_the_config_and_the_command_line_wins(tmp_path: Path) -> None:
    pyproject(tmp_path, "unsafe-fixes = true\n")
    (tmp_path / "k.py").write_text(TANH_KERNEL)
    declined = fix("--write", "--no-unsafe-fixes", "--no-cache", "k.py", cwd=tmp_path)
    assert declined.returncode == 1 and TANH_HINT in (tmp_path / "k.py").read_bytes()  # the unsafe fix remains
    applied = fix("--write", "--no-cache", "k.py", cwd=tmp_path)
    assert applied.returncode == 0 and b"lax.tanh(x_ref[...])" in (tmp_path / "k.py").read_bytes()
    pyproject(tmp_path, 'unsafe-fixes = "yes"\n')
    bad = fix("--check", "k.py", cwd=tmp_path)
    assert bad.returncode == 2 and b"tool.jax-codemod.unsafe-fixes` must be true or false" in bad.stderr


@pytest.mark.parametrize("body, named", [
    ('selct = ["JAX001"]\n', "tool.jax-codemod.selct"),
    ('scope = "everywhere"\n', "tool.jax-codemod.scope"),
    ('select = ["JAX999"]\n', "tool.jax-codemod.select"),
    ('jax-version = "latest"\n', "tool.jax-codemod.jax-version"),
    ('per-file-ignores = { "tests/*" = "JAX001" }\n', "per-file-ignores"),
    ('select = ["JAX001"\n', "cannot read"),
])
def test_bad_config_is_a_clear_error_and_nothing_is_processed(tmp_path: Path, body: str, named: str) -> None:
    pyproject(tmp_path, body)
    (tmp_path / "k.py").write_text(dot_kernel())
    result = cli("--write", ".", cwd=tmp_path)
    assert result.returncode == 2
    assert str(tmp_path / "pyproject.toml").encode() in result.stderr and named.encode() in result.stderr
    assert b"Traceback" not in result.stderr
    assert (tmp_path / "k.py").read_text() == dot_kernel(), "nothing written"


def test_excludes_and_per_file_ignores_from_the_config(tmp_path: Path) -> None:
    pyproject(tmp_path, 'extend-exclude = ["generated"]\nper-file-ignores = { "tests/*" = ["JAX001"] }\n')
    for folder in ("src", "generated", "tests"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "k.py").write_text(dot_kernel())
    result = fix("--check", ".", cwd=tmp_path)
    assert result.stdout.decode().split() == [os.path.join("src", "k.py")]
    named = fix("--check", "generated/k.py", cwd=tmp_path)
    assert named.returncode == 1, "a file named explicitly is processed even if excluded"
    forced = fix("--check", "--force-exclude", "generated/k.py", cwd=tmp_path)
    assert forced.returncode == 0 and forced.stdout == b""
    assert fix("--check", "--exclude", "src", ".", cwd=tmp_path).returncode == 0


# -- 2. discovery inside git --


@needs_git
def test_files_git_ignores_are_skipped(tmp_path: Path) -> None:
    git("init", "-q", cwd=tmp_path)
    (tmp_path / ".gitignore").write_text("ignored_by_gitignore.py\n")
    (tmp_path / ".git" / "info" / "exclude").write_text("ignored_by_info/\n")
    (tmp_path / "ignored_by_info").mkdir()
    for name in ("kept.py", "ignored_by_gitignore.py", "ignored_by_info/k.py"):
        (tmp_path / name).write_text(dot_kernel())
    result = fix("--check", ".", cwd=tmp_path)
    assert result.stdout.decode().split() == ["kept.py"]


# -- 3. inline suppression --


def test_suppression_comments_silence_findings_and_their_fixes(tmp_path: Path) -> None:
    (tmp_path / "all.py").write_text(dot_kernel("  # jax-codemod: ignore"))
    (tmp_path / "this_rule.py").write_text(dot_kernel("  # reviewed: keep  # jax-codemod: ignore[JAX001]"))
    (tmp_path / "other_rule.py").write_text(dot_kernel("  # jax-codemod: ignore[JAX002]"))
    result = fix(".", cwd=tmp_path)
    assert result.returncode == 1
    assert b"other_rule.py" in result.stdout and b"all.py" not in result.stdout and b"this_rule.py" not in result.stdout
    assert b"2 suppressed" in result.stderr
    marker_in_a_string = dot_kernel().replace("o_ref[...] = ", "note = '# jax-codemod: ignore'; o_ref[...] = ")
    (tmp_path / "all.py").write_text(marker_in_a_string)
    assert b"all.py" in fix(".", cwd=tmp_path).stdout, "only a real comment suppresses"


# -- 5. PR mode --


@needs_git
def test_diff_base_processes_only_files_changed_since_the_revision(tmp_path: Path) -> None:
    git("init", "-q", cwd=tmp_path)
    git("config", "user.email", "t@example.com", cwd=tmp_path)
    git("config", "user.name", "t", cwd=tmp_path)
    for name in ("old.py", "renamed_from.py", "deleted.py"):
        (tmp_path / name).write_text(dot_kernel())
    git("add", ".", cwd=tmp_path)
    git("commit", "-qm", "base", cwd=tmp_path)
    git("mv", "renamed_from.py", "renamed_to.py", cwd=tmp_path)
    (tmp_path / "renamed_to.py").write_text(dot_kernel() + "\n# edited\n")
    (tmp_path / "deleted.py").unlink()
    (tmp_path / "new.py").write_text(dot_kernel())
    result = fix("--check", "--diff-base", "HEAD", cwd=tmp_path)
    assert sorted(Path(p).name for p in result.stdout.decode().split()) == ["new.py", "renamed_to.py"]
    missing = fix("--check", "--diff-base", "no-such-rev", cwd=tmp_path)
    assert missing.returncode == 2 and b"no-such-rev" in missing.stderr and b"Traceback" not in missing.stderr


@needs_git
def test_diff_base_reports_only_the_branchs_changes_when_the_base_branch_moved_on(tmp_path: Path) -> None:
    """`--diff-base main` compares with where the branch left main (`git diff main...`), not with
    main's tip: a kernel file changed on main since is not the pull request's."""
    git("init", "-q", "-b", "main", cwd=tmp_path)
    git("config", "user.email", "t@example.com", cwd=tmp_path)
    git("config", "user.name", "t", cwd=tmp_path)
    for name in ("mine.py", "theirs.py"):
        (tmp_path / name).write_text(dot_kernel())
    git("add", ".", cwd=tmp_path)
    git("commit", "-qm", "base", cwd=tmp_path)
    git("switch", "-qc", "pr", cwd=tmp_path)
    (tmp_path / "mine.py").write_text(dot_kernel("  # the pull request's edit"))
    git("commit", "-qam", "the pull request", cwd=tmp_path)
    git("switch", "-q", "main", cwd=tmp_path)
    (tmp_path / "theirs.py").write_text(dot_kernel("  # main moves on"))
    (tmp_path / "new_on_main.py").write_text(dot_kernel())
    git("add", ".", cwd=tmp_path)
    git("commit", "-qm", "main moves on", cwd=tmp_path)
    git("switch", "-q", "pr", cwd=tmp_path)
    result = fix("--check", "--diff-base", "main", cwd=tmp_path)
    assert result.stdout.decode().split() == ["mine.py"], result.stderr.decode()
    assert b"warning" not in result.stderr


OLD_TREE_MAP = "import jax\n\nold = jax.tree_map(str, {})\n"


@needs_git
def test_only_changed_lines_keeps_the_findings_on_the_lines_the_branch_changed(tmp_path: Path) -> None:
    """reviewdog's filter-mode=added: a file the branch touches keeps its older findings out of the gate."""
    git("init", "-q", "-b", "main", cwd=tmp_path)
    git("config", "user.email", "t@example.com", cwd=tmp_path)
    git("config", "user.name", "t", cwd=tmp_path)
    (tmp_path / "touched.py").write_text(OLD_TREE_MAP)
    (tmp_path / "legacy.py").write_text(OLD_TREE_MAP)
    git("add", ".", cwd=tmp_path)
    git("commit", "-qm", "base", cwd=tmp_path)
    git("switch", "-qc", "pr", cwd=tmp_path)
    (tmp_path / "touched.py").write_text(OLD_TREE_MAP + "\nnew = jax.tree_map(repr, {})\n")
    git("mv", "legacy.py", "moved.py", cwd=tmp_path)  # renamed, not edited: no line of it is the branch's
    (tmp_path / "added.py").write_text(OLD_TREE_MAP)  # untracked: every line is new
    everything = fix("--diff-base", "main", "--select", "JAX101", cwd=tmp_path)
    assert sorted(line.split(": ")[0] for line in everything.stderr.decode().splitlines() if "JAX101" in line) == [
        "added.py:3:7", "moved.py:3:7", "touched.py:3:7", "touched.py:5:7"]
    changed = fix("--diff-base", "main", "--select", "JAX101", "--only-changed-lines", cwd=tmp_path)
    assert changed.returncode == 1
    stderr = changed.stderr.decode()
    assert sorted(line.split(": ")[0] for line in stderr.splitlines() if "JAX101" in line) == [
        "added.py:3:7", "touched.py:5:7"], stderr
    assert "2 findings on lines the branch did not change left out (--only-changed-lines)" in stderr
    diff = changed.stdout.decode()
    assert "-new = jax.tree_map(repr, {})" in diff and "-old = jax.tree_map(str, {})\n+old" in diff.split("touched.py")[0]
    assert diff.count("-old = jax.tree_map") == 1, "only added.py's old line: touched.py's is not the branch's"
    git("add", ".", cwd=tmp_path)
    git("commit", "-qm", "the pull request", cwd=tmp_path)
    assert fix("--check", "--select", "JAX101", "--only-changed-lines", "--diff-base", "main", "--select", "JAX101",
               "touched.py", cwd=tmp_path).stdout.decode().split() == ["touched.py"]
    usage = fix("--only-changed-lines", ".", cwd=tmp_path)
    assert usage.returncode == 2 and b"give --diff-base REV" in usage.stderr


def test_add_noqa_silences_every_finding_once_and_changes_nothing_else(tmp_path: Path) -> None:
    """Adopting the gate on a tree with findings: a comment per finding's line, naming its codes
    (on the line its suppression is read from, not the earlier line a fix's span may start on),
    idempotent; afterwards `--check` passes. Every byte but the comments is kept."""
    fixture = REPO / "tests/fixtures/accuracy/multiline_calls_with_comments.in.py"
    (tmp_path / "kernels.py").write_bytes(fixture.read_bytes())
    (tmp_path / "old.py").write_bytes(b"import jax\r\nx = jax.tree_map(f, t)  # noqa: E501\r\n"
                                      b"y = jax.tree_map(g, u)  # jax-codemod: ignore[JAX001]\r\n")
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    assert fix("--check", "--scope", "all", ".", cwd=tmp_path).returncode == 1
    first = fix("--add-noqa", "--scope", "all", ".", cwd=tmp_path)
    assert first.returncode == 0 and first.stdout == b"", first.stderr.decode()
    assert "suppression comments added to 2 files" in first.stderr.decode()
    assert (tmp_path / "old.py").read_bytes() == (
        b"import jax\r\nx = jax.tree_map(f, t)  # noqa: E501  # jax-codemod: ignore[JAX101]\r\n"
        b"y = jax.tree_map(g, u)  # jax-codemod: ignore[JAX001, JAX101]\r\n")
    for name, old in before.items():
        new = (tmp_path / name).read_bytes()
        assert re.sub(rb"  # jax-codemod: ignore\[JAX\d+\](?=\r?\n)|, JAX\d+(?=\]\r?\n)", b"", new) == old, name
    written = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    again = fix("--add-noqa", "--scope", "all", ".", cwd=tmp_path)
    assert again.returncode == 0 and "0 suppression comments added to 0 files" in again.stderr.decode()
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == written
    assert fix("--check", "--scope", "all", ".", cwd=tmp_path).returncode == 0
    refused = tmp_path / "continued.py"
    refused.write_text("import jax\nx = jax.tree_map(f, \\\n    t)\n")
    stuck = fix("--add-noqa", "continued.py", cwd=tmp_path)
    assert stuck.returncode == 1 and refused.read_text() == "import jax\nx = jax.tree_map(f, \\\n    t)\n"
    assert ("continued.py:2: JAX101: no suppression comment can go on this line (it ends inside a string or with a "
            "backslash): the finding stays") in stuck.stderr.decode()
    usage = fix("--add-noqa", "--write", ".", cwd=tmp_path)
    assert usage.returncode == 2 and b"--add-noqa writes suppression comments" in usage.stderr


# -- 10. monorepo plumbing --


def test_shards_cover_the_tree_exactly_once(tmp_path: Path) -> None:
    for index in range(12):
        folder = tmp_path / f"pkg{index % 3}"
        folder.mkdir(exist_ok=True)
        (folder / f"k{index}.py").write_text(dot_kernel())
    whole = set(fix("--check", ".", cwd=tmp_path).stdout.decode().split())
    shards = [set(fix("--check", "--shard", f"{k}/3", ".", cwd=tmp_path).stdout.decode().split()) for k in (1, 2, 3)]
    assert len(whole) == 12 and set().union(*shards) == whole
    assert sum(len(shard) for shard in shards) == 12, "no file in two shards"
    assert all(shards), "each shard gets some of twelve files"
    for bad in ("3/2", "0/2", "x/2", "2"):
        result = fix("--check", "--shard", bad, ".", cwd=tmp_path)
        assert result.returncode == 2 and b"--shard" in result.stderr, bad


def test_version() -> None:
    result = cli("--version", cwd=REPO)
    assert result.returncode == 0 and result.stdout.decode().startswith("jax-codemod 0.")


# -- 7 and 8: a terminal --


def run_in_terminal(args: list[str], cwd: Path, answers: list[bytes] = (), timeout: float = 60) -> tuple[int, bytes]:
    """Run the CLI with stdin, stdout and stderr on a pseudo-terminal; type `answers` at its prompts."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "TERM": "xterm", "COLUMNS": "100"}
    controller, terminal = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "codemods", *args], cwd=cwd, env=env,
                            stdin=terminal, stdout=terminal, stderr=terminal, close_fds=True)
    os.close(terminal)
    output, pending, deadline = b"", list(answers), time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([controller], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(controller, 65536)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
            if pending and output.rstrip().endswith(b"[q]uit:"):
                os.write(controller, pending.pop(0))
                output += b"\n<answered>\n"
        elif proc.poll() is not None:
            break
    proc.wait(timeout=10)
    os.close(controller)
    return proc.returncode, output


def test_progress_bar_only_on_a_terminal_and_only_for_long_runs(tmp_path: Path) -> None:
    for index in range(60):
        (tmp_path / f"k{index}.py").write_text(dot_kernel())
    _, long_run = run_in_terminal(["--jax-version", TARGET, "--no-cache", "-q", "--check", "."], tmp_path)
    assert b"analysing 60 of 60 files" in long_run
    _, short_run = run_in_terminal(["--jax-version", TARGET, "--no-cache", "-q", "--check", "k1.py"], tmp_path)
    assert b"analysing" not in short_run
    piped = fix("--no-cache", "-q", "--check", ".", cwd=tmp_path)
    assert b"analysing" not in piped.stderr and b"\x1b[" not in piped.stderr


def test_interactive_review_asks_per_fix(tmp_path: Path) -> None:
    for name in ("a.py", "b.py", "c.py", "d.py"):
        (tmp_path / name).write_text(CONV_KERNEL)
    code, output = run_in_terminal(["--jax-version", TARGET, "--interactive", "."], tmp_path, [b"y\n", b"n\n", b"q\n"])
    assert output.count(b"Apply this fix?") == 3, output.decode(errors="replace")
    assert output.count(b"JAX001 [fixed] lax.conv_general_dilated") >= 3, "each question shows its finding"
    assert CONV_FIXED in (tmp_path / "a.py").read_bytes()
    for name in ("b.py", "c.py", "d.py"):
        assert CONV_PAIR in (tmp_path / name).read_bytes(), name
    assert b"1 changed, 1 fix" in output and b"3 fixes declined" in output, "the summary counts what was written"
    assert code == 1, "changes remain pending"
    code, output = run_in_terminal(["--jax-version", TARGET, "-i", "."], tmp_path, [b"a\n"])
    assert output.count(b"Apply this fix?") == 1 and code == 0
    assert all(CONV_FIXED in (tmp_path / name).read_bytes() for name in ("b.py", "c.py", "d.py"))


def test_interactive_review_applies_the_accepted_fixes_of_a_file_together(tmp_path: Path) -> None:
    """Two fixes in one file, the first declined and the second accepted: only the second is written."""
    two = dot_kernel() + "\n\n" + dot_kernel().split("\n\n\n", 1)[1].replace("kernel", "kernel_b")
    (tmp_path / "two.py").write_text(two)
    code, output = run_in_terminal(["--jax-version", TARGET, "-i", "two.py"], tmp_path, [b"n\n", b"y\n"])
    assert output.count(b"Apply this fix?") == 2, output.decode(errors="replace")
    written = (tmp_path / "two.py").read_text()
    assert written.count("precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST)") == 1
    assert written.index("precision=(lax.Precision.DEFAULT") < written.index("precision=lax.Precision.HIGHEST")
    assert code == 1


# -- 4. output formats through the CLI (the documents themselves: tests/test_formats.py) --


@pytest.mark.parametrize("output", ["json", "sarif", "github"])
def test_machine_formats_own_stdout_and_keep_the_exit_codes(tmp_path: Path, output: str) -> None:
    import json

    (tmp_path / "k.py").write_text(dot_kernel())
    (tmp_path / "review.py").write_text(dot_kernel().replace(
        "precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST)", "**options").replace(
        "def kernel(x_ref, y_ref, o_ref):", "def kernel(x_ref, y_ref, o_ref, **options):"))
    (tmp_path / "broken.py").write_text("def f(:\n    pass  # pallas precision\n")
    result = fix("--output-format", output, ".", cwd=tmp_path)
    assert result.returncode == 2, "a file that cannot be parsed still makes the run exit 2"
    stdout = result.stdout.decode()
    assert not any(line.startswith(("--- a/", "+++ b/", "@@ ")) for line in stdout.splitlines()), \
        "no text diff mixed into a machine format (the json and sarif documents carry it inside)"
    if output == "github":
        lines = stdout.splitlines()
        assert any(line.startswith("::notice file=k.py,line=8,") and "title=JAX001" in line for line in lines)
        assert any(line.startswith("::warning file=review.py,") for line in lines)
        assert any(line.startswith("::error file=broken.py") for line in lines)
    else:
        document = json.loads(stdout)
        text = json.dumps(document)
        assert "k.py" in text and "review.py" in text and "broken.py" in text
    assert b"files scanned" in result.stderr, "the summary stays on stderr"
    written = fix("--write", "--output-format", output, "k.py", cwd=tmp_path)
    assert written.returncode == 0 and b"precision=lax.Precision.HIGHEST" in (tmp_path / "k.py").read_bytes()
