"""codemods/engine/rule.py called directly, in the test's process: the whole-word search, the
shared memo of byte tests, gates, selectors, a rule's prefilter (`might_apply`), its needles and its
documentation.

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks exact values.
Nothing here imports jax.
"""

from __future__ import annotations

import re

import pytest

from codemods.engine.rule import Gate, Rule, contains, contains_word, selects
from codemods.engine import rule as rule_module
from codemods.settings import Scope, Settings

KERNELS = Settings((0, 12, 0, 1))
ALL = Settings((0, 12, 0, 1), scope=Scope.ALL)


def _rule(**changes) -> Rule:
    values = dict(code="JAX042", name="some-rule", summary="One line.", what="What.", why="Why.",
                  example="a -> b", words=(), kernel_scoped=False, check=lambda rule, file: [])
    values.update(changes)
    return Rule(**values)


# contains_word


@pytest.mark.parametrize(("raw", "word", "expected"), [
    (b"clip", b"clip", True),
    (b"clip(x)", b"clip", True),
    (b"x.clip", b"clip", True),
    (b" clip ", b"clip", True),
    (b"clipboard", b"clip", False),
    (b"_clip", b"clip", False),
    (b"clip_", b"clip", False),
    (b"2clip", b"clip", False),
    (b"clip2", b"clip", False),
    (b"Zclip", b"clip", False),
    (b"clipZ", b"clip", False),
    (b"", b"clip", False),
    (b"cli", b"clip", False),
    (b"uncliped; clip\n", b"clip", True),  # the second occurrence is whole
    (b"clipper clipped clip", b"clip", True),  # the third
    (b"clipper clipped", b"clip", False),
    (b"a clip", b"clip", True),  # at the very end
    (b"xclip clip", b"clip", True),
    (b"a--", b"-", True),  # the next occurrence starts one byte after the last
    (b"a-", b"-", False),
    (b"-a", b"-", False),
    (b"ab", b"b", False),  # preceded at position 1 by a word byte
    (b"clip clipboard", b"clip", True),  # the first occurrence whole, the last not
    (b"clipX clip clipY", b"clip", True),  # only a middle one whole
])
def test_contains_word(raw: bytes, word: bytes, expected: bool) -> None:
    assert contains_word(raw, word) is expected
    assert bool(re.search(rb"(?<![A-Za-z0-9_])" + re.escape(word) + rb"(?![A-Za-z0-9_])", raw)) is expected
    # The same answer from the file's words, collected once it has been asked for many (`-`: searched).
    tested: dict = {rule_module._SEARCHES: rule_module._SEARCHES_BEFORE_THE_WORDS}
    assert contains_word(raw, word, tested) is expected
    assert (rule_module._WORDS in tested) is (word != b"-")


def test_a_file_is_searched_for_a_few_whole_words_then_read_once() -> None:
    """Each search for a word a file lacks is a pass over it: past `_SEARCHES_BEFORE_THE_WORDS`
    (the JAX1xx rows ask some 170 of a kernel file), its words are collected in one pass and each
    later word is looked up (the trees' prefilter: 2.03 -> 1.75 s of CPU, docs/speed.md)."""
    raw, tested = b"y = jnp.clip(x) + clipboard\n", {}
    for number in range(rule_module._SEARCHES_BEFORE_THE_WORDS):
        assert contains_word(raw, b"absent%d" % number, tested) is False
    assert rule_module._WORDS not in tested
    assert contains_word(raw, b"clip", tested) is True
    assert tested[rule_module._WORDS] == {b"y", b"jnp", b"clip", b"x", b"clipboard"}


# contains: one answer per text per file


def test_contains_answers_and_remembers() -> None:
    tested: dict = {}
    assert contains(b"import jax", b"jax", tested) is True
    assert contains(b"import jax", b"numpy", tested) is False
    assert tested == {b"jax": True, b"numpy": False}


def test_contains_reads_the_memo_before_the_bytes() -> None:
    tested: dict = {b"jax": False, b"numpy": True}
    assert contains(b"import jax", b"jax", tested) is False
    assert contains(b"import jax", b"numpy", tested) is True
    assert tested == {b"jax": False, b"numpy": True}


# Gate.passes


def test_a_gate_with_a_word_only() -> None:
    gate = Gate(b"jax")
    tested: dict = {}
    assert gate.passes(b"import jax\n", tested) is True
    assert tested == {b"jax": True, gate: True}
    tested = {}
    assert gate.passes(b"import numpy\n", tested) is False
    assert tested == {b"jax": False, gate: False}


def test_a_gate_with_a_needle_and_a_test() -> None:
    calls: list = []

    def test(raw: bytes) -> bool:
        calls.append(raw)
        return raw.startswith(b"import")

    gate = Gate(b"jax", test, needle=b"pallas")
    tested: dict = {}
    assert gate.passes(b"import jax, pallas\n", tested) is True
    assert tested == {b"pallas": True, b"jax": True, test: True, gate: True}
    assert calls == [b"import jax, pallas\n"]
    tested = {}
    assert gate.passes(b"# import jax, pallas\n", tested) is False
    assert tested == {b"pallas": True, b"jax": True, test: False, gate: False}
    # the needle missing: neither the word nor the test is asked
    tested = {}
    assert gate.passes(b"import jax\n", tested) is False
    assert tested == {b"pallas": False, gate: False}
    # the word missing: the test is not asked
    tested = {}
    assert gate.passes(b"import pallas\n", tested) is False
    assert tested == {b"pallas": True, b"jax": False, gate: False}
    assert calls == [b"import jax, pallas\n", b"# import jax, pallas\n"]


def test_gates_share_a_test_and_each_gate_answers_once() -> None:
    calls: list = []

    def test(raw: bytes) -> bool:
        calls.append(raw)
        return True

    first, second = Gate(b"jax", test), Gate(b"import", test)
    tested: dict = {}
    assert first.passes(b"import jax", tested) is True
    assert second.passes(b"import jax", tested) is True
    assert first.passes(b"import jax", tested) is True
    assert calls == [b"import jax"]
    assert tested == {b"jax": True, b"import": True, test: True, first: True, second: True}
    # a remembered answer wins over the bytes
    tested = {first: False}
    assert first.passes(b"import jax", tested) is False
    tested = {test: False}
    assert second.passes(b"import jax", tested) is False
    assert calls == [b"import jax"]


def test_a_gate_whose_test_fails_but_word_is_absent_does_not_run_it() -> None:
    def test(raw: bytes) -> bool:
        raise AssertionError("asked")

    gate = Gate(b"jax", test)
    tested: dict = {}
    assert gate.passes(b"numpy", tested) is False
    assert tested == {b"jax": False, gate: False}


# selects


@pytest.mark.parametrize(("selector", "expected"), [
    ("ALL", True), ("all", True), (" All ", True), ("JAX042", True), ("jax042", True), ("JAX0", True),
    ("jax", True), (" JAX04 ", True), ("JAX043", False), ("JAX1", False), ("AX042", False),
    ("some-rule", True), ("Some-Rule", True), (" some-rule\n", True), ("some", False), ("ALLX", False),
    ("other-rule", False),
])
def test_selects(selector: str, expected: bool) -> None:
    assert selects(selector, _rule()) is expected


# Rule.might_apply


def test_words_are_plain_substrings() -> None:
    rule = _rule(words=(b"dot", b"einsum"))
    assert rule.might_apply(b"x.dotted", ALL) is True
    assert rule.might_apply(b"jnp.einsum(a)", ALL) is True
    assert rule.might_apply(b"jnp.sum(a)", ALL) is False


def test_whole_words_count_only_whole() -> None:
    rule = _rule(whole_words=(b"clip", b"abs"))
    assert rule.might_apply(b"np.clip(a)", ALL) is True
    assert rule.might_apply(b"abs(a)", ALL) is True
    assert rule.might_apply(b"clipboard, absent", ALL) is False


def test_a_pattern_needs_its_needle_and_a_match() -> None:
    rule = _rule(patterns=((b"*", re.compile(rb"\(\*")),))
    assert rule.might_apply(b"f(*args)", ALL) is True
    assert rule.might_apply(b"a * b", ALL) is False  # the needle, no match
    other = _rule(patterns=((b"@", re.compile(rb"x")),))
    assert other.might_apply(b"x = 1", ALL) is False  # a match, no needle


def test_nothing_to_look_for_rules_out_everything() -> None:
    assert _rule().might_apply(b"anything at all", ALL) is False


def test_a_kernel_scoped_rule_under_kernels_scope() -> None:
    rule = _rule(words=(b"dot",), kernel_scoped=True)
    assert rule.might_apply(b"jnp.dot(a)", KERNELS) is False  # no pallas, no kernels from elsewhere
    assert rule.might_apply(b"jnp.dot(a)", KERNELS, False) is False
    assert rule.might_apply(b"jnp.dot(a)", KERNELS, True) is True  # other modules launch its functions
    assert rule.might_apply(b"from jax.experimental import pallas\njnp.dot(a)", KERNELS) is True
    assert rule.might_apply(b"from jax.experimental import pallas\njnp.sum(a)", KERNELS) is False
    assert rule.might_apply(b"jnp.dot(a)", ALL) is True  # every scope but kernels
    assert _rule(words=(b"dot",)).might_apply(b"jnp.dot(a)", KERNELS) is True  # not kernel scoped


@pytest.mark.parametrize("raw, expected", [
    (b"def body(x_ref, o_ref):\n    o_ref[...] = jnp.dot(x_ref[...], w, precision=P)\n", True),
    (b"def body(\n    x_ref: Ref = field(default=f(1, g(2))),\n    o_ref,\n):\n    jnp.dot(a, b, precision = P)\n", True),
    (b"def body(x, o):\n    o[...] = jnp.dot(x_ref, w, precision=P)\n", False),  # no ref parameter
    (b"def body(x_ref, o_ref):\n    o_ref[...] = jnp.dot(x_ref[...], w)\n", False),  # no precision or accuracy keyword
    (b"def body(_ref):\n    jnp.dot(a, b, precision=P)\n", False),  # `_ref` alone is not a ref's name
])
def test_a_kernel_scoped_rule_reads_a_function_that_takes_refs_without_pallas(raw: bytes, expected: bool) -> None:
    """A def with a `*_ref` parameter, in code that passes a precision or an accuracy by keyword, may
    be a kernel body launched in a way the analysis does not follow: read, though it says no pallas."""
    rule = _rule(words=(b"dot",), kernel_scoped=True)
    assert rule.might_apply(raw, KERNELS) is expected


def test_might_apply_memoizes_the_marker_in_the_shared_dict() -> None:
    rule = _rule(words=(b"dot",), kernel_scoped=True)
    tested: dict = {}
    assert rule.might_apply(b"pallas; dot", KERNELS, tested=tested) is True
    assert tested == {b"pallas": True}
    tested = {b"pallas": False}  # a remembered answer wins over the bytes
    assert rule.might_apply(b"pallas; dot", KERNELS, tested=tested) is False
    assert rule.might_apply(b"pallas; dot", KERNELS) is True


def test_a_rule_that_requires_a_gate() -> None:
    gate = Gate(b"jax", lambda raw: b"import jax" in raw, needle=b"pallas")
    rule = _rule(words=(b"dot",), requires=gate)
    assert rule.might_apply(b"import jax\nfrom jax.experimental import pallas\nx.dot(y)", ALL) is True
    assert rule.might_apply(b"import jax\nx.dot(y)", ALL) is False  # no needle
    assert rule.might_apply(b"# jax pallas\nx.dot(y)", ALL) is False  # the test fails
    assert rule.might_apply(b"import jax\nfrom jax.experimental import pallas\nx.sum(y)", ALL) is False
    tested: dict = {}
    assert rule.might_apply(b"import jax, pallas; dot", ALL, tested=tested) is True
    assert tested[gate] is True


# Rule.needles


def test_needles() -> None:
    gate = Gate(b"jax", needle=b"pallas")
    rule = _rule(words=(b"dot", b"einsum"), whole_words=(b"clip",), patterns=((b"*", re.compile(rb"\*")),))
    assert rule.needles(ALL) == (b"dot", b"einsum", b"clip", b"*")
    assert rule.needles(KERNELS) == (b"dot", b"einsum", b"clip", b"*")
    scoped = _rule(words=(b"dot",), kernel_scoped=True, requires=gate)
    assert scoped.needles(KERNELS) == (b"pallas", (b"_ref", b"precision"), (b"_ref", b"accuracy"))
    assert scoped.needles(ALL) == (b"pallas",)  # the gate's needle
    assert _rule(words=(b"dot",), requires=Gate(b"jax")).needles(KERNELS) == (b"jax",)  # no needle: its word
    assert _rule(words=(b"dot",), kernel_scoped=True).needles(ALL) == (b"dot",)


# Rule.documentation


def test_documentation_layout() -> None:
    rule = _rule(what="\n    Rewrites things.\n\n    Over lines.\n", why="Because.\n", example="    before\n    after\n\n")
    assert rule.documentation() == (
        "JAX042 (some-rule)\n\nOne line.\n\n"
        "What it does\n    Rewrites things.\n\n    Over lines.\n\n"
        "Why\n    Because.\n\n"
        "Example\n    before\n    after\n")


def test_documentation_keeps_inner_indentation_and_outer_spaces() -> None:
    rule = _rule(what="a\n  b", why="  why  ", example="x\n\n\ny")
    assert rule.documentation() == (
        "JAX042 (some-rule)\n\nOne line.\n\nWhat it does\n    a\n      b\n\nWhy\n    why  \n\nExample\n    x\n\n\n    y\n")


def test_documentation_strips_only_line_ends() -> None:
    rule = _rule(what="X marks the spot X", why="\nXylophone\n", example="XX")
    assert rule.documentation() == (
        "JAX042 (some-rule)\n\nOne line.\n\nWhat it does\n    X marks the spot X\n\nWhy\n    Xylophone\n\n"
        "Example\n    XX\n")
