"""Shared pytest wiring: the golden-file update switch, and a result cache of the session's own."""

from __future__ import annotations

import os
import sys

import pytest

# XLA's CPU code generation at its lowest optimisation level, for the tests and the interpreters they
# start: each test compiles small programs and runs them once, so compiling costs far more than
# running (half of tests/test_lstm_jax.py's time). What the tests check (a program lowers, runs,
# keeps its dtypes, matches its reference within tolerance) does not depend on how well the CPU
# code is optimised. A level the user sets in XLA_FLAGS wins.
if "--xla_backend_optimization_level" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_backend_optimization_level=0".strip()


@pytest.fixture(autouse=True, scope="session")
def _private_result_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The CLI's result cache (codemods/engine/cache.py) goes to a folder of this session: tests
    never read entries left by other runs, nor leave any in the user's cache."""
    os.environ["JAX_CODEMOD_CACHE_DIR"] = str(tmp_path_factory.mktemp("result-cache"))


@pytest.fixture(autouse=True)
def _no_leaked_process_state():
    """A test that leaves the process in another folder, or with another import path, fails here
    (and they are put back): under pytest-xdist the tests that run after it in the same worker
    depend on the order the workers happened to take them in, which CI's run does not repeat."""
    folder, path = os.getcwd(), list(sys.path)
    yield
    leaked = [f"the current folder ({os.getcwd()})"] if os.getcwd() != folder else []
    leaked += [f"sys.path ({sorted(set(sys.path) ^ set(path))})"] if sys.path != path else []
    os.chdir(folder)
    sys.path[:] = path
    assert not leaked, f"the test changed {' and '.join(leaked)} without putting it back (use monkeypatch)"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: takes minutes (builds a virtualenv with pip); -m 'not slow' skips it")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        help="Rewrite tests/fixtures/**/*.out.py and *.findings from the current transforms; review the diff.",
    )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))
