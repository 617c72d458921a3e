"""Stage 1: turn the user's paths into the Python files to look at.

Folders are walked for `*.py` and Jupyter notebooks (`*.ipynb`, unless `notebooks = false`), skipping what never holds the user's own code (VCS data,
virtualenvs, caches, build output: the default `exclude`) and, inside a git work tree, whatever
git ignores (`.gitignore`, `.git/info/exclude`, the global excludes file). A file named explicitly
is always processed, excluded or not, unless `--force-exclude` (what pre-commit hooks want, since
they name every staged file). `--diff-base REV` narrows a run to the files changed since the merge
base of REV and HEAD, and
`--shard K/N` to a deterministic Nth of them.
"""

from __future__ import annotations

import codecs
import os
import re
import subprocess
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional, Sequence

# Folders that never hold the user's own code: VCS data, virtualenvs, caches and build output.
SKIPPED_DIRS = frozenset(
    {".git", ".hg", ".svn", ".venv", "venv", ".env", "env", ".tox", ".nox", "__pycache__",
     ".mypy_cache", ".pytest_cache", ".ruff_cache", "build", "dist", "node_modules", ".eggs", ".ipynb_checkpoints"}
)


class DiscoveryError(Exception):
    """A request about which files to process that cannot be honoured (a bad REV, a bad shard)."""


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    @classmethod
    def parse(cls, text: str) -> "Shard":
        try:
            index, count = (int(part) for part in text.split("/"))
        except ValueError:
            raise DiscoveryError(f"--shard {text!r}: expected K/N, e.g. 1/4") from None
        if not 1 <= index <= count:
            raise DiscoveryError(f"--shard {text!r}: K must be between 1 and N")
        return cls(index, count)

    def holds(self, path: Path, root: Path) -> bool:
        """The same answer on every machine: a hash of the path relative to the project root."""
        try:
            key = Path(os.path.abspath(path)).relative_to(os.path.abspath(root)).as_posix()
        except ValueError:
            key = Path(os.path.abspath(path)).as_posix()
        return zlib.crc32(key.encode()) % self.count == self.index - 1


def _is_virtualenv(path: str) -> bool:
    return os.path.exists(os.path.join(path, "pyvenv.cfg"))


def discover(
    paths: Iterable[Path],
    excluded: Callable[["Path | str"], bool] = lambda path: os.path.basename(path) in SKIPPED_DIRS,
    *,
    force_exclude: bool = False,
    respect_gitignore: bool = True,
    notebooks: bool = True,
    as_text: bool = False,
) -> "list[Path] | list[str]":
    """Each file named directly, and every `*.py` (and `*.ipynb`, with `notebooks`) below each
    folder, in a stable order.

    Missing paths are returned too, so the reader reports them instead of dropping them silently.
    A file reached twice (`pkg/m.py` and `./pkg/m.py`, or a symlink to a file the walk also finds)
    is returned once, under its own name rather than the link's: written twice, the second write
    would find the file changed under it. `as_text`: as strs, spelled as their Paths would print
    (what the project index takes, and the CLI: a tree of thousands of files costs a tenth of a
    second in Paths and as much again in their strs)."""
    found: dict[str, tuple["Path | str", bool]] = {}  # the real path -> (the name to use, is that name a link)

    def add(path: "Path | str", real: str, link: bool) -> None:
        if real not in found or (found[real][1] and not link):
            found[real] = (path, link)

    for root in paths:
        if not root.is_dir():
            if not (force_exclude and excluded(root)):
                add(os.fspath(root) if as_text else root, os.path.realpath(root), os.path.islink(root))
            continue
        suffixes = (".py", ".ipynb") if notebooks else (".py",)
        top = os.fspath(root)
        walked = [(path, link) for path, link in _walk(top, excluded) if path.endswith(suffixes) and not excluded(path)]
        ignored = git_ignored(root, [path for path, _ in walked]) if respect_gitignore else set()
        real_top = os.path.realpath(top)
        shown = len(os.curdir + os.sep) if top == os.curdir else 0  # Path("./a.py") prints as a.py
        for text, link in walked:  # the walk follows no folder link: only a file itself can be one
            if text not in ignored:
                add(text[shown:] if as_text else Path(text), os.path.realpath(text) if link
                    else real_top + os.sep + text[len(top):].lstrip(os.sep), link)
    return [path for path, _ in found.values()]  # type: ignore[return-value]


def _walk(top: str, excluded: Callable[["Path | str"], bool]) -> Iterator[tuple[str, bool]]:
    """Every file below `top` and whether it is a symbolic link, in `os.walk`'s top-down order
    (each folder's files, then its folders, sorted by name), from `os.scandir` entries, whose
    type needs no further system call: a stat per file was a fifth of a warm run on a large tree.
    Folder links are not followed; excluded folders, `*.egg-info` and virtualenvs not entered."""
    pending = [top]
    while pending:
        try:
            with os.scandir(pending.pop()) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError:
            continue  # unreadable: os.walk skips it the same way
        folders = []
        for entry in entries:
            try:
                folder = entry.is_dir()
            except OSError:
                folder = False  # a link loop, say: a file whose read reports the error, as os.walk has it
            if not folder:
                yield entry.path, entry.is_symlink()
            elif not entry.is_symlink() and not entry.name.endswith(".egg-info") and not excluded(entry.path) \
                    and not _is_virtualenv(entry.path):
                folders.append(entry.path)
        pending += reversed(folders)


def project_files(root: Optional[Path], excluded: Callable[["Path | str"], bool], notebooks: bool,
                  files: Sequence[Path] = ()) -> "list[Path | str]":
    """What the project index reads: every file of the project at `root` (notebooks too: their
    kernels call the project's helpers), then those of `files` (the ones a run processes) that lie
    outside it or are excluded from it, with the `__init__.py` of each package folder above such a
    file (what makes `gen/bodies.py` the module `gen.bodies` when `gen` is excluded); with no root,
    `files` alone."""
    if root is None:
        return list(files)
    project: list["Path | str"] = discover([root], excluded, notebooks=notebooks, as_text=True)  # type: ignore[assignment]
    listed = {os.path.abspath(f) for f in project}
    added: list["Path | str"] = []
    for file in files:
        absolute = os.path.abspath(file)
        if absolute in listed:
            continue
        listed.add(absolute)
        added.append(file)
        folder = os.path.dirname(os.path.normpath(os.fspath(file)))  # spelt as the file is: see module_name
        while os.path.isfile(marker := os.path.join(folder, "__init__.py")) and os.path.abspath(marker) not in listed:
            listed.add(os.path.abspath(marker))
            added.append(marker)
            folder = os.path.dirname(folder)
    return [*project, *added]


def why_empty(folder: Path, excluded: Callable[["Path | str"], bool]) -> Optional[str]:
    """Why a folder named explicitly yields no file, when the reason is ours (None: it simply holds
    no Python file to process): `jax-codemod .venv/lib` must not just say "0 files scanned"."""
    if excluded(folder):
        return ("it lies in an excluded folder (the `exclude` list, or the default one: virtualenvs, "
                "build output, VCS data); name its files, or change `exclude`")
    absolute = Path(os.path.abspath(folder))
    venv = next((p for p in [absolute, *absolute.parents] if _is_virtualenv(os.fspath(p))), None)
    if venv is not None:
        return f"it lies in a virtualenv ({venv}); name its files to process them"
    return None


# What marks a project's root folder when no config names it.
PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def project_root(paths: Sequence[Path], config_root: Optional[Path]) -> Optional[Path]:
    """The folder whose tree is the project the paths belong to: the config's folder, else the
    nearest folder above the first path with a pyproject.toml, setup.py, setup.cfg or .git."""
    if config_root is not None:
        return config_root
    start = Path(os.path.abspath(paths[0] if paths else "."))
    for folder in [start, *start.parents] if start.is_dir() else start.parents:
        if any((folder / marker).exists() for marker in PROJECT_MARKERS):
            return folder
    return None


def indexed_folder(paths: Sequence[Path], root: Optional[Path]) -> Path:
    """The folder whose files the project index reads: the project root, else (no marker above) the
    first path's folder, a folder given or a file's own, as Python's `sys.path[0]` is the folder of
    a script run there: the modules beside a file are the project's, not installed packages."""
    if root is not None:
        return root
    start = Path(os.path.abspath(paths[0] if paths else "."))
    return start if start.is_dir() else start.parent


def git_ignored(root: Path, files: "Sequence[Path | str]") -> set[str]:
    """The files git ignores, when `root` is inside a git work tree (else none, and none either if
    git cannot answer: processing a file too many is better than silently dropping one)."""
    if not files or not git_toplevel(root):
        return set()
    try:
        proc = subprocess.run(
            ["git", "check-ignore", "--no-index", "-z", "--stdin"], cwd=root, capture_output=True,
            input=b"\0".join(os.fsencode(os.path.relpath(f, root)) for f in files),
        )
    except OSError:
        return set()
    if proc.returncode not in (0, 1):
        return set()
    top = os.fspath(root)  # spelled as the walk spells its files (`./pkg/m.py` under `.`)
    return {os.path.join(top, os.fsdecode(name)) for name in proc.stdout.split(b"\0") if name}


def git_toplevel(folder: Path) -> Optional[Path]:
    try:
        proc = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=folder, capture_output=True)
    except OSError:
        return None
    return Path(os.fsdecode(proc.stdout.strip())) if proc.returncode == 0 else None


def _warn(message: str) -> None:
    sys.stderr.write(f"warning: {message}\n")


def _git(top: Path, rev: str, *args: str) -> bytes:
    proc = subprocess.run(["git", *args], cwd=top, capture_output=True)
    if proc.returncode != 0:
        raise DiscoveryError(f"--diff-base {rev}: git {args[0]} failed: "
                             f"{proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


def _compared_with(rev: str, warn: Callable[[str], object]) -> tuple[Path, str]:
    """The work tree's top folder and the commit `--diff-base rev` compares it with (see `changed_since`)."""
    top = git_toplevel(Path.cwd())
    if top is None:
        raise DiscoveryError("--diff-base needs a git work tree; the current folder is not in one")
    probe = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], cwd=top,
                           capture_output=True)
    if probe.returncode != 0:
        raise DiscoveryError(f"--diff-base {rev}: no such revision in {top}")
    merge_base = subprocess.run(["git", "merge-base", rev, "HEAD"], cwd=top, capture_output=True)
    if merge_base.returncode == 0:
        return top, os.fsdecode(merge_base.stdout.strip())
    warn(f"--diff-base {rev}: no merge base of {rev} and HEAD in this clone (shallow, or no commit yet?): the "
         f"files are compared with {rev} itself, so a change made only there is listed too; "
         "`git fetch --unshallow` fetches the history")
    return top, rev


_HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,(?P<count>\d+))? @@", re.M)


def changed_lines(rev: str, warn: Callable[[str], object] = lambda message: None) -> dict[str, frozenset[int]]:
    """The lines of each file that the work tree adds or changes since `--diff-base rev` compares
    with (reviewdog's `filter-mode=added`), by real path. A file not listed, but among
    `changed_since`'s, is new (untracked): every line of it is."""
    top, base = _compared_with(rev, warn)
    diff = _git(top, rev, "-c", "core.quotePath=false", "diff", "-U0", "-M", "--diff-filter=d", "--no-color",
                "--no-ext-diff", base, "--")
    lines: dict[str, frozenset[int]] = {}
    for part in re.split(rb"^diff --git ", diff, flags=re.M)[1:]:
        # No `+++` line: no content change (a pure rename, a mode change), so no line is new.
        name = re.search(rb"^\+\+\+ (?:b/)?(.*)$", part, flags=re.M) or re.search(rb"^rename to (.*)$", part, flags=re.M)
        if name is None:
            continue
        named = name[1].removesuffix(b"\t")  # git ends a name with a space in it with a tab
        if named.startswith(b'"'):  # C-quoted by git: a quote, a backslash or a control character
            named = codecs.escape_decode(named[1:-1])[0].removeprefix(b"b/")
        added = (range(int(hunk["start"]), int(hunk["start"]) + int(hunk["count"] or 1)) for hunk in _HUNK.finditer(part))
        lines[os.path.realpath(top / os.fsdecode(named))] = frozenset(line for span in added for line in span)
    return lines


def changed_since(rev: str, paths: list[Path], notebooks: bool = True,
                  warn: Callable[[str], object] = _warn) -> list[Path]:
    """`.py` files (and `.ipynb` ones, with `notebooks`) changed since `rev` in the work tree around the current folder: modified, added,
    renamed (under their new name) or untracked and not ignored; deleted files are left out. With
    `paths`, only those under one of them.

    Changed since the merge base of `rev` and HEAD, as `git diff rev...` and a pull request see
    it: a file changed only on `rev`'s branch since this one left it is not this branch's change.
    Without a merge base in the clone (a shallow one), `rev` itself, and `warn` says so."""
    top, base = _compared_with(rev, warn)
    changed = _git(top, rev, "diff", "--name-only", "-z", "-M", "--diff-filter=d", base, "--")
    untracked = _git(top, rev, "ls-files", "-z", "--others", "--exclude-standard")
    suffixes = (b".py", b".ipynb") if notebooks else (b".py",)
    names = sorted({n for n in (changed + b"\0" + untracked).split(b"\0") if n.endswith(suffixes)})
    files = [top / os.fsdecode(name) for name in names]
    roots = [Path(os.path.abspath(p)) for p in paths]
    cwd = Path.cwd()
    # Named as discovery names files (relative to the current folder where they are under it).
    return [f.relative_to(cwd) if cwd in f.parents else f for f in files
            if f.is_file() and (not roots or any(r == f or r in f.parents for r in roots))]
