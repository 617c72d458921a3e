"""What a rule reports: a finding, and the fix it carries (as in Ruff, `Diagnostic` + `Fix`).

A finding owns its fix. Rules plan a fix as a `FixPlan` (codemods/engine/fixes.py: edits over
the original text, the imports and helper definitions it needs); the engine applies the plans of
the fixes it may apply together and then fills in each fix's `edits`: the exact text edits that
fix makes alone, in the original file, helper and imports included. Every consumer (the diff of a
finding, json/sarif/github, `--interactive`, an editor's quick fix) reads those edits; nothing
re-derives them from the file's diff.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Optional


class Kind(str, enum.Enum):
    """How a finding should be read."""

    FIXED = "fixed"  # has a fix; listed so reviewers see every change the tool makes
    DROPPED = "dropped"  # has a fix that removes a contract (an accuracy hint): the message says which
    MANUAL = "manual"  # no fix: a person must look (non-literal value, **kwargs, ...)
    WARNING = "warning"  # no fix, may still fail at run time (e.g. bf16 default precision)


class Applicability(str, enum.Enum):
    """Whether `--write` applies a fix on its own (Ruff's terms)."""

    SAFE = "safe"  # the code cannot run as written, and the fix keeps every accuracy the user asked for
    UNSAFE = "unsafe"  # changes numerics or needs a person's judgement: applied only with --unsafe-fixes


@dataclass(frozen=True)
class TextEdit:
    """Replace the original text's characters [start, end) with `content` (start == end: insert)."""

    start: int
    end: int
    content: str


def apply_text_edits(text: str, edits: "tuple[TextEdit, ...] | list[TextEdit]") -> str:
    """`text` with disjoint edits applied (what an editor does with a quick fix)."""
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[:edit.start] + edit.content + text[edit.end:]
    return text


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    edits: tuple[TextEdit, ...] = ()  # filled in by the engine: this fix alone, on the original text
    applied: bool = False  # whether this run's output includes it
    # The rule's plan (a codemods.engine.fixes.FixPlan), until the engine has turned it into `edits`;
    # never cached or pickled. Typed loosely: fixes.py builds on this module, not the other way.
    plan: Optional[Any] = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Finding:
    code: str
    kind: Kind
    line: int
    column: int  # 1-based, as editors count
    message: str
    end_line: int = 0  # where the code the finding is about ends (0: not known)
    end_column: int = 0  # 1-based, exclusive
    fix: Optional[Fix] = None
    held_back: bool = False  # a fix the project's jax floor holds back (the summary counts them)
    # The line a suppression comment silences it on, where that is not `line` (placed on its fix's
    # span, which may start on an earlier line): where `--add-noqa` writes its comment.
    silenced_on: int = 0

    @property
    def comment_line(self) -> int:
        return self.silenced_on or self.line

    @property
    def applied(self) -> bool:
        return self.fix is not None and self.fix.applied

    @property
    def unapplied_fix(self) -> bool:
        """A fix this run did not apply (unsafe without --unsafe-fixes, or declined)."""
        return self.fix is not None and not self.fix.applied

    def sort_key(self) -> tuple:
        return (self.line, self.column, self.end_line, self.end_column, self.code, self.message)

    @property
    def label(self) -> str:
        """`kind`, and what this run does with an unsafe or unapplied fix: every format shows it
        (text and github titles, SARIF and rdjson messages, ...), so that no reviewer reads a fix
        left out as done."""
        label = self.kind.value
        if self.fix is not None and self.fix.applicability is Applicability.UNSAFE:
            label += ", unsafe" if self.fix.applied else ", unsafe fix: --unsafe-fixes"
        elif self.unapplied_fix:
            label += ", not applied"
        return label

    @property
    def labelled_message(self) -> str:
        """`[label] message`: the message as the machine formats and the editor show it."""
        return f"[{self.label}] {self.message}"

    def render(self, path: str) -> str:
        return f"{path}:{self.line}:{self.column}: {self.code} [{self.label}] {self.message}"
