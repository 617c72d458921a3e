"""`--split-by` with `--write-patches DIR`: a dry run that writes one patch per owner (CODEOWNERS)
or per folder, and DIR/SUMMARY.md, so that a monorepo's upgrade is reviewed as one pull request
per team instead of one that nobody owns.

Every patch is a git diff of whole files relative to the repository root: no file is in two
patches, so each applies with `git apply` alone, in any order, and all of them together give the
tree `--write` gives. The folder is filled in a temporary sibling and renamed into place: a failed
run leaves no partial patch.
"""

from __future__ import annotations

import os
import re
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional

from codemods.engine import ownership
from codemods.engine.diagnostics import Applicability, Finding, Kind
from codemods.engine.report import FileResult, in_cell, plural, unified_diff

SUMMARY = "SUMMARY.md"
_SLUG_LENGTH = 100  # a file name's limit is 255 bytes: room for a `-N` and `.patch`


class PatchError(Exception):
    """What stops the patches from being written (a bad folder, CODEOWNERS, a file outside the root)."""


@dataclass(frozen=True)
class Split:
    """How files are grouped: by CODEOWNERS owners (depth None), or by the first `depth` folders."""

    depth: Optional[int] = None

    @classmethod
    def parse(cls, text: str) -> "Split":
        """`codeowners` or `directory:N` (ValueError otherwise: a usage error)."""
        if text == "codeowners":
            return cls()
        kind, _, depth = text.partition(":")
        if kind == "directory" and depth.isdigit() and int(depth) > 0:
            return cls(int(depth))
        raise ValueError(f"--split-by {text!r}: expected codeowners or directory:N (N a positive integer)")


@dataclass
class _Group:
    key: str  # the owners as written (codeowners) or the folder; "" for unowned files, or root files
    files: list[tuple[str, FileResult]] = field(default_factory=list)  # (path from the root, result)
    slug: str = ""

    @property
    def processed(self) -> list[tuple[str, FileResult]]:
        return [(name, result) for name, result in self.files if not _unprocessed(result)]

    @property
    def patch(self) -> bytes:
        return b"".join(_file_patch(name, result) for name, result in self.processed if result.new_source is not None)


@dataclass(frozen=True)
class Plan:
    """Where the patches go and how files are grouped: everything checked before the run."""

    split: Split
    root: Path  # the repository root: patch paths, CODEOWNERS patterns and folders are relative to it
    folder: Path
    force: bool
    codeowners: Optional[ownership.Codeowners]

    @classmethod
    def prepare(cls, split: Split, root: Path, folder: Path, force: bool) -> "Plan":
        if folder.exists() and not folder.is_dir():
            raise PatchError(f"--write-patches {folder}: not a folder")
        if folder.is_dir() and any(folder.iterdir()) and not force:
            raise PatchError(f"--write-patches {folder}: the folder is not empty; pass --force to replace "
                             f"its *.patch files and {SUMMARY}, or name an empty or new folder")
        try:
            codeowners = ownership.load(root) if split.depth is None else None
        except ownership.OwnershipError as error:
            raise PatchError(str(error)) from None
        return cls(split, root, folder, force, codeowners)

    def describe(self) -> str:
        if self.codeowners is None:
            return f"split by directory:{self.split.depth}"
        return f"split by codeowners ({self.codeowners.path.relative_to(self.root).as_posix()})"

    def write(self, results: Iterable[FileResult], heading: str,
              floor_of: Callable[[FileResult], Optional[str]] = lambda result: None) -> list[Path]:
        """Write one patch per group with a change, and SUMMARY.md; returns the patches' paths.
        `floor_of(result)`: the jax floor the file's findings were held to, in words (None: none was)."""
        groups = self._groups(results)
        files = {f"{group.slug}.patch": patch for group in groups if (patch := group.patch)}
        files[SUMMARY] = self._summary(groups, heading, files, floor_of).encode()
        _write_folder(self.folder, files, self.force)
        return [self.folder / name for name in files if name != SUMMARY]

    def _key(self, name: str) -> str:
        if self.codeowners is not None:
            return " ".join(self.codeowners.owners(name))
        return "/".join(name.split("/")[:-1][:self.split.depth])

    def _groups(self, results: Iterable[FileResult]) -> list[_Group]:
        groups: dict[str, _Group] = {}
        for result in results:
            if not _unprocessed(result) and result.new_source is None and not result.findings:
                continue
            name = Path(os.path.relpath(_real_folder(result.path), self.root)).as_posix()
            if name.startswith("../"):
                raise PatchError(f"{result.path}: outside the repository root {self.root}: no patch can name it")
            key = self._key(name)
            groups.setdefault(key, _Group(key)).files.append((name, result))
        taken: set[str] = set()
        for group in sorted(groups.values(), key=lambda g: (g.key != "", g.key)):  # "": the plain name
            group.slug = _unique(_slug(group.key) or ("unowned" if self.codeowners else "root"), taken)
            group.files.sort(key=lambda item: item[0])
        return sorted(groups.values(), key=lambda g: (g.key == "", g.key))

    def _label(self, key: str) -> str:
        return f"`{key}`" if key else "(unowned)" if self.codeowners else "(root)"

    def _summary(self, groups: list[_Group], heading: str, files: dict[str, bytes],
                 floor_of: Callable[[FileResult], Optional[str]]) -> str:
        column = "owner" if self.codeowners else "directory"
        lines = [f"# jax-codemod patches\n\n{heading}, {self.describe()}: one patch per {column}; each applies "
                 "with `git apply` on its own, in any order.\n",
                 f"| {column} | files | fixes | manual | not processed | patch file |", "|---|---:|---:|---:|---:|---|"]
        for group in groups:
            patch, processed = f"{group.slug}.patch", group.processed
            link = f"[{patch}]({patch})" if patch in files else \
                "none (nothing to change)" if processed else "none (no file processed)"
            findings = [f for _, result in processed for f in result.findings]
            changed = sum(result.new_source is not None for _, result in processed)
            lines.append(f"| {self._label(group.key).replace('|', chr(92) + '|')} | {changed} | "
                         f"{sum(f.applied for f in findings)} | {sum(_manual(f) for f in findings)} | "
                         f"{len(group.files) - len(processed)} | {link} |")
        for group in groups:
            lines += ["", f"## {self._label(group.key)}"]
            lines += _section("Not processed (nothing in them was looked at: fix the cause, then run again)",
                              [f"{name}: " + (f"error: {result.error}" if result.error is not None
                                              else f"skipped: {result.skipped}")
                               for name, result in group.files if _unprocessed(result)])
            lines += _section("Files", [f"{name}: " + _count(result) for name, result in group.processed])
            floors = Counter(floor for _, result in group.processed if (floor := floor_of(result)) is not None)
            lines += _section("Floors the fixes were held to (the oldest jax each project supports)",
                              [f"{floor}: {plural(count, 'file')}" for floor, count in sorted(floors.items())])
            fixes = Counter(f.code for _, result in group.processed for f in result.findings if f.applied)
            lines += _section("Fixes by rule", [f"{code}: {count}" for code, count in sorted(fixes.items())])
            lines += _section("Manual findings left", _listed(group, _manual))
            lines += _section("Unsafe fixes not applied (--unsafe-fixes applies them)", _listed(group, _unsafe))
        return "\n".join(lines) + "\n"


def _real_folder(path: str) -> str:
    """The file's path through its real folder (as git names the root), keeping its own name."""
    absolute = os.path.abspath(path)
    return os.path.join(os.path.realpath(os.path.dirname(absolute)), os.path.basename(absolute))


def _unprocessed(result: FileResult) -> bool:
    """A file that could not be read, parsed or written, or was skipped (a FIFO, a huge file):
    listed for its owner with the reason, in no patch."""
    return result.error is not None or result.skipped is not None


def _manual(finding: Finding) -> bool:
    return finding.kind in (Kind.MANUAL, Kind.WARNING)


def _unsafe(finding: Finding) -> bool:
    return finding.unapplied_fix and finding.fix.applicability is Applicability.UNSAFE  # type: ignore[union-attr]


def _count(result: FileResult) -> str:
    return f"changed, fixes: {sum(f.applied for f in result.findings)}" if result.new_source is not None \
        else "no change (findings only)"


def _listed(group: _Group, wanted) -> list[str]:
    """`path:line: CODE [label] message` (in a notebook `path:cell N:line: ...`) of the wanted findings."""
    out = []
    for name, result in group.processed:
        for finding in sorted(filter(wanted, result.findings), key=Finding.sort_key):
            where = in_cell(result, finding.line)
            place = f"{name}:cell {where[0]}:{where[1]}" if where else f"{name}:{finding.line}"
            out.append(f"{place}: {finding.code} [{finding.label}] {finding.message}")
    return out


def _section(title: str, items: list[str]) -> list[str]:
    """A titled fenced block: messages hold backticks and `*`, which Markdown would eat."""
    return ["", f"{title}:", "", "```", *items, "```"] if items else []


def _slug(key: str) -> str:
    """A file name for the group: `@org/infra @alice` -> `org-infra_alice`, `libs/b` -> `libs-b`."""
    parts = (re.sub(r"[^A-Za-z0-9._-]+", "-", part.lstrip("@")).strip("-.") for part in key.split())
    return "_".join(filter(None, parts))[:_SLUG_LENGTH]


def _unique(slug: str, taken: set[str]) -> str:
    """`slug`, else `slug-2`, `slug-3`...: no two groups share a file, on a case-blind filesystem either."""
    candidate, number = slug, 1
    while candidate.lower() in taken:
        number += 1
        candidate = f"{slug}-{number}"
    taken.add(candidate.lower())
    return candidate


_SPECIAL = re.compile(rb'["\\\x00-\x1f\x7f]')
_ESCAPES = {b'"': b'\\"', b"\\": b"\\\\", b"\a": b"\\a", b"\b": b"\\b", b"\t": b"\\t", b"\n": b"\\n",
            b"\v": b"\\v", b"\f": b"\\f", b"\r": b"\\r"}


def _quoted(name: bytes) -> bytes:
    """A name in a diff header as git writes it: C-quoted when it holds a quote, a backslash or a control character."""
    if not _SPECIAL.search(name):
        return name
    return b'"' + _SPECIAL.sub(lambda m: _ESCAPES.get(m[0], b"\\%03o" % m[0][0]), name) + b'"'


def _file_patch(name: str, result: FileResult) -> bytes:
    """`diff --git` and the file's diff (a notebook's: its JSON), with git's headers."""
    assert result.new_source is not None
    encoded = os.fsencode(name)
    body = unified_diff(name, result.raw, result.new_source)
    plain = b"--- a/%s\n+++ b/%s\n" % (encoded, encoded)
    assert body.startswith(plain), body[:200]
    old, new = _quoted(b"a/" + encoded), _quoted(b"b/" + encoded)
    return b"diff --git %s %s\n--- %s\n+++ %s\n%s" % (old, new, old, new, body[len(plain):])


def _write_folder(folder: Path, files: dict[str, bytes], force: bool) -> None:
    """Fill a temporary sibling folder, then rename it into place (or, with --force into a folder
    that holds other files, replace its patches and summary one rename each)."""
    folder = Path(os.path.abspath(folder))
    folder.parent.mkdir(parents=True, exist_ok=True)
    # Not named after the folder: a folder name may take a file name's 255 bytes whole.
    import secrets  # here: only a run that writes patches pays its import

    staging = folder.parent / f".jax-codemod-{os.getpid()}-{secrets.token_hex(4)}.tmp"
    os.mkdir(staging)
    try:
        for name, data in files.items():
            (staging / name).write_bytes(data)
        if folder.is_dir() and any(folder.iterdir()):
            assert force  # Plan.prepare refused a non-empty folder without it
            for old in folder.iterdir():
                if old.name == SUMMARY or (old.suffix == ".patch" and old.is_file()):
                    old.unlink()
            for name in files:
                os.replace(staging / name, folder / name)
            staging.rmdir()
        else:
            if folder.is_dir():
                folder.rmdir()
            os.replace(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
