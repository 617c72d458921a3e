"""jax-codemod's transforms as a Bowler modifier (`pip install 'jax-codemod[bowler]'`).

Bowler selects nodes of a lib2to3 (fissix) tree and calls modifiers on them. This modifier takes the
whole module (the `file_input` root), runs the jax-codemod engine on its text — the engine
`jax-codemod` runs, so the new text is the CLI's — and swaps the root's children for the fissix
parse of the rewritten text, with the grammar Bowler parses Python 3 with. Use it on the root only::

    from bowler import Query
    from codemods.interop.bowler_modifier import jax_codemod_modifier, query

    # the ready query: all three transforms, each file's [tool.jax-codemod] config
    query(["src/"]).execute(write=True, interactive=False, silent=True)   # = .write()
    query(["src/"]).diff()                                                  # print the diff, write nothing

    # chosen transforms and options
    from codemods.rules import per_operand_precision
    from codemods.settings import Settings
    query("src/", rules=[per_operand_precision.RULE], settings=Settings(jax_version=(0, 12, 0, 1))).write()

    # inside a query of your own, next to other modifiers
    Query("src/").select_root().modify(jax_codemod_modifier).write()

Non-interactive runs need `interactive=False` (Bowler's `execute()` prompts per hunk by default) —
`.write()` or `.execute(write=True, interactive=False, silent=True)` to apply, `.diff()` to preview.
Bowler on Python >= 3.8 refactors in the calling process (its `in_process`), so the modifier needs no
pickling; findings go to `report` (default: one `path:line:col: CODE [kind] message` line each on
stderr).

Limits — all Bowler's, not the transforms':

* lib2to3's grammar stops short of recent syntax. A file with a `match` statement, PEP 695 generics
  (`def f[T](x: T)`, `class C[T]`, `type X = ...`), `except*`, positional-only parameters
  (`def f(a, /)`), parenthesized context managers or PEP 614 decorators cannot be parsed by Bowler:
  it logs "Can't parse <file>" and leaves the file untouched (the modifier is never called). Run
  `jax-codemod` or the libcst commands (`codemods.interop.libcst_commands`) on such files.
* Bowler writes through text-mode files: CRLF line endings become LF and the file is written in the
  locale's encoding. `jax-codemod --write` keeps both.
"""

from __future__ import annotations

import io
import sys
import tokenize
from pathlib import Path
from typing import Callable, Optional, Sequence, Union

try:
    from bowler import Query
    from fissix import pygram, pytree
    from fissix.pgen2 import driver
except ImportError as error:  # pragma: no cover - depends on the environment
    from codemods.extras import install_command

    raise ImportError(f"codemods.interop.bowler_modifier needs Bowler: {install_command('bowler')} ({error})") from error

from codemods.interop._shared import project_choices, rewrite
from codemods.engine.rule import Rule
from codemods.registry import RULES
from codemods.settings import Settings

# Bowler's Query(python_version=3) sets the `print_function` option: fissix then parses with its
# Python grammar less the print statement, which is this grammar.
GRAMMAR = pygram.python_grammar_no_print_statement


def _stderr(line: str) -> None:
    sys.stderr.write(line + "\n")


def _source_bytes(text: str) -> bytes:
    """The module text as bytes in the encoding it declares (Bowler hands over decoded text, BOM removed)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(text.encode("utf-8")).readline)
    except SyntaxError:
        encoding = "utf-8"
    return text.encode("utf-8" if encoding == "utf-8-sig" else encoding)


class JaxCodemodModifier:
    """A Bowler modifier `(node, capture, filename)` for the `file_input` root; rewrites it in place."""

    def __init__(
        self,
        rules: Sequence[Rule] = RULES,
        settings: Optional[Settings] = None,
        report: Callable[[str], None] = _stderr,
    ) -> None:
        self.rules = tuple(rules)
        self.settings = settings  # None: each file's project config, as `jax-codemod fix` reads it
        self.report = report

    def __call__(self, node: pytree.Base, capture: dict, filename: str) -> None:
        if node.parent is not None or node.type != pygram.python_symbols.file_input:
            raise ValueError("jax_codemod_modifier rewrites whole modules: use it after Query(...).select_root()")
        rules, settings = (self.rules, self.settings) if self.settings is not None else \
            project_choices(filename, self.rules)
        result = rewrite(filename, _source_bytes(str(node)), rules, settings)
        for finding in result.findings:
            self.report(finding.render(result.path))
        if result.error is not None:  # what the engine cannot decode or parse it leaves alone
            self.report(f"{result.path}: skipped: {result.error}")
            return
        if result.new_source is None:
            return
        new_root = driver.Driver(GRAMMAR, convert=pytree.convert).parse_string(result.after)
        for child in list(node.children):
            child.remove()
        for child in list(new_root.children):
            child.remove()
            node.append_child(child)


jax_codemod_modifier = JaxCodemodModifier()
"""All three transforms, with each file's settings as `jax-codemod fix` finds them."""


def query(
    paths: Union[str, Path, Sequence[Union[str, Path]]],
    *,
    rules: Sequence[Rule] = RULES,
    settings: Optional[Settings] = None,
    report: Callable[[str], None] = _stderr,
) -> Query:
    """`Query(paths).select_root().modify(<modifier>)`: call `.write()`, `.diff()` or `.execute(...)` on it.

    `settings` default: each file's `[tool.jax-codemod]` config, as `jax-codemod fix` reads it (the target
    jax found as it finds it, codemods/target.py; the CLI's default options); given, they are used as they are."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    return Query([str(path) for path in paths]).select_root().modify(JaxCodemodModifier(rules, settings, report))
