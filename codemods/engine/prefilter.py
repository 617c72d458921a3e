"""Stage 2: rule files out by their bytes, before they are decoded or parsed.

A rule applies to a file only if one of its words occurs in it (and, for kernel-scoped rules under
`--scope kernels`, the word "pallas": every kernel launcher lives under jax.experimental.pallas).
Most files of a large tree stop here. The test only ever says "maybe": the analysis decides, and
tests/test_prefilter.py checks that it never rules out a file the analysis would change or report.
"""

from __future__ import annotations

from typing import Iterator, Sequence

from codemods.engine.rule import Rule
from codemods.engine.source import utf8_code
from codemods.settings import Settings


def rules_for(raw: bytes, rules: Sequence[Rule], settings: Settings, holds_kernels: bool = False) -> list[Rule]:
    """The rules whose byte test `raw` passes (`holds_kernels`: the project index says other modules
    launch or call this one's functions in kernels). Read as UTF-8 code: a BOM or a coding cookie
    does not hide what a file says."""
    return list(_passing(raw, rules, settings, holds_kernels))


def any_rule_for(raw: bytes, rules: Sequence[Rule], settings: Settings, holds_kernels: bool = False) -> bool:
    """Whether `rules_for` would leave any rule in: the rules after the first that passes are not
    tested (the project index asks this of every module it reads; testing each kernel-scoped rule
    took four times as long over the trees)."""
    return next(_passing(raw, rules, settings, holds_kernels), None) is not None


def _passing(raw: bytes, rules: Sequence[Rule], settings: Settings, holds_kernels: bool) -> Iterator[Rule]:
    """The rules whose byte test passes, tested one by one as they are asked for."""
    raw = utf8_code(raw)
    tested: dict = {}  # the gates' answers, shared by the rules
    return (rule for rule in rules if rule.might_apply(raw, settings, holds_kernels, tested))
