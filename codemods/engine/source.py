"""Reading and writing source files without losing a byte the user did not ask us to change.

Encoding (PEP 263 cookie or BOM) and line endings are kept: text is decoded exactly as Python
would, edited, and encoded back with the same codec; libcst keeps each line's own newline.
"""

from __future__ import annotations

import io
import os
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path


class SourceError(Exception):
    """A file we cannot read as Python source; the message says why, for the report."""


@dataclass(frozen=True)
class SourceFile:
    path: Path
    raw: bytes
    text: str
    encoding: str  # as `tokenize.detect_encoding` names it: 'utf-8-sig' keeps a BOM

    def encode(self, text: str) -> bytes:
        return text.encode(self.encoding)


def decode(path: Path, raw: bytes) -> SourceFile:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        text = raw.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise SourceError(f"cannot decode: {error}") from None
    return SourceFile(path, raw, text, encoding)


def write_atomically(path: Path, data: bytes) -> None:
    """Replace `path` with `data` so that readers see the old file or the new one, never half of it.

    The temporary file lives in the same folder (rename is atomic only within a filesystem) and
    takes the original's permission bits before it replaces it.
    """
    path = Path(os.path.realpath(path))  # through a symlink: replace its target, keep the link
    mode = os.stat(path).st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".jax-codemod.tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
