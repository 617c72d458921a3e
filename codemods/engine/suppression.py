"""Inline suppression: `# jax-codemod: ignore` or `# jax-codemod: ignore[JAX001, accuracy-hints]`
(codes, code prefixes or names, as `--select` takes them), on the finding's line or on the first
line of the call it is in.

Applied by the engine to every rule's findings alike (as Ruff applies `# noqa`): a silenced
finding is dropped with its fix, and counted so the summary can say how many were silenced. What
each comment silenced is kept (`Used`) for the rules that review the comments themselves (JAX900,
Ruff's unused-noqa).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Optional

from codemods.engine.diagnostics import Finding
from codemods.engine.rule import Rule, selects

_SUPPRESSION = re.compile(r"jax-codemod:\s*ignore(?:\[([^\]]*)\])?")


@dataclass(frozen=True)
class Comment:
    """One suppression comment: where its marker is (1-based, end exclusive) and what it names."""

    line: int
    column: int
    end_column: int
    selectors: Optional[tuple[str, ...]]  # None: every rule


@dataclass
class Used:
    """A file's suppression comments and what they silenced: `silenced[line]` holds the selectors
    of that line's comment that silenced a finding ("" for a comment without selectors)."""

    comments: dict[int, Comment]
    silenced: dict[int, set[str]] = field(default_factory=dict)


def suppressions(text: str) -> dict[int, Comment]:
    """Line -> its suppression comment. Read from real comments (the tokenizer's), so a string that
    mentions the marker silences nothing."""
    if "jax-codemod:" not in text:
        return {}
    found: dict[int, Comment] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            match = _SUPPRESSION.search(token.string) if token.type == tokenize.COMMENT else None
            if match:
                named = match.group(1)
                selectors = None if named is None else tuple(s.strip() for s in named.split(",") if s.strip())
                column = token.start[1] + match.start() + 1
                found[token.start[0]] = Comment(token.start[0], column, column + len(match.group(0)), selectors)
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def reach(comments: dict[int, Comment], calls: Iterable[ast.Call]) -> dict[int, int]:
    """Comment line -> the last line it covers: a comment on the first line of a call covers the
    whole call, since users put it where the call starts, whichever line its `precision=` is on."""
    ends: dict[int, int] = {}
    for call in calls:
        if call.lineno in comments and call.end_lineno is not None:
            ends[call.lineno] = max(ends.get(call.lineno, call.lineno), call.end_lineno)
    return ends


def silencing(finding: Finding, rule: Rule, comments: dict[int, Comment],
              covers: Optional[dict[int, int]] = None) -> Optional[tuple[int, str]]:
    """The comment line and selector that silence the finding of `rule` (None: none does): on the
    finding's own line, or on the first line of a call around it (`covers`, from `reach`)."""
    lines = [finding.line] if finding.line in comments else []
    lines += sorted(start for start, end in (covers or {}).items() if start < finding.line <= end)
    for line in lines:
        named = silencer(comments[line], rule)
        if named is not None:
            return line, named
    return None


def silencer(comment: Comment, rule: Rule) -> Optional[str]:
    """What in `comment` silences `rule`: the selector naming it, "" for a comment without selectors,
    None where it does not."""
    if comment.selectors is None:
        return ""
    return next((selector for selector in comment.selectors if selects(selector, rule)), None)


def with_ignores(text: str, codes: Mapping[int, Iterable[str]]) -> tuple[str, list[int]]:
    """`text` with a `# jax-codemod: ignore[CODE, ...]` comment on each line of `codes` that silences
    those codes there (Ruff's `--add-noqa`), and the lines that cannot take one. A line's own
    suppression comment gets the codes it lacks; another comment is kept, the marker after it.
    Nothing else changes: the line's end, the other lines. A line that ends inside a string or
    with a backslash cannot take a comment."""
    ends: set[int] = set()  # lines that end in code or a comment, where a comment may follow
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in (tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT):
                ends.add(token.start[0])
    except (tokenize.TokenError, SyntaxError):
        pass
    existing = suppressions(text)
    lines = io.StringIO(text).readlines()
    refused = []
    for number, wanted in sorted(codes.items()):
        if number not in ends or not 1 <= number <= len(lines):
            refused.append(number)
            continue
        line = lines[number - 1]
        body = line.rstrip("\r\n")
        comment = existing.get(number)
        if comment is None:
            body = body.rstrip(" \t") + f"  # jax-codemod: ignore[{', '.join(sorted(set(wanted)))}]"
        elif comment.selectors is not None:  # (a bare `ignore` silences every code already)
            named = [*comment.selectors, *sorted(set(wanted) - set(comment.selectors))]
            body = body[:comment.column - 1] + f"jax-codemod: ignore[{', '.join(named)}]" + body[comment.end_column - 1:]
        lines[number - 1] = body + line[len(line.rstrip("\r\n")):]
    return "".join(lines), refused
