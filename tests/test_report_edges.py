"""Edges of explain, the report formats, fixes, the runner and the jax version lookup that no
other in-process test reaches: notebook frames placed (or not) by `explain`, a log it cannot use,
notebook findings in json/sarif/github, paths outside the current folder, a FIFO or a missing file
handed to the runner, a notebook the runner cannot read, parse failures of each kind, a read-only
file, libcst refusing a file. No jax: the rules are stubs that report what each test gives them.
"""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest

from codemods import capabilities
from codemods import explain as tracebacks
from codemods.engine import call_rewrites, fixes, formats, runner
from codemods.engine.diagnostics import Applicability, Finding, Fix, Kind, TextEdit
from codemods.engine.fixes import Edit, FixPlan
from codemods.engine.report import FileResult, fix_diff, unified_diff
from codemods.engine.rule import Rule
from codemods.settings import Scope, Settings

KERNEL = "import jax\n\n\ndef kernel(x):\n    return jax.lax.exp(x)\n"
MESSAGE = "Not implemented: accuracy"


def stub_rule(findings=lambda file: [], *, words=(b"",), kernel_scoped=False) -> Rule:
    """JAX002 as a rule that matches every call and reports `findings(file)`."""
    return Rule(code="JAX002", name="stub-rule", summary="", what="", why="", example="", words=words,
                kernel_scoped=kernel_scoped, check=lambda rule, file: findings(file),
                matches=lambda rule, file, call: True)


def with_fix(line: int, column: int, start: int, end: int, text: str,
             applicability: Applicability = Applicability.SAFE) -> Finding:
    """A finding whose fix replaces [start, end) of the original text with `text`."""
    plan = FixPlan([Edit(start, end, lambda old: text)])
    return Finding("JAX002", Kind.FIXED, line, column, "stub fix", fix=Fix(applicability, plan=plan))


def log_of(*frames: str) -> str:
    """A traceback whose frames are `frames` (each `File ...` line with its code line), ending in JAX002's error."""
    return "Traceback (most recent call last):\n" + "".join(frames) + f"NotImplementedError: {MESSAGE}\n"


def frame(path: "Path | str", line: int, code: str = "return jax.lax.exp(x)", function: str = "kernel") -> str:
    return f'  File "{path}", line {line}, in {function}\n    {code}\n'


def explain(log: str, root: Path, rules=None, *, notebook_=None) -> tuple[tracebacks.Outcome, str, bytes]:
    """`explain --write` in this process: its outcome, what it said on stderr, the diffs on stdout."""
    out, err = io.BytesIO(), io.StringIO()
    status = tracebacks.run(log, root, rules or {"JAX002": stub_rule()}, Settings(), write=True, out=out, err=err,
                            notebook=notebook_)
    return status, err.getvalue(), out.getvalue()


def notebook_bytes(*cells: tuple[str, object, str]) -> bytes:
    """An nbformat 4 notebook of (cell_type, execution_count, source) cells."""
    return json.dumps({"cells": [
        {"cell_type": kind, "metadata": {}, "source": source,
         **({"execution_count": count, "outputs": []} if kind == "code" else {})} for kind, count, source in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1).encode()


# A markdown cell, then In [7] (the kernel, module lines 1-5), then In [9] (module line 6).
NOTEBOOK = notebook_bytes(("markdown", None, "# title"), ("code", 7, KERNEL), ("code", 9, "y = kernel(1)\n"))


# -- explain --


def test_a_log_with_no_error_the_rules_fix_is_said_and_unresolved(tmp_path: Path) -> None:
    status, err, out = explain("Traceback (most recent call last):\nValueError: something else\n", tmp_path)
    assert (status, out) == (tracebacks.Outcome.UNRESOLVED, b"")
    assert err == ("explain: no error jax-codemod fixes in this log (it knows: per-operand or unsupported precision, "
                   "\"Not implemented: accuracy\", bf16 LSTM, 8- and 16-bit integer vector ops on Mosaic TPU, "
                   "math Mosaic TPU cannot lower (\"Unimplemented primitive "
                   "in Pallas TPU lowering for tc: expm1\" ...), and a removed or deprecated jax name in an AttributeError, "
                   "ImportError, ModuleNotFoundError or DeprecationWarning, a removed keyword argument in a "
                   "TypeError)\n")


@pytest.mark.parametrize("frames, why", [
    ([frame("<ipython-input-7-abc>", 5)],
     "it comes from notebook cells (In [7], line 5): pass --notebook NB.ipynb, the notebook they ran in, to place and "
     "fix it"),
    ([frame("/tmp/ipykernel_1234/567.py", 3)],  # ipykernel's file of a cell: no execution count known
     "it comes from notebook cells (/tmp/ipykernel_1234/567.py:3): pass --notebook NB.ipynb, the notebook they ran "
     "in, to place and fix it"),
    ([frame("/nowhere/kernel.py", 5), frame("<ipython-input-7-abc>", 5)],
     "it comes from notebook cells (In [7], line 5): pass --notebook NB.ipynb, the notebook they ran in, to place and "
     "fix it; /nowhere/kernel.py:5 (kernel): the file is not here"),
])
def test_cells_frames_without_the_notebook_ask_for_it(frames: list[str], why: str, tmp_path: Path) -> None:
    status, err, out = explain(log_of(*frames), tmp_path)
    assert (status, out) == (tracebacks.Outcome.UNRESOLVED, b"")
    assert err == f"explain: cannot place `{MESSAGE}`: {why}\n"


@pytest.mark.parametrize("source, code, why", [
    ("def (:\n", "return jax.lax.exp(x)", "{path}:5: cannot read it (invalid syntax (<unknown>, line 1))"),
    (KERNEL, "return jax.lax.exp(y)",
     "{path}:5: changed since the traceback (it showed `return jax.lax.exp(y)`, the file now has `return jax.lax.exp(x)`)"),
])
def test_a_frame_whose_file_cannot_be_used_is_named_not_guessed(source: str, code: str, why: str,
                                                                 tmp_path: Path) -> None:
    path = tmp_path / "kernel.py"
    path.write_text(source)
    status, err, out = explain(log_of(frame(path, 5, code)), tmp_path)
    assert (status, out) == (tracebacks.Outcome.UNRESOLVED, b"")
    assert err == f"explain: cannot place `{MESSAGE}`: {why.format(path=path)}\n"
    assert path.read_text() == source


def test_a_cells_frame_the_notebook_cannot_place_is_named(tmp_path: Path) -> None:
    (tmp_path / "nb.ipynb").write_bytes(NOTEBOOK)
    book = tracebacks.Notebook.load(tmp_path / "nb.ipynb")
    status, err, out = explain(log_of(frame("<ipython-input-8-abc>", 5)), tmp_path, notebook_=book)
    assert (status, out) == (tracebacks.Outcome.UNRESOLVED, b"")
    assert err == (f"explain: cannot place `{MESSAGE}`: In [8]: no code cell of {tmp_path / 'nb.ipynb'} has execution "
                   "count 8 (is the notebook saved as it ran?)\n")


def test_a_cells_frame_is_placed_in_the_notebook_and_fixed_there(tmp_path: Path) -> None:
    """`Notebook.load` reads the file; the fix is written into the cell's source, nothing else."""
    path = tmp_path / "nb.ipynb"
    path.write_bytes(NOTEBOOK)
    start = KERNEL.index("jax.lax.exp(x)")
    rule = stub_rule(lambda file: [with_fix(5, 12, start, start + len("jax.lax.exp(x)"), "jax.lax.exp(x) * 1")])
    status, err, out = explain(log_of(frame("<ipython-input-7-abc>", 5)), tmp_path, {"JAX002": rule},
                               notebook_=tracebacks.Notebook.load(path))
    assert (status, out) == (tracebacks.Outcome.FIXED, b"")
    assert err.splitlines()[0] == f"{path}:cell 2:5: JAX002: the traceback's `{MESSAGE}` comes from this call"
    assert path.read_bytes() == NOTEBOOK.replace(b"jax.lax.exp(x)", b"jax.lax.exp(x) * 1")


@pytest.mark.parametrize("frame_, files, line", [
    (tracebacks.Frame("<ipython-input-7-abc>", 5, "kernel", None), {}, 5),  # the count from the file's name
    (tracebacks.Frame("<ipython-input-9-abc>", 1, "<module>", None), {}, 6),
    (tracebacks.Frame("/tmp/ipykernel_1/2.py", 1, "f", None), {"/tmp/ipykernel_1/2.py": 9}, 6),
    # ipykernel's file named by a hash: the one cell whose line holds the quoted code (In [9] has one line)
    (tracebacks.Frame("/tmp/ipykernel_1/2.py", 4, "kernel", "def kernel(x):"), {}, 4),
    (tracebacks.Frame("/tmp/ipykernel_1/2.py", 1, "kernel", "y = kernel(1)"), {}, 6),
    (tracebacks.Frame("/tmp/ipykernel_1/2.py", 2, "kernel", "y = kernel(1)"), {},
     "/tmp/ipykernel_1/2.py:2: cannot tell which cell of {nb} ran as this file"),
    (tracebacks.Frame("/tmp/ipykernel_1/2.py", 1, "kernel", None), {},
     "/tmp/ipykernel_1/2.py:1: cannot tell which cell of {nb} ran as this file"),
    (tracebacks.Frame("x", 6, "kernel", None, cell=7), {},
     "In [7], line 6: cell 2 of {nb} has fewer lines (changed since the traceback)"),
    (tracebacks.Frame("x", 2, "kernel", None, cell=9), {},
     "In [9], line 2: cell 3 of {nb} has fewer lines (changed since the traceback)"),
    (tracebacks.Frame("x", 1, "kernel", None, cell=3), {},
     "In [3]: no code cell of {nb} has execution count 3 (is the notebook saved as it ran?)"),
])
def test_the_notebook_line_of_a_cells_frame(frame_: tracebacks.Frame, files: dict, line, tmp_path: Path) -> None:
    book = tracebacks.Notebook(tmp_path / "nb.ipynb", NOTEBOOK, files)
    expected = line.format(nb=tmp_path / "nb.ipynb") if isinstance(line, str) else line
    assert book.line_of(frame_) == expected


def test_two_cells_holding_the_quoted_line_are_not_guessed_between(tmp_path: Path) -> None:
    raw = notebook_bytes(("code", 1, "x = 1\n"), ("code", 2, "x = 1\n"))
    book = tracebacks.Notebook(tmp_path / "nb.ipynb", raw)
    assert book.line_of(tracebacks.Frame("/tmp/ipykernel_1/2.py", 1, "f", "x = 1")) == (
        f"/tmp/ipykernel_1/2.py:1: cannot tell which cell of {tmp_path / 'nb.ipynb'} ran as this file")


def test_an_unsafe_fix_of_a_placed_call_is_shown_as_its_own_diff_and_pending(tmp_path: Path) -> None:
    path = tmp_path / "kernel.py"
    path.write_text(KERNEL)
    start = KERNEL.index("jax.lax.exp(x)")
    rule = stub_rule(lambda file: [with_fix(5, 12, start, start + len("jax.lax.exp(x)"), "jax.lax.exp(x) * 1",
                                            Applicability.UNSAFE)])
    status, err, out = explain(log_of(frame(path, 5)), tmp_path, {"JAX002": rule})
    assert status is tracebacks.Outcome.PENDING
    assert out == unified_diff(str(path), KERNEL.encode(), KERNEL.replace("exp(x)", "exp(x) * 1").encode())
    assert path.read_text() == KERNEL


# -- report and formats --


EXP = KERNEL.index("jax.lax.exp(x)")


def notebook_result() -> FileResult:
    """The pipeline's result for NOTEBOOK: a fixed call in In [7] (cell 2, line 5), a [manual] note
    on In [9] (cell 3, line 1), and a warning there with no known end."""
    def findings(file):
        fixed = with_fix(5, 12, EXP, EXP + len("jax.lax.exp(x)"), "jax.lax.exp(x) * 1")
        return [Finding(fixed.code, fixed.kind, 5, 12, "fixed here", end_line=5, end_column=26, fix=fixed.fix),
                Finding("JAX002", Kind.MANUAL, 6, 1, "look here", end_line=6, end_column=14),
                Finding("JAX002", Kind.WARNING, 6, 5, "careful")]
    result = runner.process_source(Path("nb.ipynb"), NOTEBOOK, [stub_rule(findings)], Settings())
    assert result.error is None and result.cells is not None
    return result


CELL_PATCH = ("--- a/nb.ipynb:cell 2\n+++ b/nb.ipynb:cell 2\n@@ -2,4 +2,4 @@\n \n \n def kernel(x):\n"
              "-    return jax.lax.exp(x)\n+    return jax.lax.exp(x) * 1\n")


def test_a_fix_in_a_notebook_is_the_diff_of_its_cell() -> None:
    result = notebook_result()
    assert fix_diff(result, result.findings[0]) == CELL_PATCH.encode()
    assert fix_diff(result, result.findings[1]) is None  # no fix


def test_fix_diff_of_a_finding_without_a_fix_or_a_file_without_its_text_is_none() -> None:
    fix = Fix(Applicability.SAFE, edits=(TextEdit(0, 1, "y"),))
    assert fix_diff(FileResult("k.py", raw=b"x\n"), Finding("JAX002", Kind.MANUAL, 1, 1, "m")) is None
    assert fix_diff(FileResult("k.py", raw=b""), Finding("JAX002", Kind.FIXED, 1, 1, "m", fix=fix)) is None
    assert fix_diff(FileResult("k.py", raw=b"x\n"), Finding("JAX002", Kind.FIXED, 1, 1, "m", fix=fix)) == (
        b"--- a/k.py\n+++ b/k.py\n@@ -1 +1 @@\n-x\n+y\n")


def test_json_gives_a_notebook_finding_its_cell_and_lines_of_the_cell() -> None:
    document = json.loads(formats.render_json([notebook_result()], rules=[stub_rule()]))
    # the fix inserts " * 1": its edit is widened to the finding's span, which it then replaces
    start, end = {"cell": 2, "line": 5, "column": 12}, {"cell": 2, "line": 5, "column": 26}
    assert document["findings"] == [
        {"rule": "JAX002", "name": "stub-rule", "kind": "fixed", "path": "nb.ipynb", "start": {"line": 5, "column": 12},
         "end": {"line": 5, "column": 26}, "message": "fixed here", "cell": 2,
         "fix": {"applicability": "safe", "applicable": True, "applied": False,
                 "edits": [{"start": start, "end": end, "content": "jax.lax.exp(x) * 1"}], "patch": CELL_PATCH}},
        {"rule": "JAX002", "name": "stub-rule", "kind": "manual", "path": "nb.ipynb", "start": {"line": 1, "column": 1},
         "end": {"line": 1, "column": 14}, "message": "look here", "fix": None, "cell": 3},
        {"rule": "JAX002", "name": "stub-rule", "kind": "warning", "path": "nb.ipynb", "start": {"line": 1, "column": 5},
         "end": None, "message": "careful", "fix": None, "cell": 3},
    ]


def test_sarif_names_a_notebook_findings_cell_and_gives_it_no_fixes() -> None:
    log = json.loads(formats.render_sarif([notebook_result()], rules=[stub_rule()], tool_version="1"))
    fixed, manual, warning = log["runs"][0]["results"]
    assert fixed["locations"] == [{
        "physicalLocation": {"artifactLocation": {"uri": "nb.ipynb", "uriBaseId": "%SRCROOT%"},
                             "region": {"startLine": 5, "startColumn": 12, "endLine": 5, "endColumn": 26}},
        "logicalLocations": [{"name": "cell 2", "kind": "module", "fullyQualifiedName": "nb.ipynb:cell 2"}]}]
    assert fixed["properties"] == {"kind": "fixed", "cell": 2, "applicability": "safe", "applicable": True,
                                   "applied": False, "patch": CELL_PATCH}
    assert "fixes" not in fixed
    assert manual["locations"][0]["physicalLocation"]["region"] == {"startLine": 1, "startColumn": 1, "endLine": 1,
                                                                    "endColumn": 14}
    assert manual["properties"] == {"kind": "manual", "cell": 3}
    assert warning["locations"][0]["physicalLocation"]["region"] == {"startLine": 1, "startColumn": 5}


def test_github_annotates_a_notebook_finding_on_the_file_with_its_place_in_the_message() -> None:
    assert formats.render_github([notebook_result()]) == (
        "::notice file=nb.ipynb,title=JAX002 [fixed] cell 2::cell 2:5:12: fixed here\n"
        "::warning file=nb.ipynb,title=JAX002 [manual] cell 3::cell 3:1:1: look here\n"
        "::warning file=nb.ipynb,title=JAX002 [warning] cell 3::cell 3:1:5: careful\n")


def test_sarif_a_finding_with_no_line_has_no_region_and_a_fix_with_no_edits_no_fixes() -> None:
    finding = Finding("JAX002", Kind.FIXED, 0, 0, "somewhere", fix=Fix(Applicability.UNSAFE))
    log = json.loads(formats.render_sarif([FileResult("k.py", parsed=True, raw=b"x = 1\n", findings=[finding])],
                                          rules=[stub_rule()], tool_version="1"))
    (entry,) = log["runs"][0]["results"]
    assert entry["locations"] == [{"physicalLocation": {"artifactLocation": {"uri": "k.py", "uriBaseId": "%SRCROOT%"}}}]
    assert entry["properties"] == {"kind": "fixed", "applicability": "unsafe", "applicable": False, "applied": False}
    assert "fixes" not in entry


def test_json_gives_no_fix_for_a_file_whose_text_cannot_be_decoded() -> None:
    """Not reachable from the pipeline (a file's encoding is the one it was read with): the guard holds."""
    fix = Fix(Applicability.SAFE, edits=(TextEdit(0, 1, "y"),))
    result = FileResult("k.py", parsed=True, raw=b"\xff\n", findings=[Finding("JAX002", Kind.FIXED, 1, 1, "m", fix=fix)])
    document = json.loads(formats.render_json([result], rules=[stub_rule()]))
    assert [finding["fix"] for finding in document["findings"]] == [None]
    assert formats._positions(FileResult("k.py", raw=b"x", encoding="no-such-codec")) is None


@pytest.mark.parametrize("text, edit, said", [
    # a replacement that ends with the final newline: both lose it (no position past the last line)
    ("a\nb\n", TextEdit(2, 4, "c\n"), TextEdit(2, 3, "c")),
    ("a\r\nb\r\n", TextEdit(3, 6, "c\r\n"), TextEdit(3, 4, "c")),
    ("a\nb\n", TextEdit(4, 4, "c\n"), TextEdit(3, 3, "\nc")),  # an insertion after the last line
    ("a\nb\n", TextEdit(2, 4, "c"), None),  # the final newline removed: not said in SARIF's terms
    ("a\nb", TextEdit(2, 3, "c"), TextEdit(2, 3, "c")),
    ("", TextEdit(0, 0, "c"), None),
])
def test_sarif_edit_at_the_end_of_a_file(text: str, edit: TextEdit, said) -> None:
    """Edits the engine makes never end with the newline they replace (text_edits trims it); a
    hand-made one still comes out right."""
    assert formats._sarif_edit(text, edit) == said


@pytest.mark.parametrize("path, shown", [
    ("../k.py", "{parent}/k.py"),  # relative, but outside the current folder: absolute
    ("sub/../k.py", "k.py"),
])
def test_github_shows_a_path_outside_the_current_folder_absolute(path: str, shown: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    result = FileResult(path, parsed=True, findings=[Finding("JAX002", Kind.MANUAL, 2, 0, "m")])
    assert formats.render_github([result]) == (
        f"::warning file={shown.format(parent=tmp_path)},line=2,title=JAX002 [manual]::m\n")


def test_an_absolute_path_on_another_drive_is_shown_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows: commonpath refuses paths on two drives (ValueError); here it is made to."""
    monkeypatch.chdir(tmp_path)

    def two_drives(paths):
        raise ValueError("Paths don't have the same drive")

    monkeypatch.setattr(formats.os.path, "commonpath", two_drives)
    assert formats.shown_path(str(tmp_path / "k.py")) == (str(tmp_path / "k.py"), False)


# -- fixes --


@pytest.mark.parametrize("second, result", [
    (Edit(2, 5, lambda old: "<" + old + ">"), "edits at 0-3 and 2-5 overlap"),
    (Edit(3, 5, lambda old: "<" + old + ">"), "ABC<de>f"),  # touching, not overlapping
])
def test_edits_that_partly_overlap_are_refused(second: Edit, result: str) -> None:
    edits = [Edit(0, 3, str.upper), second]
    if result.startswith("edits at"):
        with pytest.raises(fixes.OverlappingEdits, match=f"^{result}$"):
            fixes.apply_edits("abcdef", edits)
    else:
        assert fixes.apply_edits("abcdef", edits) == result


@pytest.mark.parametrize("plan, outcome", [
    (FixPlan(imports_to_add=[("functools", None, None)]), "raises"),  # the fix needs it: never dropped
    (FixPlan(maybe_unused_imports={("os", None, None): "os"}), "import os, sys\n"),  # an unused import stays
])
def test_a_module_libcst_cannot_read(plan: FixPlan, outcome: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import libcst
    import libcst.codemod.visitors  # noqa: F401  imported before the patch: its modules bind parse_module
    # by name when first imported, and would keep the stand-in for every later test (libcst's runner)

    refusal = pytest.raises(libcst.ParserSyntaxError, libcst.parse_module, "def (:\n").value

    def cannot_read(code: str):
        raise refusal

    monkeypatch.setattr(libcst, "parse_module", cannot_read)
    if outcome == "raises":
        with pytest.raises(libcst.ParserSyntaxError):
            fixes.finish_imports("import os, sys\n", plan, "k.py")
    else:
        assert fixes.finish_imports("import os, sys\n", plan, "k.py") == outcome


@pytest.mark.parametrize("code, left, rest", [
    ("x = 1; import os\n", "x = 1; import os\n", [("os", None, None)]),  # not alone on its line: for libcst
    ("import os\nx = 1\n", "x = 1\n", []),
    ("import os  # why\nx = 1\n", "x = 1\n", []),
    ("import os; x = 1\n", "import os; x = 1\n", [("os", None, None)]),
])
def test_an_unused_import_is_removed_as_a_line_only_when_alone_on_it(code: str, left: str, rest: list) -> None:
    assert fixes._remove_whole_import_lines(code, [("os", None, None)]) == (left, rest)


def test_names_used_by_a_module_that_does_not_parse_are_none() -> None:
    assert fixes._names_used("def (:\n") == set()
    assert fixes._names_used("x = y\n") == {"x", "y"}


@pytest.mark.parametrize("maybe_unused", [{}, {("os", None, None): "os"}])
def test_a_fix_that_breaks_the_syntax_is_said_to_by_the_verify_stage(maybe_unused: dict) -> None:
    """With an import the fix may leave unused, the import clean-up crashed on the broken text
    first ("internal error applying the fix: SyntaxError"); now both say what is wrong."""
    plan = FixPlan([Edit(0, 1, lambda old: "def (")], maybe_unused_imports=maybe_unused)
    finding = Finding("JAX002", Kind.FIXED, 1, 1, "m", fix=Fix(Applicability.SAFE, plan=plan))
    result = runner.process_source(Path("k.py"), b"x = 1\nimport os\n", [stub_rule(lambda file: [finding])], Settings())
    assert result.error == "internal error: the rewritten file does not parse (invalid syntax (k.py, line 1)); left unchanged"
    assert (result.new_source, result.findings) == (None, [])


def test_call_rewrites_refuse_what_is_not_a_call() -> None:
    with pytest.raises(ValueError, match=r"^expected a call, got: 'x \+ 1'$"):
        call_rewrites.drop_argument(0)("x + 1")
    assert call_rewrites.drop_argument(0)("f(a, b)") == "f(b)"


def test_a_transform_that_names_no_calls_matches_none() -> None:
    """`JaxTransform.matches` is the default for a transform that does not say which calls it rewrites
    (the upgrade rules; explain never asks them): nothing, not even through a partial."""
    import ast

    from codemods.analysis.module import ModuleIndex
    from codemods.base import JaxTransform
    from codemods.engine.rule import ParsedFile

    class NamesNoCalls(JaxTransform):
        def plan(self) -> None:
            pass

    source = "import functools\nfrom jax import lax\nexp_hi = functools.partial(lax.exp)\ny = exp_hi(1) + lax.exp(2)\n"
    module = ModuleIndex.parse(source)
    file = ParsedFile(Path("k.py"), module, Settings())
    calls = [node for node in ast.walk(module.tree) if isinstance(node, ast.Call)]
    assert len(calls) == 3
    assert [NamesNoCalls.matches_call(stub_rule(), file, call) for call in calls] == [False, False, False]


# -- the jax version --


@pytest.mark.parametrize("text, version", [
    ("0.11rc1.3", (0, 11)),  # nothing after a pre-release piece counts
    ("1.x.2", (1,)),
    ("0.4.31", (0, 4, 31)),
])
def test_parse_version_stops_at_the_first_piece_that_is_not_a_number(text: str, version: tuple) -> None:
    assert capabilities.parse_version(text) == version


def test_installed_version_is_none_when_no_dist_info_is_on_the_path(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "jaxlib-0.4.1.dist-info").mkdir()
    monkeypatch.setattr(sys, "path", [str(tmp_path / "missing"), str(tmp_path)])
    assert capabilities.installed_version("jax") is None
    (tmp_path / "jax-0.4.2.dist-info").mkdir()
    assert capabilities.installed_version("jax") == "0.4.2"


@pytest.mark.parametrize("dist_info, metadata_says, version", [
    (None, "0.4.30", (0, 4, 30)),  # no dist-info folder (an egg): importlib.metadata is asked
    (None, None, None),  # not installed at all
    ("not-a-version", "0.4.30", None),
])
def test_installed_jax_version(dist_info, metadata_says, version, monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import metadata

    def asked(name: str) -> str:
        assert name == "jax"
        if metadata_says is None:
            raise metadata.PackageNotFoundError(name)
        return metadata_says

    monkeypatch.setattr(capabilities, "installed_version", lambda name: dist_info)
    monkeypatch.setattr(metadata, "version", asked)
    assert capabilities.installed_jax_version() == version


# -- the runner --


def run(paths, rule=None, settings=Settings(), **options) -> list[FileResult]:
    return runner.run(paths, [rule or stub_rule()], settings, 1, **options)


@pytest.mark.parametrize("make, result", [
    (lambda folder: folder / "missing.py", {"error": "cannot read: No such file or directory"}),
    (lambda folder: os.mkfifo(folder / "fifo.py") or folder / "fifo.py", {"skipped": "a FIFO, not read"}),
    (lambda folder: Path("/dev/null"), {"skipped": "a device, not read"}),
])
def test_a_path_that_is_not_a_readable_file_is_reported(make, result: dict, tmp_path: Path) -> None:
    path = make(tmp_path)
    assert run([path]) == [FileResult(str(path), **result)]


def test_progress_is_told_of_each_file_analysed(tmp_path: Path) -> None:
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("x = 1\n")
    told: list[tuple[int, int]] = []
    results = run([tmp_path / "a.py", tmp_path / "b.py"], progress=lambda done, total: told.append((done, total)))
    assert told == [(1, 2), (2, 2)]
    assert [result.parsed for result in results] == [True, True]


def test_map_in_this_process_gives_each_result_once() -> None:
    items = [("a", b"x"), ("b", b"y")]
    assert list(runner._map(lambda item: item[0], items, jobs=1)) == ["a", "b"]
    assert list(runner._map(lambda item: item[0], items[:1], jobs=4)) == ["a"]


def test_a_notebook_the_prefilter_rules_out_is_not_decoded(tmp_path: Path) -> None:
    """It holds no word of the rule: not read as JSON, so even a broken one is no error."""
    rule = stub_rule(words=(b"needle",))
    plain = tmp_path / "plain.ipynb"
    plain.write_bytes(NOTEBOOK)
    broken = tmp_path / "broken.ipynb"
    broken.write_bytes(NOTEBOOK.replace(b'"cells": [', b'"cells": [}', 1))  # whole-looking, not JSON
    assert run([plain, broken], rule) == [FileResult(str(plain)), FileResult(str(broken))]
    broken.write_bytes(broken.read_bytes().replace(b"# title", b"# needle"))
    (result,) = run([broken], rule)
    assert result.error is not None and result.error.startswith("cannot read notebook: not valid JSON (")


def test_a_notebook_process_source_cannot_read_is_an_error() -> None:
    result = runner.process_source(Path("nb.ipynb"), b'{"cells": 1}', [stub_rule()], Settings())
    assert result == FileResult("nb.ipynb", error="cannot read notebook: no `cells` list (not a Jupyter notebook)")


def test_notebook_code_is_decoded_once_a_run(tmp_path: Path) -> None:
    decoded: dict = {}
    path = tmp_path / "nb.ipynb"
    assert runner._notebook_code(path, NOTEBOOK, decoded) == (KERNEL + "y = kernel(1)\n").encode()
    assert list(decoded) == [str(path)] and decoded[str(path)].text == KERNEL + "y = kernel(1)\n"
    assert runner._notebook_code(path, b"not read again", decoded) == decoded[str(path)].text.encode()


@pytest.mark.parametrize("raw, read", [
    (NOTEBOOK, b""),  # says nothing of pallas: launches no kernel of its own, not decoded
    (NOTEBOOK.replace(b"# title", b"# pallas"), (KERNEL + "y = kernel(1)\n").encode()),
    (NOTEBOOK.replace(b"# title", b"# pallas").replace(b'"cells": [', b'"cells": [}', 1), b""),  # not JSON
])
def test_what_the_project_index_reads_of_a_notebook(raw: bytes, read: bytes, tmp_path: Path) -> None:
    assert runner._notebook_kernels(str(tmp_path / "nb.ipynb"), raw, runner._Files(), frozenset({b"mylab"})) == read
    # A needle of the run's rules but no pallas: the prefilter decodes it, the index reads nothing.
    with_a_needle = raw.replace(b"# title", b"# jax")
    assert runner._notebook_kernels(str(tmp_path / "nb2.ipynb"), with_a_needle, runner._Files(needles=frozenset({b"jax"})),
                                    frozenset({b"mylab"})) == (b"" if b"pallas" not in raw or read == b"" else read)
    # It says jax and a top-level name of the project: it may launch through the project's launch
    # helper, so it is read (unless it is no JSON).
    through_the_project = raw.replace(b"# title", b"# mylab")
    decoded = b"" if b'"cells": [}' in raw else (KERNEL + "y = kernel(1)\n").encode()
    assert runner._notebook_kernels(str(tmp_path / "nb3.ipynb"), through_the_project, runner._Files(),
                                    frozenset({b"mylab"})) == decoded


def test_a_notebook_without_a_needle_is_searched_once_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The project index and the prefilter share one search of its bytes (for the run's needles and
    pallas): on thousands of notebooks without jax, a second search was a fifth of the run."""
    from codemods import registry
    from codemods.engine import notebook

    for name in ("a", "b"):
        (tmp_path / f"{name}.ipynb").write_bytes(notebook_bytes(("markdown", None, "# plots"), ("code", 1, "x = 1\n")))
    searched = []
    may_need = notebook.may_need
    monkeypatch.setattr(notebook, "may_need", lambda raw, needles: searched.append(tuple(needles)) or may_need(raw, needles))
    results = runner.run([tmp_path], registry.RULES, Settings((0, 12, 0, 1)), 1, None)
    assert [r.findings for r in results] == [[], []] and len(searched) == 2
    assert all(b"pallas" in needles and b"jax" in needles for needles in searched)


def test_the_project_index_takes_a_file_it_cannot_read_as_empty(tmp_path: Path) -> None:
    """A missing file and a FIFO in the project: never opened (a FIFO would block), no facts."""
    os.mkfifo(tmp_path / "fifo.py")
    (tmp_path / "kernel.py").write_text("from jax.experimental import pallas as pl\nx = 1\n")
    files = [tmp_path / "missing.py", tmp_path / "fifo.py", tmp_path / "kernel.py"]
    seen = runner._Files()
    index = runner.project_index(files, [stub_rule(kernel_scoped=True)], Settings(scope=Scope.KERNELS), seen=seen)
    assert index is not None
    for path in files:
        assert index.facts(path).holds_kernels is False
    assert list(seen.contents) == [str(tmp_path / "kernel.py")]


@pytest.mark.parametrize("source, error", [
    pytest.param("x = " + "-" * 200_000 + "1\n",
                 "cannot parse: Parser stack overflowed - Python source too complex to parse",
                 marks=pytest.mark.skipif(sys.version_info < (3, 12), reason="3.11 builds differ: some raise a bare MemoryError")),
    ("f" + "(x)" * 5000 + "\n", "cannot parse: maximum recursion depth exceeded during ast construction"),
    ("a\0b\n", "cannot parse: source code string cannot contain null bytes"),
])
def test_a_file_python_cannot_parse_is_an_error_not_a_crash(source: str, error: str) -> None:
    result = runner.process_source(Path("k.py"), source.encode(), [stub_rule()], Settings())
    assert (result.error, result.parsed) == (error, False)


def test_a_parser_overflow_without_a_message_still_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """Some CPython 3.11 builds overflow on deep nesting with a bare MemoryError: the reason must not
    be empty ("cannot parse: ")."""
    def overflow(text: str, through=None) -> None:
        raise MemoryError
    monkeypatch.setattr(runner.ModuleIndex, "parse", overflow)
    result = runner.process_source(Path("k.py"), b"x = 1\n", [stub_rule()], Settings())
    assert (result.error, result.parsed) == ("cannot parse: Python source too complex to parse", False)


@pytest.mark.parametrize("source, edit, error", [
    # a form feed before a nested block: Python reads it, libcst does not; libcst could not read the
    # original either, so compile() alone decides
    ("if True:\n\f    if True:\n        pass\n", ("pass", "x = 1"), None),
    # libcst read the original: a rewrite it cannot read is refused
    ("if True:\n    if True:\n        pass\n", ("    if", "\f    if"),
     "internal error: the rewritten file does not parse ({problem}); left unchanged"),
])
def test_a_rewrite_libcst_cannot_read(source: str, edit: tuple[str, str], error) -> None:
    import libcst

    start = source.index(edit[0])
    new = source[:start] + edit[1] + source[start + len(edit[0]):]
    finding = with_fix(1, 1, start, start + len(edit[0]), edit[1])
    result = runner.process_source(Path("k.py"), source.encode(), [stub_rule(lambda file: [finding])], Settings())
    if error is None:
        assert (result.error, result.new_source) == (None, new.encode())
    else:
        problem = str(pytest.raises(libcst.ParserSyntaxError, libcst.parse_module, new).value)
        assert (result.error, result.new_source) == (error.format(problem=problem), None)


def test_fixes_in_two_adjacent_cells_are_applied_together() -> None:
    """The fixed module is diffed line by line against the cells: the two changed lines, one at
    the end of a cell and one at the start of the next, were one edit across both, refused."""
    raw = notebook_bytes(("code", 1, "a = 1\n"), ("code", 2, "b = 2\n"))
    findings = [with_fix(1, 5, 4, 5, "3"), with_fix(2, 1, 6, 7, "c")]
    result = runner.process_source(Path("nb.ipynb"), raw, [stub_rule(lambda file: findings)], Settings())
    assert result.error is None
    assert result.new_source == raw.replace(b"a = 1", b"a = 3").replace(b"b = 2", b"c = 2")


def test_a_read_only_file_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_bytes(b"x = 1\n")
    path.chmod(0o444)
    result = FileResult(str(path), raw=b"x = 1\n", new_source=b"y = 1\n")
    runner.write(result)
    assert result.error == "cannot write: the file is read-only (no write permission bit); not written"
    assert path.read_bytes() == b"x = 1\n"


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_kernel_notebook_is_decoded_once_in_a_whole_run(jobs: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The project index (it reads a notebook that says pallas), the prefilter and the analysis
    share one decoding, in a worker process too (it inherits the run's). Two notebooks, padded
    past PARALLEL_MIN_BYTES, so that `--jobs 2` analyses them in the pool."""
    from codemods import registry
    from codemods.engine import notebook

    kernel = ("import jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n\n\ndef body(x_ref, o_ref):\n"
              "    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=('default', 'highest'))\n\n\n"
              "run = pl.pallas_call(body, out_shape=None)\n")
    for name in ("k1", "k2"):  # trailing whitespace: still one JSON document
        (tmp_path / f"{name}.ipynb").write_bytes(notebook_bytes(("code", 1, kernel)) + b" " * runner.PARALLEL_MIN_BYTES)
    log = tmp_path / "reads.log"
    read = notebook.read
    def logged(where, raw):  # noqa: E306 - to a file: a forked worker's decodings count too
        with open(log, "a") as handle:
            handle.write(f"{Path(where).name}\n")
        return read(where, raw)
    monkeypatch.setattr(notebook, "read", logged)
    results = runner.run([tmp_path], registry.RULES, Settings((0, 12, 0, 1)), jobs, None)
    assert [b"precision=" in (result.new_source or b"") for result in results] == [True, True]
    assert sorted(log.read_text().split()) == ["k1.ipynb", "k2.ipynb"]


@pytest.mark.parametrize("limit, fixed", [(0, True), (-1, False)], ids=["at-the-limit", "past-it"])
def test_the_project_index_reads_a_launching_module_up_to_the_size_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int, fixed: bool) -> None:
    """A module of exactly MAX_SOURCE_BYTES is analysed, so the index reads it too: its launch makes
    the body another module defines a kernel. One byte over, both skip it, and the body is plain code."""
    from codemods import registry

    body = ("import jax.numpy as jnp\n\n\ndef body(x_ref, o_ref):\n"
            "    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=('default', 'highest'))\n")
    launch = b"from jax.experimental import pallas as pl\nfrom pkg import ops\n\nrun = pl.pallas_call(ops.body, out_shape=None)\n"
    launch += b"#" * (len(body) - len(launch)) + b"\n"  # the largest file: the limit leaves ops.py analysed
    (tmp_path / "pkg").mkdir()
    for name, text in (("__init__.py", b""), ("ops.py", body.encode()), ("api.py", launch)):
        (tmp_path / "pkg" / name).write_bytes(text)
    monkeypatch.setattr(runner, "MAX_SOURCE_BYTES", len(launch) + limit)
    results = {Path(r.path).name: r for r in runner.run([tmp_path / "pkg"], registry.RULES, Settings((0, 12, 0, 1)), 1, None)}
    assert (results["ops.py"].new_source is not None) is fixed, results["ops.py"].findings
