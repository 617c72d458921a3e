"""Machine-readable reports: `--output-format json|sarif|github` (`text` is engine/report.py).

Pure functions of the run's `FileResult`s: nothing is read or written here, and the output is
the same for the same results (the one outside input is the current folder, which, as for the
diff, decides whether an absolute path is shown relative to it). Findings, files and errors
are ordered by path, then line, column, end, rule, kind and message, whatever order the results
came in.

Fixes
-----
A file has a fix when `new_source is not None and error is None`; its change is the unified diff
of `report.unified_diff` (what the dry run prints, `git apply`-able). The fix of one finding is
cut from that diff, by hunks:

- a `fixed` or `dropped` finding gets the hunks that remove or replace a line of the finding's
  lines (`line`..`end_line`), plus the file's hunks that touch no line of any fixed or dropped
  finding: what a fix needs elsewhere in the file (the `rsqrt_safe` helper inserted after the
  imports, an import that became unused, a module constant rewritten where it is written). So
  each finding's fix applies alone (`git apply`) and leaves working code. Hunks are the diff's
  own (3 lines of context), so changes a few lines apart share one hunk, and the fixes of one
  file may share hunks: apply one finding's fix, or the file's whole diff, not several fixes of
  one file in turn.
- `manual` and `warning` findings were not rewritten: no fix.

JSON (`render_json`)
--------------------
One document, indented, ASCII only (other characters as `\\uXXXX`), newline-terminated::

    {
      "version": 1,                      # of this layout; bumped on an incompatible change
      "findings": [
        {"rule": "JAX001", "name": "per-operand-precision",   # name: null for an unknown code
         "kind": "fixed",                                     # fixed | dropped | manual | warning
         "path": "src/a.py",                                  # as the text output shows it
         "start": {"line": 8, "column": 61},                  # 1-based, columns in characters; 0: not known
         "end": {"line": 8, "column": 106},                   # exclusive; null when not known
         "message": "...",
         "fix": "--- a/src/a.py\\n+++ b/src/a.py\\n@@ ..." | null}   # a patch, see Fixes
      ],
      "errors": [{"path": "src/b.py", "message": "cannot parse: ..."}],
      "files": [                         # every file with a change or a finding
        {"path": "src/a.py", "changed": true, "encoding": "utf-8", "diff": "--- a/..." | null}
      ],
      "summary": {"scanned": 5, "parsed": 4, "changed": 2, "errors": 1, "findings": 4,
                  "suppressed": 0,       # findings left out by suppression comments
                  "by_kind": {"fixed": 2, "dropped": 1, "manual": 1, "warning": 0},
                  "by_rule": {"JAX001": 3, "JAX002": 1, "JAX003": 0}}
    }

Diff text: the patch is bytes in the file's own encoding (`encoding`), BOM and line endings
included. It is decoded as UTF-8 with `errors="surrogateescape"`: for a UTF-8 (or ASCII) file
`diff.encode("utf-8")` gives back the exact patch; a byte that is not UTF-8 (a file in another
PEP 263 encoding) becomes a lone surrogate U+DC80..U+DCFF, written `\\udcXX`, and
`diff.encode("utf-8", "surrogateescape")` gives back the exact bytes in Python.

SARIF (`render_sarif`)
----------------------
SARIF 2.1.0 (`$schema`: the OASIS Errata 01 schema, vendored in tests/sarif/), one run.
`tool.driver` lists every rule of `codemods.rules.RULES` (id = code, name, shortDescription).
Each finding is one result: `ruleId`, `ruleIndex`, `kind: "fail"` (the spec allows a `level`
other than "none" only with "fail"), `level` ("note" for fixed/dropped, "warning" for
manual/warning), `message.text`, one location (`region` in 1-based lines and columns,
`endColumn` exclusive, as SARIF's; `run.columnKind` is `unicodeCodePoints`), and
`properties.kind` with the finding's own kind. A fixed/dropped finding with a fix also has
`properties.patch` (its patch, as in JSON) and, when it can be said exactly in SARIF's terms, a
`fixes` entry: one replacement per run of changed lines of its hunks (`deletedRegion` by line
and column in the original file, `insertedContent.text`). Paths are relative URIs with
`uriBaseId: "%SRCROOT%"` (the folder the tool ran in; not spelled out in `originalUriBaseIds`,
so that the log does not depend on the machine) when the file is under that folder, else `file:`
URIs; both percent-encoded. Files that could not be processed are
`invocations[0].toolExecutionNotifications` (level "error", with the file's location), and
make `executionSuccessful` false. `suppressed` is `runs[0].properties.suppressed`.

GitHub (`render_github`)
------------------------
One workflow command a line, as `@actions/core` writes them::

    ::warning file=src/a.py,line=12,col=5,endLine=12,endColumn=40,title=JAX001 [manual]::message

`warning` for manual/warning findings, `notice` for fixed/dropped, and `error` (with `file=`
and `title=jax-codemod`) for a file that could not be processed. Values are escaped as the
toolkit does (`%`, CR, LF in the message; also `:` and `,` in properties). Columns are given
only when the finding starts and ends on one line (GitHub's annotations take them only then).
Suppressed findings get no line; the count is accepted for a uniform signature.
"""

from __future__ import annotations

import bisect
import json
import os
import pathlib
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence
from urllib.parse import quote_from_bytes

from codemods.engine.report import FileResult, Finding, Kind, unified_diff
from codemods.rules import RULES

JSON_FORMAT_VERSION = 1
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_VERSION = "2.1.0"
TOOL_NAME = "jax-codemod"
SRCROOT = "%SRCROOT%"

_REWRITTEN = (Kind.FIXED, Kind.DROPPED)
_SARIF_LEVEL = {Kind.FIXED: "note", Kind.DROPPED: "note", Kind.MANUAL: "warning", Kind.WARNING: "warning"}
_GITHUB_COMMAND = {Kind.FIXED: "notice", Kind.DROPPED: "notice", Kind.MANUAL: "warning", Kind.WARNING: "warning"}


# -- the diff, cut into hunks --


@dataclass
class _Hunk:
    old_start: int  # 0-based index of the first old line the hunk covers (its insertion point if empty)
    old_len: int
    new_start: int  # the same, on the new side
    new_len: int
    body: list[bytes]  # the lines after the @@ header, "\ No newline" markers included
    removed: list[int] = field(default_factory=list)  # 1-based old lines removed or replaced
    inserted_before: list[int] = field(default_factory=list)  # 1-based old lines a pure insertion precedes
    # runs of changed lines: (old_from, old_to, new_from, new_to), 0-based, end exclusive
    blocks: list[tuple[int, int, int, int]] = field(default_factory=list)

    def touches(self, first: int, last: int) -> bool:
        """Whether the hunk removes or replaces one of the old lines first..last, or inserts
        lines between two of them."""
        return any(first <= line <= last for line in self.removed) or any(
            first < line <= last for line in self.inserted_before
        )


_HUNK_HEADER = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _start_index(written: int, length: int) -> int:
    """0-based start of a unified-diff range (`-5,3` is index 4; an empty range `-5,0` is after line 5)."""
    return written if length == 0 else written - 1


def _format_range(start: int, length: int) -> str:
    """As difflib writes a range (0-based `start`)."""
    beginning = start + 1
    if length == 1:
        return str(beginning)
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def _parse_diff(diff: bytes) -> tuple[list[bytes], list[_Hunk]]:
    """The header lines (`---`, `+++`) and hunks of one file's unified diff."""
    lines = [line for line in re.split(b"(?<=\n)", diff) if line]
    header: list[bytes] = []
    hunks: list[_Hunk] = []
    for line in lines:
        match = _HUNK_HEADER.match(line)
        if match:
            old_len = int(match.group(2)) if match.group(2) is not None else 1
            new_len = int(match.group(4)) if match.group(4) is not None else 1
            hunks.append(_Hunk(_start_index(int(match.group(1)), old_len), old_len,
                               _start_index(int(match.group(3)), new_len), new_len, []))
        elif hunks:
            hunks[-1].body.append(line)
        else:
            header.append(line)
    for hunk in hunks:
        _index_hunk(hunk)
    return header, hunks


def _index_hunk(hunk: _Hunk) -> None:
    old, new = hunk.old_start, hunk.new_start
    block: Optional[list[int]] = None  # [old_from, old_to, new_from, new_to] of the run being read
    for line in hunk.body:
        tag = line[:1]
        if tag == b"\\":
            continue
        if tag in (b"-", b"+"):
            if block is None:
                block = [old, old, new, new]
            if tag == b"-":
                hunk.removed.append(old + 1)
                old += 1
                block[1] = old
            else:
                new += 1
                block[3] = new
            continue
        if block is not None:  # a context line ends the run
            hunk.blocks.append((block[0], block[1], block[2], block[3]))
            block = None
        old += 1
        new += 1
    if block is not None:
        hunk.blocks.append((block[0], block[1], block[2], block[3]))
    for old_from, old_to, _, _ in hunk.blocks:
        if old_from == old_to:
            hunk.inserted_before.append(old_from + 1)


def _patch(header: list[bytes], hunks: list[_Hunk]) -> bytes:
    """A patch of some of a diff's hunks, their new-side line numbers recounted."""
    out = list(header)
    shift = 0
    for hunk in hunks:
        new_start = hunk.old_start + shift  # where the hunk lands once the earlier ones chosen are applied
        out.append(f"@@ -{_format_range(hunk.old_start, hunk.old_len)} "
                   f"+{_format_range(new_start, hunk.new_len)} @@\n".encode())
        out.extend(hunk.body)
        shift += hunk.new_len - hunk.old_len
    return b"".join(out)


def _finding_lines(finding: Finding) -> tuple[int, int]:
    return finding.line, max(finding.end_line, finding.line)


def _has_fix(result: FileResult) -> bool:
    return result.new_source is not None and result.error is None


@dataclass
class _FileFixes:
    """One changed file: its diff, and the hunks each rewritten finding's fix is made of."""

    diff: bytes
    header: list[bytes]
    hunks: list[_Hunk]
    orphans: list[int]  # indexes of hunks that touch no line of any fixed or dropped finding

    def hunks_of(self, finding: Finding) -> list[_Hunk]:
        if finding.kind not in _REWRITTEN:
            return []
        first, last = _finding_lines(finding)
        own = {i for i, hunk in enumerate(self.hunks) if first >= 1 and hunk.touches(first, last)}
        return [hunk for i, hunk in enumerate(self.hunks) if i in own or i in self.orphans]

    def patch_of(self, finding: Finding) -> Optional[bytes]:
        hunks = self.hunks_of(finding)
        return _patch(self.header, hunks) if hunks else None


def _file_fixes(result: FileResult) -> Optional[_FileFixes]:
    if not _has_fix(result):
        return None
    assert result.new_source is not None
    diff = unified_diff(result.path, result.raw, result.new_source)
    header, hunks = _parse_diff(diff)
    rewritten = [_finding_lines(f) for f in result.findings if f.kind in _REWRITTEN and f.line >= 1]
    orphans = [i for i, hunk in enumerate(hunks) if not any(hunk.touches(a, b) for a, b in rewritten)]
    return _FileFixes(diff, header, hunks, orphans)


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


# -- ordering and names --


def _finding_key(path: str, finding: Finding) -> tuple:
    return (path, finding.line, finding.column, finding.end_line, finding.end_column,
            finding.code, finding.kind.value, finding.message)


def _ordered(results: Sequence[FileResult]) -> list[FileResult]:
    return sorted(results, key=lambda result: result.path)


def _ordered_findings(result: FileResult) -> list[Finding]:
    return sorted(result.findings, key=lambda finding: _finding_key(result.path, finding))


_RULE_NAMES = {rule.code: rule.name for rule in RULES}
_RULE_INDEX = {rule.code: index for index, rule in enumerate(RULES)}


def _shown_path(path: str) -> tuple[str, bool]:
    """The path '/'-separated and relative to the current folder when it lies under it (as the
    diff names it), and whether it is relative; else the absolute path."""
    absolute = os.path.abspath(path)
    cwd = os.getcwd()
    if os.path.isabs(path):
        try:
            under = os.path.commonpath([absolute, cwd]) == cwd
        except ValueError:  # another drive
            under = False
        if not under:
            return absolute, False
        path = os.path.relpath(absolute, cwd)
    relative = posixpath.normpath(path.replace(os.sep, "/"))
    if relative == ".." or relative.startswith("../"):
        return absolute, False
    return relative, True


# -- JSON --


def render_json(results: Sequence[FileResult], *, suppressed: int = 0) -> str:
    """The run as one JSON document (layout in the module docstring)."""
    findings: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    files: list[dict[str, Any]] = []
    by_kind = {kind.value: 0 for kind in Kind}
    by_rule = {rule.code: 0 for rule in RULES}
    for result in _ordered(results):
        fixes = _file_fixes(result)
        for finding in _ordered_findings(result):
            patch = fixes.patch_of(finding) if fixes is not None else None
            findings.append({
                "rule": finding.code,
                "name": _RULE_NAMES.get(finding.code),
                "kind": finding.kind.value,
                "path": result.path,
                "start": {"line": finding.line, "column": finding.column},
                "end": {"line": finding.end_line, "column": finding.end_column} if finding.end_line else None,
                "message": finding.message,
                "fix": _text(patch) if patch is not None else None,
            })
            by_kind[finding.kind.value] = by_kind.get(finding.kind.value, 0) + 1
            by_rule[finding.code] = by_rule.get(finding.code, 0) + 1
        if result.error is not None:
            errors.append({"path": result.path, "message": result.error})
        if fixes is not None or result.findings:
            files.append({
                "path": result.path,
                "changed": fixes is not None,
                "encoding": result.encoding,
                "diff": _text(fixes.diff) if fixes is not None else None,
            })
    document = {
        "version": JSON_FORMAT_VERSION,
        "findings": findings,
        "errors": errors,
        "files": files,
        "summary": {
            "scanned": len(results),
            "parsed": sum(bool(result.parsed) for result in results),
            "changed": sum(_has_fix(result) for result in results),
            "errors": len(errors),
            "findings": len(findings),
            "suppressed": suppressed,
            "by_kind": by_kind,
            "by_rule": by_rule,
        },
    }
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"


# -- SARIF --


def _artifact_location(path: str) -> dict[str, str]:
    shown, relative = _shown_path(path)
    if relative:
        return {"uri": quote_from_bytes(os.fsencode(shown), safe="/"), "uriBaseId": SRCROOT}
    return {"uri": pathlib.Path(shown).as_uri()}


def _region(finding: Finding) -> Optional[dict[str, int]]:
    if finding.line < 1:
        return None
    region = {"startLine": finding.line}
    if finding.column >= 1:
        region["startColumn"] = finding.column
    if finding.end_line >= finding.line and finding.end_line >= 1:
        region["endLine"] = finding.end_line
        if finding.end_column >= 1 and finding.column >= 1:
            region["endColumn"] = finding.end_column
    return region


class _Text:
    """A file's text with SARIF line/column positions (lines end after "\\n"; columns in characters)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = [line for line in re.split("(?<=\n)", text) if line]
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))  # the last one is len(text)

    def position(self, offset: int) -> tuple[int, int]:
        line = max(1, min(bisect.bisect_right(self.starts, offset), len(self.lines)))
        return line, offset - self.starts[line - 1] + 1


def _replacement(old: _Text, new_lines: list[str], block: tuple[int, int, int, int]) -> Optional[dict[str, Any]]:
    """One run of changed lines as a SARIF replacement, or None when it cannot be said exactly.

    The deleted region runs from the start of the block's first old line to the start of the
    line after it, except at the end of a file that ends in a newline: there is no line after
    it, so the region stops before that newline and the inserted text does without its own, or
    (deleting the file's last lines) the region moves back one newline."""
    old_from, old_to, new_from, new_to = block
    start, end = old.starts[old_from], old.starts[old_to]
    inserted = "".join(new_lines[new_from:new_to])
    text = old.text
    if end == len(text) and text.endswith("\n"):
        newline = "\r\n" if text.endswith("\r\n") else "\n"
        size = len(newline)
        if end - start >= size and inserted.endswith(newline):
            end, inserted = end - size, inserted[:-size]
        elif start >= size and text[start - size:start] == newline and (not inserted or inserted.endswith(newline)):
            start, end, inserted = start - size, end - size, (newline + inserted)[:-size]
        else:
            return None
    if not text:
        return None
    start_line, start_column = old.position(start)
    end_line, end_column = old.position(end)
    replacement: dict[str, Any] = {"deletedRegion": {
        "startLine": start_line, "startColumn": start_column, "endLine": end_line, "endColumn": end_column,
    }}
    if inserted:
        replacement["insertedContent"] = {"text": inserted}
    return replacement


_FIX_DESCRIPTION = "The change jax-codemod makes for this finding, with any change elsewhere in the file it needs."


def _sarif_fix(result: FileResult, hunks: list[_Hunk], old: Optional[_Text], new_lines: list[str]) -> Optional[dict]:
    if old is None or not hunks:
        return None
    replacements = []
    for hunk in hunks:
        for block in hunk.blocks:
            replacement = _replacement(old, new_lines, block)
            if replacement is None:
                return None
            replacements.append(replacement)
    if not replacements:
        return None
    return {
        "description": {"text": _FIX_DESCRIPTION},
        "artifactChanges": [{"artifactLocation": _artifact_location(result.path), "replacements": replacements}],
    }


def _texts(result: FileResult) -> tuple[Optional[_Text], list[str]]:
    """The original and rewritten text of a changed file, or (None, []) when their lines do not
    match the diff's (an encoding whose newline is not the byte 0x0A)."""
    try:
        old = _Text(result.raw.decode(result.encoding))
    except (LookupError, UnicodeDecodeError):
        return None, []
    new_lines = [line for line in re.split("(?<=\n)", result.after) if line]
    raw_lines = len([line for line in re.split(b"(?<=\n)", result.raw) if line])
    assert result.new_source is not None
    new_raw_lines = len([line for line in re.split(b"(?<=\n)", result.new_source) if line])
    if len(old.lines) != raw_lines or len(new_lines) != new_raw_lines:
        return None, []
    return old, new_lines


def render_sarif(results: Sequence[FileResult], *, tool_version: str, suppressed: int = 0) -> str:
    """The run as a SARIF 2.1.0 log (mapping in the module docstring)."""
    sarif_results: list[dict[str, Any]] = []
    notifications: list[dict[str, Any]] = []
    for result in _ordered(results):
        fixes = _file_fixes(result)
        old, new_lines = _texts(result) if fixes is not None else (None, [])
        for finding in _ordered_findings(result):
            location: dict[str, Any] = {"artifactLocation": _artifact_location(result.path)}
            region = _region(finding)
            if region is not None:
                location["region"] = region
            entry: dict[str, Any] = {"ruleId": finding.code}
            if finding.code in _RULE_INDEX:
                entry["ruleIndex"] = _RULE_INDEX[finding.code]
            entry.update({
                "kind": "fail",
                "level": _SARIF_LEVEL[finding.kind],
                "message": {"text": finding.message},
                "locations": [{"physicalLocation": location}],
            })
            properties: dict[str, Any] = {"kind": finding.kind.value}
            if fixes is not None:
                hunks = fixes.hunks_of(finding)
                if hunks:
                    properties["patch"] = _text(_patch(fixes.header, hunks))
                    fix = _sarif_fix(result, hunks, old, new_lines)
                    if fix is not None:
                        entry["fixes"] = [fix]
            entry["properties"] = properties
            sarif_results.append(entry)
        if result.error is not None:
            notifications.append({
                "level": "error",
                "message": {"text": f"{result.path}: {result.error}"},
                "locations": [{"physicalLocation": {"artifactLocation": _artifact_location(result.path)}}],
            })
    invocation: dict[str, Any] = {"executionSuccessful": not notifications}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    run = {
        "tool": {"driver": {
            "name": TOOL_NAME,
            "version": tool_version,
            "rules": [
                {"id": rule.code, "name": rule.name, "shortDescription": {"text": rule.description}}
                for rule in RULES
            ],
        }},
        "invocations": [invocation],
        "columnKind": "unicodeCodePoints",
        "results": sarif_results,
        "properties": {"suppressed": suppressed},
    }
    log = {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=True) + "\n"


# -- GitHub Actions workflow commands --


def escape_data(value: str) -> str:
    """A command's message, as @actions/core `escapeData` writes it."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """A command property's value, as @actions/core `escapeProperty` writes it."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def _command(name: str, properties: list[tuple[str, object]], message: str) -> str:
    given = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties)
    return f"::{name}{' ' + given if given else ''}::{escape_data(message)}\n"


def _github_properties(path: str, finding: Finding) -> list[tuple[str, object]]:
    properties: list[tuple[str, object]] = [("file", _shown_path(path)[0])]
    if finding.line >= 1:
        properties.append(("line", finding.line))
        one_line = finding.end_line in (0, finding.line)
        if one_line and finding.column >= 1:
            properties.append(("col", finding.column))
        if finding.end_line >= finding.line:
            properties.append(("endLine", finding.end_line))
            if one_line and finding.column >= 1 and finding.end_column >= 1:
                properties.append(("endColumn", finding.end_column))
    properties.append(("title", f"{finding.code} [{finding.kind.value}]"))
    return properties


def render_github(results: Sequence[FileResult], *, suppressed: int = 0) -> str:
    """GitHub Actions annotations, one workflow command a line (format in the module docstring)."""
    del suppressed  # annotations are per finding; suppressed ones are not shown
    lines: list[str] = []
    for result in _ordered(results):
        if result.error is not None:
            lines.append(_command("error", [("file", _shown_path(result.path)[0]), ("title", TOOL_NAME)],
                                  result.error))
        for finding in _ordered_findings(result):
            lines.append(_command(_GITHUB_COMMAND[finding.kind], _github_properties(result.path, finding),
                                  finding.message))
    return "".join(lines)
