"""x64 turned on in another module (JAX005): jax_enable_x64 is process-wide, so a kernel module whose
own code never turns it on runs under x64 when `main.py` does. The project index tells each module
where another module may turn it on (ModuleFacts.x64_elsewhere); JAX005 then fixes the defaults that
are 64-bit under x64 (exact without x64: jax uses those 32-bit dtypes then) and says where."""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

from codemods import registry
from codemods.engine.cache import ResultCache
from codemods.engine.discovery import discover
from codemods.engine.runner import run
from codemods.settings import Settings
from tests import jax_support
from tests.test_foreign_kernels import lowering_error

SETTINGS = Settings(jax_support.JAX_VERSION, unsafe_fixes=True)
_FILES = {
    "__init__.py": "",
    "main.py": """
        import jax

        jax.config.update("jax_enable_x64", True)

        from pkg.entry import run
    """,
    "launch.py": """
        import jax
        from jax.experimental import pallas as pl

        def launch(body, x):
            return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(1,))(x)
    """,
    "entry.py": """
        from pkg.kmod import body
        from pkg.launch import launch

        def run(x):
            return launch(body, x)
    """,
    "kmod.py": """
        import jax.numpy as jnp

        def body(x_ref, o_ref):
            best = jnp.argmax(x_ref[...], axis=1)
            cols = jnp.arange(128)
            acc = jnp.zeros(o_ref.shape)
            o_ref[...] = (acc + best[:, None] + cols[None, :]).astype(o_ref.dtype)
    """,
}


def _write(root: Path, files: dict[str, str]) -> Path:
    folder = root / "pkg"
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip())
    return folder


def _lowering_error(root: Path) -> "str | None":
    return lowering_error(root, "pkg.main")  # it turns x64 on, then imports pkg.entry's run


def _findings(folder: Path, cache: "Path | None" = None):
    results = run([folder], registry.select(["JAX005"]), SETTINGS, jobs=1, project=discover([folder]),
                  cache=ResultCache(cache, SETTINGS) if cache is not None else None)
    assert all(result.error is None for result in results), [result.error for result in results]
    return results, sorted((Path(result.path).name, finding.line, finding.message)
                           for result in results for finding in result.findings)


def test_a_kernel_under_x64_turned_on_in_another_module_is_fixed(tmp_path: Path) -> None:
    folder = _write(tmp_path, _FILES)
    assert "index_dtype" in (_lowering_error(tmp_path) or ""), _lowering_error(tmp_path)
    results, findings = _findings(folder)
    assert [(name, line) for name, line, _ in findings] == [("kmod.py", 4), ("kmod.py", 5), ("kmod.py", 6)], findings
    assert all("x64 is turned on in `pkg.main` line 3" in message for *_, message in findings), findings
    for result in results:
        if result.new_source is not None:
            Path(result.path).write_bytes(result.new_source)
    assert _lowering_error(tmp_path) is None, findings


def test_turning_x64_on_in_another_module_changes_a_warm_run(tmp_path: Path) -> None:
    """An edit of main.py alone (x64 on, then off) changes kmod.py's findings on a warm run."""
    off = {**_FILES, "main.py": _FILES["main.py"].replace("True", "False")}
    folder = _write(tmp_path, off)
    cache = tmp_path / "cache"
    assert _findings(folder, cache)[1] == []
    past = time.time() - 1000  # mtimes the cache trusts
    for step, files in enumerate([_FILES, off]):
        _write(tmp_path, {"main.py": files["main.py"]})
        os.utime(folder / "main.py", (past + step, past + step))
        warm = _findings(folder, cache)[1]
        assert warm == _findings(folder, tmp_path / f"cold-{step}")[1]
        assert len(warm) == (3 if files is _FILES else 0), warm


def test_x64_turned_on_where_no_import_reaches_the_kernel_is_not_taken(tmp_path: Path) -> None:
    """A module that turns x64 on but imports nothing that reaches the kernel, and that no module
    imports (another package's conftest.py in the same tree), runs in no process the kernel runs in."""
    folder = _write(tmp_path, {**_FILES, "main.py": _FILES["main.py"].replace("from pkg.entry import run", "")})
    assert _findings(folder)[1] == []


def test_a_warm_run_takes_what_each_module_imports_from_the_state_until_an_import_changes(
        tmp_path: Path, monkeypatch) -> None:
    """Whether main.py may share kmod.py's process is read from what every module imports, kept in
    the project state with the parts it was read from: main.py's own import lines, and what the
    package it imports a name from re-exports under that name. A warm run after an edit of neither
    reads no module's imports; after an edit of either, what it says is what a cold run says (main
    imports `run` from the package, which re-exports the launching entry's, then the launcher's)."""
    from codemods.analysis.project.resolution import NameResolution

    folder = _write(tmp_path, {**_FILES, "main.py": _FILES["main.py"].replace("from pkg.entry import run", "")})
    cache = tmp_path / "cache"
    assert _findings(folder, cache)[1] == []
    read, imported_names = [], NameResolution._imported_names
    monkeypatch.setattr(NameResolution, "_imported_names",
                        lambda index, module, shallow: (shallow or read.append(module.name)) and imported_names(
                            index, module, shallow) or imported_names(index, module, shallow))
    past = time.time() - 1000  # mtimes the cache trusts
    reexported = "from pkg.entry import run\n"
    steps = [({"kmod.py": textwrap.dedent(_FILES["kmod.py"]) + "# a comment\n"}, 0),
             ({"main.py": _FILES["main.py"]}, 3),
             ({"main.py": _FILES["main.py"].replace("pkg.entry", "pkg"), "__init__.py": reexported}, 3),
             ({"__init__.py": "from pkg.launch import launch as run\n"}, 0),
             ({"__init__.py": reexported}, 3)]
    for step, (edits, expected) in enumerate(steps):
        _write(tmp_path, edits)
        for name in edits:
            os.utime(folder / name, (past + step, past + step))
        read.clear()
        warm = _findings(folder, cache)[1]
        if step == 0:
            assert read == [], read  # nothing an import depends on changed
        assert warm == _findings(folder, tmp_path / f"cold-{step}")[1]
        assert len(warm) == expected, (step, warm)
