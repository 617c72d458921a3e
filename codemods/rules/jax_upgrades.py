"""JAX1xx: move code to a newer jax release, one rule per row of codemods/api_changes.py.

A row applies only where the target release (and the lowest release the project supports) has the
replacement and the old spelling is deprecated or gone there. The rows share one scan of each
module (codemods/upgrades/scan.py) and one transform (codemods/upgrades/transform.py); rows whose
call changes shape bring their own handlers (codemods/upgrades/core_calls.py, pallas_calls.py).
"""

from __future__ import annotations

import re
from typing import Optional

from codemods import api_changes
from codemods.analysis.names import display
from codemods.api_changes import ApiChange, Change
from codemods.capabilities import format_version
from codemods.engine.rule import Gate, ParsedFile, Rule
from codemods.upgrades import core_calls, layouts, pallas_calls
from codemods.upgrades.scan import Scan, named_on
from codemods.upgrades.transform import JaxUpgrade


class Upgrade(JaxUpgrade):
    handlers = {**core_calls.HANDLERS, **pallas_calls.HANDLERS, **layouts.HANDLERS}
    finders = {**core_calls.FINDERS, **pallas_calls.FINDERS}


# The word a file names a module by when it imports it (`from jax.experimental import pallas as pl`).
_MODULE_WORDS = (("jax.experimental.pallas", b"pallas"), ("jax.numpy", b"numpy"), ("jax.experimental", b"experimental"))
# An import statement of jax or of a module in it (`import os, jax`, `from jax import numpy`, `try:
# import jax`, a backslash continuation), not one in a comment or a doctest (`>>> import jax`): the
# scan reaches a `jax.` name only through one. Most files of a large tree that say `clip`, `product`
# or `config` (scipy's, numpy's) import no jax.
_IMPORT_OF_JAX = re.compile(rb"(?:import|from)\b(?:[^\r\n#;]|\\(?:\r\n?|\n))*?\bjax\b")
# What may come before a statement on its line: nothing but blanks (a form feed among them, as
# Python allows), or a `;` or a compound statement's `:` and blanks.
_STATEMENT_START = re.compile(rb"(?:\A|[;:])[ \t\f]*\Z")


def imports_jax(raw: bytes) -> bool:
    """An `import`/`from` that names jax and starts a statement (at its line's start, or after `;`
    or a compound statement's `:`). The keyword is searched for first, as a literal (a regex
    anchored at line starts tries every position: twice the time); each match's line (ended by
    any newline Python reads: LF, CRLF, or a lone CR) is then checked."""
    match = _IMPORT_OF_JAX.search(raw)
    while match is not None:
        line_start = max(raw.rfind(b"\n", 0, match.start()), raw.rfind(b"\r", 0, match.start())) + 1
        if _STATEMENT_START.search(raw[line_start:match.start()]):
            return True
        match = _IMPORT_OF_JAX.search(raw, match.start() + 1)  # not past its end: a later keyword may start a statement
    return False


def _gate(row: ApiChange) -> Optional[Gate]:
    """What every file referencing the row's old names holds: an import of jax, and the word of the
    module its old names live in; an attribute of any object: the part its words share with the
    other attributes' (`device_buffer`, `_layouts`: one search for several rows)."""
    if row.change is Change.ATTRIBUTE:
        return next((gate for gate in _ATTRIBUTE_GATES if all(gate.word in word for word in row.prefilter_words())), None)
    word = next((word for prefix, word in _MODULE_WORDS if all(old.startswith(prefix + ".") for old in row.old)), b"jax")
    return _GATES[word]


_GATES = {word: Gate(word, imports_jax, needle=b"jax") for word in (b"jax", *(word for _, word in _MODULE_WORDS))}
_ATTRIBUTE_GATES = (Gate(b"device_buffer"), Gate(b"_layouts"))


def _locate(rule: Rule, file: ParsedFile, line: int) -> Optional[tuple[int, int]]:
    """`Rule.locate`: the lines of the row's references that a traceback's `line` names, whatever
    the target (the error proves the jax that ran it retired the name; `plan` obeys the target)."""
    nodes = [reference.node for reference in Scan.of(file, Upgrade.finders).by_code.get(rule.code, [])
             if named_on(file.module, reference, frozenset({line}))]
    if not nodes:
        return None
    return min(line, *(node.lineno for node in nodes)), max(line, *(node.end_lineno for node in nodes))  # type: ignore[attr-defined]


# What the fix of a row whose call changes shape does to the call (`a_min=` -> `min=`), in the
# words of the handler's own tables: its summary and page say it, not `jnp.clip -> jnp.clip`.
CHANGES = {**core_calls.CHANGES, **pallas_calls.CHANGES}


def _rule(row: ApiChange) -> Rule:
    retired = ", ".join(f"{what} in jax {format_version(v)}" for what, v in
                        (("deprecated", row.deprecated), ("removed", row.removed)) if v is not None)
    olds = ", ".join(display(old) for old in row.old)
    new = (display(row.new) + (".<the same name>" if row.moves_members else "")) if row.new else "(no single replacement)"
    change = CHANGES.get(row.code)
    older = "".join(f"Where the project supports a jax older than {format_version(row.since)}: "
                    f"{'the arguments by position' if name == row.new else display(name)} "
                    f"(there from jax {format_version(since)} on)." for name, since in row.also)
    return Rule(
        code=row.code,
        name=row.name,
        summary=f"{change or f'{olds} -> {new}'} ({retired}).",
        what=f"""
            Rewrites {f"{olds} calls ({change})" if change else f"{olds} to {new} ({row.change.value})"} where the target jax has the replacement
            (since jax {format_version(row.since)}) and the old spelling is deprecated or removed.
            References through aliases and imports are followed; code inside version guards is left
            alone. {row.migration}{older}
        """,
        why=f"""
            {olds}: {retired}. Source: {row.source}.
        """,
        example=f"""
            {change.replace(" -> ", "  ->  ") if change else f"{olds.split(', ')[0]}  ->  {new}"}
        """,
        # One of the row's words, whole (`fix`, `clip` or `config` alone are everywhere), in a file
        # that names the module its old names live in.
        words=(),
        whole_words=row.prefilter_words(),
        requires=_gate(row),
        kernel_scoped=False,
        check=Upgrade.check,
        locate=_locate,
    )


RULES = tuple(_rule(row) for row in api_changes.TABLE)
