"""`jax-codemod server`: the rules in the editor, as a language server (LSP over stdio, on pygls).

What an editor gets, for each open Python document and each open Jupyter notebook (LSP 3.17
notebook document sync: its code cells analysed as one module, as the command line reads the
.ipynb file; what is found in a cell is sent to that cell), from its unsaved text:

- diagnostics on open, on change and on save: a change after a pause in typing is analysed at
  once, one within a burst `DEBOUNCE_S` after the last; code = the rule's code with a link to its
  documentation, severity from the finding's kind;
- a `quickfix` code action per finding with a fix, carrying that finding's own edits (its helper
  and imports included: `Fix.edits`, the same edits json/SARIF show), preferred when the fix is
  safe; an unsafe fix is offered only as such an explicit quick fix;
- `source.fixAll.jax-codemod`: exactly what `--write` would write (the same `process_source` call,
  safe fixes only unless `unsafe-fixes`);
- hover over a finding: the rule's documentation (what it does, why), as `jax-codemod rules CODE`.

Settings are the CLI's: the document's `[tool.jax-codemod]` (codemods/config.py `find`/`load`), with
the client's `initializationOptions` in the place of the command line (`resolve`). The target jax
is found as the CLI finds it (codemods/target.py), with the `interpreter` option (the editor's
Python) as the first environment looked at. Cross-module facts (a kernel launched from
another module) come from a project index over the document's project, the files the CLI indexes
for one file; it is kept per project and rebuilt after a save.

A document that does not parse gets no diagnostics from us (the editor's Python support shows the
syntax error). An error of ours is logged to the client (window/logMessage) and the server goes on.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import io
import json
import os
import re
import sys
import time
import tokenize
import traceback
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from lsprotocol import types
from pygls import uris
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from codemods import config as project_config
from codemods import registry, target
from codemods.analysis.project import facts_of
from codemods.capabilities import installed_version
from codemods.engine import discovery, runner
from codemods.engine.diagnostics import Applicability, Finding, Kind, TextEdit
from codemods.engine.fixes import text_edits
from codemods.engine.notebook import SUFFIX, is_notebook
from codemods.engine.positions import CHARACTERS, UTF8, UTF16, Positions, units
from codemods.engine.report import FileResult
from codemods.engine.rule import Rule
from codemods.settings import Settings

NAME = "jax-codemod"
FIX_ALL = types.CodeActionKind.SourceFixAll + "." + NAME  # source.fixAll.jax-codemod
# The files the settings and the target jax are read from (codemods/config.py, codemods/target.py).
SETTINGS_FILES = ("pyproject.toml", *target.LOCK_FILES, "requirements*.txt")
# Within a burst of changes (less than this apart), the wait after the last one before analysing. The
# analysis runs on the event loop (a 2,500-line kernel takes ~0.1 s; in a worker thread the GIL
# hand-offs cost a third more): changes that arrive meanwhile are coalesced into one analysis.
DEBOUNCE_S = 0.02
# Each rule's page (docs/rules/, generated from the rule by docs/generate.py), where the tool runs
# from a checkout; an installed copy has no docs/ (the hover shows the rule's documentation).
RULE_PAGES = Path(__file__).resolve().parents[1] / "docs" / "rules"

_SEVERITY = {
    Kind.FIXED: types.DiagnosticSeverity.Warning,  # fails when lowered; a fix is offered
    Kind.DROPPED: types.DiagnosticSeverity.Warning,
    Kind.MANUAL: types.DiagnosticSeverity.Warning,  # fails when lowered; a person must fix it
    Kind.WARNING: types.DiagnosticSeverity.Information,  # may fail at run time
}

# initializationOptions (camelCase, or the config file's kebab-case) -> `config.resolve` arguments.
_OPTIONS = {
    "select": "select", "ignore": "ignore", "jaxVersion": "jax_version", "jax-version": "jax_version",
    "scope": "scope", "precisionPolicy": "precision_policy", "precision-policy": "precision_policy",
    "helpersModule": "helpers_module", "helpers-module": "helpers_module",
    "unsafeFixes": "unsafe_fixes", "unsafe-fixes": "unsafe_fixes",
}


@functools.lru_cache(maxsize=None)
def documentation_url(code: str) -> Optional[str]:
    page = RULE_PAGES / f"{code}.md"
    return page.as_uri() if page.is_file() else None


# -- positions --


class Lines(Positions):
    """A text's offsets (in characters, as the findings' edits count) against LSP positions: 0-based
    lines, columns in the negotiated unit (UTF-16 code units unless the client chose another)."""

    def __init__(self, text: str, encoding: str = types.PositionEncodingKind.Utf16) -> None:
        super().__init__(text)
        self.unit = {types.PositionEncodingKind.Utf32: CHARACTERS, types.PositionEncodingKind.Utf8: UTF8}.get(
            encoding, UTF16)

    def lsp_position(self, offset: int) -> types.Position:
        line, character = self.position(offset, base=0, unit=self.unit)
        return types.Position(line=line, character=character)

    def lsp_offset(self, position: types.Position) -> int:
        if position.line >= len(self.starts):
            return len(self.text)
        start = self.starts[position.line]
        end = self.starts[position.line + 1] - 1 if position.line + 1 < len(self.starts) else len(self.text)
        counted, index = 0, start
        while index < end and counted < position.character:
            counted += units(self.text[index], self.unit)
            index += 1
        return index

    def range(self, start: int, end: int) -> types.Range:
        return types.Range(start=self.lsp_position(start), end=self.lsp_position(end))


def _bisect(starts: list[int], offset: int) -> int:
    low, high = 0, len(starts)
    while high - low > 1:
        middle = (low + high) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle
    return low


def finding_span(lines: Lines, finding: Finding) -> tuple[int, int]:
    """The finding's [start, end) in characters; without an end, to the end of its line."""
    start = lines.offset(finding.line, finding.column)
    end = lines.offset(finding.end_line, finding.end_column) if finding.end_line else lines.line_end(start)
    return start, max(start, end)


def lsp_edits(lines: Lines, edits) -> list[types.TextEdit]:
    return [types.TextEdit(range=lines.range(e.start, e.end), new_text=e.content) for e in edits]


# -- settings and projects --


@dataclass
class Context:
    """How to analyse one document: the CLI's choices for it as a one-file run."""

    config: project_config.Config
    rules: list[Rule]
    settings: Settings
    root: Optional[Path]  # the project's folder (None: the file alone)


class Project:
    """The cross-module index of one project (what `jax-codemod FILE` indexes), from disk."""

    def __init__(self, root: Optional[Path], path: Path, context: Context) -> None:
        self.index = runner.index_of_file_run(path, root, context.config, context.rules, context.settings)

    def facts(self, path: Path):
        return facts_of(self.index, path)


@dataclass
class Part:
    """A document the editor shows (a file, or a code cell of a notebook) and where its text lies in
    the module analysed: a notebook's code cells are one module (codemods/engine/notebook.py), in
    which each cell's stretch has the cell's own offsets (its IPython lines are placeholders as long)."""

    uri: str
    lines: Lines
    start: int = 0  # the offset of its first character in the module
    number: int = 0  # its cell number in the notebook (0: a file)


@dataclass
class Analysis:
    key: str  # what was analysed: the file's text, or the notebook as the JSON of an .ipynb file
    result: FileResult
    lines: Lines  # of the module that the findings' lines and the fixes' edits refer to
    parts: list[Part]

    def locate(self, finding: Finding) -> tuple[Part, int, int]:
        """The document a finding is in, and its [start, end) there (clipped to that document)."""
        start, end = finding_span(self.lines, finding)
        part = self.parts[_bisect([p.start for p in self.parts], start)]
        return part, start - part.start, min(end - part.start, len(part.lines.text))

    def changes(self, edits: Sequence[TextEdit]) -> dict[str, list[types.TextEdit]]:
        """Edits of the module as edits of the documents they fall in (in a notebook, the cells that
        `--write` changes, as it changes them)."""
        if self.result.cells is None:
            return {self.parts[0].uri: lsp_edits(self.parts[0].lines, edits)}
        parts = {part.number: part for part in self.parts}
        return {parts[number].uri: lsp_edits(parts[number].lines, text_edits(parts[number].lines.text, source))
                for number, source in self.result.cells.sources_after(edits).items()}


class Engine:
    """The analysis behind the server, without any LSP: settings, projects, results per document."""

    def __init__(self, log: Callable[[types.MessageType, str], None]) -> None:
        self.log = log
        self.options: dict[str, Any] = {}
        self.folders: list[Path] = []
        self.encoding: str = types.PositionEncodingKind.Utf16
        self._contexts: dict[tuple[Path, str], Context] = {}
        self._projects: dict[tuple, Project] = {}
        self._reported: set[str] = set()
        self.rules = {rule.code: rule for rule in registry.RULES}

    def forget(self) -> None:
        """After a save: the config and the other modules may have changed."""
        self._contexts.clear()
        self._projects.clear()

    def _folder(self, path: Path) -> Optional[Path]:
        absolute = Path(os.path.abspath(path))
        inside = [f for f in self.folders if absolute == f or f in absolute.parents]
        return max(inside, key=lambda f: len(f.parts)) if inside else (self.folders[0] if self.folders else None)

    def context(self, path: Path) -> Optional[Context]:
        key = (Path(os.path.abspath(path)).parent, repr(sorted(self.options.items())))
        if key not in self._contexts:
            context = self._resolve(path)
            if context is None:
                return None
            self._contexts[key] = context
        return self._contexts[key]

    def _overrides(self) -> dict[str, Any]:
        overrides: dict[str, Any] = {}
        for key, value in self.options.items():
            if key in _OPTIONS and value is not None:
                name = _OPTIONS[key]
                overrides[name] = [value] if name in ("select", "ignore") and isinstance(value, str) else value
        return overrides

    def _resolve(self, path: Path) -> Optional[Context]:
        try:
            config = project_config.load(project_config.find([path]), registry.RULES)
        except project_config.ConfigError as error:
            self._once(types.MessageType.Error, f"{NAME}: {error}")
            return None
        if config.project_root is None:  # a folder without a project file: its environment is the workspace's
            config = replace(config, project_root=self._folder(path))
        interpreter = self.options.get("interpreter")
        interpreter = interpreter if isinstance(interpreter, str) else None
        try:
            rules, settings = project_config.resolve(config, registry.RULES, interpreter=interpreter,
                                                     **self._overrides())
        except (ValueError, TypeError) as error:
            self._once(types.MessageType.Error, f"{NAME}: initializationOptions: {error}; using the project's settings")
            rules, settings = project_config.resolve(config, registry.RULES, interpreter=interpreter)
        root = discovery.project_root([path], config.path.parent if config.path else None)
        return Context(config, rules, settings, root)

    def _once(self, kind: types.MessageType, message: str) -> None:
        if message not in self._reported:
            self._reported.add(message)
            self.log(kind, message)

    def project(self, path: Path, context: Context) -> Project:
        key = (context.root or Path(os.path.abspath(path)), tuple(r.code for r in context.rules), context.settings)
        if key not in self._projects:
            self._projects[key] = Project(context.root, path, context)
        return self._projects[key]

    def run(self, path: Path, raw: bytes) -> Optional[FileResult]:
        """The one-file run of `path` on `raw` (its unsaved contents); None without settings."""
        context = self.context(path)
        if context is None:
            return None
        skipped = context.config.ignored_rules(path)
        rules = [rule for rule in context.rules if rule.code not in skipped]
        facts = self.project(path, context).facts(path)
        result = runner.process_source(path, raw, rules, context.settings, facts=facts)
        if result.error is not None and not result.error.startswith(("cannot parse", "cannot decode")):
            self.log(types.MessageType.Error, f"{NAME}: {path}: {result.error}")
        return result

    def analyse(self, uri: str, path: Path, text: str) -> Optional[Analysis]:
        result = self.run(path, _encode(text))
        if result is None:
            return None
        lines = Lines(text, self.encoding)
        return Analysis(text, result, lines, [Part(uri, lines)])

    def analyse_notebook(self, path: Path, key: str, cell_uris: Sequence[str]) -> Optional[Analysis]:
        """The run of a notebook (`key`: its .ipynb JSON, `notebook_json`) as the command line's."""
        result = self.run(path, key.encode())
        if result is None:
            return None
        cells = result.cells.cells if result.cells is not None else ()
        parts = [Part(cell_uris[cell.number - 1], Lines(cell.source, self.encoding), cell.start, cell.number)
                 for cell in cells]
        return Analysis(key, result, Lines(result.cells.text if result.cells else "", self.encoding), parts)

    # -- what the editor is sent --

    def _diagnostic(self, part: Part, start: int, end: int, finding: Finding) -> types.Diagnostic:
        page = documentation_url(finding.code)
        return types.Diagnostic(
            range=part.lines.range(start, end), message=finding.labelled_message, source=NAME, code=finding.code,
            code_description=types.CodeDescription(href=page) if page else None,
            severity=_SEVERITY[finding.kind],
            tags=[types.DiagnosticTag.Deprecated] if finding.code.startswith("JAX1") else None)

    def diagnostics(self, analysis: Analysis) -> dict[str, list[types.Diagnostic]]:
        """Each document's diagnostics (a file's, or each code cell's of a notebook)."""
        out: dict[str, list[types.Diagnostic]] = {part.uri: [] for part in analysis.parts}
        for finding in analysis.result.findings:
            part, start, end = analysis.locate(finding)
            out[part.uri].append(self._diagnostic(part, start, end, finding))
        return out

    def code_actions(self, uri: str, analysis: Analysis, wanted: types.Range,
                     only: Optional[Sequence[str]]) -> list[types.CodeAction]:
        def asked(kind: str) -> bool:
            return not only or any(kind == o or kind.startswith(o + ".") for o in only)

        actions = []
        for finding in analysis.result.findings:
            if finding.fix is None or not finding.fix.edits or not asked(types.CodeActionKind.QuickFix):
                continue
            part, start, end = analysis.locate(finding)
            if part.uri != uri or end < part.lines.lsp_offset(wanted.start) or start > part.lines.lsp_offset(wanted.end):
                continue
            safe = finding.fix.applicability is Applicability.SAFE
            actions.append(types.CodeAction(
                title=f"{NAME}: fix {finding.code}" + ("" if safe else " (unsafe: may change numerics)"),
                kind=types.CodeActionKind.QuickFix, diagnostics=[self._diagnostic(part, start, end, finding)],
                is_preferred=safe, edit=types.WorkspaceEdit(changes=analysis.changes(finding.fix.edits))))
        if asked(FIX_ALL):
            changes = self.fix_all(analysis)
            if changes:
                actions.append(types.CodeAction(title=f"{NAME}: fix all", kind=FIX_ALL,
                                                edit=types.WorkspaceEdit(changes=changes)))
        return actions

    def fix_all(self, analysis: Analysis) -> dict[str, list[types.TextEdit]]:
        """What `--write` writes, as edits of the documents (the changed stretches only); in a
        notebook, of every cell it changes, whichever cell asked."""
        result = analysis.result
        if result.new_source is None or result.error is not None:
            return {}
        return analysis.changes(text_edits(analysis.lines.text, result.after))

    def hover(self, uri: str, analysis: Analysis, position: types.Position) -> Optional[types.Hover]:
        parts, where = [], None
        for finding in analysis.result.findings:
            part, start, end = analysis.locate(finding)
            if part.uri == uri and start <= part.lines.lsp_offset(position) <= end and finding.code in self.rules:
                rule = self.rules[finding.code]
                parts.append(f"**{finding.code}** {finding.message}\n\n```text\n{rule.documentation()}```")
                where = where or part.lines.range(start, end)
        if not parts:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)),
                           range=where)


def notebook_json(cells: Sequence[tuple[bool, str]]) -> str:
    """A notebook's cells (whether each is Python code, its text) as the .ipynb file the command
    line reads (nbformat 4; every cell is kept, so that cells are numbered as the notebook's)."""
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code" if code else "markdown", "metadata": {}, "source": text} for code, text in cells]})


def _encode(text: str) -> bytes:
    """The document as the file's bytes: in its declared codec (PEP 263), else UTF-8."""
    raw = text.encode("utf-8", "surrogatepass")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        return text.encode(encoding) if encoding not in ("utf-8", "utf-8-sig") else raw
    except (SyntaxError, LookupError, UnicodeError):
        return raw


def _path(uri: str) -> Path:
    path = uris.to_fs_path(uri)
    return Path(path) if path else Path(os.getcwd()) / "untitled.py"


def _is_python(uri: str, language: Optional[str] = None) -> bool:
    return language == "python" or uri.endswith((".py", ".pyi"))


# -- the server --

# Jupyter notebooks whose cells are Python (LSP 3.17 notebook document sync).
NOTEBOOKS = types.NotebookDocumentSyncOptions(notebook_selector=[types.NotebookDocumentFilterWithNotebook(
    notebook="jupyter-notebook", cells=[types.NotebookCellLanguage(language="python")])], save=True)


class Protocol(LanguageServerProtocol):
    """pygls 2.1 files the future of each notification that a built-in handler takes (didOpen,
    didChange, ...) among the pending requests, under a new id that nothing removes: 2 KB an edit,
    for as long as the server runs. It is removed here once done."""

    def _check_handler_result(self, future) -> None:
        super()._check_handler_result(future)
        for msg_id in [key for key, pending in self._request_futures.items() if pending is future]:
            del self._request_futures[msg_id]


class Server(LanguageServer):
    def __init__(self) -> None:
        version = installed_version("jax_codemod") or installed_version("jax-codemod") or "unknown"
        # One thread, to read the client's messages (no handler here runs in one): pygls's default
        # pool (cores + 4) started another now and then, when a read was queued before the last
        # thread was idle again, each with its own malloc arena: steps in the memory (+1.7 MiB at
        # the 800th edit of one bench run; 2 to 5 threads by the 200th edit of another).
        super().__init__(NAME, version, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         notebook_document_sync=NOTEBOOKS, protocol_cls=Protocol, max_workers=1)
        self.engine = Engine(self.log)
        self.results: dict[str, Analysis] = {}  # by file or notebook: the last analysis only
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.changed_at: dict[str, float] = {}
        self.languages: dict[str, str] = {}  # the open files
        self.notebooks: dict[str, set[str]] = {}  # the open notebooks, and the cells last sent diagnostics
        self.debounce = DEBOUNCE_S

    def log(self, kind: types.MessageType, message: str) -> None:
        try:
            self.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # noqa: BLE001 - no client to tell: stderr is the last resort
            sys.stderr.write(message + "\n")

    def failed(self, what: str) -> None:
        self.log(types.MessageType.Error, f"{NAME}: internal error in {what}:\n{traceback.format_exc()}")

    def owner(self, uri: str) -> str:
        """What is analysed for a document: the notebook of a cell, else the document."""
        notebook = None if uri in self.languages else self.workspace.get_notebook_document(cell_uri=uri)
        return notebook.uri if notebook is not None else uri

    def document_version(self, uri: str) -> int:
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        return notebook.version if notebook is not None else self.workspace.get_text_document(uri).version

    async def analysis(self, uri: str) -> Optional[Analysis]:
        """The analysis of a file's or a notebook's current text (computed now if it changed)."""
        try:
            notebook = self.workspace.get_notebook_document(notebook_uri=uri)
            if notebook is not None:
                documents = [self.workspace.get_text_document(cell.document) for cell in notebook.cells]
                key = notebook_json([(cell.kind == types.NotebookCellKind.Code and document.language_id == "python",
                                      document.source) for cell, document in zip(notebook.cells, documents)])
            else:
                key = self.workspace.get_text_document(uri).source
        except Exception:  # noqa: BLE001
            return None
        cached = self.results.get(uri)
        if cached is not None and cached.key == key:
            return cached
        if notebook is None and not _is_python(uri, self.languages.get(uri)):
            return None
        try:
            if notebook is None:
                analysis = self.engine.analyse(uri, _path(uri), key)
            else:
                path = _path(uri)
                path = path if is_notebook(path) else path.with_name(path.name + SUFFIX)
                analysis = self.engine.analyse_notebook(path, key, [cell.document for cell in notebook.cells])
        except Exception:  # noqa: BLE001 - log it, keep serving
            self.failed(f"the analysis of {uri}")
            return None
        if analysis is not None:
            self.results[uri] = analysis
        return analysis

    async def publish(self, uri: str) -> None:
        """Send the diagnostics of a file, or of each code cell of a notebook. The cyclic garbage
        collector waits until they are sent: an analysis leaves some 40,000 objects in cycles, and
        collecting them on the way delayed the diagnostics by 12-40 ms."""
        gc.disable()
        try:
            version = self.document_version(uri)
            analysis = await self.analysis(uri)
            if uri not in self.languages and uri not in self.notebooks:
                return  # closed meanwhile
            if self.document_version(uri) != version:
                return  # a newer change will publish
            found = self.engine.diagnostics(analysis) if analysis is not None else {}
            if uri in self.languages:
                self.send(uri, found.get(uri, []), version)
                return
            notebook = self.workspace.get_notebook_document(notebook_uri=uri)
            cells = {cell.document for cell in notebook.cells if cell.kind == types.NotebookCellKind.Code}
            for cell in sorted(cells | self.notebooks[uri]):  # a cell deleted meanwhile: cleared
                self.send(cell, found.get(cell, []))
            self.notebooks[uri] = cells
        except Exception:  # noqa: BLE001
            self.failed(f"publishing the diagnostics of {uri}")
        finally:
            gc.enable()

    def send(self, uri: str, diagnostics: list[types.Diagnostic], version: Optional[int] = None) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diagnostics))

    def changed(self, uri: str) -> None:
        """After a pause, a change is analysed at once; within a burst (changes less than `debounce`
        apart), `debounce` after the last. Changes read while an analysis runs are folded into one."""
        now = time.monotonic()
        burst = now - self.changed_at.get(uri, -self.debounce) < self.debounce
        self.changed_at[uri] = now
        self.schedule(uri, self.debounce if burst else 0)

    def schedule(self, uri: str, delay: float) -> None:
        loop = asyncio.get_running_loop()
        previous = self.pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        self.pending[uri] = loop.call_later(delay, lambda: loop.create_task(self.publish(uri)))

    def refresh(self) -> None:
        """Analyse every open document again (the settings or other files changed)."""
        self.results.clear()
        for uri in [*self.languages, *self.notebooks]:
            self.schedule(uri, 0)

    def reread(self) -> None:
        """After a save, or a settings file changed outside the editor: the config and the other
        modules may have changed, so what was read of them is forgotten before the analyses."""
        self.engine.forget()
        self.refresh()

    def closed(self, uri: str, cells: Sequence[str] = ()) -> None:
        self.results.pop(uri, None)
        self.changed_at.pop(uri, None)
        pending = self.pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        for document in sorted({uri} if not cells else {*cells, *self.notebooks.pop(uri, ())}):
            self.send(document, [])


def build() -> Server:
    server = Server()

    @server.feature(types.INITIALIZE)
    def initialize(ls: Server, params: types.InitializeParams) -> None:
        try:
            options = params.initialization_options
            if isinstance(options, dict):
                nested = options.get(NAME) or options.get("settings")
                ls.engine.options = dict(nested if isinstance(nested, dict) else options)
                if isinstance(ls.engine.options.get("debounceMs"), (int, float)):
                    ls.debounce = max(0.0, ls.engine.options["debounceMs"] / 1000)
            folders = [uris.to_fs_path(f.uri) for f in params.workspace_folders or []]
            root = params.root_uri and uris.to_fs_path(params.root_uri) or params.root_path
            ls.engine.folders = [Path(os.path.abspath(f)) for f in [*folders, root] if f]
            ls.engine.encoding = ls.workspace.position_encoding or types.PositionEncodingKind.Utf16
            gc.freeze()  # what is loaded by now (modules, the protocol's converters) is never collected
        except Exception:  # noqa: BLE001
            ls.failed("initialize")

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: Server, params: types.DidOpenTextDocumentParams) -> None:
        ls.languages[params.text_document.uri] = params.text_document.language_id
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: Server, params: types.DidChangeTextDocumentParams) -> None:
        ls.changed(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: Server, params: types.DidSaveTextDocumentParams) -> None:
        ls.reread()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: Server, params: types.DidCloseTextDocumentParams) -> None:
        ls.languages.pop(params.text_document.uri, None)
        ls.closed(params.text_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def did_open_notebook(ls: Server, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.notebooks[params.notebook_document.uri] = set()
        ls.schedule(params.notebook_document.uri, 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def did_change_notebook(ls: Server, params: types.DidChangeNotebookDocumentParams) -> None:
        ls.changed(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def did_save_notebook(ls: Server, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.reread()

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def did_close_notebook(ls: Server, params: types.DidCloseNotebookDocumentParams) -> None:
        ls.closed(params.notebook_document.uri, [cell.uri for cell in params.cell_text_documents])

    @server.feature(types.INITIALIZED)
    def initialized(ls: Server, params: types.InitializedParams) -> None:
        """Ask the client to report changes of the files settings are read from, which can change
        outside the editor (`git checkout`, `uv lock`): no save of theirs would tell the server."""
        watched = ls.client_capabilities.workspace and ls.client_capabilities.workspace.did_change_watched_files
        if watched and watched.dynamic_registration:
            ls.client_register_capability(types.RegistrationParams(registrations=[types.Registration(
                id=f"{NAME}-settings-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=[
                    types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in SETTINGS_FILES]))]))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: Server, params: types.DidChangeWatchedFilesParams) -> None:
        ls.reread()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: Server, params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if isinstance(settings, dict) and isinstance(settings.get(NAME), dict):
            ls.engine.options = dict(settings[NAME])
            ls.refresh()

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=False))
    async def code_action(ls: Server, params: types.CodeActionParams) -> Optional[list[types.CodeAction]]:
        try:
            uri = params.text_document.uri
            analysis = await ls.analysis(ls.owner(uri))
            if analysis is None:
                return []
            return ls.engine.code_actions(uri, analysis, params.range, params.context.only)
        except Exception:  # noqa: BLE001
            ls.failed("codeAction")
            return []

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: Server, params: types.HoverParams) -> Optional[types.Hover]:
        try:
            uri = params.text_document.uri
            analysis = await ls.analysis(ls.owner(uri))
            return ls.engine.hover(uri, analysis, params.position) if analysis is not None else None
        except Exception:  # noqa: BLE001
            ls.failed("hover")
            return None

    return server


def main() -> None:
    build().start_io()
