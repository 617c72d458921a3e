"""`--split-by codeowners|directory:N --write-patches DIR`: a monorepo's upgrade as one patch per
owner, end to end through the CLI on a git repository built here. The contract: each patch
applies alone on the original tree, all of them in any order give exactly the tree `--write`
gives, and SUMMARY.md says what each owner gets and what is left for them. Nothing imports jax.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
from pathlib import Path

import pytest

from codemods.engine import ownership
from tests.test_cli import fix, git, needs_git, snapshot

pytestmark = needs_git

# `jax.tree_map` is gone since jax 0.6.0: JAX101 rewrites it (tests/fixtures/upgrades/tree_aliases.in.py).
TREE_MAP = "import jax\n\n\ndef double(tree):\n    return jax.tree_map(lambda x: 2 * x, tree)\n"
# A safe JAX140 fix, a [manual] JAX140 finding (line 9) and an unsafe one (line 13), as in
# tests/fixtures/upgrades/clip_keywords.in.py.
MODEL = '''\
import jax.numpy as jnp


def relu(y):
    return jnp.clip(y, a_min=0.0)


def twice_given(y):
    return jnp.clip(y, 0.0, a_min=1.0)


def swap(x, upper):
    return jnp.clip(
        a_max=upper(),
        a=x,
    )
'''
CLEAN = "import jax\n\n\ndef double(tree):\n    return jax.tree.map(lambda x: 2 * x, tree)\n"
CODEOWNERS = """\
# The default owners, then narrower and later lines.
*                       @org/infra @alice
services/a/kernels.py   @early            # overridden below: the last match wins, not the narrowest
/services/              @org/services
/libs/                  @org/ml
/tools/
notebooks/              bob@example.com
"""
SELECT = ("--select", "JAX1", "--no-cache")


def notebook() -> bytes:
    cells = [{"cell_type": "code", "execution_count": None, "id": "c1", "metadata": {}, "outputs": [],
              "source": ["import jax\n", "\n", "doubled = jax.tree_map(lambda x: 2 * x, {'a': 1.0})"]}]
    document = {"cells": cells, "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    return (json.dumps(document, indent=1) + "\n").encode()


def make_monorepo(root: Path, codeowners: str = CODEOWNERS) -> Path:
    files = {
        "services/a/kernels.py": TREE_MAP,  # owned by three lines: the last (/services/) wins
        "services/a/clean.py": CLEAN,  # nothing to change: in no patch
        "libs/b/model.py": MODEL,
        "tools/script.py": TREE_MAP,  # un-owned by `/tools/`
        "setup_helpers.py": TREE_MAP,  # at the root: `*`
        "notebooks/demo.ipynb": notebook(),
        # CRLF line endings and no final newline, the fix on the last line.
        "libs/b/crlf.py": TREE_MAP.rstrip("\n").replace("\n", "\r\n").encode(),
    }
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    if codeowners:
        (root / ".github").mkdir()
        (root / ".github" / "CODEOWNERS").write_text(codeowners)
    git("init", "-q", cwd=root)
    git("add", ".", cwd=root)
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "monorepo", cwd=root)
    return root


@pytest.fixture
def mono(tmp_path: Path) -> Path:
    return make_monorepo(tmp_path / "mono")


def split(mono: Path, out: Path, *args: str, by: str = "codeowners"):
    return fix("--split-by", by, "--write-patches", str(out), *SELECT, *args, ".", cwd=mono)


def patched_files(patch: Path) -> list[str]:
    return re.findall(r"^diff --git a/(\S+) b/", patch.read_text(), flags=re.M)


def patch_names(out: Path) -> set[str]:
    return {path.name for path in out.glob("*.patch")}


def reset(repo: Path) -> None:
    git("reset", "-q", "--hard", cwd=repo)


# -- the contract: alone, in any order, together = --write --


def test_the_patches_apply_alone_and_in_any_order_and_give_the_written_tree(mono: Path, tmp_path: Path) -> None:
    """Catches a file in two patches (a second apply fails), a path relative to the wrong folder,
    a missing `\\ No newline` marker or a lost `\\r` (the CRLF file), a notebook diffed by cells."""
    written = tmp_path / "written"
    shutil.copytree(mono, written)
    assert fix("--write", *SELECT, ".", cwd=written).returncode == 1  # the [manual] finding is left
    expected, original = snapshot(written), snapshot(mono)
    out = tmp_path / "patches"
    result = split(mono, out)
    assert result.returncode == 1, result.stderr.decode()  # a dry run: the changes are pending
    assert snapshot(mono) == original != expected
    patches = sorted(out.glob("*.patch"))
    assert len(patches) == 5 and sorted(result.stdout.decode().split()) == [str(p) for p in patches]
    for patch in patches:
        git("apply", "--check", str(patch), cwd=mono)  # each one alone, on the original tree
    for order in itertools.permutations(patches):
        for patch in order:
            git("apply", str(patch), cwd=mono)
        assert snapshot(mono) == expected, [p.name for p in order]
        reset(mono)


def test_each_file_goes_to_its_last_matching_line_and_unowned_files_to_their_own_patch(mono: Path, tmp_path: Path) -> None:
    """Catches first-match-wins (kernels.py would go to @early), the un-owning line ignored (tools/
    would go to `*`), a clean file listed, and an unsafe slug."""
    out = tmp_path / "patches"
    split(mono, out)
    assert patch_names(out) == {"org-infra_alice.patch", "org-services.patch", "org-ml.patch", "unowned.patch",
                                "bob-example.com.patch"}
    assert patched_files(out / "org-services.patch") == ["services/a/kernels.py"]
    assert patched_files(out / "org-ml.patch") == ["libs/b/crlf.py", "libs/b/model.py"]
    assert patched_files(out / "unowned.patch") == ["tools/script.py"]
    assert patched_files(out / "org-infra_alice.patch") == ["setup_helpers.py"]
    notebook_patch = (out / "bob-example.com.patch").read_text()
    assert patched_files(out / "bob-example.com.patch") == ["notebooks/demo.ipynb"]
    assert '-    "doubled = jax.tree_map(' in notebook_patch and '+    "doubled = jax.tree.map(' in notebook_patch


def test_directory_groups_by_the_first_n_folders(mono: Path, tmp_path: Path) -> None:
    """Catches the file's own name counted as a folder, N ignored, root files without a group."""
    one, two = tmp_path / "one", tmp_path / "two"
    split(mono, one, by="directory:1")
    assert patch_names(one) == {"services.patch", "libs.patch", "tools.patch", "notebooks.patch", "root.patch"}
    assert patched_files(one / "root.patch") == ["setup_helpers.py"]
    split(mono, two, by="directory:2")
    assert patch_names(two) == {"services-a.patch", "libs-b.patch", "tools.patch", "notebooks.patch", "root.patch"}
    assert patched_files(two / "libs-b.patch") == ["libs/b/crlf.py", "libs/b/model.py"]
    assert "| directory | files | fixes | manual | not processed | patch file |" in (two / "SUMMARY.md").read_text()


def test_the_summary_lists_each_owners_files_fixes_and_what_is_left(mono: Path, tmp_path: Path) -> None:
    """Catches counts from the wrong owner, unapplied fixes counted as fixes, a [manual] finding or
    an unsafe fix left out."""
    out = tmp_path / "patches"
    split(mono, out)
    summary = (out / "SUMMARY.md").read_text()
    assert "| `@org/ml` | 2 | 2 | 1 | 0 | [org-ml.patch](org-ml.patch) |" in summary
    assert "| (unowned) | 1 | 1 | 0 | 0 | [unowned.patch](unowned.patch) |" in summary
    ml = summary.split("## `@org/ml`")[1].split("\n## ")[0]
    assert "libs/b/crlf.py: changed, fixes: 1\nlibs/b/model.py: changed, fixes: 1" in ml
    assert "JAX101: 1\nJAX140: 1" in ml
    assert re.search(r"^libs/b/model\.py:9: JAX140 \[manual\] jnp\.clip\(a_min=\)", ml, flags=re.M)
    assert "Unsafe fixes not applied" in ml and re.search(r"^libs/b/model\.py:13: JAX140 ", ml, flags=re.M)
    assert "@early" not in summary and "services/a/clean.py" not in summary


def test_a_file_with_findings_only_is_listed_without_a_patch(tmp_path: Path) -> None:
    """Catches an owner whose only finding is [manual] dropped from the summary (or given an empty patch)."""
    mono = make_monorepo(tmp_path / "mono", "*  @org/infra\n/libs/  @org/ml\n")
    (mono / "libs/b/crlf.py").write_text(CLEAN)
    (mono / "libs/b/model.py").write_text(MODEL.replace("y, a_min=0.0)", "y, min=0.0)").replace("        a_max=upper(),\n        a=x,\n", "        x, max=upper(),\n"))
    out = tmp_path / "patches"
    split(mono, out)
    assert "org-ml.patch" not in patch_names(out)
    assert "| `@org/ml` | 0 | 0 | 1 | 0 | none (nothing to change) |" in (out / "SUMMARY.md").read_text()


def test_every_file_not_processed_is_listed_for_its_owner_with_the_reason(tmp_path: Path) -> None:
    """A file that cannot be parsed (say, 3.12 syntax under an older Python) is in no patch, but its
    owner sees it and why: an owner whose only file failed gets a row too."""
    mono = make_monorepo(tmp_path / "mono", "*  @org/infra\n/libs/  @org/ml\n/broken/  @org/late\n")
    (mono / "broken").mkdir()
    (mono / "broken/new.py").write_text("import jax\nx = jax.tree_map(f, t\n")
    (mono / "libs/b/half.py").write_text("import jax\ndef f(:\n    return jax.tree_map(f, t)\n")
    out = tmp_path / "patches"
    result = split(mono, out)
    assert result.returncode == 2, result.stderr.decode()
    summary = (out / "SUMMARY.md").read_text()
    assert "| `@org/late` | 0 | 0 | 0 | 1 | none (no file processed) |" in summary
    assert "| `@org/ml` | 2 | 2 | 1 | 1 | [org-ml.patch](org-ml.patch) |" in summary
    late = summary.split("## `@org/late`")[1].split("\n## ")[0]
    assert re.search(r"^broken/new\.py: error: cannot parse: .*\(line 2, column \d+\)$", late, flags=re.M), late
    ml = summary.split("## `@org/ml`")[1].split("\n## ")[0]
    assert re.search(r"^libs/b/half\.py: error: cannot parse: .*\(line 2, column \d+\)$", ml, flags=re.M), ml
    assert "half.py" not in (out / "org-ml.patch").read_text()


def test_the_options_of_the_run_shape_the_patches(mono: Path, tmp_path: Path) -> None:
    """--select, --unsafe-fixes and --diff-base narrow or widen the patches as they do the dry run;
    the cache gives the same patches. Catches the split reading files or settings of its own."""
    first, cached = tmp_path / "first", tmp_path / "cached"
    fix("--split-by", "codeowners", "--write-patches", str(first), "--select", "JAX101", ".", cwd=mono)
    fix("--split-by", "codeowners", "--write-patches", str(cached), "--select", "JAX101", ".", cwd=mono)
    assert snapshot(first) == snapshot(cached)
    assert "jnp.clip" not in (first / "org-ml.patch").read_text()
    unsafe = tmp_path / "unsafe"
    split(mono, unsafe, "--unsafe-fixes")
    assert "-        a_max=upper(),\n-        a=x,\n+        x,\n+        max=upper()," in (unsafe / "org-ml.patch").read_text()
    assert "Unsafe fixes not applied" not in (unsafe / "SUMMARY.md").read_text()
    (mono / "tools" / "script.py").write_text(TREE_MAP + "# touched\n")
    changed = tmp_path / "changed"
    split(mono, changed, "--diff-base", "HEAD")
    assert patch_names(changed) == {"unowned.patch"}


def test_exit_codes_follow_the_dry_run(mono: Path, tmp_path: Path) -> None:
    """Catches the split exiting 0 while changes are pending (CI would pass), or ignoring --exit-zero."""
    assert split(mono, tmp_path / "a", "--exit-zero").returncode == 0
    clean = make_monorepo(tmp_path / "clean", "*  @org/infra\n")
    for path in clean.rglob("*.py"):
        path.write_text(CLEAN)
    (clean / "notebooks" / "demo.ipynb").unlink()
    result = split(clean, tmp_path / "b")
    assert result.returncode == 0 and result.stdout == b"" and patch_names(tmp_path / "b") == set()
    assert (tmp_path / "b" / "SUMMARY.md").is_file()


# -- bad input --


@pytest.mark.parametrize("line, message", [
    ("/libs/  alice", "'alice' is not an owner"),
    ("[Core @org/core", "unterminated section header"),
])
def test_a_codeowners_line_that_cannot_be_read_is_named_by_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    """Catches a bad owner or section silently read as a pattern (files would go to the wrong team)."""
    mono = make_monorepo(tmp_path / "mono", f"# owners\n*  @org/infra\n{line}\n")
    out = tmp_path / "patches"
    result = split(mono, out)
    assert result.returncode == 2
    assert f"{mono / '.github' / 'CODEOWNERS'}:3: " in result.stderr.decode() and message in result.stderr.decode()
    assert not out.exists(), "nothing written"


def test_no_codeowners_file_names_the_places_looked_at(tmp_path: Path) -> None:
    """Catches a run that writes everything as `unowned` when the file is missing (or misnamed)."""
    mono = make_monorepo(tmp_path / "mono", "")
    result = split(mono, tmp_path / "patches")
    stderr = result.stderr.decode()
    assert result.returncode == 2 and "no CODEOWNERS file" in stderr
    assert all(str(mono / location) in stderr for location in ownership.LOCATIONS)


def test_a_non_empty_folder_is_refused_unless_forced(mono: Path, tmp_path: Path) -> None:
    """Catches stale patches of an earlier run mixed with new ones (or a user's file removed)."""
    out = tmp_path / "patches"
    out.mkdir()
    (out / "stale.patch").write_text("old\n")
    (out / "notes.txt").write_text("mine\n")
    refused = split(mono, out)
    assert refused.returncode == 2 and "not empty" in refused.stderr.decode() and "--force" in refused.stderr.decode()
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "stale.patch"]
    assert split(mono, out, "--force").returncode == 1
    assert not (out / "stale.patch").exists() and (out / "notes.txt").read_text() == "mine\n"
    assert (out / "SUMMARY.md").is_file() and len(patch_names(out)) == 5
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")], "no staging folder left"


@pytest.mark.parametrize("args", [
    ("--split-by", "codeowners"),
    ("--split-by", "codeowners", "--write-patches", "out", "--write"),
    ("--split-by", "codeowners", "--write-patches", "out", "--check"),
    ("--write-patches", "out"),
    ("--split-by", "directory:0", "--write-patches", "out"),
    ("--split-by", "directory:x", "--write-patches", "out"),
    ("--split-by", "owners", "--write-patches", "out"),
])
def test_split_options_used_wrong_are_usage_errors(mono: Path, args: tuple[str, ...]) -> None:
    """Catches --split-by with --write applying changes, or a silent default for a bad N."""
    result = fix(*args, *SELECT, ".", cwd=mono)
    assert result.returncode == 2 and b"Usage:" in result.stderr, result.stderr.decode()
    assert not (mono / "out").exists() and not git("status", "--porcelain", cwd=mono).stdout


# -- CODEOWNERS patterns, as GitHub reads them --


@pytest.mark.parametrize("pattern, path, matches", [
    ("*.py", "a/b/c.py", True),  # no slash: at any depth
    ("/build/", "build/x/y.py", True),
    ("/build/", "src/build/y.py", False),  # anchored
    ("apps/", "x/apps/y.py", True),  # a trailing slash alone does not anchor
    ("docs/*", "docs/a.md", True),
    ("docs/*", "docs/sub/a.md", False),  # GitHub: `docs/*` owns the folder's own files only
    ("src/**/test.py", "src/test.py", True),
    ("src/**/test.py", "src/a/b/test.py", True),
    ("a?.py", "ab.py", True),
    ("a?.py", "a/.py", False),
    ("lib", "x/lib/y.py", True),  # a name owns what lies below it
    ("\\#x.py", "#x.py", True),
    ("a\\ b.py", "a b.py", True),
])
def test_codeowners_patterns(pattern: str, path: str, matches: bool) -> None:
    owners = ownership.parse(f"{pattern} @team\n", Path("CODEOWNERS"))
    assert (owners.owners(path) == ("@team",)) is matches


def test_gitlab_sections_give_their_default_owners_and_the_last_line_still_wins() -> None:
    """Catches a section header read as a pattern, its defaults ignored, or GitLab's per-section
    union taken (a patch needs one owner)."""
    text = "[Docs] @docs-team\n*.md\n/api/ @api\n^[Optional][2] @org/opt\n/api/*.md\n"
    owners = ownership.parse(text, Path("CODEOWNERS"))
    assert owners.owners("guide.md") == ("@docs-team",)
    assert owners.owners("api/x.py") == ("@api",)
    assert owners.owners("api/readme.md") == ("@org/opt",)
