"""Jupyter notebooks (`.ipynb`): their code cells as one Python module, and the fixed module back
into the notebook, as Ruff handles notebooks.

Reading: the notebook's JSON (stdlib `json`; nbformat is not needed) must be nbformat 4. Its code
cells, in order, are joined into one module (a cell not ending in a newline gets one), so that a
kernel defined in one cell and launched in a later one is found. IPython syntax is not Python: a
line magic (`%matplotlib inline`), a shell escape (`!pip list`, `files = !ls`), a help request (`f?`,
`?f`) and an autocall escape (`/f x`) become a placeholder statement (`pass`, padded with spaces),
and every line of a cell magic's cell (`%%bash` on its first line) a comment, each exactly as long
as the line it replaces. The magics whose code is Python keep it: `%timeit -n 3 f(x)` (`%time`,
`%prun`, also assigned: `t = %timeit -o f(x)`) becomes `if 1:        f(x)`, its code where it was, and
the body of a `%%time`/`%%timeit`/`%%prun` cell is Python (its first line a placeholder, or `if 1:`
before `%%timeit`'s setup code); a line or body that does not parse so is masked as any other. Offsets in a cell's part of the module are then offsets in the cell's own
source, and `Cells` maps module lines to (cell, line in cell). Cells are numbered from 1 counting
every cell, markdown and raw ones too, as Ruff and Jupyter number them.

Writing: the fixed module's edits are mapped back to the cells; an edit that touches an IPython
line outside its Python code (or breaks that code's line) or spans two cells is refused (`Cells.blocked`: the runner turns that finding's fix into a
[manual] note). Only the `source` value of each changed cell is replaced in the file's text: every
other byte (outputs, execution counts, metadata, key order, indentation, the final newline) stays.
A source stored as a list of lines stays a list, laid out as the file lays out its lists; a string
stays a string.
"""

from __future__ import annotations

import ast
import bisect
import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

from codemods.engine.diagnostics import TextEdit, apply_text_edits
from codemods.engine.source import ERROR_POSITION, SourceError

SUFFIX = ".ipynb"


def is_notebook(path: "Path | str") -> bool:
    return str(path).lower().endswith(SUFFIX)


# A JSON escape that spells a letter, a digit or `_` (`\u0061` for `a`): legal, though no notebook
# writer emits one, and it would hide a word from a byte search.
_ESCAPED_WORD_CHARACTER = re.compile(rb"\\u00(?:3[0-9]|4[1-9a-fA-F]|5[0-9aAfF]|6[1-9a-fA-F]|7[0-9aA])")
_OPENS_OBJECT = re.compile(rb"\s*\{")
_NBFORMAT_4 = re.compile(rb'"nbformat"\s*:\s*4\s*[,}]')


# What a rule's bytes must hold (Rule.needles): a byte string, or several that must all be present.
Needle = Union[bytes, tuple[bytes, ...]]


def holds(raw: bytes, needle: Needle) -> bool:
    return needle in raw if isinstance(needle, bytes) else all(part in raw for part in needle)


def may_need(raw: bytes, needles: Iterable[Needle]) -> bool:
    """Whether a notebook's bytes may hold code a rule acts on (`needles`: Rule.needles), without
    decoding its JSON, which costs five times what grep does: JSON keeps the words of code as they
    are. A notebook ruled out here is not read, as a `.py` file the prefilter rules out is not
    parsed; one that does not look whole (cut short, not nbformat 4) is read, so that read() says
    what is wrong with it."""
    return not _looks_whole(raw) or any(holds(raw, needle) for needle in needles) \
        or b"\\u00" in raw and _ESCAPED_WORD_CHARACTER.search(raw) is not None  # the regex: 5x the `in`


def fewest_needles(needles: Iterable[Needle]) -> tuple[Needle, ...]:
    """The needles without those that hold another (`jax-codemod:` holds `jax`; `(_ref, jax)`
    holds `jax`): bytes that hold none of these hold none of `needles`, and each needle left costs a
    pass over every notebook."""
    unique = set(needles)
    single = {needle for needle in unique if isinstance(needle, bytes)}
    parts = lambda needle: (needle,) if isinstance(needle, bytes) else needle  # noqa: E731
    return tuple(sorted((needle for needle in unique if not any(
        other in part for part in parts(needle) for other in single - {needle})), key=parts))


def _looks_whole(raw: bytes) -> bool:
    """A JSON object whose last key is nbformat's `"nbformat": 4` (nbformat writes its keys sorted)."""
    key = raw.rfind(b'"nbformat"')
    return _OPENS_OBJECT.match(raw) is not None and raw[-64:].rstrip()[-1:] == b"}" and key != -1 \
        and _NBFORMAT_4.match(raw, key) is not None


class NotebookError(SourceError):
    """A notebook we cannot read (not JSON, not nbformat 4) or write back; the message says why."""


@dataclass(frozen=True)
class CodeCell:
    number: int  # 1-based, counting every cell of the notebook
    start: int  # offset of its first character in the module text
    end: int  # offset after its last one (the newline added to a cell without one included)
    first_line: int  # 0-based index of its first line in the module
    source: str  # as stored in the notebook
    newline_added: bool
    ipython: tuple[tuple[int, int, str], ...]  # module offsets [start, end) of IPython lines, and the line
    cell_magic: bool  # `%%...` on its first line, a magic whose cell is not Python (`%%bash`, ...)
    # Module offsets [start, end) of the Python code inside IPython lines (`f()` of `%timeit -n 3 f()`):
    # analysed as any code, and a fix may change it.
    arguments: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Cells:
    """The module made of a notebook's code cells, and where each of its parts comes from."""

    text: str
    cells: tuple[CodeCell, ...]

    def locate(self, line: int) -> Optional[tuple[int, int]]:
        """(cell number, line in the cell) of the module's 1-based `line`; None before the first
        cell. A line past the last cell's end is counted on from that cell's start (a syntax error
        reported at the end of the module stays in the last cell)."""
        if line < 1 or not self.cells:
            return None
        index = bisect.bisect_right([cell.first_line for cell in self.cells], line - 1) - 1
        if index < 0:
            return None
        cell = self.cells[index]
        return cell.number, line - cell.first_line

    def _cell_of(self, edit: TextEdit) -> Optional[CodeCell]:
        """The cell an edit falls in; an insertion between two cells goes to the end of the earlier
        one (after the code it follows: imports, a helper), unless that one is a cell magic."""
        holding = [cell for cell in self.cells if cell.start <= edit.start and edit.end <= cell.end]
        if edit.start == edit.end:
            holding = [cell for cell in holding if not cell.cell_magic] or holding
        return holding[0] if holding else None

    def blocked(self, edits: Iterable[TextEdit]) -> Optional[str]:
        """Why these edits cannot be made in the notebook (None: they can)."""
        for edit in edits:
            cell = self._cell_of(edit)
            if cell is None:
                return "the fix spans two cells of the notebook"
            if cell.cell_magic:
                return f"the fix would change cell {cell.number}, a cell magic"
            for start, end, line in cell.ipython:
                inside = start < edit.start < end if edit.start == edit.end else edit.start < end and edit.end > start
                in_code = "\n" not in edit.content and any(
                    code_start <= edit.start and edit.end <= code_end for code_start, code_end in cell.arguments)
                if inside and not in_code:
                    return f"the fix would change IPython syntax in cell {cell.number} ({line.strip()})"
        return None

    def sources_after(self, edits: Sequence[TextEdit]) -> dict[int, str]:
        """Cell number -> new source, for each cell the edits change (raises NotebookError when
        `blocked` says they cannot be made)."""
        why = self.blocked(edits)
        if why is not None:
            raise NotebookError(why)
        by_cell: dict[int, list[TextEdit]] = {}
        for edit in edits:
            cell = self._cell_of(edit)
            assert cell is not None
            by_cell.setdefault(cell.number, []).append(
                TextEdit(edit.start - cell.start, edit.end - cell.start, edit.content))
        changed = {}
        for cell in self.cells:
            if cell.number not in by_cell:
                continue
            # The placeholders are as long as the lines they stand for: module offsets are the source's.
            new = apply_text_edits(cell.source + ("\n" if cell.newline_added else ""), by_cell[cell.number])
            # No more newlines at its end than it had: the blank lines a fix puts after a helper
            # separate it from the code that follows, in another cell here.
            had = len(cell.source) - len(cell.source.rstrip("\n"))
            if len(new) - len(new.rstrip("\n")) > had:
                new = new.rstrip("\n") + "\n" * had
            if new != cell.source:
                changed[cell.number] = new
        return changed

    def sources_of(self, text: str) -> dict[int, str]:
        """Cell number -> new source, for each cell that `text` (the fixed module) changes."""
        from codemods.engine.fixes import text_edits

        return self.sources_after(text_edits(self.text, text, by_line=True))

    def source(self, number: int) -> str:
        return next(cell.source for cell in self.cells if cell.number == number)

    def locate_message(self, message: str) -> str:
        """A parse error's `(line N, column M)` said in the notebook's terms."""
        def cell_terms(match: re.Match) -> str:
            where = self.locate(int(match["line"]))
            return match[0] if where is None else f"(cell {where[0]}, line {where[1]}, column {match['column']})"

        return ERROR_POSITION.sub(cell_terms, message)


@dataclass(frozen=True)
class NotebookSource:
    """A notebook read as Python: what the runner reads of a `SourceFile` (`text`, `encoding`,
    `encode`), with the cells it came from."""

    path: Path
    raw: bytes
    text: str
    cells: Cells
    json_text: str
    sources: tuple[object, ...]  # each cell's `source` as stored (str or list of str)
    encoding: str = "utf-8"

    @functools.cached_property
    def spans(self) -> tuple[Optional[tuple[int, int]], ...]:
        """Where each cell's `source` value lies in json_text (found only to write: a second
        reading of the whole file, outputs included)."""
        return _source_spans(self.json_text, len(self.sources))

    def encode(self, text: str) -> bytes:
        """The notebook's bytes with the fixed module `text` put back into its cells."""
        out = self.json_text
        for number, source in sorted(self.cells.sources_of(text).items(), reverse=True):
            span = self.spans[number - 1]
            if span is None:
                raise NotebookError(f"cell {number} has no `source` to write")
            start, end = span
            out = out[:start] + self._value(number, source) + out[end:]
        return out.encode("utf-8")

    def _value(self, number: int, source: str) -> str:
        """`source` as JSON, stored as the cell stored its old one."""
        ascii_only = self.raw.isascii() and b"\\u" in self.raw
        old = self.sources[number - 1]
        if isinstance(old, str):
            return json.dumps(source, ensure_ascii=ascii_only)
        lines = [line for line in re.split("(?<=\n)", source) if line]
        if not lines:
            return "[]"
        opening, separator, closing = self._list_layout(number)
        return "[" + opening + separator.join(json.dumps(line, ensure_ascii=ascii_only) for line in lines) + closing + "]"

    def _list_layout(self, number: int) -> tuple[str, str, str]:
        """The whitespace after `[`, between items (with the comma) and before `]` of the cell's list."""
        span = self.spans[number - 1]
        assert span is not None
        text = self.json_text
        start, end = span
        old = self.sources[number - 1]
        assert isinstance(old, list)
        if old:
            first = _skip(text, start + 1)
            opening = text[start + 1:first]
            after = _DECODER.raw_decode(text, first)[1]
            closing = _tail(text, start, end)
            if len(old) > 1:
                second = _skip(text, _skip(text, after) + 1)
                separator = text[after:second]
            else:
                separator = "," + opening if "\n" in opening else ", "
            return opening, separator, closing
        if "\n" not in text:
            return "", ", ", ""
        unit = re.match(r"\{\n([ \t]*)", text)
        indent = unit[1] if unit else " "
        line_start = text.rfind("\n", 0, start) + 1
        key_indent = re.match(r"[ \t]*", text[line_start:])[0]  # type: ignore[index]
        return "\n" + key_indent + indent, ",\n" + key_indent + indent, "\n" + key_indent


_DECODER = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _skip(text: str, index: int) -> int:
    return _WHITESPACE.match(text, index).end()  # type: ignore[union-attr]


def _tail(text: str, start: int, end: int) -> str:
    """The whitespace before the closing bracket of the value text[start:end]."""
    inner = text[start:end - 1]
    return inner[len(inner.rstrip(" \t\n\r")):]


def _members(text: str, index: int) -> tuple[list[tuple[str, int, int]], int]:
    """The members of the JSON object at `index` (key, value start, value end), and its end."""
    assert text[index] == "{"
    members = []
    index = _skip(text, index + 1)
    if text[index] == "}":
        return members, index + 1
    while True:
        key, index = json.decoder.scanstring(text, index + 1)
        index = _skip(text, _skip(text, index) + 1)  # past the colon
        _, end = _DECODER.raw_decode(text, index)
        members.append((key, index, end))
        index = _skip(text, end)
        if text[index] == "}":
            return members, index + 1
        index = _skip(text, index + 1)  # past the comma


def _source_spans(text: str, count: int) -> tuple[Optional[tuple[int, int]], ...]:
    """Where each cell's `source` value lies in the notebook's (valid JSON) text."""
    top, _ = _members(text, _skip(text, 0))
    cells = [(start, end) for key, start, end in top if key == "cells"][-1]
    spans: list[Optional[tuple[int, int]]] = []
    index = _skip(text, cells[0] + 1)
    while text[index] != "]":
        members, end = _members(text, index)
        sources = [(start, stop) for key, start, stop in members if key == "source"]
        spans.append(sources[-1] if sources else None)
        index = _skip(text, end)
        if text[index] == ",":
            index = _skip(text, index + 1)
    assert len(spans) == count
    return tuple(spans)


def read(path: Path, raw: bytes) -> NotebookSource:
    """The notebook at `path` (its bytes `raw`) as one Python module; NotebookError says why not."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotebookError(f"cannot read notebook: not UTF-8 ({error})") from None
    try:
        document = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        raise NotebookError(f"cannot read notebook: not valid JSON ({error})") from None
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        if isinstance(document, dict) and document.get("nbformat") not in (None, 4):
            raise NotebookError(f"cannot read notebook: nbformat {document.get('nbformat')!r}; only nbformat 4 is read")
        raise NotebookError("cannot read notebook: no `cells` list (not a Jupyter notebook)")
    if document.get("nbformat") != 4:
        raise NotebookError(f"cannot read notebook: nbformat {document.get('nbformat')!r}; only nbformat 4 is read")
    sources: list[object] = []
    for number, cell in enumerate(document["cells"], 1):
        if not isinstance(cell, dict):
            raise NotebookError(f"cannot read notebook: cell {number} is not an object")
        source = cell.get("source", "")
        if not (isinstance(source, str) or isinstance(source, list) and all(isinstance(s, str) for s in source)):
            raise NotebookError(f"cannot read notebook: cell {number}: `source` is not text")
        sources.append(source)
    python = _is_python(document)
    parts: list[str] = []
    cells: list[CodeCell] = []
    offset = line_count = 0
    for number, (cell, stored) in enumerate(zip(document["cells"], sources), 1):
        if cell.get("cell_type") != "code" or not python:
            continue
        source = stored if isinstance(stored, str) else "".join(stored)  # type: ignore[arg-type]
        lines = [line for line in re.split("(?<=\n)", source) if line]
        code, ipython, arguments, magic = _python_lines(lines, bool(lines) and lines[0].lstrip().startswith("%%"))
        added = bool(source) and not source.endswith("\n")
        module = "".join(code) + ("\n" if added else "")
        cells.append(CodeCell(number, offset, offset + len(module), line_count, source, added,
                              tuple((offset + start, offset + end, line) for start, end, line in ipython), magic,
                              tuple((offset + start, offset + end) for start, end in arguments)))
        parts.append(module)
        offset += len(module)
        line_count += len(lines)
    module_text = "".join(parts)
    return NotebookSource(path, raw, module_text, Cells(module_text, tuple(cells)), text, tuple(sources))


def _is_python(document: dict) -> bool:
    """Whether the notebook's kernel runs Python (a notebook that does not say is taken to)."""
    metadata = document.get("metadata")
    info = metadata.get("language_info") if isinstance(metadata, dict) else None
    name = info.get("name") if isinstance(info, dict) else None
    return not isinstance(name, str) or name.lower() == "python"


# A line IPython rewrites before Python sees it: a magic, a shell escape, help, an autocall escape.
_ESCAPE = ("%", "!", "?", "/", ";", ",")
_ASSIGNED_ESCAPE = re.compile(r"[\w.\s,()\[\]*]+(?<![=!<>+\-*/%&|^@:])=\s*[%!]")


# What every IPython line holds, looser than the scan below: a cell without it is plain Python and is
# not scanned character by character (most cells; the scan made reading a notebook cost 10x json).
_MAYBE_IPYTHON = re.compile(r"(?m)^[ \t]*[%!?/;,]|\?[ \t]*(?:#.*)?$|=\s*[%!]")


# Magics whose code is Python (their argument, and the body of their `%%` cell), with the options
# that take a value: IPython's own `%timeit -n 10 -r 3 f()`, `%prun -s cumulative f()`.
_PYTHON_MAGICS = {"time": "", "timeit": "nrp", "prun": "DTls"}
_MAGIC = re.compile(r"[ \t]*(?:[\w.\s,()\[\]*]+(?<![=!<>+\-*/%&|^@:])=[ \t]*)?%(?P<cell>%)?(?P<name>\w+)")
_WORD = re.compile(r"[ \t]+(\S+)")
_CODE_PREFIX = "if 1:"  # what a magic and its options become, so that its code stays where it is


def _python_magic(body: str, cell: bool) -> Optional[re.Match]:
    """`%time`, `%timeit` or `%prun` (`cell`: as a `%%` cell's first line), else None."""
    match = _MAGIC.match(body)
    return match if match is not None and match["name"] in _PYTHON_MAGICS and bool(match["cell"]) == cell else None


def _magic_code(body: str, cell: bool) -> Optional[int]:
    """Where the Python code of a `%time`/`%timeit`/`%prun` line starts, past the magic's options
    (`cell`: a `%%` cell's first line, whose code is `%%timeit`'s setup); None when it has none."""
    magic = _python_magic(body, cell)
    if magic is None:
        return None
    values, position = _PYTHON_MAGICS[magic["name"]], magic.end()
    while (word := _WORD.match(body, position)) is not None:
        option = word[1]
        if not (option.startswith("-") and option[1:2].isalpha()):
            return word.start(1)
        position = word.end()
        if len(option) == 2 and option[1] in values:  # `-n 10`: the value is the next word
            value = _WORD.match(body, position)
            if value is None:
                return None
            position = value.end()
    return None


def _parses(code: str) -> bool:
    try:
        compile(code, "<cell>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _python_lines(lines: list[str], cell_magic: bool) -> tuple[list[str], list[tuple[int, int, str]],
                                                                 list[tuple[int, int]], bool]:
    """The cell's lines with its IPython lines replaced by placeholders of the same length; where
    those lines are (offsets in the cell, newline included) with their text; where the Python code
    inside them is (offsets in the cell: `%timeit f()` becomes `if 1:  f()`, `f()` where it was);
    and whether the cell is a cell magic whose body is not Python (every line a comment)."""
    if cell_magic and _python_magic(lines[0].rstrip("\r\n"), cell=True) is not None:  # `%%timeit`: its body is Python
        code, ipython, arguments = _scan(lines, first_is_magic=True)
        if _parses("".join(code)):
            return code, ipython, arguments, False
    if cell_magic:
        code, ipython = [], []
        offset = 0
        for line in lines:
            body = line.rstrip("\r\n")
            if body.strip():
                ipython.append((offset, offset + len(line), body))
            code.append(("#" + " " * (len(body) - 1) if body.strip() else body) + line[len(body):])
            offset += len(line)
        return code, ipython, [], True
    if not _MAYBE_IPYTHON.search("".join(lines)):
        return lines, [], [], False
    return (*_scan(lines, first_is_magic=False), False)


def _scan(lines: list[str], first_is_magic: bool) -> tuple[list[str], list[tuple[int, int, str]], list[tuple[int, int]]]:
    """`_python_lines` for a cell of Python: its first line a `%%` magic's when `first_is_magic`."""
    out: list[str] = []
    ipython: list[tuple[int, int, str]] = []
    arguments: list[tuple[int, int]] = []
    offset = 0
    state = _State()
    for number, line in enumerate(lines):
        body = line.rstrip("\r\n")
        newline = line[len(body):]
        at_statement = state.at_statement_start()
        comment = state.scan(body)
        code = (body if comment is None else body[:comment]).strip()
        is_ipython = (number == 0 and first_is_magic) or at_statement and bool(code) and (
            code.startswith(_ESCAPE) or code.endswith("?") or bool(_ASSIGNED_ESCAPE.match(code)))
        if is_ipython:
            state.undo()
            ipython.append((offset, offset + len(line), body))
            start = _magic_code(body, cell=number == 0 and first_is_magic)
            indent = body[:len(body) - len(body.lstrip())]
            placeholder = None if start is None else indent + _CODE_PREFIX.ljust(start - len(indent)) + body[start:]
            if placeholder is not None and _parses(placeholder.lstrip()):
                arguments.append((offset + start, offset + len(body)))  # type: ignore[operator]
            else:
                placeholder = _placeholder(body)
            out.append(placeholder + newline)
        else:
            out.append(line)
        offset += len(line)
    return out, ipython, arguments


def _placeholder(body: str) -> str:
    """A statement that does nothing, as long as `body` and at its indentation."""
    indent = body[:len(body) - len(body.lstrip())]
    room = len(body) - len(indent)
    word = "pass" if room >= 4 else "0"
    return indent + word + " " * (room - len(word))


class _State:
    """Where a line starts: inside brackets, a triple-quoted string, or after a backslash."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote: Optional[str] = None  # the open triple quote
        self.continued = False
        self._saved = (0, None, False)

    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.continued

    def undo(self) -> None:
        self.depth, self.quote, self.continued = self._saved

    def scan(self, body: str) -> Optional[int]:
        """Advance past one line; the offset of its comment, if it has one. Jumps from one character
        that matters to the next (a regex search), not one character at a time: generated modules
        have long lines."""
        self._saved = (self.depth, self.quote, self.continued)
        self.continued = False
        index, size = 0, len(body)
        while index < size:
            if self.quote is not None:
                close = _closing(body, index, self.quote)
                if close < 0:
                    return None
                self.quote, index = None, close
                continue
            found = _SYNTAX.search(body, index)
            if found is None:
                return None
            index = found.start()
            char = body[index]
            if char == "#":
                return index
            if char in "\"'":
                quote = _quote_at(body, index)
                close = _string_end(body, index, quote)
                if close < 0 and len(quote) == 3:
                    self.quote = quote  # the string goes on on the next lines
                    return None
                index = size if close < 0 else close
                continue
            if char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            elif char == "\\" and index == size - 1:
                self.continued = True
            index += 1
        return None


# The characters `_State.scan` acts on; in a string, those that may end it (per quote); in an
# f-string, those that may also open a replacement field; in a field, those that matter there.
_SYNTAX = re.compile(r"""[#"'()\[\]{}\\]""")
_STRING_STOPS = {quote: re.compile("[\\\\" + quote[0] + "]") for quote in ('"', "'", '"""', "'''")}
_FSTRING_STOPS = {quote: re.compile("[\\\\{" + quote[0] + "]") for quote in ('"', "'", '"""', "'''")}
_FIELD_STOPS = re.compile(r"""["'()\[\]{}:]""")
_FORMAT_SPEC_STOPS = re.compile(r"[{}]")
_PREFIX_LETTERS = frozenset("rRbBuUfFtT")


def _quote_at(body: str, index: int) -> str:
    """The quote a string opens with at `index`: triple or single."""
    triple = body[index:index + 3]
    return triple if triple in ('"""', "'''") else body[index]


def _string_end(body: str, index: int, quote: str) -> int:
    """The offset after the string whose `quote` opens at `index` (-1: not on this line). An
    f-string's replacement fields may hold strings with the same quote (Python 3.12, PEP 701:
    `f"{d["key"]}"`), so they are followed, not taken for the end."""
    start = index
    while start > 0 and body[start - 1] in _PREFIX_LETTERS:
        start -= 1
    prefix = body[start:index] if start == 0 or not (body[start - 1].isalnum() or body[start - 1] == "_") else ""
    if "f" in prefix.lower() or "t" in prefix.lower():
        return _fstring_end(body, index + len(quote), quote)
    return _closing(body, index + len(quote), quote)


def _fstring_end(body: str, index: int, quote: str) -> int:
    """`_closing` for an f-string (or a template string): `{{` is a brace, `{` opens a field."""
    stops = _FSTRING_STOPS[quote]
    while (found := stops.search(body, index)) is not None:
        index = found.start()
        char = body[index]
        if char == "\\":
            index += 2
        elif char == "{":
            index = index + 2 if body.startswith("{{", index) else _field_end(body, index + 1)
            if index < 0:
                return -1
        elif body.startswith(quote, index):
            return index + len(quote)
        else:
            index += 1
    return -1


def _field_end(body: str, index: int) -> int:
    """The offset after the `}` that closes a replacement field whose expression starts at
    `index` (-1: not on this line). Brackets nest; a `:` outside them starts the format spec."""
    depth = 0
    while (found := _FIELD_STOPS.search(body, index)) is not None:
        index = found.start()
        char = body[index]
        if char in "\"'":
            quote = _quote_at(body, index)
            index = _string_end(body, index, quote)
            if index < 0:
                return -1
            continue
        if char in "([{":
            depth += 1
        elif char in ")]":
            depth = max(0, depth - 1)
        elif char == "}":
            if depth == 0:
                return index + 1
            depth -= 1
        elif depth == 0:  # ":" (a lambda or `:=` in a field is in parentheses)
            return _format_spec_end(body, index + 1)
        index += 1
    return -1


def _format_spec_end(body: str, index: int) -> int:
    """The offset after the `}` that ends a format spec (`:>{width}`): its text is literal, quotes
    included (`f"{x:'>9}"`), but for nested fields."""
    while (found := _FORMAT_SPEC_STOPS.search(body, index)) is not None:
        index = found.start()
        if body[index] == "}":
            return index + 1
        index = _field_end(body, index + 1)
        if index < 0:
            return -1
    return -1


def _closing(body: str, index: int, quote: str) -> int:
    """The offset after the `quote` that closes a string at `index` (-1: not on this line)."""
    stops = _STRING_STOPS[quote]
    while (found := stops.search(body, index)) is not None:
        index = found.start()
        if body[index] == "\\":
            index += 2
            continue
        if body.startswith(quote, index):
            return index + len(quote)
        index += 1
    return -1
