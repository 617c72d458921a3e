"""Inline suppression: `# jax-codemod: ignore` or `# jax-codemod: ignore[JAX001, JAX002]`, on the
finding's line or on the first line of the call it is in.

Applied by the engine to every rule's findings alike (as Ruff applies `# noqa`): a silenced
finding is dropped with its fix, and counted so the summary can say how many were silenced.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import Iterable, Optional

from codemods.engine.diagnostics import Finding

_SUPPRESSION = re.compile(r"jax-codemod:\s*ignore(?:\[([^\]]*)\])?")


def suppressions(text: str) -> dict[int, Optional[frozenset[str]]]:
    """Line -> the rule codes its comment silences (None: every rule). Read from real comments
    (the tokenizer's), so a string that mentions the marker silences nothing."""
    if "jax-codemod:" not in text:
        return {}
    found: dict[int, Optional[frozenset[str]]] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            match = _SUPPRESSION.search(token.string) if token.type == tokenize.COMMENT else None
            if match:
                codes = match.group(1)
                found[token.start[0]] = None if codes is None else frozenset(
                    code.strip().upper() for code in codes.split(",") if code.strip())
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def reach(comments: dict[int, Optional[frozenset[str]]], calls: Iterable[ast.Call]) -> dict[int, int]:
    """Comment line -> the last line it covers: a comment on the first line of a call covers the
    whole call, since users put it where the call starts, whichever line its `precision=` is on."""
    ends: dict[int, int] = {}
    for call in calls:
        if call.lineno in comments and call.end_lineno is not None:
            ends[call.lineno] = max(ends.get(call.lineno, call.lineno), call.end_lineno)
    return ends


def silencing_line(finding: Finding, comments: dict[int, Optional[frozenset[str]]],
                   covers: Optional[dict[int, int]] = None) -> Optional[int]:
    """The line of the comment that silences the finding's rule (None: none does): on the finding's
    own line, or on the first line of a call around it (`covers`, from `reach`)."""
    lines = [finding.line] if finding.line in comments else []
    lines += sorted(start for start, end in (covers or {}).items() if start < finding.line <= end)
    return next((line for line in lines if comments[line] is None or finding.code in comments[line]), None)
