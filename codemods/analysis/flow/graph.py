"""Reachability over a graph of names, the one walk the project index (importers, imports) and the
link's answers (calls and launches) both need."""

from __future__ import annotations

from typing import Callable, Iterable


def closure(start: Iterable[str], edges: Callable[[str], Iterable[str]]) -> set[str]:
    """`start` and all that `edges` (a name -> the names it leads to) lead to from it."""
    found = set(start)
    pending = list(found)
    while pending:
        for target in edges(pending.pop()):
            if target not in found:
                found.add(target)
                pending.append(target)
    return found
