"""codemods/engine/prefilter.py called directly, in the test's process: which rules a file's bytes
leave in, in their order, what each rule's byte test is asked, and the one memo the rules share.

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks exact values.
Nothing here imports jax.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from codemods.engine.prefilter import any_rule_for, rules_for
from codemods.engine.rule import Rule
from codemods.settings import Scope, Settings

SETTINGS = Settings((0, 12, 0, 1))


class Asked:
    """A stand-in rule whose byte test answers `answer` and records what it was asked."""

    def __init__(self, name: str, answer: bool, log: list) -> None:
        self.name, self.answer, self.log = name, answer, log

    def might_apply(self, raw, settings, holds_kernels=False, tested=None):
        self.log.append((self.name, raw, settings, holds_kernels, tested, dict(tested)))
        tested[self.name] = self.answer
        return self.answer


def test_the_rules_that_pass_in_their_order_each_asked_once() -> None:
    log: list = []
    rules = [Asked("c", True, log), Asked("a", False, log), Asked("b", True, log), Asked("d", True, log)]
    assert rules_for(b"raw", rules, SETTINGS) == [rules[0], rules[2], rules[3]]  # type: ignore[arg-type]
    assert [(name, raw, settings, holds) for name, raw, settings, holds, _, _ in log] == [
        ("c", b"raw", SETTINGS, False), ("a", b"raw", SETTINGS, False), ("b", b"raw", SETTINGS, False),
        ("d", b"raw", SETTINGS, False)]


def test_the_rules_share_one_memo_fresh_for_each_file() -> None:
    log: list = []
    rules = [Asked("a", True, log), Asked("b", False, log), Asked("c", True, log)]
    rules_for(b"one", rules, SETTINGS)  # type: ignore[arg-type]
    memos = [entry[4] for entry in log]
    assert memos[0] is memos[1] is memos[2] and isinstance(memos[0], dict)
    assert [entry[5] for entry in log] == [{}, {"a": True}, {"a": True, "b": False}]
    log.clear()
    rules_for(b"two", rules, SETTINGS)  # type: ignore[arg-type]
    assert log[0][5] == {} and log[0][4] is not memos[0]


@pytest.mark.parametrize("holds_kernels", [True, False])
def test_holds_kernels_is_passed_on(holds_kernels: bool) -> None:
    log: list = []
    rules_for(b"raw", [Asked("a", True, log)], SETTINGS, holds_kernels)  # type: ignore[list-item]
    assert log[0][3] is holds_kernels


def test_no_rules_no_rules() -> None:
    assert rules_for(b"import jax\n", [], SETTINGS) == []


def _rule(code: str, words: tuple[bytes, ...], kernel_scoped: bool = False) -> Rule:
    return Rule(code=code, name=code.lower(), summary="", what="", why="", example="", words=words,
                kernel_scoped=kernel_scoped, check=lambda rule, file: [])


def test_real_rules_by_their_words_and_the_kernel_scope() -> None:
    rules = [_rule("JAX001", (b"precision",)), _rule("JAX002", (b"accuracy",), kernel_scoped=True),
             _rule("JAX003", (b"nothing-here",))]
    raw = b"y = dot(x, precision=p, accuracy=a)\n"
    everywhere = Settings((0, 12, 0, 1), scope=Scope.ALL)
    assert [r.code for r in rules_for(raw, rules, everywhere)] == ["JAX001", "JAX002"]
    kernels = Settings((0, 12, 0, 1), scope=Scope.KERNELS)
    assert [r.code for r in rules_for(raw, rules, kernels)] == ["JAX001"]  # no "pallas": no kernel here
    assert [r.code for r in rules_for(raw, rules, kernels, holds_kernels=True)] == ["JAX001", "JAX002"]
    assert [r.code for r in rules_for(raw + b"from jax.experimental import pallas\n", rules, kernels)] == [
        "JAX001", "JAX002"]
    assert rules_for(b"x = 1\n", rules, everywhere) == []


@pytest.mark.parametrize("answers", [(False, True, True), (False, False, False), (True, False, True)])
def test_any_rule_stops_at_the_first_that_passes(answers: tuple[bool, ...]) -> None:
    log: list = []
    rules = [Asked(name, answer, log) for name, answer in zip("abc", answers)]
    assert any_rule_for(b"raw", rules, SETTINGS, True) is any(answers)  # type: ignore[arg-type]
    asked = answers.index(True) + 1 if any(answers) else len(answers)
    assert [(name, raw, holds) for name, raw, _, holds, _, _ in log] == [(name, b"raw", True) for name in "abc"[:asked]]
    assert all(entry[4] is log[0][4] for entry in log)  # one memo for the file's gates


def test_any_rule_reads_the_code_as_rules_for_does() -> None:
    rules = [_rule("JAX001", (b"precision",))]
    for raw in (b"\xef\xbb\xbfy = dot(x, precision=p)\n", b"# -*- coding: latin-1 -*-\nprecision = 1\n", b"x = 1\n"):
        assert any_rule_for(raw, rules, SETTINGS) is bool(rules_for(raw, rules, SETTINGS))
