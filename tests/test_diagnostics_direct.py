"""codemods/engine/diagnostics.py called directly, in the test's process: applying text edits as an
editor does, and what every format shows of a finding (its label, its labelled message, its text
line, its sort order, whether its fix was applied).

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks exact values.
Nothing here imports jax.
"""

from __future__ import annotations

import pytest

from codemods.engine.diagnostics import Applicability, Finding, Fix, Kind, TextEdit, apply_text_edits

SAFE, UNSAFE = Applicability.SAFE, Applicability.UNSAFE


def test_the_values_every_format_writes() -> None:
    assert [kind.value for kind in Kind] == ["fixed", "dropped", "manual", "warning"]
    assert [applicability.value for applicability in Applicability] == ["safe", "unsafe"]


# -- apply_text_edits --


def test_no_edits_leave_the_text() -> None:
    assert apply_text_edits("abc", []) == "abc"
    assert apply_text_edits("abc", ()) == "abc"


def test_one_replacement_insertion_and_deletion() -> None:
    assert apply_text_edits("abcdef", [TextEdit(1, 3, "XY")]) == "aXYdef"
    assert apply_text_edits("abcdef", [TextEdit(3, 3, "+")]) == "abc+def"
    assert apply_text_edits("abcdef", [TextEdit(0, 6, "")]) == ""
    assert apply_text_edits("abcdef", [TextEdit(6, 6, "!")]) == "abcdef!"
    assert apply_text_edits("abcdef", [TextEdit(0, 0, "^")]) == "^abcdef"


def test_edits_in_any_order_are_applied_on_the_original_offsets() -> None:
    edits = [TextEdit(1, 3, "X"), TextEdit(4, 4, "Y"), TextEdit(0, 0, "Z"), TextEdit(5, 6, "LONGER")]
    assert apply_text_edits("abcdef", edits) == "ZaXdYeLONGER"
    assert apply_text_edits("abcdef", list(reversed(edits))) == "ZaXdYeLONGER"
    assert apply_text_edits("abcdef", tuple(sorted(edits, key=lambda e: e.start))) == "ZaXdYeLONGER"


def test_an_insertion_where_a_replacement_starts_goes_before_it_in_any_order() -> None:
    assert apply_text_edits("abcdef", [TextEdit(2, 2, "I"), TextEdit(2, 4, "R")]) == "abIRef"
    assert apply_text_edits("abcdef", [TextEdit(2, 4, "R"), TextEdit(2, 2, "I")]) == "abIRef"


def test_an_insertion_where_a_replacement_ends_goes_after_it() -> None:
    assert apply_text_edits("abcdef", [TextEdit(4, 4, "I"), TextEdit(2, 4, "R")]) == "abRIef"
    assert apply_text_edits("abcdef", [TextEdit(2, 4, "R"), TextEdit(4, 4, "I")]) == "abRIef"


# -- Finding --


def _finding(kind: Kind = Kind.FIXED, fix: Fix | None = None, **changes) -> Finding:
    return Finding(changes.pop("code", "JAX001"), kind, changes.pop("line", 3), changes.pop("column", 7),
                   changes.pop("message", "precision=HIGHEST is not supported"), fix=fix, **changes)


@pytest.mark.parametrize(("kind", "fix", "label"), [
    (Kind.MANUAL, None, "manual"),
    (Kind.WARNING, None, "warning"),
    (Kind.FIXED, Fix(SAFE, applied=True), "fixed"),
    (Kind.FIXED, Fix(SAFE, applied=False), "fixed, not applied"),
    (Kind.FIXED, Fix(SAFE), "fixed, not applied"),
    (Kind.DROPPED, Fix(UNSAFE, applied=True), "dropped, unsafe"),
    (Kind.DROPPED, Fix(UNSAFE, applied=False), "dropped, unsafe fix: --unsafe-fixes"),
    (Kind.FIXED, Fix(UNSAFE, applied=False), "fixed, unsafe fix: --unsafe-fixes"),
])
def test_label(kind: Kind, fix: Fix | None, label: str) -> None:
    finding = _finding(kind, fix)
    assert finding.label == label
    assert finding.labelled_message == f"[{label}] precision=HIGHEST is not supported"
    assert finding.render("pkg/k.py") == f"pkg/k.py:3:7: JAX001 [{label}] precision=HIGHEST is not supported"


@pytest.mark.parametrize(("fix", "applied", "unapplied"), [
    (None, False, False),
    (Fix(SAFE, applied=True), True, False),
    (Fix(SAFE, applied=False), False, True),
    (Fix(UNSAFE, applied=True), True, False),
    (Fix(UNSAFE), False, True),
])
def test_applied_and_unapplied_fix(fix: Fix | None, applied: bool, unapplied: bool) -> None:
    finding = _finding(fix=fix)
    assert finding.applied is applied
    assert finding.unapplied_fix is unapplied


def test_render_uses_the_given_path_line_column_code_and_message() -> None:
    finding = Finding("JAX125", Kind.WARNING, 12, 1, "Layout is gone", 12, 9)
    assert finding.render("a b/ç.py") == "a b/ç.py:12:1: JAX125 [warning] Layout is gone"


def test_sort_key_orders_by_position_then_end_then_code_then_message() -> None:
    finding = Finding("JAX002", Kind.MANUAL, 4, 5, "m", 6, 7)
    assert finding.sort_key() == (4, 5, 6, 7, "JAX002", "m")
    findings = [
        Finding("JAX002", Kind.MANUAL, 4, 5, "b", 4, 9),
        Finding("JAX001", Kind.MANUAL, 4, 5, "b", 4, 9),
        Finding("JAX001", Kind.MANUAL, 4, 5, "a", 4, 9),
        Finding("JAX003", Kind.MANUAL, 4, 5, "a", 4, 8),
        Finding("JAX003", Kind.MANUAL, 4, 5, "a", 3, 20),
        Finding("JAX003", Kind.MANUAL, 4, 2, "z", 9, 9),
        Finding("JAX009", Kind.MANUAL, 1, 9, "z", 9, 9),
    ]
    ordered = sorted(findings, key=Finding.sort_key)
    assert [(f.line, f.column, f.end_line, f.end_column, f.code, f.message) for f in ordered] == [
        (1, 9, 9, 9, "JAX009", "z"), (4, 2, 9, 9, "JAX003", "z"), (4, 5, 3, 20, "JAX003", "a"),
        (4, 5, 4, 8, "JAX003", "a"), (4, 5, 4, 9, "JAX001", "a"), (4, 5, 4, 9, "JAX001", "b"),
        (4, 5, 4, 9, "JAX002", "b")]


def test_a_findings_defaults() -> None:
    finding = Finding("JAX001", Kind.MANUAL, 1, 1, "m")
    assert (finding.end_line, finding.end_column, finding.fix, finding.held_back) == (0, 0, None, False)
    assert (Fix(SAFE).edits, Fix(SAFE).applied, Fix(SAFE).plan) == ((), False, None)
