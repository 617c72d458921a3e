"""The command that adds an extra (`server`, `dask`, ...) to the tool as it is installed.

jax-codemod has no PyPI release: `pip install 'jax-codemod[server]'` finds nothing there, or another
project's package of that name. The command names where this copy was installed from (PEP 610's
`direct_url.json`: the clone's folder, `-e` where it was installed editable) and the Python the tool
runs on, which is the environment a pipx install made for it.
"""

from __future__ import annotations

import json
import sys
from importlib import metadata
from urllib.parse import unquote, urlparse

UNKNOWN_SOURCE = "/path/to/jax-codemod"  # the README's spelling, where the install does not say


def install_command(extra: str) -> str:
    """`python -m pip install '<where the tool came from>[extra]'`, for this interpreter."""
    source, editable = UNKNOWN_SOURCE, False
    try:
        direct = json.loads(metadata.distribution("jax-codemod").read_text("direct_url.json") or "{}")
    except (metadata.PackageNotFoundError, ValueError):
        direct = {}
    url = urlparse(direct.get("url", "")) if isinstance(direct, dict) else urlparse("")
    if url.scheme == "file" and url.path:
        source = unquote(url.path)
        editable = bool((direct.get("dir_info") or {}).get("editable"))
    return f"{sys.executable} -m pip install {'-e ' if editable else ''}'{source}[{extra}]'"
