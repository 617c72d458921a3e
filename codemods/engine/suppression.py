"""Inline suppression: `# jax-codemod: ignore` or `# jax-codemod: ignore[JAX001, JAX002]`.

Applied by the engine to every rule's findings alike (as Ruff applies `# noqa`): a silenced
finding is dropped with its fix, and counted so the summary can say how many were silenced.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Optional

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


def silenced(finding: Finding, comments: dict[int, Optional[frozenset[str]]]) -> bool:
    """Whether a comment on the finding's line silences its rule."""
    if finding.line not in comments:
        return False
    codes = comments[finding.line]
    return codes is None or finding.code in codes
