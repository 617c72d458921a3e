"""An edit that only moves a module's code (a comment or a blank line above it, a longer line before
a call on it) leaves its summary as it was but for its sites: the link's answers are then the kept
ones with that module's sites moved, not a new fixpoint over the whole project.

The link reads a site as an identity and orders by it only within its module (answers are sorted
by module, then site), so moving every site of a module the same way, keeping their order, moves
its answers the same way: its own sites, those of other modules' answers that name it, and the
`(module:line)` in the descriptions (`readers`, `unknown`, `maybe`), which are sorted strings and
are sorted again once a line in them moved.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable, Optional

from codemods.analysis.flow.flow_facts import FlowFacts, Reach
from codemods.analysis.flow.summary import Expr, Site

_SITED = frozenset({"seq", "map", "comp"})  # the expressions whose second element is a site (summary.py)


def site_moves(kept: tuple, new: tuple) -> Optional[dict[Site, Site]]:
    """Where each site of `kept` (a module summary's `as_data`) went in `new`, when `new` is `kept`
    with its sites moved and their order kept; None otherwise (something else changed, or two sites
    changed places or met, or two of them on one line went to two lines, or two lines to one)."""
    old_sites: list[Site] = []
    new_sites: list[Site] = []
    _with_sites(kept, lambda site: old_sites.append(site) or site)
    _with_sites(new, lambda site: new_sites.append(site) or site)
    if len(old_sites) != len(new_sites):
        return None
    moves: dict[Site, Site] = {}
    for old, moved in zip(old_sites, new_sites):
        if moves.setdefault(old, moved) != moved:
            return None
    in_order = [moves[site] for site in sorted(moves)]
    lines: dict[int, int] = {}
    if any(a >= b for a, b in zip(in_order, in_order[1:])) or any(
            lines.setdefault(old[0], moved[0]) != moved[0] for old, moved in moves.items()) \
            or len(set(lines.values())) != len(lines):
        return None
    return moves if _with_sites(kept, moves.__getitem__) == new else None


def moved_answers(flow: dict[str, FlowFacts], moves: dict[str, dict[Site, Site]]) -> dict[str, FlowFacts]:
    """The link's answers `flow` with the sites of each module of `moves` moved as it says."""
    lines = {module: {old[0]: moved[0] for old, moved in module_moves.items()} for module, module_moves in moves.items()}
    mention = re.compile(rf"\(({'|'.join(map(re.escape, moves))}):(\d+)\)")  # `(module:line)`

    def site(module: str, at: Site) -> Site:
        return moves[module].get(tuple(at), at) if module in moves else at  # type: ignore[return-value]

    def described(strings: tuple[str, ...]) -> tuple[str, ...]:
        """Descriptions naming a moved line, with the line moved (and sorted again, as the link sorts them)."""
        changed = tuple(mention.sub(lambda found: f"({found[1]}:{lines[found[1]].get(int(found[2]), found[2])})", text)
                        for text in strings)
        return strings if changed == strings else tuple(sorted(changed))

    def calls(kernels: tuple[tuple[str, Site, str], ...]) -> tuple[tuple[str, Site, str], ...]:
        return tuple((at_module, site(at_module, at), callee) for at_module, at, callee in kernels)

    def reach(of: Reach) -> Reach:
        return replace(of, site=site(of.module, of.site), readers=described(of.readers))

    def answer(module: str, facts: FlowFacts) -> FlowFacts:
        # (the rest, `kernels` and `dtypes`, name no site: kept as they are; until session 25 `kernels` was
        # dropped here, and JAX004-JAX008 went silent after an edit that only moved code)
        return replace(
            facts,
            sinks=tuple(replace(sink, site=site(module, sink.site), pairs=tuple(map(reach, sink.pairs)),
                                unknown=described(sink.unknown), maybe=described(sink.maybe)) for sink in facts.sinks),
            origins=tuple(replace(origin, site=site(module, origin.site), readers=described(origin.readers),
                                  reaches=calls(origin.reaches), maybe=calls(origin.maybe),
                                  launches=described(origin.launches), dropped=calls(origin.dropped))
                          for origin in facts.origins),
            scalars=tuple((site(module, at), keyword, levels) for at, keyword, levels in facts.scalars),
            handed=tuple(replace(handed, site=site(module, handed.site), reach=reach(handed.reach),
                                 sinks=calls(handed.sinks))
                         for handed in facts.handed),
            lost=tuple(replace(lost, site=site(module, lost.site), unknown=described(lost.unknown),
                               through=described(lost.through)) for lost in facts.lost),
            called=tuple(replace(called, site=site(module, called.site)) for called in facts.called),
            operands=tuple((body, dtypes, described(where)) for body, dtypes, where in facts.operands),
            refs=tuple((body, parameter, tuple((dtype, described(where)) for dtype, where in passed))
                       for body, parameter, passed in facts.refs))

    return {module: answer(module, facts) for module, facts in flow.items()}


def _with_sites(data: tuple, move: Callable[[Site], Site]) -> tuple:
    """A summary's `as_data` with each site `s` made `move(s)`, in one order: its functions' defaults,
    its classes, assignments, returns, then its calls (each call's own site first)."""
    name, functions, classes, assigns, returns, calls, stars = data

    def expr(value: Optional[Expr]) -> Optional[Expr]:
        if not isinstance(value, tuple) or not value:
            return value
        kind = value[0]
        if kind in _SITED:
            inner = value[2]
            if kind == "comp":
                return (kind, move(tuple(value[1])), expr(inner))
            if kind == "map":
                return (kind, move(tuple(value[1])), tuple((key, expr(item)) for key, item in inner))
            return (kind, move(tuple(value[1])), tuple(expr(item) for item in inner))
        if kind in ("attr", "item"):  # (a hint's member with its site, summary.py)
            return (kind, expr(value[1]), value[2], *(move(tuple(site)) for site in value[3:]))
        if kind == "either":
            return (kind, tuple(expr(item) for item in value[1]))
        return value

    return (name,
            {q: (tuple((param, kind, expr(default)) for param, kind, default in params), owner)
             for q, (params, owner) in functions.items()},
            {q: (tuple(expr(base) for base in bases), tuple((attribute, expr(value)) for attribute, value in attributes),
                 tuple((field, expr(default)) for field, default in fields) if fields is not None else None)
             for q, (bases, attributes, fields) in classes.items()},
            tuple((expr(target), expr(value)) for target, value in assigns),
            tuple((function, expr(value)) for function, value in returns),
            tuple((move(tuple(site)), scope, expr(callee), tuple((starred, expr(value)) for starred, value in args),
                   tuple((keyword, expr(value)) for keyword, value in keywords))
                  for site, scope, callee, args, keywords in calls),
            stars)
