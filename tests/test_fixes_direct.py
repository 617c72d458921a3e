"""codemods/engine/fixes.py called in the test's process (issue 35, item 3: mutation testing).

The fix machinery on its own, without rules: naming imports as libcst does (`import_spec`), merging
plans (`merge`), rendering edits, helper definitions and imports (`render`, `apply_edits`,
`finish_imports`), the smallest text edits of a change (`text_edits`), a finding anchored on its
fix's main edit (`anchor`), form feeds kept around libcst (`_FormFeedIndents`), and the import
lines removed whole (`_remove_whole_import_lines`, `alone_on_its_lines`, `_names_used`). Each
test checks exact text, exact edits, exact positions.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codemods.engine import fixes
from codemods.engine.diagnostics import Applicability, Finding, Fix, Kind, TextEdit, apply_text_edits
from codemods.engine.fixes import (
    Definition,
    Edit,
    FixPlan,
    Insertion,
    OverlappingEdits,
    _compose,
    _FormFeedIndents,
    _names_used,
    _remove_whole_import_lines,
    alone_on_its_lines,
    anchor,
    apply_edits,
    finish_imports,
    import_spec,
    merge,
    render,
    rendered_with_edits,
    text_edits,
)
from codemods.engine.positions import Positions


def _statement(code: str) -> ast.stmt:
    return ast.parse(code).body[0]


# -- import_spec --

@pytest.mark.parametrize(("code", "spec"), [
    ("import os", ("os", None, None)),
    ("import a.b as c", ("a.b", None, "c")),
    ("from a import b", ("a", "b", None)),
    ("from a.b import c as d", ("a.b", "c", "d")),
    ("from . import x", (".", "x", None)),
    ("from ..pkg import x as y", ("..pkg", "x", "y")),
])
def test_import_spec(code: str, spec: tuple) -> None:
    statement = _statement(code)
    assert import_spec(statement, statement.names[0]) == spec


def test_import_spec_names_the_alias_it_is_given() -> None:
    statement = _statement("from a import b, c as d")
    assert import_spec(statement, statement.names[1]) == ("a", "c", "d")
    statement = _statement("import os, sys as s")
    assert import_spec(statement, statement.names[1]) == ("sys", None, "s")


# -- merge --

def _upper(text: str) -> str:
    return text.upper()


def test_merge_keeps_every_edit_and_each_import_and_definition_once() -> None:
    at = Insertion(0, False, 2, "\n")
    d1, d2, d3 = Definition("def a(): pass", at), Definition("def b(): pass", at), Definition("def c(): pass", at)
    e1, e2, e3 = Edit(0, 1, _upper), Edit(2, 3, _upper), Edit(0, 1, _upper)
    p1 = FixPlan(edits=[e1, e2], imports_to_add=[("os", None, None), ("re", None, None)],
                 maybe_unused_imports={("a", None, None): "a", ("b", None, None): "b"}, definitions=[d1, d2])
    p2 = FixPlan(edits=[e3], imports_to_add=[("re", None, None), ("sys", None, None)],
                 maybe_unused_imports={("b", None, None): "B", ("c", None, None): "c"}, definitions=[d2, d3])
    merged = merge([p1, p2])
    assert merged.edits == [e1, e2, e3]
    assert merged.imports_to_add == [("os", None, None), ("re", None, None), ("sys", None, None)]
    assert merged.maybe_unused_imports == {("a", None, None): "a", ("b", None, None): "B", ("c", None, None): "c"}
    assert merged.definitions == [d3, d2, d1]  # latest first
    assert p1.edits == [e1, e2] and p1.definitions == [d1, d2]  # the plans are not changed
    assert merge([]) == FixPlan()
    assert merge([p1]).definitions == [d2, d1]


# -- render and the definitions --

def test_render_applies_the_edits_then_the_definitions() -> None:
    text = "x = 1\ny = 2\n"
    at = Insertion(len(text), True, 0, "\n")
    plan = FixPlan(edits=[Edit(0, 1, lambda old: old + "x")],
                   definitions=[Definition("def h():\n    return 1\n\n", at)])
    assert render(text, plan, "m.py") == "xx = 1\ny = 2\n\n\ndef h():\n    return 1\n"
    assert render(text, FixPlan(), "m.py") == text


def test_definitions_before_the_statements_and_in_another_newline() -> None:
    text = "x = 1\r\n"
    at = Insertion(0, False, 2, "\r\n")
    plan = FixPlan(definitions=[Definition("def a():\n    return 1", at), Definition("def b():\n    return 2\n", at)])
    assert render(text, plan, "m.py") == (
        "def a():\r\n    return 1\r\n\r\n\r\ndef b():\r\n    return 2\r\n\r\n\r\nx = 1\r\n")
    at = Insertion(0, True, 1, "\n")
    plan = FixPlan(definitions=[Definition("def a(): pass", at)])
    assert render("", plan, "m.py") == "\n\ndef a(): pass\n\n"


def test_definitions_at_two_places_are_a_bug() -> None:
    plan = FixPlan(definitions=[Definition("def a(): pass", Insertion(0, False, 0, "\n")),
                                Definition("def b(): pass", Insertion(1, False, 0, "\n"))])
    with pytest.raises(AssertionError):
        render("x = 1\n", plan, "m.py")


def test_render_adds_and_removes_imports() -> None:
    plan = FixPlan(edits=[Edit(4, 10, lambda old: "re")], imports_to_add=[("functools", None, None)],
                   maybe_unused_imports={("os", None, None): "os"})
    assert render("y = os.sep\nimport os\n", plan, "m.py") == "import functools\n\ny = re\n"  # libcst's blank line


# -- rendered_with_edits: a fix's own edits --

_UNUSED_ABOVE = "from jax.lax import AccuracyMode\nOPTS = {'accuracy': AccuracyMode.HIGHEST}\n"


def _drop_the_mode(text: str) -> FixPlan:
    start = text.index("AccuracyMode.HIGHEST")
    return FixPlan(edits=[Edit(start, start + len("AccuracyMode.HIGHEST"), lambda old: "None")],
                   maybe_unused_imports={("jax.lax", "AccuracyMode", None): "AccuracyMode"})


def test_an_import_removed_above_a_changed_line_is_an_edit_of_its_own() -> None:
    """One line diff of the whole text took the import's line and the entry's for one edit from 1:1."""
    text, entry = _UNUSED_ABOVE, _UNUSED_ABOVE.index("AccuracyMode.HIGHEST")
    after, edits = rendered_with_edits(text, _drop_the_mode(text), "m.py")
    assert after == render(text, _drop_the_mode(text), "m.py") == "OPTS = {'accuracy': None}\n"
    assert edits == (TextEdit(0, text.index("OPTS"), ""), TextEdit(entry, entry + len("AccuracyMode.HIGHEST"), "None"))


def test_edits_with_no_import_changed_are_the_diffs() -> None:
    text = "x = a\ny = b\n"
    plan = FixPlan(edits=[Edit(4, 5, lambda old: "c"), Edit(10, 11, lambda old: "d")])
    assert rendered_with_edits(text, plan, "m.py") == ("x = c\ny = d\n", text_edits(text, "x = c\ny = d\n"))


@pytest.mark.parametrize(("first", "then", "composed"), [
    ((), (TextEdit(0, 2, ""),), (TextEdit(0, 2, ""),)),
    ((TextEdit(5, 6, "xyz"),), (TextEdit(0, 2, ""),), (TextEdit(0, 2, ""), TextEdit(5, 6, "xyz"))),
    # an edit after what `first` wrote is moved back by what `first` added
    ((TextEdit(1, 2, "xyz"),), (TextEdit(8, 9, "Q"),), (TextEdit(1, 2, "xyz"), TextEdit(6, 7, "Q"))),
    ((TextEdit(1, 3, ""), TextEdit(4, 4, "++")), (TextEdit(7, 8, "Q"),),
     (TextEdit(1, 3, ""), TextEdit(4, 4, "++"), TextEdit(7, 8, "Q"))),
    # touching or inside text `first` wrote: no edit of the original says it
    ((TextEdit(2, 3, "xyz"),), (TextEdit(3, 4, "Q"),), None),
    ((TextEdit(2, 3, "xyz"),), (TextEdit(0, 2, ""),), None),
    ((TextEdit(2, 3, "xyz"),), (TextEdit(5, 5, "Q"),), None),
])
def test_compose(first: tuple, then: tuple, composed) -> None:
    assert _compose(first, then) == composed
    if composed is not None:
        text = "abcdefghijkl"
        assert apply_text_edits(text, composed) == apply_text_edits(apply_text_edits(text, first), then)


# -- apply_edits --

@pytest.mark.parametrize(("edits", "expected"), [
    ([], "abcdef"),
    ([Edit(1, 3, lambda old: f"<{old}>")], "a<bc>def"),
    ([Edit(0, 6, lambda old: f"[{old}]"), Edit(2, 4, str.upper)], "[abCDef]"),  # inner first, whatever the order
    ([Edit(2, 4, str.upper), Edit(0, 6, lambda old: f"[{old}]")], "[abCDef]"),
    ([Edit(1, 3, lambda old: old + "1"), Edit(1, 3, lambda old: old + "2")], "abc12def"),  # chained as planned
    ([Edit(1, 3, lambda old: old + "2"), Edit(1, 3, lambda old: old + "1")], "abc21def"),
    ([Edit(2, 2, lambda old: "^"), Edit(2, 4, lambda old: f"<{old}>")], "ab^<cd>ef"),  # insertion at a span's start
    ([Edit(4, 4, lambda old: "^"), Edit(2, 4, lambda old: f"<{old}>")], "ab<cd>^ef"),  # at its end
    ([Edit(3, 3, lambda old: "^"), Edit(2, 4, lambda old: f"<{old}>")], "ab<c^d>ef"),  # strictly inside: nested
    ([Edit(0, 0, lambda old: "^"), Edit(6, 6, lambda old: "$")], "^abcdef$"),
    ([Edit(0, 2, str.upper), Edit(2, 4, lambda old: "-"), Edit(4, 6, str.upper)], "AB-EF"),
    ([Edit(0, 6, lambda old: f"[{old}]"), Edit(1, 5, lambda old: f"({old})"), Edit(2, 3, str.upper)], "[a(bCde)f]"),
    ([Edit(0, 3, lambda old: f"[{old}]"), Edit(1, 2, str.upper), Edit(3, 6, lambda old: f"({old})")], "[aBc](def)"),
    ([Edit(0, 2, lambda old: f"[{old}]"), Edit(0, 4, lambda old: f"({old})")], "([ab]cd)ef"),  # same start: longer outside
    ([Edit(2, 6, lambda old: f"[{old}]"), Edit(4, 6, lambda old: f"({old})")], "ab[cd(ef)]"),  # same end
    ([Edit(1, 5, lambda old: f"[{old}]"), Edit(2, 3, str.upper), Edit(3, 4, str.upper)], "a[bCDe]f"),
])
def test_apply_edits(edits: list, expected: str) -> None:
    assert apply_edits("abcdef", edits) == expected


@pytest.mark.parametrize(("edits", "message"), [
    ([Edit(0, 3, str.upper), Edit(2, 5, str.upper)], "edits at 0-3 and 2-5 overlap"),
    ([Edit(1, 4, str.upper), Edit(0, 2, str.upper)], "edits at 0-2 and 1-4 overlap"),
    ([Edit(0, 6, str.upper), Edit(1, 3, str.upper), Edit(2, 5, str.upper)], "edits at 1-3 and 2-5 overlap"),
])
def test_edits_that_partly_overlap(edits: list, message: str) -> None:
    with pytest.raises(OverlappingEdits) as raised:
        apply_edits("abcdef", edits)
    assert str(raised.value) == message


# -- text_edits --

@pytest.mark.parametrize(("old", "new", "edits"), [
    ("a = 1\n", "a = 1\n", ()),
    ("a = 1\nb = 2\nc = 3\n", "a = 1\nb = 20\nc = 3\n", (TextEdit(11, 11, "0"),)),
    ("a = 1\nb = 2\n", "a = 1\nx = 0\nb = 2\n", (TextEdit(6, 6, "x = 0\n"),)),
    ("a = 1\nx = 0\nb = 2\n", "a = 1\nb = 2\n", (TextEdit(6, 12, ""),)),
    ("abc = 1\n", "abd = 1\n", (TextEdit(2, 3, "d"),)),
    ("ab\n", "b\n", (TextEdit(0, 1, ""),)),
    ("x\n", "xx\n", (TextEdit(1, 1, "x"),)),  # the common prefix, then no suffix to take
    ("aa\n", "a\n", (TextEdit(1, 2, ""),)),
    ("f(a)\ng(b)\n", "f(A)\ng(B)\n", (TextEdit(2, 8, "A)\ng(B"),)),
    ("a\nb\nc\nd\n", "a\nB\nc\nD\n", (TextEdit(2, 3, "B"), TextEdit(6, 7, "D"))),
    ("x", "y", (TextEdit(0, 1, "y"),)),
    ("", "a\n", (TextEdit(0, 0, "a\n"),)),
])
def test_text_edits(old: str, new: str, edits: tuple) -> None:
    assert text_edits(old, new) == edits
    assert fixes.apply_text_edits(old, list(edits)) == new


@pytest.mark.parametrize(("old", "new", "by_line", "edits"), [
    ("f(a)\ng(b)\n", "f(A)\ng(B)\n", True, (TextEdit(2, 3, "A"), TextEdit(7, 8, "B"))),
    ("f(a)\ng(b)\n", "f(A)\ng(B)\n", False, (TextEdit(2, 8, "A)\ng(B"),)),
    # lines replaced by another number of lines: one edit either way
    ("f(a)\ng(b)\n", "f(A)\n", True, (TextEdit(2, 8, "A"),)),
    ("a\nb\n", "a\nx\ny\n", True, (TextEdit(2, 3, "x\ny"),)),
])
def test_text_edits_by_line(old: str, new: str, by_line: bool, edits: tuple) -> None:
    assert text_edits(old, new, by_line=by_line) == edits
    assert fixes.apply_text_edits(old, list(edits)) == new


def test_text_edits_by_line_below_the_first_line() -> None:
    old, new = "a\nf(a)\ng(b)\nz\n", "a\nf(A)\ng(B)\nz\n"
    assert text_edits(old, new, by_line=True) == (TextEdit(4, 5, "A"), TextEdit(9, 10, "B"))
    assert text_edits(old, new) == (TextEdit(4, 10, "A)\ng(B"),)


def test_text_edits_of_a_long_module_are_each_change() -> None:
    """Over 200 lines, difflib's "popular lines" heuristic would match none of the 300 alike: one
    edit from the first change to the last."""
    old, new = "b\n" + "a\n" * 300 + "b\n", "c\n" + "a\n" * 300 + "c\n"
    assert text_edits(old, new) == (TextEdit(0, 1, "c"), TextEdit(602, 603, "c"))


def _difflib_edits(old: list[str], new: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib over every line: what `_changed_lines` must answer."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [opcode for opcode in matcher.get_opcodes() if opcode[0] != "equal"]


# Lines repeated among few (blank lines, `)`) and lines found once (most of a module's).
_LINES = st.lists(st.one_of(st.sampled_from(["a\n", "b\n", ")\n", "\n"]), st.integers(0, 40).map("x{}\n".format)),
                  max_size=30)


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(_LINES, _LINES, _LINES, _LINES, _LINES, _LINES, _LINES)
def test_changed_lines_are_difflibs(head: list, removed: list, added: list, middle: list, replaced: list,
                                    tail: list, other: list) -> None:
    """Two places changed (a helper added at the top, a call below), and any other module: the
    stretches between the kept runs are searched alone only where that changes nothing."""
    old, new = head + removed + middle + replaced + tail, head + added + middle + replaced[::-1] + tail
    assert fixes._changed_lines(old, new) == _difflib_edits(old, new)
    assert fixes._changed_lines(old, other) == _difflib_edits(old, other)


def test_changed_lines_leave_out_the_head_and_tail_where_difflib_agrees() -> None:
    """A changed line that occurs in the tail: a longer match may run through it (difflib deletes
    the first `a b c`, not the second); where none occurs there, difflib sees the middle alone."""
    old, new = list("abcabcd"), list("abcd")
    assert fixes._changed_lines(old, new) == [("delete", 0, 3, 0, 0)]
    searched = []
    real = difflib.SequenceMatcher

    def spy(junk, a, b, autojunk):
        searched.append((a, b))
        return real(junk, a, b, autojunk=autojunk)

    old, new = ["x\n"] * 50 + ["a\n"] + ["y\n"] * 50, ["x\n"] * 50 + ["b\n"] + ["y\n"] * 50
    fixes.difflib.SequenceMatcher = spy
    try:
        assert fixes._changed_lines(old, new) == [("replace", 50, 51, 50, 51)]
    finally:
        fixes.difflib.SequenceMatcher = real
    assert searched == [(["a\n"], ["b\n"])]


def test_text_edits_treats_every_line_end_as_one() -> None:
    assert text_edits("a\r\nb\r\n", "a\r\nc\r\n") == (TextEdit(3, 4, "c"),)
    assert text_edits("a\rb\r", "a\rc\r") == (TextEdit(2, 3, "c"),)
    assert text_edits("a\n" * 300 + "b\n", "a\n" * 300 + "c\n") == (TextEdit(600, 601, "c"),)  # no autojunk


# -- anchor --

TEXT = "import os\nx = f(a, b)\ny = 2\n"  # line 2 starts at 10: `f` at 14, `(` 15, `a` 16, `b` 19, `)` 20


def _finding(line: int, column: int, end_line: int, end_column: int, *edits: TextEdit) -> Finding:
    fix = Fix(Applicability.SAFE, tuple(edits), applied=True) if edits else None
    return Finding("JAX001", Kind.FIXED, line, column, "m", end_line, end_column, fix)


def test_anchor_leaves_a_finding_without_edits() -> None:
    positions = Positions(TEXT)
    plain = _finding(2, 5, 2, 6)
    assert anchor(plain, positions) is plain
    empty = replace(plain, fix=Fix(Applicability.SAFE, ()))
    assert anchor(empty, positions) is empty
    nowhere = _finding(0, 0, 0, 0, TextEdit(16, 17, "A"))
    assert anchor(nowhere, positions) is nowhere


@pytest.mark.parametrize(("finding", "where", "edits"), [
    # the edit is the finding's range: nothing moves
    (_finding(2, 7, 2, 8, TextEdit(16, 17, "A")), (2, 7, 2, 8), (TextEdit(16, 17, "A"),)),
    # an edit inside the finding's range grows to cover it
    (_finding(2, 5, 2, 12, TextEdit(16, 17, "A")), (2, 5, 2, 12), (TextEdit(14, 21, "f(A, b)"),)),
    # a finding inside the edit: the edit's range
    (_finding(2, 7, 2, 8, TextEdit(14, 21, "g(a)")), (2, 5, 2, 12), (TextEdit(14, 21, "g(a)"),)),
    # touching at either end
    (_finding(2, 6, 2, 7, TextEdit(16, 17, "A")), (2, 6, 2, 8), (TextEdit(15, 17, "(A"),)),
    (_finding(2, 8, 2, 9, TextEdit(16, 17, "A")), (2, 7, 2, 9), (TextEdit(16, 18, "A,"),)),
    # on its name only (no end): the nearest edit of the arguments, grown back to the name
    (_finding(2, 5, 0, 0, TextEdit(19, 20, "B")), (2, 5, 2, 11), (TextEdit(14, 20, "f(a, B"),)),
    (_finding(2, 5, 0, 0, TextEdit(19, 20, "B"), TextEdit(16, 17, "A")), (2, 5, 2, 8),
     (TextEdit(14, 17, "f(A"), TextEdit(19, 20, "B"))),
    (_finding(2, 5, 0, 0, TextEdit(10, 11, "X"), TextEdit(20, 21, "Y")), (2, 1, 2, 5),
     (TextEdit(10, 14, "X = "), TextEdit(20, 21, "Y"))),
    # an import edit (whole lines) stays where it is, and is not the one chosen
    (_finding(2, 5, 2, 6, TextEdit(0, 10, ""), TextEdit(19, 20, "B")), (2, 5, 2, 11),
     (TextEdit(0, 10, ""), TextEdit(14, 20, "f(a, B"))),
    (_finding(2, 5, 2, 6, TextEdit(19, 20, "B"), TextEdit(22, 22, "z = 3\n")), (2, 5, 2, 11),
     (TextEdit(14, 20, "f(a, B"), TextEdit(22, 22, "z = 3\n"))),
    # the nearest of two: after the finding, and before it
    (_finding(2, 7, 2, 8, TextEdit(20, 21, "X"), TextEdit(11, 12, "X")), (2, 7, 2, 12),
     (TextEdit(11, 12, "X"), TextEdit(16, 21, "a, bX"))),
    (_finding(2, 7, 2, 8, TextEdit(20, 21, "X"), TextEdit(14, 15, "X")), (2, 5, 2, 8),
     (TextEdit(14, 17, "X(a"), TextEdit(20, 21, "X"))),
    (_finding(2, 8, 2, 9, TextEdit(20, 21, "X"), TextEdit(13, 14, "X")), (2, 8, 2, 12),
     (TextEdit(13, 14, "X"), TextEdit(17, 21, ", bX"))),
])
def test_anchor(finding: Finding, where: tuple, edits: tuple) -> None:
    anchored = anchor(finding, Positions(TEXT))
    assert (anchored.line, anchored.column, anchored.end_line, anchored.end_column) == where
    assert anchored.fix.edits == edits
    assert anchored.fix.applicability is Applicability.SAFE and anchored.fix.applied
    assert (anchored.code, anchored.message) == ("JAX001", "m")
    assert fixes.apply_text_edits(TEXT, list(anchored.fix.edits)) == fixes.apply_text_edits(TEXT, list(finding.fix.edits))


@pytest.mark.parametrize(("finding", "where", "edits"), [
    # an edit of whole lines that overlaps or touches the finding is its main edit
    (_finding(1, 1, 1, 10, TextEdit(0, 10, "")), (1, 1, 2, 1), (TextEdit(0, 10, ""),)),
    (_finding(1, 1, 2, 1, TextEdit(10, 10, "import re\n")), (1, 1, 2, 1), (TextEdit(0, 10, "import os\nimport re\n"),)),
    (_finding(2, 1, 2, 2, TextEdit(0, 10, "")), (1, 1, 2, 2), (TextEdit(0, 11, "x"),)),
    # the main edit starts on the line before the finding's
    (_finding(2, 1, 2, 2, TextEdit(8, 11, "S\nX")), (1, 9, 2, 2), (TextEdit(8, 11, "S\nX"),)),
    # an edit that ends where the grown range starts is taken in
    (_finding(2, 10, 2, 11, TextEdit(16, 20, "A, B"), TextEdit(14, 16, "F(")), (2, 5, 2, 11),
     (TextEdit(14, 20, "F(A, B"),)),
])
def test_anchor_on_whole_lines_and_touching_edits(finding: Finding, where: tuple, edits: tuple) -> None:
    anchored = anchor(finding, Positions(TEXT))
    assert (anchored.line, anchored.column, anchored.end_line, anchored.end_column) == where
    assert anchored.fix.edits == edits


def test_anchor_in_a_one_line_module() -> None:
    """The only line start is the text's start: an import inserted there is whole lines, not near."""
    finding = _finding(1, 5, 1, 6, TextEdit(0, 0, "import re\n"))
    assert anchor(finding, Positions("x = f(a)")) is finding


def test_anchor_takes_in_the_edits_the_grown_range_reaches() -> None:
    text = "x = f(a, b) + g(c)\n"  # a at 6, b at 9, c at 16
    positions = Positions(text)
    # the finding (f's arguments) touches the edit of `a`; growing to `b`'s edit reaches nothing more
    finding = _finding(1, 7, 1, 11, TextEdit(6, 7, "A"), TextEdit(9, 10, "B"), TextEdit(16, 17, "C"))
    anchored = anchor(finding, positions)
    assert (anchored.line, anchored.column, anchored.end_line, anchored.end_column) == (1, 7, 1, 11)
    assert anchored.fix.edits == (TextEdit(6, 10, "A, B"), TextEdit(16, 17, "C"))
    # a finding that ends where a second edit starts, which ends past a third
    finding = _finding(1, 5, 1, 7, TextEdit(4, 5, "F"), TextEdit(6, 12, "A, b) "), TextEdit(12, 13, "-"))
    anchored = anchor(finding, positions)
    assert (anchored.line, anchored.column, anchored.end_line, anchored.end_column) == (1, 5, 1, 14)
    assert anchored.fix.edits == (TextEdit(4, 13, "F(A, b) -"),)
    assert fixes.apply_text_edits(text, list(anchored.fix.edits)) == "x = F(A, b) - g(c)\n"


def test_anchor_on_lines_of_their_own() -> None:
    """Every edit whole lines (an import added, a line removed), and none near: nothing to anchor."""
    positions = Positions(TEXT)
    finding = _finding(3, 1, 3, 2, TextEdit(0, 10, ""), TextEdit(10, 10, "import re\n"))
    assert anchor(finding, positions) is finding


def test_anchor_over_lines() -> None:
    text = "a = 1\nb = f(\n    x,\n)\n"  # x at 17
    positions = Positions(text)
    finding = _finding(2, 5, 4, 2, TextEdit(17, 18, "X"))
    anchored = anchor(finding, positions)
    assert (anchored.line, anchored.column, anchored.end_line, anchored.end_column) == (2, 5, 4, 2)
    assert anchored.fix.edits == (TextEdit(10, 21, "f(\n    X,\n)"),)


# -- finish_imports and libcst --

@pytest.mark.parametrize(("code", "plan", "expected"), [
    ("x = 1\n", FixPlan(), "x = 1\n"),
    ("import os\nx = 1\n", FixPlan(maybe_unused_imports={("os", None, None): "os"}), "x = 1\n"),
    ("import os\nx = os\n", FixPlan(maybe_unused_imports={("os", None, None): "os"}), "import os\nx = os\n"),
    ("import os\n__all__ = ['os']\n", FixPlan(maybe_unused_imports={("os", None, None): "os"}),
     "import os\n__all__ = ['os']\n"),
    ("import os, sys\nx = sys\n", FixPlan(maybe_unused_imports={("os", None, None): "os"}), "import sys\nx = sys\n"),
    ("import os as o, sys\nx = sys\n", FixPlan(maybe_unused_imports={("os", None, "o"): "o"}), "import sys\nx = sys\n"),
    ("from a import b, c\nx = c\n", FixPlan(maybe_unused_imports={("a", "b", None): "b"}), "from a import c\nx = c\n"),
    ("x = 1\n", FixPlan(imports_to_add=[("functools", None, None)]), "import functools\n\nx = 1\n"),  # libcst's blank line
    ("import os\nx = 1\n", FixPlan(imports_to_add=[("jax", "lax", None)]), "import os\nfrom jax import lax\n\nx = 1\n"),
    # the new import takes the place of the one it replaces
    ("import os\nx = 1\n", FixPlan(imports_to_add=[("re", None, None)], maybe_unused_imports={("os", None, None): "os"}),
     "import re\n\nx = 1\n"),
    ("import os, sys\nx = 1\n", FixPlan(imports_to_add=[("re", None, None)],
                                         maybe_unused_imports={("os", None, None): "os", ("sys", None, None): "sys"}),
     "import re\n\nx = 1\n"),
    # a CR-only file keeps its last line end
    ("import os, sys\rx = sys\r", FixPlan(maybe_unused_imports={("os", None, None): "os"}), "import sys\rx = sys\r"),
    ("x = 1\r", FixPlan(imports_to_add=[("re", None, None)]), "import re\r\rx = 1\r"),
    ("import os, sys\r\nx = sys\r\n", FixPlan(maybe_unused_imports={("os", None, None): "os"}), "import sys\r\nx = sys\r\n"),
    # a module the edits broke: the imports stay, the verify stage says why
    ("import os\nx = (\n", FixPlan(maybe_unused_imports={("os", None, None): "os"}), "import os\nx = (\n"),
])
def test_finish_imports(code: str, plan: FixPlan, expected: str) -> None:
    assert finish_imports(code, plan, "m.py") == expected


@pytest.mark.parametrize(("code", "plan", "expected"), [
    ("import os, sys\rx = sys\r\r", FixPlan(maybe_unused_imports={("os", None, None): "os"}), "import sys\rx = sys\r\r"),
    ("import os, sys\r\r", FixPlan(imports_to_add=[("re", None, None)]), "import os, sys\rimport re\r\r"),
    ("import os, sys\nx = sys\r", FixPlan(maybe_unused_imports={("os", None, None): "os"}), "import sys\nx = sys\r"),
    ("import os, sys\r\nx = sys\r\n\r", FixPlan(maybe_unused_imports={("os", None, None): "os"}),
     "import sys\r\nx = sys\r\n\r"),
    ("# c\r", FixPlan(imports_to_add=[("re", None, None)]), "# c\rimport re\r"),
])
def test_a_file_that_ends_with_a_lone_cr_keeps_every_line_end(code: str, plan: FixPlan, expected: str) -> None:
    """libcst drops the last CR of such a file; it was put back only when libcst's text ended with no
    line end at all, so a CR file ending with a blank line lost that line (and a file whose last line
    ended with CR after a LF or CRLF line its last line end)."""
    assert finish_imports(code, plan, "m.py") == expected


def test_libcst_runs_only_for_imports_it_must_handle(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    monkeypatch.setattr(fixes, "_through_libcst", lambda code, path, **kwargs: calls.append(kwargs) or code)
    assert finish_imports("x = 1\n", FixPlan(), "m.py") == "x = 1\n"
    assert finish_imports("import os\nx = 1\n", FixPlan(maybe_unused_imports={("os", None, None): "os"}), "m.py") == "x = 1\n"
    assert finish_imports("import os\nx = os\n", FixPlan(maybe_unused_imports={("os", None, None): "os"}), "m.py") \
        == "import os\nx = os\n"
    assert calls == []
    finish_imports("import os, sys\n", FixPlan(maybe_unused_imports={("os", None, None): "os"}), "m.py")
    assert calls == [{"remove": [("os", None, None)]}]


def test_through_libcst_without_a_line_end_at_the_end() -> None:
    assert finish_imports("import os, sys\rx = sys", FixPlan(maybe_unused_imports={("os", None, None): "os"}),
                          "m.py") == "import sys\rx = sys"


# -- _FormFeedIndents --

def test_form_feed_indents_normalized() -> None:
    layout = _FormFeedIndents("\fimport os\n  \f  x = 1\n\f \fy = 2\r\nz = 3\n\fw")
    assert layout.lines == ["\fimport os\n", "  \f  x = 1\n", "\f \fy = 2\r\n", "z = 3\n", "\fw"]
    assert layout.prefixes == ["\f", "  \f", "\f \f", "", "\f"]
    assert layout.normalized == "import os\n  x = 1\ny = 2\r\nz = 3\nw"
    plain = "import os\n  x = 1\n"
    layout = _FormFeedIndents(plain)
    assert layout.normalized is plain and layout.prefixes == ["", ""]
    assert layout.restore("anything\n") == "anything\n"  # no form feed: libcst's text as it is


def test_form_feed_indents_restore() -> None:
    layout = _FormFeedIndents("\fimport os, sys\nx = 1\n\fy = sys\n")
    # a line rewritten gets its form feeds back; lines unchanged their own text
    assert layout.restore("import sys\nx = 1\ny = sys\n") == "\fimport sys\nx = 1\n\fy = sys\n"
    # a line added: as libcst printed it
    assert layout.restore("import os, sys\nimport re\nx = 1\ny = sys\n") == "\fimport os, sys\nimport re\nx = 1\n\fy = sys\n"
    # a line removed
    assert layout.restore("x = 1\ny = sys\n") == "x = 1\n\fy = sys\n"
    # two lines become one: as printed
    layout = _FormFeedIndents("\fimport a\n\fimport b\nx = 1\n")
    assert layout.restore("import c\nx = 1\n") == "import c\nx = 1\n"
    # the last line rewritten; the first kept
    layout = _FormFeedIndents("\fx = 1\n\fimport os, re\n")
    assert layout.restore("x = 1\nimport re\n") == "\fx = 1\n\fimport re\n"
    # the same line twice: head and tail do not overlap
    layout = _FormFeedIndents("\fx = 1\n\fx = 1\n")
    assert layout.restore("x = 1\nx = 1\n") == "\fx = 1\n\fx = 1\n"
    assert layout.restore("x = 1\n") == "\fx = 1\n"
    assert layout.restore("x = 1\nx = 1\nx = 1\n") == "\fx = 1\n\fx = 1\nx = 1\n"


@pytest.mark.parametrize(("code", "printed", "expected"), [
    # the last lines alike: kept from the file; the lines before them compared as a whole
    ("\fA\nB\n\fC\n", "A2\nA\nC\n", "A2\n\fA\n\fC\n"),
    ("\fA\n\fB\n\fC\n", "B\n", "\fB\n"),
    ("\fA\n\fB\n\fC\n", "X\nB\n", "\fX\n\fB\n"),
    ("\fA\n\fB\n\fC\n", "B\nX\nC\n", "\fB\nX\n\fC\n"),
    ("\fA\n\fB\n\fC\n", "X\nC\nY\n", "X\n\fC\nY\n"),
    ("\fA\n\fB\n\fC\n", "C\nX\n", "\fC\nX\n"),
    ("\fX\n\fA\n", "A\nY\nA\n", "A\nY\n\fA\n"),
])
def test_form_feed_indents_restore_around_the_lines_alike(code: str, printed: str, expected: str) -> None:
    assert _FormFeedIndents(code).restore(printed) == expected


def test_form_feed_indents_restore_a_long_module() -> None:
    """Over 200 lines, difflib's "popular lines" heuristic would match no blank line: every line
    between two changes would be printed anew, without its form feed."""
    body = "\fx = 1\n\n" * 150
    layout = _FormFeedIndents("import a\n" + body + "import b, c\n")
    assert layout.restore("import a\nimport z\n" + "x = 1\n\n" * 150 + "import c\n") == (
        "import a\nimport z\n" + body + "import c\n")


# -- removing whole import lines --

@pytest.mark.parametrize(("code", "unused", "left", "rest"), [
    ("import os\nx = 1\n", [("os", None, None)], "x = 1\n", []),
    ("x = 1\nimport os", [("os", None, None)], "x = 1\n", []),
    ("x = 1\nimport os\n", [("os", None, None)], "x = 1\n", []),
    ("import os\r\nx = 1\r\n", [("os", None, None)], "x = 1\r\n", []),
    ("import os\rx = 1\r", [("os", None, None)], "x = 1\r", []),
    ("from a import (\n    b,\n)\nx = 1\n", [("a", "b", None)], "x = 1\n", []),
    ("import os  # why\nx = 1\n", [("os", None, None)], "x = 1\n", []),
    ("def f():\n    import os\n    return 1\n", [("os", None, None)], "def f():\n    return 1\n", []),
    ("import os\nimport sys\nimport re\n", [("os", None, None), ("re", None, None)], "import sys\n", []),
    ("import re\nimport os\n", [("os", None, None), ("re", None, None)], "", []),
    ("import os as o\n", [("os", None, "o")], "", []),
    ("import os as o\n", [("os", None, None)], "import os as o\n", [("os", None, None)]),
    ("from . import x\ny = 1\n", [(".", "x", None)], "y = 1\n", []),
    ("import os, sys\n", [("os", None, None)], "import os, sys\n", [("os", None, None)]),
    ("x = 1; import os\n", [("os", None, None)], "x = 1; import os\n", [("os", None, None)]),
    ("import os; x = 1\n", [("os", None, None)], "import os; x = 1\n", [("os", None, None)]),
    ("import sys\n", [("os", None, None)], "import sys\n", [("os", None, None)]),
    ("import os\nx = (\n", [("os", None, None)], "import os\nx = (\n", [("os", None, None)]),
    ("import os\n", [], "import os\n", []),
    # A block left with no statement keeps a `pass` where its import was (Python refuses an empty one).
    ("def f():\n    import os\n", [("os", None, None)], "def f():\n    pass\n", []),
    ("def f():\n    import os  # why\r\n    import re\r\nx = 1\r\n", [("os", None, None), ("re", None, None)],
     "def f():\n    pass\r\nx = 1\r\n", []),
    ("if x:\n  import os\nelse:\n\timport re\n", [("os", None, None), ("re", None, None)],
     "if x:\n  pass\nelse:\n\tpass\n", []),
    ("try:\n    import os\nexcept E:\n    import re\nfinally:\n    import sys\n",
     [("os", None, None), ("re", None, None), ("sys", None, None)], "try:\n    pass\nexcept E:\n    pass\nfinally:\n    pass\n", []),
    ("class C:\n    import os\n    import re\n", [("os", None, None), ("re", None, None)], "class C:\n    pass\n", []),
    ("class C:\n    import os\n    import re\n", [("re", None, None)], "class C:\n    import os\n", []),
    ("def f():\n    import os", [("os", None, None)], "def f():\n    pass", []),
])
def test_remove_whole_import_lines(code: str, unused: list, left: str, rest: list) -> None:
    assert _remove_whole_import_lines(code, unused) == (left, rest)


@pytest.mark.parametrize(("code", "alone"), [
    ("import os\n", True),
    ("import os", True),
    ("import os  # c\n", True),
    ("import os  \n", True),
    ("import os  \r\nx = 1\r\n", True),
    ("import os; x = 1\n", False),
    ("import os # c; x\n", True),
    ("x = 1; import os\n", False),
    ("if x: import os\n", False),
    ("from a import (\n    b,\n)  # c\n", True),
    ("from a import (\n    b,\n); x = 1\n", False),
    ("import é; x = 1\n", False),  # the end column counts bytes
    ("import é  # c\n", True),
    ("import éé\n", True),
])
def test_alone_on_its_lines(code: str, alone: bool) -> None:
    tree = ast.parse(code)
    statement = next(s for s in ast.walk(tree) if isinstance(s, (ast.Import, ast.ImportFrom)))
    starts = [0] + [m.end() for m in fixes.NEWLINE.finditer(code)]
    assert alone_on_its_lines(code, starts, statement) is alone


def test_alone_on_its_lines_indented() -> None:
    code = "def f():\n    import os\n    x = 1; import re\n"
    tree = ast.parse(code)
    starts = [0] + [m.end() for m in fixes.NEWLINE.finditer(code)]
    first, second = (s for s in ast.walk(tree) if isinstance(s, ast.Import))
    assert alone_on_its_lines(code, starts, first) is True
    assert alone_on_its_lines(code, starts, second) is False


def test_names_used() -> None:
    assert _names_used("import os\nfrom a import b as c\nx = y.z\n__all__ = ['os', 'q r']\ndef f(p): return p\n") == {
        "x", "y", "__all__", "os", "q r", "p"}
    assert _names_used("x = b'os'\n") == {"x"}
    # A string is a name only where Python reads one: `__all__`, an annotation; not text a fix writes.
    assert _names_used("from jax import f as hlo\ny = g().compiler_ir('hlo')\n") == {"y", "g"}
    assert _names_used("__all__ += ('a',)\nv: 'Optional[Cls]' = 1\ndef f(p: 'P') -> 'R': pass\n") == {
        "__all__", "a", "v", "Optional[Cls]", "Optional", "Cls", "P", "R"}
    assert _names_used("def (:\n") == set()
    assert _names_used("x = 1\0\n") == set()
