"""One conversion between a text's character offsets and the line/column positions each output speaks.

Findings and fixes count in characters of the original text (`Finding.line`/`column` 1-based,
`TextEdit.start`/`end` offsets). Each consumer wants its own convention, and every format takes it
from here, so that a finding and its fix can never be counted two ways:

| consumer                         | lines   | columns                    | end       |
| -------------------------------- | ------- | -------------------------- | --------- |
| text, json, github, SARIF, junit | 1-based | 1-based, characters        | exclusive |
| rdjson (reviewdog)               | 1-based | 1-based, UTF-8 bytes       | exclusive |
| LSP (the server)                 | 0-based | 0-based, UTF-16 code units | exclusive |

A line ends after its "\\n"; the end of a text that ends in a newline is column 1 (0) of the line
after its last.
"""

from __future__ import annotations

import bisect
import re

CHARACTERS, UTF8, UTF16 = "characters", "utf-8", "utf-16"


def units(chunk: str, unit: str) -> int:
    """The length of `chunk` in `unit`s (lone surrogates, as surrogateescape leaves them, count as one)."""
    if unit == UTF8:
        return len(chunk.encode("utf-8", "surrogatepass"))
    if unit == UTF16:
        return len(chunk) + sum(ord(c) > 0xFFFF for c in chunk)
    return len(chunk)


class Positions:
    """A text's offsets against (line, column) pairs in a given base and unit."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [match.end() for match in re.finditer("\n", text)]

    def line_index(self, offset: int) -> int:
        """The 0-based line an offset (clamped to the text) is on."""
        return bisect.bisect_right(self.starts, max(0, min(offset, len(self.text)))) - 1

    def position(self, offset: int, *, base: int = 1, unit: str = CHARACTERS) -> tuple[int, int]:
        """(line, column) of an offset, both counted from `base`, the column in `unit`s."""
        offset = max(0, min(offset, len(self.text)))
        line = self.line_index(offset)
        return line + base, units(self.text[self.starts[line]:offset], unit) + base

    def offset(self, line: int, column: int) -> int:
        """The offset of a 1-based line and 1-based character column (as findings give them), clamped."""
        if line < 1:
            return 0
        if line > len(self.starts):
            return len(self.text)
        return min(self.starts[line - 1] + max(column, 1) - 1, len(self.text))

    def line_end(self, offset: int) -> int:
        """The offset of the end of the offset's line, before its newline."""
        end = self.text.find("\n", offset)
        return len(self.text) if end < 0 else end
