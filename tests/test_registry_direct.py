"""codemods/registry.py called directly, in the test's process: finding the rules, choosing among
them by code, prefix or name (`--select`, `--ignore`), and the message that names unknown ones.

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks exact values.
Nothing here imports jax.
"""

from __future__ import annotations

import pytest

from codemods import registry
from codemods.engine.rule import Rule, code_order
from codemods.registry import RULES, UnknownRule, check_known, lookup, matching, select, split


def _rule(code: str, name: str, default: bool = True) -> Rule:
    return Rule(code=code, name=name, summary="One line.", what="What.", why="Why.", example="a -> b",
                words=(), kernel_scoped=False, check=lambda rule, file: [], default=default)


A = _rule("JAX001", "alpha")
B = _rule("JAX002", "beta")
C = _rule("JAX101", "gamma")
OPT_IN = _rule("JAX900", "opt-in", default=False)
SMALL = (A, B, C, OPT_IN)


def _codes(rules) -> list[str]:
    return [rule.code for rule in rules]


# _discover and RULES


def test_discover_finds_every_rule_module_sorted_by_code():
    found = registry._discover()
    assert isinstance(found, tuple)
    assert found == RULES
    codes = _codes(found)
    assert codes == sorted(codes, key=code_order)
    assert len(set(codes)) == len(codes)
    # A module with one RULE (per_operand_precision), one with a RULES table (jax_upgrades) and
    # the opt-in one all count.
    assert codes[:4] == ["JAX001", "JAX002", "JAX003", "JAX004"]
    assert "JAX101" in codes and "JAX195" in codes
    assert codes[-2:] == ["JAX1000", "JAX900"]  # the upgrades' four-digit codes after their three-digit ones
    from codemods import api_changes
    import importlib
    import pkgutil

    from codemods import rules as modules
    singles = [info.name for info in pkgutil.iter_modules(modules.__path__)
               if hasattr(importlib.import_module(f"{modules.__name__}.{info.name}"), "RULE")]
    assert len(singles) >= 4
    assert len(codes) == len(api_changes.TABLE) + len(singles)  # the table's rows, and each module's RULE


def test_discover_refuses_two_rules_sharing_a_code(monkeypatch):
    import codemods.rules.bf16_lstm as bf16

    monkeypatch.setattr(bf16, "RULE", _rule("JAX001", "copy"), raising=True)
    with pytest.raises(AssertionError) as raised:
        registry._discover()
    message = str(raised.value)
    assert message.startswith("two rules share a code: ['JAX001', 'JAX001', 'JAX002', ")


# matching


def test_matching_by_all_code_prefix_and_name():
    assert matching("ALL", SMALL) == list(SMALL)
    assert matching("all", SMALL) == list(SMALL)
    assert matching("JAX001", SMALL) == [A]
    assert matching("JAX0", SMALL) == [A, B]
    assert matching("jax1", SMALL) == [C]
    assert matching("beta", SMALL) == [B]
    assert matching(" gamma ", SMALL) == [C]
    assert matching("nothing", SMALL) == []


def test_a_three_digit_code_names_its_rule_alone_while_shorter_prefixes_reach_the_four_digit_codes():
    """JAX1000-JAX1999 continue JAX100-JAX199 (docs/upgrading-jax.md, "Codes"): `JAX101` is the
    tree_map row, not also JAX1010-JAX1019; `JAX1` and `JAX10` are prefixes of both widths."""
    tree, a, b, k = _rule("JAX101", "tree"), _rule("JAX1000", "a"), _rule("JAX1010", "b"), _rule("JAX1101", "k")
    rules = (tree, a, b, k)
    assert matching("JAX101", rules) == [tree]
    assert matching("jax1010", rules) == [b]
    assert matching("JAX1", rules) == [tree, a, b, k]
    assert matching("JAX10", rules) == [tree, a, b]
    assert matching("JAX110", rules) == []
    assert matching("JAX11", rules) == [k]


def test_matching_uses_the_real_rules_by_default():
    assert _codes(matching("JAX00"))[:3] == ["JAX001", "JAX002", "JAX003"]
    assert all(code.startswith("JAX00") for code in _codes(matching("JAX00")))
    assert _codes(matching("bf16-lstm")) == ["JAX003"]


# split


def test_split_takes_comma_separated_and_repeated_selectors():
    assert split(["JAX1,JAX001", " beta ", "a, ,b,", ""]) == ["JAX1", "JAX001", "beta", "a", "b"]
    assert split([]) == []
    assert split(["  "]) == []
    assert split(("x",)) == ["x"]


# check_known


def test_check_known_accepts_known_selectors():
    assert check_known(["JAX0,beta", "ALL"], SMALL) is None
    assert check_known([], SMALL) is None


def test_check_known_names_every_unknown_selector_and_the_rules_near_them():
    with pytest.raises(UnknownRule) as raised:
        check_known(["JAX001,nope", "JAX3", " other ", "alpah", "JAX0002"], SMALL)
    assert str(raised.value) == (
        "unknown rule code, prefix or name: 'nope', 'JAX3', 'other', 'alpah', 'JAX0002'; did you mean JAX001 (alpha), "
        "JAX002 (beta)? a code (JAX001), a prefix (JAX0, JAX1, JAX9) or a name (per-operand-precision); "
        "`jax-codemod rules` lists every rule")
    assert isinstance(raised.value, ValueError)


def test_check_known_uses_the_real_rules_by_default():
    check_known(["JAX001", "bf16-lstm"])
    with pytest.raises(UnknownRule, match=r"^unknown rule code, prefix or name: 'JAX8'; did you mean JAX008 "
                                          r"\(debug-print-arguments\)\? "):
        check_known(["JAX8"])


# select


def test_select_without_include_takes_the_default_rules():
    assert select(rules=SMALL) == [A, B, C]
    assert select((), (), SMALL) == [A, B, C]


def test_select_includes_and_excludes():
    assert select(["JAX0"], rules=SMALL) == [A, B]
    assert select(["ALL"], rules=SMALL) == list(SMALL)
    assert select(["opt-in"], rules=SMALL) == [OPT_IN]
    assert select(["JAX900,JAX001"], rules=SMALL) == [A, OPT_IN]  # in the rules' order
    assert select(["JAX0"], ["beta"], SMALL) == [A]
    assert select([], ["JAX0"], SMALL) == [C]
    assert select(["ALL"], ["JAX0", "JAX9"], SMALL) == [C]
    assert select(["beta"], ["beta"], SMALL) == []


def test_select_refuses_unknown_includes_and_excludes():
    with pytest.raises(UnknownRule, match=r"^unknown rule code, prefix or name: 'nope'; a code "):
        select(["nope"], rules=SMALL)
    with pytest.raises(UnknownRule, match=r"^unknown rule code, prefix or name: 'nope2'; a code "):
        select(["JAX0"], ["nope2"], SMALL)
    with pytest.raises(UnknownRule, match=r"'a', 'b'; a code"):
        select(["a"], ["b"], SMALL)


def test_select_uses_the_real_rules_by_default():
    assert _codes(select()) == [rule.code for rule in RULES if rule.code != "JAX900"]
    assert _codes(select(["JAX9"])) == ["JAX900"]
    with pytest.raises(UnknownRule):
        select(["JAX8"])


# lookup


def test_lookup_by_exact_code_or_name():
    assert lookup("JAX003").code == "JAX003"
    assert lookup("jax003").code == "JAX003"
    assert lookup(" JAX003 ").code == "JAX003"
    assert lookup("bf16-lstm").code == "JAX003"
    assert lookup("BF16-LSTM ").code == "JAX003"
    assert lookup("unused-suppression").code == "JAX900"


def test_lookup_of_a_prefix_or_all_is_none():
    assert lookup("JAX0") is None
    assert lookup("ALL") is None


def test_lookup_refuses_an_unknown_key():
    with pytest.raises(UnknownRule, match=r"^unknown rule code, prefix or name: 'JAX8'; did you mean JAX008 "):
        lookup("JAX8")


def test_discover_passes_over_a_module_with_neither_rule_nor_rules(monkeypatch):
    """A helper module under codemods/rules/ (no `RULE`, no `RULES`) adds no rule."""
    import pkgutil
    import sys
    import types

    helper = types.ModuleType("codemods.rules.zz_helper")
    monkeypatch.setitem(sys.modules, "codemods.rules.zz_helper", helper)
    listed = list(pkgutil.iter_modules(registry.rule_modules.__path__))
    monkeypatch.setattr(registry.pkgutil, "iter_modules",
                        lambda path: [*listed, pkgutil.ModuleInfo(None, "zz_helper", False)])
    assert registry._discover() == RULES


def test_codes_sort_by_family_then_width():
    codes = ["JAX900", "JAX1000", "JAX101", "JAX001", "JAX100", "JAX1010"]
    assert sorted(codes, key=code_order) == ["JAX001", "JAX100", "JAX101", "JAX1000", "JAX1010", "JAX900"]
