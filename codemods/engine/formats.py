"""Machine-readable reports: `--output-format json|sarif|github|rdjson|gitlab|junit` (`text` is
engine/report.py).

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

A finding with a fix is placed on the span its fix's main edit replaces (codemods/engine/fixes.py
`anchor`), so a format's highlight and its suggested change cover the same text. Positions follow
each format's consumers (codemods/engine/positions.py): 1-based lines and character columns, end
exclusive, as Ruff's JSON, in text, json, github, SARIF (`columnKind: unicodeCodePoints`) and
junit; UTF-8 byte columns in rdjson, as reviewdog counts; lines only in gitlab. Every format shows
a fix this run leaves out: the finding's label (`[dropped, unsafe fix: --unsafe-fixes]`, as the
text output prints it) is in its title or message.

JSON (`render_json`)
--------------------
One document, indented, ASCII only (other characters as `\\uXXXX`), newline-terminated::

    {
      "version": 3,                      # of this layout; bumped on an incompatible change
      "findings": [
        {"rule": "JAX001", "name": "per-operand-precision",   # name: null for an unknown code
         "kind": "fixed",                                     # fixed | dropped | manual | warning
         "path": "src/a.py",                                  # as the text output shows it
         "start": {"line": 8, "column": 61},                  # 1-based, columns in characters; 0: not known
                                                              # (with a fix: the span its main edit replaces)
         "end": {"line": 8, "column": 106},                   # exclusive; null when not known
         "message": "...",
         "fix": null | {                                      # see Fixes
           "applicability": "safe",                           # safe | unsafe
           "applicable": true,                                # this run's options apply it: it is in
                                                              # the diff, --write writes it (false:
                                                              # unsafe without --unsafe-fixes, declined)
           "applied": false,                                  # written to the file by this run
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
manual/warning), `message.text` (`[label] message`), one location (`region` in 1-based lines and columns,
`endColumn` exclusive, as SARIF's; `run.columnKind` is `unicodeCodePoints`), and
`properties.kind` with the finding's own kind. A finding with a fix also has
`properties.applicability`, `properties.applicable`, `properties.applied` (as in JSON), `properties.patch` (its patch, as in JSON)
and, when it can be said exactly in SARIF's terms, a `fixes` entry: one replacement per edit
(`deletedRegion` by line and column in the original file, `insertedContent.text`). Paths are relative URIs with
`uriBaseId: "%SRCROOT%"` (the folder the tool ran in; not spelled out in `originalUriBaseIds`,
so that the log does not depend on the machine) when the file is under that folder, else `file:`
URIs; both percent-encoded. Files that could not be processed are
`invocations[0].toolExecutionNotifications` (level "error", with the file's location and the line
a parse error names), and
make `executionSuccessful` false. `suppressed` is `runs[0].properties.suppressed`. In a notebook,
the region's lines are lines of the cell, which the location names as a logical location
(`{"name": "cell 4", "fullyQualifiedName": "nb.ipynb:cell 4", "kind": "module"}`) and as
`properties.cell`; such a result has no `fixes` (its replacements would be taken as edits of the
notebook's JSON), its patch is in `properties.patch`.

GitHub (`render_github`)
------------------------
One workflow command a line, as `@actions/core` writes them::

    ::warning file=src/a.py,line=12,col=5,endLine=12,endColumn=40,title=JAX001 [manual]::message
    ::notice file=src/a.py,line=13,col=38,endLine=13,endColumn=73,title=JAX002 [dropped, unsafe fix: --unsafe-fixes]::...

`warning` for manual/warning findings, `notice` for fixed/dropped, and `error` (with `file=`
and `title=jax-codemod`) for a file that could not be processed, on the line and column its
message names (a parse error's `(line 3, column 9)`: `line=3,col=9`). Values are escaped as the
toolkit does (`%`, CR, LF in the message; also `:` and `,` in properties). Columns are given
only when the finding starts and ends on one line (GitHub's annotations take them only then). A
finding in a notebook is annotated on the file, without `line` (the notebook's lines are JSON):
its message starts with its place, `cell 4:2:5: `.
Suppressed findings get no line; the count is accepted for a uniform signature.

Review tools (`render_rdjson`, `render_gitlab`, `render_junit`)
---------------------------------------------------------------
rdjson: reviewdog's DiagnosticResult, each fix's edits as `suggestions` (GitHub suggested changes
through `reviewdog -f=rdjson -reporter=github-pr-review`). gitlab: a Code Quality report (a JSON
array; `artifacts: reports: codequality:`). junit: JUnit XML, a testsuite per file and a testcase
per finding. Each function's docstring says how a finding maps; schemas and validators that check
them: tests/test_review_formats.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import posixpath
from dataclasses import replace
from typing import Any, Optional, Sequence
from urllib.parse import quote_from_bytes
from xml.etree import ElementTree

from codemods.engine.diagnostics import Finding, Kind, TextEdit
from codemods.engine.positions import UTF8, Positions
from codemods.engine.report import FileResult, Summary, file_diff, fix_diff, in_cell, render_finding
from codemods.engine.rule import Rule
from codemods.engine.source import error_position

JSON_FORMAT_VERSION = 3
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


def _positions(result: FileResult) -> Optional[Positions]:
    """The original text's positions (codemods/engine/positions.py), when it is known and decodes."""
    try:
        return Positions(result.text()) if result.raw else None
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



def shown_path(path: str) -> tuple[str, bool]:
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


def _json_fix(result: FileResult, finding: Finding, text: Optional[Positions]) -> Optional[dict[str, Any]]:
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
        "applicable": fix.applied,
        "applied": fix.applied and result.written,
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
        text = _positions(result)
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
    shown, relative = shown_path(path)
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


def _sarif_fix(result: FileResult, finding: Finding, text: Optional[Positions]) -> Optional[dict]:
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
        text = _positions(result)
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
                                                "fullyQualifiedName": f"{shown_path(result.path)[0]}:cell {cell[0]}"}]
            entry: dict[str, Any] = {"ruleId": finding.code}
            if finding.code in rule_index:
                entry["ruleIndex"] = rule_index[finding.code]
            entry.update({
                "kind": "fail",
                "level": _SARIF_LEVEL[finding.kind],
                "message": {"text": finding.labelled_message},
                "locations": [{"physicalLocation": location, **({"logicalLocations": logical} if logical else {})}],
            })
            properties: dict[str, Any] = {"kind": finding.kind.value}
            if cell is not None:
                properties["cell"] = cell[0]
            if finding.fix is not None:
                properties["applicability"] = finding.fix.applicability.value
                properties["applicable"] = finding.fix.applied
                properties["applied"] = finding.fix.applied and result.written
                patch = fix_diff(result, finding)
                if patch is not None:
                    properties["patch"] = _text(patch)
                fix = _sarif_fix(result, finding, text) if cell is None else None
                if fix is not None:
                    entry["fixes"] = [fix]
            entry["properties"] = properties
            sarif_results.append(entry)
        if result.error is not None:
            at = error_position(result.error)
            physical: dict[str, Any] = {"artifactLocation": _artifact_location(result.path)}
            if at:
                physical["region"] = {"startLine": at[0]}
            notifications.append({
                "level": "error",
                "message": {"text": f"{result.path}: {result.error}"},
                "locations": [{"physicalLocation": physical}],
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
    properties: list[tuple[str, object]] = [("file", shown_path(path)[0])]
    if finding.line >= 1:
        properties.append(("line", finding.line))
        one_line = finding.end_line in (0, finding.line)
        if one_line and finding.column >= 1:
            properties.append(("col", finding.column))
        if finding.end_line >= finding.line:
            properties.append(("endLine", finding.end_line))
            if one_line and finding.column >= 1 and finding.end_column >= 1:
                properties.append(("endColumn", finding.end_column))
    properties.append(("title", f"{finding.code} [{finding.label}]"))
    return properties


def render_github(results: Sequence[FileResult], *, suppressed: int = 0) -> str:
    """GitHub Actions annotations, one workflow command a line (format in the module docstring)."""
    del suppressed  # annotations are per finding; suppressed ones are not shown
    lines: list[str] = []
    for result in _ordered(results):
        if result.error is not None:
            at = error_position(result.error)
            place = [("line", at[0]), ("col", at[1])] if at else []
            lines.append(_command("error", [("file", shown_path(result.path)[0]), *place, ("title", TOOL_NAME)],
                                  result.error))
        for finding in _ordered_findings(result):
            cell = in_cell(result, finding.line)
            if cell is None:
                lines.append(_command(_GITHUB_COMMAND[finding.kind], _github_properties(result.path, finding),
                                      finding.message))
                continue
            properties = [("file", shown_path(result.path)[0]),
                          ("title", f"{finding.code} [{finding.label}] cell {cell[0]}")]
            lines.append(_command(_GITHUB_COMMAND[finding.kind], properties,
                                  f"cell {cell[0]}:{cell[1]}:{finding.column}: {finding.message}"))
    return "".join(lines)


# -- reviewdog (rdjson) --


_RDJSON_SEVERITY = {Kind.FIXED: "INFO", Kind.DROPPED: "INFO", Kind.MANUAL: "WARNING", Kind.WARNING: "WARNING"}


def _rdjson_range(text: Positions, start: int, end: int) -> dict[str, Any]:
    (line, column), (end_line, end_column) = (text.position(offset, unit=UTF8) for offset in (start, end))
    return {"start": {"line": line, "column": column}, "end": {"line": end_line, "column": end_column}}


def _rdjson_location(result: FileResult, finding: Finding, text: Optional[Positions]) -> dict[str, Any]:
    """Columns need the text (UTF-8 bytes, as reviewdog counts); without it the range is the lines."""
    location: dict[str, Any] = {"path": shown_path(result.path)[0]}
    if finding.line < 1:
        return location
    if text is None:
        location["range"] = {"start": {"line": finding.line}, "end": {"line": max(finding.line, finding.end_line)}}
        return location
    start = text.offset(finding.line, finding.column)
    end = text.offset(finding.end_line, finding.end_column) if finding.end_line else start
    location["range"] = _rdjson_range(text, start, max(start, end))
    return location


def render_rdjson(results: Sequence[FileResult], *, suppressed: int = 0) -> str:
    """reviewdog's Diagnostic Format (`DiagnosticResult`, https://github.com/reviewdog/reviewdog/tree/master/proto/rdf):
    one diagnostic per finding, its fix's edits as `suggestions` (GitHub "suggested changes" with
    `reviewdog -f=rdjson -reporter=github-pr-review`); a file that could not be processed is an ERROR
    (on the line a parse error names).
    A finding in a notebook names the file only (its lines are JSON) and starts `cell N:L:C: `."""
    del suppressed  # per finding, as github
    diagnostics: list[dict[str, Any]] = []
    for result in _ordered(results):
        if result.error is not None:
            at = error_position(result.error)
            location: dict[str, Any] = {"path": shown_path(result.path)[0]}
            if at:
                location["range"] = {"start": {"line": at[0]}}
            diagnostics.append({"message": result.error, "location": location, "severity": "ERROR",
                                "source": {"name": TOOL_NAME}})
        text = _positions(result)
        for finding in _ordered_findings(result):
            cell = in_cell(result, finding.line)
            entry: dict[str, Any] = {
                "message": finding.labelled_message if cell is None
                else f"cell {cell[0]}:{cell[1]}:{finding.column}: {finding.labelled_message}",
                "location": _rdjson_location(result, finding, text) if cell is None
                else {"path": shown_path(result.path)[0]},
                "severity": _RDJSON_SEVERITY[finding.kind],
                "source": {"name": TOOL_NAME},
                "code": {"value": finding.code},
            }
            if finding.fix is not None and finding.fix.edits and text is not None and cell is None:
                entry["suggestions"] = [{"range": _rdjson_range(text, edit.start, edit.end), "text": edit.content}
                                        for edit in finding.fix.edits]
            diagnostics.append(entry)
    document = {"source": {"name": TOOL_NAME}, "diagnostics": diagnostics}
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"


# -- GitLab Code Quality --


_GITLAB_SEVERITY = {Kind.FIXED: "info", Kind.DROPPED: "info", Kind.MANUAL: "major", Kind.WARNING: "minor"}


def render_gitlab(results: Sequence[FileResult], *, suppressed: int = 0) -> str:
    """A GitLab Code Quality report (https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format):
    a JSON array, one entry per finding (`critical` for a file that could not be processed). The
    fingerprint hashes the path, rule, message and how many alike came before, not the line, so a
    finding that only moves is the same finding to GitLab's merge-request comparison."""
    del suppressed
    entries: list[dict[str, Any]] = []
    seen: dict[tuple[str, str, str], int] = {}

    def entry(path: str, check: str, description: str, severity: str, line: int) -> dict[str, Any]:
        key = (path, check, description)
        seen[key] = seen.get(key, 0) + 1
        fingerprint = hashlib.sha256("\0".join([*key, str(seen[key])]).encode("utf-8", "surrogateescape")).hexdigest()
        return {"description": description, "check_name": check, "fingerprint": fingerprint, "severity": severity,
                "location": {"path": path, "lines": {"begin": line}}}

    for result in _ordered(results):
        path = shown_path(result.path)[0]
        if result.error is not None:
            entries.append(entry(path, TOOL_NAME, result.error, "critical", (error_position(result.error) or (1,))[0]))
        for finding in _ordered_findings(result):
            cell = in_cell(result, finding.line)
            description = f"{finding.code} {finding.labelled_message}" if cell is None else \
                f"cell {cell[0]}:{cell[1]}:{finding.column}: {finding.code} {finding.labelled_message}"
            entries.append(entry(path, finding.code, description, _GITLAB_SEVERITY[finding.kind],
                                 max(finding.line, 1) if cell is None else 1))
    return json.dumps(entries, indent=2, ensure_ascii=True) + "\n"


# -- JUnit XML --


def render_junit(results: Sequence[FileResult], *, suppressed: int = 0) -> str:
    """JUnit XML as CI test-report viewers read it (Ruff's layout): a testsuite per file with a
    finding or an error, a testcase per finding with a `failure` (its message `[label] message`, its
    text the finding as the text output prints it), an `error` testcase for a file that could not be
    processed; a run with neither is one passing testcase, so that the report is never empty."""
    del suppressed
    root = ElementTree.Element("testsuites", name=TOOL_NAME)
    for result in _ordered(results):
        if result.error is None and not result.findings:
            continue
        path = shown_path(result.path)[0]
        suite = ElementTree.SubElement(root, "testsuite", name=path)
        if result.error is not None:
            case = ElementTree.SubElement(suite, "testcase", name=TOOL_NAME, classname=path, file=path)
            ElementTree.SubElement(case, "error", message=result.error, type="error").text = result.error
        for finding in _ordered_findings(result):
            cell = in_cell(result, finding.line)
            where = f"{finding.line}:{finding.column}" if cell is None else f"cell {cell[0]}:{cell[1]}:{finding.column}"
            case = ElementTree.SubElement(suite, "testcase", name=f"{finding.code} at {where}", classname=path, file=path)
            if cell is None and finding.line >= 1:
                case.set("line", str(finding.line))
            ElementTree.SubElement(case, "failure", message=finding.labelled_message, type=finding.code).text = \
                render_finding(result, finding)
        _count(suite)
    if not len(root):
        suite = ElementTree.SubElement(root, "testsuite", name=TOOL_NAME)
        ElementTree.SubElement(suite, "testcase", name="no findings", classname=TOOL_NAME)
        _count(suite)
    for attribute in ("tests", "failures", "errors"):
        root.set(attribute, str(sum(int(suite.get(attribute, "0")) for suite in root)))
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"


def _count(suite: ElementTree.Element) -> None:
    cases = list(suite)
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(case.find("failure") is not None for case in cases)))
    suite.set("errors", str(sum(case.find("error") is not None for case in cases)))
    suite.set("skipped", "0")


# -- choosing one --


FORMATS = ("json", "sarif", "github", "rdjson", "gitlab", "junit")


def render(name: str, results: Sequence[FileResult], *, rules: Sequence[Rule], tool_version: str,
           suppressed: int = 0) -> str:
    """The run in the machine format `name` (one of FORMATS), as `--output-format` prints it."""
    if name == "json":
        return render_json(results, rules=rules, suppressed=suppressed)
    if name == "sarif":
        return render_sarif(results, rules=rules, tool_version=tool_version, suppressed=suppressed)
    plain = {"github": render_github, "rdjson": render_rdjson, "gitlab": render_gitlab, "junit": render_junit}
    return plain[name](results, suppressed=suppressed)
