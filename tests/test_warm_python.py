"""tests/warm_python.py runs a program as a fresh interpreter would: the same exit status, stdout and
stderr (a traceback included, byte for byte), seen from the same folder, argv, sys.path[0] and
environment; past its timeout it is killed. The jax tests rely on it for their proofs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import warm_python


def jax_env() -> dict[str, str]:
    """The jax tests' environment, now (with pytest's name for this test): its server is theirs too."""
    return {**os.environ, "JAX_PLATFORMS": "cpu"}


PROGRAM = """\
import os, sys
print(sys.argv, sys.path[0], __name__, __file__, os.getcwd(), os.environ.get("PYTEST_CURRENT_TEST"))
print("to stderr", file=sys.stderr)
import json
if sys.argv[1] == "raise":
    def inner():
        raise ValueError("from the program")
    inner()
if sys.argv[1] == "exit-text":
    sys.exit("said on exit")
sys.exit(int(sys.argv[1]))
"""


def both(argv: list[str], cwd: Path, env: dict[str, str], options: tuple[str, ...] = ()
         ) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    """The program run by a fresh interpreter, then by the warm one."""
    fresh = subprocess.run([sys.executable, *options, *argv], capture_output=True, text=True, cwd=cwd, env=env,
                           timeout=120)
    return fresh, warm_python.run(argv, options=options, cwd=cwd, env=env, timeout=120)


@pytest.mark.parametrize("how", ["raise", "exit-text", "0", "3"])
def test_a_script_runs_as_in_a_fresh_interpreter(how: str, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "program.py").write_text(PROGRAM)
    fresh, warm = both(["sub/program.py", how], tmp_path, jax_env())
    assert (warm.returncode, warm.stdout, warm.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    # the environment of this call (pytest's name for the test changes from one to the next)
    assert f"[{how}]" in warm.stdout and str(tmp_path / "sub") in warm.stdout
    assert warm.returncode == {"raise": 1, "exit-text": 1, "0": 0, "3": 3}[how]


def test_a_command_runs_as_in_a_fresh_interpreter(tmp_path: Path) -> None:
    code = "import sys; print(sys.argv, repr(sys.path[0]), __name__); 1 / 0"
    fresh, warm = both(["-c", code, "an argument"], tmp_path, jax_env())
    assert (warm.returncode, warm.stdout, warm.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert "ZeroDivisionError" in warm.stderr and "warm python server" not in warm.stderr


def test_a_jax_program_lowers_in_the_fork(tmp_path: Path) -> None:
    pytest.importorskip("jax")
    code = "import jax, jax.numpy as jnp; print(jax.jit(lambda x: x * 2)(jnp.arange(3.0)))"
    fresh, warm = both(["-c", code], tmp_path, jax_env())
    assert warm.returncode == fresh.returncode == 0, warm.stderr
    assert warm.stdout == fresh.stdout == "[0. 2. 4.]\n"


def test_a_program_past_its_timeout_is_killed(tmp_path: Path) -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        warm_python.run(["-c", "import time; time.sleep(60)"], cwd=tmp_path, env=jax_env(), timeout=1)
    assert warm_python.run(["-c", "print('next')"], cwd=tmp_path, env=jax_env()).stdout == "next\n"  # the server goes on


def test_where_the_import_warns_each_program_runs_in_a_fresh_interpreter(tmp_path: Path) -> None:
    """A warning while the server imports jax is the program's to see: it is then exec'd, so that
    its own filters (here -W error) decide, as they would without the server."""
    (tmp_path / "jax.py").write_text("import warnings\nwarnings.warn('old', DeprecationWarning)\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}  # a `jax` that warns on import
    program = tmp_path / "program.py"
    program.write_text("import jax\nprint('imported')\n")
    fresh, warm = both([str(program)], tmp_path, env, options=("-W", "error::DeprecationWarning"))
    assert fresh.returncode == 1 and "DeprecationWarning: old" in fresh.stderr, fresh.stderr
    assert (warm.returncode, warm.stdout, warm.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)


def test_the_servers_end_with_the_tests_leaving_no_file_open(tmp_path: Path) -> None:
    """A process that used a server exits without a ResourceWarning (`-X dev` shows every one): the
    server's stdout pipe was left open, and `pytest -m jax` ended with `sys:1: ResourceWarning:
    unclosed file <_io.TextIOWrapper ...>` (issue 49, item 13)."""
    user = "from tests import warm_python\nprint(warm_python.run(['-c', 'print(6 * 7)']).stdout, end='')\n"
    result = subprocess.run([sys.executable, "-X", "dev", "-W", "error::ResourceWarning", "-c", user],
                            capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1], timeout=120,
                            env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert (result.returncode, result.stdout, result.stderr) == (0, "42\n", "")
