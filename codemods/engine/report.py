"""Stage 7: what the user reads — diffs, findings in `path:line:col: CODE message` form, a summary."""

from __future__ import annotations

import difflib
import enum
import os
import re
from dataclasses import dataclass, field
from typing import Iterable, Optional


class Kind(str, enum.Enum):
    """How a finding should be read."""

    FIXED = "fixed"  # rewritten; listed so reviewers see every change the tool made
    DROPPED = "dropped"  # rewritten, and a contract was removed (an accuracy hint): say which
    MANUAL = "manual"  # not rewritten: a person must look (non-literal value, **kwargs, ...)
    WARNING = "warning"  # not rewritten, may still fail at run time (e.g. bf16 default precision)


@dataclass(frozen=True)
class Finding:
    code: str
    kind: Kind
    line: int
    column: int  # 1-based, as editors count
    message: str
    end_line: int = 0  # where the code the finding is about ends (0: not known)
    end_column: int = 0  # 1-based, exclusive

    def render(self, path: str) -> str:
        return f"{path}:{self.line}:{self.column}: {self.code} [{self.kind.value}] {self.message}"


@dataclass
class FileResult:
    path: str
    parsed: bool = False
    new_source: Optional[bytes] = None  # None: nothing to change
    raw: bytes = b""  # what was read, to refuse writing over a file edited meanwhile
    after: str = ""  # the new text, decoded
    encoding: str = "utf-8"  # the file's own codec (PEP 263 cookie or BOM), kept on writing
    findings: list[Finding] = field(default_factory=list)
    error: Optional[str] = None
    suppressed: int = 0  # findings silenced by `# jax-codemod: ignore` comments
    written: bool = False  # the change was written to disk
    skipped: Optional[str] = None  # why the file was not read or not analysed (a FIFO, a huge file)


@dataclass
class Summary:
    scanned: int = 0
    parsed: int = 0
    changed: int = 0
    errors: int = 0
    fixes: int = 0
    manual: int = 0
    suppressed: int = 0
    skipped: int = 0

    def add(self, result: FileResult) -> None:
        self.scanned += 1
        self.parsed += result.parsed
        self.changed += result.new_source is not None and result.error is None
        self.errors += result.error is not None
        self.fixes += sum(f.kind in (Kind.FIXED, Kind.DROPPED) for f in result.findings)
        self.manual += sum(f.kind in (Kind.MANUAL, Kind.WARNING) for f in result.findings)
        self.suppressed += result.suppressed
        self.skipped += result.skipped is not None

    def render(self, *, written: bool) -> str:
        verb = "changed" if written else "would change"
        return (
            f"{self.scanned} files scanned, {self.parsed} parsed, {self.changed} {verb}, "
            f"{self.fixes} fixes, {self.manual} need manual review, {self.errors} errors"
            + (f", {self.suppressed} suppressed" if self.suppressed else "")
            + (f", {self.skipped} skipped" if self.skipped else "")
        )


_NO_NEWLINE = b"\\ No newline at end of file\n"


def _lines(data: bytes) -> list[bytes]:
    """Lines as git counts them: each ends after a b"\\n" (a lone \\r is not a line end)."""
    return [line for line in re.split(b"(?<=\n)", data) if line]


def _diff_name(path: str) -> bytes:
    """The name in the diff header: relative to the current folder when under it, else relative to
    the root (`a/tmp/x.py`, which `git apply` takes from `/`; `a//tmp/x.py` no tool takes), `/`-separated."""
    absolute = os.path.abspath(path)
    cwd = os.getcwd()
    if os.path.isabs(path) and os.path.commonpath([absolute, cwd]) == cwd:
        path = os.path.relpath(absolute, cwd)
    return os.fsencode(path.replace(os.sep, "/").lstrip("/"))


def unified_diff(path: str, old: bytes, new: bytes) -> bytes:
    """A diff `git apply` accepts, byte for byte: the file's own encoding, BOM and line endings,
    a/ b/ prefixes, and the no-newline marker difflib leaves out."""
    name = _diff_name(path)
    lines = difflib.diff_bytes(difflib.unified_diff, _lines(old), _lines(new), b"a/" + name, b"b/" + name)
    return b"".join(line if line.endswith(b"\n") else line + b"\n" + _NO_NEWLINE for line in lines)


def render_findings(results: Iterable[FileResult]) -> str:
    return "".join(f.render(r.path) + "\n" for r in results for f in r.findings)
