"""codemods/rules/unused_suppression.py (JAX900) called directly, in the test's process: its check
on a file's suppression comments and what they silenced (`Used`, as the engine leaves it in
`ParsedFile.shared`), each finding whole, and the end to end run through `process_source`.

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks exact values.
Nothing here imports jax.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from codemods.engine.diagnostics import Finding, Kind
from codemods.engine.rule import SUPPRESSIONS
from codemods.engine.runner import process_source
from codemods.engine.suppression import Comment, Used
from codemods.registry import select
from codemods.rules import unused_suppression
from codemods.rules.unused_suppression import RULE, _known
from codemods.settings import Settings

TAIL = "remove it or what it names"


def _check(comments: dict[int, Comment], silenced: dict[int, set[str]] | None = None) -> list[Finding]:
    file = SimpleNamespace(shared={SUPPRESSIONS: Used(comments, silenced or {})})
    return unused_suppression._check(RULE, file)  # type: ignore[arg-type]


def _warning(line: int, column: int, end_column: int, problems: str) -> Finding:
    return Finding("JAX900", Kind.WARNING, line, column, f"unused suppression comment ({problems}): {TAIL}",
                   end_line=line, end_column=end_column)


def test_the_rule() -> None:
    assert (RULE.code, RULE.name, RULE.default, RULE.reviews_suppressions, RULE.kernel_scoped) == (
        "JAX900", "unused-suppression", False, True, False)
    assert RULE.words == (b"jax-codemod:",)


@pytest.mark.parametrize(("selector", "known"), [
    ("JAX001", True), ("jax001", True), ("JAX0", True), ("JAX9", True), ("ALL", True), ("all", True),
    ("accuracy-hints", True), ("Accuracy-Hints", True), ("per-operand-precision", True),
    ("acuracy-hints", False), ("JAX999", False), ("JAX0011", False), ("X", False), ("accuracy", False),
])
def test_known(selector: str, known: bool) -> None:
    assert _known(selector) is known


def test_checked_alone_it_judges_nothing() -> None:
    assert unused_suppression._check(RULE, SimpleNamespace(shared={})) == []  # type: ignore[arg-type]


def test_no_comments_no_findings() -> None:
    assert _check({}) == []


def test_a_bare_comment_that_silenced_something_is_used() -> None:
    assert _check({3: Comment(3, 10, 29, None)}, {3: {""}}) == []


def test_a_bare_comment_that_silenced_nothing() -> None:
    assert _check({3: Comment(3, 10, 29, None)}) == [_warning(3, 10, 29, "silences no finding")]
    assert _check({3: Comment(3, 10, 29, None)}, {4: {""}}) == [_warning(3, 10, 29, "silences no finding")]


def test_a_comment_whose_selectors_all_silenced_something() -> None:
    comment = Comment(2, 5, 40, ("JAX001", "accuracy-hints"))
    assert _check({2: comment}, {2: {"JAX001", "accuracy-hints"}}) == []


def test_each_selector_that_silenced_nothing_is_named_in_order() -> None:
    comment = Comment(2, 5, 40, ("JAX002", "JAX001", "jax0", "per-operand-precision"))
    assert _check({2: comment}, {2: {"JAX001"}}) == [
        _warning(2, 5, 40, "silences no finding: JAX002, jax0, per-operand-precision")]


def test_a_selector_silenced_on_another_line_is_unused_on_this_one() -> None:
    comment = Comment(2, 5, 40, ("JAX001",))
    assert _check({2: comment}, {1: {"JAX001"}}) == [_warning(2, 5, 40, "silences no finding: JAX001")]


def test_unknown_selectors_are_named_and_not_also_unused() -> None:
    comment = Comment(7, 23, 70, ("acuracy-hints", "JAX001", "JAX999"))
    assert _check({7: comment}, {7: {"JAX001"}}) == [
        _warning(7, 23, 70, "names no known rule: acuracy-hints, JAX999")]


def test_unknown_and_unused_together() -> None:
    comment = Comment(7, 23, 70, ("JAX999", "JAX001", "accuracy-hints", "acuracy-hint"))
    assert _check({7: comment}, {7: {"accuracy-hints"}}) == [
        _warning(7, 23, 70, "names no known rule: JAX999, acuracy-hint; silences no finding: JAX001")]


def test_a_comment_naming_no_rule_at_all_silences_nothing() -> None:
    # `# jax-codemod: ignore[]`: its selectors are an empty tuple, which silences no finding
    assert _check({5: Comment(5, 3, 23, ())}) == [_warning(5, 3, 23, "silences no finding")]


def test_findings_in_line_order_whatever_the_comments_order() -> None:
    comments = {9: Comment(9, 1, 20, None), 2: Comment(2, 4, 30, ("JAX999",)), 5: Comment(5, 2, 21, None)}
    assert _check(comments, {5: {""}}) == [
        _warning(2, 4, 30, "names no known rule: JAX999"), _warning(9, 1, 20, "silences no finding")]


# -- through the engine --


KERNEL = '''\
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = lax.logistic(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)  # jax-codemod: ignore[{first}]
    y = x_ref[...]  # jax-codemod: ignore[]
    z = x_ref[...]  # jax-codemod: ignore


def run(x):
    return pl.pallas_call(kernel, out_shape=x)(x)
'''


def _run(first: str, selectors: list[str]) -> list[tuple[str, int, int, int, str]]:
    source = KERNEL.format(first=first).encode()
    result = process_source(Path("k.py"), source, select(selectors), Settings(jax_version=(0, 12, 0, 1)))
    assert result.error is None, result.error
    return [(f.code, f.line, f.column, f.end_column, f.message) for f in result.findings]


def test_through_the_engine() -> None:
    assert _run("accuracy-hints, JAX0, acuracy-hint", ["JAX002", "JAX900"]) == [
        ("JAX900", 6, 81, 136, f"unused suppression comment (names no known rule: acuracy-hint; "
                               f"silences no finding: JAX0): {TAIL}"),
        ("JAX900", 7, 23, 44, f"unused suppression comment (silences no finding): {TAIL}"),
        ("JAX900", 8, 23, 42, f"unused suppression comment (silences no finding): {TAIL}"),
    ]


def test_through_the_engine_a_rule_not_selected_silences_nothing() -> None:
    assert _run("JAX002", ["JAX900"])[0] == (
        "JAX900", 6, 81, 108, f"unused suppression comment (silences no finding: JAX002): {TAIL}")
    assert [finding[1] for finding in _run("JAX002", ["JAX002", "JAX900"])] == [7, 8]
