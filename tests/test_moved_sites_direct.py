"""codemods/analysis/flow/moved_sites.py, tested directly: which edits count as moving a module's sites
only (the link's kept answers are then moved, not linked again), and which do not."""

from __future__ import annotations

import textwrap
from typing import Optional

import pytest

from codemods.analysis.flow.moved_sites import site_moves
from codemods.analysis.flow.summary import as_data, summarise

BEFORE = """\
from jax import lax
import jax.numpy as jnp
PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)
OPTS = {"precision": PAIR}
def dot(a, b):
    return jnp.dot(a, b, **OPTS), [x for x in (a, b)]
"""


def _moves(after: str) -> Optional[dict]:
    return site_moves(as_data(summarise(BEFORE, "m")), as_data(summarise(textwrap.dedent(after), "m")))


def test_code_moved_down_and_right_moves_each_site_the_same_way() -> None:
    moves = _moves("# a note\n\n" + BEFORE.replace("(a, b, **", "(a,  b, **").replace("(lax.", "( lax."))
    assert moves is not None and moves[(3, 7)] == (5, 7) and moves[(6, 11)] == (8, 11)
    assert moves[(6, 46)] == (8, 47)  # the comprehension's tuple, after the space on its line


@pytest.mark.parametrize("after", [
    pytest.param(BEFORE.replace("HIGHEST", "HIGH"), id="a value changed"),
    pytest.param(BEFORE.replace("OPTS = {", "OPTS = dict(precision=PAIR)\nX = {"), id="a call added"),
    pytest.param(BEFORE.replace("(a, b, **OPTS)", "(a,\n            b, **OPTS)"), id="one line to two"),
    pytest.param(BEFORE.replace("HIGHEST)\nOPTS", "HIGHEST); OPTS"), id="two lines to one"),
    pytest.param(BEFORE.replace("PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\nOPTS = {\"precision\": PAIR}",
                                "OPTS = {\"precision\": PAIR}\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)"),
                 id="statements swapped"),
])
def test_any_other_edit_is_not_a_move(after: str) -> None:
    assert _moves(after) is None


def test_an_unchanged_summary_moves_nothing() -> None:
    moves = _moves(BEFORE + "# the end\n")
    assert moves is not None and all(old == new for old, new in moves.items())
