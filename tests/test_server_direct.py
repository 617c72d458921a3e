"""The language server's engine and its publishing (codemods/server.py), in-process: the exact
diagnostics, quick fixes, fix-all and hovers it answers for a document or a notebook's cells, in each
position encoding, and the diagnostics the server sends as documents open, change and close. Written
for the survivors of its mutation runs (docs/testing.md, "Per module: cli.py and server.py" and the
fresh sample of session 10); tests/test_server.py drives the same server over stdio with a real
client, two seconds a test.

Nothing here imports jax.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("pygls")
from lsprotocol import types  # noqa: E402
from pygls.workspace import Workspace  # noqa: E402

from codemods import server  # noqa: E402
from tests.test_cli_direct import DOT, FIXED, KERNEL, TARGET  # noqa: E402  (one kernel for both files)

DOT_LINE, DOT_COLUMN = 7, KERNEL.splitlines()[7].index("(lax.Precision")
# A JAX1xx finding (a removed API, with a fix): tagged deprecated.
TREE_MAP = "import jax\n\ny = jax.tree_map(lambda a: 2 * a, {'w': 1})\n"


def engine(tmp_path: Path, **options) -> tuple[server.Engine, list]:
    logged: list = []
    result = server.Engine(lambda kind, message: logged.append((kind, message)))
    result.options = {"jaxVersion": TARGET, **options}
    result.folders = [tmp_path]
    return result, logged


def analyse(tmp_path: Path, text: str = KERNEL, name: str = "k.py", **options):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    eng, logged = engine(tmp_path, **options)
    return eng, eng.analyse(path.as_uri(), path, text), path.as_uri()


def where(diagnostic: types.Diagnostic) -> tuple:
    r = diagnostic.range
    return r.start.line, r.start.character, r.end.line, r.end.character


def whole(text: str) -> types.Range:
    return types.Range(start=types.Position(line=0, character=0), end=types.Position(line=len(text.splitlines()), character=0))


def apply(text: str, edits: list[types.TextEdit]) -> str:
    lines = server.Lines(text)
    spans = [(lines.lsp_offset(e.range.start), lines.lsp_offset(e.range.end), e.new_text) for e in edits]
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


# -- diagnostics --


def test_a_findings_diagnostic_has_its_range_code_link_severity_and_message(tmp_path: Path) -> None:
    eng, analysis, uri = analyse(tmp_path)
    [diagnostic] = eng.diagnostics(analysis)[uri]
    end = KERNEL.splitlines()[7].index(")", KERNEL.splitlines()[7].index("HIGHEST")) + 1
    assert where(diagnostic) == (DOT_LINE, DOT_COLUMN, DOT_LINE, end)
    assert diagnostic.code == "JAX001" and diagnostic.source == "jax-codemod"
    assert diagnostic.message.startswith("[fixed] jnp.dot: precision (DEFAULT, HIGHEST) -> HIGHEST")
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert diagnostic.code_description.href == (server.RULE_PAGES / "JAX001.md").as_uri()
    assert diagnostic.tags is None, "only a JAX1xx finding (an API removed or renamed) is deprecated"


def test_a_jax1xx_finding_is_tagged_deprecated(tmp_path: Path) -> None:
    eng, analysis, uri = analyse(tmp_path, TREE_MAP)
    [diagnostic] = eng.diagnostics(analysis)[uri]
    assert diagnostic.code.startswith("JAX1") and diagnostic.tags == [types.DiagnosticTag.Deprecated]


@pytest.mark.parametrize("encoding, shift", [(types.PositionEncodingKind.Utf16, 2),
                                             (types.PositionEncodingKind.Utf8, 4),
                                             (types.PositionEncodingKind.Utf32, 1)])
def test_columns_count_the_negotiated_unit(tmp_path: Path, encoding: str, shift: int) -> None:
    """An astral character (one character, two UTF-16 units, four UTF-8 bytes) before the call."""
    text = KERNEL.replace("    o_ref[...] = jnp.dot(", "    o_ref[...] = '\U0001F600' and jnp.dot(")
    path = tmp_path / "k.py"
    path.write_text(text, encoding="utf-8")
    eng, _ = engine(tmp_path)
    eng.encoding = encoding
    analysis = eng.analyse(path.as_uri(), path, text)
    [diagnostic] = eng.diagnostics(analysis)[path.as_uri()]
    column = DOT_COLUMN + len("'' and ") + shift
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (DOT_LINE, column)


def test_a_string_select_option_is_one_selector(tmp_path: Path) -> None:
    eng, analysis, uri = analyse(tmp_path, select="JAX002")
    assert eng.diagnostics(analysis)[uri] == []
    eng, analysis, uri = analyse(tmp_path, select="JAX001")
    assert [d.code for d in eng.diagnostics(analysis)[uri]] == ["JAX001"]


def test_a_file_outside_every_project_gets_its_diagnostics(tmp_path: Path) -> None:
    """No pyproject.toml anywhere: the workspace folder stands for the project."""
    eng, analysis, uri = analyse(tmp_path)
    assert [d.code for d in eng.diagnostics(analysis)[uri]] == ["JAX001"]
    assert eng._folder(tmp_path / "k.py") == tmp_path


def test_the_innermost_workspace_folder_holds_a_file(tmp_path: Path) -> None:
    eng, _ = engine(tmp_path)
    inner = tmp_path / "a" / "b"
    eng.folders = [tmp_path, inner, tmp_path / "c"]
    assert eng._folder(inner / "k.py") == inner
    assert eng._folder(tmp_path / "a" / "k.py") == tmp_path
    assert eng._folder(Path("/elsewhere/k.py")) == tmp_path, "outside them all: the first"
    eng.folders = []
    assert eng._folder(tmp_path / "k.py") is None


def test_changed_options_give_another_context(tmp_path: Path) -> None:
    eng, analysis, uri = analyse(tmp_path)
    path = tmp_path / "k.py"
    assert eng.diagnostics(analysis)[uri]
    eng.options = {**eng.options, "select": ["JAX002"]}
    assert eng.diagnostics(eng.analyse(uri, path, KERNEL))[uri] == []


# -- quick fixes, fix-all --


def test_the_quick_fix_is_the_findings_fix_and_fix_all_is_what_write_writes(tmp_path: Path) -> None:
    eng, analysis, uri = analyse(tmp_path)
    quick, fix_all = eng.code_actions(uri, analysis, whole(KERNEL), None)
    assert quick.title == "jax-codemod: fix JAX001" and quick.kind == types.CodeActionKind.QuickFix
    assert quick.is_preferred is True
    [diagnostic] = quick.diagnostics
    assert diagnostic == eng.diagnostics(analysis)[uri][0]
    assert apply(KERNEL, quick.edit.changes[uri]) == KERNEL.replace(DOT, FIXED)
    assert fix_all.title == "jax-codemod: fix all" and fix_all.kind == "source.fixAll.jax-codemod"
    assert apply(KERNEL, fix_all.edit.changes[uri]) == KERNEL.replace(DOT, FIXED)


def test_an_unsafe_fix_is_offered_as_such_and_not_preferred(tmp_path: Path) -> None:
    text = KERNEL.replace("    o_ref[...] = jnp.dot(",
                          "    y = lax.tanh(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\n    o_ref[...] = y + jnp.dot(")
    eng, analysis, uri = analyse(tmp_path, text)
    actions = eng.code_actions(uri, analysis, whole(text), None)
    assert [(a.title, a.is_preferred) for a in actions] == [
        ("jax-codemod: fix JAX002 (unsafe: may change numerics)", False), ("jax-codemod: fix JAX001", True),
        ("jax-codemod: fix all", None)]
    fix_all = apply(text, actions[2].edit.changes[uri])
    assert FIXED in fix_all and "accuracy=lax.AccuracyMode.HIGHEST" in fix_all, "the unsafe fix is left out"


@pytest.mark.parametrize("line, start, end, offered", [
    (DOT_LINE, 0, 0, False),  # before the finding, on its line
    (DOT_LINE, 0, DOT_COLUMN, True),  # a range ending where the finding starts touches it
    (DOT_LINE, DOT_COLUMN + 3, DOT_COLUMN + 3, True),
    (DOT_LINE + 1, 0, 0, False),
])
def test_a_quick_fix_is_offered_for_the_range_asked_only(tmp_path: Path, line: int, start: int, end: int,
                                                        offered: bool) -> None:
    eng, analysis, uri = analyse(tmp_path)
    wanted = types.Range(start=types.Position(line=line, character=start), end=types.Position(line=line, character=end))
    kinds = [a.kind for a in eng.code_actions(uri, analysis, wanted, [types.CodeActionKind.QuickFix])]
    assert kinds == ([types.CodeActionKind.QuickFix] if offered else [])


def test_only_source_fix_all_gives_the_fix_all_alone(tmp_path: Path) -> None:
    eng, analysis, uri = analyse(tmp_path)
    for only in (["source.fixAll"], ["source"], ["source.fixAll.jax-codemod"]):
        assert [a.kind for a in eng.code_actions(uri, analysis, whole(KERNEL), only)] == [server.FIX_ALL], only
    assert eng.code_actions(uri, analysis, whole(KERNEL), ["refactor"]) == []


def test_a_clean_file_gets_no_action(tmp_path: Path) -> None:
    eng, analysis, uri = analyse(tmp_path, "x = 1\n")
    assert eng.code_actions(uri, analysis, whole("x = 1\n"), None) == []


# -- hover --


@pytest.mark.parametrize("column, shown", [(DOT_COLUMN - 1, False), (DOT_COLUMN, True), (DOT_COLUMN + 5, True)])
def test_hover_on_a_finding_from_its_first_character(tmp_path: Path, column: int, shown: bool) -> None:
    eng, analysis, uri = analyse(tmp_path)
    hover = eng.hover(uri, analysis, types.Position(line=DOT_LINE, character=column))
    if not shown:
        assert hover is None
        return
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value.startswith("**JAX001** jnp.dot: precision (DEFAULT, HIGHEST) -> HIGHEST")
    assert "```text\n" in hover.contents.value
    assert where(types.Diagnostic(range=hover.range, message="")) == where(eng.diagnostics(analysis)[uri][0])


# -- positions --


def test_lsp_offsets_count_units_and_stop_at_the_end_of_the_line() -> None:
    text = "a\U0001F600b\ncd\n\nxyz"
    lines = server.Lines(text)
    offset = lambda line, character: lines.lsp_offset(types.Position(line=line, character=character))  # noqa: E731
    # The emoji is two units (a position inside it is past it); the newline is never reached.
    assert [offset(0, c) for c in range(6)] == [0, 1, 2, 2, 3, 3]
    assert [offset(1, c) for c in range(4)] == [4, 5, 6, 6]
    assert offset(2, 0) == offset(2, 3) == 7
    assert [offset(3, c) for c in (0, 3, 9)] == [8, 11, 11]
    assert offset(4, 0) == offset(7, 0) == len(text)  # past the last line: the end of the text
    utf8 = server.Lines(text, types.PositionEncodingKind.Utf8)
    assert [utf8.lsp_offset(types.Position(line=0, character=c)) for c in (1, 4, 5, 6)] == [1, 2, 2, 3]


# -- notebooks --


CELLS = [(True, "import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n"),
         (False, "# Notes\n"),
         (True, "x = 1\n"),
         (True, KERNEL.split("\n\n\n", 1)[1])]


def test_a_notebooks_findings_go_to_their_cells_and_its_fixes_edit_them(tmp_path: Path) -> None:
    eng, _ = engine(tmp_path)
    uris = [f"vscode-notebook-cell:{tmp_path}/nb.ipynb#cell{index}" for index in range(len(CELLS))]
    analysis = eng.analyse_notebook(tmp_path / "nb.ipynb", server.notebook_json(CELLS), uris)
    found = eng.diagnostics(analysis)
    assert sorted(found) == [uris[0], uris[2], uris[3]], "code cells only"
    assert found[uris[0]] == [] and found[uris[2]] == []
    [diagnostic] = found[uris[3]]
    assert diagnostic.code == "JAX001" and where(diagnostic)[:2] == (1, DOT_COLUMN)
    quick, fix_all = eng.code_actions(uris[3], analysis, whole(CELLS[3][1]), None)
    assert list(quick.edit.changes) == [uris[3]]
    assert apply(CELLS[3][1], quick.edit.changes[uris[3]]) == CELLS[3][1].replace(DOT, FIXED)
    assert list(fix_all.edit.changes) == [uris[3]]
    assert eng.code_actions(uris[2], analysis, whole("x = 1\n"), [types.CodeActionKind.QuickFix]) == []


def test_a_finding_in_an_early_cell_of_many_goes_to_that_cell(tmp_path: Path) -> None:
    cells = [CELLS[0], CELLS[3], (True, "x = 1\n"), (True, "y = 2\n"), (True, "z = 3\n")]
    eng, _ = engine(tmp_path)
    uris = [f"vscode-notebook-cell:{tmp_path}/nb.ipynb#cell{index}" for index in range(len(cells))]
    found = eng.diagnostics(eng.analyse_notebook(tmp_path / "nb.ipynb", server.notebook_json(cells), uris))
    assert [len(found[uri]) for uri in uris] == [0, 1, 0, 0, 0]
    assert found[uris[1]][0].code == "JAX001" and where(found[uris[1]][0])[:2] == (1, DOT_COLUMN)


@pytest.mark.parametrize("encoding, shift", [(types.PositionEncodingKind.Utf16, 2),
                                             (types.PositionEncodingKind.Utf8, 4),
                                             (types.PositionEncodingKind.Utf32, 1)])
def test_a_cells_columns_count_the_negotiated_unit(tmp_path: Path, encoding: str, shift: int) -> None:
    """As in a file: an astral character before the call, in the kernel's cell."""
    kernel = CELLS[3][1].replace("    o_ref[...] = jnp.dot(", "    o_ref[...] = '\U0001F600' and jnp.dot(")
    cells = [CELLS[0], (True, kernel)]
    eng, _ = engine(tmp_path)
    eng.encoding = encoding
    uris = [f"vscode-notebook-cell:{tmp_path}/nb.ipynb#cell{index}" for index in range(len(cells))]
    analysis = eng.analyse_notebook(tmp_path / "nb.ipynb", server.notebook_json(cells), uris)
    [diagnostic] = eng.diagnostics(analysis)[uris[1]]
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (1, DOT_COLUMN + len("'' and ") + shift)


# -- the server: what it sends --


class Sent:
    def __init__(self) -> None:
        self.diagnostics: list = []
        self.logs: list = []


def started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[server.Server, Sent]:
    ls = server.build()
    sent = Sent()
    monkeypatch.setattr(ls, "text_document_publish_diagnostics", sent.diagnostics.append)
    monkeypatch.setattr(ls, "window_log_message", sent.logs.append)
    ls.protocol._workspace = Workspace(tmp_path.as_uri(), workspace_folders=[])
    ls.engine.options = {"jaxVersion": TARGET}
    ls.engine.folders = [tmp_path]
    return ls, sent


def open_file(ls: server.Server, uri: str, text: str, language: str = "python", version: int = 1) -> None:
    ls.workspace.put_text_document(types.TextDocumentItem(uri=uri, language_id=language, version=version, text=text))
    ls.languages[uri] = language


def test_publishing_sends_the_documents_diagnostics_with_its_version(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    ls, sent = started(tmp_path, monkeypatch)
    uri = (tmp_path / "k.py").as_uri()
    open_file(ls, uri, KERNEL, version=3)
    asyncio.run(ls.publish(uri))
    [params] = sent.diagnostics
    assert params.uri == uri and params.version == 3
    assert [d.code for d in params.diagnostics] == ["JAX001"]
    assert sent.logs == []


def test_a_document_that_is_not_python_gets_no_diagnostics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ls, sent = started(tmp_path, monkeypatch)
    uri = (tmp_path / "notes.txt").as_uri()
    open_file(ls, uri, KERNEL, language="plaintext")
    asyncio.run(ls.publish(uri))
    assert [(p.uri, p.diagnostics) for p in sent.diagnostics] == [(uri, [])]
    python = (tmp_path / "script").as_uri()  # no suffix, but the editor says Python
    open_file(ls, python, KERNEL)
    asyncio.run(ls.publish(python))
    assert [d.code for d in sent.diagnostics[-1].diagnostics] == ["JAX001"]
    for name in ("k.py", "k.pyi"):  # the editor names no language: the suffix says Python
        suffixed = (tmp_path / name).as_uri()
        open_file(ls, suffixed, KERNEL, language="")
        asyncio.run(ls.publish(suffixed))
        assert sent.diagnostics[-1].uri == suffixed and [d.code for d in sent.diagnostics[-1].diagnostics] == ["JAX001"]


def test_a_document_closed_before_its_analysis_ends_gets_nothing(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    ls, sent = started(tmp_path, monkeypatch)
    uri = (tmp_path / "k.py").as_uri()
    open_file(ls, uri, KERNEL)
    del ls.languages[uri]
    asyncio.run(ls.publish(uri))
    assert sent.diagnostics == []


def test_a_notebook_changed_while_it_was_analysed_waits_for_the_newer_changes_diagnostics(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the analysis of an older version of a notebook found is not sent (fresh sample of session 11)."""
    ls, sent = started(tmp_path, monkeypatch)
    uri = (tmp_path / "nb.ipynb").as_uri()
    cell_uris = [f"{uri}#cell{i}" for i in range(len(CELLS))]
    ls.workspace.put_notebook_document(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(uri=uri, notebook_type="jupyter-notebook", version=1, cells=[
            types.NotebookCell(kind=types.NotebookCellKind.Code if code else types.NotebookCellKind.Markup,
                               document=cell) for cell, (code, _) in zip(cell_uris, CELLS)]),
        cell_text_documents=[types.TextDocumentItem(uri=cell, language_id="python" if code else "markdown", version=1,
                                                    text=text) for cell, (code, text) in zip(cell_uris, CELLS)]))
    ls.notebooks[uri] = set()
    analysis = ls.analysis

    async def edited_meanwhile(notebook_uri: str):
        ls.workspace.get_notebook_document(notebook_uri=notebook_uri).version = 2
        return await analysis(notebook_uri)

    monkeypatch.setattr(ls, "analysis", edited_meanwhile)
    asyncio.run(ls.publish(uri))
    assert sent.diagnostics == []
    monkeypatch.setattr(ls, "analysis", analysis)
    asyncio.run(ls.publish(uri))
    assert [(p.uri, [d.code for d in p.diagnostics]) for p in sent.diagnostics] == [
        (cell_uris[0], []), (cell_uris[2], []), (cell_uris[3], ["JAX001"])]


def test_closing_a_document_clears_its_diagnostics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ls, sent = started(tmp_path, monkeypatch)
    uri = (tmp_path / "k.py").as_uri()
    open_file(ls, uri, KERNEL)
    asyncio.run(ls.publish(uri))
    ls.closed(uri)
    assert (sent.diagnostics[-1].uri, sent.diagnostics[-1].diagnostics) == (uri, [])
    assert uri not in ls.results


def test_closing_a_notebook_clears_every_cell_it_sent_diagnostics_to(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    ls, sent = started(tmp_path, monkeypatch)
    notebook = (tmp_path / "nb.ipynb").as_uri()
    ls.notebooks[notebook] = {"cell:1", "cell:2"}
    ls.closed(notebook, ["cell:2", "cell:3"])
    assert [(p.uri, p.diagnostics) for p in sent.diagnostics] == [("cell:1", []), ("cell:2", []), ("cell:3", [])]
    assert notebook not in ls.notebooks


def test_an_engine_error_is_logged_with_its_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ls, sent = started(tmp_path, monkeypatch)
    path = tmp_path / "k.py"
    from codemods.engine import runner

    real = runner.process_source
    monkeypatch.setattr(runner, "process_source",
                        lambda *a, **k: __import__("dataclasses").replace(real(*a, **k), error="internal error: boom"))
    ls.engine.run(path, KERNEL.encode())
    [log] = sent.logs
    assert log.type == types.MessageType.Error and log.message == f"jax-codemod: {path}: internal error: boom"


def test_a_change_after_a_pause_is_analysed_at_once_and_a_burst_once_after_it(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    ls, sent = started(tmp_path, monkeypatch)
    uri = (tmp_path / "k.py").as_uri()
    open_file(ls, uri, KERNEL)
    ls.debounce = 0.5

    async def edits() -> list[int]:
        counts = []
        ls.changed(uri)
        await asyncio.sleep(0.2)
        counts.append(len(sent.diagnostics))  # the first change: at once
        ls.changed(uri)
        ls.changed(uri)
        await asyncio.sleep(0.2)
        counts.append(len(sent.diagnostics))  # within the burst: waiting
        await asyncio.sleep(0.8)
        counts.append(len(sent.diagnostics))  # one analysis for the burst
        return counts

    assert asyncio.run(edits()) == [1, 1, 2]
    assert all(p.uri == uri and [d.code for d in p.diagnostics] == ["JAX001"] for p in sent.diagnostics)


def test_closing_a_document_cancels_its_pending_analysis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ls, sent = started(tmp_path, monkeypatch)
    uri = (tmp_path / "k.py").as_uri()
    open_file(ls, uri, KERNEL)

    async def edit_then_close() -> None:
        ls.schedule(uri, 0.2)
        ls.closed(uri)
        await asyncio.sleep(0.4)

    asyncio.run(edit_then_close())
    assert [(p.uri, p.diagnostics) for p in sent.diagnostics] == [(uri, [])], "only the clearing"


def test_new_settings_analyse_every_open_document_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ls, sent = started(tmp_path, monkeypatch)
    uris = [(tmp_path / name).as_uri() for name in ("a.py", "b.py")]
    for uri in uris:
        open_file(ls, uri, KERNEL)

    async def refreshed() -> None:
        for uri in uris:
            await ls.publish(uri)
        ls.engine.options = {**ls.engine.options, "select": ["JAX002"]}
        ls.refresh()
        await asyncio.sleep(0.3)

    asyncio.run(refreshed())
    assert [(p.uri, [d.code for d in p.diagnostics]) for p in sent.diagnostics] == [
        (uris[0], ["JAX001"]), (uris[1], ["JAX001"]), (uris[0], []), (uris[1], [])]


def test_an_interpreter_option_that_is_not_a_path_is_ignored(tmp_path: Path) -> None:
    """Without a jaxVersion the target comes from the environments; `interpreter: 42` names none."""
    eng, logged = engine(tmp_path)
    eng.options = {"interpreter": 42}
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    assert eng.analyse(path.as_uri(), path, KERNEL) is not None
    assert logged == []


def test_a_file_without_a_project_takes_the_jax_of_its_workspace_folders_virtualenv(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No pyproject.toml anywhere and no jaxVersion: the workspace folder's .venv (jax 0.10.2) decides,
    so jnp.dot at HIGH in a kernel, rejected before jax 0.11.1, is found."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    folder = tmp_path / "ws"
    (folder / ".venv" / "lib" / "python3.12" / "site-packages" / "jax-0.10.2.dist-info").mkdir(parents=True)
    text = (Path(__file__).parent / "fixtures" / "precision" / "dot_high_jax_0_10.in.py").read_text()
    path = folder / "sub" / "k.py"
    path.parent.mkdir()
    path.write_text(text)
    eng = server.Engine(lambda kind, message: None)
    eng.folders = [folder]
    assert [d.code for d in eng.diagnostics(eng.analyse(path.as_uri(), path, text))[path.as_uri()]] == ["JAX001"]


def test_bad_options_are_logged_and_the_editors_interpreter_still_chooses_the_target(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """jnp.dot at HIGH in a kernel: rejected before jax 0.11.1, so only a 0.10 target finds it."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    (tmp_path / "py" / "lib" / "python3.12" / "site-packages" / "jax-0.10.2.dist-info").mkdir(parents=True)
    text = (Path(__file__).parent / "fixtures" / "precision" / "dot_high_jax_0_10.in.py").read_text()
    path = tmp_path / "k.py"
    path.write_text(text)
    logged: list = []
    eng = server.Engine(lambda kind, message: logged.append((kind, message)))
    eng.folders = [tmp_path]
    eng.options = {"interpreter": str(tmp_path / "py"), "scope": "nowhere"}
    found = eng.diagnostics(eng.analyse(path.as_uri(), path, text))[path.as_uri()]
    assert [d.code for d in found] == ["JAX001"], found
    [(kind, message)] = logged
    assert kind == types.MessageType.Error and message.startswith("jax-codemod: initializationOptions: ")
    assert message.endswith("; using the project's settings")
    eng.options = {"interpreter": str(tmp_path / "py")}
    assert [d.code for d in eng.diagnostics(eng.analyse(path.as_uri(), path, text))[path.as_uri()]] == ["JAX001"]



def test_the_interpreter_option_naming_a_real_venvs_python_targets_its_jax(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The option as editors send it, the venv's `bin/python` (a symlink), made by `python -m venv`:
    the server targeted the tool's own jax, where the venv's 0.10.2 rejects jnp.dot at HIGH."""
    from tests.test_target import real_venv

    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    python = real_venv(tmp_path / "env", "0.10.2")
    text = (Path(__file__).parent / "fixtures" / "precision" / "dot_high_jax_0_10.in.py").read_text()
    path = tmp_path / "k.py"
    path.write_text(text)
    eng = server.Engine(lambda kind, message: None)
    eng.folders = [tmp_path]
    eng.options = {"interpreter": str(python)}
    assert [d.code for d in eng.diagnostics(eng.analyse(path.as_uri(), path, text))[path.as_uri()]] == ["JAX001"]

def test_a_document_that_starts_with_a_byte_order_mark_is_analysed_as_its_file(tmp_path: Path) -> None:
    eng, analysis, uri = analyse(tmp_path, "\ufeff" + KERNEL)
    [diagnostic] = eng.diagnostics(analysis)[uri]
    assert diagnostic.code == "JAX001" and where(diagnostic)[:2] == (DOT_LINE, DOT_COLUMN)


def test_a_finding_without_a_fix_gets_a_diagnostic_and_no_quick_fix(tmp_path: Path) -> None:
    text = KERNEL.replace(DOT, "**options").replace("def kernel(x_ref, y_ref, o_ref):",
                                                    "def kernel(x_ref, y_ref, o_ref, **options):")
    eng, analysis, uri = analyse(tmp_path, text)
    assert [d.code for d in eng.diagnostics(analysis)[uri]] == ["JAX001"]
    assert eng.code_actions(uri, analysis, whole(text), None) == []


def test_a_finding_without_a_fix_leaves_the_quick_fixes_of_the_findings_after_it(tmp_path: Path) -> None:
    """A [manual] finding first, a fixable one below it (fresh sample of session 11)."""
    manual = KERNEL.replace(DOT, "**options").replace("def kernel(x_ref, y_ref, o_ref):",
                                                      "def kernel(x_ref, y_ref, o_ref, **options):")
    text = manual + "\n\n" + KERNEL.split("\n\n\n", 1)[1].replace("kernel", "kernel_b")
    eng, analysis, uri = analyse(tmp_path, text)
    assert [d.range.start.line for d in eng.diagnostics(analysis)[uri]] == [7, 14]
    actions = eng.code_actions(uri, analysis, whole(text), [types.CodeActionKind.QuickFix])
    assert [(a.title, a.diagnostics[0].range.start.line) for a in actions] == [("jax-codemod: fix JAX001", 14)]


def test_a_document_declaring_its_encoding_is_analysed_in_it(tmp_path: Path) -> None:
    """PEP 263: the file's bytes are latin-1, as the command line would read them from disk."""
    text = "# -*- coding: latin-1 -*-\n# café\n" + KERNEL
    path = tmp_path / "k.py"
    eng, _ = engine(tmp_path)
    [diagnostic] = eng.diagnostics(eng.analyse(path.as_uri(), path, text))[path.as_uri()]
    assert diagnostic.code == "JAX001" and where(diagnostic)[:2] == (DOT_LINE + 2, DOT_COLUMN)


def test_a_latin1_documents_columns_count_its_characters_not_utf8_bytes(tmp_path: Path) -> None:
    """The é before the call is one latin-1 byte: read as UTF-8 bytes it would be two characters."""
    text = "# -*- coding: latin-1 -*-\n" + KERNEL.replace("    o_ref[...] = jnp.dot(", "    o_ref[...] = 'é' and jnp.dot(")
    path = tmp_path / "k.py"
    eng, _ = engine(tmp_path)
    [diagnostic] = eng.diagnostics(eng.analyse(path.as_uri(), path, text))[path.as_uri()]
    assert where(diagnostic)[:2] == (DOT_LINE + 1, DOT_COLUMN + len("'é' and "))


def test_closing_a_notebook_it_never_opened_clears_the_cells_named(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    ls, sent = started(tmp_path, monkeypatch)
    ls.closed((tmp_path / "nb.ipynb").as_uri(), ["cell:1"])
    assert [(p.uri, p.diagnostics) for p in sent.diagnostics] == [("cell:1", [])]


def test_the_server_introduces_itself_with_the_tools_version() -> None:
    """What the initialize response's serverInfo carries."""
    from codemods import cli

    info = server.build().protocol.server_info
    assert (info.name, info.version) == ("jax-codemod", cli._tool_version()) and info.version != "unknown"


@pytest.mark.parametrize("language, found", [("python", ["JAX001"]), ("sql", [])])
def test_only_a_notebooks_python_code_cells_are_analysed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         language: str, found: list) -> None:
    """The editor says each cell's language: a code cell in another one (a %%sql cell, say) is text."""
    ls, _ = started(tmp_path, monkeypatch)
    uri = (tmp_path / "nb.ipynb").as_uri()
    cells = [("python", CELLS[0][1]), (language, CELLS[3][1])]
    ls.workspace.put_notebook_document(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(uri=uri, notebook_type="jupyter-notebook", version=1, cells=[
            types.NotebookCell(kind=types.NotebookCellKind.Code, document=f"{uri}#cell{i}") for i in range(2)]),
        cell_text_documents=[types.TextDocumentItem(uri=f"{uri}#cell{i}", language_id=cell_language, version=1,
                                                    text=text) for i, (cell_language, text) in enumerate(cells)]))
    analysis = asyncio.run(ls.analysis(uri))
    assert [d.code for d in ls.engine.diagnostics(analysis).get(f"{uri}#cell1", [])] == found


def test_a_log_the_client_cannot_take_goes_to_stderr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture) -> None:
    ls, _ = started(tmp_path, monkeypatch)

    def gone(params) -> None:
        raise ConnectionResetError("the client went away")

    monkeypatch.setattr(ls, "window_log_message", gone)
    ls.log(types.MessageType.Error, "jax-codemod: internal error in JAX001")
    assert capsys.readouterr().err == "jax-codemod: internal error in JAX001\n"


def test_a_server_run_from_a_checkout_says_its_version_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "installed_version", lambda distribution: None)  # no dist-info folder
    assert server.build().protocol.server_info.version == "unknown"


def test_the_server_asks_for_incremental_changes_and_syncs_jupyter_notebooks() -> None:
    """What the initialize response's capabilities promise a client that syncs notebooks."""
    ls = server.build()
    caps = types.ClientCapabilities(notebook_document=types.NotebookDocumentClientCapabilities(
        synchronization=types.NotebookDocumentSyncClientCapabilities()))
    result = ls.protocol.lsp_initialize(types.InitializeParams(capabilities=caps))
    if not isinstance(result, types.InitializeResult):  # pygls 2 answers through a generator
        try:
            while True:
                next(result)
        except StopIteration as stop:
            result = stop.value
    assert result.capabilities.text_document_sync.change == types.TextDocumentSyncKind.Incremental
    (selector,) = result.capabilities.notebook_document_sync.notebook_selector
    assert selector.notebook == "jupyter-notebook" and [c.language for c in selector.cells] == ["python"]


def test_an_untitled_document_is_analysed_as_a_file_of_the_current_folder(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    ls, sent = started(tmp_path, monkeypatch)
    open_file(ls, "untitled:Untitled-1", KERNEL)
    asyncio.run(ls.publish("untitled:Untitled-1"))
    [params] = sent.diagnostics
    assert params.uri == "untitled:Untitled-1" and [d.code for d in params.diagnostics] == ["JAX001"]
    assert sent.logs == []


def test_an_engine_told_of_no_workspace_folder_still_analyses(tmp_path: Path) -> None:
    """Before (or without) initialize's folders: the file's own folder is all there is."""
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    eng = server.Engine(lambda kind, message: None)
    eng.options = {"jaxVersion": TARGET}
    assert [d.code for d in eng.diagnostics(eng.analyse(path.as_uri(), path, KERNEL))[path.as_uri()]] == ["JAX001"]
