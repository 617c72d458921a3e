"""codemods/engine/report.py called directly, in the test's process: the summary line (each count,
each optional part), the diffs (`git apply`'s bytes: names, line ends, the no-newline marker, a
notebook's cells), and the finding lines (a notebook's in cell terms).

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks exact values.
Nothing here imports jax.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from codemods.engine import notebook
from codemods.engine.diagnostics import Applicability, Finding, Fix, Kind, TextEdit
from codemods.engine.report import (FileResult, Summary, plural, _diff_name, _lines, cell_diff, file_diff, fix_diff, in_cell,
                                    render_finding, render_findings, unified_diff)

SAFE, UNSAFE = Applicability.SAFE, Applicability.UNSAFE


def _notebook(*cells: tuple[str, str]) -> bytes:
    return json.dumps({"cells": [
        {"cell_type": kind, "metadata": {}, "source": source,
         **({"execution_count": None, "outputs": []} if kind == "code" else {})} for kind, source in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1).encode()


# A markdown cell, then cell 2 (module lines 1-2, offsets 0-17), cell 3 (line 3, 17-23), cell 4 (lines 4-5, 23-35).
NOTEBOOK = _notebook(("markdown", "# t"), ("code", "import jax\nx = 1\n"), ("code", "y = 2"), ("code", "z = 3\nw = 4\n"))
CELLS = notebook.read(Path("nb.ipynb"), NOTEBOOK).cells
MODULE = "import jax\nx = 1\ny = 2\nz = 3\nw = 4\n"


def _fix(applied: bool, applicability: Applicability = SAFE, *edits: TextEdit) -> Fix:
    return Fix(applicability, edits=edits, applied=applied)


def _f(kind: Kind, fix: Fix | None = None, held_back: bool = False, line: int = 1) -> Finding:
    return Finding("JAX001", kind, line, 1, "m", fix=fix, held_back=held_back)


# -- FileResult --


def test_a_files_text_is_its_raw_bytes_decoded_with_its_codec() -> None:
    assert FileResult("a.py", raw=b"s = '\xe9'\n", encoding="latin-1").text() == "s = 'é'\n"
    assert FileResult("a.py", raw=b"\xef\xbb\xbfx\n", encoding="utf-8-sig").text() == "x\n"
    assert FileResult("a.py", raw=b"s = '\xc3\xa9'\n").text() == "s = 'é'\n"


def test_a_notebooks_text_is_the_module_of_its_code_cells() -> None:
    assert FileResult("nb.ipynb", raw=NOTEBOOK, cells=CELLS).text() == MODULE


def test_a_results_defaults() -> None:
    result = FileResult("a.py")
    assert (result.parsed, result.new_source, result.raw, result.after, result.encoding, result.findings,
            result.error, result.suppressed, result.written, result.skipped, result.cells) == (
        False, None, b"", "", "utf-8", [], None, 0, False, None, None)


# -- Summary --


def test_an_empty_summary() -> None:
    assert Summary().render(written=False) == (
        "0 files scanned, 0 parsed, 0 would change, 0 fixes, 0 need manual review, 0 errors")
    assert Summary().render(written=True) == (
        "0 files scanned, 0 parsed, 0 changed, 0 fixes, 0 need manual review, 0 errors")


def test_one_of_each_is_said_in_the_singular() -> None:
    one = Summary(scanned=1, parsed=1, changed=1, errors=1, fixes=1, unsafe=1, declined=1, manual=1)
    assert one.render(written=False) == (
        "1 file scanned, 1 parsed, 1 would change, 1 fix, 1 needs manual review, 1 error, "
        "1 unsafe fix not applied (--unsafe-fixes applies them), 1 fix declined")
    assert [plural(count, noun) for count, noun in ((0, "file"), (1, "file"), (2, "fix"), (1, "patch"), (3, "patch"))] \
        == ["0 files", "1 file", "2 fixes", "1 patch", "3 patches"]


def test_the_summary_counts_each_thing_once() -> None:
    summary = Summary()
    summary.add(FileResult("changed.py", parsed=True, new_source=b"x", suppressed=2, findings=[
        _f(Kind.FIXED, _fix(True)), _f(Kind.FIXED, _fix(True)), _f(Kind.DROPPED, _fix(True, UNSAFE)),
        _f(Kind.FIXED, _fix(False, UNSAFE)), _f(Kind.FIXED, _fix(False)),
        _f(Kind.MANUAL), _f(Kind.WARNING), _f(Kind.MANUAL, held_back=True), _f(Kind.WARNING, held_back=True)]))
    summary.add(FileResult("error.py", parsed=True, new_source=b"x", error="internal error"))
    summary.add(FileResult("broken.py", parsed=False, error="cannot parse"))
    summary.add(FileResult("fifo", skipped="not a regular file"))
    summary.add(FileResult("clean.py", parsed=True, suppressed=1, findings=[
        _f(Kind.FIXED, _fix(False, UNSAFE)), _f(Kind.FIXED, _fix(False, UNSAFE))]))
    assert summary == Summary(scanned=5, parsed=3, changed=1, errors=2, fixes=3, unsafe=3, declined=1, manual=4,
                              suppressed=3, skipped=1)
    assert summary.render(written=True) == (
        "5 files scanned, 3 parsed, 1 changed, 3 fixes, 4 need manual review, 2 errors, "
        "3 unsafe fixes not applied (--unsafe-fixes applies them), 1 fix declined, 3 suppressed, 1 skipped")


def test_a_summary_adds_up_over_files() -> None:
    summary = Summary()
    for _ in range(3):
        summary.add(FileResult("a.py", parsed=True, new_source=b"x", suppressed=1, skipped=None,
                               findings=[_f(Kind.FIXED, _fix(True)), _f(Kind.MANUAL, held_back=True),
                                         _f(Kind.FIXED, _fix(False)), _f(Kind.FIXED, _fix(False, UNSAFE))]))
    assert summary == Summary(scanned=3, parsed=3, changed=3, errors=0, fixes=3, unsafe=3, declined=3, manual=3,
                              suppressed=3, skipped=0)


@pytest.mark.parametrize(("counts", "tail"), [
    (dict(unsafe=2), ", 2 unsafe fixes not applied (--unsafe-fixes applies them)"),
    (dict(declined=4), ", 4 fixes declined"),
    (dict(suppressed=1), ", 1 suppressed"),
    (dict(skipped=7), ", 7 skipped"),
    (dict(skipped=1, suppressed=2, declined=3, unsafe=4), ", 4 unsafe fixes not applied (--unsafe-fixes applies them),"
     " 3 fixes declined, 2 suppressed, 1 skipped"),
])
def test_each_optional_part_of_the_summary(counts: dict, tail: str) -> None:
    summary = Summary(scanned=9, parsed=8, changed=7, errors=6, fixes=5, manual=3, **counts)
    assert summary.render(written=False) == (
        "9 files scanned, 8 parsed, 7 would change, 5 fixes, 3 need manual review, 6 errors" + tail)


# -- diffs --


def test_lines_as_git_counts_them() -> None:
    assert _lines(b"a\r\nb\rc\n\nd") == [b"a\r\n", b"b\rc\n", b"\n", b"d"]
    assert _lines(b"") == []
    assert _lines(b"\n\n") == [b"\n", b"\n"]
    assert _lines(b"x") == [b"x"]


def test_diff_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert _diff_name("k.py") == b"k.py"
    assert _diff_name("pkg/k.py") == b"pkg/k.py"
    assert _diff_name("./pkg/k.py") == b"./pkg/k.py"
    assert _diff_name("../k.py") == b"../k.py"  # relative: left as given
    assert _diff_name(str(tmp_path / "sub" / "pkg" / "k.py")) == b"pkg/k.py"  # absolute under the current folder
    assert _diff_name(str(tmp_path / "subway" / "k.py")) == str(tmp_path / "subway" / "k.py").lstrip("/").encode()
    assert _diff_name(str(tmp_path / "k.py")) == str(tmp_path / "k.py").lstrip("/").encode()  # outside: from the root
    assert _diff_name("/k.py") == b"k.py"
    assert _diff_name("//k.py") == b"k.py"
    assert _diff_name("nb.ipynb:cell 2") == b"nb.ipynb:cell 2"
    assert _diff_name("X/XX.py") == b"X/XX.py"  # only slashes are taken off the front
    assert _diff_name("caf\udce9.py") == b"caf\xe9.py"  # a name that is not UTF-8 keeps its bytes


def test_unified_diff_byte_for_byte() -> None:
    assert unified_diff("k.py", b"a = 1\nb = 2\n", b"a = 1\nb = 3\n") == (
        b"--- a/k.py\n+++ b/k.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n")


def test_unified_diff_keeps_crlf_and_a_bom() -> None:
    assert unified_diff("k.py", b"\xef\xbb\xbfa\r\nb\r\n", b"\xef\xbb\xbfa\r\nc\r\n") == (
        b"--- a/k.py\n+++ b/k.py\n@@ -1,2 +1,2 @@\n \xef\xbb\xbfa\r\n-b\r\n+c\r\n")


def test_unified_diff_marks_a_last_line_without_a_newline() -> None:
    assert unified_diff("k.py", b"a\nb", b"a\nc") == (
        b"--- a/k.py\n+++ b/k.py\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n"
        b"+c\n\\ No newline at end of file\n")
    assert unified_diff("k.py", b"a\nb", b"a\nb\n") == (
        b"--- a/k.py\n+++ b/k.py\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n")


def test_unified_diff_of_equal_bytes_is_empty() -> None:
    assert unified_diff("k.py", b"a\n", b"a\n") == b""


def test_cell_diff_heads_each_changed_cell_in_order() -> None:
    assert cell_diff("nb.ipynb", CELLS, {4: "z = 3\nw = 5\n", 2: "import jax\nx = 2\n"}) == (
        b"--- a/nb.ipynb:cell 2\n+++ b/nb.ipynb:cell 2\n@@ -1,2 +1,2 @@\n import jax\n-x = 1\n+x = 2\n"
        b"--- a/nb.ipynb:cell 4\n+++ b/nb.ipynb:cell 4\n@@ -1,2 +1,2 @@\n z = 3\n-w = 4\n+w = 5\n")
    assert cell_diff("nb.ipynb", CELLS, {3: "y = 3"}) == (
        b"--- a/nb.ipynb:cell 3\n+++ b/nb.ipynb:cell 3\n@@ -1 +1 @@\n-y = 2\n\\ No newline at end of file\n"
        b"+y = 3\n\\ No newline at end of file\n")
    assert cell_diff("nb.ipynb", CELLS, {}) == b""


def test_file_diff_of_a_file_and_of_a_notebook() -> None:
    result = FileResult("k.py", raw=b"a = 1\n", new_source=b"a = 2\n")
    assert file_diff(result) == b"--- a/k.py\n+++ b/k.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
    fixed = MODULE.replace("y = 2", "y = 9")
    result = FileResult("nb.ipynb", raw=NOTEBOOK, new_source=b"{}", after=fixed, cells=CELLS)
    assert file_diff(result) == (
        b"--- a/nb.ipynb:cell 3\n+++ b/nb.ipynb:cell 3\n@@ -1 +1 @@\n-y = 2\n\\ No newline at end of file\n"
        b"+y = 9\n\\ No newline at end of file\n")


def test_file_diff_of_an_unchanged_file_is_refused() -> None:
    with pytest.raises(AssertionError):
        file_diff(FileResult("k.py", raw=b"a\n"))


def test_fix_diff_of_one_fix_alone_in_the_files_codec() -> None:
    raw = "# coding: latin-1\ns = 'é'\nt = 1\n".encode("latin-1")
    fix = _fix(False, SAFE, TextEdit(30, 31, "2"), TextEdit(18, 19, "S"))
    result = FileResult("k.py", raw=raw, encoding="latin-1")
    assert fix_diff(result, _f(Kind.FIXED, fix)) == (
        b"--- a/k.py\n+++ b/k.py\n@@ -1,3 +1,3 @@\n # coding: latin-1\n-s = '\xe9'\n-t = 1\n+S = '\xe9'\n+t = 2\n")


def test_fix_diff_is_none_without_a_fix_edits_or_text() -> None:
    edit = TextEdit(0, 1, "y")
    assert fix_diff(FileResult("k.py", raw=b"x\n"), _f(Kind.MANUAL)) is None
    assert fix_diff(FileResult("k.py", raw=b"x\n"), _f(Kind.FIXED, _fix(False))) is None
    assert fix_diff(FileResult("k.py", raw=b""), _f(Kind.FIXED, _fix(False, SAFE, edit))) is None
    assert fix_diff(FileResult("k.py", raw=b"x\n"), _f(Kind.FIXED, _fix(False, SAFE, edit))) == (
        b"--- a/k.py\n+++ b/k.py\n@@ -1 +1 @@\n-x\n+y\n")


def test_fix_diff_in_a_notebook_is_its_cells_diff() -> None:
    result = FileResult("nb.ipynb", raw=NOTEBOOK, cells=CELLS)
    fix = _fix(False, SAFE, TextEdit(27, 28, "9"), TextEdit(15, 16, "7"))
    assert fix_diff(result, _f(Kind.FIXED, fix)) == (
        b"--- a/nb.ipynb:cell 2\n+++ b/nb.ipynb:cell 2\n@@ -1,2 +1,2 @@\n import jax\n-x = 1\n+x = 7\n"
        b"--- a/nb.ipynb:cell 4\n+++ b/nb.ipynb:cell 4\n@@ -1,2 +1,2 @@\n-z = 3\n+z = 9\n w = 4\n")
    assert fix_diff(result, _f(Kind.FIXED, _fix(False, SAFE, TextEdit(15, 16, "1")))) is None  # changes nothing


# -- findings --


def test_render_findings_of_files() -> None:
    results = [FileResult("a.py", findings=[Finding("JAX001", Kind.MANUAL, 2, 3, "one"),
                                            Finding("JAX002", Kind.WARNING, 1, 1, "two")]),
               FileResult("b.py"),
               FileResult("pkg/c.py", findings=[Finding("JAX003", Kind.FIXED, 9, 4, "three", fix=_fix(True))])]
    assert render_findings(results) == (
        "a.py:2:3: JAX001 [manual] one\na.py:1:1: JAX002 [warning] two\npkg/c.py:9:4: JAX003 [fixed] three\n")
    assert render_findings([]) == ""


def test_in_cell() -> None:
    result = FileResult("nb.ipynb", cells=CELLS)
    assert [in_cell(result, line) for line in range(0, 6)] == [None, (2, 1), (2, 2), (3, 1), (4, 1), (4, 2)]
    assert in_cell(FileResult("a.py"), 3) is None


def test_render_finding_in_a_notebook_in_cell_terms() -> None:
    result = FileResult("nb.ipynb", cells=CELLS)
    assert render_finding(result, Finding("JAX002", Kind.WARNING, 5, 3, "look", 5, 6)) == (
        "nb.ipynb:cell 4:2:3: JAX002 [warning] look")
    assert render_finding(result, Finding("JAX002", Kind.MANUAL, 1, 1, "top", 3, 1)) == (
        "nb.ipynb:cell 2:1:1: JAX002 [manual] top")
    assert render_finding(result, Finding("JAX002", Kind.MANUAL, 3, 2, "no end")) == (
        "nb.ipynb:cell 3:1:2: JAX002 [manual] no end")
    assert render_finding(result, Finding("JAX002", Kind.MANUAL, 0, 0, "nowhere")) == (
        "nb.ipynb:0:0: JAX002 [manual] nowhere")
    assert render_finding(FileResult("a.py"), Finding("JAX002", Kind.MANUAL, 5, 3, "plain")) == (
        "a.py:5:3: JAX002 [manual] plain")
