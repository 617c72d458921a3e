"""The transforms under other runners (codemods/interop): libcst's own `python -m libcst.tool codemod`
and Bowler, run for real on files on disk. Each must write exactly the bytes `jax-codemod` writes
(the engine's `process_source`), leave files with nothing to change alone, and skip what it cannot read.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from codemods.engine.report import FileResult
from codemods.engine.runner import process_source
from codemods.rules.accuracy_hints import RULE as ACCURACY_HINTS
from codemods.rules.bf16_lstm import RULE as BF16_LSTM
from codemods.rules.per_operand_precision import RULE as PER_OPERAND_PRECISION
from codemods.registry import RULES
from codemods.settings import Settings

REPO = Path(__file__).resolve().parents[1]
TARGET = "0.12.0.1"
SETTINGS = Settings(jax_version=(0, 12, 0, 1))

KERNEL = """\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
"""

# One finding per transform: JAX001 (per-operand dot), JAX002 (rsqrt accuracy hint), JAX003 (bf16 LSTM).
ALL_THREE = """\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental import rnn


def kernel(x_ref, y_ref, o_ref):
    y = lax.rsqrt(y_ref[...], accuracy=lax.AccuracyMode.HIGHEST)
    o_ref[...] = jnp.dot(x_ref[...], y, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))


def encode(x, h_0, c_0, w, lengths):
    return rnn.lstm(x, h_0, c_0, w, lengths, 32, 64, 1, 0.0, False, precision=lax.Precision.DEFAULT)
"""

# Passes the byte prefilter and is analysed, but already lowers: nothing to change.
CLEAN = KERNEL.replace("(lax.Precision.DEFAULT, lax.Precision.HIGHEST)", "lax.Precision.HIGHEST")

# A kernel in a PEP 263 latin-1 file with a non-ASCII byte: the rewrite must keep the encoding.
LATIN1 = ("# -*- coding: latin-1 -*-\n# café\n" + KERNEL).encode("latin-1")

# Syntax lib2to3 (Bowler) cannot parse; libcst and the engine (match: Python >= 3.10) can.
MATCH = KERNEL + "\n\ndef shape_of(x):\n    match x:\n        case (n, m):\n            return n * m\n        case _:\n            return 0\n"
GENERICS = KERNEL + "\n\ndef f[T](x: T) -> T: ...\n"
PEP695_PARSES = sys.version_info >= (3, 12)


def expected(path: Path, raw: bytes, rules=RULES) -> FileResult:
    """What `jax-codemod --jax-version 0.12.0.1` does to this file (the oracle both runners must match)."""
    result = process_source(path, raw, rules, SETTINGS)
    assert result.error is None, result.error
    return result


def write_tree(root: Path, files: dict[str, bytes]) -> dict[Path, bytes]:
    root.mkdir(parents=True, exist_ok=True)
    written = {}
    for name, data in files.items():
        (root / name).write_bytes(data)
        written[root / name] = data
    return written


# -- libcst: python -m libcst.tool codemod ------------------------------------------------------

COMMANDS = {
    "JaxCodemod": RULES,
    "PerOperandPrecision": (PER_OPERAND_PRECISION,),
    "AccuracyHints": (ACCURACY_HINTS,),
    "Bf16Lstm": (BF16_LSTM,),
}


@pytest.fixture
def libcst_tool():
    """`python -m libcst.tool` run in a folder whose .libcst.codemod.yaml lists `codemods.interop`."""
    pytest.importorskip("libcst.tool", reason="libcst.tool (libcst's codemod runner) is not importable")

    def run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
        (cwd / ".libcst.codemod.yaml").write_text("modules: ['codemods.interop']\n")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
        return subprocess.run(
            [sys.executable, "-m", "libcst.tool", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
        )

    return run


@pytest.mark.parametrize("command", COMMANDS)
def test_libcst_tool_writes_what_the_cli_writes(tmp_path: Path, libcst_tool, command: str) -> None:
    files = {
        "kernel.py": KERNEL.encode(), "all_three.py": ALL_THREE.encode(), "clean.py": CLEAN.encode(),
        "latin1.py": LATIN1, "match.py": MATCH.encode(),
    }
    if PEP695_PARSES:  # libcst parses for the running Python's grammar
        files["generics.py"] = GENERICS.encode()
    originals = write_tree(tmp_path / "src", files)
    wanted = {path: expected(path, raw, COMMANDS[command]) for path, raw in originals.items()}

    run = libcst_tool(
        tmp_path, "codemod", f"libcst_commands.{command}", "--no-format", "--hide-progress", "--jax-version", TARGET, "src",
    )

    assert run.returncode == 0, run.stderr
    assert "Failed to codemod 0 files" in run.stderr
    for path, raw in originals.items():
        want = wanted[path].new_source or raw
        assert path.read_bytes() == want, f"{command} on {path.name}:\n{run.stderr}"
        for finding in wanted[path].findings:  # our findings are libcst warnings, per file
            assert f"{path.name}:{finding.line}:{finding.column}: {finding.code} [{finding.kind.value}]" in run.stderr
    assert originals[tmp_path / "src" / "clean.py"] == (tmp_path / "src" / "clean.py").read_bytes()
    changed = {path.name for path in originals if wanted[path].new_source is not None}
    assert changed == {
        "JaxCodemod": {"kernel.py", "all_three.py", "latin1.py", "match.py", "generics.py"} & set(files),
        "PerOperandPrecision": {"kernel.py", "all_three.py", "latin1.py", "match.py", "generics.py"} & set(files),
        "AccuracyHints": {"all_three.py"},
        "Bf16Lstm": {"all_three.py"},
    }[command]


def test_libcst_tool_lists_the_four_commands(tmp_path: Path, libcst_tool) -> None:
    run = libcst_tool(tmp_path, "list")

    assert run.returncode == 0, run.stderr
    listed = {line.split(" - ")[0] for line in run.stdout.splitlines()}
    assert {f"libcst_commands.{name}" for name in COMMANDS} <= listed
    assert "libcst_commands.JaxCodemodCommand" not in listed  # the base class is not a command


def test_libcst_command_in_process_and_error_mapping(monkeypatch: pytest.MonkeyPatch) -> None:
    from libcst.codemod import CodemodContext, TransformFailure, TransformSkip, TransformSuccess, transform_module

    from codemods.interop import _shared
    from codemods.interop.libcst_commands import JaxCodemod

    path = Path("src/kernel.py")
    want = expected(path, KERNEL.encode())
    result = transform_module(JaxCodemod(CodemodContext(filename=str(path)), jax_version=TARGET), KERNEL)
    assert isinstance(result, TransformSuccess)
    assert result.code == want.after
    assert result.warning_messages == [finding.render(str(path)) for finding in want.findings]

    def engine_says(**fields):
        monkeypatch.setattr(_shared, "process_source", lambda path, raw, rules, settings, facts: FileResult(str(path), **fields))
        return transform_module(JaxCodemod(CodemodContext(filename=str(path)), jax_version=TARGET), KERNEL)

    skipped = engine_says(error="cannot parse: invalid syntax (line 1, column 1)")  # not a file for us: skip
    assert isinstance(skipped, TransformSkip) and "cannot parse" in skipped.skip_description
    failed = engine_says(parsed=True, error="internal error in JAX001: KeyError: 'x'")  # our bug: fail the file
    assert isinstance(failed, TransformFailure) and "internal error in JAX001" in str(failed.error)


# -- Bowler ---------------------------------------------------------------------------------------

@pytest.fixture
def bowler_files(tmp_path: Path) -> dict[Path, bytes]:
    pytest.importorskip("bowler", reason="Bowler is not installed (pip install 'jax-codemod[bowler]')")
    return write_tree(tmp_path / "src", {
        "kernel.py": KERNEL.encode(), "all_three.py": ALL_THREE.encode(), "clean.py": CLEAN.encode(),
        "match.py": MATCH.encode(), "generics.py": GENERICS.encode(),
    })


def _ready_query(src: Path, report):
    from codemods.interop.bowler_modifier import query

    return query(src, settings=SETTINGS, report=report)


def _own_query(src: Path, report):
    from bowler import Query

    from codemods.interop.bowler_modifier import JaxCodemodModifier

    return Query(str(src)).select_root().modify(JaxCodemodModifier(settings=SETTINGS, report=report))


@pytest.mark.parametrize("make_query", [_ready_query, _own_query], ids=["query()", "Query.modify"])
def test_bowler_writes_what_the_cli_writes_and_skips_what_lib2to3_cannot_parse(
    bowler_files: dict[Path, bytes], make_query, caplog: pytest.LogCaptureFixture,
) -> None:
    src = next(iter(bowler_files)).parent
    reported: list[str] = []
    wanted = {path: process_source(path, raw, RULES, SETTINGS) for path, raw in bowler_files.items()}

    # Non-interactive write; in_process=True keeps the work in this process (Bowler's default on
    # Python >= 3.8, said explicitly so a change of default cannot fork pytest).
    with caplog.at_level(logging.ERROR):
        done = make_query(src, reported.append).execute(write=True, interactive=False, silent=True, in_process=True)

    assert done.retcode == 0 and done.exceptions == []
    for name in ("kernel.py", "all_three.py"):
        path = src / name
        assert wanted[path].new_source is not None
        assert path.read_bytes() == wanted[path].new_source, name
        assert [line for line in reported if line.startswith(str(path))] == [f.render(str(path)) for f in wanted[path].findings]
    for name in ("clean.py", "match.py", "generics.py"):
        assert (src / name).read_bytes() == bowler_files[src / name], f"{name} must be left untouched"
    # The files Bowler skipped are ones jax-codemod itself rewrites: the limit is lib2to3's grammar.
    assert wanted[src / "match.py"].new_source is not None
    if PEP695_PARSES:
        assert wanted[src / "generics.py"].new_source is not None
    assert not [line for line in reported if "match.py" in line or "generics.py" in line]  # never reached the modifier
    assert "Can't parse" in caplog.text and "match.py" in caplog.text and "generics.py" in caplog.text


def test_bowler_dry_run_writes_nothing(bowler_files: dict[Path, bytes]) -> None:
    src = next(iter(bowler_files)).parent

    done = _ready_query(src, lambda line: None).execute(write=False, interactive=False, silent=True, in_process=True)

    assert done.retcode == 0
    assert {path: path.read_bytes() for path in bowler_files} == bowler_files


def test_bowler_modifier_refuses_a_node_below_the_root(bowler_files: dict[Path, bytes]) -> None:
    from bowler import Query

    from codemods.interop.bowler_modifier import JaxCodemodModifier

    kernel = next(iter(bowler_files))
    done = (
        Query(str(kernel)).select_function("kernel").modify(JaxCodemodModifier(settings=SETTINGS, report=lambda line: None))
        .execute(write=True, interactive=False, silent=True, in_process=True)
    )

    assert done.retcode == 1 and "select_root" in str(done.exceptions[0])
    assert kernel.read_bytes() == bowler_files[kernel]


# -- a project of several modules: both runners read the project index `jax-codemod` reads --------

PROJECT = {
    "pyproject.toml": b"[tool.jax-codemod]\n",
    # A pair written in one module and read by a kernel of another: fixed where it is written.
    "consts.py": b"from jax import lax\n\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
    # A helper that a kernel and plain XLA code both call: its hint is XLA's to honour, so not even an
    # unsafe fix may drop it (a file run alone took it for kernel code only: a new user's trial, W1).
    "shared.py": b"from jax import lax\n\n\ndef smooth(x):\n    return lax.tanh(x, accuracy=lax.AccuracyMode.HIGHEST)\n",
    "kern.py": b"""\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from consts import PAIR
from shared import smooth


def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = smooth(jnp.dot(x_ref[...], y_ref[...], precision=PAIR))


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
""",
    "reference.py": b"from shared import smooth\n\n\ndef reference(x):\n    return smooth(x)\n",
}


def cli_writes(tmp_path: Path) -> dict[str, bytes]:
    """What `jax-codemod --write --unsafe-fixes` leaves in a copy of PROJECT (the oracle)."""
    root = tmp_path / "cli"
    write_tree(root, PROJECT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    run = subprocess.run([sys.executable, "-m", "codemods", "--jax-version", TARGET, "--write", "--unsafe-fixes", "."],
                         cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    written = {name: (root / name).read_bytes() for name in PROJECT}
    assert written["consts.py"] != PROJECT["consts.py"], run.stdout  # the pair is fixed where it is written
    assert written["shared.py"] == PROJECT["shared.py"], run.stdout  # the shared hint is kept
    return written


def test_libcst_tool_on_a_project_writes_what_the_cli_writes(tmp_path: Path, libcst_tool) -> None:
    want = cli_writes(tmp_path)
    root = tmp_path / "libcst"
    write_tree(root, PROJECT)

    run = libcst_tool(root, "codemod", "libcst_commands.JaxCodemod", "--no-format", "--hide-progress",
                      "--jax-version", TARGET, "--unsafe-fixes", ".")

    assert run.returncode == 0, run.stderr
    assert {name: (root / name).read_bytes() for name in PROJECT} == want, run.stderr


def test_bowler_on_a_project_writes_what_the_cli_writes(tmp_path: Path) -> None:
    pytest.importorskip("bowler", reason="Bowler is not installed (pip install 'jax-codemod[bowler]')")
    from codemods.interop.bowler_modifier import query

    want = cli_writes(tmp_path)
    root = tmp_path / "bowler"
    write_tree(root, PROJECT)

    done = query(root, settings=replace(SETTINGS, unsafe_fixes=True), report=lambda line: None).execute(
        write=True, interactive=False, silent=True, in_process=True)

    assert done.retcode == 0 and done.exceptions == []
    assert {name: (root / name).read_bytes() for name in PROJECT} == want
