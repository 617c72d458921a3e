"""Stage 7: what the user reads — diffs, findings in `path:line:col: CODE message` form, a summary."""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Iterable, Optional

from codemods.engine.diagnostics import Applicability, Finding, Kind, apply_text_edits
from codemods.engine.source import encode_keeping

if TYPE_CHECKING:
    from codemods.engine.notebook import Cells


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
    # A notebook: its code cells as one module, which findings' lines and fixes' edits refer to
    # (`after` is that module fixed; `raw` and `new_source` are the notebook's JSON).
    cells: Optional["Cells"] = None

    def text(self) -> str:
        """The text the findings' fixes are edits of (for a notebook, the module of its code cells)."""
        return self.cells.text if self.cells is not None else self.raw.decode(self.encoding)


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
            f"{plural(self.scanned, 'file')} scanned, {self.parsed} parsed, {self.changed} {verb}, "
            f"{plural(self.fixes, 'fix')}, {self.manual} need{'s' if self.manual == 1 else ''} manual review, "
            f"{plural(self.errors, 'error')}"
            + (f", {plural(self.unsafe, 'unsafe fix')} not applied (--unsafe-fixes applies them)" if self.unsafe else "")
            + (f", {plural(self.declined, 'fix')} declined" if self.declined else "")
            + (f", {self.suppressed} suppressed" if self.suppressed else "")
            + (f", {self.skipped} skipped" if self.skipped else "")
        )


def plural(count: int, noun: str) -> str:
    """`1 file`, `2 files`, `1 fix`, `0 fixes`: the count with its noun (a regular plural)."""
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {noun}{'es' if noun.endswith(('s', 'x', 'ch', 'sh')) else 's'}"


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
    return "".join(render_finding(r, f) + "\n" for r in results for f in r.findings)


def in_cell(result: FileResult, line: int) -> Optional[tuple[int, int]]:
    """(cell number, line in the cell) of a notebook's module line; None for other files."""
    return result.cells.locate(line) if result.cells is not None else None


def render_finding(result: FileResult, finding: Finding) -> str:
    """`path:line:col: CODE ...`; in a notebook `path:cell N:line:col: CODE ...`, as Ruff prints it."""
    where = in_cell(result, finding.line)
    if where is None:
        return finding.render(result.path)
    end = in_cell(result, finding.end_line)
    cell_relative = replace(finding, line=where[1], end_line=end[1] if end is not None else 0)
    return cell_relative.render(f"{result.path}:cell {where[0]}")


def cell_diff(path: str, cells: "Cells", changed: dict[int, str]) -> bytes:
    """A unified diff of each changed cell's source, headed `a/nb.ipynb:cell N`."""
    return b"".join(unified_diff(f"{path}:cell {number}", cells.source(number).encode(), new.encode())
                    for number, new in sorted(changed.items()))


def file_diff(result: FileResult) -> bytes:
    """The diff of a changed file (of a notebook: of its changed cells)."""
    assert result.new_source is not None
    if result.cells is not None:
        return cell_diff(result.path, result.cells, result.cells.sources_of(result.after))
    return unified_diff(result.path, result.raw, result.new_source)


def fix_diff(result: FileResult, finding: Finding) -> Optional[bytes]:
    """The diff of one finding's fix applied alone to the file (None: no fix, or it changes nothing)."""
    if finding.fix is None or not finding.fix.edits or not result.raw:
        return None
    if result.cells is not None:
        return cell_diff(result.path, result.cells, result.cells.sources_after(finding.fix.edits)) or None
    old = result.raw.decode(result.encoding)
    new = apply_text_edits(old, finding.fix.edits)
    return unified_diff(result.path, result.raw, encode_keeping(result.raw, old, new, result.encoding))
