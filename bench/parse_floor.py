"""The least any tool built on the stdlib parser pays for these rules over a tree, to set a tree's
timing beside: every `.py` file read, the rules' own byte test run (without project facts), and each
file that passes it parsed with `ast.parse`, nothing else. `bench/run.py` times it next to grep.

    python bench/parse_floor.py PATH...
"""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from codemods.engine.prefilter import rules_for  # noqa: E402
from codemods.registry import RULES  # noqa: E402
from codemods.settings import Settings  # noqa: E402


def main(roots: list[str]) -> None:
    settings = Settings()
    parsed = 0
    for root in roots:
        for folder, _, names in os.walk(root):
            for name in names:
                if name.endswith(".py"):
                    with open(os.path.join(folder, name), "rb") as handle:
                        raw = handle.read()
                    if rules_for(raw, RULES, settings):
                        try:
                            ast.parse(raw)
                        except (SyntaxError, ValueError):
                            pass
                        parsed += 1
    print(f"{parsed} files parsed")


if __name__ == "__main__":
    main(sys.argv[1:])
