"""engine/patches.py called in the test's own process: what `Plan.prepare` refuses, and what
`Plan.write` writes (each patch's bytes, their names and order, SUMMARY.md whole, the folder).
The same outcomes as tests/test_split_patches.py and tests/test_split_patch_files.py, which run
the CLI on git repositories, here without a subprocess or git: a mutant of patches.py is killed in
milliseconds instead of seconds, so that its mutation run fits (docs/testing.md, per module).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from codemods.engine import notebook
from codemods.engine.diagnostics import Applicability, Finding, Fix, Kind
from codemods.engine.patches import SUMMARY, PatchError, Plan, Split
from codemods.engine.report import FileResult

HEADING = "jax-codemod 1.0 (target jax 0.12.0.1 from --jax-version)"
OLD = b"import jax\nx = jax.tree_map(f, t)\n"
NEW = b"import jax\nx = jax.tree.map(f, t)\n"
HUNK = b"@@ -1,2 +1,2 @@\n import jax\n-x = jax.tree_map(f, t)\n+x = jax.tree.map(f, t)\n"


def fixed(line: int = 2, code: str = "JAX101") -> Finding:
    return Finding(code, Kind.FIXED, line, 5, "jax.tree_map -> jax.tree.map", fix=Fix(Applicability.SAFE, applied=True))


def manual(line: int) -> Finding:
    return Finding("JAX140", Kind.MANUAL, line, 1, "jnp.clip(a_min=) given twice")


def warning(line: int) -> Finding:
    return Finding("JAX201", Kind.WARNING, line, 1, "bf16 precision")


def unsafe(line: int, applied: bool = False) -> Finding:
    return Finding("JAX140", Kind.FIXED, line, 1, "a_max= before a=", fix=Fix(Applicability.UNSAFE, applied=applied))


def declined(line: int) -> Finding:
    return Finding("JAX150", Kind.FIXED, line, 1, "declined in --interactive", fix=Fix(Applicability.SAFE, applied=False))


def changed(root: Path, name: str, *findings: Finding) -> FileResult:
    return FileResult(str(root / name), parsed=True, new_source=NEW, raw=OLD, findings=list(findings or [fixed()]))


def findings_only(root: Path, name: str, *findings: Finding) -> FileResult:
    return FileResult(str(root / name), parsed=True, raw=OLD, findings=list(findings))


def diff(name: str) -> bytes:
    return b"diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n" % ((name.encode(),) * 4) + HUNK


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "repo"
    root.mkdir()
    return root


def codeowners(root: Path, text: str, where: str = ".github/CODEOWNERS") -> None:
    (root / where).parent.mkdir(parents=True, exist_ok=True)
    (root / where).write_text(text)


def names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def staging_left(root: Path) -> list[str]:
    return [path.name for path in root.parent.iterdir() if path.name.endswith(".tmp")]


# -- Split.parse --


@pytest.mark.parametrize("text, depth", [("codeowners", None), ("directory:1", 1), ("directory:12", 12)])
def test_a_split_is_read(text: str, depth: object) -> None:
    assert Split.parse(text) == Split(depth)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["CODEOWNERS", "owners", "directory", "directory:", "directory:0", "directory:-1",
                                  "directory:x", "folder:1", "Directory:1", "directory:1:2", ""])
def test_a_bad_split_is_a_usage_error_saying_what_it_expects(text: str) -> None:
    with pytest.raises(ValueError) as error:
        Split.parse(text)
    assert str(error.value) == f"--split-by {text!r}: expected codeowners or directory:N (N a positive integer)"


# -- Plan.prepare: everything checked before the run --


def test_prepare_keeps_what_the_run_needs_and_describes_it(root: Path) -> None:
    codeowners(root, "*  @org/infra\n")
    folder = root.parent / "patches"
    plan = Plan.prepare(Split(), root, folder, False)
    assert (plan.split, plan.root, plan.folder, plan.force) == (Split(), root, folder, False)
    assert plan.codeowners is not None and plan.codeowners.owners("x.py") == ("@org/infra",)
    assert plan.describe() == "split by codeowners (.github/CODEOWNERS)"
    by_folder = Plan.prepare(Split(2), root, folder, True)
    assert (by_folder.split, by_folder.codeowners, by_folder.force) == (Split(2), None, True)
    assert by_folder.describe() == "split by directory:2"


def test_prepare_refuses_a_file_a_non_empty_folder_and_a_missing_codeowners(root: Path) -> None:
    a_file = root.parent / "a-file"
    a_file.write_text("mine\n")
    with pytest.raises(PatchError) as error:
        Plan.prepare(Split(1), root, a_file, True)
    assert str(error.value) == f"--write-patches {a_file}: not a folder"
    full = root.parent / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine\n")
    with pytest.raises(PatchError) as error:
        Plan.prepare(Split(1), root, full, False)
    assert str(error.value) == (f"--write-patches {full}: the folder is not empty; pass --force to replace its *.patch "
                                "files and SUMMARY.md, or name an empty or new folder")
    assert Plan.prepare(Split(1), root, full, True).force is True
    empty = root.parent / "empty"
    empty.mkdir()
    assert Plan.prepare(Split(1), root, empty, False).folder == empty
    with pytest.raises(PatchError) as error:
        Plan.prepare(Split(), root, root.parent / "new", False)
    assert str(error.value).startswith("--split-by codeowners: no CODEOWNERS file; looked for ")
    assert Plan.prepare(Split(3), root, root.parent / "new", False).codeowners is None  # not read: not needed


# -- Plan.write, by owner --


def test_each_owner_gets_one_patch_and_summary_md_says_what_each_gets(root: Path) -> None:
    codeowners(root, "*  @org/infra\n/libs/  @org/ml\n/tools/\n/notes/  @org/docs\n/new/  @org/py312\n")
    folder = root.parent / "patches"
    results = [  # in no order: the patches and the summary sort them
        changed(root, "libs/m.py", manual(9), fixed(2), unsafe(13), warning(4), declined(6), unsafe(11, applied=True),
                manual(3)),
        changed(root, "tools/t.py"),
        FileResult(str(root / "libs/clean.py"), parsed=True, raw=NEW),  # nothing to say: in no patch
        # Not processed: in no patch, listed for their owners with the reason, counted in the table.
        FileResult(str(root / "libs/broken.py"), error="cannot parse", findings=[manual(1)]),
        FileResult(str(root / "new/generics.py"), error="cannot parse: invalid syntax (line 1, column 6)"),
        FileResult(str(root / "libs/big.py"), skipped="65 MiB: larger than 64 MiB"),
        changed(root, "setup.py"),
        findings_only(root, "notes/n.py", manual(1)),
        changed(root, "libs/a.py", fixed(2), fixed(3, "JAX140")),
        findings_only(root, "docs.py", warning(2)),
    ]
    written = Plan.prepare(Split(), root, folder, False).write(results, HEADING)
    assert written == [folder / "org-infra.patch", folder / "org-ml.patch", folder / "unowned.patch"]
    assert names(folder) == ["SUMMARY.md", "org-infra.patch", "org-ml.patch", "unowned.patch"]
    assert (folder / "org-ml.patch").read_bytes() == diff("libs/a.py") + diff("libs/m.py")
    assert (folder / "org-infra.patch").read_bytes() == diff("setup.py")
    assert (folder / "unowned.patch").read_bytes() == diff("tools/t.py")
    assert (folder / SUMMARY).read_text() == f"""\
# jax-codemod patches

{HEADING}, split by codeowners (.github/CODEOWNERS): one patch per owner; each applies with `git apply` on its own, in any order.

| owner | files | fixes | manual | not processed | patch file |
|---|---:|---:|---:|---:|---|
| `@org/docs` | 0 | 0 | 1 | 0 | none (nothing to change) |
| `@org/infra` | 1 | 1 | 1 | 0 | [org-infra.patch](org-infra.patch) |
| `@org/ml` | 2 | 4 | 3 | 2 | [org-ml.patch](org-ml.patch) |
| `@org/py312` | 0 | 0 | 0 | 1 | none (no file processed) |
| (unowned) | 1 | 1 | 0 | 0 | [unowned.patch](unowned.patch) |

## `@org/docs`

Files:

```
notes/n.py: no change (findings only)
```

Manual findings left:

```
notes/n.py:1: JAX140 [manual] jnp.clip(a_min=) given twice
```

## `@org/infra`

Files:

```
docs.py: no change (findings only)
setup.py: changed, fixes: 1
```

Fixes by rule:

```
JAX101: 1
```

Manual findings left:

```
docs.py:2: JAX201 [warning] bf16 precision
```

## `@org/ml`

Not processed (nothing in them was looked at: fix the cause, then run again):

```
libs/big.py: skipped: 65 MiB: larger than 64 MiB
libs/broken.py: error: cannot parse
```

Files:

```
libs/a.py: changed, fixes: 2
libs/m.py: changed, fixes: 2
```

Fixes by rule:

```
JAX101: 2
JAX140: 2
```

Manual findings left:

```
libs/m.py:3: JAX140 [manual] jnp.clip(a_min=) given twice
libs/m.py:4: JAX201 [warning] bf16 precision
libs/m.py:9: JAX140 [manual] jnp.clip(a_min=) given twice
```

Unsafe fixes not applied (--unsafe-fixes applies them):

```
libs/m.py:13: JAX140 [fixed, unsafe fix: --unsafe-fixes] a_max= before a=
```

## `@org/py312`

Not processed (nothing in them was looked at: fix the cause, then run again):

```
new/generics.py: error: cannot parse: invalid syntax (line 1, column 6)
```

## (unowned)

Files:

```
tools/t.py: changed, fixes: 1
```

Fixes by rule:

```
JAX101: 1
```
"""
    assert staging_left(root) == []


def test_a_run_with_nothing_to_change_writes_the_summary_alone(root: Path) -> None:
    codeowners(root, "*  @org/infra\n")
    folder = root.parent / "patches"
    assert Plan.prepare(Split(), root, folder, False).write([FileResult(str(root / "x.py"), parsed=True)], HEADING) == []
    assert names(folder) == ["SUMMARY.md"]
    assert (folder / SUMMARY).read_text().endswith("|---|---:|---:|---:|---:|---|\n")


def test_owners_whose_names_collide_or_are_long_or_odd_get_distinct_file_names(root: Path) -> None:
    team = "t" * 150
    codeowners(root, f"/a/  @Team\n/b/  @team\n/c/  @TEAM\n/d/  @unowned\n/e/  @org/{team}\n/f/  a|b@example.com\n"
                     "/g/  @Xavier  @@maintainer\n/h/  .ops@corp.example\n/i/  @x.\n", "CODEOWNERS")
    folder = root.parent / "patches"
    results = [changed(root, f"{folder}/x.py") for folder in "ihgfedcbaz"]
    written = Plan.prepare(Split(), root, folder, False).write(results, HEADING)
    long = ("org-" + team)[:100]
    assert [path.name for path in written] == [
        "ops-corp.example.patch", "TEAM.patch", "Team-2.patch", "Xavier_maintainer.patch", long + ".patch", "team-3.patch",
        "unowned-2.patch", "x.patch", "a-b-example.com.patch", "unowned.patch"]
    assert long == "org-" + "t" * 96
    assert (folder / "unowned.patch").read_bytes() == diff("z/x.py")
    assert (folder / "unowned-2.patch").read_bytes() == diff("d/x.py")
    summary = (folder / SUMMARY).read_text()
    assert "| `a\\|b@example.com` | 1 | 1 | 0 | 0 | [a-b-example.com.patch](a-b-example.com.patch) |\n" in summary
    assert "\n## `a|b@example.com`\n" in summary  # a heading, not a table: left as it is
    rows = [line.split(" | ")[0] for line in summary.splitlines() if line.startswith("| ") and "[" in line]
    assert rows == ["| `.ops@corp.example`", "| `@TEAM`", "| `@Team`", "| `@Xavier @@maintainer`", f"| `@org/{team}`",
                    "| `@team`", "| `@unowned`", "| `@x.`", "| `a\\|b@example.com`", "| (unowned)"]


# -- Plan.write, by folder --


def test_directory_groups_by_the_first_n_folders_and_root_files_go_to_root(root: Path) -> None:
    folder = root.parent / "patches"
    results = [changed(root, name) for name in ["root/r.py", "top.py", "libs/c.py", "libs/b/y.py", "libs/b/x.py",
                                                "deep/er/est/z.py"]]
    written = Plan.prepare(Split(2), root, folder, False).write(results, HEADING)
    assert [path.name for path in written] == ["deep-er.patch", "libs.patch", "libs-b.patch", "root-2.patch", "root.patch"]
    assert (folder / "libs-b.patch").read_bytes() == diff("libs/b/x.py") + diff("libs/b/y.py")
    assert (folder / "root.patch").read_bytes() == diff("top.py")
    assert (folder / "root-2.patch").read_bytes() == diff("root/r.py")
    summary = (folder / SUMMARY).read_text()
    assert summary.splitlines()[2] == (f"{HEADING}, split by directory:2: one patch per directory; each applies with "
                                       "`git apply` on its own, in any order.")
    assert "| directory | files | fixes | manual | not processed | patch file |\n" in summary
    assert "| `root` | 1 | 1 | 0 | 0 | [root-2.patch](root-2.patch) |\n| (root) | 1 | 1 | 0 | 0 | [root.patch](root.patch) |\n" in summary
    assert "\n## (root)\n\nFiles:\n\n```\ntop.py: changed, fixes: 1\n```\n" in summary
    one = root.parent / "one"
    Plan.prepare(Split(1), root, one, False).write(results, HEADING)
    assert names(one) == ["SUMMARY.md", "deep.patch", "libs.patch", "root-2.patch", "root.patch"]
    assert (one / "libs.patch").read_bytes() == diff("libs/b/x.py") + diff("libs/b/y.py") + diff("libs/c.py")


# -- the names in a patch --


def test_names_git_quotes_are_quoted_as_git_quotes_them(root: Path) -> None:
    folder = root.parent / "patches"
    names_ = ['q"uote.py', "back\\slash.py", "tab\there.py", "esc\x1bape.py", "del\x7f.py", "new\nline.py", "bell\a.py",
              "plain.py", "spa ce.py"]
    Plan.prepare(Split(1), root, folder, False).write([changed(root, name) for name in names_], HEADING)
    headers = (folder / "root.patch").read_bytes().split(HUNK)
    assert headers == [b'diff --git "a/back\\\\slash.py" "b/back\\\\slash.py"\n--- "a/back\\\\slash.py"\n+++ "b/back\\\\slash.py"\n',
                       b'diff --git "a/bell\\a.py" "b/bell\\a.py"\n--- "a/bell\\a.py"\n+++ "b/bell\\a.py"\n',
                       b'diff --git "a/del\\177.py" "b/del\\177.py"\n--- "a/del\\177.py"\n+++ "b/del\\177.py"\n',
                       b'diff --git "a/esc\\033ape.py" "b/esc\\033ape.py"\n--- "a/esc\\033ape.py"\n+++ "b/esc\\033ape.py"\n',
                       b'diff --git "a/new\\nline.py" "b/new\\nline.py"\n--- "a/new\\nline.py"\n+++ "b/new\\nline.py"\n',
                       b"diff --git a/plain.py b/plain.py\n--- a/plain.py\n+++ b/plain.py\n",
                       b'diff --git "a/q\\"uote.py" "b/q\\"uote.py"\n--- "a/q\\"uote.py"\n+++ "b/q\\"uote.py"\n',
                       b"diff --git a/spa ce.py b/spa ce.py\n--- a/spa ce.py\n+++ b/spa ce.py\n",
                       b'diff --git "a/tab\\there.py" "b/tab\\there.py"\n--- "a/tab\\there.py"\n+++ "b/tab\\there.py"\n', b""]


def test_names_are_relative_to_the_repository_root_not_the_current_folder(root: Path, monkeypatch) -> None:
    """The CLI run from a subfolder: its results' paths are relative to that folder."""
    codeowners(root, "*  @org/infra\n/libs/b/  @org/b\n")
    (root / "libs" / "b").mkdir(parents=True)
    monkeypatch.chdir(root / "libs")
    folder = root.parent / "patches"
    results = [FileResult("b/x.py", parsed=True, new_source=NEW, raw=OLD, findings=[fixed()]),
               FileResult("y.py", parsed=True, new_source=NEW, raw=OLD, findings=[fixed()])]
    Plan.prepare(Split(), root, folder, False).write(results, HEADING)
    assert names(folder) == ["SUMMARY.md", "org-b.patch", "org-infra.patch"]
    assert (folder / "org-b.patch").read_bytes() == diff("libs/b/x.py")
    assert (folder / "org-infra.patch").read_bytes() == diff("libs/y.py")


def test_a_file_outside_the_root_is_refused_and_nothing_written(root: Path) -> None:
    folder = root.parent / "patches"
    outside = str(root.parent / "outside.py")
    with pytest.raises(PatchError) as error:
        Plan.prepare(Split(1), root, folder, False).write([changed(root, "x.py"), FileResult(outside, new_source=NEW, raw=OLD)],
                                                          HEADING)
    assert str(error.value) == f"{outside}: outside the repository root {root}: no patch can name it"
    assert not folder.exists() and staging_left(root) == []


def test_a_notebooks_findings_are_placed_in_their_cells(root: Path) -> None:
    cells = [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [], "source": source}
             for i, source in enumerate([["import jax.numpy as jnp\n"], ["y = 1\n"], ["y = 2\n", "z = 3\n", "w = 4\n"]])]
    raw = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()
    module = notebook.read(root / "nb.ipynb", raw)
    result = FileResult(str(root / "nb" / "demo.ipynb"), parsed=True, raw=raw, findings=[manual(5), manual(3), manual(1)],
                        cells=module.cells)
    folder = root.parent / "patches"
    Plan.prepare(Split(1), root, folder, False).write([result], HEADING)
    assert ("Manual findings left:\n\n```\nnb/demo.ipynb:cell 1:1: JAX140 [manual] jnp.clip(a_min=) given twice\n"
            "nb/demo.ipynb:cell 3:1: JAX140 [manual] jnp.clip(a_min=) given twice\n"
            "nb/demo.ipynb:cell 3:3: JAX140 [manual] jnp.clip(a_min=) given twice\n```\n") in (folder / SUMMARY).read_text()


# -- the folder --


def test_force_replaces_the_patches_and_the_summary_and_keeps_the_rest(root: Path) -> None:
    folder = root.parent / "patches"
    folder.mkdir()
    for name in ["stale.patch", "x.patch", SUMMARY, "notes.txt", "keep.patch.txt"]:
        (folder / name).write_text("old\n")
    (folder / "mine.patch").mkdir()  # a folder the user named so: not a patch of ours
    written = Plan.prepare(Split(1), root, folder, True).write([changed(root, "x.py")], HEADING)
    assert written == [folder / "root.patch"]
    assert names(folder) == ["SUMMARY.md", "keep.patch.txt", "mine.patch", "notes.txt", "root.patch"]
    assert (folder / "root.patch").read_bytes() == diff("x.py") and (folder / SUMMARY).read_text().startswith("# jax")
    assert (folder / "notes.txt").read_text() == "old\n" and (folder / "mine.patch").is_dir()
    assert staging_left(root) == []


@pytest.mark.parametrize("kind", ["new", "empty", "several levels new"])
def test_the_folder_is_made_or_filled(root: Path, kind: str) -> None:
    folder = root.parent / ("review/jax/patches" if kind == "several levels new" else "patches")
    if kind == "empty":
        folder.mkdir()
    written = Plan.prepare(Split(1), root, folder, False).write([changed(root, "x.py")], HEADING)
    assert written == [folder / "root.patch"] and names(folder) == ["SUMMARY.md", "root.patch"]
    assert [path.name for path in folder.parent.iterdir() if path.name.endswith(".tmp")] == []


@pytest.mark.parametrize("length", [200, 255])
def test_a_folder_with_a_long_name_is_written(root: Path, length: int) -> None:
    """Up to a file name's 255 bytes: its staging sibling is not named after it."""
    folder = root.parent / ("p" * length)
    assert Plan.prepare(Split(1), root, folder, False).write([changed(root, "x.py")], HEADING) == [folder / "root.patch"]
    assert names(folder) == ["SUMMARY.md", "root.patch"] and staging_left(root) == []


def test_a_relative_folder_is_made_where_the_run_is(root: Path, monkeypatch) -> None:
    monkeypatch.chdir(root.parent)
    written = Plan.prepare(Split(1), root, Path("patches"), False).write([changed(root, "x.py")], HEADING)
    assert written == [Path("patches") / "root.patch"]
    assert names(root.parent / "patches") == ["SUMMARY.md", "root.patch"]


def test_a_folder_that_cannot_be_filled_is_left_as_it_was(root: Path) -> None:
    folder = root.parent / "patches"
    (folder / SUMMARY).mkdir(parents=True)  # the user's folder: cannot be replaced by a file
    with pytest.raises(OSError):
        Plan.prepare(Split(1), root, folder, True).write([changed(root, "x.py")], HEADING)
    assert names(folder) == ["SUMMARY.md"] and (folder / SUMMARY).is_dir()
    assert staging_left(root) == []
