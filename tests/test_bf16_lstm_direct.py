"""codemods/rules/bf16_lstm.py (JAX003) run in the test's process (issue 35, item 3: mutation testing).

Each case runs JAX003 alone through `process_source` on a small module and checks the exact text it
becomes and every finding whole (line, column, kind, message, applicability): the precision read by
position (shifted by one in a `functools.partial`) or keyword, the levels cuDNN accepts (the first of
a pair), `*args`/`**kwargs`, values that are no literal and the DotAlgorithm values let through, and
a precision left out or None under the module's default matmul precision (`jax.config.update`,
`with jax.default_matmul_precision(...)`, innermost first within the function, any bf16 one
winning), spelled HIGHEST like a `Precision.X` the call can see, else in the string's vocabulary.
Nothing here imports jax.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from codemods import registry
from codemods.analysis.module import ModuleIndex
from codemods.analysis.names import root_name
from codemods.engine.rule import ParsedFile
from codemods.engine.runner import process_source
from codemods.rules.bf16_lstm import RULE, Bf16Lstm, _attributes_in_source_order
from codemods.settings import Settings

TARGET = Settings((0, 12, 0, 1), helpers_module="h")
ERROR = '("bfloat16 support not implemented for LSTM")'
HINT = "cast x, h_0, c_0 and weights to float32 and pass precision=HIGHEST"
WARNING = (f"rnn.lstm: precision None may fail under a bf16 default precision (jax_default_matmul_precision='bfloat16' "
           f"raises {ERROR[1:-1]}); if so, {HINT}")
STAR = f"rnn.lstm: *args or **kwargs may carry precision DEFAULT, which cuDNN rejects {ERROR}; if so, {HINT}"


def _fixed(what: str) -> str:
    return (f"rnn.lstm: {what} -> HIGHEST, through lstm_float32 (float32 inputs, outputs in the inputs' dtypes): "
            f"cuDNN has no bf16 LSTM {ERROR}")


def _not_literal(text: str) -> str:
    return (f"rnn.lstm: precision `{text}` is not a literal; if it can be DEFAULT ('bfloat16'), cuDNN raises "
            f"{ERROR[1:-1]}: {HINT}")


def _run(source: str, settings: Settings = TARGET):
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX003"]), settings)
    assert result.error is None, result.error
    return (result.after or None,  # "": nothing changed
            [(f.line, f.column, f.kind.value, f.message, f.fix.applicability.value if f.fix else None)
             for f in result.findings])


CASES = [
    ('positional-bfloat16', "from jax.experimental import rnn\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, 'bfloat16')\n",
     "from jax.experimental import rnn\nfrom h import lstm_float32\n\ny = lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, 'float32')\n",
     [(2, 5, 'fixed', _fixed('precision DEFAULT'), 'safe')]),
    ('keyword-enum', 'from jax import lax\nfrom jax.experimental import rnn\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, precision=lax.Precision.DEFAULT)\n',
     'from jax import lax\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\ny = lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, precision=lax.Precision.HIGHEST)\n',
     [(3, 5, 'fixed', _fixed('precision DEFAULT'), 'safe')]),
    ('fastest', "from jax.experimental import rnn\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, precision='fastest')\n",
     "from jax.experimental import rnn\nfrom h import lstm_float32\n\ny = lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, precision='highest')\n",
     [(2, 5, 'fixed', _fixed('precision DEFAULT'), 'safe')]),
    ('pair-led-by-default', 'from jax import lax\nfrom jax.experimental import rnn\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n',
     'from jax import lax\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\ny = lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, precision=lax.Precision.HIGHEST)\n',
     [(3, 5, 'fixed', _fixed('precision (DEFAULT, HIGHEST)'), 'safe')]),
    ('pair-led-by-highest', 'from jax import lax\nfrom jax.experimental import rnn\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT))\n',
     None,
     []),
    ('high', "from jax.experimental import rnn\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, precision='high')\n",
     None,
     []),
    ('highest-positional', "from jax.experimental import rnn\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, 'highest')\n",
     None,
     []),
    ('partial-positional', "import functools\nfrom jax.experimental import rnn\nf = functools.partial(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, 'bfloat16')\n",
     "import functools\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\nf = functools.partial(lstm_float32, rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, 'float32')\n",
     [(3, 5, 'fixed', _fixed('precision DEFAULT'), 'safe')]),
    ('partial-keyword', "import functools\nfrom jax.experimental import rnn\nf = functools.partial(rnn.lstm, input_size=8, precision='default')\n",
     "import functools\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\nf = functools.partial(lstm_float32, rnn.lstm, input_size=8, precision='highest')\n",
     [(3, 5, 'fixed', _fixed('precision DEFAULT'), 'safe')]),
    ('partial-ten-positional', 'import functools\nfrom jax.experimental import rnn\nf = functools.partial(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False)\n',
     None,
     [(3, 5, 'warning', WARNING, None)]),
    ('star-args', 'from jax.experimental import rnn\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, *a)\n',
     None,
     [(2, 5, 'manual', STAR, None)]),
    ('double-star', 'from jax.experimental import rnn\ny = rnn.lstm(x, h, c, w, n, **kw)\n',
     None,
     [(2, 5, 'manual', STAR, None)]),
    ('star-with-keyword', "from jax.experimental import rnn\ny = rnn.lstm(*a, precision='bfloat16')\n",
     "from jax.experimental import rnn\nfrom h import lstm_float32\n\ny = lstm_float32(rnn.lstm, *a, precision='float32')\n",
     [(2, 5, 'fixed', _fixed('precision DEFAULT'), 'safe')]),
    ('star-with-highest', "from jax.experimental import rnn\ny = rnn.lstm(*a, precision='highest')\n",
     None,
     []),
    ('variable', 'from jax.experimental import rnn\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, p)\n',
     None,
     [(2, 51, 'manual', _not_literal('p'), None)]),
    ('variable-over-lines', "from jax.experimental import rnn\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, precision=pick(\n    'a',\n    'b'))\n",
     None,
     [(2, 61, 'manual', _not_literal("pick('a', 'b')"), None)]),
    ('algorithm-preset', 'import jax\nfrom jax.experimental import rnn\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, precision=jax.lax.DotAlgorithmPreset.BF16_BF16_F32)\n',
     None,
     []),
    ('algorithm', 'import jax\nfrom jax.experimental import rnn\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, precision=jax.lax.DotAlgorithm(a, b, c))\n',
     None,
     [(3, 61, 'manual', _not_literal('jax.lax.DotAlgorithm(a, b, c)'), None)]),
    ('algorithm-imported', 'from jax.lax import DotAlgorithmPreset as D\nfrom jax.experimental import rnn\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, precision=D.F32_F32_F32)\n',
     None,
     []),
    ('omitted', 'from jax.experimental import rnn\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n',
     None,
     [(2, 5, 'warning', WARNING, None)]),
    ('none-keyword', 'from jax.experimental import rnn\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, precision=None)\n',
     None,
     [(2, 5, 'warning', WARNING, None)]),
    ('config-bf16', "import jax\nfrom jax.experimental import rnn\njax.config.update('jax_default_matmul_precision', 'bfloat16')\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     "import jax\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\njax.config.update('jax_default_matmul_precision', 'bfloat16')\ny = lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, precision='float32')\n",
     [(4, 5, 'fixed', _fixed('precision None under the bf16 default matmul precision set on line 3'), 'safe')]),
    ('config-default-none-keyword', "import jax\nfrom jax.experimental import rnn\njax.config.update('jax_default_matmul_precision', 'default')\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, precision=None)\n",
     "import jax\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\njax.config.update('jax_default_matmul_precision', 'default')\ny = lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, precision='highest')\n",
     [(4, 5, 'fixed', _fixed('precision None under the bf16 default matmul precision set on line 3'), 'safe')]),
    ('config-none-positional', "import jax\nfrom jax.experimental import rnn\njax.config.update('jax_default_matmul_precision', 'bfloat16')\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, None)\n",
     "import jax\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\njax.config.update('jax_default_matmul_precision', 'bfloat16')\ny = lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, 'float32')\n",
     [(4, 5, 'fixed', _fixed('precision None under the bf16 default matmul precision set on line 3'), 'safe')]),
    ('config-float32', "import jax\nfrom jax.experimental import rnn\njax.config.update('jax_default_matmul_precision', 'float32')\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     None,
     []),
    ('config-other-option', "import jax\nfrom jax.experimental import rnn\njax.config.update('jax_enable_x64', 'bfloat16')\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     None,
     [(4, 5, 'warning', WARNING, None)]),
    ('config-three-arguments', "import jax\nfrom jax.experimental import rnn\njax.config.update('jax_default_matmul_precision', 'bfloat16', 1)\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     None,
     [(4, 5, 'warning', WARNING, None)]),
    ('config-not-literal', "import jax\nfrom jax.experimental import rnn\njax.config.update('jax_default_matmul_precision', p)\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     None,
     [(4, 5, 'warning', WARNING, None)]),
    ('config-float32-then-bf16', "import jax\nfrom jax.experimental import rnn\njax.config.update('jax_default_matmul_precision', 'float32')\njax.config.update('jax_default_matmul_precision', 'bfloat16')\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     "import jax\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\njax.config.update('jax_default_matmul_precision', 'float32')\njax.config.update('jax_default_matmul_precision', 'bfloat16')\ny = lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, precision='float32')\n",
     [(5, 5, 'fixed', _fixed('precision None under the bf16 default matmul precision set on line 4'), 'safe')]),
    ('config-bf16-then-float32', "import jax\nfrom jax.experimental import rnn\njax.config.update('jax_default_matmul_precision', 'bfloat16')\njax.config.update('jax_default_matmul_precision', 'float32')\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     "import jax\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\njax.config.update('jax_default_matmul_precision', 'bfloat16')\njax.config.update('jax_default_matmul_precision', 'float32')\ny = lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, precision='float32')\n",
     [(5, 5, 'fixed', _fixed('precision None under the bf16 default matmul precision set on line 3'), 'safe')]),
    ('with-bf16', "import jax\nfrom jax.experimental import rnn\ndef f():\n    with jax.default_matmul_precision('bfloat16'):\n        return rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     "import jax\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\ndef f():\n    with jax.default_matmul_precision('bfloat16'):\n        return lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, precision='float32')\n",
     [(5, 16, 'fixed', _fixed('precision None under the bf16 default matmul precision set on line 4'), 'safe')]),
    ('with-bf16-elsewhere', "import jax\nfrom jax.experimental import rnn\ndef f():\n    with jax.default_matmul_precision('bfloat16'):\n        pass\n    return rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     "import jax\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\ndef f():\n    with jax.default_matmul_precision('bfloat16'):\n        pass\n    return lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, precision='float32')\n",
     [(6, 12, 'fixed', _fixed('precision None under the bf16 default matmul precision set on line 4'), 'safe')]),
    ('with-two-arguments', "import jax\nfrom jax.experimental import rnn\ndef f():\n    with jax.default_matmul_precision('bfloat16', 1):\n        return rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     None,
     [(5, 16, 'warning', WARNING, None)]),
    ('context-not-in-with', "import jax\nfrom jax.experimental import rnn\nctx = jax.default_matmul_precision('bfloat16')\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     None,
     [(4, 5, 'warning', WARNING, None)]),
    ('with-float32-in-bf16', "import jax\nfrom jax.experimental import rnn\ndef f():\n    with jax.default_matmul_precision('bfloat16'):\n        with jax.default_matmul_precision('float32'):\n            return rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     None,
     []),
    ('with-bf16-in-float32', "import jax\nfrom jax.experimental import rnn\ndef f():\n    with jax.default_matmul_precision('float32'):\n        with jax.default_matmul_precision('bfloat16'):\n            return rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     "import jax\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\ndef f():\n    with jax.default_matmul_precision('float32'):\n        with jax.default_matmul_precision('bfloat16'):\n            return lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, precision='float32')\n",
     [(6, 20, 'fixed', _fixed('precision None under the bf16 default matmul precision set on line 5'), 'safe')]),
    ('with-float32-under-bf16-config', "import jax\nfrom jax.experimental import rnn\njax.config.update('jax_default_matmul_precision', 'bfloat16')\ndef f():\n    with jax.default_matmul_precision('float32'):\n        return rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     None,
     []),
    ('with-around-the-def', "import jax\nfrom jax.experimental import rnn\njax.config.update('jax_default_matmul_precision', 'bfloat16')\nwith jax.default_matmul_precision('float32'):\n    def f():\n        return rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     "import jax\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\njax.config.update('jax_default_matmul_precision', 'bfloat16')\nwith jax.default_matmul_precision('float32'):\n    def f():\n        return lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, precision='float32')\n",
     [(6, 16, 'fixed', _fixed('precision None under the bf16 default matmul precision set on line 3'), 'safe')]),
    ('with-float32-only-config-float32', "import jax\nfrom jax.experimental import rnn\njax.config.update('jax_default_matmul_precision', 'float32')\ndef f():\n    with jax.default_matmul_precision('float32'):\n        pass\n    return rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     None,
     []),
    ('with-float32-only', "import jax\nfrom jax.experimental import rnn\ndef f():\n    with jax.default_matmul_precision('float32'):\n        pass\n    return rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     None,
     [(6, 12, 'warning', WARNING, None)]),
    ('spelled-like-an-attribute', "import jax\nfrom jax import lax\nfrom jax.experimental import rnn\njax.config.update('jax_default_matmul_precision', 'bfloat16')\nq = lax.Precision.HIGH\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     "import jax\nfrom jax import lax\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\njax.config.update('jax_default_matmul_precision', 'bfloat16')\nq = lax.Precision.HIGH\ny = lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, precision=lax.Precision.HIGHEST)\n",
     [(6, 5, 'fixed', _fixed('precision None under the bf16 default matmul precision set on line 4'), 'safe')]),
    ('spelled-first-in-source-order', "import jax\nfrom jax import lax\nfrom jax.lax import Precision as P\nfrom jax.experimental import rnn\njax.config.update('jax_default_matmul_precision', 'bfloat16')\nq = g(h(k(P.HIGH)))\nr = lax.Precision.HIGH\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     "import jax\nfrom jax import lax\nfrom jax.lax import Precision as P\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\njax.config.update('jax_default_matmul_precision', 'bfloat16')\nq = g(h(k(P.HIGH)))\nr = lax.Precision.HIGH\ny = lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, precision=P.HIGHEST)\n",
     [(8, 5, 'fixed', _fixed('precision None under the bf16 default matmul precision set on line 5'), 'safe')]),
    ('attribute-shadowed-at-the-call', "import jax\nfrom jax import lax\nfrom jax.experimental import rnn\njax.config.update('jax_default_matmul_precision', 'bfloat16')\nq = lax.Precision.HIGH\ndef f(lax):\n    return rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     "import jax\nfrom jax import lax\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\njax.config.update('jax_default_matmul_precision', 'bfloat16')\nq = lax.Precision.HIGH\ndef f(lax):\n    return lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, precision='float32')\n",
     [(7, 12, 'fixed', _fixed('precision None under the bf16 default matmul precision set on line 4'), 'safe')]),
    ('attribute-bound-in-a-function', "import jax\nfrom jax.experimental import rnn\njax.config.update('jax_default_matmul_precision', 'bfloat16')\ndef g():\n    from jax import lax\n    return lax.Precision.HIGH\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     "import jax\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\njax.config.update('jax_default_matmul_precision', 'bfloat16')\ndef g():\n    from jax import lax\n    return lax.Precision.HIGH\ny = lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, precision='float32')\n",
     [(7, 5, 'fixed', _fixed('precision None under the bf16 default matmul precision set on line 3'), 'safe')]),
    ('default-enum-string', "import jax\nfrom jax.experimental import rnn\njax.config.update('jax_default_matmul_precision', 'fastest')\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     "import jax\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\njax.config.update('jax_default_matmul_precision', 'fastest')\ny = lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, precision='highest')\n",
     [(4, 5, 'fixed', _fixed('precision None under the bf16 default matmul precision set on line 3'), 'safe')]),
    # Partials under a bf16 default: the precision added by keyword, or a positional None replaced.
    ('partials-under-the-config', "import functools\nimport jax\nfrom jax.experimental import rnn\n"
     "jax.config.update('jax_default_matmul_precision', 'bfloat16')\n"
     "f = functools.partial(rnn.lstm, input_size=8, hidden_size=16)\n"
     "g = functools.partial(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, None)\n",
     "import functools\nimport jax\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\n"
     "jax.config.update('jax_default_matmul_precision', 'bfloat16')\n"
     "f = functools.partial(lstm_float32, rnn.lstm, input_size=8, hidden_size=16, precision='float32')\n"
     "g = functools.partial(lstm_float32, rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, 'float32')\n",
     [(5, 5, 'fixed', _fixed('precision None under the bf16 default matmul precision set on line 4'), 'safe'),
      (6, 5, 'fixed', _fixed('precision None under the bf16 default matmul precision set on line 4'), 'safe')]),
    # Calls that set nothing, before the one that does: each skipped, the reading goes on.
    ('config-after-others', "import jax\nfrom jax.experimental import rnn\njax.config.update('jax_enable_x64', True)\n"
     "jax.config.update('jax_default_matmul_precision', p)\n"
     "jax.config.update('jax_default_matmul_precision', 'bfloat16')\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False)\n",
     "import jax\nfrom jax.experimental import rnn\nfrom h import lstm_float32\n\n"
     "jax.config.update('jax_enable_x64', True)\njax.config.update('jax_default_matmul_precision', p)\n"
     "jax.config.update('jax_default_matmul_precision', 'bfloat16')\n"
     "y = lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, precision='float32')\n",
     [(6, 5, 'fixed', _fixed('precision None under the bf16 default matmul precision set on line 5'), 'safe')]),
]


@pytest.mark.parametrize(("source", "after", "findings"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_jax003(source: str, after: str | None, findings: list) -> None:
    assert _run(source) == (after, findings)


def test_the_helper_is_written_into_the_module_without_a_helpers_module() -> None:
    source = "from jax.experimental import rnn\ny = rnn.lstm(x, h, c, w, n, 8, 16, 1, 0.0, False, 'bfloat16')\n"
    after, findings = _run(source, Settings((0, 12, 0, 1)))
    assert findings == [(2, 1, "fixed", _fixed("precision DEFAULT"), "safe")]
    assert after is not None and after.count("def lstm_float32(lstm, x, h_0, c_0, weights, seq_lengths, *args, **kwargs):") == 1
    assert after.endswith("\ny = lstm_float32(rnn.lstm, x, h, c, w, n, 8, 16, 1, 0.0, False, 'float32')\n"), after


def test_an_unknown_jax_version_reads_the_levels_every_release_accepts() -> None:
    source = "from jax.experimental import rnn\na = rnn.lstm(x, precision='high')\nb = rnn.lstm(x, precision='bfloat16')\n"
    assert _run(source, Settings(None, helpers_module="h")) == (
        "from jax.experimental import rnn\nfrom h import lstm_float32\n\na = rnn.lstm(x, precision='high')\n"
        "b = lstm_float32(rnn.lstm, x, precision='float32')\n",
        [(3, 5, "fixed", _fixed("precision DEFAULT"), "safe")])


def test_each_call_gets_its_own_finding_and_the_ends_are_the_calls() -> None:
    source = ("from jax.experimental import rnn\na = rnn.lstm(x, precision=p)\nb = rnn.lstm(x,\n    h)\n")
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX003"]), TARGET)
    assert [(f.line, f.column, f.end_line, f.end_column, f.kind.value) for f in result.findings] == [
        (2, 27, 2, 28, "manual"), (3, 5, 4, 7, "warning")]


def _file(source: str) -> ParsedFile:
    return ParsedFile(Path("m.py"), ModuleIndex.parse(source), TARGET)


def test_matches_a_call_or_a_name_bound_to_a_partial_of_it() -> None:
    source = ("import functools\nfrom jax.experimental import rnn\nf = functools.partial(rnn.lstm, precision='high')\n"
              "g = print\nf(x)\nrnn.lstm(x)\ng(x)\nrnn.gru(x)\n")
    file = _file(source)
    calls = sorted((n for n in ast.walk(file.module.tree) if isinstance(n, ast.Call)), key=lambda n: n.lineno)
    assert [(call.lineno, Bf16Lstm.matches_call(RULE, file, call)) for call in calls] == [
        (3, True), (5, True), (6, True), (7, False), (8, False)]


def test_attributes_in_source_order_and_root_names() -> None:
    tree = ast.parse("q = g(h(k(P.HIGH)))\nr = lax.Precision.HIGH\ns = (a.b\n  .c), a.b\n")
    assert [ast.unparse(a) for a in _attributes_in_source_order(tree)] == [
        "P.HIGH", "lax.Precision.HIGH", "lax.Precision", "a.b.c", "a.b", "a.b"]
    roots = [root_name(a) for a in _attributes_in_source_order(tree)]
    assert [r.id if r is not None else None for r in roots] == ["P", "lax", "lax", "a", "a", "a"]
    assert root_name(ast.parse("f().x.y", mode="eval").body) is None
    name = ast.parse("x", mode="eval").body
    assert root_name(name) is name
