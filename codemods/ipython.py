"""The IPython extension: `%load_ext codemods.ipython` in IPython or a Jupyter notebook.

When a cell raises one of the errors the rules fix, the finding and the fix (a diff of the cell
to change) are printed after IPython's own traceback: a `post_run_cell` callback, so IPython
prints the traceback as it always does. The traceback is the proof, as for `jax-codemod explain`
(codemods/explain.py does the work): the session's executed cells (`In`) are a notebook whose
cell N is `In [N]`, so a kernel defined in an earlier cell is placed there, and a helper imported
from a file is followed to the file (shown as its diff, never written). Nothing is printed for
any other exception.

- `%jax_codemod fix` puts the last error's fixed cell in the next input (`set_next_input`: a new
  cell below in Jupyter, the next prompt in terminal IPython);
- `%%jax_codemod` on top of a cell checks it without running it: its findings, and the diff of
  the fix, with the session's earlier cells as context.

Needs IPython (`pip install 'jax-codemod[ipython]'`).
"""

from __future__ import annotations

import ast
import io
import json
import re
import sys
import traceback
from pathlib import Path
from typing import Optional

try:
    from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
except ImportError as error:  # pragma: no cover - exercised in a subprocess by the tests
    from codemods.extras import install_command

    raise ImportError(
        f"codemods.ipython is an IPython extension and needs IPython: {install_command('ipython')}, "
        "then `%load_ext codemods.ipython` in IPython or Jupyter") from error

from codemods import explain
from codemods.engine import notebook as notebooks

SESSION = Path("<ipython>.ipynb")  # the session's cells, as a notebook: `<ipython>.ipynb:cell 7` is `In [7]`
_SESSION_CELL = re.compile(re.escape(str(SESSION)) + r":cell (\d+)")


def _in_terms(text: str) -> str:
    """The session notebook's `<ipython>.ipynb:cell 7` said as IPython says it: `In [7]`."""
    return _SESSION_CELL.sub(lambda match: f"In [{match[1]}]", text)


def _settings():
    from codemods import config as project_config
    from codemods import registry

    config = project_config.load(project_config.find([Path.cwd()]), registry.RULES)
    # The kernel runs the code: its own jax is the target before a .venv beside the notebook.
    selected, settings = project_config.resolve(config, registry.RULES, interpreter=sys.prefix)
    return config, selected, settings


def _document(sources: list[str]) -> bytes:
    """The cells (In [1] first) as a notebook's JSON; In [N] is its cell N."""
    document = {
        "cells": [{"cell_type": "code", "execution_count": number, "metadata": {}, "outputs": [], "source": source}
                  for number, source in enumerate(sources, 1)],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(document, indent=1).encode()


def _parses(source: str) -> bool:
    """Whether a cell is Python, as a notebook's module reads it (its IPython lines, `%time`, `!ls`,
    as the notebook reader replaces them)."""
    try:
        ast.parse(notebooks.read(SESSION, _document([source])).text)
    except (SyntaxError, ValueError):
        return False
    return True


def _readable(sources: list[str]) -> list[str]:
    """The cells with each that does not parse emptied: IPython keeps a cell that failed with a
    SyntaxError in its history, and one such cell must not make the whole session unreadable. The
    other cells keep their numbers (In [N] is still cell N)."""
    return [source if _parses(source) else "" for source in sources]


def _project_index(raw: bytes, config, selected, settings):
    """The index of the project the current folder is in (else of the folder itself, as the editor
    takes its workspace), the session (`raw`, its cells as a notebook) one more module of it: a pair
    a cell hands to a wrapper of the project's reaches that wrapper's kernel, and is fixed in the cell."""
    from codemods.engine import runner

    return runner.index_of_file_run(SESSION, config.project_root or Path.cwd(), config, selected, settings, unsaved=raw)


def session_notebook(shell, cells: Optional[list[str]] = None) -> explain.Notebook:
    """The session's executed cells (or `cells`, In [1] first) as a notebook; In [N] is its cell N.
    Of the session's cells, those that do not parse are left empty (`_readable`)."""
    sources = _readable(list(shell.history_manager.input_hist_raw[1:])) if cells is None else cells
    files = dict(getattr(shell.compile, "_filename_map", {}) or {})  # a cell's file name -> its execution count
    return explain.Notebook(SESSION, _document(sources), files)


@magics_class
class JaxCodemodMagics(Magics):
    """`%jax_codemod fix` and `%%jax_codemod` (see the module's docstring)."""

    def __init__(self, shell) -> None:
        super().__init__(shell)
        self.last_error: Optional[str] = None  # the traceback (as text) of the last error a rule fixes

    def explain(self, text: str, results: Optional[list] = None) -> tuple[str, str]:
        """explain's report of the traceback `text` in this session: (diffs, findings and notes)."""
        from codemods import registry

        config, selected, settings = _settings()
        out, err = io.BytesIO(), io.StringIO()
        session = session_notebook(self.shell)
        explain.run(text, Path.cwd(), {rule.code: rule for rule in registry.RULES}, settings, write=False, out=out,
                    err=err, selected=selected, ignored_rules=config.ignored_rules, notebook=session, results=results,
                    index=_project_index(session.raw, config, selected, settings))
        return _in_terms(out.getvalue().decode("utf-8", "replace")), _in_terms(err.getvalue())

    def post_run_cell(self, result) -> None:
        error = getattr(result, "error_in_exec", None)
        if error is None:
            return
        text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        if not explain.parse_log(text):
            return  # not an error the rules fix: say nothing
        self.last_error = text
        try:
            diffs, notes = self.explain(text)
        except Exception as problem:  # never break the user's session
            print(f"jax-codemod: could not explain this error ({type(problem).__name__}: {problem})")
            return
        print("\njax-codemod: this error is one it fixes\n" + notes + diffs
              + ("(`%jax_codemod fix` puts the fixed cell in the next input)\n" if diffs else ""), end="")
        sys.stdout.flush()

    @line_magic
    def jax_codemod(self, line: str) -> None:
        """%jax_codemod fix: the last error's fixed cell in the next input."""
        if line.strip() != "fix":
            print("usage: %jax_codemod fix  (the last error's fixed cell in the next input); "
                  "%%jax_codemod on a cell checks it without running it")
            return
        if self.last_error is None:
            print("jax-codemod: no error to fix yet (run the cell that fails first)")
            return
        results: list = []
        self.explain(self.last_error, results)
        fixed = [source for result in results if result.cells is not None and result.after is not None
                 for _, source in sorted(result.cells.sources_of(result.after).items())]
        if not fixed:
            files = [result.path for result in results if result.cells is None and result.new_source is not None]
            print(f"jax-codemod: the fix is in {', '.join(files)}, not in a cell: apply the diff printed after the error"
                  if files else "jax-codemod: no fix to offer for the last error (see the notes printed after it)")
            return
        self.shell.set_next_input("\n\n".join(source.rstrip("\n") for source in fixed), replace=False)

    @cell_magic("jax_codemod")
    def check_cell(self, line: str, cell: str) -> None:
        """%%jax_codemod: the cell's findings and fix, without running it."""
        from codemods.analysis.project import facts_of
        from codemods.engine import runner
        from codemods.engine.report import cell_diff, fix_diff, render_finding

        history = list(self.shell.history_manager.input_hist_raw[1:])
        if history and history[-1].lstrip().startswith("%%jax_codemod"):
            history = history[:-1]  # this very cell, stored before it ran: checked as its body
        # The earlier cells that do not parse are left empty; this one, if it does not parse, is
        # the engine's error to report (an explain.Notebook would raise SyntaxError building it).
        cells = _readable(history) + [cell]
        number = len(cells)
        raw = _document(cells)
        located = notebooks.read(SESSION, raw).cells
        config, selected, settings = _settings()

        def mine(finding) -> bool:
            where = located.locate(finding.line)
            return where is not None and where[0] == number

        index = _project_index(raw, config, selected, settings)
        facts = facts_of(index, SESSION)
        result = runner.process_source(SESSION, raw, selected, settings, accept=mine, facts=facts)
        if result.error:
            print(_in_terms(f"jax-codemod: {result.error}"))
            return
        findings = [finding for finding in result.findings if mine(finding)]
        if not findings:
            print("jax-codemod: nothing to change in this cell")
            return
        for finding in findings:
            print(_in_terms(render_finding(result, finding)))
        if result.new_source is not None:  # the fixes applied together
            print(_in_terms(cell_diff(str(SESSION), result.cells, result.cells.sources_of(result.after)).decode()), end="")
        for finding in findings:  # an unsafe fix, left out: its own diff, as `explain` shows it
            if finding.unapplied_fix:
                print(_in_terms((fix_diff(result, finding) or b"").decode()), end="")


def load_ipython_extension(ipython) -> None:
    magics = JaxCodemodMagics(ipython)
    ipython.register_magics(magics)
    ipython.events.register("post_run_cell", magics.post_run_cell)
    ipython._jax_codemod_magics = magics


def unload_ipython_extension(ipython) -> None:
    magics = getattr(ipython, "_jax_codemod_magics", None)
    if magics is not None:
        ipython.events.unregister("post_run_cell", magics.post_run_cell)
        # IPython keeps registered magics after an unload: `%jax_codemod` would call an object whose
        # errors are no longer recorded, and a later load would be shadowed by it.
        for table in ipython.magics_manager.magics.values():
            if getattr(table.get("jax_codemod"), "__self__", None) is magics:
                del table["jax_codemod"]
        del ipython._jax_codemod_magics
