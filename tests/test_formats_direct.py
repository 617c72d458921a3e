"""codemods/engine/formats.py called directly, in the test's process: each machine format of a
notebook's finding (lines of the cell, the cell named), of a plain file's, of a finding without
positions and of a file that could not be processed, whole; and the helpers (paths shown, SARIF
regions and edits at the end of a file, GitHub properties and escaping, rdjson ranges, GitLab
fingerprints, JUnit counts). tests/test_formats.py and tests/test_review_formats.py check the
formats against their schemas and consumers.

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks exact values.
Nothing here imports jax.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from codemods.engine import formats as F
from codemods.engine.diagnostics import Applicability, Finding, Fix, Kind, TextEdit
from codemods.engine.report import FileResult
from codemods.engine.runner import process_source
from codemods.registry import RULES
from codemods.settings import Settings

SETTINGS = Settings(jax_version=(0, 12, 0, 1))
JAX101 = [rule for rule in RULES if rule.code == "JAX101"]
MESSAGE = "jax.tree_map -> jax.tree.map: removed in jax 0.6.0 (raises AttributeError on jax 0.12.0.1)"
NOTEBOOK = {
    "cells": [{"cell_type": "markdown", "metadata": {}, "source": "# t"},
              {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": "import jax\n"},
              {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [],
               "source": "x = 1\ny = jax.tree_map(str, [1])\n"}],
    "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
PATCH = ("--- a/nb.ipynb:cell 3\n+++ b/nb.ipynb:cell 3\n@@ -1,2 +1,2 @@\n x = 1\n-y = jax.tree_map(str, [1])\n"
         "+y = jax.tree.map(str, [1])\n")


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def notebook() -> FileResult:
    return process_source(Path("nb.ipynb"), json.dumps(NOTEBOOK, indent=1).encode(), RULES, SETTINGS)


def plain() -> FileResult:
    return process_source(Path("a.py"), b"import jax\ny = jax.tree_map(str, [1])\n", RULES, SETTINGS)


def broken() -> FileResult:
    return FileResult("b.py", error="cannot parse: invalid syntax (line 1, column 1)")


def finding(**changes) -> Finding:
    values = dict(code="JAX042", kind=Kind.MANUAL, line=3, column=5, message="look, here", end_line=3, end_column=9)
    values.update(changes)
    return Finding(**values)


def test_the_constants():
    assert F.JSON_FORMAT_VERSION == 3
    assert F.SARIF_SCHEMA == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    assert (F.SARIF_VERSION, F.TOOL_NAME, F.SRCROOT) == ("2.1.0", "jax-codemod", "%SRCROOT%")
    assert F.FORMATS == ("json", "sarif", "github", "rdjson", "gitlab", "junit")


# small helpers


def test_has_fix_and_text():
    assert F._has_fix(FileResult("a", new_source=b"x"))
    assert not F._has_fix(FileResult("a", new_source=b"x", error="e"))
    assert not F._has_fix(FileResult("a"))
    assert F._text(b"caf\xc3\xa9 \xe9") == "café \udce9"


def test_positions():
    assert F._positions(FileResult("a")) is None
    assert F._positions(FileResult("a", raw=b"\xff", encoding="utf-8")) is None
    assert F._positions(FileResult("a", raw=b"x", encoding="no-such-codec")) is None
    assert F._positions(FileResult("a", raw=b"ab\ncd")).position(4) == (2, 2)


def test_ordering():
    results = [FileResult("b"), FileResult("a"), FileResult("c")]
    assert [r.path for r in F._ordered(results)] == ["a", "b", "c"]
    fs = [finding(line=2, message="b"), finding(line=2, message="a"), finding(line=1), finding(line=2, column=1),
          finding(line=2, code="JAX001", message="b"), finding(line=2, kind=Kind.FIXED, message="b"),
          finding(line=2, end_line=2, message="b"), finding(line=2, end_column=1, message="b")]
    ordered = F._ordered_findings(FileResult("p", findings=fs))
    assert ordered == sorted(fs, key=lambda f: ("p", f.line, f.column, f.end_line, f.end_column, f.code,
                                                f.kind.value, f.message))
    assert ordered[0] == fs[2] and ordered[1] == fs[3]
    assert F._finding_key("p", fs[0]) == ("p", 2, 5, 3, 9, "JAX042", "manual", "b")


def test_shown_path(tmp_path: Path):
    assert F.shown_path("src/a.py") == ("src/a.py", True)
    assert F.shown_path("./src//a.py") == ("src/a.py", True)
    assert F.shown_path(str(tmp_path / "src" / "a.py")) == ("src/a.py", True)
    assert F.shown_path(str(tmp_path)) == (".", True)
    assert F.shown_path("../x.py") == (str(tmp_path.parent / "x.py"), False)
    assert F.shown_path("..") == (str(tmp_path.parent), False)
    assert F.shown_path("src/../../x.py") == (str(tmp_path.parent / "x.py"), False)
    assert F.shown_path("..x.py") == ("..x.py", True)
    outside = str(tmp_path.parent / "other" / "y.py")
    assert F.shown_path(outside) == (outside, False)
    assert F.shown_path(str(tmp_path) + "x/y.py") == (str(tmp_path) + "x/y.py", False)


def test_artifact_location(tmp_path: Path):
    assert F._artifact_location("src/my kernels/kw #1.py") == {"uri": "src/my%20kernels/kw%20%231.py",
                                                              "uriBaseId": "%SRCROOT%"}
    assert F._artifact_location("caf\u00e9.py") == {"uri": "caf%C3%A9.py", "uriBaseId": "%SRCROOT%"}
    outside = tmp_path.parent / "o t" / "y.py"
    assert F._artifact_location(str(outside)) == {"uri": outside.as_uri()}
    assert "%20" in outside.as_uri()


@pytest.mark.parametrize(("changes", "region"), [
    (dict(line=0, column=0, end_line=0, end_column=0), None),
    (dict(line=3, column=0, end_line=0, end_column=0), {"startLine": 3}),
    (dict(line=3, column=5, end_line=0, end_column=0), {"startLine": 3, "startColumn": 5}),
    (dict(line=3, column=5, end_line=4, end_column=2), {"startLine": 3, "startColumn": 5, "endLine": 4, "endColumn": 2}),
    (dict(line=3, column=5, end_line=3, end_column=0), {"startLine": 3, "startColumn": 5, "endLine": 3}),
    (dict(line=3, column=0, end_line=3, end_column=7), {"startLine": 3, "endLine": 3}),
    (dict(line=3, column=5, end_line=2, end_column=7), {"startLine": 3, "startColumn": 5}),
    (dict(line=1, column=1, end_line=1, end_column=1), {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 1}),
])
def test_region(changes: dict, region):
    assert F._region(finding(**changes)) == region


@pytest.mark.parametrize(("text", "edit", "said"), [
    ("a = 1\nb = 2\n", TextEdit(0, 5, "x"), TextEdit(0, 5, "x")),  # not at the end: as it is
    ("a = 1\nb = 2", TextEdit(6, 11, "c"), TextEdit(6, 11, "c")),  # no final newline: as it is
    ("", TextEdit(0, 0, "x\n"), None),  # an empty file: nothing to point at
    ("a = 1\nb = 2\n", TextEdit(6, 12, "c = 3\n"), TextEdit(6, 11, "c = 3")),  # the last line replaced
    ("a = 1\r\nb = 2\r\n", TextEdit(7, 14, "c = 3\r\n"), TextEdit(7, 12, "c = 3")),
    ("a = 1\nb = 2\n", TextEdit(12, 12, "c = 3\n"), TextEdit(11, 11, "\nc = 3")),  # an insertion after the end
    ("a = 1\nb = 2\n", TextEdit(6, 12, ""), TextEdit(5, 11, "")),  # the last line deleted
    ("a = 1\r\nb = 2\r\n", TextEdit(14, 14, "c\r\n"), TextEdit(12, 12, "\r\nc")),
    ("a = 1\nb = 2\n", TextEdit(6, 12, "c = 3"), None),  # the final newline removed: cannot say it
    ("\n", TextEdit(0, 1, "x"), None),
    ("\n", TextEdit(1, 1, "x\n"), TextEdit(0, 0, "\nx")),
    ("a\n", TextEdit(0, 2, "b\n"), TextEdit(0, 1, "b")),
])
def test_sarif_edit(text: str, edit: TextEdit, said):
    assert F._sarif_edit(text, edit) == said


# JSON


def test_json_of_a_notebook():
    document = json.loads(F.render_json([notebook()], rules=JAX101))
    assert document == {
        "version": 3,
        "findings": [{
            "rule": "JAX101", "name": "jax-tree-map", "kind": "fixed", "path": "nb.ipynb",
            "start": {"line": 2, "column": 5}, "end": {"line": 2, "column": 17}, "message": MESSAGE,
            "fix": {"applicability": "safe", "applicable": True, "applied": False,
                    "edits": [{"start": {"cell": 3, "line": 2, "column": 5}, "end": {"cell": 3, "line": 2, "column": 17},
                               "content": "jax.tree.map"}],
                    "patch": PATCH},
            "cell": 3}],
        "errors": [],
        "files": [{"path": "nb.ipynb", "changed": True, "encoding": "utf-8", "diff": PATCH}],
        "summary": {"scanned": 1, "parsed": 1, "changed": 1, "errors": 0, "findings": 1,
                    "fixes": {"applied": 1, "unsafe_not_applied": 0}, "suppressed": 0,
                    "by_kind": {"fixed": 1, "dropped": 0, "manual": 0, "warning": 0}, "by_rule": {"JAX101": 1}}}


def test_json_of_a_plain_file_written_an_error_and_an_unknown_rule():
    result = plain()
    result.written = True
    other = FileResult("c.py", parsed=True, findings=[finding(line=0, column=0, end_line=0, end_column=0),
                                                       finding(code="JAX101", end_line=0)], suppressed=2)
    text = F.render_json([other, broken(), result], rules=JAX101, suppressed=5)
    assert text.endswith("}\n") and text.isascii() and text.startswith('{\n  "version": 3,\n  "findings": [\n')
    document = json.loads(text)
    assert [(f["path"], f["rule"], f["name"]) for f in document["findings"]] == [
        ("a.py", "JAX101", "jax-tree-map"), ("c.py", "JAX042", None), ("c.py", "JAX101", "jax-tree-map")]
    first = document["findings"][0]
    assert first["start"] == {"line": 2, "column": 5} and first["end"] == {"line": 2, "column": 17}
    assert first["fix"]["applied"] is True and first["fix"]["edits"] == [
        {"start": {"line": 2, "column": 5}, "end": {"line": 2, "column": 17}, "content": "jax.tree.map"}]
    assert first["fix"]["patch"] == ("--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n import jax\n-y = jax.tree_map(str, [1])\n"
                                     "+y = jax.tree.map(str, [1])\n")
    assert "cell" not in first
    assert document["findings"][1]["start"] == {"line": 0, "column": 0} and document["findings"][1]["end"] is None
    assert document["findings"][1]["fix"] is None
    assert document["findings"][2]["end"] is None
    assert document["errors"] == [{"path": "b.py", "message": "cannot parse: invalid syntax (line 1, column 1)"}]
    assert document["files"] == [
        {"path": "a.py", "changed": True, "encoding": "utf-8", "diff": first["fix"]["patch"]},
        {"path": "c.py", "changed": False, "encoding": "utf-8", "diff": None}]
    assert document["summary"] == {
        "scanned": 3, "parsed": 2, "changed": 1, "errors": 1, "findings": 3,
        "fixes": {"applied": 1, "unsafe_not_applied": 0}, "suppressed": 5,
        "by_kind": {"fixed": 1, "dropped": 0, "manual": 2, "warning": 0}, "by_rule": {"JAX101": 2, "JAX042": 1}}


def test_json_fix_without_text_or_unsafe():
    unsafe = finding(kind=Kind.DROPPED, fix=Fix(Applicability.UNSAFE, (TextEdit(0, 1, "y"),), applied=False))
    result = FileResult("u.py", parsed=True, raw=b"x = 1\n", findings=[unsafe])
    fix = json.loads(F.render_json([result], rules=[]))["findings"][0]["fix"]
    assert fix["applicability"] == "unsafe" and fix["applicable"] is False and fix["applied"] is False
    assert fix["edits"] == [{"start": {"line": 1, "column": 1}, "end": {"line": 1, "column": 2}, "content": "y"}]
    assert fix["patch"] == "--- a/u.py\n+++ b/u.py\n@@ -1 +1 @@\n-x = 1\n+y = 1\n"
    no_text = FileResult("u.py", parsed=True, findings=[unsafe])
    assert json.loads(F.render_json([no_text], rules=[]))["findings"][0]["fix"] is None


def test_json_of_nothing():
    assert json.loads(F.render_json([], rules=JAX101)) == {
        "version": 3, "findings": [], "errors": [], "files": [],
        "summary": {"scanned": 0, "parsed": 0, "changed": 0, "errors": 0, "findings": 0,
                    "fixes": {"applied": 0, "unsafe_not_applied": 0}, "suppressed": 0,
                    "by_kind": {"fixed": 0, "dropped": 0, "manual": 0, "warning": 0}, "by_rule": {"JAX101": 0}}}


def test_json_is_ascii_and_indented():
    result = FileResult("é.py", parsed=True, findings=[finding(message="ü")])
    text = F.render_json([result], rules=[])
    assert '"path": "\\u00e9.py"' in text and '"message": "\\u00fc"' in text
    assert '\n      "rule": "JAX042",\n' in text


# SARIF


def test_sarif_of_a_notebook():
    log = json.loads(F.render_sarif([notebook()], rules=JAX101, tool_version="9"))
    assert log["$schema"] == F.SARIF_SCHEMA and log["version"] == "2.1.0"
    (run,) = log["runs"]
    assert run["tool"] == {"driver": {"name": "jax-codemod", "version": "9", "rules": [
        {"id": "JAX101", "name": "jax-tree-map", "shortDescription": {"text": JAX101[0].summary}}]}}
    assert run["invocations"] == [{"executionSuccessful": True}]
    assert run["columnKind"] == "unicodeCodePoints" and run["properties"] == {"suppressed": 0}
    assert run["results"] == [{
        "ruleId": "JAX101", "ruleIndex": 0, "kind": "fail", "level": "note",
        "message": {"text": f"[fixed] {MESSAGE}"},
        "locations": [{
            "physicalLocation": {"artifactLocation": {"uri": "nb.ipynb", "uriBaseId": "%SRCROOT%"},
                                 "region": {"startLine": 2, "startColumn": 5, "endLine": 2, "endColumn": 17}},
            "logicalLocations": [{"name": "cell 3", "kind": "module", "fullyQualifiedName": "nb.ipynb:cell 3"}]}],
        "properties": {"kind": "fixed", "cell": 3, "applicability": "safe", "applicable": True, "applied": False,
                       "patch": PATCH}}]


def test_sarif_of_a_plain_file_an_error_and_an_unknown_rule():
    result = plain()
    result.written = True
    other = FileResult("c.py", parsed=True, findings=[finding(line=0, column=0, end_line=0, end_column=0),
                                                       finding(kind=Kind.WARNING)])
    log = json.loads(F.render_sarif([other, broken(), result], rules=RULES, tool_version="1.0", suppressed=4))
    (run,) = log["runs"]
    assert run["properties"] == {"suppressed": 4}
    assert run["invocations"] == [{"executionSuccessful": False, "toolExecutionNotifications": [{
        "level": "error", "message": {"text": "b.py: cannot parse: invalid syntax (line 1, column 1)"},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": "b.py", "uriBaseId": "%SRCROOT%"},
                                            "region": {"startLine": 1}}}]}]}]
    first, unknown, warning = run["results"]
    assert first["ruleIndex"] == [rule.code for rule in RULES].index("JAX101")
    assert first["locations"] == [{"physicalLocation": {
        "artifactLocation": {"uri": "a.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 2, "startColumn": 5, "endLine": 2, "endColumn": 17}}}]
    assert first["properties"]["applied"] is True and "cell" not in first["properties"]
    assert first["fixes"] == [{
        "description": {"text": "The change jax-codemod makes for this finding, with any change elsewhere in the file it "
                                "needs."},
        "artifactChanges": [{"artifactLocation": {"uri": "a.py", "uriBaseId": "%SRCROOT%"}, "replacements": [
            {"deletedRegion": {"startLine": 2, "startColumn": 5, "endLine": 2, "endColumn": 17},
             "insertedContent": {"text": "jax.tree.map"}}]}]}]
    assert unknown == {"ruleId": "JAX042", "kind": "fail", "level": "warning", "message": {"text": "[manual] look, here"},
                       "locations": [{"physicalLocation": {"artifactLocation": {"uri": "c.py", "uriBaseId": "%SRCROOT%"}}}],
                       "properties": {"kind": "manual"}}
    assert warning["level"] == "warning" and warning["properties"] == {"kind": "warning"}
    assert list(unknown) == ["ruleId", "kind", "level", "message", "locations", "properties"]


def test_sarif_a_deletion_has_no_inserted_content():
    deleting = finding(kind=Kind.FIXED, line=1, column=1, end_line=1, end_column=3,
                       fix=Fix(Applicability.SAFE, (TextEdit(0, 2, ""),), applied=True))
    result = FileResult("d.py", parsed=True, raw=b"x = 1\ny = 2\n", findings=[deleting])
    (entry,) = json.loads(F.render_sarif([result], rules=[], tool_version="1"))["runs"][0]["results"]
    assert entry["fixes"][0]["artifactChanges"][0]["replacements"] == [
        {"deletedRegion": {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 3}}]
    assert "ruleIndex" not in entry


def test_sarif_fix_left_out_when_it_cannot_be_said():
    result = FileResult("d.py", parsed=True, raw=b"x = 1\n", findings=[
        finding(fix=Fix(Applicability.SAFE, (TextEdit(0, 2, "y"), TextEdit(2, 6, "= 2")), applied=True))])
    assert F._sarif_fix(result, result.findings[0], F._positions(result)) is None
    assert F._sarif_fix(result, finding(), F._positions(result)) is None
    assert F._sarif_fix(result, finding(fix=Fix(Applicability.SAFE, (), applied=True)), F._positions(result)) is None
    good = finding(fix=Fix(Applicability.SAFE, (TextEdit(0, 1, "y"),), applied=True))
    assert F._sarif_fix(result, good, None) is None
    assert F._sarif_fix(result, good, F._positions(result)) is not None


# GitHub


def test_escaping():
    assert F.escape_data("a%b\rc\nd:e,f") == "a%25b%0Dc%0Ad:e,f"
    assert F.escape_property("a%b\rc\nd:e,f") == "a%25b%0Dc%0Ad%3Ae%2Cf"
    assert F._command("notice", [], "m") == "::notice::m\n"
    assert F._command("error", [("file", "a,b.py"), ("line", 3)], "x\ny") == "::error file=a%2Cb.py,line=3::x%0Ay\n"


@pytest.mark.parametrize(("changes", "expected"), [
    (dict(line=3, column=5, end_line=3, end_column=9), "line=3,col=5,endLine=3,endColumn=9"),
    (dict(line=3, column=5, end_line=0, end_column=0), "line=3,col=5"),
    (dict(line=3, column=5, end_line=4, end_column=2), "line=3,endLine=4"),
    (dict(line=3, column=0, end_line=3, end_column=9), "line=3,endLine=3"),
    (dict(line=3, column=5, end_line=3, end_column=0), "line=3,col=5,endLine=3"),
    (dict(line=3, column=5, end_line=2, end_column=9), "line=3"),
    (dict(line=0, column=5, end_line=0, end_column=9), ""),
    (dict(line=1, column=1, end_line=1, end_column=1), "line=1,col=1,endLine=1,endColumn=1"),
])
def test_github_properties(changes: dict, expected: str):
    properties = F._github_properties("src/a.py", finding(**changes))
    assert properties[0] == ("file", "src/a.py") and properties[-1] == ("title", "JAX042 [manual]")
    assert ",".join(f"{k}={v}" for k, v in properties[1:-1]) == expected


def test_github_of_every_kind():
    result = plain()
    other = FileResult("c.py", parsed=True, findings=[
        finding(kind=Kind.WARNING, message="w: 100%"), finding(kind=Kind.DROPPED, line=1, end_line=1,
                                                             fix=Fix(Applicability.UNSAFE, (), applied=False))])
    assert F.render_github([other, notebook(), broken(), result], suppressed=3) == (
        f"::notice file=a.py,line=2,col=5,endLine=2,endColumn=17,title=JAX101 [fixed]::{MESSAGE}\n"
        "::error file=b.py,line=1,col=1,title=jax-codemod::cannot parse: invalid syntax (line 1, column 1)\n"
        "::notice file=c.py,line=1,col=5,endLine=1,endColumn=9,title=JAX042 [dropped%2C unsafe fix%3A --unsafe-fixes]::"
        "look, here\n"
        "::warning file=c.py,line=3,col=5,endLine=3,endColumn=9,title=JAX042 [warning]::w: 100%25\n"
        f"::notice file=nb.ipynb,title=JAX101 [fixed] cell 3::cell 3:2:5: {MESSAGE}\n")
    assert F.render_github([]) == ""


# rdjson


def test_rdjson_of_every_case():
    other = FileResult("c.py", parsed=True, findings=[finding(line=0, column=0, end_line=0),
                                                       finding(kind=Kind.WARNING, line=2, end_line=1)])
    unicode = FileResult("u.py", parsed=True, raw="é = 1\nx = 'ü'\n".encode(), findings=[
        finding(kind=Kind.DROPPED, line=2, column=6, end_line=2, end_column=7,
                fix=Fix(Applicability.SAFE, (TextEdit(11, 12, "u"),), applied=False)),
        finding(line=1, column=1, end_line=0, end_column=0)])
    document = json.loads(F.render_rdjson([unicode, other, notebook(), broken(), plain()], suppressed=2))
    assert document["source"] == {"name": "jax-codemod"}
    d = document["diagnostics"]
    assert [x.get("code", {}).get("value") for x in d] == ["JAX101", None, "JAX042", "JAX042", "JAX101", "JAX042",
                                                          "JAX042"]
    assert d[0]["location"]["range"] == {"start": {"line": 2, "column": 5}, "end": {"line": 2, "column": 17}}
    assert d[0]["suggestions"] == [{"range": {"start": {"line": 2, "column": 5}, "end": {"line": 2, "column": 17}},
                                    "text": "jax.tree.map"}]
    assert d[1] == {"message": "cannot parse: invalid syntax (line 1, column 1)",
                    "location": {"path": "b.py", "range": {"start": {"line": 1}}}, "severity": "ERROR",
                    "source": {"name": "jax-codemod"}}
    assert d[2] == {"message": "[manual] look, here", "location": {"path": "c.py"}, "severity": "WARNING",
                    "source": {"name": "jax-codemod"}, "code": {"value": "JAX042"}}
    assert d[3]["location"] == {"path": "c.py", "range": {"start": {"line": 2}, "end": {"line": 2}}}
    assert d[3]["severity"] == "WARNING"
    assert d[4] == {"message": f"cell 3:2:5: [fixed] {MESSAGE}", "location": {"path": "nb.ipynb"},
                    "severity": "INFO", "source": {"name": "jax-codemod"}, "code": {"value": "JAX101"}}
    # UTF-8 byte columns: `é` is two bytes
    assert d[5]["location"]["range"] == {"start": {"line": 1, "column": 1}, "end": {"line": 1, "column": 1}}
    assert d[6]["message"] == "[dropped, not applied] look, here" and d[6]["severity"] == "INFO"
    assert d[6]["location"]["range"] == {"start": {"line": 2, "column": 6}, "end": {"line": 2, "column": 8}}
    assert d[6]["suggestions"] == [{"range": {"start": {"line": 2, "column": 6}, "end": {"line": 2, "column": 8}},
                                    "text": "u"}]


def test_rdjson_byte_columns_and_an_end_before_the_start():
    result = FileResult("u.py", parsed=True, raw="é = 1\n".encode(), findings=[
        finding(line=1, column=3, end_line=1, end_column=4), finding(line=1, column=3, end_line=1, end_column=1)])
    text = F._positions(result)
    assert F._rdjson_location(result, result.findings[0], text)["range"] == {
        "start": {"line": 1, "column": 4}, "end": {"line": 1, "column": 5}}
    assert F._rdjson_location(result, result.findings[1], text)["range"] == {
        "start": {"line": 1, "column": 4}, "end": {"line": 1, "column": 4}}
    assert F._rdjson_location(result, finding(line=3, end_line=5), None) == {
        "path": "u.py", "range": {"start": {"line": 3}, "end": {"line": 5}}}


# GitLab


def test_gitlab_fingerprints_and_entries():
    twice = FileResult("c.py", parsed=True, findings=[finding(line=7), finding(line=3, kind=Kind.WARNING),
                                                       finding(line=0, column=0, end_line=0)])
    entries = json.loads(F.render_gitlab([twice, notebook(), broken()], suppressed=1))

    def fingerprint(*parts: str) -> str:
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()

    assert entries == [
        {"description": "cannot parse: invalid syntax (line 1, column 1)", "check_name": "jax-codemod",
         "fingerprint": fingerprint("b.py", "jax-codemod", "cannot parse: invalid syntax (line 1, column 1)", "1"),
         "severity": "critical", "location": {"path": "b.py", "lines": {"begin": 1}}},
        {"description": "JAX042 [manual] look, here", "check_name": "JAX042",
         "fingerprint": fingerprint("c.py", "JAX042", "JAX042 [manual] look, here", "1"),
         "severity": "major", "location": {"path": "c.py", "lines": {"begin": 1}}},
        {"description": "JAX042 [warning] look, here", "check_name": "JAX042",
         "fingerprint": fingerprint("c.py", "JAX042", "JAX042 [warning] look, here", "1"),
         "severity": "minor", "location": {"path": "c.py", "lines": {"begin": 3}}},
        {"description": "JAX042 [manual] look, here", "check_name": "JAX042",
         "fingerprint": fingerprint("c.py", "JAX042", "JAX042 [manual] look, here", "2"),
         "severity": "major", "location": {"path": "c.py", "lines": {"begin": 7}}},
        {"description": f"cell 3:2:5: JAX101 [fixed] {MESSAGE}", "check_name": "JAX101",
         "fingerprint": fingerprint("nb.ipynb", "JAX101", f"cell 3:2:5: JAX101 [fixed] {MESSAGE}", "1"),
         "severity": "info", "location": {"path": "nb.ipynb", "lines": {"begin": 1}}},
    ]
    assert F.render_gitlab([]) == "[]\n"


def test_gitlab_a_finding_that_moves_keeps_its_fingerprint():
    one = json.loads(F.render_gitlab([FileResult("c.py", findings=[finding(line=3)])]))
    two = json.loads(F.render_gitlab([FileResult("c.py", findings=[finding(line=30)])]))
    assert one[0]["fingerprint"] == two[0]["fingerprint"]


def test_gitlab_a_path_with_a_lone_surrogate():
    entries = json.loads(F.render_gitlab([FileResult("caf\udce9.py", findings=[finding()])]))
    assert entries[0]["fingerprint"] == hashlib.sha256(
        "\0".join(["caf\udce9.py", "JAX042", "JAX042 [manual] look, here", "1"]).encode("utf-8", "surrogateescape")
    ).hexdigest()


# JUnit


def test_junit_whole():
    other = FileResult("c.py", parsed=True, findings=[finding(line=0, column=0, end_line=0), finding()])
    clean = FileResult("d.py", parsed=True)
    assert F.render_junit([other, clean, notebook(), broken()], suppressed=3) == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="jax-codemod" tests="4" failures="3" errors="1">\n'
        '  <testsuite name="b.py" tests="1" failures="0" errors="1" skipped="0">\n'
        '    <testcase name="jax-codemod" classname="b.py" file="b.py">\n'
        '      <error message="cannot parse: invalid syntax (line 1, column 1)" type="error">cannot parse: invalid '
        'syntax (line 1, column 1)</error>\n'
        '    </testcase>\n'
        '  </testsuite>\n'
        '  <testsuite name="c.py" tests="2" failures="2" errors="0" skipped="0">\n'
        '    <testcase name="JAX042 at 0:0" classname="c.py" file="c.py">\n'
        '      <failure message="[manual] look, here" type="JAX042">c.py:0:0: JAX042 [manual] look, here</failure>\n'
        '    </testcase>\n'
        '    <testcase name="JAX042 at 3:5" classname="c.py" file="c.py" line="3">\n'
        '      <failure message="[manual] look, here" type="JAX042">c.py:3:5: JAX042 [manual] look, here</failure>\n'
        '    </testcase>\n'
        '  </testsuite>\n'
        '  <testsuite name="nb.ipynb" tests="1" failures="1" errors="0" skipped="0">\n'
        '    <testcase name="JAX101 at cell 3:2:5" classname="nb.ipynb" file="nb.ipynb">\n'
        f'      <failure message="[fixed] {MESSAGE.replace(">", "&gt;")}" type="JAX101">nb.ipynb:cell 3:2:5: JAX101 '
        f'[fixed] {MESSAGE.replace(">", "&gt;")}</failure>\n'
        '    </testcase>\n'
        '  </testsuite>\n'
        '</testsuites>\n')


def test_junit_of_a_run_without_findings():
    assert F.render_junit([FileResult("d.py", parsed=True)]) == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="jax-codemod" tests="1" failures="0" errors="0">\n'
        '  <testsuite name="jax-codemod" tests="1" failures="0" errors="0" skipped="0">\n'
        '    <testcase name="no findings" classname="jax-codemod" />\n'
        '  </testsuite>\n'
        '</testsuites>\n')


def test_junit_an_error_and_a_finding_in_one_file():
    result = FileResult("e.py", error="boom", findings=[finding(line=1)])
    text = F.render_junit([result])
    assert '<testsuites name="jax-codemod" tests="2" failures="1" errors="1">' in text
    assert '<testsuite name="e.py" tests="2" failures="1" errors="1" skipped="0">' in text


# render


@pytest.mark.parametrize("name", F.FORMATS)
def test_render_dispatches(name: str):
    results = [plain(), broken()]
    direct = {
        "json": lambda: F.render_json(results, rules=RULES, suppressed=2),
        "sarif": lambda: F.render_sarif(results, rules=RULES, tool_version="7.7", suppressed=2),
        "github": lambda: F.render_github(results, suppressed=2),
        "rdjson": lambda: F.render_rdjson(results, suppressed=2),
        "gitlab": lambda: F.render_gitlab(results, suppressed=2),
        "junit": lambda: F.render_junit(results, suppressed=2),
    }[name]()
    assert F.render(name, results, rules=RULES, tool_version="7.7", suppressed=2) == direct
    if name in ("json", "sarif"):
        assert '"suppressed": 2' in direct


def test_render_unknown_format():
    with pytest.raises(KeyError):
        F.render("xml", [], rules=RULES, tool_version="1")


def test_absolute_paths_outside_the_current_folder(tmp_path: Path):
    outside = str(tmp_path.parent / "elsewhere.py")
    result = FileResult(outside, parsed=True, findings=[finding()])
    assert F.render_github([result]).startswith(f"::warning file={F.escape_property(outside)},line=3")
    assert json.loads(F.render_rdjson([result]))["diagnostics"][0]["location"]["path"] == outside
    assert json.loads(F.render_gitlab([result]))[0]["location"]["path"] == outside
    assert f'<testsuite name="{outside}"' in F.render_junit([result])
    assert os.path.isabs(outside)


@pytest.mark.parametrize("render", [F.render_rdjson, F.render_gitlab,
                                    lambda results: F.render_json(results, rules=[]),
                                    lambda results: F.render_sarif(results, rules=[], tool_version="1")])
def test_the_json_formats_are_indented_ascii_and_end_in_a_newline(render):
    text = render([FileResult("é.py", parsed=True, findings=[finding(message="ü")])])
    assert text.isascii() and "\\u00fc" in text and text.endswith("\n") and not text.endswith("\n\n")
    lines = text.splitlines()
    assert lines[1].startswith("  ") and not lines[1].startswith("   ")
