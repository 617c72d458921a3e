"""What the engine knows of a rule: the small interface every rule module fills in.

A rule lives in one module (codemods/rules/per_operand_precision.py, ...) or one row of a table: its
code, name, documentation, byte prefilter and implementation together, in one `Rule`. The engine
reads the prefilter fields before parsing, and calls `check` on each file that passes it; it
never imports a rule module itself (codemods/registry.py finds them).
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Protocol

from codemods.analysis.kernel_scope import HINT_KEYWORD, KERNEL_MARKER, NO_FACTS, REF_PARAMETER, ModuleFacts
from codemods.analysis.module import ModuleIndex
from codemods.engine.diagnostics import Finding
from codemods.engine.notebook import Needle
from codemods.settings import Scope, Settings

# For prefilter patterns: a call that unpacks arguments (`f(x, *rest)`, `g(**options)`) may pass
# what a rule looks for without its word appearing; the rule's pattern appends `*` or `\*`.
UNPACKED_ARGUMENT = rb"[(,](?:\s|#[^\n]*\n)*\*"


@dataclass
class ParsedFile:
    """One parsed file as every rule sees it; `shared` holds what the rules compute once per file
    (their common analysis), so that no rule recomputes another's."""

    path: Path
    module: ModuleIndex
    settings: Settings
    # Lines a traceback proves to hold a failing call, by rule (`jax-codemod explain`).
    proven: dict[str, frozenset[int]] = field(default_factory=dict)
    facts: ModuleFacts = NO_FACTS  # what the rest of the project says about this module
    shared: dict[str, Any] = field(default_factory=dict)


class Check(Protocol):
    def __call__(self, rule: "Rule", file: ParsedFile) -> list[Finding]: ...


WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")  # of identifiers


# A file asked for more whole words than this has its words collected in one pass, which costs about
# as much as this many searches for a word it lacks; each later word is a set lookup (the JAX1xx rows
# ask some 170 of a kernel file that imports jax and says pallas).
_SEARCHES_BEFORE_THE_WORDS = 48
_WORDS, _SEARCHES = "the file's words", "whole-word searches"  # keys of `tested` (its others are not strs)


def contains_word(raw: bytes, word: bytes, tested: Optional[dict] = None) -> bool:
    """`word` occurs in `raw` whole, as `\\bword\\b` matches it; twice as fast as that regex, which
    has no literal prefix to search for and so tries every position. `tested`: the answers for
    `raw` that a file's rules share, where the file's words are kept once it is asked for many."""
    if tested is not None and word and WORD_BYTES.issuperset(word):
        if _WORDS not in tested:
            tested[_SEARCHES] = tested.get(_SEARCHES, 0) + 1
            if tested[_SEARCHES] > _SEARCHES_BEFORE_THE_WORDS:
                tested[_WORDS] = frozenset(re.findall(rb"\w+", raw))  # (`\w` of bytes: WORD_BYTES)
        if _WORDS in tested:
            return word in tested[_WORDS]
    start = raw.find(word)
    while start != -1:
        end = start + len(word)
        if (start == 0 or raw[start - 1] not in WORD_BYTES) and (end == len(raw) or raw[end] not in WORD_BYTES):
            return True
        start = raw.find(word, start + 1)
    return False


def contains(raw: bytes, text: bytes, tested: dict) -> bool:
    """`text in raw`, answered once per file however many rules and gates ask (`tested`: the
    answers for `raw`): a search is a pass over the whole file."""
    if text not in tested:
        tested[text] = text in raw
    return tested[text]


def _names_refs(raw: bytes, tested: dict) -> bool:
    """Whether the code may define a function that takes refs as kernel bodies do (`x_ref`) and pass
    a precision or an accuracy: one whose launch is not found may run in a kernel all the same
    (see kernel_scope.REF_PARAMETER)."""
    if REF_PARAMETER not in tested:
        tested[REF_PARAMETER] = contains(raw, b"_ref", tested) and HINT_KEYWORD.search(raw) is not None \
            and REF_PARAMETER.search(raw) is not None
    return tested[REF_PARAMETER]


@dataclass(frozen=True, eq=False)  # hashed by identity: rules share one instance, asked per file
class Gate:
    """A test many rules share before their own words: a word, then a test of the whole file (which
    gates with other words may share), each answered once per file however many rules ask."""

    word: bytes
    test: Optional[Callable[[bytes], bool]] = None
    # A byte string every file the gate passes holds, rarer than its word where the test needs one
    # (an import of jax needs `jax`): searched first, and what Rule.needles offers for the gate.
    needle: Optional[bytes] = None

    def passes(self, raw: bytes, tested: dict) -> bool:
        if self not in tested:
            present = (self.needle is None or contains(raw, self.needle, tested)) and contains(raw, self.word, tested)
            if present and self.test is not None and self.test not in tested:
                tested[self.test] = self.test(raw)
            tested[self] = present and (self.test is None or tested[self.test])
        return tested[self]


SUPPRESSIONS = "suppressions"  # the ParsedFile.shared key of the file's suppression comments and their use


# A whole three-digit code (`JAX101`). The JAX1xx upgrades went on as JAX1000-JAX1999 once JAX100-JAX199
# were taken (docs/upgrading-jax.md, "Codes"): each of those codes starts with a three-digit one, which
# names its own rule only, not ten more (`ignore[JAX101]` must not silence JAX1010).
_THREE_DIGIT_CODE = re.compile(r"[A-Z]+\d{3}")


def code_order(code: str) -> tuple[str, int, str]:
    """Where a code sorts: by family (its letters and first digit), then width, then as text:
    JAX199, JAX1000, JAX900 (text alone puts JAX1000 after JAX100)."""
    family = re.match(r"[A-Z]*\d?", code)
    return family[0] if family else "", len(code), code


def selects(selector: str, rule: "Rule") -> bool:
    """Whether a selector names the rule: `ALL`, its code or a prefix of it (`JAX0`; a three-digit
    code is no prefix), or its name; as --select, the config and suppression comments take them."""
    key = selector.strip()
    upper = key.upper()
    if rule.code.startswith(upper):
        return rule.code == upper or not _THREE_DIGIT_CODE.fullmatch(upper)
    return upper == "ALL" or rule.name == key.lower()


@dataclass(frozen=True)
class Rule:
    code: str  # e.g. "JAX001"
    name: str  # e.g. "per-operand-precision"
    summary: str  # one line
    what: str  # documentation: what it does ...
    why: str  # ... why ...
    example: str  # ... and an example, `before` then `after`
    # The prefilter: a file in which none of these byte strings occurs, and no pattern matches,
    # has nothing this rule rewrites or reports.
    words: tuple[bytes, ...]
    kernel_scoped: bool  # only acts inside Pallas kernel bodies (under --scope kernels)
    check: Check = field(compare=False, repr=False)  # the implementation: findings with their fixes
    # (a byte string any match contains, the pattern): the substring test is ten times faster.
    patterns: tuple[tuple[bytes, "re.Pattern[bytes]"], ...] = ()
    # Words that count only whole (`clip`, not `clipboard`): found without a regex (see contains_word).
    whole_words: tuple[bytes, ...] = ()
    # What every file this rule acts on holds, tested before the words: the Pallas upgrade rows, whose
    # own words (`dot`, `load`) are everywhere, need a file that imports jax and says `pallas`.
    requires: Optional["Gate"] = None
    # Answers `explain`: whether a call is one this rule rewrites or reports, wherever it sits.
    matches: Optional[Callable[["Rule", ParsedFile, Any], bool]] = field(default=None, compare=False, repr=False)
    # Answers `explain` for a rule whose matches need not be calls (an import, a name, an attribute):
    # the first and last lines of what it rewrites or reports that a traceback's line names (None: nothing).
    locate: Optional[Callable[["Rule", ParsedFile, int], Optional[tuple[int, int]]]] = field(
        default=None, compare=False, repr=False)
    # Selected when no --select names rules; False: opt-in (JAX900), as Ruff's RUF100 is.
    default: bool = True
    # Checked after suppression comments are applied, with what each one silenced in
    # `file.shared[SUPPRESSIONS]` (a codemods.engine.suppression.Used): JAX900 reports the unused ones.
    reviews_suppressions: bool = False
    # Calls whose argument the whole-program value flow follows into kernel code, across modules
    # (codemods/analysis/flow/link.py): qualified name -> (the argument's position or None, its keyword).
    follows: Mapping[str, tuple[Optional[int], str]] = field(default_factory=dict, compare=False, repr=False)

    def might_apply(self, raw: bytes, settings: Settings, holds_kernels: bool = False,
                    tested: Optional[dict] = None) -> bool:
        """The prefilter, on bytes: most files are ruled out here, before they are parsed.
        `holds_kernels`: other modules launch this one's functions (it need not say "pallas");
        `tested`: the gates already answered for `raw`, shared by the rules of one file."""
        tested = {} if tested is None else tested
        if self.kernel_scoped and settings.scope is Scope.KERNELS and not holds_kernels \
                and not contains(raw, KERNEL_MARKER, tested) and not _names_refs(raw, tested):
            return False
        if self.requires is not None and not self.requires.passes(raw, tested):
            return False
        return any(word in raw for word in self.words) or any(contains_word(raw, word, tested) for word in self.whole_words) \
            or any(needle in raw and pattern.search(raw) for needle, pattern in self.patterns)

    def needles(self, settings: Settings) -> tuple[Needle, ...]:
        """What every file this rule may act on holds, one of them (a byte string, or several all
        present), when no other module launches its functions (a notebook's case: nothing imports
        one). Weaker than might_apply, and tested as plain substrings, so that it holds on bytes
        that are not the code itself. A kernel-scoped rule's: pallas, or a ref and a precision or
        accuracy keyword (`_names_refs`): `_ref` alone is in one notebook of twenty without jax."""
        if self.kernel_scoped and settings.scope is Scope.KERNELS:
            return (KERNEL_MARKER, (b"_ref", b"precision"), (b"_ref", b"accuracy"))
        if self.requires is not None:
            return (self.requires.needle or self.requires.word,)
        return (*self.words, *self.whole_words, *(needle for needle, _ in self.patterns))

    def documentation(self) -> str:
        """As `jax-codemod rules CODE` prints it (Ruff's `ruff rule`)."""
        sections = [f"{self.code} ({self.name})", "", self.summary]
        for title, body in (("What it does", self.what), ("Why", self.why), ("Example", self.example)):
            sections += ["", title, textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")]
        return "\n".join(sections) + "\n"
