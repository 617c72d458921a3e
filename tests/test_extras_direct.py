"""codemods/extras.py: the command that adds an extra names where this copy of the tool came from.

jax-codemod has no PyPI release, so the `pip install 'jax-codemod[server]'` the messages said found
nothing there (or another project's package); a user who installed it with pipx from a clone tripped
over it. No jax, no subprocess.
"""

from __future__ import annotations

import sys
from importlib import metadata

import pytest

from codemods import extras


class _Installed:
    def __init__(self, direct_url: "str | None") -> None:
        self.direct_url = direct_url

    def read_text(self, name: str) -> "str | None":
        assert name == "direct_url.json"
        return self.direct_url


@pytest.mark.parametrize(("direct_url", "command"), [
    ('{"url": "file:///home/me/jax-codemod", "dir_info": {}}', "'/home/me/jax-codemod[server]'"),
    ('{"url": "file:///home/me/jax%20codemod", "dir_info": {"editable": true}}', "-e '/home/me/jax codemod[server]'"),
    ('{"url": "https://example.com/jax_codemod-0.1.0.tar.gz", "archive_info": {}}', "'/path/to/jax-codemod[server]'"),
    (None, "'/path/to/jax-codemod[server]'"),  # installed without PEP 610's record
    ("not json", "'/path/to/jax-codemod[server]'"),
])
def test_install_command_names_where_the_tool_came_from(direct_url, command: str, monkeypatch) -> None:
    monkeypatch.setattr(extras.metadata, "distribution", lambda name: _Installed(direct_url))
    assert extras.install_command("server") == f"{sys.executable} -m pip install {command}"


def test_install_command_without_the_distribution(monkeypatch) -> None:
    def missing(name: str):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(extras.metadata, "distribution", missing)
    assert extras.install_command("dask") == f"{sys.executable} -m pip install '/path/to/jax-codemod[dask]'"
