"""Jupyter notebooks, end to end: `.ipynb` files are found, their code cells analysed as one module
(a kernel defined in one cell, launched in a later one), IPython syntax left alone, findings and
diffs given by cell, and `--write` replaces only the changed cells' source, every other byte kept.

The notebook is a realistic one: markdown, a line magic, a shell escape, a cell magic, help
syntax, stored outputs and execution counts, and a Pallas TPU kernel with a per-operand precision
(tests/fixtures/precision/dot_pair_jax_0_12.in.py) whose launch is two cells below it. The test
marked `jax` executes the cells' code with jax and lowers the kernel for TPU before and after.
"""

from __future__ import annotations

import ast
import copy
import json
import sys
import warnings
from pathlib import Path

import pytest

from codemods import registry
from codemods.engine import notebook, runner
from codemods.engine.diagnostics import Applicability, Finding, Fix, Kind, TextEdit
from codemods.settings import Settings
from tests.test_cli import cli, fix
from tests.test_formats import SCHEMA_PATH, validate

nbformat = pytest.importorskip("nbformat")

KERNEL_LINE = "    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))"
FIXED_LINE = "    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=lax.Precision.HIGH)"  # on jax 0.12
KERNEL_CELL = 5  # 1-based, the markdown cell counted, as Ruff and Jupyter count
PY_KERNEL = Path(__file__).parent / "fixtures" / "precision" / "dot_pair_jax_0_12.in.py"


def _cell(cell_type: str, source, number: int, **fields) -> dict:
    cell = {"cell_type": cell_type, "id": f"cell-{number}", "metadata": {}, "source": source}
    if cell_type == "code":
        cell = {**cell, "execution_count": fields.pop("execution_count", None), "outputs": fields.pop("outputs", [])}
    cell.update(fields)
    return cell


def make_notebook(*, as_strings: bool = False) -> dict:
    """The notebook (nbformat 4.5); `as_strings`: every source stored as one string, not a list of lines."""
    sources = [
        ("markdown", ["# A matmul kernel\n", "\n", "Prototyped here, before it moves to a module."]),
        ("code", ["%matplotlib inline\n", "import functools\n", "\n", "import jax\n", "import jax.numpy as jnp\n",
                  "from jax import lax\n", "from jax.experimental import pallas as pl"]),
        ("code", ["!pip list"]),
        ("code", ["%%timeit\n", "x = 1\n", "  y = 2  # not Python: the whole cell belongs to the magic"]),
        ("code", ["def kernel(x_ref, y_ref, o_ref):\n", KERNEL_LINE]),
        ("markdown", ["Launch it:"]),
        ("code", ["matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))\n",
                  "matmul?"]),
    ]
    outputs = {
        3: [{"name": "stdout", "output_type": "stream", "text": ["Package    Version\n", "jax        0.12.0\n"]}],
        4: [{"name": "stdout", "output_type": "stream", "text": ["12.3 ns ± 0.1 ns per loop\n"]}],
        7: [{"data": {"image/png": "iVBORw0KGgo=", "text/plain": ["<Figure size 640x480 with 1 Axes>"]},
             "metadata": {"needs_background": "light"}, "output_type": "display_data"}],
    }
    cells = []
    for number, (kind, lines) in enumerate(sources, 1):
        source = "".join(lines) if as_strings else lines
        extra = {"execution_count": number, "outputs": outputs.get(number, [])} if kind == "code" else {}
        cells.append(_cell(kind, source, number, **extra))
    return {
        "cells": cells,
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python", "version": "3.12.0"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def dump(document: dict, *, indent: int = 1, final_newline: bool = True) -> bytes:
    """As Jupyter writes a notebook (indent 1, non-ASCII as is, a final newline), or otherwise."""
    return (json.dumps(document, indent=indent, ensure_ascii=False) + ("\n" if final_newline else "")).encode()


def valid(data: bytes) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a missing cell id would only warn
        nbformat.validate(nbformat.reads(data.decode(), as_version=nbformat.NO_CONVERT))


@pytest.fixture
def nb(tmp_path: Path) -> Path:
    path = tmp_path / "nb.ipynb"
    path.write_bytes(dump(make_notebook()))
    valid(path.read_bytes())
    return path


def test_dry_run_names_the_cell_and_shows_its_diff(nb: Path) -> None:
    before = nb.read_bytes()
    proc = fix(cwd=nb.parent)  # the folder: notebooks are discovered by default
    assert proc.returncode == 1, proc.stderr
    # Cell 5 of 7 (markdown counted), line 2 of the cell, not line 9 of the joined module.
    assert f"nb.ipynb:cell {KERNEL_CELL}:2:60: JAX001 [fixed]".encode() in proc.stderr, proc.stderr
    assert proc.stdout == (
        f"--- a/nb.ipynb:cell {KERNEL_CELL}\n+++ b/nb.ipynb:cell {KERNEL_CELL}\n@@ -1,2 +1,2 @@\n"
        f" def kernel(x_ref, y_ref, o_ref):\n-{KERNEL_LINE}\n\\ No newline at end of file\n"
        f"+{FIXED_LINE}\n\\ No newline at end of file\n").encode()
    assert b"1 file scanned, 1 parsed, 1 would change, 1 fix" in proc.stderr
    assert nb.read_bytes() == before


@pytest.mark.parametrize("layout", ["jupyter", "indent 2, strings, no final newline"])
def test_write_changes_only_the_kernel_cells_source(tmp_path: Path, layout: str) -> None:
    jupyter = layout == "jupyter"
    document = make_notebook(as_strings=not jupyter)
    path = tmp_path / "nb.ipynb"
    path.write_bytes(dump(document, indent=1 if jupyter else 2, final_newline=jupyter))
    before = path.read_bytes()

    assert fix("nb.ipynb", cwd=tmp_path).returncode == 1  # a dry run first: --write then reads its cached result
    proc = fix("--write", "nb.ipynb", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    after = path.read_bytes()

    # Every byte outside the changed line of that cell's source is the same.
    old, new = (KERNEL_LINE, FIXED_LINE) if jupyter else (
        "def kernel(x_ref, y_ref, o_ref):\n" + KERNEL_LINE, "def kernel(x_ref, y_ref, o_ref):\n" + FIXED_LINE)
    old_json, new_json = json.dumps(old, ensure_ascii=False).encode(), json.dumps(new, ensure_ascii=False).encode()
    assert before.count(old_json) == 1
    assert after == before.replace(old_json, new_json)
    # And, read as JSON: only that source changed, still stored as it was (a list of lines, or a string).
    expected = copy.deepcopy(document)
    cell = expected["cells"][KERNEL_CELL - 1]
    cell["source"] = ["def kernel(x_ref, y_ref, o_ref):\n", FIXED_LINE] if jupyter else new
    assert json.loads(after) == expected
    valid(after)

    check = fix("--check", "nb.ipynb", cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    assert check.stdout == b""


def test_check_lists_the_notebook_and_exits_1(nb: Path) -> None:
    proc = fix("--check", cwd=nb.parent)
    assert proc.returncode == 1
    assert proc.stdout == b"nb.ipynb\n"


def test_interactive_applies_an_accepted_fix_and_keeps_a_declined_one(nb: Path) -> None:
    before = nb.read_bytes()
    declined = _interactive(nb, b"n\n")
    assert declined.returncode == 1
    assert f"nb.ipynb:cell {KERNEL_CELL}:2:60: JAX001".encode() in declined.stdout  # the question names the cell
    assert f"--- a/nb.ipynb:cell {KERNEL_CELL}".encode() in declined.stdout
    assert nb.read_bytes() == before
    accepted = _interactive(nb, b"y\n")
    assert accepted.returncode == 0, accepted.stderr
    assert nb.read_bytes() == before.replace(json.dumps(KERNEL_LINE).encode(), json.dumps(FIXED_LINE).encode())


def _interactive(nb: Path, answers: bytes):
    import os
    import subprocess
    import sys

    from tests.test_cli import REPO, TARGET

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "codemods", "-i", "--jax-version", TARGET, "nb.ipynb"],
                          cwd=nb.parent, env=env, input=answers, capture_output=True, timeout=120)


def test_unreadable_notebooks_are_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    (tmp_path / "broken.ipynb").write_bytes(b'{"cells": [\n')
    old = {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": []}]}
    (tmp_path / "old.ipynb").write_text(json.dumps(old))
    (tmp_path / "kernel.py").write_bytes(PY_KERNEL.read_bytes())
    (tmp_path / "nb.ipynb").write_bytes(dump(make_notebook()))

    proc = fix("--write", cwd=tmp_path)
    assert proc.returncode == 2  # some file could not be processed
    errors = [line for line in proc.stderr.decode().splitlines() if ": error: " in line]
    assert errors == [
        "broken.ipynb: error: cannot read notebook: not valid JSON (Expecting value: line 2 column 1 (char 12))",
        "old.ipynb: error: cannot read notebook: nbformat 3; only nbformat 4 is read",
    ]
    # The other files were still fixed.
    assert b"precision=lax.Precision.HIGH)" in (tmp_path / "kernel.py").read_bytes()
    assert json.dumps(FIXED_LINE).encode() in (tmp_path / "nb.ipynb").read_bytes()


NEEDLES = [needle for rule in registry.RULES for needle in rule.needles(Settings())]


def plain_notebook() -> bytes:
    """The notebook with nothing any rule acts on: `x = 1` in every code cell, no outputs."""
    document = make_notebook()
    for cell in document["cells"]:
        if cell["cell_type"] == "code":
            cell.update(source=["x = 1\n"], outputs=[])
    return dump(document)


def test_a_notebook_is_ruled_out_by_its_bytes_only_when_no_rule_could_act() -> None:
    """The runner decodes a notebook only if its bytes may hold code a rule acts on: decoding
    every notebook of a tree costs five times what grep does."""
    assert notebook.may_need(dump(make_notebook()), NEEDLES)
    plain = plain_notebook()
    assert not notebook.may_need(plain, NEEDLES)
    # A letter spelled as a JSON escape hides a word from the byte search: such a notebook is read.
    for escape, read in ((rb"\u006aax", True), (rb"\u006Aax", True), (rb"\u00e9ax", False), (rb"\\u006aax", True)):
        assert notebook.may_need(plain.replace(b"x = 1", b"import " + escape, 1), NEEDLES) is read, escape


@pytest.mark.parametrize("broken", [
    pytest.param(lambda raw: raw[:len(raw) // 2], id="cut short"),
    pytest.param(lambda raw: raw.replace(b'"nbformat": 4', b'"nbformat": 3'), id="nbformat 3"),
    pytest.param(lambda raw: b"[" + raw + b"]", id="not an object"),
])
def test_a_notebook_that_does_not_look_whole_is_read_to_say_why(broken) -> None:
    assert notebook.may_need(broken(plain_notebook()), NEEDLES)


def test_a_notebook_ruled_out_by_its_bytes_is_not_parsed(tmp_path: Path) -> None:
    """As a `.py` file the prefilter rules out: its syntax error is not ours to report."""
    (tmp_path / "plain.ipynb").write_bytes(plain_notebook().replace(b"x = 1", b"x = {", 1))  # not even Python
    (tmp_path / "nb.ipynb").write_bytes(dump(make_notebook()))
    proc = fix("--check", cwd=tmp_path)
    assert proc.returncode == 1  # 2 if plain.ipynb were reported
    assert proc.stdout.decode().splitlines()[0] == "nb.ipynb"
    assert b"plain.ipynb" not in proc.stdout + proc.stderr


def test_machine_readable_formats_give_the_cell(nb: Path) -> None:
    document = json.loads(fix("--output-format", "json", cwd=nb.parent).stdout)
    [finding] = document["findings"]
    assert (finding["path"], finding["cell"], finding["start"], finding["end"]) == (
        "nb.ipynb", KERNEL_CELL, {"line": 2, "column": 60}, {"line": 2, "column": 103})
    [edit] = finding["fix"]["edits"]
    assert edit["start"]["cell"] == KERNEL_CELL and edit["start"]["line"] == 2
    assert edit["content"] == "lax.Precision.HIGH"
    assert finding["fix"]["patch"].startswith(f"--- a/nb.ipynb:cell {KERNEL_CELL}\n")
    assert document["files"][0]["diff"] == finding["fix"]["patch"]

    log = json.loads(fix("--output-format", "sarif", cwd=nb.parent).stdout)
    assert validate(log, json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))) == []
    [result] = log["runs"][0]["results"]
    [location] = result["locations"]
    assert location["physicalLocation"]["region"] == {"startLine": 2, "startColumn": 60, "endLine": 2, "endColumn": 103}
    assert location["logicalLocations"][0]["fullyQualifiedName"] == f"nb.ipynb:cell {KERNEL_CELL}"
    assert result["properties"]["cell"] == KERNEL_CELL
    assert "fixes" not in result  # its replacements would be read as edits of the JSON
    assert result["properties"]["patch"] == finding["fix"]["patch"]

    github = fix("--output-format", "github", cwd=nb.parent).stdout.decode()
    assert github.startswith(f"::notice file=nb.ipynb,title=JAX001 [fixed] cell {KERNEL_CELL}::cell {KERNEL_CELL}:2:60: jnp.dot")


def test_the_config_switch_turns_discovery_off_and_a_typo_is_named(nb: Path) -> None:
    (nb.parent / "pyproject.toml").write_text("[tool.jax-codemod]\nnotebooks = false\n")
    proc = fix(cwd=nb.parent)
    assert proc.returncode == 0 and b"0 files scanned" in proc.stderr
    named = fix("nb.ipynb", cwd=nb.parent)  # a notebook named explicitly is still processed
    assert named.returncode == 1 and b"cell 5:2:60" in named.stderr
    (nb.parent / "pyproject.toml").write_text("[tool.jax-codemod]\nnotebook = false\n")
    typo = fix(cwd=nb.parent)
    assert typo.returncode == 2
    assert b"unknown key `tool.jax-codemod.notebook`; did you mean `notebooks`?" in typo.stderr


def test_checkpoints_are_not_discovered(nb: Path) -> None:
    (nb.parent / ".ipynb_checkpoints").mkdir()
    (nb.parent / ".ipynb_checkpoints" / "nb-checkpoint.ipynb").write_bytes(nb.read_bytes())
    proc = fix(cwd=nb.parent)
    assert b"1 file scanned" in proc.stderr and b"checkpoint" not in proc.stderr


# -- the module the cells make, IPython syntax --


IPYTHON_CELL = '''\
files = !ls
%time f(1)
for i in range(3):
    %time f(i)
f?
??f
/f 1 2
doc = """
%not a magic: inside a string
why?
"""
x = 1  # why?
y = (1,
     2)
'''


def test_ipython_lines_become_placeholders_of_the_same_length() -> None:
    document = make_notebook()
    document["cells"].insert(1, _cell("code", IPYTHON_CELL, 99, execution_count=None))
    source = notebook.read(Path("nb.ipynb"), dump(document))
    module = source.text
    ast.parse(module)  # IPython syntax never breaks parsing
    ipython_cell = source.cells.cells[0]
    lines = IPYTHON_CELL.splitlines()
    replaced = [line for line in lines if line not in module.splitlines()]
    assert replaced == ["files = !ls", "%time f(1)", "    %time f(i)", "f?", "??f", "/f 1 2"]
    assert [text for _, _, text in ipython_cell.ipython] == replaced
    assert len(module[ipython_cell.start:ipython_cell.end]) == len(IPYTHON_CELL)  # offsets are the cell's
    # The magic line of the next cell and every line of the %% cell too; markdown is not code.
    assert "%matplotlib" not in module and "%%timeit" not in module and "y = 2" not in module
    assert "A matmul kernel" not in module
    # Lines map back to (cell, line in cell), every cell counted.
    kernel_line = module.splitlines().index(KERNEL_LINE) + 1
    assert source.cells.locate(kernel_line) == (KERNEL_CELL + 1, 2)
    assert source.cells.locate(1) == (2, 1)


def test_a_fix_that_would_touch_ipython_syntax_is_refused() -> None:
    source = notebook.read(Path("nb.ipynb"), dump(make_notebook()))
    cells = source.cells
    magic = cells.cells[0].ipython[0]  # %matplotlib inline, cell 2
    timeit = cells.cells[2]  # the %%timeit cell
    kernel = cells.cells[3]
    inside_magic = TextEdit(magic[0] + 1, magic[0] + 5, "x")
    assert cells.blocked([inside_magic]) == "the fix would change IPython syntax in cell 2 (%matplotlib inline)"
    assert cells.blocked([TextEdit(magic[0] + 3, magic[0] + 3, "x")]) is not None  # an insertion inside it
    assert cells.blocked([TextEdit(magic[0], magic[0], "import os\n")]) is None  # before it: fine
    assert cells.blocked([TextEdit(timeit.start + 9, timeit.start + 10, "y")]) == \
        "the fix would change cell 4, a cell magic"
    assert cells.blocked([TextEdit(kernel.start - 2, kernel.start + 2, "")]) == "the fix spans two cells of the notebook"
    with pytest.raises(notebook.NotebookError):
        cells.sources_after([inside_magic])
    # The runner turns such a fix into a [manual] note, and applies the others.
    ok = TextEdit(kernel.start, kernel.start + 3, "def")
    findings = [Finding("JAX001", Kind.FIXED, 1, 1, "bad", fix=Fix(Applicability.SAFE, (inside_magic,))),
                Finding("JAX001", Kind.FIXED, 9, 1, "good", fix=Fix(Applicability.SAFE, (ok,)))]
    kept = list(findings)
    assert runner._refuse_in_notebook(cells, kept, findings) is True
    assert kept[0].kind is Kind.MANUAL and kept[0].fix is None
    assert kept[0].message == "bad (not fixed: the fix would change IPython syntax in cell 2 (%matplotlib inline))"
    assert kept[1] is findings[1]


def test_a_parse_error_is_placed_in_its_cell(tmp_path: Path) -> None:
    document = make_notebook()
    document["cells"][6]["source"] = ["matmul = pl.pallas_call(kernel,\n", "x = (precision"]
    (tmp_path / "nb.ipynb").write_bytes(dump(document))
    proc = fix(cwd=tmp_path)
    assert proc.returncode == 2
    assert b"nb.ipynb: error: cannot parse:" in proc.stderr and b"'(' was never closed (cell 7, line 2, column 5)" in proc.stderr, proc.stderr


def test_an_empty_source_list_gets_the_files_layout(tmp_path: Path) -> None:
    """A cell stored as `[]` that a fix fills is laid out as Jupyter lays out lists (its last line
    without a newline, as Jupyter stores it)."""
    document = make_notebook()
    document["cells"][1]["source"] = []
    raw = dump(document)
    source = notebook.read(Path("nb.ipynb"), raw)
    written = source.encode("import os\n" + source.text)
    assert written == raw.replace(b'"source": []', b'"source": [\n    "import os"\n   ]', 1)
    valid(written)


# -- proven with jax: the rewritten cells lower for TPU --


@pytest.mark.jax
def test_the_rewritten_notebook_lowers_for_tpu(nb: Path) -> None:
    pytest.importorskip("jax")
    import jax
    import jax.numpy as jnp

    from tests import jax_support

    def lowering_error(raw: bytes, name: str):
        # The cells' code, magics left out (placeholders), run as one module: what the kernel runs.
        program = jax_support.load_program(notebook.read(nb, raw).text, name)
        args = (jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((128, 128), jnp.float32))
        return jax_support.lowering_error(jax.jit(program.matmul), args, "tpu")

    before = nb.read_bytes()
    assert "Per-operand dot precision unsupported" in (lowering_error(before, "notebook_before") or "")
    proc = cli("--write", "nb.ipynb", cwd=nb.parent)  # aimed at the installed jax
    assert proc.returncode == 0, proc.stderr
    after = nb.read_bytes()
    assert after != before
    valid(after)
    assert lowering_error(after, "notebook_after") is None


HELPER_WITH_A_DEFAULT = """\
import jax.numpy as jnp
from jax import lax

PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)


def contract(x, w, precision=PAIR):
    return jnp.dot(x, w, precision=precision)
"""


def test_a_kernel_in_a_notebook_reaches_the_projects_helper(tmp_path: Path, monkeypatch) -> None:
    """Kernels are prototyped in notebooks on the project's own helpers: the helper a notebook's
    kernel calls is fixed, also when only the helper's module is processed (a pre-commit run)."""
    pytest.importorskip("jax")
    import sys

    import jax
    import jax.numpy as jnp

    from tests import jax_support

    (tmp_path / "pyproject.toml").write_text("[tool.jax-codemod]\n")
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "__init__.py").write_text("")
    helper = tmp_path / "shared" / "mathops.py"
    helper.write_text(HELPER_WITH_A_DEFAULT)
    document = make_notebook()
    document["cells"] = [
        _cell("code", ["import jax\n", "import jax.numpy as jnp\n", "from jax.experimental import pallas as pl\n",
                       "from shared.mathops import contract"], 1, execution_count=1),
        _cell("code", ["def kernel(x_ref, y_ref, o_ref):\n", "    o_ref[...] = contract(x_ref[...], y_ref[...])\n", "\n",
                       "matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))"],
              2, execution_count=2),
    ]
    nb = tmp_path / "proto.ipynb"
    nb.write_bytes(dump(document))
    monkeypatch.syspath_prepend(str(tmp_path))

    def lowering_error(name: str):
        for module in ("shared", "shared.mathops"):
            sys.modules.pop(module, None)
        program = jax_support.load_program(notebook.read(nb, nb.read_bytes()).text, name)
        args = (jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((128, 128), jnp.float32))
        return jax_support.lowering_error(jax.jit(program.matmul), args, "tpu")

    assert "Per-operand dot precision unsupported" in (lowering_error("notebook_helper_before") or "")
    check = fix("--check", "shared/mathops.py", cwd=tmp_path)
    assert check.returncode == 1 and check.stdout.decode().splitlines() == ["shared/mathops.py"], check
    assert cli("--write", "shared/mathops.py", cwd=tmp_path).returncode == 0
    assert helper.read_text() != HELPER_WITH_A_DEFAULT
    assert lowering_error("notebook_helper_after") is None


def test_a_helper_goes_at_the_end_of_the_imports_cell(tmp_path: Path) -> None:
    """JAX002's helper is inserted after the imports: at the end of their cell, with no blank line
    left at the cell's end; the call it replaces is in another cell, two cells below."""
    golden = Path(__file__).parent / "fixtures" / "accuracy" / "rsqrt_plgpu_kernel_call"
    head, kernel, launch = golden.with_suffix(".in.py").read_text().split("\n\n\n")
    imports, constant = head.rsplit("\n\n", 1)
    document = make_notebook()
    document["cells"] = [_cell("code", source.splitlines(True), number, execution_count=None)
                         for number, source in enumerate([imports, constant, kernel, launch], 1)]
    path = tmp_path / "nb.ipynb"
    path.write_bytes(dump(document))
    proc = fix("--write", "nb.ipynb", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    after = json.loads(path.read_bytes())
    sources = ["".join(cell["source"]) for cell in after["cells"]]
    assert sources[0].startswith(imports + "\n\n\ndef rsqrt_safe(x):\n")
    assert sources[0].endswith("return lax.select((y > 0) & (y < float(\"inf\")), refined, y)")  # as it ended: no newline
    assert sources[1] == constant and sources[3] == launch
    assert "rsqrt_safe(jnp.mean(x * x) + EPS)" in sources[2]
    # The cells' code is the golden's rewritten file, but for the blank lines between cells.
    code = notebook.read(path, path.read_bytes()).text
    expected = golden.with_suffix(".out.py").read_text()
    assert [line for line in code.splitlines() if line.strip()] == [line for line in expected.splitlines() if line.strip()]
    valid(path.read_bytes())


def test_a_helper_goes_after_the_imports_below_a_cell_of_magics(tmp_path: Path) -> None:
    """A first cell of magics only (`%load_ext autoreload`): the helper goes after the last import
    of the next cell, not above the magics, and `from jax import lax`, which that cell has, is not
    added again."""
    golden = Path(__file__).parent / "fixtures" / "accuracy" / "rsqrt_plgpu_kernel_call"
    head, kernel, launch = golden.with_suffix(".in.py").read_text().split("\n\n\n")
    imports, constant = head.rsplit("\n\n", 1)
    magics = "%load_ext autoreload\n%autoreload 2"
    document = make_notebook()
    document["cells"] = [_cell("code", source.splitlines(True), number, execution_count=None)
                         for number, source in enumerate([magics, imports, constant, kernel, launch], 1)]
    path = tmp_path / "nb.ipynb"
    path.write_bytes(dump(document))
    proc = fix("--write", "nb.ipynb", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    sources = ["".join(cell["source"]) for cell in json.loads(path.read_bytes())["cells"]]
    assert sources[0] == magics
    assert sources[1].startswith(imports + "\n\n\ndef rsqrt_safe(x):\n") and sources[1].count("from jax import lax") == 1
    assert "rsqrt_safe(jnp.mean(x * x) + EPS)" in sources[3]


def test_add_noqa_writes_the_comment_into_the_cell_and_keeps_the_rest_of_the_notebook(nb: Path) -> None:
    before = json.loads(nb.read_bytes())
    proc = fix("--add-noqa", cwd=nb.parent)
    assert proc.returncode == 0, proc.stderr
    after = json.loads(nb.read_bytes())
    kernel = after["cells"][KERNEL_CELL - 1]["source"]
    assert kernel[1] == KERNEL_LINE + "  # jax-codemod: ignore[JAX001]"
    after["cells"][KERNEL_CELL - 1]["source"][1] = KERNEL_LINE
    assert after == before, "only the finding's line of the cell changes"
    valid(nb.read_bytes())
    assert fix("--check", cwd=nb.parent).returncode == 0


def test_diff_base_finds_a_changed_notebook(nb: Path) -> None:
    from tests.test_cli import git

    root = nb.parent
    (root / "kernel.py").write_bytes(PY_KERNEL.read_bytes())
    git("init", "-q", cwd=root)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "empty", cwd=root)
    git("add", "kernel.py", cwd=root)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "kernel", cwd=root)
    proc = fix("--diff-base", "HEAD", cwd=root)  # nb.ipynb is untracked: changed; kernel.py is not
    assert proc.returncode == 1
    assert b"1 file scanned" in proc.stderr and b"nb.ipynb:cell 5:2:60" in proc.stderr
    (root / "pyproject.toml").write_text("[tool.jax-codemod]\nnotebooks = false\n")
    assert b"0 files scanned" in fix("--diff-base", "HEAD", cwd=root).stderr


def test_a_notebook_of_another_language_has_no_python(tmp_path: Path) -> None:
    document = make_notebook()
    document["metadata"]["language_info"] = {"name": "R"}
    source = notebook.read(Path("nb.ipynb"), dump(document))
    assert source.text == "" and source.cells.cells == ()


@pytest.mark.parametrize("line", ["%matplotlib inline", "  %time f()", "!pip list", "files = !ls", "x = %env HOME",
                                  "f?", "?f", "f??  # help", "/f x", ";f x", ",f x"])
def test_a_cell_is_scanned_whenever_a_line_of_it_may_be_ipython(line: str) -> None:
    """Cells without anything IPython could mean skip the character scan: the shortcut's test must
    hold for every line the scan takes for IPython."""
    from codemods.engine import notebook

    lines = ["import os\n", line + "\n", "y = 1\n"]
    assert notebook._MAYBE_IPYTHON.search("".join(lines))
    code, ipython = notebook._python_lines(lines, False)[:2]
    assert [text for _, _, text in ipython] == [line] and len("".join(code)) == len("".join(lines))


# -- IPython magics whose code is Python: fixed inside it, or [manual] with the line --

MAGIC_CELLS = [
    "import jax\nparams = {'w': 1.0}",
    "%timeit -n 1 -r 1 jax.tree_map(lambda a: 2 * a, params)",
    "%%time\nout = jax.tree_map(lambda a: 2 * a, params)\n",
    "%%timeit -n 1 -r 1 x = jax.tree_map(lambda a: a, params)\ny = jax.tree_map(lambda a: 3 * a, x)",
    "%prun -q -s cumulative jax.tree_map(lambda a: a, params)\nt = %timeit -o -q -n 1 -r 1 jax.tree_map(str, params)",
    "%%bash\necho jax.tree_map",
    "%time from jax import tree_map, tree_leaves",  # the fix moves each name to a statement of its own
]
MAGIC_FINDINGS = [  # (cell, line, column) of each jax.tree_map the fix changes, columns 1-based in the cell
    (2, 1, 19), (3, 2, 7), (4, 1, 24), (4, 2, 5), (5, 1, 24), (5, 2, 29),
]


def magic_notebook(cells: list[str]) -> bytes:
    return dump({"cells": [_cell("code", source.splitlines(True), n, execution_count=n) for n, source in
                           enumerate(cells, 1)],
                 "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5})


def test_code_in_a_python_magic_is_fixed_inside_it_and_every_other_byte_kept(tmp_path: Path) -> None:
    """`%timeit f()` used to be a placeholder: its jax.tree_map got no finding, and the cell kept
    raising AttributeError after --write. The code of %time/%timeit/%prun (assigned too) and the
    body of their %% cells are analysed where they are; %%bash is not Python."""
    path = tmp_path / "nb.ipynb"
    path.write_bytes(magic_notebook(MAGIC_CELLS))
    proc = fix("--select", "JAX1", "nb.ipynb", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    for cell, line, column in MAGIC_FINDINGS:
        assert f"nb.ipynb:cell {cell}:{line}:{column}: JAX101 [fixed] jax.tree_map -> jax.tree.map".encode() \
            in proc.stderr, proc.stderr
    for code, name, column in (("JAX101", "tree_map", 23), ("JAX102", "tree_leaves", 33)):
        assert (f"nb.ipynb:cell 7:1:{column}: {code} [manual] from jax import {name} -> from jax.tree_util import "
                f"{name}: ").encode() in proc.stderr
        assert b"(not fixed: the fix would change IPython syntax in cell 7 (%time from jax import tree_map, " \
               b"tree_leaves))" in proc.stderr
    assert b"6 fixes, 2 need manual review" in proc.stderr
    proc = fix("--select", "JAX1", "--write", "nb.ipynb", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr  # the [manual] ones stay
    fixed = [source.replace("jax.tree_map", "jax.tree.map") if n in (2, 3, 4, 5) else source
             for n, source in enumerate(MAGIC_CELLS, 1)]
    assert path.read_bytes() == magic_notebook(fixed)
    valid(path.read_bytes())


def test_a_python_magic_whose_code_does_not_parse_stays_a_placeholder() -> None:
    """Only code that parses is unmasked: a continued line, a compound statement, a `%%timeit` body
    that is not Python; the module always parses."""
    for source in ("%time f(1,\n", "%time for i in x: f(i)\n", "%timeit -n\n", "%%timeit\nx = 1\n  y = 2\n"):
        read = notebook.read(Path("nb.ipynb"), magic_notebook([source]))
        ast.parse(read.text)
        assert read.cells.cells[0].arguments == () and "f(" not in read.text and "x = 1" not in read.text


@pytest.mark.jax
def test_the_rewritten_magic_cells_run_in_ipython(tmp_path: Path) -> None:
    """The fixed cells, run by IPython itself (its magics real): the AttributeError is gone."""
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    path = tmp_path / "nb.ipynb"
    path.write_bytes(magic_notebook(MAGIC_CELLS[:5]))
    shell = InteractiveShell.instance()
    assert shell.run_cell(MAGIC_CELLS[0]).error_in_exec is None
    assert isinstance(shell.run_cell(MAGIC_CELLS[1]).error_in_exec, AttributeError)  # as the user met it
    assert fix("--select", "JAX1", "--write", "nb.ipynb", cwd=tmp_path).returncode == 0
    for cell in json.loads(path.read_text())["cells"]:
        result = shell.run_cell("".join(cell["source"]))
        assert result.error_in_exec is None and result.error_before_exec is None, "".join(cell["source"])


PRECEDING_CELLS = {
    "empty-code": ("code", []),
    "empty-string": ("code", ""),
    "blank-lines": ("code", ["\n", "\n"]),
    "markdown": ("markdown", ["# Title\n", "\n", "text"]),
    "raw": ("raw", ["raw\n", "text"]),
    "magics-only": ("code", ["%load_ext autoreload\n", "%autoreload 2"]),
    "no-final-newline": ("code", "import functools\nx = 1"),
    "cell-magic": ("code", ["%%bash\n", "echo jax.tree_map\n"]),
}


@pytest.mark.parametrize("kind, source", PRECEDING_CELLS.values(), ids=PRECEDING_CELLS.keys())
def test_positions_after_a_cell_of_every_kind(tmp_path: Path, kind: str, source) -> None:
    """A finding is placed in its own cell, 1-based rows and columns within it, whatever the cells
    before it hold; the write changes that cell's source and no other byte of the file."""
    cells = [_cell("code", ["import jax"], 1), _cell(kind, source, 2),
             _cell("code", ["\n", "y = jax.tree_map(abs, [1])"], 3), _cell(kind, source, 4),
             _cell("code", "z = (1,\n     jax.tree_map(abs, [2]))\n", 5)]
    document = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "nb.ipynb"
    path.write_bytes(dump(document))
    report = json.loads(fix("--select", "JAX1", "--output-format", "json", "--no-cache", cwd=tmp_path).stdout)
    places = [(f["cell"], f["start"], f["end"]) for f in report["findings"]]
    assert places == [(3, {"line": 2, "column": 5}, {"line": 2, "column": 17}),
                      (5, {"line": 2, "column": 6}, {"line": 2, "column": 18})], places
    assert fix("--select", "JAX1", "--write", "--no-cache", cwd=tmp_path).returncode == 0
    expected = copy.deepcopy(document)
    expected["cells"][2]["source"] = ["\n", "y = jax.tree.map(abs, [1])"]
    expected["cells"][4]["source"] = "z = (1,\n     jax.tree.map(abs, [2]))\n"
    assert path.read_bytes() == dump(expected)


def test_an_f_string_holding_its_own_quote_neither_hides_an_ipython_line_nor_the_kernel(tmp_path: Path) -> None:
    """Python 3.12 (PEP 701) lets a replacement field hold its f-string's own quote (`f"{d["("]}"`).
    The IPython-line scan took the quote inside for the string's end and the `(` after it for a
    bracket left open, so the `%time` line below was left as code and the notebook was reported
    "cannot parse". The line is an IPython line again, and the kernel's pair is fixed. (Before
    3.12 the field ends the string: the cell does not parse, and that is what is said.)"""
    source = ('import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n'
              'd = {"(": 1}\nprint(f"{d["("]}")\n%time x = 1\n\n\ndef body(x_ref, o_ref):\n'
              '    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n'
              '\n\ndef run(x):\n    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)\n')
    path = tmp_path / "pep701.ipynb"
    path.write_bytes(dump({**make_notebook(), "cells": [_cell("code", source, 1)]}))
    result = runner.process_source(path, path.read_bytes(), registry.select(["JAX001"]), Settings((0, 12, 0, 1)))
    if sys.version_info < (3, 12):
        assert result.error is not None and "cell 1, line 6" in result.error, result.error
        return
    assert result.error is None, result.error
    assert [(f.kind, f.line) for f in result.findings] == [(Kind.FIXED, 11)]
    assert b"%time x = 1" in result.new_source and b'print(f\\"{d[\\"(\\"]}\\")' in result.new_source
