"""Stage 5: apply planned fixes, as Ruff does: edits over source ranges.

Each fix a rule plans is a `FixPlan`; the engine merges the plans of the fixes it applies (one
helper definition, one import, however many fixes need it) and renders them here. Rules plan
edits on the original text (offsets from the stdlib `ast` analysis). An edit replaces a
span with a function of that span's text *after* the edits nested inside it have been applied, so
`f(g(x, accuracy=a), accuracy=b)` loses both hints. Spans must nest or be disjoint: two edits that
partly overlap are a bug of ours and the file is left alone. Edits that must keep the layout of an
argument list (dropping an argument, adding one, routing a call through a helper) re-parse just
that call with libcst (codemods/engine/call_rewrites.py). Imports that a fix adds or leaves unused
are handled by libcst's own import visitors, on the whole module, only when there are any.
"""

from __future__ import annotations

import ast
import difflib
import itertools
import os
import re
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Iterator, Optional

from codemods.analysis.module import NEWLINE
from codemods.engine.diagnostics import Finding, TextEdit, apply_text_edits
from codemods.engine.positions import Positions

# An import as libcst's AddImportsVisitor/RemoveImportsVisitor name it: (module, obj or None, asname or None).
ImportSpec = tuple[str, Optional[str], Optional[str]]


def import_spec(statement: ast.AST, alias: ast.alias) -> ImportSpec:
    """How libcst's import visitors name the import of `alias` in `statement`."""
    if isinstance(statement, ast.Import):
        return (alias.name, None, alias.asname)
    assert isinstance(statement, ast.ImportFrom)
    return ("." * statement.level + (statement.module or ""), alias.name, alias.asname)


class OverlappingEdits(Exception):
    """Two planned edits partly overlap: no order of applying them is right."""


@dataclass(frozen=True)
class Edit:
    start: int
    end: int  # == start: an insertion
    change: Callable[[str], str]  # the span's text (inner edits applied) -> its replacement


@dataclass(frozen=True)
class Insertion:
    """Where module-level definitions (helpers) go, and how they are laid out there."""

    offset: int
    after_statements: bool  # statements come before it: two blank lines open each definition
    blank_lines_after: int
    newline: str


@dataclass(frozen=True)
class Definition:
    """A module-level definition a fix needs (a helper `def`), inserted once however many use it."""

    code: str  # "\n"-separated
    at: Insertion


@dataclass
class FixPlan:
    """What one fix changes in its file."""

    edits: list[Edit] = field(default_factory=list)
    imports_to_add: list[ImportSpec] = field(default_factory=list)
    # Imports whose names a fix stopped using: removed if nothing else uses them any more.
    maybe_unused_imports: dict[ImportSpec, str] = field(default_factory=dict)  # spec -> the name it binds
    definitions: list[Definition] = field(default_factory=list)


def merge(plans: Iterable[FixPlan]) -> FixPlan:
    """The plans of several fixes as one: every edit, each import and definition once.

    Definitions come out latest first: applying the fixes one after another inserts each new one
    at the same point, above those already there, and the merged plan must give the same file."""
    merged = FixPlan()
    for plan in plans:
        merged.edits += plan.edits
        merged.imports_to_add += [spec for spec in plan.imports_to_add if spec not in merged.imports_to_add]
        merged.maybe_unused_imports.update(plan.maybe_unused_imports)
        merged.definitions[:0] = [d for d in reversed(plan.definitions) if d not in merged.definitions]
    return merged


def render(text: str, plan: FixPlan, path: str) -> str:
    """`text` with the plan applied: its edits, its definitions, then its imports."""
    return finish_imports(_placed(text, plan), plan, path)


def _placed(text: str, plan: FixPlan) -> str:
    """`text` with the plan's edits and definitions applied, its imports not yet."""
    edits = list(plan.edits)
    if plan.definitions:
        edits.append(_insert_definitions(plan.definitions))
    return apply_edits(text, edits)


def rendered_with_edits(text: str, plan: FixPlan, path: str) -> tuple[str, tuple[TextEdit, ...]]:
    """`render`'s text, and the exact edits that make it from `text` (a fix's own edits).

    The edits the plan places and the import changes made after them are diffed apart, then
    composed: one line diff of the whole text joins an import removed on the line above a changed
    line with that line (`from jax.lax import AccuracyMode` over `{"accuracy": AccuracyMode.HIGHEST}`),
    and the finding, anchored on its edit, moved to the import's line."""
    placed = _placed(text, plan)
    final = finish_imports(placed, plan, path)
    edits = text_edits(text, placed)
    if final == placed:
        return final, edits
    composed = _compose(edits, text_edits(placed, final))
    return final, composed if composed is not None else text_edits(text, final)


def _compose(first: tuple[TextEdit, ...], then: tuple[TextEdit, ...]) -> Optional[tuple[TextEdit, ...]]:
    """Edits of the original text that do what `first` then `then` (edits of `first`'s result) do;
    None where an edit of `then` touches text `first` wrote (no one edit of the original says it).
    Both in the order of their text, as `text_edits` gives them."""
    written = []  # each edit of `first`: the span its content takes in the result, and how much longer it made the text
    grown = 0
    for edit in first:
        grew = len(edit.content) - (edit.end - edit.start)
        written.append((edit.start + grown, edit.start + grown + len(edit.content), grew))
        grown += grew
    composed = list(first)
    for edit in then:
        if any(edit.start <= high and edit.end >= low for low, high, _ in written):
            return None
        before = sum(grew for _, high, grew in written if high < edit.start)
        composed.append(TextEdit(edit.start - before, edit.end - before, edit.content))
    return tuple(sorted(composed, key=lambda e: e.start))


def _insert_definitions(definitions: list[Definition]) -> Edit:
    at = definitions[0].at
    assert all(d.at == at for d in definitions)

    def insert(_existing: str) -> str:
        blocks = [(at.newline * 2 if at.after_statements or i else "") + d.code.rstrip().replace("\n", at.newline)
                  + at.newline for i, d in enumerate(definitions)]
        return "".join(blocks) + at.newline * at.blank_lines_after

    return Edit(at.offset, at.offset, insert)


def text_edits(old: str, new: str, by_line: bool = False) -> tuple[TextEdit, ...]:
    """The smallest edits, by lines then characters, that turn `old` into `new`: a fix's own
    edits, as an editor or a SARIF consumer applies them. `by_line`: lines replaced by as many
    lines are edited one by one, so that no edit joins two lines that belong apart (the last line
    of a notebook cell and the first of the next)."""
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    old_starts = [0, *itertools.accumulate(map(len, old_lines))]
    new_starts = [0, *itertools.accumulate(map(len, new_lines))]
    edits: list[TextEdit] = []
    for tag, i1, i2, j1, j2 in _changed_lines(old_lines, new_lines):
        if by_line and tag == "replace" and i2 - i1 == j2 - j1:
            spans = [(i, i + 1, j, j + 1) for i, j in zip(range(i1, i2), range(j1, j2))]
        else:
            spans = [(i1, i2, j1, j2)]
        for a1, a2, b1, b2 in spans:
            start, end = old_starts[a1], old_starts[a2]
            content = new[new_starts[b1]:new_starts[b2]]
            removed = old[start:end]
            prefix = len(os.path.commonprefix([removed, content]))
            suffix = len(os.path.commonprefix([removed[prefix:][::-1], content[prefix:][::-1]]))
            edits.append(TextEdit(start + prefix, end - suffix, content[prefix:len(content) - suffix]))
    return tuple(edits)


def _changed_lines(old: list[str], new: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib's opcodes for the lines, less the equal ones. A fix changes a few places of a long
    module, and difflib over all of its lines took seconds a fix (144 fixes of numpy's
    11,663-line test_multiarray.py: 53 s; a helper inserted at the top of a kernel module with
    the call far below: 50 ms). The runs of lines a fix kept (`_kept_runs`) are left out, and
    difflib searches each stretch between them alone, where that gives difflib's own answer
    (`_difflib_keeps`; tests/test_fixes_direct.py compares them on random modules); else it
    searches all the lines."""
    runs = _kept_runs(old, new)
    if runs is None or not _difflib_keeps(old, new, runs):
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        return [opcode for opcode in matcher.get_opcodes() if opcode[0] != "equal"]
    opcodes = []
    for (a_low, a_high), (b_low, b_high) in _gaps(runs, len(old), len(new)):
        matcher = difflib.SequenceMatcher(None, old[a_low:a_high], new[b_low:b_high], autojunk=False)
        opcodes += [(tag, i1 + a_low, i2 + a_low, j1 + b_low, j2 + b_low)
                    for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]
    return opcodes


# A run of kept lines shorter than this is left to difflib: where a changed line also occurs
# elsewhere (a blank line, a `)`), its match outruns a short run, and difflib may pair them otherwise.
_SHORTEST_RUN = 4
_MOST_RUNS = 16  # a fix changes a few places (its call, a helper, an import): the rest is difflib's
# Pairs of a changed line with an equal line elsewhere that `_difflib_keeps` follows before it gives up.
_MOST_PAIRS = 20_000

_Run = tuple[int, int, int]  # (i, j, length): old[i:i + length] == new[j:j + length]


def _kept_runs(old: list[str], new: list[str]) -> Optional[list[_Run]]:
    """The lines a fix most likely kept, as runs on their diagonals, in order: the common head, the
    common tail, and between them the longest run through a line that occurs once on each side,
    then the same either side of it. None where there is none."""
    most = min(len(old), len(new))
    head = 0
    while head < most and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < most - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    runs = [(0, 0, head)] if head >= _SHORTEST_RUN else []
    middle: list[_Run] = []
    _runs_between(old, new, head, len(old) - tail, head, len(new) - tail, middle)
    runs += sorted(middle)
    if tail >= _SHORTEST_RUN:
        runs.append((len(old) - tail, len(new) - tail, tail))
    runs = [_whole(old, new, run) for run in runs]  # the head and tail overlap where lines repeat
    if any(i + length > next_i or j + length > next_j for (i, j, length), (next_i, next_j, _) in zip(runs, runs[1:])):
        return None
    return runs or None


def _whole(old: list[str], new: list[str], run: _Run) -> _Run:
    """The run and the equal lines either side of it on its diagonal: the match difflib sees."""
    i, j, length = run
    while i > 0 and j > 0 and old[i - 1] == new[j - 1]:
        i, j, length = i - 1, j - 1, length + 1
    while i + length < len(old) and j + length < len(new) and old[i + length] == new[j + length]:
        length += 1
    return i, j, length


def _runs_between(old: list[str], new: list[str], a_low: int, a_high: int, b_low: int, b_high: int,
                  found: list[_Run]) -> None:
    """Into `found`: the longest run through a line that occurs once in old[a_low:a_high] and once
    in new[b_low:b_high] (its whole diagonal within them), then the same either side of it."""
    if a_high - a_low < _SHORTEST_RUN or b_high - b_low < _SHORTEST_RUN or len(found) >= _MOST_RUNS:
        return
    in_new: dict[str, int] = {}
    for j in range(b_low, b_high):
        line = new[j]
        in_new[line] = -1 if line in in_new else j
    seen: dict[str, int] = {}
    for i in range(a_low, a_high):
        line = old[i]
        if line in in_new:
            seen[line] = -1 if line in seen else i
    best: Optional[_Run] = None
    reached = (-1, 0)  # the diagonal and the end of the last run followed: its other lines are on it
    for line, i in seen.items():
        j = in_new[line]
        if i < 0 or j < 0 or (j - i == reached[0] and i < reached[1]):
            continue
        start = 0
        while i - start > a_low and j - start > b_low and old[i - start - 1] == new[j - start - 1]:
            start += 1
        end = 1
        while i + end < a_high and j + end < b_high and old[i + end] == new[j + end]:
            end += 1
        reached = (j - i, i + end)
        if best is None or start + end > best[2] or start + end == best[2] and i - start < best[0]:
            best = (i - start, j - start, start + end)
    if best is None or best[2] < _SHORTEST_RUN:
        return
    i, j, length = best
    found.append(best)
    _runs_between(old, new, a_low, i, b_low, j, found)
    _runs_between(old, new, i + length, a_high, j + length, b_high, found)


def _gaps(runs: list[_Run], old_length: int, new_length: int) -> Iterator[tuple[tuple[int, int], tuple[int, int]]]:
    """The stretches of old and new lines between the runs (either may be empty; not both)."""
    a, b = 0, 0
    for i, j, length in [*runs, (old_length, new_length, 0)]:
        if i > a or j > b:
            yield (a, i), (b, j)
        a, b = i + length, j + length


def _difflib_keeps(old: list[str], new: list[str], runs: list[_Run]) -> bool:
    """Whether difflib over all the lines keeps each run whole where it is, so that it searches the
    stretches between them alone. It picks the longest match first (the first in old, then in
    new, of those as long), then the same either side of it. A match between the lines of two runs
    is no longer than the run it lies in, and comes after it where as long (the runs are in order
    on both sides); so difflib picks every run whole when every match through a changed line
    paired with a line outside its own stretch is shorter than the shortest run."""
    shortest = min(length for _, _, length in runs)
    gaps = list(_gaps(runs, len(old), len(new)))
    changed: dict[str, list[int]] = {}  # a changed line -> the gaps it is in
    for number, ((a_low, a_high), (b_low, b_high)) in enumerate(gaps):
        for line in itertools.chain(old[a_low:a_high], new[b_low:b_high]):
            changed.setdefault(line, []).append(number)
    at_old: dict[str, list[int]] = {}
    at_new: dict[str, list[int]] = {}
    for positions, lines in ((at_old, old), (at_new, new)):
        for index, line in enumerate(lines):
            if line in changed:
                positions.setdefault(line, []).append(index)
    pairs = 0
    for (a_low, a_high), (b_low, b_high) in gaps:
        for side, low, high, others, other_low, other_high in ((old, a_low, a_high, at_new, b_low, b_high),
                                                                (new, b_low, b_high, at_old, a_low, a_high)):
            for index in range(low, high):
                for other in others.get(side[index], ()):
                    if other_low <= other < other_high:
                        continue  # within the same stretch: difflib's search there finds it
                    pairs += 1
                    if pairs > _MOST_PAIRS:
                        return False
                    i, j = (index, other) if side is old else (other, index)
                    if _match_through(old, new, i, j, shortest) >= shortest:
                        return False
    return True


def _match_through(old: list[str], new: list[str], i: int, j: int, enough: int) -> int:
    """The length of the match through old[i] == new[j] on its diagonal, counted up to `enough`."""
    length = 1
    back = 1
    while length < enough and i - back >= 0 and j - back >= 0 and old[i - back] == new[j - back]:
        back += 1
        length += 1
    ahead = 1
    while length < enough and i + ahead < len(old) and j + ahead < len(new) and old[i + ahead] == new[j + ahead]:
        ahead += 1
        length += 1
    return length


def anchor(finding: Finding, positions: Positions) -> Finding:
    """The finding with its range made the span its fix's main edit replaces, so that every format
    highlights exactly the text a fix changes (a reviewer's suggested change, an editor's quick fix).

    The main edit is the one that overlaps or touches the finding's range, else the nearest one
    within lines (a call's arguments, when the finding is on its name); it grows to cover the finding's range (its content keeps the text in between),
    taking in any other edit of the fix it then reaches. Edits elsewhere (an import, a helper) stay."""
    fix = finding.fix
    if fix is None or not fix.edits or finding.line < 1:
        return finding
    start = positions.offset(finding.line, finding.column)
    end = max(start, positions.offset(finding.end_line, finding.end_column)) if finding.end_line else start
    main = [edit for edit in fix.edits if edit.start <= end and edit.end >= start]
    if not main:  # the nearest edit that is not whole lines elsewhere (an import, a helper)
        line_starts = set(positions.starts)
        near = [edit for edit in fix.edits if not {edit.start, edit.end} <= line_starts]
        if not near:
            return finding
        main = [min(near, key=lambda edit: max(edit.start - end, start - edit.end))]
    low, high = min(start, *(e.start for e in main)), max(end, *(e.end for e in main))
    while reached := [e for e in fix.edits if e not in main and e.start <= high and e.end >= low]:
        main += reached
        low, high = min(low, *(e.start for e in reached)), max(high, *(e.end for e in reached))
    content = apply_text_edits(positions.text[low:high], [TextEdit(e.start - low, e.end - low, e.content) for e in main])
    edits = tuple(sorted([e for e in fix.edits if e not in main] + [TextEdit(low, high, content)], key=lambda e: e.start))
    (line, column), (end_line, end_column) = positions.position(low), positions.position(high)
    return replace(finding, line=line, column=column, end_line=end_line, end_column=end_column,
                   fix=replace(fix, edits=edits))


@dataclass
class _Node:
    start: int
    end: int
    changes: list[Callable[[str], str]]
    children: list["_Node"] = field(default_factory=list)

    def contains(self, other: "_Node") -> bool:
        if other.start == other.end:  # an insertion sits inside a span only strictly within it
            return self.start < other.start < self.end
        return self.start <= other.start and other.end <= self.end


def apply_edits(text: str, edits: list[Edit]) -> str:
    """`text` with every edit applied, inner edits before the ones around them. Raises OverlappingEdits."""
    groups: dict[tuple[int, int], _Node] = {}
    for edit in edits:  # edits of one span chain in the order they were planned
        groups.setdefault((edit.start, edit.end), _Node(edit.start, edit.end, [])).changes.append(edit.change)
    ordered = sorted(groups.values(), key=lambda n: (n.start, n.start != n.end, -n.end))
    root = _Node(0, len(text), [])
    stack = [root]
    for node in ordered:
        while not stack[-1].contains(node) and stack[-1] is not root:
            stack.pop()
        parent = stack[-1]
        if parent.children and parent.children[-1].end > node.start:
            raise OverlappingEdits(f"edits at {parent.children[-1].start}-{parent.children[-1].end} "
                                   f"and {node.start}-{node.end} overlap")
        parent.children.append(node)
        stack.append(node)
    return _render(text, root)


def _render(text: str, node: _Node) -> str:
    pieces: list[str] = []
    cursor = node.start
    for child in node.children:
        pieces.append(text[cursor:child.start])
        pieces.append(_render(text, child))
        cursor = child.end
    pieces.append(text[cursor:node.end])
    code = "".join(pieces)
    for change in node.changes:
        code = change(code)
    return code


def finish_imports(code: str, plan: FixPlan, path: str) -> str:
    """Add the imports the fix needs and drop the ones it left unused.

    The imports are added first, so that a new import takes the place of the one it replaces (not
    the blank line left where the file's only import was). An unused import that is a statement of
    its own (`from jax.lax import AccuracyMode`) is then removed as a line, comments around it kept;
    anything else goes to libcst's own visitors, and only then is libcst.codemod (slow to import)
    loaded. Most fixes need neither."""
    unused = [spec for spec, name in plan.maybe_unused_imports.items() if name not in _names_used(code)]
    if plan.imports_to_add:
        head, rest = _import_block(code)
        code = _through_libcst(head, path, add=plan.imports_to_add) + rest
    code, unused = _remove_whole_import_lines(code, unused)
    return _through_libcst(code, path, remove=unused) if unused else code


def _import_block(code: str) -> tuple[str, str]:
    """The module up to the end of the statement after its last top-level import, and the rest.
    libcst's AddImportsVisitor places a new import among the top-level imports and reads which exist
    from them, so the head alone gives the same text, without visiting every node of the rest (2 s a file
    of 3,000 lines: jax 0.4.30's own source took 45 s instead of 4 once the jax.core rows came)."""
    try:
        body = ast.parse(code).body
    except SyntaxError:
        return code, ""
    last = max((i for i, statement in enumerate(body) if isinstance(statement, (ast.Import, ast.ImportFrom))), default=None)
    if last is None:
        return code, ""
    lines = _LINE.findall(code)
    # and the statement after it: libcst spaces the imports from the code that follows them
    end = body[min(last + 1, len(body) - 1)].end_lineno or len(lines)
    return "".join(lines[:end]), "".join(lines[end:])


def _through_libcst(code: str, path: str, add: Iterable[ImportSpec] = (), remove: Iterable[ImportSpec] = ()) -> str:
    """libcst's AddImportsVisitor or RemoveImportsVisitor over the whole module."""
    import libcst as cst
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor

    layout = _FormFeedIndents(code)
    try:
        module = cst.parse_module(layout.normalized)
    except cst.ParserSyntaxError:
        if add:
            raise
        return code  # libcst cannot read this file: an unused import stays, nothing is lost
    context = CodemodContext(filename=path)
    for spec in add:
        AddImportsVisitor.add_needed_import(context, *spec)
    for spec in remove:
        RemoveImportsVisitor.remove_unused_import(context, *spec)
    visitor = AddImportsVisitor if add else RemoveImportsVisitor
    printed = visitor(context).transform_module(module).code
    if code.endswith("\r"):  # libcst drops the last line end of a file that ends with a lone CR, even after a blank line
        printed += "\r"
    return layout.restore(printed)


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")  # a line as Python reads it, with its end
_FORM_FEED_INDENT = re.compile(r"[ \t\f]*\f")  # leading whitespace up to its last form feed


class _FormFeedIndents:
    """The module without the form feeds that lead its lines, for libcst, and back.

    Python resets the indentation column at a form feed, so `\\f    x` is indented 4; libcst's
    tokenizer keeps the form feed in the indentation and does not print it back where it was: a
    form feed that leads a statement is dropped, or repeated on every line of its block, or taken
    for the module's indentation (`default_indent`, which libcst then refuses). libcst sees each
    line without its leading whitespace up to the last form feed (what Python reads the same);
    lines it prints unchanged get their own text back, and a line it rewrites its form feeds."""

    def __init__(self, code: str) -> None:
        self.lines = _LINE.findall(code)
        self.prefixes = [match.group() if (match := _FORM_FEED_INDENT.match(line)) else "" for line in self.lines]
        self.normalized = "".join(line[len(prefix):] for line, prefix in zip(self.lines, self.prefixes)) \
            if any(self.prefixes) else code

    def restore(self, printed: str) -> str:
        """The module libcst printed from `normalized`, with the form feeds put back."""
        if not any(self.prefixes):
            return printed
        old = [line[len(prefix):] for line, prefix in zip(self.lines, self.prefixes)]
        new = _LINE.findall(printed)
        head = 0  # libcst changes import lines only: compare what lies between the first and the last
        while head < min(len(old), len(new)) and old[head] == new[head]:
            head += 1
        tail = 0
        while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
            tail += 1
        out = self.lines[:head]
        matcher = difflib.SequenceMatcher(None, old[head:len(old) - tail], new[head:len(new) - tail], autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            i1, i2, j1, j2 = i1 + head, i2 + head, j1 + head, j2 + head
            if tag == "equal":
                out += self.lines[i1:i2]
            elif tag == "replace" and i2 - i1 == j2 - j1:  # a line rewritten (`import a, b` -> `import a`)
                out += [self.prefixes[i] + new[j] for i, j in zip(range(i1, i2), range(j1, j2))]
            else:
                out += new[j1:j2]
        out += self.lines[len(self.lines) - tail:]
        return "".join(out)


def _remove_whole_import_lines(code: str, unused: list[ImportSpec]) -> tuple[str, list[ImportSpec]]:
    """Remove each unused import that is alone on its lines and imports one name; the others are
    returned for libcst."""
    if not unused:
        return code, unused
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return code, unused  # the edits broke the file: the verify stage says so
    starts = [0] + [match.end() for match in NEWLINE.finditer(code)]
    spans: dict[ast.stmt, tuple[int, int]] = {}
    rest: list[ImportSpec] = []
    statements = [s for s in ast.walk(tree) if isinstance(s, (ast.Import, ast.ImportFrom))]
    for spec in unused:
        module, obj, asname = spec
        match = next((s for s in statements if len(s.names) == 1 and import_spec(s, s.names[0]) == spec), None)
        alone = match is not None and alone_on_its_lines(code, starts, match)
        if alone:
            spans[match] = (starts[match.lineno - 1], starts[match.end_lineno] if match.end_lineno < len(starts) else len(code))
        else:
            rest.append(spec)
    replaced = {span: "" for span in spans.values()}
    for body in _blocks(tree):  # a block left with no statement (`def f():` whose one import goes) keeps a `pass`
        if all(statement in spans for statement in body):
            start, end = spans[body[0]]
            line = code[start:end]
            replaced[start, end] = code[start:start + body[0].col_offset] + "pass" + line[len(line.rstrip("\r\n")):]
    for (start, end), text in sorted(replaced.items(), reverse=True):
        code = code[:start] + text + code[end:]
    return code, rest


def _blocks(tree: ast.Module) -> Iterable[list[ast.stmt]]:
    """Every block of statements but the module's own (which may be left empty): bodies, `else:`,
    `finally:`, and the bodies of `except` and `case` clauses."""
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if node is not tree and isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def alone_on_its_lines(code: str, starts: list[int], statement: ast.stmt) -> bool:
    """Nothing but the statement (and a trailing comment) on its lines: `import a; b = 1` is not."""
    first = code[starts[statement.lineno - 1]:].split("\n", 1)[0]
    if first[: statement.col_offset].strip():
        return False
    end_line_start = starts[statement.end_lineno - 1]
    last = NEWLINE.split(code[end_line_start:], 1)[0]
    after = last.encode()[statement.end_col_offset:].decode(errors="replace").strip()
    return after == "" or after.startswith("#")


def _names_used(code: str) -> set[str]:
    """Every name the module reads or writes, outside its imports, and the strings Python reads as
    names: `__all__`'s entries and annotations (`x: "Cls"`). Any other string is text: a fix that
    writes `compiler_ir('hlo')` does not keep `import ... as hlo` alive."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return set()  # the verify stage reports it
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        for part in _read_as_names(node):
            for text in ast.walk(part):
                if isinstance(text, ast.Constant) and isinstance(text.value, str):
                    names |= {text.value, *_names_in_annotation(text.value)}
    return names


def _read_as_names(node: ast.AST) -> list[ast.AST]:
    """The parts of `node` whose strings name things: `__all__`'s value, an annotation."""
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        parts = [node.value] if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value else []
        return parts + ([node.annotation] if isinstance(node, ast.AnnAssign) else [])
    if isinstance(node, ast.arg):
        return [node.annotation] if node.annotation else []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [node.returns] if node.returns else []
    return []


def _names_in_annotation(text: str) -> set[str]:
    """The names a string annotation reads (`"Optional[Cls]"`: Optional, Cls)."""
    try:
        return {node.id for node in ast.walk(ast.parse(text, mode="eval")) if isinstance(node, ast.Name)}
    except (SyntaxError, ValueError):
        return set()
