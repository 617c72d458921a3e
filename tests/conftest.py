"""Shared pytest wiring: the golden-file update switch, and a result cache of the session's own."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_result_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The CLI's result cache (codemods/engine/cache.py) goes to a folder of this session: tests
    never read entries left by other runs, nor leave any in the user's cache."""
    os.environ["JAX_CODEMOD_CACHE_DIR"] = str(tmp_path_factory.mktemp("result-cache"))


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
