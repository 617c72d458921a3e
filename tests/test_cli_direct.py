"""The command line (codemods/cli.py) driven in-process with typer's CliRunner: what `--interactive`
asks and writes, `--write-patches`' listing, the help of the default command, the folders and files a
run is given, exit codes and the summary line. Written for the survivors of its mutation runs
(docs/testing.md, "Per module: cli.py and server.py" and the fresh sample of session 10);
tests/test_cli.py runs the same contract in subprocesses, which costs a second a run.

Nothing here imports jax.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from codemods import capabilities, cli
from codemods.analysis.kernel_scope import NO_LAUNCH_FOUND
from tests.test_per_operand_precision_direct import BF16

TARGET = "0.12.0.1"
DOT = "precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST)"
FIXED = "precision=lax.Precision.HIGHEST"
KERNEL = f'''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], {DOT})


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
'''
# The same kernel twice in one file: two fixes, answered one by one.
TWO = KERNEL + "\n\n" + KERNEL.split("\n\n\n", 1)[1].replace("kernel", "kernel_b")
# A finding no fix can be written for (the precision comes in through **options): [manual].
MANUAL = KERNEL.replace(DOT, "**options").replace("def kernel(x_ref, y_ref, o_ref):",
                                                 "def kernel(x_ref, y_ref, o_ref, **options):")
PROMPT = "Apply this fix? [y]es, [n]o, [a]ll, [q]uit: "
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JAX_CODEMOD_CACHE_DIR", str(tmp_path / ".cache"))


def invoke(*args: str, input: str | None = None):
    return CliRunner().invoke(cli.app, list(args), input=input, catch_exceptions=False)


def run(*args: str, input: str | None = None):
    return invoke("--jax-version", TARGET, "--no-cache", "-j", "1", *args, input=input)


def kernels(root: Path, *names: str, text: str = KERNEL) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
                   cwd=root, check=True, capture_output=True)


# -- --interactive --


def test_interactive_shows_each_finding_and_its_diff_then_asks(tmp_path: Path) -> None:
    kernels(tmp_path, "a.py", "b.py")
    result = run("-i", ".", input="y\nn\n")
    finding = ("a.py:8:60: JAX001 [fixed] jnp.dot: precision (DEFAULT, HIGHEST) -> HIGHEST (per-operand "
               f"precision is rejected in Mosaic TPU kernels); forced by Mosaic TPU (Triton lowers it as written){BF16}")
    assert result.stdout.startswith(finding + "\n--- a/a.py\n+++ b/a.py\n@@ -5,7 +5,7 @@\n"), result.stdout
    assert f"-    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], {DOT})\n" in result.stdout
    assert f"+    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], {FIXED})\n" in result.stdout
    assert result.stdout.count(PROMPT) == 2 and result.stdout.endswith(PROMPT)
    assert "\n" + PROMPT + "b.py:8:60: JAX001 [fixed]" in result.stdout
    assert FIXED in (tmp_path / "a.py").read_text() and (tmp_path / "b.py").read_text() == KERNEL
    assert "1 changed, 1 fix, 0 need manual review, 0 errors, 1 fix declined" in result.stderr
    assert result.exit_code == 1, "the declined fix remains"


@pytest.mark.parametrize("answer", [" Y\n", "yes\n", "YES please\n"])
def test_interactive_reads_the_first_letter_of_the_answer_in_any_case(tmp_path: Path, answer: str) -> None:
    kernels(tmp_path, "a.py")
    result = run("-i", "a.py", input=answer)
    assert result.stdout.count(PROMPT) == 1 and FIXED in (tmp_path / "a.py").read_text()
    assert result.exit_code == 0


def test_interactive_asks_again_after_an_answer_it_does_not_know(tmp_path: Path) -> None:
    kernels(tmp_path, "a.py")
    result = run("-i", "a.py", input="maybe\n\nn\n")
    assert result.stdout.count(PROMPT) == 3, result.stdout
    assert (tmp_path / "a.py").read_text() == KERNEL and result.exit_code == 1


@pytest.mark.parametrize("answer", ["n", "q", "a"])
def test_each_known_answer_is_taken_at_once(tmp_path: Path, answer: str) -> None:
    kernels(tmp_path, "a.py")
    result = run("-i", "a.py", input=answer + "\n")
    assert result.stdout.count(PROMPT) == 1, result.stdout
    assert (FIXED in (tmp_path / "a.py").read_text()) is (answer == "a")


def test_all_accepts_the_remaining_fixes_without_asking(tmp_path: Path) -> None:
    kernels(tmp_path, "a.py", "b.py", "c.py")
    result = run("-i", ".", input="n\na\n")
    assert result.stdout.count(PROMPT) == 2, result.stdout
    assert (tmp_path / "a.py").read_text() == KERNEL
    assert all(FIXED in (tmp_path / name).read_text() for name in ("b.py", "c.py"))
    assert "2 changed, 2 fixes" in result.stderr and result.exit_code == 1


def test_an_uppercase_all_is_all(tmp_path: Path) -> None:
    kernels(tmp_path, "a.py", "b.py")
    result = run("-i", ".", input="A\n")
    assert result.stdout.count(PROMPT) == 1 and result.exit_code == 0
    assert all(FIXED in (tmp_path / name).read_text() for name in ("a.py", "b.py"))


def test_quit_declines_this_fix_and_every_later_one_without_asking(tmp_path: Path) -> None:
    kernels(tmp_path, "a.py", "b.py", "c.py")
    result = run("-i", ".", input="y\nq\ny\n")
    assert result.stdout.count(PROMPT) == 2, result.stdout
    assert FIXED in (tmp_path / "a.py").read_text()
    assert (tmp_path / "b.py").read_text() == (tmp_path / "c.py").read_text() == KERNEL
    assert "1 changed, 1 fix, 0 need manual review, 0 errors, 2 fixes declined" in result.stderr


def test_the_end_of_input_is_quit(tmp_path: Path) -> None:
    kernels(tmp_path, "a.py", "b.py", "c.py")
    result = run("-i", ".", input="y\n")
    assert result.stdout.count(PROMPT) == 2, result.stdout
    assert FIXED in (tmp_path / "a.py").read_text()
    assert (tmp_path / "b.py").read_text() == (tmp_path / "c.py").read_text() == KERNEL
    assert result.exit_code == 1


@pytest.mark.parametrize("answers, fixed", [("n\ny\n", [False, True]), ("y\nn\n", [True, False]),
                                            ("y\ny\n", [True, True]), ("n\nn\n", [False, False])])
def test_the_accepted_fixes_of_a_file_are_written_and_no_other(tmp_path: Path, answers: str, fixed: list) -> None:
    kernels(tmp_path, "two.py", text=TWO)
    result = run("-i", "two.py", input=answers)
    assert result.stdout.count(PROMPT) == 2, result.stdout
    calls = [line for line in (tmp_path / "two.py").read_text().splitlines() if "jnp.dot(" in line]
    assert [FIXED in line for line in calls] == fixed
    assert result.exit_code == (0 if all(fixed) else 1)


# -- --write-patches --


def _patch_project(root: Path) -> None:
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    kernels(root, "one/a.py", "two/b.py")


def test_write_patches_lists_the_patches_on_stdout_and_says_what_it_wrote(tmp_path: Path) -> None:
    _patch_project(tmp_path)
    result = run("--split-by", "directory:1", "--write-patches", "out", ".")
    assert result.stdout.splitlines() == ["out/one.patch", "out/two.patch"]
    assert "2 patches and SUMMARY.md written to out (split by directory:1)\n" in result.stderr
    assert f"(target jax {TARGET} from --jax-version)" in (tmp_path / "out" / "SUMMARY.md").read_text()
    assert "+++ b/one/a.py" in (tmp_path / "out" / "one.patch").read_text()
    assert (tmp_path / "one" / "a.py").read_text() == KERNEL, "a dry run"


def test_write_patches_quiet_keeps_only_the_list(tmp_path: Path) -> None:
    _patch_project(tmp_path)
    result = run("-q", "--split-by", "directory:1", "--write-patches", "out", ".")
    assert result.stdout.splitlines() == ["out/one.patch", "out/two.patch"]
    assert result.stderr == ""


def test_write_patches_with_a_machine_format_prints_only_the_document(tmp_path: Path) -> None:
    _patch_project(tmp_path)
    result = run("--output-format", "json", "--split-by", "directory:1", "--write-patches", "out", ".")
    assert json.loads(result.stdout)["summary"]["changed"] == 2
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["SUMMARY.md", "one.patch", "two.patch"]


def test_a_patch_that_cannot_be_written_is_an_error_exit_2(tmp_path: Path) -> None:
    _patch_project(tmp_path)
    (tmp_path / "out" / "one.patch").mkdir(parents=True)  # a folder where --force would write a patch
    (tmp_path / "out" / "one.patch" / "keep").write_text("mine\n")
    result = run("--split-by", "directory:1", "--write-patches", "out", "--force", ".")
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: --write-patches out: "), result.stderr
    assert result.stdout == "" and (tmp_path / "out" / "one.patch" / "keep").read_text() == "mine\n"


def test_patches_are_relative_to_the_project_root_when_run_from_a_subfolder(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _patch_project(tmp_path)
    monkeypatch.chdir(tmp_path / "one")
    result = run("--split-by", "directory:1", "--write-patches", str(tmp_path / "out"), str(tmp_path))
    assert result.exit_code == 1, result.stderr
    patch = (tmp_path / "out" / "one.patch").read_text()
    assert "--- a/one/a.py\n+++ b/one/a.py\n" in patch, patch


def test_patches_outside_every_project_and_work_tree_are_relative_to_the_current_folder(tmp_path: Path) -> None:
    """No pyproject.toml, no .git above: the project root is unknown, so patches are relative to the
    current folder (fresh sample of session 11)."""
    kernels(tmp_path, "one/a.py", "two/b.py")
    result = run("--split-by", "directory:1", "--write-patches", "out", ".")
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines() == ["out/one.patch", "out/two.patch"]
    assert "--- a/one/a.py\n+++ b/one/a.py\n" in (tmp_path / "out" / "one.patch").read_text()


SPLIT_ALONE = ("--split-by is a dry run that writes patches: use it with --write-patches DIR, without --write, --check "
               "or --interactive")


@pytest.mark.parametrize("args, message", [
    (["--write-patches", "out"], "--write-patches and --force need --split-by codeowners or directory:N"),
    (["--force"], "--write-patches and --force need --split-by codeowners or directory:N"),
    (["--split-by", "directory:1"], SPLIT_ALONE),
    (["--split-by", "directory:1", "--write-patches", "out", "--write"], SPLIT_ALONE),
    (["--split-by", "directory:0", "--write-patches", "out"],
     "--split-by 'directory:0': expected codeowners or directory:N (N a positive integer)"),
])
def test_split_options_used_wrong_are_usage_errors(tmp_path: Path, args: list, message: str) -> None:
    kernels(tmp_path, "a.py")
    result = CliRunner().invoke(cli.app, ["--jax-version", TARGET, *args, "a.py"])
    assert result.exit_code == 2
    assert "Error: Invalid value: " + message in " ".join(result.output.split()), result.output
    assert (tmp_path / "a.py").read_text() == KERNEL


# -- help --


def test_help_lists_the_default_commands_options_under_their_own_heading(tmp_path: Path) -> None:
    for flag in ("--help",):
        result = invoke(flag)
        assert result.exit_code == 0
        heading = "Options of `fix`, the default command (jax-codemod [OPTIONS] [PATHS]...):\n"
        assert heading in result.stdout, (flag, result.stdout)
        options = result.stdout.split(heading, 1)[1]
        assert "\n  --write  " in options and "\n  --jax-version " in options and "--exit-zero" in options
        assert "Commands:" in result.stdout and "Exit codes" in result.stdout


def test_the_helps_exit_code_2_names_every_cause_the_readme_names() -> None:
    """A pipx install with no target jax exits 2 after a full diff: the first thing a new user meets
    (trial of 2026-12-06). `--help` named only an unprocessed file, so the 2 looked like a crash."""
    text = " ".join(invoke("--help").stdout.split())
    causes = text.split("Exit codes", 1)[1].split("Options:", 1)[0]
    assert "could not be processed" in causes and "no target jax" in causes and "could not start" in causes, causes


def test_the_help_of_the_default_commands_options_has_dash_h_too() -> None:
    """The options of `fix` are read in a context under the group's, whose `-h` they inherit."""
    options = invoke("--help").stdout.split("Options of `fix`", 1)[1]
    assert "\n  -h, --help " in options, options


def test_with_no_arguments_the_current_folder_is_fixed(tmp_path: Path) -> None:
    kernels(tmp_path, "a.py")
    result = invoke("--no-cache")
    assert "a.py:8:60: JAX001" in result.stderr and result.exit_code == 1


@pytest.mark.parametrize("command", ["explain", "rules", "fix"])
def test_a_command_after_an_option_is_named_as_a_command_not_read_as_a_missing_file(tmp_path: Path,
                                                                                 command: str) -> None:
    """`jax-codemod --jax-version X explain log` (the trial of issue 49) made `explain` and the log
    paths of `fix`: `explain: error: cannot read`. The usage error says where the options go. So
    for `fix` (`jax-codemod --jax-version X fix .`, the Quick start's `fix` with the option it says
    to add put first: a new user's trial, 2026-12-06d), which ran on `.` and a missing `fix`."""
    (tmp_path / "err.log").write_text("AttributeError: module 'jax' has no attribute 'tree_map'\n")
    result = invoke("--jax-version", TARGET, command, "err.log")
    assert result.exit_code == 2, result.output
    assert f"Error: Invalid value: `{command}` is a command, not a file: write its options after its name " \
        f"(jax-codemod {command} [OPTIONS] ...)" in " ".join(result.output.split()), result.output
    assert "cannot read" not in result.output


def test_a_folder_named_like_a_command_is_still_a_path(tmp_path: Path) -> None:
    kernels(tmp_path, "rules/a.py")
    result = run("rules")
    assert "rules/a.py:8:60: JAX001" in result.stderr and result.exit_code == 1, result.stderr


# -- the files a run is given --


def test_a_named_folder_that_yields_no_file_says_why(tmp_path: Path) -> None:
    kernels(tmp_path, "src/a.py", "gen/b.py")
    (tmp_path / "empty").mkdir()
    result = run("--exclude", "gen", "src", "gen", "empty")
    assert "\ngen: skipped: it lies in an excluded folder (the `exclude` list, or the default one: virtualenvs, " \
        "build output, VCS data); name its files, or change `exclude`\n" in result.stderr, result.stderr
    assert "src: skipped" not in result.stderr and "src/a.py:8:60: JAX001" in result.stderr
    assert "empty: skipped" not in result.stderr, "no file, and not our doing: nothing to say"
    assert "2 files scanned" in result.stderr and "1 skipped" in result.stderr and result.exit_code == 1


def test_a_skipped_folder_is_named_even_beside_a_folder_whose_name_it_begins(tmp_path: Path) -> None:
    kernels(tmp_path, "generated/a.py", "gen/b.py")
    result = run("--exclude", "gen", "gen", "generated")
    assert "\ngen: skipped: it lies in an excluded folder" in result.stderr, result.stderr
    assert "generated/a.py:8:60: JAX001" in result.stderr and "1 skipped" in result.stderr


def test_a_machine_format_writes_no_skipped_line_to_stderr_only_the_summary(tmp_path: Path) -> None:
    kernels(tmp_path, "src/a.py", "gen/b.py")
    result = run("--output-format", "json", "--exclude", "gen", "src", "gen")
    assert "skipped:" not in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1 and "1 skipped" in result.stderr, result.stderr
    assert result.exit_code == 1


def test_exclude_from_the_command_line_skips_files_of_a_walk(tmp_path: Path) -> None:
    kernels(tmp_path, "src/a.py", "gen/b.py")
    result = run("--exclude", "gen", ".")
    assert "src/a.py:8:60: JAX001" in result.stderr and "gen/b.py" not in result.stderr
    assert "1 file scanned" in result.stderr


def test_a_folders_notebooks_are_processed(tmp_path: Path) -> None:
    cell = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": KERNEL}
    (tmp_path / "nb.ipynb").write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                                                   "cells": [cell]}))
    result = run("--check", ".")
    assert "nb.ipynb:cell 1:8:60: JAX001" in result.stderr, result.stderr
    assert result.exit_code == 1


LAUNCH = '''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from src.bodies import body

matmul = pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
'''
BODY = f'''\
import jax.numpy as jnp
from jax import lax


def body(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], {DOT})
'''


def test_a_subfolder_named_alone_still_sees_the_kernels_launched_from_the_rest_of_the_project(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "launch.py").write_text(LAUNCH)
    kernels(tmp_path, "src/__init__.py", text="")
    kernels(tmp_path, "src/bodies.py", text=BODY)
    result = run("--check", "src")
    assert "src/bodies.py:6:60: JAX001" in result.stderr, result.stderr
    assert result.exit_code == 1


@needs_git
def test_shards_split_the_files_and_do_not_depend_on_the_current_folder(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    git(tmp_path, "init", "-q")
    kernels(tmp_path, *(f"pkg/k{index}.py" for index in range(8)))
    seen = []
    for shard in ("1/2", "2/2"):
        result = run("--check", "-q", "--shard", shard, ".")
        seen.append(sorted(result.stdout.split()))
    assert sorted(seen[0] + seen[1]) == [f"pkg/k{index}.py" for index in range(8)]
    assert seen[0] and seen[1]
    monkeypatch.chdir(tmp_path / "pkg")
    from_below = run("--check", "-q", "--shard", "1/2", ".")
    assert sorted("pkg/" + line for line in from_below.stdout.split()) == seen[0]


def test_a_shard_of_the_project_root_still_sees_the_kernels_launched_from_the_other_shards(tmp_path: Path) -> None:
    """`--shard K/N .` at the root: the project index is the whole walk's, not the shard's (fresh
    sample of session 11)."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "launch.py").write_text(LAUNCH)
    kernels(tmp_path, "src/__init__.py", text="")
    kernels(tmp_path, "src/bodies.py", text=BODY)
    shards = [run("--check", "--shard", f"{k}/2", ".") for k in (1, 2)]
    [holder] = [result for result in shards if "src/bodies.py" in result.stderr]
    assert "launch.py" not in holder.stderr, "the launch in the other shard"
    assert "src/bodies.py:6:60: JAX001" in holder.stderr and holder.exit_code == 1, holder.stderr


@needs_git
def test_diff_base_processes_only_the_changed_files(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    kernels(tmp_path, "old.py", "gen/older.py")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "first")
    kernels(tmp_path, "new.py", "gen/generated.py", "sub/changed.py")
    (tmp_path / "nb.ipynb").write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": KERNEL}]}))
    result = run("--check", "-q", "--diff-base", "HEAD", "--exclude", "gen", ".")
    assert sorted(result.stdout.split()) == ["nb.ipynb", "new.py", "sub/changed.py"], result.stdout
    narrowed = run("--check", "-q", "--diff-base", "HEAD", "sub")
    assert narrowed.stdout.split() == ["sub/changed.py"]


@needs_git
def test_diff_base_leaves_out_changed_notebooks_when_the_config_says_notebooks_false(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.jax-codemod]\nnotebooks = false\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "first")
    kernels(tmp_path, "new.py")
    (tmp_path / "nb.ipynb").write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": KERNEL}]}))
    result = run("--check", "-q", "--diff-base", "HEAD", ".")
    assert result.stdout.split() == ["new.py"], result.stdout


def test_files_named_inside_an_excluded_package_see_each_other(tmp_path: Path) -> None:
    """`--exclude gen gen/bodies.py gen/launch.py`: the named files are processed, and the index reads
    the `__init__.py` above them, so `from gen.bodies import body` is the project's module and the
    launch is seen: the pair is fixed. Without it, `gen/bodies.py` was the module `bodies` and only
    the note for a body whose launch is not found was given (found by a helper's mutation work)."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    kernels(tmp_path, "gen/__init__.py", text="")
    kernels(tmp_path, "gen/bodies.py", text=BODY)
    kernels(tmp_path, "gen/launch.py", text=LAUNCH.replace("from src.bodies", "from gen.bodies"))
    result = run("--check", "--exclude", "gen", "gen/bodies.py", "gen/launch.py")
    assert "gen/bodies.py:6:60: JAX001 [fixed]" in result.stderr and result.exit_code == 1, result.stderr


def test_notebooks_false_keeps_notebooks_out_of_the_project_index_too(tmp_path: Path) -> None:
    """A notebook launches src/bodies.py's kernel; with `notebooks = false` the index does not read
    it, so naming src alone finds no kernel (with notebooks read, it does, and fixes its pair): the
    body, which takes refs, is only noted as one whose launch was not found."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    kernels(tmp_path, "src/__init__.py", text="")
    kernels(tmp_path, "src/bodies.py", text=BODY)
    (tmp_path / "nb.ipynb").write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": LAUNCH}]}))
    assert "src/bodies.py:6:60: JAX001" in run("--check", "src").stderr
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n\n[tool.jax-codemod]\nnotebooks = false\n")
    result = run("--check", "src")
    assert "src/bodies.py:6:60: JAX001" not in result.stderr, result.stderr
    assert "JAX001 [manual]" in result.stderr and NO_LAUNCH_FOUND in result.stderr, result.stderr


# -- the report --


def test_a_file_that_cannot_be_parsed_is_named_and_the_run_exits_2(tmp_path: Path) -> None:
    kernels(tmp_path, "a.py")
    (tmp_path / "broken.py").write_text("def f(:\n    pass  # pallas precision\n")
    result = run("--write", ".")
    assert "broken.py: error: cannot parse" in result.stderr, result.stderr
    assert FIXED in (tmp_path / "a.py").read_text()
    assert result.exit_code == 2


# pl.dot in a Triton kernel: its fix (pallas.triton.dot) needs jax 0.10.2 (as in tests/test_jax_floor.py).
TRITON = '''\
from jax.experimental import pallas as pl

def kernel(x, y, o):
    o[...] = pl.dot(x[...], y[...])

f = pl.pallas_call(kernel, out_shape=None, backend="triton")
'''


def test_the_summary_says_how_many_fixes_the_floor_held_back(tmp_path: Path) -> None:
    kernels(tmp_path, "triton.py", text=TRITON)
    result = run("--select", "JAX150", "--jax-floor", "0.4.30", "triton.py")
    assert result.stderr.splitlines()[-1].endswith(
        f"(target jax {TARGET} from --jax-version); 1 fix held back by --jax-floor 0.4.30: raise it"), result.stderr


def test_with_a_machine_format_a_parse_error_is_in_the_document_not_on_stderr(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def f(:\n    pass  # pallas precision\n")
    result = run("--output-format", "json", "broken.py")
    document = json.loads(result.stdout)
    assert [e["path"] for e in document["errors"]] == ["broken.py"]
    assert document["errors"][0]["message"].startswith("cannot parse")
    assert "error" not in result.stderr.replace("1 error", ""), result.stderr
    assert len(result.stderr.splitlines()) == 1 and result.exit_code == 2


def test_a_machine_format_counts_the_suppressed_findings(tmp_path: Path) -> None:
    kernels(tmp_path, "a.py", text=KERNEL.replace(f"{DOT})\n", f"{DOT})  # jax-codemod: ignore[JAX001]\n"))
    kernels(tmp_path, "b.py")
    document = json.loads(run("--output-format", "json", ".").stdout)
    assert document["summary"]["suppressed"] == 1 and document["summary"]["findings"] == 1, document["summary"]


def test_exit_codes_follow_what_remains(tmp_path: Path) -> None:
    kernels(tmp_path, "a.py")
    assert run("a.py").exit_code == 1, "a dry run leaves the change"
    assert run("--exit-zero", "a.py").exit_code == 0
    assert run("--write", "a.py").exit_code == 0, "everything fixed on disk"
    assert run("a.py").exit_code == 0, "nothing left"


def test_a_manual_finding_left_in_a_written_file_exits_1(tmp_path: Path) -> None:
    kernels(tmp_path, "both.py", text=KERNEL + "\n\n" + MANUAL.split("\n\n\n", 1)[1].replace("kernel", "kernel_b"))
    result = run("--write", "both.py")
    assert FIXED in (tmp_path / "both.py").read_text()
    assert "[manual]" in result.stderr and "1 changed, 1 fix, 1 needs manual review" in result.stderr
    assert result.exit_code == 1


def test_the_summary_names_the_target_and_where_it_came_from(tmp_path: Path) -> None:
    kernels(tmp_path, "a.py")
    result = run("a.py")
    assert result.stderr.splitlines()[-1].endswith(f"(target jax {TARGET} from --jax-version)")


def test_sarif_names_the_tools_version_and_its_rules(tmp_path: Path) -> None:
    kernels(tmp_path, "a.py")
    result = run("--output-format", "sarif", "a.py")
    driver = json.loads(result.stdout)["runs"][0]["tool"]["driver"]
    assert driver["version"] == cli._tool_version() != "unknown"
    assert "JAX001" in [rule["id"] for rule in driver["rules"]]
    assert result.exit_code == 1


def test_sarif_says_unknown_for_the_version_of_a_tool_run_from_a_checkout(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "installed_version", lambda distribution: None)  # no dist-info folder on sys.path
    kernels(tmp_path, "a.py")
    result = run("--output-format", "sarif", "a.py")
    assert json.loads(result.stdout)["runs"][0]["tool"]["driver"]["version"] == "unknown"


def test_with_no_target_selecting_every_rule_goes_on_and_exits_2(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capabilities, "installed_jax_version", lambda: None)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    kernels(tmp_path / "proj", "a.py")
    result = invoke("--check", "--no-cache", "--select", "ALL", "proj")
    assert "error: no target jax release, so the JAX1xx rules cannot run" in result.stderr, result.stderr
    assert "proj/a.py:8:60: JAX001" in result.stderr and result.exit_code == 2


def test_the_configs_folder_is_the_project_even_below_another_marker(tmp_path: Path) -> None:
    """A subfolder with its own setup.py, in a project whose config is above it: the project (what the
    index reads) is the config's folder, so the kernel launched from the top is still found."""
    (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'demo'\n\n[tool.jax-codemod]\njax-version = '{TARGET}'\n")
    (tmp_path / "launch.py").write_text(LAUNCH)
    kernels(tmp_path, "src/__init__.py", text="")
    kernels(tmp_path, "src/setup.py", text="")
    kernels(tmp_path, "src/bodies.py", text=BODY)
    result = invoke("--no-cache", "-j", "1", "--check", "src")
    assert "src/bodies.py:6:60: JAX001" in result.stderr, result.stderr
    assert result.exit_code == 1


@needs_git
def test_diff_base_at_the_root_still_indexes_the_unchanged_modules(tmp_path: Path) -> None:
    """Only bodies.py changed; the module that launches its kernel did not, and is still read."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "launch.py").write_text(LAUNCH)
    kernels(tmp_path, "src/__init__.py", text="")
    kernels(tmp_path, "src/bodies.py", text=BODY.replace(DOT, FIXED))
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "first")
    kernels(tmp_path, "src/bodies.py", text=BODY)
    result = run("--check", "--diff-base", "HEAD", ".")
    assert "src/bodies.py:6:60: JAX001" in result.stderr, result.stderr
    assert "1 file scanned" in result.stderr and result.exit_code == 1


@pytest.mark.parametrize("command", [[], ["fix"], ["explain"], ["rules"], ["clean"], ["probe"], ["server"]])
def test_dash_h_is_help_for_every_command(command: list[str]) -> None:
    """`-h` as Ruff takes it: the help of the command, exit 0 (it was `No such option: -h`, exit 2)."""
    result = CliRunner().invoke(cli.app, [*command, "-h"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Usage: ") and "-h, --help" in result.output


# -- a folder with no project marker --

SCRIPT_CONFIG = "from jax import lax\n\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n"
SCRIPT = ("import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n\nfrom config import PAIR\n\n\n"
          "def body(x_ref, o_ref):\n    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=PAIR)\n\n\n"
          "def run(x):\n    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)\n")


@pytest.mark.parametrize("named", ["kernel.py", "scripts/kernel.py"])
def test_a_file_with_no_marker_above_has_the_modules_beside_it_as_its_project(tmp_path: Path, named: str) -> None:
    """No pyproject.toml, setup.py or .git above: `config` beside the file is the project's module (its
    folder is `sys.path[0]` for `python kernel.py`), as in a run over the folder, which fixes the pair
    there. Before, the file alone was the project and its pair "an installed package's value"."""
    folder = tmp_path / Path(named).parent
    folder.mkdir(exist_ok=True)
    (folder / "config.py").write_text(SCRIPT_CONFIG)
    (folder / "kernel.py").write_text(SCRIPT)
    alone = run("--check", named)
    assert alone.exit_code == 1 and "installed package" not in alone.stderr, alone.stderr
    assert (f"{named}:9:60: JAX001 [manual] jnp.dot: precision `PAIR` can be (DEFAULT, HIGHEST), written in `config` "
            "on line 3, a file this run does not process") in alone.stderr, alone.stderr
    whole = run("--write", str(folder))
    assert whole.exit_code == 0, whole.stderr
    assert (folder / "config.py").read_text() == SCRIPT_CONFIG.replace("(lax.Precision.DEFAULT, lax.Precision.HIGHEST)",
                                                                       "lax.Precision.HIGHEST")
    assert run("--check", named).exit_code == 0
