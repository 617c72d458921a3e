"""codemods/rules/jax_upgrades.py called directly, in the test's process: the byte test of an import
of jax, the gate each row's rule requires, a row's rule (its documentation and prefilter fields), and
`locate` (the lines of a row's references that a traceback's line names).

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks exact values.
Nothing here imports jax.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from codemods import api_changes
from codemods.analysis.module import ModuleIndex
from codemods.api_changes import Change
from codemods.engine.rule import ParsedFile
from codemods.rules import jax_upgrades
from codemods.rules.jax_upgrades import Upgrade, _gate, _locate, _rule, imports_jax
from codemods.settings import Settings

ROWS = {row.code: row for row in api_changes.TABLE}


# imports_jax


@pytest.mark.parametrize(("raw", "expected"), [
    (b"import jax\n", True),
    (b"import jax", True),
    (b"import jax.numpy as jnp\n", True),
    (b"from jax import numpy\n", True),
    (b"from jax.experimental import pallas as pl\n", True),
    (b"import os, jax\n", True),
    (b"import os; import jax\n", True),
    (b"x = 1;import jax\n", True),
    (b"if True: import jax\n", True),
    (b"try:\timport jax\n", True),
    (b"    import jax\n", True),
    (b"\timport jax\n", True),
    (b"x\nimport jax\n", True),  # at the start of a line that is not the first
    (b"import os, \\\n    jax\n", True),  # a backslash continuation
    (b"import os, \\\r\n    jax\n", True),
    (b"from \\\n    jax import tree_map\n", True),
    (b"from\tjax.numpy import clip\n", True),
    (b"mode = 'x'\nif 'from' in mode: import jax\n", True),  # a keyword in a string before the statement
    (b"x = 'from'; import jax\n", True),
    (b"# import jax\n", False),
    (b"    >>> import jax\n", False),
    (b'"""\nimport numpy  # jax\n"""\n', False),
    (b"import numpy; jax = 1\n", False),
    (b"import jaxlib\n", False),
    (b"import myjax\n", False),
    (b"importjax\n", False),
    (b"ximport jax\n", False),
    (b"x.import jax\n", False),
    (b"print('import jax')\n", False),
    (b"s = 'from jax import x'\n", False),
    (b"import os\n", False),
    (b"import os\njax = None\n", False),
    (b"", False),
    (b"import jax\n\x00\n", True),  # the bytes after the import are not read
    (b"import os\n# import jax\nimport jax.numpy\n", True),  # the second match starts a statement
    (b"a\n# from x import y; import jax\n", True),  # a `;` in a comment: let through (a parse, not a miss)
    # Lines as Python reads them (issue 49, item 1: each file was skipped without a word):
    (b"\x0cimport jax\n", True),  # a form feed where the line starts
    (b"x = 1\r\x0c  import jax\r", True),
    (b'"""doc"""\rimport jax\rx = jax.tree_map(f, t)\r', True),  # lone CRs end its lines
    (b"import os, \\\r    jax\r", True),
    (b"import os\rx = jax\r", False),  # an import does not run on past a lone CR
    (b"x = 1\r# import jax\r", False),
])
def test_imports_jax(raw: bytes, expected: bool) -> None:
    assert imports_jax(raw) is expected


# _gate


def test_gates_of_name_rows_by_the_module_of_their_old_names() -> None:
    assert _gate(ROWS["JAX101"]) is jax_upgrades._GATES[b"jax"]  # jax.tree_map
    assert _gate(ROWS["JAX150"]) is jax_upgrades._GATES[b"pallas"]  # jax.experimental.pallas.dot
    assert _gate(ROWS["JAX151"]) is jax_upgrades._GATES[b"pallas"]  # jax.experimental.pallas.tpu....
    assert _gate(ROWS["JAX141"]) is jax_upgrades._GATES[b"numpy"]  # jax.numpy.round_
    assert _gate(ROWS["JAX111"]) is jax_upgrades._GATES[b"experimental"]  # both old names experimental
    assert _gate(ROWS["JAX116"]) is jax_upgrades._GATES[b"jax"]  # jax.experimental.mutable_array and jax.array_ref
    assert _gate(ROWS["JAX172"]) is jax_upgrades._GATES[b"jax"]  # `compiler_params=dict`: no module
    gate = _gate(ROWS["JAX101"])
    assert (gate.word, gate.needle, gate.test) == (b"jax", b"jax", imports_jax)


def test_gates_of_module_words_need_the_dot() -> None:
    row = dataclasses.replace(ROWS["JAX141"], old=("jax.numpyx.round_",))
    assert _gate(row) is jax_upgrades._GATES[b"jax"]
    row = dataclasses.replace(ROWS["JAX141"], old=("jax.numpy",))
    assert _gate(row) is jax_upgrades._GATES[b"jax"]


def test_gates_of_attribute_rows() -> None:
    device_buffer, layouts = jax_upgrades._ATTRIBUTE_GATES
    assert _gate(ROWS["JAX120"]) is device_buffer  # .device_buffer
    assert _gate(ROWS["JAX121"]) is device_buffer  # .device_buffers
    assert _gate(ROWS["JAX128"]) is layouts  # .input_layouts
    assert _gate(ROWS["JAX129"]) is layouts
    assert _gate(ROWS["JAX127"]) is None  # .device_local_layout: no word shared
    # every word must hold the gate's word
    mixed = dataclasses.replace(ROWS["JAX120"], old=(".device_buffer", ".other_thing"))
    assert _gate(mixed) is None
    both = dataclasses.replace(ROWS["JAX120"], old=(".input_layouts", ".device_buffer_layouts"))
    assert _gate(both) is layouts
    assert (device_buffer.word, device_buffer.needle, device_buffer.test) == (b"device_buffer", None, None)


# _rule


def test_the_rule_of_a_renamed_function() -> None:
    rule = _rule(ROWS["JAX101"])
    assert (rule.code, rule.name, rule.words, rule.whole_words, rule.kernel_scoped) == (
        "JAX101", "jax-tree-map", (), (b"tree_map",), False)
    assert rule.requires is jax_upgrades._GATES[b"jax"]
    assert rule.check == Upgrade.check
    assert rule.locate is _locate
    assert rule.matches is None and rule.default is True and rule.patterns == ()
    assert rule.documentation() == (
        "JAX101 (jax-tree-map)\n\n"
        "jax.tree_map -> jax.tree.map (deprecated in jax 0.4.26, removed in jax 0.6.0).\n\n"
        "What it does\n"
        "    Rewrites jax.tree_map to jax.tree.map (rename) where the target jax has the replacement\n"
        "    (since jax 0.4.25) and the old spelling is deprecated or removed.\n"
        "    References through aliases and imports are followed; code inside version guards is left\n"
        "    alone. Where the project supports a jax older than 0.4.25: jax.tree_util.tree_map (there from jax 0.3.0 "
        "on).\n\n"
        "Why\n"
        "    jax.tree_map: deprecated in jax 0.4.26, removed in jax 0.6.0. Source: jax/__init__.py _deprecations:"
        " tree_map warns from 0.4.26 (the others earlier), all fail from 0.6.0.\n\n"
        "Example\n"
        "    jax.tree_map  ->  jax.tree.map\n")


def test_the_rule_of_a_row_with_two_old_names_and_no_replacement() -> None:
    rule = _rule(ROWS["JAX171"])
    change = "pl.load(ref, idx) -> ref[idx], pl.store(ref, idx, val) -> ref[idx] = val, without a mask or another Triton option"
    assert rule.summary == f"{change} (deprecated in jax 0.7.1, removed in jax 0.9.0)."
    assert rule.whole_words == (b"load", b"store")
    assert rule.requires is jax_upgrades._GATES[b"pallas"]
    text = rule.documentation()
    assert f"    Rewrites pl.load, pl.store calls ({change}) where" in text
    assert "    alone. a masked load or store: jax.experimental.pallas.triton.load(ref.at[idx], mask=...)" in text
    assert f"Example\n    {change.replace(' -> ', '  ->  ')}\n" in text
    # A row without a call of its own to rewrite says old -> new.
    plain = _rule(dataclasses.replace(ROWS["JAX171"], code="JAX999"))
    assert plain.summary == "pl.load, pl.store -> (no single replacement) (deprecated in jax 0.7.1, removed in jax 0.9.0)."
    assert "Example\n    pl.load  ->  (no single replacement)\n" in plain.documentation()


def test_the_summary_names_only_the_releases_known() -> None:
    row = ROWS["JAX101"]
    assert _rule(dataclasses.replace(row, removed=None)).summary == (
        "jax.tree_map -> jax.tree.map (deprecated in jax 0.4.26).")
    assert _rule(dataclasses.replace(row, deprecated=None)).summary == (
        "jax.tree_map -> jax.tree.map (removed in jax 0.6.0).")
    assert _rule(dataclasses.replace(row, deprecated=None, removed=None)).summary == "jax.tree_map -> jax.tree.map ()."
    assert "Why\n    jax.tree_map: removed in jax 0.6.0. Source:" in _rule(
        dataclasses.replace(row, deprecated=None)).documentation()


def test_the_rule_of_an_attribute_row() -> None:
    rule = _rule(ROWS["JAX120"])
    assert rule.summary == ".device_buffer -> .addressable_data(0) (deprecated in jax 0.4.22, removed in jax 0.4.27)."
    assert rule.requires is jax_upgrades._ATTRIBUTE_GATES[0]
    assert "(attribute) where" in rule.documentation()
    assert _rule(ROWS["JAX127"]).requires is None


def test_the_rules_of_the_table() -> None:
    assert [rule.code for rule in jax_upgrades.RULES] == [row.code for row in api_changes.TABLE]
    assert [rule.whole_words for rule in jax_upgrades.RULES] == [row.prefilter_words() for row in api_changes.TABLE]


# _locate


def _file(text: str) -> ParsedFile:
    return ParsedFile(Path("m.py"), ModuleIndex.parse(text), Settings((0, 12, 0, 1)))


TREE_MAP = "import jax\n\nx = jax.tree_map(f, t)\ny = (jax\n     .tree_map)(g, t)\nz = 1\n"


@pytest.mark.parametrize(("line", "lines"), [
    (1, (1, 5)),  # the import binds the name each reference reads
    (2, None),
    (3, (3, 3)),
    (4, (4, 5)),  # a reference over two lines
    (5, (4, 5)),
    (6, None),
])
def test_locate_a_renamed_function(line: int, lines) -> None:
    rule = _rule(ROWS["JAX101"])
    assert _locate(rule, _file(TREE_MAP), line) == lines


def test_locate_another_rows_references_is_none() -> None:
    assert _locate(_rule(ROWS["JAX102"]), _file(TREE_MAP), 3) is None
    assert _locate(_rule(ROWS["JAX101"]), _file("x = 1\n"), 1) is None


def test_locate_through_the_import_a_traceback_names() -> None:
    """The ImportError of `from jax.lib import xla_bridge` names the import's line: the references
    it binds below are the ones to show, from the import's line to the last of them."""
    text = "from jax.lib import xla_bridge\n\na = 1\nb = xla_bridge.get_backend()\nc = xla_bridge.get_backend(\n)\n"
    rule = _rule(ROWS["JAX112"])
    assert _locate(rule, _file(text), 1) == (1, 5)
    assert _locate(rule, _file(text), 4) == (4, 4)
    assert _locate(rule, _file(text), 5) == (5, 5)
    assert _locate(rule, _file(text), 3) is None


def test_locate_a_line_below_its_reference() -> None:
    """A line inside the reference but past its first: the span still starts at the reference."""
    text = "import jax\nx = jax.\\\n    tree_map(f)\n"
    assert _locate(_rule(ROWS["JAX101"]), _file(text), 3) == (2, 3)


def test_locate_shares_the_files_scan() -> None:
    file = _file(TREE_MAP)
    assert _locate(_rule(ROWS["JAX101"]), file, 3) == (3, 3)
    scan = file.shared["Scan"]
    assert sorted(reference.node.lineno for reference in scan.by_code["JAX101"]) == [3, 4]
    assert _locate(_rule(ROWS["JAX101"]), file, 4) == (4, 5)
    assert file.shared["Scan"] is scan
