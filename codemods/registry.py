"""The rules the tool knows, and choosing among them by code, prefix or name (as Ruff does).

Each rule lives whole in its own module under codemods/rules/ (code, name, documentation,
prefilter and implementation in one `Rule`), or a table-driven family in one module as `RULES`.
They are found here, so adding a rule touches its module and its goldens, nothing else.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
import re
from typing import Iterable, Sequence

from codemods import rules as rule_modules
from codemods.engine.rule import Rule, code_order, selects


def _discover() -> tuple[Rule, ...]:
    found: list[Rule] = []
    for info in pkgutil.iter_modules(rule_modules.__path__):
        module = importlib.import_module(f"{rule_modules.__name__}.{info.name}")
        found += [module.RULE] if hasattr(module, "RULE") else list(getattr(module, "RULES", ()))
    codes = [rule.code for rule in found]
    assert len(set(codes)) == len(codes), f"two rules share a code: {sorted(codes)}"
    return tuple(sorted(found, key=lambda rule: code_order(rule.code)))


RULES: tuple[Rule, ...] = _discover()


class UnknownRule(ValueError):
    """Selectors that name no rule; the message lists them and what is known."""


def matching(selector: str, rules: Sequence[Rule] = RULES) -> list[Rule]:
    """The rules a selector names: `ALL`, a code or a code prefix (`JAX0`, `JAX00`), or a name."""
    return [rule for rule in rules if selects(selector, rule)]


def split(keys: Iterable[str]) -> list[str]:
    """The selectors of options given comma-separated (`JAX1,JAX001`), repeated, or both."""
    return [k.strip() for key in keys for k in key.split(",") if k.strip()]


def check_known(selectors: Iterable[str], rules: Sequence[Rule] = RULES) -> None:
    """Raises UnknownRule naming every selector that matches no rule."""
    unknown = [key for key in split(selectors) if not matching(key, rules)]
    if unknown:
        raise UnknownRule(f"unknown rule code, prefix or name: {', '.join(map(repr, unknown))}; "
                          f"{known_near(unknown, rules)}")


def known_near(unknown: Sequence[str], rules: Sequence[Rule] = RULES) -> str:
    """What to say of the rules beside unknown selectors: the close ones (a typo, a code one digit off),
    and where every one is listed, not all ~200 of them."""
    codes, names = {rule.code: rule for rule in rules}, {rule.name: rule for rule in rules}
    near = set()
    for key in unknown:
        numbered = re.fullmatch(r"([A-Za-z]+)0*(\d+)", key)  # `JAX8`, `jax01`, `JAX0002`: the code of that number
        if numbered and (code := f"{numbered[1].upper()}{int(numbered[2]):03d}") in codes:
            near.add(codes[code])
        near.update(names[match] for match in difflib.get_close_matches(key, names, n=3, cutoff=0.8))
    prefixes = sorted({rule.code[:4] for rule in rules})
    said = f"did you mean {', '.join(f'{r.code} ({r.name})' for r in sorted(near, key=lambda r: code_order(r.code)))}? " if near else ""
    return (f"{said}a code (JAX001), a prefix ({', '.join(prefixes)}) or a name (per-operand-precision); "
            "`jax-codemod rules` lists every rule")


def select(include: Iterable[str] = (), exclude: Iterable[str] = (), rules: Sequence[Rule] = RULES) -> list[Rule]:
    """`--select`/`--ignore`: codes, prefixes or names, comma-separated or repeated; without a
    `--select`, the rules on by default (not the opt-in ones). Raises UnknownRule."""
    include, exclude = split(include), split(exclude)
    check_known([*include, *exclude], rules)
    chosen = {rule for key in include for rule in matching(key, rules)} or {rule for rule in rules if rule.default}
    dropped = {rule for key in exclude for rule in matching(key, rules)}
    return [rule for rule in rules if rule in chosen and rule not in dropped]


def lookup(key: str) -> "Rule | None":
    """The rule whose exact code or name `key` is; None for a prefix. Raises UnknownRule."""
    check_known([key])
    return next((rule for rule in RULES if rule.code == key.strip().upper() or rule.name == key.strip().lower()), None)
