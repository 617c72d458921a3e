"""codemods/engine/notebook.py called directly, in the test's process: no subprocess, no jax, no
nbformat. tests/test_notebooks.py runs notebooks end to end through the CLI.

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks exact values (the
module the cells make, offsets, messages, the bytes written back), so that a one-line change of the
module fails one of them.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

from codemods.engine import notebook
from codemods.engine.diagnostics import TextEdit
from codemods.engine.notebook import Cells, CodeCell, NotebookError, _State, _closing, _quote_at, _string_end


def code(source, **fields) -> dict:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source, **fields}


def markdown(source) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def raw_cell(source) -> dict:
    return {"cell_type": "raw", "metadata": {}, "source": source}


def dump(cells: list, *, indent=1, metadata=None, final_newline=True, ensure_ascii=False) -> bytes:
    document = {"cells": cells, "metadata": {} if metadata is None else metadata, "nbformat": 4, "nbformat_minor": 5}
    text = json.dumps(document, indent=indent, ensure_ascii=ensure_ascii)
    return (text + ("\n" if final_newline else "")).encode()


def read(data: bytes) -> notebook.NotebookSource:
    return notebook.read(Path("nb.ipynb"), data)


def cell_tuple(cell: CodeCell) -> tuple:
    return (cell.number, cell.start, cell.end, cell.first_line, cell.newline_added, cell.cell_magic)


# -- is_notebook, may_need, fewest_needles --


def test_is_notebook_by_suffix_in_any_case() -> None:
    assert notebook.is_notebook("a/b.ipynb") and notebook.is_notebook(Path("B.IPYNB"))
    assert not notebook.is_notebook("b.py")
    assert notebook.is_notebook("ipynb") is False and notebook.is_notebook("x.ipynb.py") is False


PLAIN = dump([code(["x = 1\n"])])


def test_may_need_a_needle_in_the_bytes() -> None:
    assert not notebook.may_need(PLAIN, [b"jax", b"pallas"])
    assert notebook.may_need(PLAIN, [b"pallas", b"x = 1"])  # any needle, not only the first
    assert notebook.may_need(PLAIN, [b"x = 1", b"pallas"])
    assert not notebook.may_need(PLAIN, [])


@pytest.mark.parametrize("escape, hides_a_word", [
    (rb"\u0030", True), (rb"\u0039", True), (rb"\u003a", False), (rb"\u002f", False),  # digits
    (rb"\u0041", True), (rb"\u004f", True), (rb"\u004F", True), (rb"\u0040", False),  # A-O
    (rb"\u0050", True), (rb"\u005a", True), (rb"\u005A", True), (rb"\u005f", True), (rb"\u005F", True),  # P-Z, _
    (rb"\u005b", False), (rb"\u005e", False), (rb"\u0060", False),
    (rb"\u0061", True), (rb"\u006a", True), (rb"\u006F", True), (rb"\u0070", True), (rb"\u007a", True),
    (rb"\u007A", True), (rb"\u007b", False), (rb"\u0020", False), (rb"\u00e9", False), (rb"\u0130", False),
])
def test_may_need_an_escaped_word_character(escape: bytes, hides_a_word: bool) -> None:
    """A letter, digit or `_` spelled as a JSON escape may hide a needle: the notebook is read."""
    assert notebook.may_need(PLAIN.replace(b"x = 1", b"x = " + escape, 1), [b"jax"]) is hides_a_word


def test_a_notebook_that_does_not_look_whole_is_read() -> None:
    needles = [b"jax"]
    assert not notebook.may_need(b"  \n" + PLAIN + b"  \n\n", needles)  # whitespace around it: whole
    for broken in (PLAIN[:-10], b"[" + PLAIN + b"]", PLAIN.replace(b'"nbformat": 4', b'"nbformat": 3'),
                   PLAIN.replace(b'"nbformat": 4', b'"nbformat": 45'), PLAIN.replace(b'"nbformat": 4', b'"nb": 4'),
                   PLAIN + b"x", b"x" + PLAIN):
        assert notebook.may_need(broken, needles), broken
    # nbformat's key found last, however it is spaced; its value a whole 4
    assert not notebook.may_need(b'{"cells": [], "nbformat":4}', needles)
    assert not notebook.may_need(b'{"nbformat": 4}', needles)  # the key right after the brace
    assert not notebook.may_need(b'{"cells": [], "nbformat" :  4 , "nbformat_minor": 5}', needles)
    assert notebook.may_need(b'{"cells": [], "nbformat": 4.0}', needles)
    # The last "nbformat" key counts (one in a cell's source is escaped, never this).
    assert notebook.may_need(b'{"nbformat": 4, "metadata": {"nbformat": 3}}', needles)
    assert not notebook.may_need(b'{"metadata": {"nbformat": 3}, "nbformat": 4}', needles)


def test_the_end_is_looked_for_in_the_last_64_bytes() -> None:
    closed = PLAIN.rstrip()
    assert not notebook.may_need(closed + b" " * 63, [b"jax"])
    assert notebook.may_need(closed + b" " * 64, [b"jax"])


def test_fewest_needles_drops_those_holding_another() -> None:
    assert notebook.fewest_needles([b"jax-codemod:", b"pl.", b"jax", b"jax", b"lax"]) == (b"jax", b"lax", b"pl.")
    assert notebook.fewest_needles([b"b", b"a"]) == (b"a", b"b")  # sorted
    assert notebook.fewest_needles(iter([b"ab"])) == (b"ab",)
    assert notebook.fewest_needles([]) == ()
    # Several that must all be present: dropped where one of them holds a needle on its own.
    assert notebook.fewest_needles([(b"_ref", b"jax.lax"), b"jax", (b"_ref", b"precision")]) \
        == ((b"_ref", b"precision"), b"jax")  # sorted by their first parts
    assert notebook.fewest_needles([(b"_ref", b"precision"), b"_re"]) == (b"_re",)
    assert notebook.fewest_needles([(b"b", b"c"), (b"a", b"c")]) == ((b"a", b"c"), (b"b", b"c"))


@pytest.mark.parametrize("raw, found", [
    (b"def body(x_ref): dot(precision=p)", True), (b"def body(x_ref): pass", False),
    (b"precision=p", False), (b"_refprecision", True), (b"", False)])
def test_a_needle_of_several_parts_is_held_where_all_are(raw: bytes, found: bool) -> None:
    needle = (b"_ref", b"precision")
    assert notebook.holds(raw, needle) is found
    assert notebook.holds(raw, b"_ref") is (b"_ref" in raw)
    notebook_bytes = b'{"cells": [{"source": ["' + raw + b'"]}], "nbformat": 4}'
    assert notebook.may_need(notebook_bytes, [needle]) is found


# -- reading: the module, and where each cell is in it --


PRECEDING = {
    "empty-list": code([]),
    "empty-string": code(""),
    "blank-lines": code(["\n", "\n"]),
    "markdown": markdown(["# Title\n", "\n", "text"]),
    "raw": raw_cell(["raw\n", "text"]),
    "magics-only": code(["%load_ext autoreload\n", "%autoreload 2"]),
    "no-final-newline": code("import functools\nx = 1"),
    "cell-magic": code(["%%bash\n", "echo jax\n", "\n", "ls"]),
    "no-source": {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None},
}
# (module text of the cell, lines it has in the module)
PRECEDING_MODULE = {
    "empty-list": ("", 0),
    "empty-string": ("", 0),
    "blank-lines": ("\n\n", 2),
    "markdown": None,
    "raw": None,
    "magics-only": ("pass                \npass         \n", 2),
    "no-final-newline": ("import functools\nx = 1\n", 2),
    "cell-magic": ("#     \n#       \n\n# \n", 4),
    "no-source": ("", 0),
}


@pytest.mark.parametrize("kind", PRECEDING)
def test_positions_after_a_cell_of_every_kind(kind: str) -> None:
    cells = [code(["import jax"]), PRECEDING[kind], code(["\n", "y = jax.numpy.ones(3)"])]
    source = read(dump(cells))
    module, lines = PRECEDING_MODULE[kind] or ("", 0)
    assert source.text == "import jax\n" + module + "\ny = jax.numpy.ones(3)\n"
    numbers = [cell.number for cell in source.cells.cells]
    assert numbers == ([1, 3] if PRECEDING_MODULE[kind] is None else [1, 2, 3])
    last = source.cells.cells[-1]
    assert (last.start, last.end, last.first_line) == (11 + len(module), len(source.text), 1 + lines)
    assert last.newline_added and last.source == "\ny = jax.numpy.ones(3)"
    # module line -> (cell, line in the cell): the last cell's second line is `y = ...`
    assert source.cells.locate(2 + lines + 1) == (3, 2)
    assert source.cells.locate(1) == (1, 1)
    if lines:
        assert source.cells.locate(2) == (2, 1) and source.cells.locate(1 + lines) == (2, lines)


def test_cell_offsets_and_flags() -> None:
    source = read(dump([code("a = 1\n"), markdown("m"), code(["b = 2\n", "c = 3"]), code(["%%bash\n", "ls\n"])]))
    assert source.text == "a = 1\nb = 2\nc = 3\n#     \n# \n"
    assert [cell_tuple(cell) for cell in source.cells.cells] == [
        (1, 0, 6, 0, False, False), (3, 6, 18, 1, True, False), (4, 18, 28, 3, False, True)]
    assert [cell.source for cell in source.cells.cells] == ["a = 1\n", "b = 2\nc = 3", "%%bash\nls\n"]
    assert source.cells.cells[2].ipython == ((18, 25, "%%bash"), (25, 28, "ls"))
    assert source.sources == ("a = 1\n", "m", ["b = 2\n", "c = 3"], ["%%bash\n", "ls\n"])
    assert source.json_text == dump([code("a = 1\n"), markdown("m"), code(["b = 2\n", "c = 3"]),
                                     code(["%%bash\n", "ls\n"])]).decode()
    assert source.path == Path("nb.ipynb") and source.encoding == "utf-8"
    assert source.cells.text == source.text


def test_ipython_offsets_are_module_offsets() -> None:
    source = read(dump([code("a = 1\n"), code(["x = 2\n", "!ls\n", "%timeit f(x)\n"])]))
    cell = source.cells.cells[1]
    assert source.text == "a = 1\nx = 2\n0  \nif 1:   f(x)\n"
    assert cell.ipython == ((12, 16, "!ls"), (16, 29, "%timeit f(x)"))
    assert cell.arguments == ((24, 28),) and source.text[24:28] == "f(x)"


def test_locate() -> None:
    cells = read(dump([code("a\nb\n"), code(""), code("c\n")])).cells
    assert [cells.locate(line) for line in (0, -1, 1, 2, 3)] == [None, None, (1, 1), (1, 2), (3, 1)]
    assert cells.locate(4) == (3, 2)  # past the end: counted on in the last cell, as its docstring says
    assert Cells("", ()).locate(1) is None
    assert cells.locate_message("bad (line 3, column 4) and (line 1, column 2); (line 0, column 1)") == \
        "bad (cell 3, line 1, column 4) and (cell 1, line 1, column 2); (line 0, column 1)"
    assert cells.source(3) == "c\n" and cells.source(1) == "a\nb\n"


def test_a_notebook_of_another_language_has_no_code() -> None:
    cells = [code("x = 1\n")]
    for language, python in (({"name": "R"}, False), ({"name": "Python"}, True), ({"name": "python"}, True),
                             ({"name": 3}, True), ({}, True), ("python", True), (None, True)):
        source = read(dump(cells, metadata={"language_info": language}))
        assert (source.text == "x = 1\n") is python, language
    assert read(dump(cells, metadata=None)).text == "x = 1\n"
    data = json.dumps({"cells": cells, "metadata": ["language_info"], "nbformat": 4}).encode()
    assert read(data).text == "x = 1\n"


# -- reading: what is not a notebook --


@pytest.mark.parametrize("data, message", [
    (b"\xff{}", "cannot read notebook: not UTF-8 ('utf-8' codec can't decode byte 0xff in position 0: invalid "
                "start byte)"),
    (b"{", "cannot read notebook: not valid JSON (Expecting property name enclosed in double quotes: line 1 "
           "column 2 (char 1))"),
    (b"[" * 100000 + b"]" * 100000, None),  # too deep: RecursionError
    (b"[]", "cannot read notebook: no `cells` list (not a Jupyter notebook)"),
    (b'{"nbformat": 4}', "cannot read notebook: no `cells` list (not a Jupyter notebook)"),
    (b'{"cells": {}, "nbformat": 4}', "cannot read notebook: no `cells` list (not a Jupyter notebook)"),
    (b'{"worksheets": [], "nbformat": 3}', "cannot read notebook: nbformat 3; only nbformat 4 is read"),
    (b'{"cells": [], "nbformat": 3}', "cannot read notebook: nbformat 3; only nbformat 4 is read"),
    (b'{"cells": []}', "cannot read notebook: nbformat None; only nbformat 4 is read"),
    (b'{"cells": [], "nbformat": "4"}', "cannot read notebook: nbformat '4'; only nbformat 4 is read"),
    (b'{"cells": [{}, 1], "nbformat": 4}', "cannot read notebook: cell 2 is not an object"),
    (b'{"cells": [{"source": 1}], "nbformat": 4}', "cannot read notebook: cell 1: `source` is not text"),
    (b'{"cells": [{}, {"source": ["a", 1]}], "nbformat": 4}', "cannot read notebook: cell 2: `source` is not text"),
    (b'{"cells": [{"source": null}], "nbformat": 4}', "cannot read notebook: cell 1: `source` is not text"),
])
def test_what_cannot_be_read_is_said(data: bytes, message) -> None:
    with pytest.raises(NotebookError) as raised:
        read(data)
    if message is None:
        assert str(raised.value).startswith("cannot read notebook: not valid JSON (maximum recursion depth")
    else:
        assert str(raised.value) == message
    assert raised.value.__cause__ is None
    if "not UTF-8" in str(raised.value) or "not valid JSON" in str(raised.value):
        assert raised.value.__suppress_context__  # `from None`: the decoder's traceback is not ours


def test_what_can_be_read_without_code() -> None:
    assert read(b'{"cells": [], "nbformat": 4}').text == ""
    source = read(b'{"cells": [{"cell_type": "code", "source": ["a", "b\\n"]}, {"source": "x"}], "nbformat": 4}')
    assert source.text == "ab\n" and source.sources == (["a", "b\n"], "x")
    assert read(b'{"nbformat": 4, "cells": [{"cell_type": "code", "source": "1"}], "metadata": 5}').text == "1\n"


# -- IPython lines: what becomes a placeholder --


def module_of(cell: str) -> str:
    return read(dump([code(cell)])).text


@pytest.mark.parametrize("line, module", [
    ("%matplotlib inline", "pass              "),
    ("!ls", "0  "),
    ("!ls -la", "pass   "),
    ("!l", "0 "),
    ("%x", "0 "),
    ("?f", "0 "),
    ("f?", "0 "),
    ("f??", "0  "),
    ("f?  # help", "pass      "),
    ("/f x", "pass"),
    (";f x", "pass"),
    (",f x", "pass"),
    ("files = !ls", "pass       "),
    ("x.y, z = %env", "pass         "),
    ("x = %env", "pass    "),
    ("d[0] = !ls", "pass      "),
    ("    %time f()", "    if 1: f()"),
    ("x == !ls", "x == !ls"),  # not an assignment
    ("x != %y", "x != %y"),
    ("x += !y", "x += !y"),
    ("x <= %y", "x <= %y"),
    ("x >= %y", "x >= %y"),
    ("x -= !y", "x -= !y"),
    ("x *= !y", "x *= !y"),
    ("x /= !y", "x /= !y"),
    ("x %= !y", "x %= !y"),
    ("x &= !y", "x &= !y"),
    ("x |= !y", "x |= !y"),
    ("x ^= !y", "x ^= !y"),
    ("x @= !y", "x @= !y"),
    ("x := !y", "x := !y"),
    ("x = 1  # why?", "x = 1  # why?"),
    ("x = 'why?'", "x = 'why?'"),
    ("x = 5 % 2", "x = 5 % 2"),
    ("print(a ? b)", "print(a ? b)"),  # not at a statement's start? it ends in `)`: not help either
])
def test_ipython_lines(line: str, module: str) -> None:
    assert module_of("import os\n" + line + "\n") == "import os\n" + module + "\n"


@pytest.mark.parametrize("cell, module", [
    ("x = (1,\n!ls)\n", "x = (1,\n!ls)\n"),  # in brackets
    ("x = [1,\n%a]\n", "x = [1,\n%a]\n"),
    ("x = {1:\n?a}\n", "x = {1:\n?a}\n"),
    ("x = (1)\n!ls\n", "x = (1)\n0  \n"),  # closed
    ("x = [(1)]\n!ls\n", "x = [(1)]\n0  \n"),
    ("x = ((1)\n!ls)\n", "x = ((1)\n!ls)\n"),  # one closing bracket closes one
    ("x = {(1)}\n!ls\n", "x = {(1)}\n0  \n"),
    ("x = )\n!ls\n", "x = )\n0  \n"),  # an unmatched closing bracket does not count below 0
    ("x = ))\n(1,\n!ls)\n", "x = ))\n(1,\n!ls)\n"),
    ("x = '''\n!ls\n'''\n!ls\n", "x = '''\n!ls\n'''\n0  \n"),  # in a triple-quoted string
    ('x = """\n!ls\n"""\n!ls\n', 'x = """\n!ls\n"""\n0  \n'),
    ("x = '''a''' + '''\n!ls\n'''\n", "x = '''a''' + '''\n!ls\n'''\n"),
    ("x = '''\n''' + \"\"\"\n!ls\n\"\"\"\n", "x = '''\n''' + \"\"\"\n!ls\n\"\"\"\n"),
    ("x = '''\n\\'''\n!ls\n'''\n", "x = '''\n\\'''\n!ls\n'''\n"),  # an escaped quote does not close
    ("x = '''\n\\''''\n!ls\n", "x = '''\n\\''''\n0  \n"),  # the three after it do
    ("x = 1 + \\\n!ls\n", "x = 1 + \\\n!ls\n"),  # after a backslash
    ("x = ''''''\n!ls\n", "x = ''''''\n0  \n"),  # an empty triple-quoted string
    ("x = 1 + \\\n2\n!ls\n", "x = 1 + \\\n2\n0  \n"),
    ("x = '\\\\'\n!ls\n", "x = '\\\\'\n0  \n"),  # a backslash in a string is not a continuation
    ("x = 1 \\ 2\n!ls\n", "x = 1 \\ 2\n0  \n"),  # nor one that does not end the line
    ("x = '(' + \"[\"\n!ls\n", "x = '(' + \"[\"\n0  \n"),  # brackets in strings
    ("x = '\\'('\n!ls\n", "x = '\\'('\n0  \n"),
    ("x = 'it''s ('\n!ls\n", "x = 'it''s ('\n0  \n"),
    ("x = 'a\n!ls\n", "x = 'a\n0  \n"),  # a string not closed on its line ends there
    ("x = 1  # (\n!ls\n", "x = 1  # (\n0  \n"),  # brackets in comments
    ("x = '#' + (\n!ls)\n", "x = '#' + (\n!ls)\n"),
    ("x = '''# (\n'''\n!ls\n", "x = '''# (\n'''\n0  \n"),
    ("!ls (\n!ls\n", "pass \n0  \n"),  # an IPython line's brackets do not count
    ("!ls '''\n!ls\n", "pass   \n0  \n"),
    ("!ls \\\n!ls\n", "pass \n0  \n"),
    ("  \n!ls\n", "  \n0  \n"),
])
def test_the_scan_knows_where_a_statement_starts(cell: str, module: str) -> None:
    assert module_of(cell) == module


def test_placeholders_keep_the_indent_and_the_line_ending() -> None:
    assert module_of("if x:\n    !ls -l\n  !a\n") == "if x:\n    pass  \n  0 \n"
    assert module_of("!ls -l\r\n!abcd\r\n") == "pass  \r\npass \r\n"
    assert notebook._placeholder("    abcd") == "    pass" and notebook._placeholder("  abc") == "  0  "
    assert notebook._placeholder("\tab") == "\t0 "


# -- magics whose code is Python --


@pytest.mark.parametrize("line, module, inside", [
    ("%time f(x)", "if 1: f(x)", "f(x)"),
    ("%timeit f(x)", "if 1:   f(x)", "f(x)"),
    ("%prun f(x)", "if 1: f(x)", "f(x)"),
    ("%timeit -n 3 -r2 f(x)", "if 1:            f(x)", "f(x)"),
    ("%timeit -n 3 -r 2 -q -o f(x)", "if 1:" + " " * 19 + "f(x)", "f(x)"),
    ("%prun -s cumulative -D out -T t -l 5 -q f(x)", "if 1:" + " " * 35 + "f(x)", "f(x)"),
    ("%time -1", "if 1: -1", "-1"),  # `-1` is code, not an option
    ("%time -n 1", "if 1:    1", "1"),  # %time takes no option value: `-n` is an option, `1` code
    ("t = %timeit -o f(x)", "if 1:" + " " * 10 + "f(x)", "f(x)"),
    ("  %time f(x)", "  if 1: f(x)", "f(x)"),
    ("%timeit -n", "pass      ", None),  # no value: no code
    ("%timeit -n 3", "pass        ", None),
    ("%timeit", "pass   ", None),
    ("%timeit -q", "pass      ", None),
    ("%time for i in x: f(i)", "pass" + " " * 18, None),  # code that does not parse after `if 1:`
    ("%time f(x", "pass     ", None),
    ("%matplotlib f(x)", "pass" + " " * 12, None),
    ("%%time f(x)", "if 1:  f(x)", "f(x)"),  # a cell magic's first line
    ("%time\tf(x)", "if 1: f(x)", "f(x)"),
    ("%time return f(x)", "if 1: return f(x)", "return f(x)"),  # parsed, not compiled: `return` is fine
    ("x = 1\n%time f(x)", "x = 1\nif 1: f(x)", "f(x)"),
    ("x = 1\n%%time f(x)", "x = 1\npass       ", None),  # a cell magic's name, not on the first line
])
def test_python_magics_keep_their_code(line: str, module: str, inside) -> None:
    source = read(dump([code(line + "\n")]))
    assert source.text == module + "\n"
    arguments = source.cells.cells[0].arguments
    assert [source.text[start:end] for start, end in arguments] == ([] if inside is None else [inside])


def test_magic_code() -> None:
    assert notebook._magic_code("%timeit -n 3 f()", cell=False) == 13
    assert notebook._magic_code("%%timeit -n 3 f()", cell=False) is None
    assert notebook._magic_code("%%timeit -n 3 f()", cell=True) == 14
    assert notebook._magic_code("%timeit -n 3 f()", cell=True) is None
    assert notebook._magic_code("%timeit -n 3", cell=False) is None
    assert notebook._magic_code("%time -xy f()", cell=False) == 10
    assert notebook._magic_code("%time - f()", cell=False) == 6
    assert notebook._magic_code("%time x", cell=False) == 6
    assert notebook._magic_code("%timeit -nr f()", cell=False) == 12  # a long option takes no value
    assert notebook._magic_code("%prun -s", cell=False) is None
    assert notebook._magic_code("%prun -D", cell=False) is None
    assert notebook._magic_code("%prun -T a b", cell=False) == 11
    assert notebook._magic_code("%prun -l a b", cell=False) == 11
    assert notebook._magic_code("%timeit -p 3 b", cell=False) == 13
    assert notebook._magic_code("%prun -r 3 b", cell=False) == 9  # -r is a timeit option, not prun's
    assert notebook._magic_code("%time -s 3 b", cell=False) == 9
    assert notebook._magic_code("x, y = %time f()", cell=False) == 13
    assert notebook._magic_code("x == %time f()", cell=False) is None
    assert notebook._python_magic("%time", cell=False)["name"] == "time"
    assert notebook._python_magic("%timer", cell=False) is None


@pytest.mark.parametrize("cell, module, magic, inside", [
    ("%%time\nx = f()\n", "pass  \nx = f()\n", False, []),
    ("%%timeit\nx = f()\n", "pass    \nx = f()\n", False, []),
    ("%%timeit -n 1 y = g()\nx = f()\n", "if 1:         y = g()\nx = f()\n", False, ["y = g()"]),
    ("%%prun -s t\nx = f()", "pass       \nx = f()\n", False, []),
    ("%%timeit\nx = f()\n  y = 2\n", "#       \n#      \n#      \n", True, []),  # a body that is not Python
    ("%%timeit\n!ls\nx = f()\n", "pass    \n0  \nx = f()\n", False, []),
    ("%%bash\nx = f()\n", "#     \n#      \n", True, []),
    ("  %%bash\n\n  \nls\n", "#       \n\n  \n# \n", True, []),
    ("%%bash", "#     \n", True, []),
    ("%%writefile a.py\nx = 1\r\n", "#               \n#    \r\n", True, []),
    ("%%timeit f(\nx = f()\n", "pass       \nx = f()\n", False, []),  # its setup does not parse
    ("%%timeit\nfor i in x:\n    f(i)\n", "pass    \nfor i in x:\n    f(i)\n", False, []),
    ("%%timeitX\nx = 1\n", "#        \n#    \n", True, []),  # another magic
    ("%%bash\nX\n", "#     \n#\n", True, []),
])
def test_cell_magics(cell: str, module: str, magic: bool, inside: list) -> None:
    source = read(dump([markdown("m"), code(cell)]))
    assert source.text == module
    only = source.cells.cells[0]
    assert only.cell_magic is magic and only.number == 2
    assert [source.text[start:end] for start, end in only.arguments] == inside
    assert only.ipython[0] == (0, len(cell.split("\n")[0]) + ("\n" in cell), cell.split("\n")[0])


def test_the_lines_of_a_cell_magic_as_they_are() -> None:
    source = read(dump([code("x = 1\n"), code("%%bash\nls  \n\necho\r\n")]))
    assert source.text == "x = 1\n#     \n#   \n\n#   \r\n"
    assert source.cells.cells[1].ipython == ((6, 13, "%%bash"), (13, 18, "ls  "), (19, 25, "echo"))


def test_an_ipython_line_as_it_is() -> None:
    source = read(dump([code("x = 1\n!ls  \n%time f()  \n!lsX\n")]))
    assert source.text == "x = 1\npass \nif 1: f()  \npass\n"
    cell = source.cells.cells[0]
    assert cell.ipython == ((6, 12, "!ls  "), (12, 24, "%time f()  "), (24, 29, "!lsX"))
    assert cell.arguments == ((18, 23),)  # `f()  `


def test_a_python_cell_magic_is_looked_for_at_the_start_of_the_line() -> None:
    """A stray carriage return before `%%timeit` (a cell magic to the `%%` test, which strips it): not
    the magic `_MAGIC` knows, so the cell is masked as any other cell magic, not analysed."""
    source = read(dump([code("\r%%timeit\nx = 1\n")]))
    assert source.text == "#        \n#    \n" and source.cells.cells[0].cell_magic


def test_the_first_line_of_a_cell_magic_is_ipython_even_if_not_at_a_statement_start() -> None:
    """`%%timeit` whose first line would open a bracket."""
    source = read(dump([code("%%timeit (\nx = 1\n")]))
    assert source.text == "pass      \nx = 1\n" and not source.cells.cells[0].cell_magic


def test_a_cell_not_scanned_without_an_ipython_look() -> None:
    lines = ["x = 1\n", "y = 2\n"]
    assert notebook._python_lines(lines, False) == (lines, [], [], False)
    for text in ("  %a", "\t!a", "?a", "/a", ";a", ",a", "a?", "a?  # b", "a = %b", "a =!b", "a?\t"):
        assert notebook._MAYBE_IPYTHON.search("x = 1\n" + text + "\ny = 2\n"), text
    for text in ("a ? b", "a % b", "a != b", "a = b", "a = 'b?' + c"):
        assert not notebook._MAYBE_IPYTHON.search("x = 1\n" + text + "\ny = 2\n"), text


# -- _State and _closing --


def scan_all(lines: list[str]) -> list[tuple]:
    state = _State()
    out = []
    for line in lines:
        start = state.at_statement_start()
        comment = state.scan(line)
        out.append((start, comment, state.depth, state.quote, state.continued))
    return out


def test_state_scan() -> None:
    assert scan_all(["x = (1,  # c", "2)  # d", "y"]) == [
        (True, 9, 1, None, False), (False, 4, 0, None, False), (True, None, 0, None, False)]
    assert scan_all(["a = [{(", "]]]]", "b"]) == [
        (True, None, 3, None, False), (False, None, 0, None, False), (True, None, 0, None, False)]
    assert scan_all(["s = '''a # b", "c ' # d", "e'''  # f", "g"]) == [
        (True, None, 0, "'''", False), (False, None, 0, "'''", False), (False, 6, 0, None, False),
        (True, None, 0, None, False)]
    assert scan_all(['s = """x""" # y', '"""', '"""#']) == [
        (True, 12, 0, None, False), (True, None, 0, '"""', False), (False, 3, 0, None, False)]
    assert scan_all(["x = 1 + \\", "2", "'a\\", "b"]) == [
        (True, None, 0, None, True), (False, None, 0, None, False), (True, None, 0, None, False),
        (True, None, 0, None, False)]
    assert scan_all(["'#' \"#\" # c"]) == [(True, 8, 0, None, False)]
    assert scan_all(["'''a''' '''b''' # c"]) == [(True, 16, 0, None, False)]
    assert scan_all(["x = ''", "# c"]) == [(True, None, 0, None, False), (True, 0, 0, None, False)]


def test_state_undo_goes_back_to_before_the_last_line() -> None:
    state = _State()
    state.scan("x = (")
    state.scan("[{ '''")
    assert (state.depth, state.quote) == (3, "'''")
    state.undo()
    assert (state.depth, state.quote, state.continued) == (1, None, False)
    state.scan("1 + \\")
    assert state.continued
    state.scan("'''")
    state.undo()
    assert (state.depth, state.quote, state.continued) == (1, None, True)
    assert not state.at_statement_start()
    fresh = _State()
    fresh.undo()
    assert (fresh.depth, fresh.quote, fresh.continued) == (0, None, False) and fresh.at_statement_start()
    fresh.quote = "'''"
    assert not fresh.at_statement_start()


@pytest.mark.parametrize("line, end", [
    ('f"{d["("]}" + x', 11),  # Python 3.12 (PEP 701): the field holds the f-string's own quote
    ("f'{d['a']['b']}' + x", 16),
    ('f"{{" + "}}"', 5),  # `{{` is a brace, not a field
    ('f"{x:\'>9}" # c', 10),  # a quote in a format spec is its fill character
    ('f"{x:>{w}}{y!r}" + z', 16),  # a field in a format spec; a conversion
    ("f'{ {'a': 1}['a'] }' + x", 20),  # a dict in a field: its braces nest
    (r'rf"{x}\\" + y', 9), (r'f"\"{x}" + y', 8),  # a doubled backslash, then the closing quote; an escaped quote
    ('F"""a{d["""b"""]}""" + c', 20),  # triple quotes nested in a triple-quoted f-string
    ('t"{d["k"]}" + x', 11),  # a template string (Python 3.14) has fields too
    ('f"{x', -1), ('f"{x}', -1), ('f"a', -1),  # not closed on this line
    ('b"{" + "}"', 4), ('"{" + x', 3),  # no f: braces are text
])
def test_string_end(line: str, end: int) -> None:
    opening = min(line.index(quote) for quote in "\"'" if quote in line)
    assert _string_end(line, opening, _quote_at(line, opening)) == end
    if end > 0 and sys.version_info >= (3, 12) and not line.startswith("t"):  # Python agrees
        assert isinstance(ast.parse(line[:end]).body[0], ast.Expr)


def test_a_name_ending_in_f_before_a_quote_is_no_prefix() -> None:
    """`elif"x" in s:` is valid Python: the `f` of `elif` makes no f-string of `"x"`."""
    assert scan_all(['elif"{" in s:  # c', "y"]) == [(True, 15, 0, None, False), (True, None, 0, None, False)]


def test_state_scan_follows_fields_that_hold_their_f_strings_quote() -> None:
    assert scan_all(['print(f"{d["("]}")  # c', "%time x = 1"]) == [
        (True, 20, 0, None, False), (True, None, 0, None, False)]
    assert scan_all(['s = f"""{d["a"]}', '"""  # c']) == [(True, None, 0, '"""', False), (False, 5, 0, None, False)]


def test_closing() -> None:
    assert _closing("'abc' x", 1, "'") == 5
    assert _closing("'a\\'c' x", 1, "'") == 6
    assert _closing("'a\\\\' x", 1, "'") == 5
    assert _closing("'a\"c' x", 1, "'") == 5
    assert _closing('"a\'c" x', 1, '"') == 5
    assert _closing("'abc", 1, "'") == -1
    assert _closing("'ab\\", 1, "'") == -1
    assert _closing("a''' b '''", 4, "'''") == 10
    assert _closing("a '' ' '''", 0, "'''") == 10
    assert _closing("x''", 0, "'''") == -1
    assert _closing('x """ """', 5, '"""') == 9
    assert _closing("x\\''''", 0, "'''") == 6
    assert _closing("'\\''''", 0, "'''") == 6  # a lone quote, then an escaped one: not the closing one


# -- Cells: where an edit may go --


def magic_cells() -> notebook.NotebookSource:
    return read(dump([code("import os\n"), code(["%matplotlib inline\n", "x = 1\n", "%timeit f(x)\n"]),
                      code(["%%bash\n", "ls\n"]), code("y = 2\n")]))


def test_cells_layout_of_the_magic_notebook() -> None:
    source = magic_cells()
    assert source.text == "import os\npass              \nx = 1\nif 1:   f(x)\n#     \n# \ny = 2\n"
    assert [cell_tuple(cell) for cell in source.cells.cells] == [
        (1, 0, 10, 0, False, False), (2, 10, 48, 1, False, False), (3, 48, 58, 4, False, True),
        (4, 58, 64, 6, False, False)]
    assert source.cells.cells[1].ipython == ((10, 29, "%matplotlib inline"), (35, 48, "%timeit f(x)"))
    assert source.cells.cells[1].arguments == ((43, 47),)


@pytest.mark.parametrize("edit, why", [
    (TextEdit(0, 6, "from"), None),
    (TextEdit(10, 10, "import sys\n"), None),  # an insertion at the start of a magic line
    (TextEdit(10, 10, "x"), None),  # so is the cell's first offset: the end of cell 1
    (TextEdit(35, 35, "y = 0\n"), None),  # a line inserted before a magic line inside the cell
    (TextEdit(11, 11, "x"), "the fix would change IPython syntax in cell 2 (%matplotlib inline)"),
    (TextEdit(28, 28, "x"), "the fix would change IPython syntax in cell 2 (%matplotlib inline)"),
    (TextEdit(29, 29, "x"), None),  # after its newline
    (TextEdit(10, 11, "x"), "the fix would change IPython syntax in cell 2 (%matplotlib inline)"),
    (TextEdit(28, 29, ""), "the fix would change IPython syntax in cell 2 (%matplotlib inline)"),
    (TextEdit(9, 10, ""), None),  # the newline before it, cell 1's
    (TextEdit(29, 34, "x = 2"), None),
    (TextEdit(34, 35, "\n"), None),
    (TextEdit(34, 36, "\n"), "the fix would change IPython syntax in cell 2 (%timeit f(x))"),
    (TextEdit(43, 47, "g(y)"), None),  # the magic's code
    (TextEdit(43, 43, "g"), None),
    (TextEdit(47, 47, "g"), None),
    (TextEdit(42, 47, "g(y)"), "the fix would change IPython syntax in cell 2 (%timeit f(x))"),
    (TextEdit(43, 48, "g(y)"), "the fix would change IPython syntax in cell 2 (%timeit f(x))"),
    (TextEdit(43, 47, "g(\ny)"), "the fix would change IPython syntax in cell 2 (%timeit f(x))"),
    (TextEdit(48, 48, "import sys\n"), None),  # between cells: the end of cell 2
    (TextEdit(49, 50, "x"), "the fix would change cell 3, a cell magic"),
    (TextEdit(58, 58, "x"), None),  # the end of the cell magic is the start of cell 4
    (TextEdit(57, 60, "x"), "the fix spans two cells of the notebook"),
    (TextEdit(8, 12, "x"), "the fix spans two cells of the notebook"),
    (TextEdit(64, 64, "z = 3\n"), None),
    (TextEdit(64, 65, ""), "the fix spans two cells of the notebook"),  # past the module
])
def test_blocked(edit: TextEdit, why) -> None:
    cells = magic_cells().cells
    assert cells.blocked([edit]) == why
    assert cells.blocked([TextEdit(0, 6, "from"), edit]) == why  # every edit is looked at


def test_blocked_names_the_first_offending_edit() -> None:
    cells = magic_cells().cells
    assert cells.blocked([TextEdit(49, 50, "x"), TextEdit(11, 11, "x")]) == "the fix would change cell 3, a cell magic"
    assert cells.blocked([]) is None


def test_an_insertion_between_cells_goes_to_the_earlier_unless_it_is_a_cell_magic() -> None:
    cells = magic_cells().cells
    assert cells._cell_of(TextEdit(10, 10, "x")).number == 1
    assert cells._cell_of(TextEdit(48, 48, "x")).number == 2
    assert cells._cell_of(TextEdit(58, 58, "x")).number == 4  # cell 3 is a %%bash cell
    assert cells._cell_of(TextEdit(58, 59, "x")).number == 4
    assert cells._cell_of(TextEdit(57, 58, "x")).number == 3  # a replacement is in the cell it replaces
    assert cells._cell_of(TextEdit(9, 11, "x")) is None
    only_magic = read(dump([code("%%bash\nls\n")])).cells
    assert only_magic._cell_of(TextEdit(10, 10, "x")).number == 1  # no other cell to take it


def test_sources_after() -> None:
    source = magic_cells()
    cells = source.cells
    assert cells.sources_after([TextEdit(0, 6, "from")]) == {1: "from os\n"}
    assert cells.sources_after([TextEdit(0, 6, "import")]) == {}  # unchanged: not listed
    assert cells.sources_after([TextEdit(43, 47, "g(y)"), TextEdit(64, 64, "z = 3\n")]) == {
        2: "%matplotlib inline\nx = 1\n%timeit g(y)\n", 4: "y = 2\nz = 3\n"}
    assert cells.sources_after([TextEdit(10, 10, "import sys\n\n\n")]) == {1: "import os\nimport sys\n"}
    with pytest.raises(NotebookError, match=r"^the fix would change cell 3, a cell magic$"):
        cells.sources_after([TextEdit(49, 50, "x")])


def test_sources_after_a_cell_without_its_final_newline() -> None:
    cells = read(dump([code("x = 1"), code("y = 2\n\n")])).cells
    assert cells.text == "x = 1\ny = 2\n\n"
    assert cells.sources_after([TextEdit(0, 1, "z")]) == {1: "z = 1"}  # no newline added
    assert cells.sources_after([TextEdit(6, 6, "def f():\n    pass\n\n\n")]) == {1: "x = 1\ndef f():\n    pass"}
    assert cells.sources_after([TextEdit(6, 7, "w")]) == {2: "w = 2\n\n"}
    assert cells.sources_after([TextEdit(12, 12, "\n\n")]) == {}  # no more newlines than it had
    assert cells.sources_after([TextEdit(11, 12, "")]) == {2: "y = 2\n"}  # fewer is fine
    assert cells.sources_after([TextEdit(5, 6, "")]) == {}  # the newline added, removed: unchanged
    assert cells.sources_after([TextEdit(5, 6, " + 1\n")]) == {1: "x = 1 + 1"}
    # only newlines are taken off: not the spaces or letters before them
    cells = read(dump([code("x = 1  \n"), code("y = X\n")])).cells
    assert cells.sources_after([TextEdit(8, 8, "\n\n"), TextEdit(14, 14, "\n\n")]) == {}
    assert cells.sources_after([TextEdit(0, 1, "z"), TextEdit(8, 9, "Y")]) == {1: "z = 1  \n", 2: "Y = X\n"}


def test_sources_of_a_fixed_module() -> None:
    source = magic_cells()
    fixed = source.text.replace("y = 2", "y = 3").replace("import os", "import sys")
    assert source.cells.sources_of(fixed) == {1: "import sys\n", 4: "y = 3\n"}
    assert source.cells.sources_of(source.text) == {}


# -- writing back: only the changed cells' sources, every other byte kept --


def rewrite(data: bytes, old: str, new: str) -> bytes:
    source = read(data)
    assert old in source.text
    return source.encode(source.text.replace(old, new))


CELLS = [markdown(["# T\n", "text"]), code(["import os\n", "x = 1"], execution_count=3,
                                            outputs=[{"output_type": "stream", "name": "stdout", "text": ["x = 1\n"]}]),
         code("y = 2\nz = 3\n"), raw_cell("x = 1")]


@pytest.mark.parametrize("indent", [None, 1, 2, "\t"])
def test_a_write_changes_only_the_source_of_the_changed_cell(indent) -> None:
    data = dump(CELLS, indent=indent)
    written = rewrite(data, "x = 1", "x = 2")
    expected = json.loads(data)
    expected["cells"][1]["source"] = ["import os\n", "x = 2"]
    assert written == dump(expected["cells"], indent=indent)
    written = rewrite(data, "z = 3", "z = 4")
    expected = json.loads(data)
    expected["cells"][2]["source"] = "y = 2\nz = 4\n"
    assert written == dump(expected["cells"], indent=indent)


def test_a_write_keeps_key_order_and_the_missing_final_newline() -> None:
    data = b'{"nbformat_minor": 5, "cells": [{"source": ["a = 1\\n", "b = 2"], "cell_type": "code", ' \
           b'"source": ["c = 3"]}], "metadata": {}, "nbformat": 4}'
    # two `source` keys: json keeps the last, and so does the writer
    assert read(data).text == "c = 3\n"
    assert rewrite(data, "c = 3", "c = 4") == data.replace(b'["c = 3"]', b'["c = 4"]')


def test_a_write_of_every_cell_in_reverse_keeps_offsets() -> None:
    data = dump([code(["a = 1\n"]), code("b = 22\n"), code(["c = 333"])])
    source = read(data)
    written = source.encode(source.text.replace("1", "x" * 10).replace("22", "").replace("333", "4"))
    assert written == dump([code(["a = xxxxxxxxxx\n"]), code("b = \n"), code(["c = 4"])])


@pytest.mark.parametrize("layout, old, new", [
    # one line, Jupyter's layout: the added line goes on a line of its own
    (1, ["x = 1"], ["import os\n", "x = 1"]),
    (None, ["x = 1"], ["import os\n", "x = 1"]),
    (None, ["x = 1\n", "y = 2"], ["import os\n", "x = 1\n", "y = 2"]),
    (2, ["x = 1\n", "y = 2"], ["import os\n", "x = 1\n", "y = 2"]),
])
def test_a_list_stays_a_list_laid_out_as_the_file_lays_out_lists(layout, old, new) -> None:
    data = dump([code(old)], indent=layout)
    assert rewrite(data, "x = 1", "import os\nx = 1") == dump([code(new)], indent=layout)


def test_list_layouts_by_hand() -> None:
    cases = [
        (b'{"cells": [{"cell_type": "code", "source": [ "x = 1" ]}], "nbformat": 4}',
         b'{"cells": [{"cell_type": "code", "source": [ "import os\\n", "x = 1" ]}], "nbformat": 4}'),
        (b'{"cells": [{"cell_type": "code", "source": ["x = 1"]}], "nbformat": 4}',
         b'{"cells": [{"cell_type": "code", "source": ["import os\\n", "x = 1"]}], "nbformat": 4}'),
        (b'{"cells": [{"cell_type": "code", "source": [\n  "x = 1"\n ]}], "nbformat": 4}',
         b'{"cells": [{"cell_type": "code", "source": [\n  "import os\\n",\n  "x = 1"\n ]}], "nbformat": 4}'),
        (b'{"cells": [{"cell_type": "code", "source": ["a\\n","x = 1"]}], "nbformat": 4}',
         b'{"cells": [{"cell_type": "code", "source": ["a\\n","import os\\n","x = 1"]}], "nbformat": 4}'),
        (b'{"cells": [{"cell_type": "code", "source": ["a\\n" ,  "x = 1"\t]}], "nbformat": 4}',
         b'{"cells": [{"cell_type": "code", "source": ["a\\n" ,  "import os\\n" ,  "x = 1"\t]}], "nbformat": 4}'),
    ]
    for data, expected in cases:
        assert rewrite(data, "x = 1", "import os\nx = 1") == expected, data


def test_an_empty_list_gets_the_files_layout() -> None:
    compact = b'{"cells": [{"cell_type": "code", "source": []}], "nbformat": 4}'
    # (its final newline dropped: the cell had none)
    assert read(compact).encode("import os\nx = 1\n") == compact.replace(b"[]", b'["import os\\n", "x = 1"]')
    for indent, unit in ((1, " "), (2, "  "), ("\t", "\t")):
        data = dump([code([])], indent=indent)
        key_indent = unit * 3
        expected = data.replace(b'"source": []', ('"source": [\n' + key_indent + unit + '"import os\\n",\n'
                                                  + key_indent + unit + '"x = 1"\n' + key_indent + "]").encode())
        assert read(data).encode("import os\nx = 1") == expected, indent
    # The unit is the indent of the object's first line, one space when it does not open one; and the
    # key's own indent is kept.
    data = b'{\n"cells": [{"cell_type": "code",\n  "source": []}], "nbformat": 4}'
    assert read(data).encode("x\n") == data.replace(b"[]", b'[\n  "x"\n  ]')
    data = b' {"cells": [{"cell_type": "code",\n  "source": []}], "nbformat": 4}'
    assert read(data).encode("x\n") == data.replace(b"[]", b'[\n   "x"\n  ]')
    data = b'{"cells": [{"cell_type": "code",\n\t"source": []}], "nbformat": 4}'
    assert read(data).encode("x\n") == data.replace(b"[]", b'[\n\t "x"\n\t]')
    data = b'\n  {"cells": [{"cell_type": "code", "source": []}], "nbformat": 4}'  # the key on the second line
    assert read(data).encode("x\n") == data.replace(b"[]", b'[\n   "x"\n  ]')


def test_a_source_emptied_by_a_fix() -> None:
    data = dump([code(["import os\n"]), code("import sys\n")])
    source = read(data)
    assert source.encode("import sys\n") == dump([code([]), code("import sys\n")])
    assert source.encode("import os\n") == dump([code(["import os\n"]), code("")])


def test_non_ascii_is_written_as_the_file_writes_it() -> None:
    cells = [code(["s = 'é'\n", "x = 1"])]
    as_is = dump(cells)
    assert rewrite(as_is, "x = 1", "x = 2") == dump([code(["s = 'é'\n", "x = 2"])])
    escaped = dump(cells, ensure_ascii=True)
    assert b"\\u00e9" in escaped
    assert rewrite(escaped, "x = 1", "x = 2") == dump([code(["s = 'é'\n", "x = 2"])], ensure_ascii=True)
    assert rewrite(escaped, "x = 1", "x = 'ü'") == dump([code(["s = 'é'\n", "x = 'ü'"])], ensure_ascii=True)
    as_string = dump([code("s = 'é'\nx = 1")], ensure_ascii=True)  # a source stored as a string: the same
    assert rewrite(as_string, "x = 1", "x = 'ü'") == dump([code("s = 'é'\nx = 'ü'")], ensure_ascii=True)
    # ASCII without an escape: a new non-ASCII character is written as is
    plain = dump([code("x = 1")])
    assert rewrite(plain, "x = 1", "x = 'ü'") == dump([code("x = 'ü'")])
    # an escape in a file that is not ASCII: as is
    both = dump([code("x = 1"), code("t = '\\u00e9'"), markdown("é")])
    assert rewrite(both, "x = 1", "x = 'ü'") == dump([code("x = 'ü'"), code("t = '\\u00e9'"), markdown("é")])


def test_a_cell_without_source_cannot_be_written() -> None:
    bare = {"cell_type": "code", "metadata": {}, "outputs": []}
    data = dump([bare, code("x = 1\n"), bare])
    source = read(data)
    assert source.spans[0] is None and source.spans[2] is None and source.spans[1] is not None
    with pytest.raises(NotebookError, match=r"^cell 1 has no `source` to write$"):  # an insertion before cell 2
        source.encode("import os\nx = 1\n")
    assert source.encode("x = 2\nz = 1\n") == dump([bare, code("x = 2\nz = 1\n"), bare])


def test_source_spans() -> None:
    text = '{"cells": [{}, {"source": "a"},{"x": 1, "source": ["b", "c"] , "y": {}} ], "cells": [ ], "z": 1}'
    assert notebook._source_spans(text, 0) == ()
    text = ' {"cells": [{}, {"source": "a"},{"x": 1, "source": ["b", "c"] , "y": {}} ]}'
    spans = notebook._source_spans(text, 3)
    assert spans[0] is None and [text[start:end] for start, end in spans[1:]] == ['"a"', '["b", "c"]']
    with pytest.raises(AssertionError):
        notebook._source_spans(text, 2)
    assert notebook._members('{ }', 0) == ([], 3)
    assert notebook._members('{"a" : 1 ,"b":[2]}x', 0) == ([("a", 7, 8), ("b", 14, 17)], 18)
    assert notebook._tail('[1 \n]', 0, 5) == " \n" and notebook._tail("[1]", 0, 3) == ""
    assert notebook._skip(" \t\r\nx ", 0) == 4 and notebook._skip("x ", 1) == 2 and notebook._skip("x", 0) == 0


def test_spans_are_found_once() -> None:
    source = read(dump([code("x = 1\n")]))
    assert source.spans is source.spans
