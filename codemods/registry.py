"""The rules the tool knows, and choosing among them by code, prefix or name (as Ruff does).

Each rule lives in its own module, whole: code, name, documentation, prefilter and
implementation in one `Rule`. Adding a rule is adding its module (or a table row) and one line
here.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from codemods import accuracy_hints, bf16_lstm, per_operand_precision
from codemods.engine.rule import Rule

RULES: tuple[Rule, ...] = (per_operand_precision.RULE, accuracy_hints.RULE, bf16_lstm.RULE)


class UnknownRule(ValueError):
    """Selectors that name no rule; the message lists them and what is known."""


def matching(selector: str, rules: Sequence[Rule] = RULES) -> list[Rule]:
    """The rules a selector names: `ALL`, a code or a code prefix (`JAX0`, `JAX00`), or a name."""
    key = selector.strip()
    if key.upper() == "ALL":
        return list(rules)
    return [rule for rule in rules if rule.code.startswith(key.upper()) or rule.name == key.lower()]


def _split(keys: Iterable[str]) -> list[str]:
    return [k.strip() for key in keys for k in key.split(",") if k.strip()]


def check_known(selectors: Iterable[str], rules: Sequence[Rule] = RULES) -> None:
    """Raises UnknownRule naming every selector that matches no rule."""
    unknown = [key for key in _split(selectors) if not matching(key, rules)]
    if unknown:
        known = ", ".join(f"{rule.code} ({rule.name})" for rule in rules)
        raise UnknownRule(f"unknown rule code, prefix or name: {', '.join(map(repr, unknown))}; known: {known}")


def select(include: Iterable[str] = (), exclude: Iterable[str] = (), rules: Sequence[Rule] = RULES) -> list[Rule]:
    """`--select`/`--ignore`: codes, prefixes or names, comma-separated or repeated. Raises UnknownRule."""
    include, exclude = _split(include), _split(exclude)
    check_known([*include, *exclude], rules)
    chosen = {rule for key in include for rule in matching(key, rules)} or set(rules)
    dropped = {rule for key in exclude for rule in matching(key, rules)}
    return [rule for rule in rules if rule in chosen and rule not in dropped]


def lookup(code: str) -> Rule:
    """One rule by its exact code or name. Raises UnknownRule."""
    found = [rule for rule in RULES if rule.code == code.upper() or rule.name == code.lower()]
    if not found:
        check_known([code])
        raise UnknownRule(f"{code!r} names several rules ({', '.join(r.code for r in matching(code))}); give one code")
    return found[0]
