"""codemods/engine/discovery.py called in the test's process (issue 35, item 3: mutation testing).

Each test builds a small tree in tmp_path and checks the exact outcome: the files returned and
their order, their spelling (`./pkg/m.py` under `.`), their type (`as_text`), the messages. The CLI
tests reach the same code in subprocesses, which mutmut runs at a minute a mutant; these take a
second in all, so a mutation run of discovery.py gives them first (docs/testing.md).
"""

from __future__ import annotations

import os
import subprocess
import zlib
from pathlib import Path

import pytest

from codemods.engine import discovery
from codemods.engine.discovery import (
    SKIPPED_DIRS,
    DiscoveryError,
    Shard,
    _walk,
    changed_lines,
    changed_since,
    discover,
    git_ignored,
    git_toplevel,
    indexed_folder,
    project_files,
    project_root,
    why_empty,
)


def _tree(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def git_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "gitconfig"
    empty.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for key in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{key}_NAME", "t")
        monkeypatch.setenv(f"GIT_{key}_EMAIL", "t@example.com")
    monkeypatch.delenv("GIT_DIR", raising=False)
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)


def _repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    _git(path, "init", "-q", "-b", "main")
    return path


# Shard ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, shard", [("1/4", Shard(1, 4)), ("4/4", Shard(4, 4)), ("1/1", Shard(1, 1)),
                                         (" 2 / 3 ", Shard(2, 3))])
def test_shard_parse_reads_k_of_n(text: str, shard: Shard) -> None:
    assert Shard.parse(text) == shard


@pytest.mark.parametrize("text, message", [
    ("x", "--shard 'x': expected K/N, e.g. 1/4"),
    ("1/2/3", "--shard '1/2/3': expected K/N, e.g. 1/4"),
    ("1-4", "--shard '1-4': expected K/N, e.g. 1/4"),
    ("", "--shard '': expected K/N, e.g. 1/4"),
    ("0/4", "--shard '0/4': K must be between 1 and N"),
    ("5/4", "--shard '5/4': K must be between 1 and N"),
    ("-1/4", "--shard '-1/4': K must be between 1 and N"),
])
def test_shard_parse_refuses_with_the_message(text: str, message: str) -> None:
    with pytest.raises(DiscoveryError) as caught:
        Shard.parse(text)
    assert str(caught.value) == message
    assert caught.value.__cause__ is None
    if "expected" in message:  # the ValueError is not shown under it
        assert caught.value.__suppress_context__


def test_shard_holds_a_hash_of_the_path_relative_to_the_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = [f"pkg/m{i}.py" for i in range(40)]
    for count in (1, 2, 3, 5):
        for index in range(1, count + 1):
            shard = Shard(index, count)
            expected = [n for n in names if zlib.crc32(n.encode()) % count == index - 1]
            assert [n for n in names if shard.holds(tmp_path / n, tmp_path)] == expected
    # The same answer whatever the spelling: relative to the current folder, or absolute.
    monkeypatch.chdir(tmp_path)
    shard = Shard(2, 3)
    assert [shard.holds(Path(n), Path(".")) for n in names] == [shard.holds(tmp_path / n, tmp_path) for n in names]
    # Every file in exactly one shard.
    assert sorted(n for i in (1, 2, 3) for n in names if Shard(i, 3).holds(Path(n), Path("."))) == sorted(names)


def test_shard_holds_a_file_outside_the_root_by_its_absolute_path(tmp_path: Path) -> None:
    outside = [tmp_path / "elsewhere" / f"m{i}.py" for i in range(30)]
    root = tmp_path / "root"
    for count in (2, 3):
        for index in range(1, count + 1):
            expected = [p for p in outside if zlib.crc32(p.as_posix().encode()) % count == index - 1]
            assert [p for p in outside if Shard(index, count).holds(p, root)] == expected


# _walk ------------------------------------------------------------------------------------------

def test_walk_is_top_down_files_first_then_folders_sorted(tmp_path: Path) -> None:
    _tree(tmp_path, "b.py", "a.txt", "z/z.py", "c/d/e.py", "c/a.py", "c/b/x.py", "a/y.py", "c.py")
    top = str(tmp_path)
    assert [(p[len(top):], link) for p, link in _walk(top, lambda p: False)] == [
        ("/a.txt", False), ("/b.py", False), ("/c.py", False),
        ("/a/y.py", False),
        ("/c/a.py", False), ("/c/b/x.py", False), ("/c/d/e.py", False),
        ("/z/z.py", False),
    ]


def test_walk_enters_no_excluded_folder_egg_info_virtualenv_or_folder_link(tmp_path: Path) -> None:
    _tree(tmp_path, "keep/a.py", "skip/b.py", "pkg.egg-info/c.py", "egg-info/d.py", "venv2/e.py",
          "venv2/pyvenv.cfg", "notvenv/pyvenv.cfg.txt", "notvenv/f.py", "pyvenv.cfg/g.py")
    os.symlink(tmp_path / "keep", tmp_path / "linked")
    top = str(tmp_path)
    seen = []
    walked = list(_walk(top, lambda p: (seen.append(p), os.path.basename(p) == "skip")[1]))
    assert [(p[len(top):], link) for p, link in walked] == [
        ("/egg-info/d.py", False), ("/keep/a.py", False), ("/notvenv/f.py", False),
        ("/notvenv/pyvenv.cfg.txt", False), ("/pyvenv.cfg/g.py", False),
    ]
    # `excluded` is asked about folders only, each by its path below top.
    assert sorted(seen) == sorted(top + "/" + n for n in ("egg-info", "keep", "notvenv", "pyvenv.cfg", "skip", "venv2"))


def test_walk_yields_file_links_broken_links_and_link_loops_as_links(tmp_path: Path) -> None:
    _tree(tmp_path, "real.py")
    os.symlink(tmp_path / "real.py", tmp_path / "a_link.py")
    os.symlink(tmp_path / "missing.py", tmp_path / "broken.py")
    os.symlink(tmp_path / "loop.py", tmp_path / "loop.py")
    top = str(tmp_path)
    assert [(p[len(top):], link) for p, link in _walk(top, lambda p: False)] == [
        ("/a_link.py", True), ("/broken.py", True), ("/loop.py", True), ("/real.py", False)]


def test_walk_skips_an_unreadable_folder_and_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path, "a/x.py", "b/y.py", "c/z.py", "d.py")
    real_scandir = os.scandir

    def scandir(path: str):  # type: ignore[no-untyped-def]
        if os.path.basename(path) == "b":
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(discovery.os, "scandir", scandir)
    top = str(tmp_path)
    assert [p[len(top):] for p, _ in _walk(top, lambda p: False)] == ["/d.py", "/a/x.py", "/c/z.py"]


def test_walk_of_a_missing_or_unreadable_top_yields_nothing(tmp_path: Path) -> None:
    assert list(_walk(str(tmp_path / "missing"), lambda p: False)) == []


# discover ---------------------------------------------------------------------------------------

def test_discover_lists_py_and_notebooks_in_walk_order(tmp_path: Path) -> None:
    _tree(tmp_path, "b.py", "a.ipynb", "c.txt", "d.pyi", "e.py.bak", "pkg/m.py", "pkg/n.ipynb", "pyfile")
    assert discover([tmp_path], respect_gitignore=False) == [
        tmp_path / "a.ipynb", tmp_path / "b.py", tmp_path / "pkg/m.py", tmp_path / "pkg/n.ipynb"]
    assert discover([tmp_path], respect_gitignore=False, notebooks=False) == [tmp_path / "b.py", tmp_path / "pkg/m.py"]


def test_discover_as_text_gives_strs_spelled_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path, "pkg/m.py", "top.py")
    monkeypatch.chdir(tmp_path)
    found = discover([Path("."), Path("top.py"), Path("gone.py")], respect_gitignore=False, as_text=True)
    assert found == ["top.py", "pkg/m.py", "gone.py"]  # as their Paths print: the CLI shows these
    assert all(type(f) is str for f in found)
    for spelling in (".", "./", "pkg", "./pkg/", str(tmp_path), f"{tmp_path}/pkg/", "../" + tmp_path.name):
        assert discover([Path(spelling)], respect_gitignore=False, as_text=True) == \
            [str(f) for f in discover([Path(spelling)], respect_gitignore=False)], spelling
    found = discover([Path("."), Path("gone.py")], respect_gitignore=False)
    assert found == [Path("top.py"), Path("pkg/m.py"), Path("gone.py")]
    assert all(isinstance(f, Path) for f in found)
    assert [str(f) for f in found] == ["top.py", "pkg/m.py", "gone.py"]


def test_discover_default_exclude_skips_the_default_folders(tmp_path: Path) -> None:
    names = [f"{d}/x.py" for d in sorted(SKIPPED_DIRS)]
    _tree(tmp_path, "src/keep.py", "src/build/y.py", *names)
    assert discover([tmp_path], respect_gitignore=False) == [tmp_path / "src/keep.py"]
    assert {".git", ".venv", "venv", "__pycache__", "build", "dist", "node_modules", ".ipynb_checkpoints",
            ".tox", ".nox", ".eggs", "env", ".env", ".hg", ".svn", ".mypy_cache", ".pytest_cache",
            ".ruff_cache"} == SKIPPED_DIRS


def test_discover_asks_excluded_about_each_file_too(tmp_path: Path) -> None:
    _tree(tmp_path, "a.py", "b.py", "pkg/b.py")
    assert discover([tmp_path], lambda p: os.path.basename(p) == "b.py", respect_gitignore=False) == [tmp_path / "a.py"]


def test_a_file_named_explicitly_is_kept_excluded_or_not_unless_force_exclude(tmp_path: Path) -> None:
    _tree(tmp_path, "build/gen.py", "ok.py")
    named = [tmp_path / "build/gen.py", tmp_path / "ok.py", tmp_path / "build/missing.py"]
    assert discover(named) == named
    assert discover(named, force_exclude=True) == named  # the default exclude names folders, not files
    excluded = lambda p: "build" in Path(p).parts  # noqa: E731
    assert discover(named, excluded) == named
    assert discover(named, excluded, force_exclude=True) == [tmp_path / "ok.py"]
    assert discover(named, excluded, force_exclude=True, as_text=True) == [str(tmp_path / "ok.py")]


def test_a_file_reached_twice_is_listed_once_where_first_reached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path, "pkg/m.py", "pkg/n.py", "z.py")
    monkeypatch.chdir(tmp_path)
    assert discover([Path("pkg/n.py"), Path("."), Path("./pkg/m.py"), Path("z.py")], respect_gitignore=False) == [
        Path("pkg/n.py"), Path("z.py"), Path("pkg/m.py")]
    assert discover([Path("."), Path("pkg/n.py")], respect_gitignore=False, as_text=True) == [
        "z.py", "pkg/m.py", "pkg/n.py"]
    assert discover([Path("pkg"), tmp_path / "pkg"], respect_gitignore=False, as_text=True) == [
        "pkg/m.py", "pkg/n.py"]
    assert discover([tmp_path / "pkg/", Path("pkg/m.py")], respect_gitignore=False, as_text=True) == [
        str(tmp_path / "pkg/m.py"), str(tmp_path / "pkg/n.py")]


def test_a_file_and_a_link_to_it_are_listed_once_under_the_file_s_own_name(tmp_path: Path) -> None:
    _tree(tmp_path, "real.py", "sub/other.py")
    os.symlink(tmp_path / "real.py", tmp_path / "a_link.py")  # walked before real.py
    os.symlink(tmp_path / "sub/other.py", tmp_path / "z_link.py")  # walked before sub/other.py
    os.symlink(tmp_path / "missing.py", tmp_path / "broken.py")
    assert discover([tmp_path], respect_gitignore=False) == [
        tmp_path / "real.py", tmp_path / "broken.py", tmp_path / "sub/other.py"]
    # A link named explicitly after the walk found its file: the file's name stays.
    assert discover([tmp_path / "sub", tmp_path / "z_link.py"], respect_gitignore=False) == [tmp_path / "sub/other.py"]
    # The link named first, then its file: the file's name replaces it.
    assert discover([tmp_path / "z_link.py", tmp_path / "sub/other.py"], respect_gitignore=False) == [
        tmp_path / "sub/other.py"]
    # Two links to one file: the first one's name.
    os.symlink(tmp_path / "sub/other.py", tmp_path / "y_link.py")
    assert discover([tmp_path / "z_link.py", tmp_path / "y_link.py"]) == [tmp_path / "z_link.py"]


def test_a_walked_folder_reached_through_a_link_dedups_by_the_real_path(tmp_path: Path) -> None:
    _tree(tmp_path, "real/m.py")
    os.symlink(tmp_path / "real", tmp_path / "alias")
    # The walk of `alias` (a link named explicitly) spells its files under alias/, whose real path is real/.
    assert discover([tmp_path / "alias", tmp_path / "real/m.py"], respect_gitignore=False) == [tmp_path / "alias/m.py"]
    assert discover([tmp_path / "real/m.py", tmp_path / "alias"], respect_gitignore=False) == [tmp_path / "real/m.py"]


def test_discover_leaves_out_what_git_ignores_unless_told_not_to(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 git_env: None) -> None:
    repo = _repo(tmp_path / "repo")
    _tree(repo, "a.py", "gen/b.py", "c.py", "notes.ipynb")
    (repo / ".gitignore").write_text("gen/\nc.py\n")
    assert discover([repo]) == [repo / "a.py", repo / "notes.ipynb"]
    assert discover([repo], respect_gitignore=False) == [repo / "a.py", repo / "c.py", repo / "notes.ipynb",
                                                         repo / "gen/b.py"]
    monkeypatch.chdir(repo)
    assert discover([Path(".")], as_text=True) == ["a.py", "notes.ipynb"]
    assert discover([Path("gen")], as_text=True) == []
    # Named explicitly, an ignored file is processed.
    assert discover([Path("c.py"), Path("gen/b.py")]) == [Path("c.py"), Path("gen/b.py")]


# project_files ----------------------------------------------------------------------------------

def test_project_files_lists_the_project_then_the_files_outside_it(tmp_path: Path) -> None:
    _tree(tmp_path, "proj/a.py", "proj/nb.ipynb", "proj/build/gen.py", "proj/build/__init__.py", "other/x.py")
    root = tmp_path / "proj"
    excluded = lambda p: os.path.basename(p) in SKIPPED_DIRS  # noqa: E731
    files = [root / "a.py", tmp_path / "other/x.py", root / "build/gen.py", tmp_path / "other/x.py"]
    found = project_files(root, excluded, True, files)
    # Each named file once, with the `__init__.py` of the (excluded) package folder above it.
    assert found == [str(root / "a.py"), str(root / "nb.ipynb"), tmp_path / "other/x.py",
                     root / "build/gen.py", str(root / "build/__init__.py")]
    assert project_files(root, excluded, False) == [str(root / "a.py")]
    assert project_files(None, excluded, True, files) == files
    assert project_files(None, excluded, True) == []


def test_project_files_matches_files_spelled_relative_to_the_current_folder(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path, "a.py", "b.py")
    monkeypatch.chdir(tmp_path)
    assert project_files(tmp_path, lambda p: False, True, [Path("a.py"), Path("./b.py")]) == [
        str(tmp_path / "a.py"), str(tmp_path / "b.py")]


def test_project_files_leaves_out_what_git_ignores(tmp_path: Path, git_env: None) -> None:
    repo = _repo(tmp_path / "repo")
    _tree(repo, "a.py", "ign.py")
    (repo / ".gitignore").write_text("ign.py\n")
    assert project_files(repo, lambda p: False, True, [repo / "ign.py"]) == [str(repo / "a.py"), repo / "ign.py"]


# why_empty --------------------------------------------------------------------------------------

def test_why_empty_names_an_excluded_folder(tmp_path: Path) -> None:
    assert why_empty(tmp_path / "build", lambda p: os.path.basename(p) == "build") == (
        "it lies in an excluded folder (the `exclude` list, or the default one: virtualenvs, "
        "build output, VCS data); name its files, or change `exclude`")


def test_why_empty_names_the_virtualenv_it_lies_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "env1/lib/site").mkdir(parents=True)
    (tmp_path / "env1/pyvenv.cfg").write_text("home = /usr\n")
    assert why_empty(tmp_path / "env1/lib/site", lambda p: False) == (
        f"it lies in a virtualenv ({tmp_path / 'env1'}); name its files to process them")
    assert why_empty(tmp_path / "env1", lambda p: False) == (
        f"it lies in a virtualenv ({tmp_path / 'env1'}); name its files to process them")
    monkeypatch.chdir(tmp_path / "env1/lib")
    assert why_empty(Path("site"), lambda p: False) == (
        f"it lies in a virtualenv ({tmp_path / 'env1'}); name its files to process them")
    assert why_empty(tmp_path, lambda p: False) is None
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain/pyvenv.cfg.bak").write_text("")
    assert why_empty(tmp_path / "plain", lambda p: False) is None


def test_why_empty_nested_virtualenvs_name_the_nearest(tmp_path: Path) -> None:
    (tmp_path / "outer/inner/x").mkdir(parents=True)
    (tmp_path / "outer/pyvenv.cfg").write_text("")
    (tmp_path / "outer/inner/pyvenv.cfg").write_text("")
    assert why_empty(tmp_path / "outer/inner/x", lambda p: False) == (
        f"it lies in a virtualenv ({tmp_path / 'outer/inner'}); name its files to process them")


# project_root -----------------------------------------------------------------------------------

def test_project_root_is_the_config_s_folder_when_there_is_one(tmp_path: Path) -> None:
    assert project_root([tmp_path / "x.py"], tmp_path / "cfg") == tmp_path / "cfg"
    assert project_root([], tmp_path / "cfg") == tmp_path / "cfg"


@pytest.mark.parametrize("marker", ["pyproject.toml", "setup.py", "setup.cfg", ".git"])
def test_project_root_is_the_nearest_folder_with_a_marker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          marker: str) -> None:
    (tmp_path / "proj/pkg/sub").mkdir(parents=True)
    (tmp_path / "proj" / marker).mkdir() if marker == ".git" else (tmp_path / "proj" / marker).write_text("")
    (tmp_path / "proj/pkg/sub/m.py").write_text("")
    proj = tmp_path / "proj"
    assert project_root([proj / "pkg/sub/m.py"], None) == proj
    assert project_root([proj / "pkg/sub", tmp_path], None) == proj
    assert project_root([proj], None) == proj
    monkeypatch.chdir(proj / "pkg")
    assert project_root([], None) == proj
    assert project_root([Path("sub/m.py")], None) == proj


def test_project_root_of_a_file_starts_at_its_folder_not_at_the_file(tmp_path: Path) -> None:
    (tmp_path / "proj/pkg").mkdir(parents=True)
    (tmp_path / "proj/pyproject.toml").write_text("")
    (tmp_path / "proj/pkg/setup.py").mkdir()  # a marker may be a folder: only its existence counts
    assert project_root([tmp_path / "proj/pkg/m.py"], None) == tmp_path / "proj/pkg"
    # A file that is itself named like a marker is not its own root's marker folder.
    (tmp_path / "proj/x").mkdir()
    (tmp_path / "proj/x/pyproject.toml").write_text("")
    assert project_root([tmp_path / "proj/x/pyproject.toml"], None) == tmp_path / "proj/x"
    assert project_root([tmp_path / "proj/x/pyproject.toml/nothing.py"], None) == tmp_path / "proj/x"


def test_project_root_is_none_with_no_marker_above(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a/b").mkdir(parents=True)
    assert project_root([tmp_path / "a/b"], None) is None
    assert project_root([tmp_path / "a/b/m.py"], None) is None
    monkeypatch.chdir(tmp_path / "a")
    assert project_root([], None) is None


def test_indexed_folder_is_the_project_root_else_the_first_paths_folder(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a/b").mkdir(parents=True)
    assert indexed_folder([tmp_path / "a/b/m.py"], tmp_path) == tmp_path
    assert indexed_folder([tmp_path / "a/b/m.py", tmp_path], None) == tmp_path / "a/b"  # sys.path[0] of a script
    assert indexed_folder([tmp_path / "a/b"], None) == tmp_path / "a/b"
    monkeypatch.chdir(tmp_path / "a")
    assert indexed_folder([], None) == tmp_path / "a"
    assert indexed_folder([Path("b/m.py")], None) == tmp_path / "a/b"


# git_toplevel, git_ignored ----------------------------------------------------------------------

def test_git_toplevel(tmp_path: Path, git_env: None) -> None:
    repo = _repo(tmp_path / "repo")
    (repo / "sub").mkdir()
    (tmp_path / "plain").mkdir()
    assert git_toplevel(repo / "sub") == repo
    assert git_toplevel(repo) == repo
    assert git_toplevel(tmp_path / "plain") is None
    assert git_toplevel(tmp_path / "missing") is None  # cwd missing: OSError


def test_git_toplevel_without_git_is_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, git_env: None) -> None:
    repo = _repo(tmp_path / "repo")
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert git_toplevel(repo) is None
    assert git_ignored(repo, [repo / "a.py"]) == set()


def test_git_ignored_spells_paths_as_the_walk_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   git_env: None) -> None:
    repo = _repo(tmp_path / "repo")
    _tree(repo, "a.py", "gen/b.py", "c.py", "sub/d.py", "sub/e.py")
    (repo / ".gitignore").write_text("gen/\nc.py\n")
    (repo / "sub/.gitignore").write_text("d.py\n")
    files = [repo / n for n in ("a.py", "gen/b.py", "c.py", "sub/d.py", "sub/e.py")]
    assert git_ignored(repo, files) == {str(repo / "gen/b.py"), str(repo / "c.py"), str(repo / "sub/d.py")}
    assert git_ignored(repo / "sub", [repo / "sub/d.py", repo / "sub/e.py"]) == {str(repo / "sub/d.py")}
    assert git_ignored(repo, [repo / "a.py"]) == set()
    assert git_ignored(repo, []) == set()
    monkeypatch.chdir(repo)
    assert git_ignored(Path("."), ["./a.py", "./c.py", "./gen/b.py"]) == {"./c.py", "./gen/b.py"}
    assert git_ignored(Path("sub"), ["sub/d.py", "sub/e.py"]) == {"sub/d.py"}
    # Tracked files git would ignore are still ignored (--no-index): discovery reads the patterns.
    _git(repo, "add", "-f", "c.py")
    assert git_ignored(Path("."), ["./c.py"]) == {"./c.py"}


def test_git_ignored_reads_names_with_spaces_and_newlines(tmp_path: Path, git_env: None) -> None:
    repo = _repo(tmp_path / "repo")
    _tree(repo, "a b.py", "new\nline.py", "keep.py")
    (repo / ".gitignore").write_text("a b.py\nnew*\n")
    assert git_ignored(repo, [repo / "a b.py", repo / "new\nline.py", repo / "keep.py"]) == {
        str(repo / "a b.py"), str(repo / "new\nline.py")}


def test_git_ignored_outside_a_work_tree_or_when_git_fails_is_empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   git_env: None) -> None:
    _tree(tmp_path, "plain/a.py")
    (tmp_path / "plain/.gitignore").write_text("a.py\n")
    assert git_ignored(tmp_path / "plain", [tmp_path / "plain/a.py"]) == set()
    repo = _repo(tmp_path / "repo")
    _tree(repo, "a.py")
    (repo / ".gitignore").write_text("a.py\n")
    real_run = subprocess.run

    def failing(args, **kwargs):  # type: ignore[no-untyped-def]
        if "check-ignore" in args:
            raise OSError("no git")
        return real_run(args, **kwargs)

    monkeypatch.setattr(discovery.subprocess, "run", failing)
    assert git_ignored(repo, [repo / "a.py"]) == set()

    def erring(args, **kwargs):  # type: ignore[no-untyped-def]
        if "check-ignore" in args:
            return subprocess.CompletedProcess(args, 128, stdout=str(repo / "a.py").encode(), stderr=b"fatal")
        return real_run(args, **kwargs)

    monkeypatch.setattr(discovery.subprocess, "run", erring)
    assert git_ignored(repo, [repo / "a.py"]) == set()

    def none_ignored(args, **kwargs):  # type: ignore[no-untyped-def]
        if "check-ignore" in args:
            return subprocess.CompletedProcess(args, 1, stdout=b"", stderr=b"")
        return real_run(args, **kwargs)

    monkeypatch.setattr(discovery.subprocess, "run", none_ignored)
    assert git_ignored(repo, [repo / "a.py"]) == set()
    monkeypatch.setattr(discovery.subprocess, "run", real_run)
    assert git_ignored(repo, [repo / "a.py"]) == {str(repo / "a.py")}


# changed_since ----------------------------------------------------------------------------------

@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, git_env: None) -> Path:
    repo = _repo(tmp_path / "repo")
    _tree(repo, "same.py", "mod.py", "gone.py", "old.py", "nb.ipynb", "data.txt", "pkg/in.py", "other/o.py")
    (repo / ".gitignore").write_text("ign*.py\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    (repo / "mod.py").write_text("x = 2\n")
    (repo / "nb.ipynb").write_text("{}\n")
    (repo / "data.txt").write_text("changed\n")
    (repo / "gone.py").unlink()
    _git(repo, "mv", "old.py", "renamed.py")
    _tree(repo, "new.py", "ign.py", "pkg/added.py", "other/new.py")
    (repo / "pkg/in.py").write_text("x = 3\n")
    monkeypatch.chdir(repo)
    return repo


def test_changed_since_lists_changed_added_renamed_and_untracked_files(history: Path) -> None:
    assert changed_since("HEAD", []) == [
        Path("mod.py"), Path("nb.ipynb"), Path("new.py"), Path("other/new.py"), Path("pkg/added.py"),
        Path("pkg/in.py"), Path("renamed.py")]
    assert changed_since("HEAD", [], notebooks=False) == [
        Path("mod.py"), Path("new.py"), Path("other/new.py"), Path("pkg/added.py"), Path("pkg/in.py"),
        Path("renamed.py")]


def test_changed_since_only_under_the_paths_given(history: Path) -> None:
    assert changed_since("HEAD", [Path("pkg")]) == [Path("pkg/added.py"), Path("pkg/in.py")]
    assert changed_since("HEAD", [Path("mod.py"), Path("other/")]) == [Path("mod.py"), Path("other/new.py")]
    assert changed_since("HEAD", [history / "pkg"]) == [Path("pkg/added.py"), Path("pkg/in.py")]
    assert changed_since("HEAD", [Path("same.py"), Path("pk")]) == []


def test_changed_since_names_files_relative_to_the_current_folder(history: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(history / "pkg")
    assert changed_since("HEAD", []) == [
        history / "mod.py", history / "nb.ipynb", history / "new.py", history / "other/new.py", Path("added.py"),
        Path("in.py"), history / "renamed.py"]
    assert changed_since("HEAD", [Path(".")]) == [Path("added.py"), Path("in.py")]


def test_changed_since_refuses_a_bad_revision_or_no_work_tree(history: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(DiscoveryError) as caught:
        changed_since("nope", [])
    assert str(caught.value) == f"--diff-base nope: no such revision in {history}"
    blob = _git(history, "rev-parse", "HEAD:mod.py").strip()
    with pytest.raises(DiscoveryError) as caught:
        changed_since(blob, [])  # a revision, but not a commit
    assert str(caught.value) == f"--diff-base {blob}: no such revision in {history}"
    (tmp_path / "plain").mkdir()
    monkeypatch.chdir(tmp_path / "plain")
    with pytest.raises(DiscoveryError) as caught:
        changed_since("HEAD", [])
    assert str(caught.value) == "--diff-base needs a git work tree; the current folder is not in one"


def test_changed_since_reports_a_failing_git_command(history: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_run = subprocess.run

    def failing(args, **kwargs):  # type: ignore[no-untyped-def]
        if args[:2] == ["git", "ls-files"]:
            return subprocess.CompletedProcess(args, 128, stdout=b"a.py\0", stderr=b"fatal: broken \xff\n")
        return real_run(args, **kwargs)

    monkeypatch.setattr(discovery.subprocess, "run", failing)
    with pytest.raises(DiscoveryError) as caught:
        changed_since("HEAD", [])
    assert str(caught.value) == "--diff-base HEAD: git ls-files failed: fatal: broken \ufffd"


def test_changed_since_a_diff_base_older_than_head(history: Path) -> None:
    _git(history, "add", "-A")
    _git(history, "commit", "-q", "-m", "second")
    (history / "same.py").write_text("x = 9\n")
    assert changed_since("HEAD", []) == [Path("same.py")]
    assert changed_since("HEAD~1", []) == [
        Path("mod.py"), Path("nb.ipynb"), Path("new.py"), Path("other/new.py"), Path("pkg/added.py"),
        Path("pkg/in.py"), Path("renamed.py"), Path("same.py")]


@pytest.fixture
def pull_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, git_env: None) -> Path:
    """A branch `pr` left `main`, which then moved on: a commit of its own to `main_only.py`."""
    repo = _repo(tmp_path / "pr-repo")
    _tree(repo, "shared.py", "main_only.py", "pr_only.py")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    _git(repo, "switch", "-q", "-c", "pr")
    (repo / "pr_only.py").write_text("x = 2\n")
    _git(repo, "commit", "-q", "-am", "the pull request's change")
    _git(repo, "switch", "-q", "main")
    (repo / "main_only.py").write_text("x = 3\n")
    _tree(repo, "added_on_main.py")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "main moves on")
    _git(repo, "switch", "-q", "pr")
    monkeypatch.chdir(repo)
    return repo


def test_changed_since_compares_with_the_merge_base_not_the_tip_of_the_base_branch(pull_request: Path) -> None:
    # `git diff main` would list main_only.py and added_on_main.py (deleted here: left out), as the PR's.
    assert changed_since("main", [], warn=pytest.fail) == [Path("pr_only.py")]
    (pull_request / "shared.py").write_text("x = 4\n")  # the work tree's own edits still count
    assert changed_since("main", [], warn=pytest.fail) == [Path("pr_only.py"), Path("shared.py")]


def test_changed_since_without_a_merge_base_compares_with_the_revision_and_says_so(pull_request: Path) -> None:
    _git(pull_request, "switch", "-q", "--orphan", "unrelated")
    (pull_request / "pr_only.py").write_text("x = 5\n")
    _git(pull_request, "add", "-A")
    _git(pull_request, "commit", "-q", "-m", "no common history with main")
    said: list[str] = []
    assert changed_since("main", [], warn=said.append) == [Path("pr_only.py")]
    assert said == ["--diff-base main: no merge base of main and HEAD in this clone (shallow, or no commit yet?): the "
                    "files are compared with main itself, so a change made only there is listed too; `git fetch "
                    "--unshallow` fetches the history"]


def test_changed_lines_are_the_lines_the_branch_added_or_changed(pull_request: Path) -> None:
    """reviewdog's filter-mode=added: since the merge base (main's own commit does not count), the
    work tree's edits too; a pure rename and a deletion add no line; a name git quotes is read."""
    (pull_request / "shared.py").write_text("x = 1\ny = 2\nz = 3\n")  # one line kept, two added
    _git(pull_request, "mv", "main_only.py", "moved.py")  # as on the merge base: a pure rename
    (pull_request / 'odd "name".py').write_text("a = 1\n")
    (pull_request / "a space.py").write_text("b = 2\n")
    _git(pull_request, "add", "-A")
    _git(pull_request, "commit", "-q", "-m", "more")
    (pull_request / "pr_only.py").write_text("")  # its one line deleted: nothing added
    lines = changed_lines("main", warn=pytest.fail)
    real = os.path.realpath(pull_request)
    assert lines == {os.path.join(real, "shared.py"): frozenset({2, 3}),
                     os.path.join(real, "moved.py"): frozenset(),
                     os.path.join(real, 'odd "name".py'): frozenset({1}),
                     os.path.join(real, "a space.py"): frozenset({1}),
                     os.path.join(real, "pr_only.py"): frozenset()}


# Added for the survivors of the mutation run (docs/testing.md) -----------------------------------

def test_project_files_uses_the_exclude_it_is_given(tmp_path: Path) -> None:
    _tree(tmp_path, "a.py", "gen/b.py", "build/c.py")
    excluded = lambda p: os.path.basename(p) == "gen"  # noqa: E731
    assert project_files(tmp_path, excluded, True, [tmp_path / "gen/b.py"]) == [
        str(tmp_path / "a.py"), str(tmp_path / "build/c.py"), tmp_path / "gen/b.py"]


def test_git_ignored_asks_git_in_the_root_not_in_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    git_env: None) -> None:
    repo = _repo(tmp_path / "repo")
    _tree(repo, "a.py", "b.py")
    (repo / ".gitignore").write_text("b.py\n")
    (tmp_path / "plain").mkdir()
    monkeypatch.chdir(tmp_path / "plain")  # outside any work tree
    assert git_ignored(repo, [repo / "a.py", repo / "b.py"]) == {str(repo / "b.py")}
    assert discover([repo], as_text=True) == [str(repo / "a.py")]


def test_changed_since_prints_nothing(history: Path, capfd: pytest.CaptureFixture[str]) -> None:
    capfd.readouterr()
    assert changed_since("HEAD", [Path("pkg")]) == [Path("pkg/added.py"), Path("pkg/in.py")]
    with pytest.raises(DiscoveryError):
        changed_since("nope", [])
    assert capfd.readouterr() == ("", "")  # no commit hash, no git message on the tool's output


def test_changed_since_refuses_a_range(history: Path) -> None:
    _git(history, "commit", "-q", "-m", "second")
    with pytest.raises(DiscoveryError) as caught:
        changed_since("HEAD~1..HEAD", [])
    assert str(caught.value) == f"--diff-base HEAD~1..HEAD: no such revision in {history}"


def test_changed_since_a_revision_named_like_a_file(history: Path) -> None:
    _git(history, "branch", "base")
    _tree(history, "base", "HEAD")  # files named like the revisions: git must not read them as paths
    assert changed_since("base", [Path("pkg")]) == [Path("pkg/added.py"), Path("pkg/in.py")]
    assert changed_since("HEAD", [Path("pkg")]) == [Path("pkg/added.py"), Path("pkg/in.py")]


def test_changed_since_leaves_out_a_file_untracked_and_ignored_since(history: Path) -> None:
    # Stopping tracking a generated file: deleted from the index, still on disk, now ignored.
    _tree(history, "genned.py")
    _git(history, "add", "genned.py")
    _git(history, "commit", "-q", "-m", "second")
    with open(history / ".gitignore", "a") as gitignore:
        gitignore.write("genned.py\n")
    _git(history, "rm", "-q", "--cached", "genned.py")
    assert changed_since("HEAD", [Path("genned.py"), Path("pkg")]) == [Path("pkg/added.py"), Path("pkg/in.py")]


# Added for session 10's changed functions (mutation run of session 11, docs/testing.md) ----------

def test_project_files_adds_an_excluded_packages_init_once_for_its_files(tmp_path: Path) -> None:
    """Two named files of one excluded package, then its `__init__.py` named too: each once, the
    package's `__init__.py` (and its parent package's) after the first file that needs it."""
    _tree(tmp_path, "a.py", "gen/__init__.py", "gen/sub/__init__.py", "gen/sub/b.py", "gen/sub/c.py")
    excluded = lambda p: os.path.basename(p) == "gen"  # noqa: E731
    files = [tmp_path / "gen/sub/b.py", tmp_path / "gen/sub/c.py", tmp_path / "gen/__init__.py"]
    assert project_files(tmp_path, excluded, True, files) == [
        str(tmp_path / "a.py"), tmp_path / "gen/sub/b.py", str(tmp_path / "gen/sub/__init__.py"),
        str(tmp_path / "gen/__init__.py"), tmp_path / "gen/sub/c.py"]
