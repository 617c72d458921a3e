"""codemods/engine/suppression.py called directly, in the test's process: reading the suppression
comments of a text (`suppressions`), the calls a comment on their first line covers (`reach`), and
which comment and selector silence a finding (`silencing`).

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks exact values.
Nothing here imports jax.
"""

from __future__ import annotations

import ast

import pytest

from codemods.engine.diagnostics import Finding, Kind
from codemods.engine.rule import Rule
from codemods.engine.suppression import Comment, Used, reach, silencing, suppressions, with_ignores


def _rule(code: str, name: str) -> Rule:
    return Rule(code=code, name=name, summary="", what="", why="", example="", words=(),
                kernel_scoped=False, check=lambda rule, file: [])


JAX001 = _rule("JAX001", "per-operand-precision")
JAX002 = _rule("JAX002", "accuracy-hints")


def _finding(line: int, code: str = "JAX001") -> Finding:
    return Finding(code, Kind.WARNING, line, 1, "m")


def _calls(text: str) -> list[ast.Call]:
    return [node for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Call)]


# -- suppressions --


def test_a_text_without_the_marker_has_no_comments() -> None:
    assert suppressions("x = 1  # ignore[JAX001]\n") == {}
    assert suppressions("") == {}


def test_a_bare_comment_names_every_rule() -> None:
    assert suppressions("x = f(1)  # jax-codemod: ignore\n") == {1: Comment(1, 13, 32, None)}


def test_a_comment_with_selectors_and_its_exact_span() -> None:
    text = "a = 1\nx = f(1)  # jax-codemod: ignore[JAX001, accuracy-hints]\n"
    comment = Comment(2, 13, 56, ("JAX001", "accuracy-hints"))
    assert suppressions(text) == {2: comment}
    assert text.splitlines()[1][comment.column - 1:comment.end_column - 1] == "jax-codemod: ignore[JAX001, accuracy-hints]"


def test_the_marker_further_into_a_comment_and_spaces_after_its_colon() -> None:
    text = "y = 2\n\n    z = 3  # note; jax-codemod:   ignore[ JAX002 ]  trailing\n"
    assert suppressions(text) == {3: Comment(3, 20, 51, ("JAX002",))}
    assert text.splitlines()[2][19:50] == "jax-codemod:   ignore[ JAX002 ]"


def test_a_comment_alone_on_its_line_at_column_1() -> None:
    assert suppressions("# jax-codemod: ignore[x]\n") == {1: Comment(1, 3, 25, ("x",))}


def test_selectors_are_stripped_and_empty_ones_dropped() -> None:
    assert suppressions("f()  # jax-codemod: ignore[ JAX001 ,, jax0 , ]\n")[1].selectors == ("JAX001", "jax0")
    assert suppressions("f()  # jax-codemod: ignore[]\n")[1].selectors == ()
    assert suppressions("f()  # jax-codemod: ignore[ , ]\n")[1].selectors == ()


def test_selectors_keep_their_spelling() -> None:
    assert suppressions("f()  # jax-codemod: ignore[Jax001,Accuracy-Hints]\n")[1].selectors == ("Jax001", "Accuracy-Hints")


def test_an_unclosed_bracket_is_a_bare_comment() -> None:
    assert suppressions("f()  # jax-codemod: ignore[JAX001\n") == {1: Comment(1, 8, 27, None)}


def test_no_space_after_the_colon_and_no_ignore_word() -> None:
    assert suppressions("f()  # jax-codemod:ignore\n") == {1: Comment(1, 8, 26, None)}
    assert suppressions("f()  # jax-codemod: skip\n") == {}
    assert suppressions("f()  # JAX-CODEMOD: ignore\n") == {}


def test_a_string_mentioning_the_marker_silences_nothing() -> None:
    assert suppressions("s = '# jax-codemod: ignore'\nt = 1  # jax-codemod: ignore[JAX002]\n") == {
        2: Comment(2, 10, 37, ("JAX002",))}
    assert suppressions('s = """\n# jax-codemod: ignore\n"""\n') == {}


def test_several_comments_by_line() -> None:
    text = "a = f()  # jax-codemod: ignore\nb = 2\nc = g()  # jax-codemod: ignore[JAX002]\n"
    assert suppressions(text) == {1: Comment(1, 12, 31, None), 3: Comment(3, 12, 39, ("JAX002",))}


def test_comments_before_a_tokenize_error_are_kept() -> None:
    # an unclosed bracket: the tokenizer stops at the end (TokenError) after reading the comment
    assert suppressions("x = f(  # jax-codemod: ignore[JAX001]\n") == {1: Comment(1, 11, 38, ("JAX001",))}
    # a bad dedent: IndentationError (a SyntaxError) on line 4
    text = "x = 1  # jax-codemod: ignore\nif x:\n    a\n  b  # jax-codemod: ignore\n"
    assert suppressions(text) == {1: Comment(1, 10, 29, None)}


# -- reach --


def test_a_comment_on_a_calls_first_line_reaches_its_last() -> None:
    text = "y = f(\n    1,\n    2,\n)\nz = g(3)\n"
    assert reach({1: Comment(1, 1, 2, None)}, _calls(text)) == {1: 4}
    assert reach({5: Comment(5, 1, 2, None)}, _calls(text)) == {5: 5}
    assert reach({2: Comment(2, 1, 2, None)}, _calls(text)) == {}
    assert reach({}, _calls(text)) == {}


def test_the_longest_call_starting_on_the_line_wins_in_any_order() -> None:
    text = "y = f(g(1), h(\n    2,\n))\n"
    calls = _calls(text)
    assert [(call.lineno, call.end_lineno) for call in calls] == [(1, 3), (1, 1), (1, 3)]
    comments = {1: Comment(1, 1, 2, None)}
    assert reach(comments, calls) == {1: 3}
    assert reach(comments, list(reversed(calls))) == {1: 3}
    assert reach(comments, [calls[0], calls[1]]) == {1: 3}  # a shorter call after the longest
    assert reach(comments, [calls[1]]) == {1: 1}


def test_a_call_without_an_end_reaches_nothing() -> None:
    call = ast.Call(func=ast.Name("f"), args=[], keywords=[], lineno=2, end_lineno=None)
    assert reach({2: Comment(2, 1, 2, None)}, [call]) == {}
    assert reach({2: Comment(2, 1, 2, None)}, [call, *_calls("\nf(\n)\n")]) == {2: 3}


# -- silencing --


def test_a_bare_comment_silences_any_rule_on_its_line() -> None:
    comments = {3: Comment(3, 1, 2, None)}
    assert silencing(_finding(3), JAX001, comments) == (3, "")
    assert silencing(_finding(3, "JAX002"), JAX002, comments) == (3, "")
    assert silencing(_finding(4), JAX001, comments) is None
    assert silencing(_finding(2), JAX001, comments) is None


def test_the_selector_that_names_the_rule_is_returned_as_written() -> None:
    comments = {3: Comment(3, 1, 2, ("JAX002", "jax0", "per-operand-precision"))}
    assert silencing(_finding(3), JAX001, comments) == (3, "jax0")
    assert silencing(_finding(3, "JAX002"), JAX002, comments) == (3, "JAX002")
    assert silencing(_finding(3), JAX001, {3: Comment(3, 1, 2, ("accuracy-hints", "per-operand-precision"))}) == (
        3, "per-operand-precision")


def test_a_comment_naming_other_rules_silences_nothing() -> None:
    assert silencing(_finding(3), JAX001, {3: Comment(3, 1, 2, ("JAX002", "accuracy-hints"))}) is None
    assert silencing(_finding(3), JAX001, {3: Comment(3, 1, 2, ())}) is None


def test_a_comment_on_a_calls_first_line_covers_its_later_lines_only() -> None:
    comments = {2: Comment(2, 1, 2, ("JAX001",))}
    covers = {2: 5}
    assert [silencing(_finding(line), JAX001, comments, covers) for line in range(1, 7)] == [
        None, (2, "JAX001"), (2, "JAX001"), (2, "JAX001"), (2, "JAX001"), None]
    assert silencing(_finding(4), JAX001, comments) is None
    assert silencing(_finding(4), JAX001, comments, None) is None
    assert silencing(_finding(4), JAX001, comments, {}) is None


def test_the_findings_own_line_comes_first() -> None:
    comments = {2: Comment(2, 1, 2, ("JAX001",)), 4: Comment(4, 1, 2, None)}
    assert silencing(_finding(4), JAX001, comments, {2: 6}) == (4, "")


def test_a_covering_comment_silences_what_the_own_line_comment_does_not_name() -> None:
    comments = {2: Comment(2, 1, 2, ("JAX001",)), 4: Comment(4, 1, 2, ("JAX002",))}
    assert silencing(_finding(4), JAX001, comments, {2: 6, 4: 4}) == (2, "JAX001")
    assert silencing(_finding(4, "JAX002"), JAX002, comments, {2: 6, 4: 4}) == (4, "JAX002")


def test_the_outermost_covering_call_comes_first() -> None:
    comments = {1: Comment(1, 1, 2, ("jax0",)), 2: Comment(2, 1, 2, ("JAX001",))}
    assert silencing(_finding(3), JAX001, comments, {2: 4, 1: 5}) == (1, "jax0")
    assert silencing(_finding(5), JAX001, comments, {2: 4, 1: 5}) == (1, "jax0")
    only_inner = {1: Comment(1, 1, 2, ("JAX002",)), 2: Comment(2, 1, 2, ("JAX001",))}
    assert silencing(_finding(3), JAX001, only_inner, {2: 4, 1: 5}) == (2, "JAX001")


def test_used_starts_with_nothing_silenced() -> None:
    comments = {1: Comment(1, 1, 2, None)}
    used = Used(comments)
    assert (used.comments, used.silenced) == (comments, {})
    assert Used(comments).silenced is not used.silenced


# -- with_ignores (--add-noqa) --


def test_with_ignores_appends_a_comment_or_completes_the_lines_own_and_changes_nothing_else() -> None:
    text = ("import jax\r\n"
            "x = jax.tree_map(f, t)   \r\n"
            "y = f(a)  # noqa: E501\n"
            "z = g(b)  # jax-codemod: ignore[JAX001] reviewed\n"
            "w = h(\n"
            "    c)")
    new, refused = with_ignores(text, {2: ["JAX101"], 3: ["JAX101", "JAX001", "JAX101"], 4: ["JAX101"], 6: ["JAX140"]})
    assert (new, refused) == ("import jax\r\n"
                              "x = jax.tree_map(f, t)  # jax-codemod: ignore[JAX101]\r\n"
                              "y = f(a)  # noqa: E501  # jax-codemod: ignore[JAX001, JAX101]\n"
                              "z = g(b)  # jax-codemod: ignore[JAX001, JAX101] reviewed\n"
                              "w = h(\n"
                              "    c)  # jax-codemod: ignore[JAX140]", [])
    assert {line: comment.selectors for line, comment in suppressions(new).items()} == {
        2: ("JAX101",), 3: ("JAX001", "JAX101"), 4: ("JAX001", "JAX101"), 6: ("JAX140",)}
    assert with_ignores(new, {4: ["JAX001"]}) == (new, [])  # a code already named: unchanged


def test_with_ignores_refuses_a_line_that_ends_inside_a_string_or_with_a_backslash() -> None:
    text = 'x = f(a, \\\n      b)\ns = """one\ntwo"""\n'
    assert with_ignores(text, {1: ["JAX101"], 3: ["JAX101"], 9: ["JAX101"]}) == (text, [1, 3, 9])
    assert with_ignores(text, {4: ["JAX101"]})[0] == 'x = f(a, \\\n      b)\ns = """one\ntwo"""  # jax-codemod: ignore[JAX101]\n'
