"""The transforms the tool knows, and choosing among them by code or name."""

from __future__ import annotations

from typing import Iterable, Sequence

from codemods.rules import RULES, Rule


def _lookup(key: str) -> Rule:
    for rule in RULES:
        if key.upper() == rule.code or key.lower() == rule.name:
            return rule
    known = ", ".join(f"{rule.code} ({rule.name})" for rule in RULES)
    raise KeyError(f"unknown transform {key!r}; known: {known}")


def select(include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Sequence[Rule]:
    """`--select`/`--ignore`: codes or names, comma-separated or repeated. Raises KeyError."""
    split = lambda keys: [k.strip() for key in keys for k in key.split(",") if k.strip()]  # noqa: E731
    chosen = {_lookup(k) for k in split(include)} or set(RULES)
    dropped = {_lookup(k) for k in split(exclude)}
    return [rule for rule in RULES if rule in chosen and rule not in dropped]
