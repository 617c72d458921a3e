"""Stage 7: what the user reads — diffs, findings in `path:line:col: CODE message` form, a summary."""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from typing import Iterable, Optional

from codemods.engine.diagnostics import Applicability, Finding, Kind, apply_text_edits


@dataclass
class FileResult:
    path: str
    parsed: bool = False
    new_source: Optional[bytes] = None  # None: nothing to change
    raw: bytes = b""  # what was read, when there is a fix: its edits are offsets into its text, and a
    # write refuses a file edited since
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
    fixes: int = 0  # applied
    unsafe: int = 0  # unsafe fixes left out (shown; --unsafe-fixes applies them)
    declined: int = 0  # safe fixes left out (declined in --interactive)
    manual: int = 0
    suppressed: int = 0
    skipped: int = 0

    def add(self, result: FileResult) -> None:
        self.scanned += 1
        self.parsed += result.parsed
        self.changed += result.new_source is not None and result.error is None
        self.errors += result.error is not None
        self.fixes += sum(f.applied for f in result.findings)
        unapplied = [f for f in result.findings if f.unapplied_fix]
        self.unsafe += sum(f.fix.applicability is Applicability.UNSAFE for f in unapplied)  # type: ignore[union-attr]
        self.declined += sum(f.fix.applicability is Applicability.SAFE for f in unapplied)  # type: ignore[union-attr]
        self.manual += sum(f.kind in (Kind.MANUAL, Kind.WARNING) for f in result.findings)
        self.suppressed += result.suppressed
        self.skipped += result.skipped is not None

    def render(self, *, written: bool) -> str:
        verb = "changed" if written else "would change"
        return (
            f"{self.scanned} files scanned, {self.parsed} parsed, {self.changed} {verb}, "
            f"{self.fixes} fixes, {self.manual} need manual review, {self.errors} errors"
            + (f", {self.unsafe} unsafe fixes not applied (--unsafe-fixes applies them)" if self.unsafe else "")
            + (f", {self.declined} fixes declined" if self.declined else "")
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


def fix_diff(result: FileResult, finding: Finding) -> Optional[bytes]:
    """The diff of one finding's fix applied alone to the file (None: no fix, or it changes nothing)."""
    if finding.fix is None or not finding.fix.edits or not result.raw:
        return None
    old = result.raw.decode(result.encoding)
    new = apply_text_edits(old, finding.fix.edits)
    return unified_diff(result.path, result.raw, new.encode(result.encoding))
