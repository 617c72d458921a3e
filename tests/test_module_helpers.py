"""Where a helper lands in a module, and the reference source it comes from.

No jax here: the helpers are only inserted, never run (tests/test_accuracy_jax.py runs them).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from codemods.analysis.module_helpers import REFERENCE_SOURCE, Helper, reference_helper
from codemods.base import JaxTransform
from codemods.engine.diagnostics import Kind
from codemods.engine.fixes import FixPlan
from codemods.engine.rule import Rule
from codemods.engine.runner import process_source
from codemods.settings import Scope, Settings

IDENTITY = Helper("identity", "def {name}(x):\n    return x\n")


class _CallsIdentity(JaxTransform):
    """Routes every `target(...)` through the identity helper, one fix per call."""

    def plan(self) -> None:
        for call in self.module.calls:
            if isinstance(call.func, ast.Name) and call.func.id == "target":
                fix = FixPlan()
                self.replace(fix, call.func, self.use_helper(fix, IDENTITY))
                self.report(call, Kind.FIXED, "routed", fix)


CALLS_IDENTITY = Rule("TEST", "calls-identity", "test double", "", "", "", (b"target",), False, _CallsIdentity.check)


def rewrite(source: str) -> str:
    result = process_source(Path("case.py"), source.encode(), [CALLS_IDENTITY], Settings(scope=Scope.ALL))
    assert result.error is None, result.error
    return result.after or source


@pytest.mark.parametrize(
    "source, expected",
    [
        pytest.param(
            "y = target(1)\n",
            "def identity(x):\n    return x\n\n\ny = identity(1)\n",
            id="no imports: the file opens with the def, no blank lines above it",
        ),
        pytest.param(
            '"""Docs."""\ny = target(1)\n',
            '"""Docs."""\n\n\ndef identity(x):\n    return x\n\n\ny = identity(1)\n',
            id="after the docstring",
        ),
        pytest.param(
            "import os\n\n# Settings.\ny = target(os.sep)\n",
            "import os\n\n\ndef identity(x):\n    return x\n\n\n# Settings.\ny = identity(os.sep)\n",
            id="two blank lines before a comment that opens the next statement",
        ),
        pytest.param(
            "import os\n\n\ndef identity(x):\n    return x\n\n\ny = target(os.sep)\n",
            "import os\n\n\ndef identity(x):\n    return x\n\n\ny = identity(os.sep)\n",
            id="already there: reused",
        ),
        pytest.param(
            "identity = None\ny = target(1) + target(2)\n",
            "def identity_2(x):\n    return x\n\n\nidentity = None\ny = identity_2(1) + identity_2(2)\n",
            id="name taken: a free one, defined once",
        ),
        pytest.param(
            "import os; import sys\ny = target(os.sep)\n",
            "import os; import sys\n\n\ndef identity(x):\n    return x\n\n\ny = identity(os.sep)\n",
            id="imports on one line: after them",
        ),
    ],
)
def test_helper_insertion(source: str, expected: str) -> None:
    assert rewrite(source) == expected


def test_reference_helper_is_the_reference_source() -> None:
    """The inserted code is helpers_source.py's def, and its imports are the ones its body uses."""
    source = (Path(__file__).resolve().parents[1] / "codemods" / REFERENCE_SOURCE).read_text()
    helper = reference_helper("rsqrt_safe")
    assert helper.code("rsqrt_safe") in source
    assert helper.needs == (("jax", "lax", None),)
    assert helper.code("rsqrt_safe_2").startswith("def rsqrt_safe_2(x):")
