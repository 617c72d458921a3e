"""Machine-readable reports: `--output-format json|sarif|github` (`text` is engine/report.py).

Pure functions of the run's `FileResult`s: nothing is read or written here, and the output is
the same for the same results (the one outside input is the current folder, which, as for the
diff, decides whether an absolute path is shown relative to it). Findings, files and errors
are ordered by path, then line, column, end, rule, kind and message, whatever order the results
came in.

Fixes
-----
A finding with a fix carries it (codemods/engine/diagnostics.py): its applicability (`safe`:
`--write` applies it; `unsafe`: only with `--unsafe-fixes`), whether this run applied it, and its
edits: character ranges of the original text and their replacement, everything the fix needs
elsewhere in the file included (the `rsqrt_safe` helper inserted after the imports, an import
that became unused). Each fix applies alone to the original file and leaves code that parses.
The formats render those edits; nothing here is cut back out of the file's diff. A finding's
`patch` is the unified diff of its fix applied alone (`git apply`-able). Apply one finding's
fix, or the file's whole diff: the fixes of one file are each made against the original text.

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
         "fix": null | {                                      # see Fixes
           "applicability": "safe",                           # safe | unsafe
           "applied": true,                                   # in this run's output (and diff)
           "edits": [{"start": {"line": 8, "column": 61}, "end": {"line": 8, "column": 106},
                      "content": "lax.Precision.HIGHEST"}],   # original positions, end exclusive
           "patch": "--- a/src/a.py\\n+++ b/src/a.py\\n@@ ..."}}   # the fix alone, as a diff
      ],
      "errors": [{"path": "src/b.py", "message": "cannot parse: ..."}],
      "files": [                         # every file with a change or a finding
        {"path": "src/a.py", "changed": true, "encoding": "utf-8", "diff": "--- a/..." | null}
      ],
      "summary": {"scanned": 5, "parsed": 4, "changed": 2, "errors": 1, "findings": 4,
                  "fixes": {"applied": 2, "unsafe_not_applied": 1},
                  "suppressed": 0,       # findings left out by suppression comments
                  "by_kind": {"fixed": 2, "dropped": 1, "manual": 1, "warning": 0},
                  "by_rule": {"JAX001": 3, "JAX002": 1, "JAX003": 0}}
    }

Notebooks: a finding in a Jupyter notebook has `"cell"` (its 1-based number, every cell counted,
as Ruff gives it) and its lines, and its edits' lines, are lines of that cell (an edit's positions
carry their `"cell"` too); its patch and the file's diff are unified diffs of the changed cells'
sources, each headed `a/nb.ipynb:cell N`. Findings in other files have no `"cell"` key.

Diff text: the patch is bytes in the file's own encoding (`encoding`), BOM and line endings
included. It is decoded as UTF-8 with `errors="surrogateescape"`: for a UTF-8 (or ASCII) file
`diff.encode("utf-8")` gives back the exact patch; a byte that is not UTF-8 (a file in another
PEP 263 encoding) becomes a lone surrogate U+DC80..U+DCFF, written `\\udcXX`, and
`diff.encode("utf-8", "surrogateescape")` gives back the exact bytes in Python.

SARIF (`render_sarif`)
----------------------
SARIF 2.1.0 (`$schema`: the OASIS Errata 01 schema, vendored in tests/sarif/), one run.
`tool.driver` lists every rule it is given (id = code, name, shortDescription).
Each finding is one result: `ruleId`, `ruleIndex`, `kind: "fail"` (the spec allows a `level`
other than "none" only with "fail"), `level` ("note" for fixed/dropped, "warning" for
manual/warning), `message.text`, one location (`region` in 1-based lines and columns,
`endColumn` exclusive, as SARIF's; `run.columnKind` is `unicodeCodePoints`), and
`properties.kind` with the finding's own kind. A finding with a fix also has
`properties.applicability`, `properties.applied`, `properties.patch` (its patch, as in JSON)
and, when it can be said exactly in SARIF's terms, a `fixes` entry: one replacement per edit
(`deletedRegion` by line and column in the original file, `insertedContent.text`). Paths are relative URIs with
`uriBaseId: "%SRCROOT%"` (the folder the tool ran in; not spelled out in `originalUriBaseIds`,
so that the log does not depend on the machine) when the file is under that folder, else `file:`
URIs; both percent-encoded. Files that could not be processed are
`invocations[0].toolExecutionNotifications` (level "error", with the file's location), and
make `executionSuccessful` false. `suppressed` is `runs[0].properties.suppressed`. In a notebook,
the region's lines are lines of the cell, which the location names as a logical location
(`{"name": "cell 4", "fullyQualifiedName": "nb.ipynb:cell 4", "kind": "module"}`) and as
`properties.cell`; such a result has no `fixes` (its replacements would be taken as edits of the
notebook's JSON), its patch is in `properties.patch`.

GitHub (`render_github`)
------------------------
One workflow command a line, as `@actions/core` writes them::

    ::warning file=src/a.py,line=12,col=5,endLine=12,endColumn=40,title=JAX001 [manual]::message

`warning` for manual/warning findings, `notice` for fixed/dropped, and `error` (with `file=`
and `title=jax-codemod`) for a file that could not be processed. Values are escaped as the
toolkit does (`%`, CR, LF in the message; also `:` and `,` in properties). Columns are given
only when the finding starts and ends on one line (GitHub's annotations take them only then). A
finding in a notebook is annotated on the file, without `line` (the notebook's lines are JSON):
its message starts with its place, `cell 4:2:5: `.
Suppressed findings get no line; the count is accepted for a uniform signature.
"""

from __future__ import annotations

import bisect
import json
import os
import pathlib
import posixpath
import re
from dataclasses import replace
from typing import Any, Optional, Sequence
from urllib.parse import quote_from_bytes

from codemods.engine.diagnostics import Finding, Kind, TextEdit
from codemods.engine.report import FileResult, Summary, file_diff, fix_diff, in_cell
from codemods.engine.rule import Rule

JSON_FORMAT_VERSION = 2
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_VERSION = "2.1.0"
TOOL_NAME = "jax-codemod"
SRCROOT = "%SRCROOT%"

_SARIF_LEVEL = {Kind.FIXED: "note", Kind.DROPPED: "note", Kind.MANUAL: "warning", Kind.WARNING: "warning"}
_GITHUB_COMMAND = {Kind.FIXED: "notice", Kind.DROPPED: "notice", Kind.MANUAL: "warning", Kind.WARNING: "warning"}


def _has_fix(result: FileResult) -> bool:
    return result.new_source is not None and result.error is None


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


class _Text:
    """A file's original text with 1-based line/column positions (lines end after "\n"; columns
    in characters), as JSON and SARIF give them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = [line for line in re.split("(?<=\n)", text) if line]
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))  # the last one is len(text)

    def position(self, offset: int) -> tuple[int, int]:
        """The end of a file that ends in a newline is (the line after the last, 1); the end of
        one that does not is on its last line."""
        line = max(1, bisect.bisect_right(self.starts, offset))
        if line > len(self.lines) and self.lines and not self.text.endswith("\n"):
            line = len(self.lines)
        return line, offset - self.starts[line - 1] + 1

    @classmethod
    def of(cls, result: FileResult) -> Optional["_Text"]:
        try:
            return cls(result.text()) if result.raw else None
        except (LookupError, UnicodeDecodeError):
            return None


# -- ordering and names --


def _finding_key(path: str, finding: Finding) -> tuple:
    return (path, finding.line, finding.column, finding.end_line, finding.end_column,
            finding.code, finding.kind.value, finding.message)


def _ordered(results: Sequence[FileResult]) -> list[FileResult]:
    return sorted(results, key=lambda result: result.path)


def _ordered_findings(result: FileResult) -> list[Finding]:
    return sorted(result.findings, key=lambda finding: _finding_key(result.path, finding))



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


def _json_fix(result: FileResult, finding: Finding, text: Optional[_Text]) -> Optional[dict[str, Any]]:
    fix = finding.fix
    if fix is None or text is None:
        return None

    def where(offset: int) -> dict[str, int]:
        line, column = text.position(offset)
        cell = in_cell(result, line)
        return {"line": line, "column": column} if cell is None else {"cell": cell[0], "line": cell[1], "column": column}

    patch = fix_diff(result, finding)
    return {
        "applicability": fix.applicability.value,
        "applied": fix.applied,
        "edits": [{"start": where(e.start), "end": where(e.end), "content": e.content} for e in fix.edits],
        "patch": _text(patch) if patch is not None else None,
    }


def render_json(results: Sequence[FileResult], *, rules: Sequence[Rule], suppressed: int = 0) -> str:
    """The run as one JSON document (layout in the module docstring)."""
    names = {rule.code: rule.name for rule in rules}
    findings: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    files: list[dict[str, Any]] = []
    by_kind = {kind.value: 0 for kind in Kind}
    by_rule = {rule.code: 0 for rule in rules}
    for result in _ordered(results):
        text = _Text.of(result)
        for finding in _ordered_findings(result):
            entry = {
                "rule": finding.code,
                "name": names.get(finding.code),
                "kind": finding.kind.value,
                "path": result.path,
                "start": {"line": finding.line, "column": finding.column},
                "end": {"line": finding.end_line, "column": finding.end_column} if finding.end_line else None,
                "message": finding.message,
                "fix": _json_fix(result, finding, text),
            }
            cell = in_cell(result, finding.line)
            if cell is not None:  # a notebook: lines of the cell
                end = in_cell(result, finding.end_line)
                entry["cell"] = cell[0]
                entry["start"] = {"line": cell[1], "column": finding.column}
                if entry["end"] is not None and end is not None:
                    entry["end"] = {"line": end[1], "column": finding.end_column}
            findings.append(entry)
            by_kind[finding.kind.value] = by_kind.get(finding.kind.value, 0) + 1
            by_rule[finding.code] = by_rule.get(finding.code, 0) + 1
        if result.error is not None:
            errors.append({"path": result.path, "message": result.error})
        if _has_fix(result) or result.findings:
            diff = file_diff(result) if _has_fix(result) else None
            files.append({
                "path": result.path,
                "changed": diff is not None,
                "encoding": result.encoding,
                "diff": _text(diff) if diff is not None else None,
            })
    summary = Summary()
    for result in results:
        summary.add(result)
    document = {
        "version": JSON_FORMAT_VERSION,
        "findings": findings,
        "errors": errors,
        "files": files,
        "summary": {
            "scanned": summary.scanned,
            "parsed": summary.parsed,
            "changed": summary.changed,
            "errors": len(errors),
            "findings": len(findings),
            "fixes": {"applied": summary.fixes, "unsafe_not_applied": summary.unsafe},
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


def _sarif_edit(text: str, edit: TextEdit) -> Optional[TextEdit]:
    """The edit with no position past the file's last line, or None when it cannot be said so.

    At the end of a file that ends in a newline there is no line after it: an edit reaching that
    far moves back one newline (an insertion after the last line becomes one before the final
    newline, the newline first), when that gives the same file."""
    if edit.end < len(text) or not text.endswith("\n"):
        return edit if text else None
    newline = "\r\n" if text.endswith("\r\n") else "\n"
    size = len(newline)
    if edit.end - edit.start >= size and text[edit.start:edit.end].endswith(newline) and edit.content.endswith(newline):
        return TextEdit(edit.start, edit.end - size, edit.content[:-size])
    if edit.start >= size and text[edit.start - size:edit.start] == newline and (
            not edit.content or edit.content.endswith(newline)):
        return TextEdit(edit.start - size, edit.end - size, (newline + edit.content)[:-size])
    return None


_FIX_DESCRIPTION = "The change jax-codemod makes for this finding, with any change elsewhere in the file it needs."


def _sarif_fix(result: FileResult, finding: Finding, text: Optional[_Text]) -> Optional[dict]:
    if finding.fix is None or not finding.fix.edits or text is None:
        return None
    replacements = []
    for edit in finding.fix.edits:
        said = _sarif_edit(text.text, edit)
        if said is None:
            return None
        start_line, start_column = text.position(said.start)
        end_line, end_column = text.position(said.end)
        replacement: dict[str, Any] = {"deletedRegion": {
            "startLine": start_line, "startColumn": start_column, "endLine": end_line, "endColumn": end_column}}
        if said.content:
            replacement["insertedContent"] = {"text": said.content}
        replacements.append(replacement)
    return {
        "description": {"text": _FIX_DESCRIPTION},
        "artifactChanges": [{"artifactLocation": _artifact_location(result.path), "replacements": replacements}],
    }


def render_sarif(results: Sequence[FileResult], *, rules: Sequence[Rule], tool_version: str,
                 suppressed: int = 0) -> str:
    """The run as a SARIF 2.1.0 log (mapping in the module docstring)."""
    rule_index = {rule.code: index for index, rule in enumerate(rules)}
    sarif_results: list[dict[str, Any]] = []
    notifications: list[dict[str, Any]] = []
    for result in _ordered(results):
        text = _Text.of(result)
        for finding in _ordered_findings(result):
            location: dict[str, Any] = {"artifactLocation": _artifact_location(result.path)}
            cell = in_cell(result, finding.line)
            if cell is not None:  # a notebook: lines of the cell
                end = in_cell(result, finding.end_line)
                finding = replace(finding, line=cell[1], end_line=end[1] if end is not None else 0)
            region = _region(finding)
            if region is not None:
                location["region"] = region
            logical = [] if cell is None else [{"name": f"cell {cell[0]}", "kind": "module",
                                                "fullyQualifiedName": f"{_shown_path(result.path)[0]}:cell {cell[0]}"}]
            entry: dict[str, Any] = {"ruleId": finding.code}
            if finding.code in rule_index:
                entry["ruleIndex"] = rule_index[finding.code]
            entry.update({
                "kind": "fail",
                "level": _SARIF_LEVEL[finding.kind],
                "message": {"text": finding.message},
                "locations": [{"physicalLocation": location, **({"logicalLocations": logical} if logical else {})}],
            })
            properties: dict[str, Any] = {"kind": finding.kind.value}
            if cell is not None:
                properties["cell"] = cell[0]
            if finding.fix is not None:
                properties["applicability"] = finding.fix.applicability.value
                properties["applied"] = finding.fix.applied
                patch = fix_diff(result, finding)
                if patch is not None:
                    properties["patch"] = _text(patch)
                fix = _sarif_fix(result, finding, text) if cell is None else None
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
                {"id": rule.code, "name": rule.name, "shortDescription": {"text": rule.summary}}
                for rule in rules
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
            cell = in_cell(result, finding.line)
            if cell is None:
                lines.append(_command(_GITHUB_COMMAND[finding.kind], _github_properties(result.path, finding),
                                      finding.message))
                continue
            properties = [("file", _shown_path(result.path)[0]),
                          ("title", f"{finding.code} [{finding.kind.value}] cell {cell[0]}")]
            lines.append(_command(_GITHUB_COMMAND[finding.kind], properties,
                                  f"cell {cell[0]}:{cell[1]}:{finding.column}: {finding.message}"))
    return "".join(lines)
