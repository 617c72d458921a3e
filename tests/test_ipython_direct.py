"""codemods/ipython.py called directly, in the test's process, on IPython's own InteractiveShell whose
history is set by hand: no cell is run, and jax is never imported. The errors are raised by code
compiled under the cells' file names (`<ipython-input-N-...>`), standing in for the cells whose
text the history holds, so the tracebacks point at the lines a real run's would.
tests/test_ipython.py runs real cells (with jax) in a shell and in a Jupyter kernel.

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks exact output.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

pytest.importorskip("IPython")

from codemods import capabilities, explain  # noqa: E402
from codemods import ipython as ip  # noqa: E402

TARGET = "0.12.0.1"
IMPORT = "import jax\n"
DOUBLE = "def double(t):\n    return jax.tree_map(lambda a: 2 * a, t)\n"
CALL = "double({})\n"
FIXED = "def double(t):\n    return jax.tree.map(lambda a: 2 * a, t)"
FINDING = ("JAX101 [fixed] jax.tree_map -> jax.tree.map: removed in jax 0.6.0 (raises AttributeError on jax "
           f"{TARGET})")


@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(f'[tool.jax-codemod]\njax-version = "{TARGET}"\n')
    shell = InteractiveShell.instance()
    history = shell.history_manager.input_hist_raw
    saved = list(history)
    history[:] = [""]
    offered: list = []
    monkeypatch.setattr(shell, "set_next_input", lambda text, replace=False: offered.append((text, replace)))
    monkeypatch.setattr(shell.compile, "_filename_map", {}, raising=False)
    shell.offered = offered
    yield shell
    history[:] = saved


def cells(shell, *sources: str) -> None:
    shell.history_manager.input_hist_raw[:] = ["", *sources]


def raised(files: dict[str, str], call: str) -> BaseException:
    """The exception `call` raises, its frames in the files named (file name -> stand-in code)."""
    namespace: dict = {}
    for name, code in files.items():
        exec(compile(code, name, "exec"), namespace)
    try:
        exec(compile(call, "<ipython-input-3-c>", "exec"), namespace)
    except Exception as error:  # noqa: BLE001
        return error
    raise AssertionError("nothing raised")


RAISES = "def double(t):\n    raise AttributeError(\"module 'jax' has no attribute 'tree_map'\")\n"


class Result:
    def __init__(self, error=None):
        if error is not None:
            self.error_in_exec = error


def printed(call, *args) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        call(*args)
    return out.getvalue()


# _in_terms and the session notebook


def test_in_terms():
    assert str(ip.SESSION) == "<ipython>.ipynb"
    assert ip._in_terms("<ipython>.ipynb:cell 7: x, <ipython>.ipynb:cell 12") == "In [7]: x, In [12]"
    assert ip._in_terms("a/<ipython>.ipynb:cell 7") == "a/In [7]"
    assert ip._in_terms("nb.ipynb:cell 7 <ipython>Xipynb:cell 8 <ipython>.ipynb:cell x") == \
        "nb.ipynb:cell 7 <ipython>Xipynb:cell 8 <ipython>.ipynb:cell x"


def test_session_notebook_of_the_history(shell):
    cells(shell, "a = 1\n", "b = 2")
    shell.compile._filename_map = {"<ipython-input-1-x>": 1}
    notebook = ip.session_notebook(shell)
    assert notebook.path == ip.SESSION
    assert notebook.files == {"<ipython-input-1-x>": 1}
    assert notebook.raw == json.dumps({
        "cells": [
            {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": "a = 1\n"},
            {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [], "source": "b = 2"},
        ],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }, indent=1).encode()
    assert notebook.counts == {1: 1, 2: 2}


def test_session_notebook_of_cells_given(shell):
    cells(shell, "ignored\n")
    notebook = ip.session_notebook(shell, ["x = 1\n"])
    assert [cell["source"] for cell in json.loads(notebook.raw)["cells"]] == ["x = 1\n"]
    assert notebook.files == {}
    shell.compile._filename_map = None
    assert ip.session_notebook(shell, []).files == {}


def test_session_notebook_without_a_filename_map(shell, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delattr(shell.compile, "_filename_map")
    assert ip.session_notebook(shell, ["x\n"]).files == {}


def test_settings_read_the_current_folders_config(shell, tmp_path: Path):
    config, selected, settings = ip._settings()
    assert config.path == tmp_path / "pyproject.toml"
    assert settings.jax_version == (0, 12, 0, 1) and settings.jax_version_source == "[tool.jax-codemod]"
    assert [rule.code for rule in selected] == [rule.code for rule in __import__("codemods.registry").registry.RULES
                                                if rule.default]
    (tmp_path / "pyproject.toml").write_text('[tool.jax-codemod]\nselect = ["JAX101"]\n')
    assert [rule.code for rule in ip._settings()[1]] == ["JAX101"]


def test_settings_target_the_kernels_own_jax_before_a_venv_beside_the_notebook(shell, tmp_path: Path):
    installed = capabilities.installed_jax_version()
    if installed is None:
        pytest.skip("no jax in this environment")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / ".venv" / "lib" / "python3.12" / "site-packages" / "jax-0.4.1.dist-info").mkdir(parents=True)
    _, _, settings = ip._settings()
    assert settings.jax_version == installed and settings.jax_version_source == "interpreter"


# post_run_cell: the fix after the traceback


def test_a_cell_without_an_error_prints_nothing(shell):
    magics = ip.JaxCodemodMagics(shell)
    assert magics.last_error is None
    assert printed(magics.post_run_cell, Result()) == ""
    assert printed(magics.post_run_cell, object()) == ""
    assert magics.last_error is None


def test_another_error_prints_nothing(shell):
    magics = ip.JaxCodemodMagics(shell)
    assert printed(magics.post_run_cell, Result(raised({}, "1 / 0\n"))) == ""
    assert printed(magics.post_run_cell, Result(raised({}, "raise NotImplementedError('else')\n"))) == ""
    assert magics.last_error is None


def test_an_error_a_rule_fixes_prints_the_fix(shell):
    cells(shell, IMPORT, DOUBLE, CALL)
    magics = ip.JaxCodemodMagics(shell)
    error = raised({"<ipython-input-2-b>": RAISES}, "double({})\n")
    assert printed(magics.post_run_cell, Result(error)) == (
        "\njax-codemod: this error is one it fixes\n"
        "In [2]:2: JAX101: the traceback's `module 'jax' has no attribute 'tree_map'` comes from this call\n"
        f"In [2]:2:12: {FINDING}\n"
        "--- a/In [2]\n+++ b/In [2]\n@@ -1,2 +1,2 @@\n def double(t):\n"
        "-    return jax.tree_map(lambda a: 2 * a, t)\n+    return jax.tree.map(lambda a: 2 * a, t)\n"
        "(`%jax_codemod fix` puts the fixed cell in the next input)\n")
    assert magics.last_error.startswith("Traceback (most recent call last):\n")
    assert magics.last_error.endswith("AttributeError: module 'jax' has no attribute 'tree_map'\n")
    assert 'File "<ipython-input-2-b>", line 2, in double' in magics.last_error


def test_an_error_with_nothing_to_fix_prints_the_notes_alone(shell):
    cells(shell, IMPORT, "x = 1\n\ny = 2\n", CALL)
    magics = ip.JaxCodemodMagics(shell)
    error = raised({"<ipython-input-2-b>": RAISES}, "double({})\n")
    out = printed(magics.post_run_cell, Result(error))
    assert out.startswith("\njax-codemod: this error is one it fixes\n")
    assert "--- a/" not in out and "%jax_codemod fix" not in out
    assert len(out) > len("\njax-codemod: this error is one it fixes\n")
    assert magics.last_error is not None
    diffs, notes = magics.explain(magics.last_error)
    assert diffs == "" and out == "\njax-codemod: this error is one it fixes\n" + notes  # nothing more


def test_an_explanation_that_fails_never_breaks_the_session(shell, monkeypatch: pytest.MonkeyPatch):
    cells(shell, IMPORT, DOUBLE, CALL)
    magics = ip.JaxCodemodMagics(shell)

    def fail(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(explain, "run", fail)
    error = raised({"<ipython-input-2-b>": RAISES}, "double({})\n")
    assert printed(magics.post_run_cell, Result(error)) == \
        "jax-codemod: could not explain this error (RuntimeError: boom)\n"
    assert magics.last_error is not None


def test_explain_returns_the_diffs_and_the_notes_in_ipythons_terms(shell):
    cells(shell, IMPORT, DOUBLE, CALL)
    magics = ip.JaxCodemodMagics(shell)
    text = "".join(__import__("traceback").format_exception(raised({"<ipython-input-2-b>": RAISES}, CALL)))
    results: list = []
    diffs, notes = magics.explain(text, results)
    assert diffs.startswith("--- a/In [2]\n+++ b/In [2]\n")
    assert notes == ("In [2]:2: JAX101: the traceback's `module 'jax' has no attribute 'tree_map'` comes from "
                     f"this call\nIn [2]:2:12: {FINDING}\n")
    assert len(results) == 1 and results[0].cells is not None


def test_a_rule_the_project_does_not_select_is_named_not_fixed(shell, tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text(f'[tool.jax-codemod]\njax-version = "{TARGET}"\nselect = ["JAX001"]\n')
    cells(shell, IMPORT, DOUBLE, CALL)
    magics = ip.JaxCodemodMagics(shell)
    out = printed(magics.post_run_cell, Result(raised({"<ipython-input-2-b>": RAISES}, CALL)))
    assert out.startswith("\njax-codemod: this error is one it fixes\n") and "JAX101" in out
    assert "--- a/" not in out and "%jax_codemod fix" not in out


def test_per_file_ignores_of_the_session_apply(shell, tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text(f'[tool.jax-codemod]\njax-version = "{TARGET}"\n'
                                             'per-file-ignores = {{ "*.ipynb" = ["JAX101"] }}\n'.replace("{{", "{")
                                             .replace("}}", "}"))
    cells(shell, IMPORT, DOUBLE, CALL)
    magics = ip.JaxCodemodMagics(shell)
    out = printed(magics.post_run_cell, Result(raised({"<ipython-input-2-b>": RAISES}, CALL)))
    assert "JAX101" in out and "--- a/" not in out


def test_a_helper_named_by_another_machines_path_is_found_under_the_current_folder(shell, tmp_path: Path):
    helper = tmp_path / "helper_mod.py"
    helper.write_text("import jax\n\n\ndef double(t):\n    return jax.tree_map(lambda a: 2 * a, t)\n")
    cells(shell, "from helper_mod import double\n", "x = 1\n", CALL)
    magics = ip.JaxCodemodMagics(shell)
    stand_in = "\n\n\ndef double(t):\n    raise AttributeError(\"module 'jax' has no attribute 'tree_map'\")\n"
    out = printed(magics.post_run_cell, Result(raised({"/elsewhere/build/helper_mod.py": stand_in}, CALL)))
    assert "helper_mod.py\n+++ b/" in out and "+    return jax.tree.map(lambda a: 2 * a, t)\n" in out


# %jax_codemod fix


@pytest.mark.parametrize("line", ["", "fix it", "help"])
def test_the_line_magic_usage(shell, line: str):
    magics = ip.JaxCodemodMagics(shell)
    assert printed(magics.jax_codemod, line) == (
        "usage: %jax_codemod fix  (the last error's fixed cell in the next input); "
        "%%jax_codemod on a cell checks it without running it\n")


def test_fix_before_any_error(shell):
    magics = ip.JaxCodemodMagics(shell)
    assert printed(magics.jax_codemod, " fix ") == "jax-codemod: no error to fix yet (run the cell that fails first)\n"
    assert shell.offered == []


def test_fix_offers_the_fixed_cell(shell):
    cells(shell, IMPORT, DOUBLE, CALL)
    magics = ip.JaxCodemodMagics(shell)
    printed(magics.post_run_cell, Result(raised({"<ipython-input-2-b>": RAISES}, CALL)))
    assert printed(magics.jax_codemod, "fix") == ""
    assert shell.offered == [(FIXED, False)]


def test_fix_offers_every_fixed_cell_in_order(shell):
    two = "def twice(t):\n    return jax.tree_map(lambda a: 2 * a, t)\n"
    cells(shell, IMPORT, DOUBLE, two, "double({}); twice({})\n")
    magics = ip.JaxCodemodMagics(shell)
    stand_in = "def twice(t):\n    raise AttributeError(\"module 'jax' has no attribute 'tree_map'\")\n"
    text = "".join(__import__("traceback").format_exception(raised({"<ipython-input-3-b>": stand_in}, "twice({})\n")))
    text += "".join(__import__("traceback").format_exception(raised({"<ipython-input-2-b>": RAISES}, "double({})\n")))
    magics.last_error = text
    assert printed(magics.jax_codemod, "fix") == ""
    assert shell.offered == [(FIXED + "\n\n" + two.replace("tree_map", "tree.map").rstrip("\n"), False)]


def test_fix_of_an_error_with_nothing_to_fix(shell):
    cells(shell, IMPORT, "x = 1\n\ny = 2\n", CALL)
    magics = ip.JaxCodemodMagics(shell)
    printed(magics.post_run_cell, Result(raised({"<ipython-input-2-b>": RAISES}, CALL)))
    assert printed(magics.jax_codemod, "fix") == \
        "jax-codemod: no fix to offer for the last error (see the notes printed after it)\n"
    assert shell.offered == []


def test_fix_of_an_error_in_a_file(shell, tmp_path: Path):
    helper = tmp_path / "helper_mod.py"
    helper.write_text("import jax\n\n\ndef double(t):\n    return jax.tree_map(lambda a: 2 * a, t)\n")
    cells(shell, "from helper_mod import double\n", "x = 1\n", CALL)
    magics = ip.JaxCodemodMagics(shell)
    stand_in = "\n\n\ndef double(t):\n    raise AttributeError(\"module 'jax' has no attribute 'tree_map'\")\n"
    out = printed(magics.post_run_cell, Result(raised({str(helper): stand_in}, CALL)))
    assert "helper_mod.py\n+++ b/" in out and "+    return jax.tree.map(lambda a: 2 * a, t)\n" in out
    assert printed(magics.jax_codemod, "fix") == \
        f"jax-codemod: the fix is in {helper.name}, not in a cell: apply the diff printed after the error\n"
    assert shell.offered == []
    assert "tree_map" in helper.read_text()  # shown, never written


# %%jax_codemod


def test_the_cell_magic_with_nothing_to_change(shell):
    cells(shell, IMPORT)
    magics = ip.JaxCodemodMagics(shell)
    assert printed(magics.check_cell, "", "y = 2\n") == "jax-codemod: nothing to change in this cell\n"


def test_the_cell_magic_shows_the_cells_findings_and_diff(shell):
    cells(shell, IMPORT, "z = jax.tree_map(str, [2])\n")
    magics = ip.JaxCodemodMagics(shell)
    assert printed(magics.check_cell, "", "y = jax.tree_map(str, [1])\n") == (
        f"In [3]:1:5: {FINDING}\n"
        "--- a/In [3]\n+++ b/In [3]\n@@ -1 +1 @@\n-y = jax.tree_map(str, [1])\n+y = jax.tree.map(str, [1])\n")


def test_the_cell_magic_leaves_out_its_own_history_entry(shell):
    cells(shell, IMPORT, "%%jax_codemod\ny = jax.tree_map(str, [1])\n")
    magics = ip.JaxCodemodMagics(shell)
    out = printed(magics.check_cell, "", "y = jax.tree_map(str, [1])\n")
    assert out.startswith(f"In [2]:1:5: {FINDING}\n--- a/In [2]\n")
    cells(shell, IMPORT, "  %%jax_codemod\nq = 1\n")
    assert printed(magics.check_cell, "", "y = jax.tree_map(str, [1])\n").startswith("In [2]:1:5: ")
    cells(shell, IMPORT, "%%time\nq = 1\n")
    assert printed(magics.check_cell, "", "y = jax.tree_map(str, [1])\n").startswith("In [3]:1:5: ")
    cells(shell)
    assert printed(magics.check_cell, "", "import jax\ny = jax.tree_map(str, [1])\n").startswith("In [1]:2:5: ")


def test_the_cell_magic_on_a_cell_that_does_not_parse(shell):
    cells(shell, IMPORT)
    magics = ip.JaxCodemodMagics(shell)
    assert printed(magics.check_cell, "", "y = jax.tree_map(\n") == \
        "jax-codemod: cannot parse: '(' was never closed (cell 2, line 1, column 17)\n"


# A cell that failed with a SyntaxError stays in IPython's history: it must not make the rest of the
# session unreadable (it did: every later error printed "could not explain this error (SyntaxError:
# ...)", and %%jax_codemod raised the SyntaxError).


def test_parses_and_readable():
    assert ip._parses("x = 1\n") and ip._parses("") and ip._parses("%time x = 1\n") and ip._parses("!ls\n")
    assert ip._parses("%%bash\nls (\n")
    assert not ip._parses("x = (\n") and not ip._parses("if x:\n") and not ip._parses("x = 1 \\")
    assert not ip._parses("x = '\0'\x00\n")
    assert ip._readable(["a = 1\n", "x = (\n", "if x:", "%time b = 2"]) == ["a = 1\n", "", "", "%time b = 2"]
    assert ip._readable([]) == []


def test_an_earlier_cell_that_does_not_parse_is_left_empty(shell):
    cells(shell, IMPORT, "x = (\n", DOUBLE, "if x:\n", CALL)
    notebook = ip.session_notebook(shell)
    assert [cell["source"] for cell in json.loads(notebook.raw)["cells"]] == [IMPORT, "", DOUBLE, "", CALL]
    assert notebook.counts == {1: 1, 2: 2, 3: 3, 4: 4, 5: 5}
    # cells given are taken as they are
    assert [cell["source"] for cell in json.loads(ip.session_notebook(shell, ["x = 1\n"]).raw)["cells"]] == ["x = 1\n"]


def test_an_error_after_a_cell_that_did_not_parse_is_still_explained(shell):
    cells(shell, IMPORT, "x = (\n", DOUBLE, CALL)
    magics = ip.JaxCodemodMagics(shell)
    out = printed(magics.post_run_cell, Result(raised({"<ipython-input-3-b>": RAISES}, CALL)))
    assert out.startswith("\njax-codemod: this error is one it fixes\nIn [3]:2: JAX101: ")
    assert "--- a/In [3]\n+++ b/In [3]\n" in out
    assert printed(magics.jax_codemod, "fix") == ""
    assert shell.offered == [(FIXED, False)]


def test_the_cell_magic_after_a_cell_that_did_not_parse(shell):
    cells(shell, IMPORT, "x = (\n", "%%jax_codemod\ny = jax.tree_map(str, [1])\n")
    magics = ip.JaxCodemodMagics(shell)
    assert printed(magics.check_cell, "", "y = jax.tree_map(str, [1])\n") == (
        f"In [3]:1:5: {FINDING}\n"
        "--- a/In [3]\n+++ b/In [3]\n@@ -1 +1 @@\n-y = jax.tree_map(str, [1])\n+y = jax.tree.map(str, [1])\n")
    assert printed(magics.check_cell, "", "y = 2\n") == "jax-codemod: nothing to change in this cell\n"


def test_the_cell_magic_shows_an_unsafe_fix_it_could_not_apply(shell):
    imports = ("import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n"
               "from jax.experimental.pallas import tpu as pltpu\n")
    cells(shell, imports)
    cell = ("def kernel_exp(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\n"
            "\n\nexp_call = pl.pallas_call(kernel_exp, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))\n")
    magics = ip.JaxCodemodMagics(shell)
    out = printed(magics.check_cell, "", cell)
    lines = out.splitlines()
    assert lines[0].startswith("In [2]:2:") and " JAX002 [" in lines[0] and "unsafe" in lines[0]
    assert "--- a/In [2]" in out and "+++ b/In [2]" in out
    assert "<ipython>.ipynb" not in out
    assert out.endswith("\n")


def test_the_cell_magic_reports_only_this_cells_findings(shell):
    cells(shell, IMPORT + "z = jax.tree_map(str, [2])\n")
    magics = ip.JaxCodemodMagics(shell)
    assert printed(magics.check_cell, "", "y = 2\n") == "jax-codemod: nothing to change in this cell\n"


# loading and unloading


def test_load_and_unload(shell):
    before = list(shell.events.callbacks["post_run_cell"])
    ip.load_ipython_extension(shell)
    magics = shell._jax_codemod_magics
    assert isinstance(magics, ip.JaxCodemodMagics) and magics.shell is shell and magics.last_error is None
    assert shell.events.callbacks["post_run_cell"] == [*before, magics.post_run_cell]
    assert shell.magics_manager.magics["line"]["jax_codemod"].__self__ is magics
    assert shell.magics_manager.magics["cell"]["jax_codemod"].__self__ is magics
    ip.unload_ipython_extension(shell)
    assert shell.events.callbacks["post_run_cell"] == before
    assert not hasattr(shell, "_jax_codemod_magics")
    assert "jax_codemod" not in shell.magics_manager.magics["line"]  # no magic left calling a dead object
    assert "jax_codemod" not in shell.magics_manager.magics["cell"]
    ip.unload_ipython_extension(shell)  # twice: nothing to do
    assert shell.events.callbacks["post_run_cell"] == before
