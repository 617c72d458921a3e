"""Reading and writing source files without losing a byte the user did not ask us to change.

Encoding (PEP 263 cookie or BOM) and line endings are kept: text is decoded exactly as Python
would, edited, and encoded back with the same codec; libcst keeps each line's own newline.
"""

from __future__ import annotations

import codecs
import io
import os
import re
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
        return encode_keeping(self.raw, self.text, text, self.encoding)


def decode(path: Path, raw: bytes) -> SourceFile:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        text = raw.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise SourceError(f"cannot decode: {error}") from None
    return SourceFile(path, raw, text, encoding)


def read_text(path: Path) -> str:
    """The text of a Python file as Python reads it (BOM, coding cookie); SourceError or OSError if not."""
    return decode(path, path.read_bytes()).text


def utf8_code(raw: bytes) -> bytes:
    """A file's code as UTF-8 bytes without a BOM: what the byte tests (the prefilter, the project
    index's searches and parse) read. A UTF-8 file without a BOM, nearly all of them, is `raw`
    itself; a BOM is dropped (the statement after it starts the file); a file whose coding cookie
    names another codec is decoded (utf-7 or hz may spell `import jax` in bytes that do not say it).
    A file that cannot be decoded is `raw`: its own processing reports why."""
    if raw.startswith(codecs.BOM_UTF8):
        return raw[len(codecs.BOM_UTF8):]
    second_line_end = raw.find(b"\n", raw.find(b"\n") + 1)
    if b"coding" not in (raw if second_line_end == -1 else raw[:second_line_end]):  # PEP 263: line 1 or 2
        return raw
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        return raw if encoding == "utf-8" else raw.decode(encoding).encode("utf-8")
    except (SyntaxError, LookupError, UnicodeError):
        return raw


def encode_keeping(raw: bytes, old: str, new: str, encoding: str) -> bytes:
    """`new` (an edit of `old`, the text `raw` decodes to) in the file's codec, each line the edit
    did not change kept as `raw` spells it. A codec may spell one text in more than one way (utf-7's
    optional `-`, the duplicate codes of cp932): encoding the whole text again would respell lines
    nobody edited. Raises UnicodeError where the lines of `raw` do not decode one by one to those
    of `old` (a codec whose state crosses lines), rather than change a byte outside the edit."""
    if old.encode(encoding) == raw:  # the codec spells `old` as `raw`: so it spells the unchanged lines
        return new.encode(encoding)
    raw_lines = raw.splitlines(keepends=True)
    old_lines = [line.decode(encoding) for line in raw_lines]
    if old_lines != _LINE.findall(old):
        raise UnicodeError(f"{encoding} cannot spell the rewritten file without changing lines the fix leaves alone")
    new_lines = _LINE.findall(new)
    same_start = next((i for i, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b), min(len(old_lines), len(new_lines)))
    same_end = 0
    while same_end < min(len(old_lines), len(new_lines)) - same_start and \
            old_lines[-1 - same_end] == new_lines[-1 - same_end]:
        same_end += 1
    edited = "".join(new_lines[same_start:len(new_lines) - same_end]).encode(encoding)
    return b"".join(raw_lines[:same_start]) + edited + b"".join(raw_lines[len(raw_lines) - same_end:])


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")  # lines as bytes.splitlines(keepends=True) cuts them


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
    import tempfile  # here: a run that writes nothing never imports it (nor random)

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
