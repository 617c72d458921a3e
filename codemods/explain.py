"""`jax-codemod explain`: from the traceback a user just got to the call that failed, and its fix.

JAX prints, above the exception, the user's own frames that produced the failing operation
(`JaxStackTraceBeforeTransformation`). The error names the rule (by its message), and the innermost
user frame that holds a matching call is the call to fix: proof that it runs in a kernel on a backend
that rejects it, even where the static kernel-scope analysis cannot see the kernel (a helper imported
from another module, a kernel reached through a registry, a launcher wrapped in the user's own
function). There the rule applies as if the kernel had been found; every other safety rule holds.

Log paths may come from another machine or checkout: a path that does not exist here is matched on
the longest suffix that exists under the root (`/ci/build/src/pkg/kernel.py` -> `src/pkg/kernel.py`).
A frame whose file is missing, or whose line no longer holds such a call (the file changed since the
traceback), is reported, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from codemods.analysis.module import ModuleIndex

# The errors the rules fix, by the words JAX uses (and their variants across releases).
ERRORS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("JAX001", re.compile(r"Per-operand (?:dot|conv) precision unsupported|Unsupported (?:dot|conv) precision: \w+")),
    ("JAX002", re.compile(r"Not implemented: accuracy")),
    ("JAX003", re.compile(r"bfloat16 support not implemented for LSTM")),
)
_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<function>.+?)\s*$')
_TRACEBACK = re.compile(r"^\s*Traceback \(most recent call last\):\s*$")
_EXCEPTION = re.compile(r"^(?:[\w.]+(?:Error|Exception|Transformation|Warning)|[\w.]+Error)\b.*:")
# Frames of jax itself (and of Python's machinery) never hold the user's call.
_LIBRARY = re.compile(r"[/\\](?:jax|jaxlib)[/\\](?:_src|experimental|interpreters|mlir)?|<frozen |^<")


@dataclass(frozen=True)
class Frame:
    path: str
    line: int
    function: str
    code: Optional[str]  # the source line the traceback quotes, when it does


@dataclass
class JaxError:
    rule: str
    message: str
    frames: list[Frame]  # outermost first, as Python prints them


@dataclass
class Placement:
    error: JaxError
    path: Optional[Path] = None  # the file and line of the call to fix, when placed
    line: int = 0
    reasons: list[str] = field(default_factory=list)  # why frames were passed over


def parse_log(text: str) -> list[JaxError]:
    """Every traceback in `text` that ends in an error one of the rules fixes.

    JAX prints one error twice (the user's frames, then jax's own): both come back; `place`
    settles on the first that points at a call, and `explain` reports each call once."""
    errors: list[JaxError] = []
    frames: list[Frame] = []
    lines = text.splitlines()
    in_traceback = False
    for index, line in enumerate(lines):
        if _TRACEBACK.match(line):
            frames, in_traceback = [], True
            continue
        frame = _FRAME.match(line)
        if frame and in_traceback:
            following = lines[index + 1] if index + 1 < len(lines) else ""
            code = following.strip() if following.startswith((" ", "\t")) and not _FRAME.match(following) else None
            frames.append(Frame(frame["path"], int(frame["line"]), frame["function"], code or None))
            continue
        if in_traceback and _EXCEPTION.match(line.strip()) and not line.startswith((" ", "\t")):
            for rule, pattern in ERRORS:
                match = pattern.search(line)
                if match:
                    errors.append(JaxError(rule, match.group(), frames))
                    break
            in_traceback = False
    return errors


def resolve(path: str, root: Path) -> Optional[Path]:
    """The file a log path names here: itself, else the longest suffix of it that exists under `root`."""
    direct = Path(path)
    if direct.is_file():
        return direct
    parts = Path(path.replace("\\", "/")).parts
    for start in range(1, len(parts)):
        candidate = root.joinpath(*parts[start:])
        if candidate.is_file():
            return candidate
    return None


def place(error: JaxError, root: Path, holds_call) -> Placement:
    """The innermost user frame whose line holds a call `error.rule` would rewrite.

    `holds_call(rule, module, line) -> bool` is the rule's own test (codemods.explain_rules)."""
    placement = Placement(error)
    for frame in reversed(error.frames):
        if _LIBRARY.search(frame.path):
            continue
        path = resolve(frame.path, root)
        if path is None:
            placement.reasons.append(f"{frame.path}:{frame.line} ({frame.function}): the file is not here")
            continue
        try:
            text = path.read_text(encoding="utf-8")
            module = ModuleIndex.parse(text)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError) as problem:
            placement.reasons.append(f"{path}:{frame.line}: cannot read it ({problem})")
            continue
        current = text.splitlines()[frame.line - 1].strip() if frame.line <= len(text.splitlines()) else None
        if frame.code is not None and current is not None and current != frame.code:
            placement.reasons.append(f"{path}:{frame.line}: changed since the traceback "
                                     f"(it showed `{frame.code}`, the file now has `{current}`)")
            continue
        if holds_call(error.rule, module, frame.line):
            placement.path, placement.line = path, frame.line
            return placement
        placement.reasons.append(f"{path}:{frame.line} ({frame.function}): no call there that {error.rule} rewrites")
    return placement
