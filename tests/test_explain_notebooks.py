"""`jax-codemod explain` fed notebook tracebacks pasted as text.

The samples are written by hand after what each front end prints for a Pallas TPU kernel with a
per-operand precision (tests/fixtures/precision/dot_pair_jax_0_12.in.py) defined in `In [7]` and
lowered for TPU in `In [9]`: terminal IPython (`Cell In[7], line 3`), Jupyter (the same with ANSI
colours), Colab / IPython 7 (`<ipython-input-7-...> in kernel(...)`, the line from the `---->`
arrow) and a plain Python traceback of an ipykernel cell (`/tmp/ipykernel_1234/567.py`). With
`--notebook` the frame `In [7]` is the code cell whose execution count is 7 (not the 7th cell);
`--write` changes that cell's source only, and the rewritten cells lower for TPU.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from codemods import explain as tracebacks
from tests.test_explain import explain

NOTEBOOK_KERNEL_LINE = "    o_ref[...] = jnp.dot(acc, y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))"
REFERENCE_LINE = "ref = jnp.dot(v, w, precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))"
LOWER_LINE = 'exported = jax.export.export(jax.jit(matmul), platforms=["tpu"])(x, jax.ShapeDtypeStruct((128, 128), jnp.float32))'

TERMINAL = f"""\
---------------------------------------------------------------------------
JaxStackTraceBeforeTransformation         Traceback (most recent call last)
Cell In[7], line 3, in kernel()
      1 def kernel(x_ref, y_ref, o_ref):
      2     acc = x_ref[...]
----> 3 {NOTEBOOK_KERNEL_LINE}

JaxStackTraceBeforeTransformation: NotImplementedError: Per-operand dot precision unsupported

The preceding stack trace is the source of the JAX operation that, once transformed by JAX, triggered the following exception.

--------------------

The above exception was the direct cause of the following exception:

NotImplementedError                       Traceback (most recent call last)
Cell In[9], line 2
      1 x = jax.ShapeDtypeStruct((8, 128), jnp.float32)
----> 2 {LOWER_LINE}

File ~/venv/lib/python3.12/site-packages/jax/_src/export/_export.py:616, in export.<locals>.do_export(*args_specs, **kwargs_specs)
    615 traced = fun_jit.trace(*args_specs, **kwargs_specs)
--> 616 lowered = traced.lower(
    617     lowering_platforms=actual_lowering_platforms,

File ~/venv/lib/python3.12/site-packages/jax/_src/pallas/mosaic/lowering.py:3062, in _dot_general_lowering_rule(ctx, x, y, dimension_numbers, precision, **_)
   3061 if isinstance(precision, tuple) and precision[0] != precision[1]:
-> 3062     raise NotImplementedError("Per-operand dot precision unsupported")

NotImplementedError: Per-operand dot precision unsupported
"""

# Jupyter (ipykernel, IPython 8): the same frames, every token coloured.
R, G, BG, C, B, X, N = "\x1b[0;31m", "\x1b[0;32m", "\x1b[1;32m", "\x1b[0;36m", "\x1b[0;34m", "\x1b[0m", "\x1b[38;5;241m"
JUPYTER = f"""\
{R}---------------------------------------------------------------------------{X}
{R}JaxStackTraceBeforeTransformation{X}         Traceback (most recent call last)
Cell {G}In[7], line 3{X}, in {C}kernel{B}(){X}
{BG}      1{X} \x1b[38;5;28;01mdef\x1b[39;00m \x1b[38;5;21mkernel\x1b[39m(x_ref, y_ref, o_ref):
{BG}      2{X}     acc {N}={X} x_ref[{N}.{X}{N}.{X}{N}.{X}]
{G}----> 3{X}     o_ref[{N}.{X}{N}.{X}{N}.{X}] {N}={X} jnp{N}.{X}dot(acc, y_ref[{N}.{X}{N}.{X}{N}.{X}], precision{N}={X}(lax{N}.{X}Precision{N}.{X}DEFAULT, lax{N}.{X}Precision{N}.{X}HIGH))

{R}JaxStackTraceBeforeTransformation{X}: NotImplementedError: Per-operand dot precision unsupported

The preceding stack trace is the source of the JAX operation that, once transformed by JAX, triggered the following exception.

--------------------

The above exception was the direct cause of the following exception:

{R}NotImplementedError{X}                       Traceback (most recent call last)
Cell {G}In[9], line 2{X}
{BG}      1{X} x {N}={X} jax{N}.{X}ShapeDtypeStruct(({N}8{X}, {N}128{X}), jnp{N}.{X}float32)
{G}----> 2{X} {LOWER_LINE}

File {G}/opt/conda/lib/python3.11/site-packages/jax/_src/pallas/mosaic/lowering.py:3062{X}, in {C}_dot_general_lowering_rule{B}(ctx, x, y, dimension_numbers, precision, **_){X}
{BG}   3061{X} {N}if{X} {N}isinstance{X}(precision, {N}tuple{X}):
{G}-> 3062{X}     {N}raise{X} {N}NotImplementedError{X}({N}"Per-operand dot precision unsupported"{X})

{R}NotImplementedError{X}: Per-operand dot precision unsupported
"""

COLAB = f"""\
---------------------------------------------------------------------------
JaxStackTraceBeforeTransformation         Traceback (most recent call last)
<ipython-input-7-5d3c2f0a1b9e> in kernel(x_ref, y_ref, o_ref)
      1 def kernel(x_ref, y_ref, o_ref):
      2     acc = x_ref[...]
----> 3 {NOTEBOOK_KERNEL_LINE}

JaxStackTraceBeforeTransformation: NotImplementedError: Per-operand dot precision unsupported

The preceding stack trace is the source of the JAX operation that, once transformed by JAX, triggered the following exception.

--------------------

The above exception was the direct cause of the following exception:

NotImplementedError                       Traceback (most recent call last)
<ipython-input-9-0a1b2c3d4e5f> in <module>()
      1 x = jax.ShapeDtypeStruct((8, 128), jnp.float32)
----> 2 {LOWER_LINE}

/usr/local/lib/python3.10/dist-packages/jax/_src/export/_export.py in do_export(*args_specs, **kwargs_specs)
    615     traced = fun_jit.trace(*args_specs, **kwargs_specs)
--> 616     lowered = traced.lower(
    617         lowering_platforms=actual_lowering_platforms,

NotImplementedError: Per-operand dot precision unsupported
"""

# A plain Python traceback of an ipykernel cell (`%xmode Plain`, a logger): cells are temporary files
# named by a hash of their code, so the cell is the one holding the quoted line.
PLAIN_IPYKERNEL = f"""\
Traceback (most recent call last):
  File "/tmp/ipykernel_4821/2190451573.py", line 3, in kernel
{NOTEBOOK_KERNEL_LINE}
jax._src.source_info_util.JaxStackTraceBeforeTransformation: NotImplementedError: Per-operand dot precision unsupported

The preceding stack trace is the source of the JAX operation that, once transformed by JAX, triggered the following exception.

--------------------

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/tmp/ipykernel_4821/1538320964.py", line 2, in <module>
    {LOWER_LINE}
  File "/usr/lib/python3.12/site-packages/jax/_src/export/_export.py", line 616, in do_export
    lowered = traced.lower(
NotImplementedError: Per-operand dot precision unsupported
"""

# IPython 8.0 to 8.4 named a cell `Input In [7]` and gave its line by the arrow alone.
IPYTHON_8_0 = TERMINAL.replace("Cell In[7], line 3, in kernel()", "Input In [7], in kernel(x_ref, y_ref, o_ref)").replace(
    "Cell In[9], line 2", "Input In [9], in <cell line: 2>()")
FORMATS = {"terminal": TERMINAL, "jupyter": JUPYTER, "colab": COLAB, "plain_ipykernel": PLAIN_IPYKERNEL,
           "ipython_8_0": IPYTHON_8_0}


def make_notebook() -> dict:
    """Cell numbers are not execution counts: In [7] is the 3rd cell, and the 7th holds another
    per-operand dot (plain XLA, outside any kernel) on its line 3 too."""
    def code(count, lines):
        return {"cell_type": "code", "execution_count": count, "id": f"c{count}", "metadata": {}, "outputs": [],
                "source": lines}

    def markdown(ident, lines):
        return {"cell_type": "markdown", "id": ident, "metadata": {}, "source": lines}

    cells = [
        markdown("m1", ["# Matmul kernel"]),
        code(1, ["%matplotlib inline\n", "import jax\n", "import jax.numpy as jnp\n", "from jax import lax\n",
                 "from jax.experimental import pallas as pl"]),
        code(7, ["def kernel(x_ref, y_ref, o_ref):\n", "    acc = x_ref[...]\n", NOTEBOOK_KERNEL_LINE]),
        code(8, ["matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))"]),
        markdown("m2", ["A reference in plain XLA:"]),
        code(2, ["w = jnp.ones((128, 128))\n", "v = jnp.ones((8, 128))\n", REFERENCE_LINE]),
        code(3, ["!nvidia-smi"]),
        code(9, ["x = jax.ShapeDtypeStruct((8, 128), jnp.float32)\n", LOWER_LINE]),
    ]
    cells[7]["outputs"] = [{"ename": "NotImplementedError", "evalue": "Per-operand dot precision unsupported",
                            "output_type": "error", "traceback": ["NotImplementedError"]}]
    return {"cells": cells, "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture
def nb(tmp_path: Path) -> Path:
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(make_notebook(), indent=1, ensure_ascii=False) + "\n")
    return path


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_each_format_is_parsed_to_the_cell_and_line(name: str) -> None:
    errors = tracebacks.parse_log(FORMATS[name])
    assert [error.message for error in errors] == ["Per-operand dot precision unsupported"] * 2
    kernel_frames = [frame for frame in errors[0].frames if frame.in_notebook]
    outer = [frame for frame in errors[1].frames if frame.in_notebook]
    assert [(frame.line, frame.code) for frame in kernel_frames] == [(3, NOTEBOOK_KERNEL_LINE.strip())]
    assert [(frame.line, frame.code) for frame in outer] == [(2, LOWER_LINE)]
    assert kernel_frames[0].function.startswith("kernel")  # as IPython prints it: `kernel(x_ref, y_ref, o_ref)`
    if name != "plain_ipykernel":  # ipykernel's file names do not say the execution count
        assert (kernel_frames[0].cell, outer[0].cell) == (7, 9)
    library = [frame for frame in errors[1].frames if not frame.in_notebook]
    assert library and all("site-packages" in frame.path or "dist-packages" in frame.path for frame in library)
    assert not any(frame.path.startswith("~") for frame in library)  # `File ~/...` is expanded


def test_colours_alone_change_nothing() -> None:
    plain = re.sub(r"\x1b\[[0-9;]*m", "", JUPYTER)
    assert tracebacks.parse_log(JUPYTER) == tracebacks.parse_log(plain)


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_without_the_notebook_the_message_says_to_pass_it(name: str, tmp_path: Path) -> None:
    proc = explain(FORMATS[name], tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "pass --notebook" in proc.stderr, proc.stderr
    assert "notebook cells" in proc.stderr and proc.stdout == ""
    if name != "plain_ipykernel":
        assert "In [7], line 3" in proc.stderr


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_with_the_notebook_in_7_is_the_cell_whose_execution_count_is_7(name: str, nb: Path) -> None:
    before = nb.read_bytes()
    proc = explain(FORMATS[name], nb.parent, "--notebook", "nb.ipynb")
    assert proc.returncode == 1, proc.stderr
    # Cell 3 of the notebook (markdown counted), its line 3.
    assert "nb.ipynb:cell 3:3: JAX001: the traceback's `Per-operand dot precision unsupported`" in proc.stderr
    assert re.search(r"nb\.ipynb:cell 3:3:\d+: JAX001", proc.stderr), proc.stderr
    assert proc.stdout.startswith("--- a/nb.ipynb:cell 3\n+++ b/nb.ipynb:cell 3\n"), proc.stdout
    assert f"-{NOTEBOOK_KERNEL_LINE}" in proc.stdout and "cell 6" not in proc.stdout
    assert nb.read_bytes() == before  # a dry run


def test_write_changes_only_that_cells_source_and_the_cells_lower_for_tpu(nb: Path) -> None:
    jax = pytest.importorskip("jax")
    from codemods.engine import notebook
    from tests import jax_support

    before = nb.read_bytes()
    with pytest.raises(NotImplementedError, match="Per-operand dot precision unsupported"):
        jax_support.load_program(notebook.read(nb, before).text, "explain_nb_before")  # the cells run: In [9] lowers
    proc = explain(TERMINAL, nb.parent, "--notebook", "nb.ipynb", "--write")
    assert proc.returncode == 0, proc.stderr
    after = nb.read_bytes()
    fixed = re.search(r'o_ref\[\.\.\.\] = jnp\.dot\(acc, y_ref\[\.\.\.\], precision=lax\.Precision\.HIGH(?:EST)?\)',
                      after.decode())
    assert fixed, after.decode()
    # Every byte but the kernel line's is the notebook's: the reference dot of the 7th cell, the
    # stored error output, ids, layout.
    assert after == before.replace(json.dumps(NOTEBOOK_KERNEL_LINE).encode(), json.dumps("    " + fixed[0]).encode())
    assert REFERENCE_LINE in after.decode()
    nbformat = pytest.importorskip("nbformat")
    nbformat.validate(nbformat.reads(after.decode(), as_version=nbformat.NO_CONVERT))
    program = jax_support.load_program(notebook.read(nb, after).text, "explain_nb_after")  # In [9] lowers now
    assert program.exported.mlir_module()
    assert jax.__version__


def test_a_stale_execution_count_is_reported_not_guessed(nb: Path) -> None:
    document = make_notebook()
    document["cells"][2]["execution_count"] = 12  # run again since the traceback: no cell is In [7] now
    nb.write_text(json.dumps(document, indent=1))
    proc = explain(TERMINAL, nb.parent, "--notebook", "nb.ipynb", "--write")
    assert proc.returncode == 2, proc.stderr
    assert "no code cell of nb.ipynb has execution count 7" in proc.stderr
    assert json.loads(nb.read_text()) == document


def test_a_notebook_that_cannot_be_read_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "nb.ipynb").write_text("{not json")
    proc = explain(TERMINAL, tmp_path, "--notebook", "nb.ipynb")
    assert proc.returncode == 2
    assert "nb.ipynb" in proc.stderr and "not valid JSON" in proc.stderr
    (tmp_path / "nb.json").write_text(json.dumps(make_notebook()))
    proc = explain(TERMINAL, tmp_path, "--notebook", "nb.json")
    assert proc.returncode == 2 and "nb.json: not a notebook (.ipynb)" in proc.stderr, proc.stderr
