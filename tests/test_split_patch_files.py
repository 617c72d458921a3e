"""The files `--split-by ... --write-patches DIR` writes, at their edges, end to end through the
CLI: names git must read quoted, groups whose names collide, long owner names, the folder it
writes into, what SUMMARY.md and stderr say. The contract (each patch applies alone, together
they give --write's tree) is in tests/test_split_patches.py; these pin what mutation testing
found unpinned there (docs/testing.md).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.test_cli import fix, git, needs_git, snapshot
from tests.test_split_patches import SELECT, TREE_MAP, split

pytestmark = needs_git


def repo_with(root: Path, files: dict[str, str], codeowners: str = "") -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    if codeowners:
        (root / "CODEOWNERS").write_text(codeowners)
    git("init", "-q", cwd=root)
    git("add", ".", cwd=root)
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "repo", cwd=root)
    return root


def test_names_git_quotes_are_quoted_in_the_patch_and_it_applies(tmp_path: Path) -> None:
    """Catches a name with a quote, a backslash or a tab written bare in `diff --git` (git apply
    refuses it, or patches another file) or escaped as git does not."""
    names = ['q"uote.py', "back\\slash.py", "tab\there.py", "esc\x1bape.py", "plain.py"]
    repo = repo_with(tmp_path / "repo", {name: TREE_MAP for name in names})
    written = tmp_path / "written"
    shutil.copytree(repo, written)
    fix("--write", *SELECT, ".", cwd=written)
    out = tmp_path / "patches"
    assert split(repo, out, by="directory:1").returncode == 1
    patch = (out / "root.patch").read_bytes()
    assert b'diff --git "a/q\\"uote.py" "b/q\\"uote.py"\n--- "a/q\\"uote.py"\n+++ "b/q\\"uote.py"\n' in patch
    assert b'diff --git "a/back\\\\slash.py" "b/back\\\\slash.py"\n' in patch
    assert b'diff --git "a/tab\\there.py" "b/tab\\there.py"\n' in patch
    assert b'diff --git "a/esc\\033ape.py" "b/esc\\033ape.py"\n' in patch  # git's octal escape
    assert b"diff --git a/plain.py b/plain.py\n--- a/plain.py\n+++ b/plain.py\n" in patch
    git("apply", str(out / "root.patch"), cwd=repo)
    assert snapshot(repo) == snapshot(written)


def test_owners_whose_names_collide_get_distinct_patches(tmp_path: Path) -> None:
    """Catches two groups written to one file (the second overwrites the first): owners that
    differ only in case (one file on macOS and Windows), an owner named like the unowned patch."""
    repo = repo_with(tmp_path / "repo", {"a/x.py": TREE_MAP, "b/x.py": TREE_MAP, "c/x.py": TREE_MAP, "d/x.py": TREE_MAP},
                     "/a/  @Team\n/b/  @team\n/c/  @unowned\n")
    out = tmp_path / "patches"
    assert split(repo, out).returncode == 1
    assert sorted(p.name for p in out.glob("*.patch")) == ["Team.patch", "team-2.patch", "unowned-2.patch", "unowned.patch"]
    assert "d/x.py" in (out / "unowned.patch").read_text() and "c/x.py" in (out / "unowned-2.patch").read_text()
    summary = (out / "SUMMARY.md").read_text()
    rows = [line for line in summary.splitlines() if line.startswith("| ") and "patch" in line and "[" in line]
    # Owners in order, the unowned files last.
    assert [row.split(" | ")[0] for row in rows] == ["| `@Team`", "| `@team`", "| `@unowned`", "| (unowned)"]


def test_a_long_owner_name_is_cut_to_a_file_name_the_filesystem_takes(tmp_path: Path) -> None:
    """Catches the slug left whole (a 255-byte name limit: the run fails writing the patch) or
    cut elsewhere than at 100 characters."""
    team = "t" * 150
    repo = repo_with(tmp_path / "repo", {"x.py": TREE_MAP}, f"*  @org/{team}\n")
    out = tmp_path / "patches"
    assert split(repo, out).returncode == 1
    assert [p.name for p in out.glob("*.patch")] == [("org-" + team)[:100] + ".patch"]


def test_an_owner_with_a_pipe_keeps_the_summary_table_whole(tmp_path: Path) -> None:
    """Catches a `|` in an owner (an email may hold one) splitting its row into more cells."""
    repo = repo_with(tmp_path / "repo", {"x.py": TREE_MAP}, "*  a|b@example.com\n")
    out = tmp_path / "patches"
    assert split(repo, out).returncode == 1
    assert "| `a\\|b@example.com` | 1 | 1 | 0 | 0 | [a-b-example.com.patch](a-b-example.com.patch) |" in (out / "SUMMARY.md").read_text()


@pytest.mark.parametrize("owners, patch", [
    ("@Xavier  @@maintainer", "Xavier_maintainer.patch"),
    (".ops@corp.example", "ops-corp.example.patch"),  # not a hidden file
])
def test_a_patch_is_named_for_its_owners(tmp_path: Path, owners: str, patch: str) -> None:
    """Catches an owner's name cut at the wrong end, or a patch named like a hidden file."""
    repo = repo_with(tmp_path / "repo", {"x.py": TREE_MAP}, f"*  {owners}\n")
    out = tmp_path / "patches"
    assert split(repo, out).returncode == 1
    assert [p.name for p in out.iterdir() if p.name != "SUMMARY.md"] == [patch]


@pytest.mark.parametrize("value", ["owners", "directory:x", "directory:0", "directory:-1", "directory"])
def test_a_bad_split_says_what_it_expects(tmp_path: Path, value: str) -> None:
    """Catches a bad --split-by value answered with Python's own error (`invalid literal for
    int()`) instead of what to write."""
    result = fix("--split-by", value, "--write-patches", str(tmp_path / "out"), *SELECT, ".", cwd=tmp_path)
    assert result.returncode == 2
    assert f"--split-by {value!r}: expected codeowners or directory:N (N a positive integer)" in result.stderr.decode()


def test_what_the_run_says_about_the_patches(tmp_path: Path) -> None:
    """Catches SUMMARY.md (the whole of it) or stderr's last line losing how files were split,
    a section's title or its fence, the blank lines Markdown needs."""
    repo = repo_with(tmp_path / "repo", {"libs/x.py": TREE_MAP, "y.py": TREE_MAP}, "*  @org/infra\n")
    out = tmp_path / "patches"
    result = split(repo, out)
    assert f"1 patch and SUMMARY.md written to {out} (split by codeowners (CODEOWNERS))" in result.stderr.decode()
    summary = (out / "SUMMARY.md").read_text()
    heading = summary.splitlines()[2].partition(", split by")[0]
    assert heading.startswith("jax-codemod ") and heading.endswith("(target jax 0.12.0.1 from --jax-version)")
    assert summary == (
        "# jax-codemod patches\n\n"
        f"{heading}, split by codeowners (CODEOWNERS): one patch per owner; each applies with `git apply` on its own, "
        "in any order.\n\n"
        "| owner | files | fixes | manual | not processed | patch file |\n"
        "|---|---:|---:|---:|---:|---|\n"
        "| `@org/infra` | 2 | 2 | 0 | 0 | [org-infra.patch](org-infra.patch) |\n"
        "\n## `@org/infra`\n\nFiles:\n\n```\nlibs/x.py: changed, fixes: 1\ny.py: changed, fixes: 1\n```\n"
        "\nFloors the fixes were held to (the oldest jax each project supports):\n\n```\nno jax floor found for ./ (no "
        "jax>= in pyproject.toml, setup.cfg, setup.py, requirements*.txt or a lock file): 2 files\n```\n"
        "\nFixes by rule:\n\n```\nJAX101: 2\n```\n")
    directory = tmp_path / "by-folder"
    result = split(repo, directory, by="directory:1")
    assert f"2 patches and SUMMARY.md written to {directory} (split by directory:1)" in result.stderr.decode()
    assert "| (root) | 1 | 1 | 0 | 0 | [root.patch](root.patch) |" in (directory / "SUMMARY.md").read_text()


def test_a_notebooks_finding_left_is_placed_in_its_cell(tmp_path: Path) -> None:
    """Catches a notebook's [manual] finding listed at its line in the module made of its cells,
    which the user cannot find in the notebook."""
    import json

    cells = [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [], "source": source}
             for i, source in enumerate([["import jax.numpy as jnp\n"], ["y = 1\n"],
                                         ["y = 2\n", "z = jnp.clip(y, 0.0, a_min=1.0)\n", "w = jnp.clip(y, 0.0, a_min=2.0)\n"]])]
    document = {"cells": cells, "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    swap = "import jax.numpy as jnp\n\n\ndef swap(x, upper):\n    return jnp.clip(a_max=upper(), a=x)\n"
    repo = repo_with(tmp_path / "repo", {"nb/demo.ipynb": json.dumps(document, indent=1) + "\n", "swap.py": swap},
                     "*  @org/infra\n")
    out = tmp_path / "patches"
    split(repo, out)
    summary = (out / "SUMMARY.md").read_text()
    assert "\nFiles:\n\n```\nnb/demo.ipynb: no change (findings only)\nswap.py: no change (findings only)\n```\n" in summary
    manual = summary.split("\nManual findings left:\n\n```\n")[1].split("```")[0].splitlines()
    assert [line.split(" [manual] ")[0] for line in manual] == ["nb/demo.ipynb:cell 3:2: JAX140", "nb/demo.ipynb:cell 3:3: JAX140"]
    assert "\nUnsafe fixes not applied (--unsafe-fixes applies them):\n\n```\nswap.py:5: JAX140 " in summary


@pytest.mark.parametrize("kind", ["a file", "an empty folder"])
def test_the_patch_folder_named_by_a_file_is_refused_and_an_empty_one_is_used(tmp_path: Path, kind: str) -> None:
    """Catches a file in the folder's place overwritten (or a crash), an empty folder refused."""
    repo = repo_with(tmp_path / "repo", {"x.py": TREE_MAP}, "*  @org/infra\n")
    out = tmp_path / "patches"
    if kind == "a file":
        out.write_text("mine\n")
        result = split(repo, out)
        assert result.returncode == 2 and f"--write-patches {out}: not a folder" in result.stderr.decode()
        assert out.read_text() == "mine\n"
    else:
        out.mkdir()
        assert split(repo, out).returncode == 1
        assert sorted(p.name for p in out.iterdir()) == ["SUMMARY.md", "org-infra.patch"]
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_file_outside_the_repository_is_refused_and_nothing_written(tmp_path: Path) -> None:
    """Catches a patch that names `../x.py` (git apply would refuse it, or write outside the tree)."""
    repo = repo_with(tmp_path / "repo", {"x.py": TREE_MAP}, "*  @org/infra\n")
    (tmp_path / "outside.py").write_text(TREE_MAP)
    out = tmp_path / "patches"
    result = fix("--split-by", "codeowners", "--write-patches", str(out), *SELECT, ".", str(tmp_path / "outside.py"), cwd=repo)
    stderr = result.stderr.decode()
    assert result.returncode == 2 and "outside.py: outside the repository root" in stderr and "no patch can name it" in stderr
    assert not out.exists()


def test_a_folder_that_cannot_be_filled_is_left_as_it_was(tmp_path: Path) -> None:
    """Catches a failed --force write leaving its staging folder behind, or a new patch next to no
    summary: here SUMMARY.md is a folder of the user's, which cannot be replaced."""
    repo = repo_with(tmp_path / "repo", {"x.py": TREE_MAP}, "*  @org/infra\n")
    out = tmp_path / "patches"
    (out / "SUMMARY.md").mkdir(parents=True)
    result = split(repo, out, "--force")
    assert result.returncode == 2 and f"error: --write-patches {out}: " in result.stderr.decode()
    assert [p.name for p in out.iterdir()] == ["SUMMARY.md"] and (out / "SUMMARY.md").is_dir()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_the_patch_folder_may_be_several_levels_new(tmp_path: Path) -> None:
    """Catches a folder whose parents do not exist yet refused (or the run crashing on it)."""
    repo = repo_with(tmp_path / "repo", {"x.py": TREE_MAP}, "*  @org/infra\n")
    out = tmp_path / "review" / "jax-0.12" / "patches"
    assert split(repo, out).returncode == 1
    assert sorted(p.name for p in out.iterdir()) == ["SUMMARY.md", "org-infra.patch"]
