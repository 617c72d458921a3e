"""Reading and writing source files without losing a byte the user did not ask us to change.

Encoding (PEP 263 cookie or BOM) and line endings are kept: text is decoded exactly as Python
would, edited, and encoded back with the same codec; libcst keeps each line's own newline.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
import threading
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Optional


class SourceError(Exception):
    """A file we cannot read as Python source; the message says why, for the report."""


# Where a parse error is, as its message says it: `cannot parse: invalid syntax (line 3, column 9)`.
ERROR_POSITION = re.compile(r"\(line (?P<line>\d+), column (?P<column>\d+)\)")


def error_position(message: str) -> Optional[tuple[int, int]]:
    """The 1-based line and column an error's message names (a parse error's), else None."""
    found = ERROR_POSITION.search(message)
    return (int(found["line"]), int(found["column"])) if found else None


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


# Our temporary files: `.<name>.<pid>-<random>.jax-codemod.tmp`, next to the file they replace. The
# pid of the process that made one says whether it is stale (a SIGKILL between its creation and the
# rename leaves it behind): see `remove_stale_temporaries`.
_TEMPORARY_SUFFIX = ".jax-codemod.tmp"
_TEMPORARY = re.compile(r"\A\..+\.(?P<pid>[1-9][0-9]{0,9})-[a-z0-9_]+" + re.escape(_TEMPORARY_SUFFIX) + r"\Z", re.S)
_swept: set[str] = set()  # folders this process has already cleaned
_swept_lock = threading.Lock()


def write_atomically(path: Path, data: bytes) -> None:
    """Replace `path` with `data` so that readers see the old file or the new one, never half of it.

    The temporary file lives in the same folder (rename is atomic only within a filesystem) and
    takes the original's permission bits before it replaces it. A write that fails removes it and
    leaves the original as it was; the first write of a run into a folder removes the temporary
    files that killed runs left there.
    """
    path = Path(os.path.realpath(path))  # through a symlink: replace its target, keep the link
    mode = os.stat(path).st_mode & 0o7777
    _sweep_once(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}-", suffix=_TEMPORARY_SUFFIX, dir=path.parent)
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
        except OSError:  # the write's own error is the one to report
            pass
        raise


def _sweep_once(folder: Path) -> None:
    key = str(folder)
    with _swept_lock:
        if key in _swept:
            return
        _swept.add(key)
    remove_stale_temporaries(folder)


def remove_stale_temporaries(folder: Path) -> list[str]:
    """Remove from `folder` the temporary files of ours whose process is gone; the names removed.

    Only regular files named as `write_atomically` names them, and only when no process with the
    pid in the name is alive (one that is, whatever it is, keeps its file). Never fails: a folder
    or file we cannot list or remove is left as it is."""
    if os.name == "nt":  # os.kill(pid, 0) would terminate the process there
        return []
    removed = []
    try:
        with os.scandir(folder) as entries:
            candidates = [entry for entry in entries if entry.name.endswith(_TEMPORARY_SUFFIX)]
    except OSError:
        return []
    for entry in candidates:
        match = _TEMPORARY.match(entry.name)
        try:
            if match is None or not entry.is_file(follow_symlinks=False) or _alive(int(match["pid"])):
                continue
            os.unlink(entry.path)
        except OSError:
            continue
        removed.append(entry.name)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # PermissionError: alive, someone else's; anything else: assume alive
        return True
    return True
