"""The result cache: an unchanged file is answered from it, anything that could change the answer misses.

Nothing here imports jax.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from codemods import registry
from codemods.engine import runner
from codemods.engine.cache import ResultCache
from codemods.engine.diagnostics import Kind
from codemods.settings import Scope, Settings

REPO = Path(__file__).resolve().parents[1]
KERNEL = b'''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=("default", "highest"))
    o_ref[...] += lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
'''
SETTINGS = Settings((0, 12, 0, 1))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "kernel.py").write_bytes(KERNEL)
    return tmp_path


def _run(project: Path, cache: ResultCache, settings: Settings = SETTINGS, rules=registry.RULES):
    return runner.run([project / "src"], rules, settings, 1, cache)


def _poison(cache_dir: Path) -> int:
    """Rewrite every entry's message, so an answer that came from the cache can be told apart."""
    entries = list(cache_dir.rglob("*.json"))
    for entry in entries:
        data = json.loads(entry.read_text())
        for finding in data["findings"]:
            finding["message"] = "FROM THE CACHE"
        entry.write_text(json.dumps(data))
    return len(entries)


def test_second_run_is_answered_from_the_cache_with_the_same_result(project: Path, tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    first = _run(project, cache)
    assert first[0].new_source is not None and first[0].findings[0].kind is Kind.FIXED
    again = _run(project, cache)
    assert [(r.new_source, r.findings, r.error, r.raw) for r in again] == \
        [(r.new_source, r.findings, r.error, r.raw) for r in first]
    assert _poison(tmp_path / "cache") == 1
    assert _run(project, cache)[0].findings[0].message == "FROM THE CACHE"


def test_an_edited_file_or_other_options_miss(project: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    _run(project, ResultCache(cache_dir, SETTINGS))
    _poison(cache_dir)
    for settings in (Settings((0, 10, 2)), Settings((0, 12, 0, 1), Scope.ALL)):
        result = _run(project, ResultCache(cache_dir, settings), settings)[0]
        assert result.findings[0].message != "FROM THE CACHE", settings
    only_jax001 = registry.select(["JAX001"])
    result = runner.run([project / "src"], only_jax001, SETTINGS, 1, ResultCache(cache_dir, SETTINGS))[0]
    assert [f.code for f in result.findings] == ["JAX001"] and result.findings[0].message != "FROM THE CACHE"
    (project / "src" / "kernel.py").write_bytes(KERNEL.replace(b"x_ref[...], x_ref", b"x_ref[...],  x_ref"))
    assert _run(project, ResultCache(cache_dir, SETTINGS))[0].findings[0].message != "FROM THE CACHE"


def test_a_broken_entry_is_analysed_again(project: Path, tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    first = _run(project, cache)
    for entry in (tmp_path / "cache").rglob("*.json"):
        entry.write_text("{not json")
    assert _run(project, cache)[0].new_source == first[0].new_source


def test_cli_no_cache_neither_reads_nor_writes(project: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    env = {"JAX_CODEMOD_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    command = [sys.executable, "-m", "codemods", "--jax-version", "0.12.0.1", "src"]
    plain = subprocess.run([*command, "--no-cache"], cwd=project, env=env, capture_output=True)
    assert plain.returncode == 1 and not cache_dir.exists()
    first = subprocess.run(command, cwd=project, env=env, capture_output=True)
    assert (first.returncode, first.stdout, first.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    assert _poison(cache_dir) == 1
    cached = subprocess.run(command, cwd=project, env=env, capture_output=True)
    assert b"FROM THE CACHE" in cached.stderr
    fresh = subprocess.run([*command, "--no-cache"], cwd=project, env=env, capture_output=True)
    assert fresh.stderr == plain.stderr


def test_an_entry_is_written_into_a_folder_an_earlier_entry_made(project: Path, tmp_path: Path) -> None:
    """Entries share their two-character folders: one that exists already takes the next entry."""
    cache_dir = tmp_path / "cache"
    for prefix in range(256):
        (cache_dir / f"{prefix:02x}").mkdir(parents=True)
    _run(project, ResultCache(cache_dir, SETTINGS))
    assert _poison(cache_dir) == 1


def test_a_cache_write_that_fails_leaves_no_temporary_and_fails_nothing(project: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry that cannot be put in place (a full disk; a temporary another process's cleanup
    already removed) is dropped: the run's result is whole and the cache folder holds no leftover."""
    import os

    from codemods.engine import cache as cache_module

    replace = os.replace

    def failing_replace(source, target):
        if Path(target).is_relative_to(tmp_path / "cache"):
            Path(source).unlink()  # gone before the cleanup looks for it
            raise OSError(28, "No space left on device")
        return replace(source, target)

    monkeypatch.setattr(cache_module.os, "replace", failing_replace)
    cache = ResultCache(tmp_path / "cache", SETTINGS)
    result = _run(project, cache)[0]
    assert result.new_source is not None and result.error is None
    assert not [path for path in (tmp_path / "cache").rglob("*") if path.is_file()]


def test_an_entry_is_written_beside_its_place_not_in_the_system_temporary_folder(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The temporary is made in the entry's own folder, so the rename into place stays on one file
    system (a cache on another disk than /tmp) and a system temporary folder we cannot use costs nothing."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no such folder"))
    _run(project, ResultCache(tmp_path / "cache", SETTINGS))
    assert _poison(tmp_path / "cache") == 1
