"""The whole-program value flow (codemods/analysis/flow/summary.py + link.py), end to end: small projects
whose kernel gets a per-operand pair through another module. Each is lowered for Mosaic TPU before
(it fails) and after the tool's fixes (it lowers), or left as written with a [manual] finding; code
outside kernels that reads a shared value is never changed."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from codemods import registry
from codemods.analysis.flow.link import link
from codemods.analysis.flow.summary import summarise
from codemods.capabilities import Level
from codemods.engine.diagnostics import Kind
from codemods.engine.discovery import discover
from codemods.engine.report import render_finding
from codemods.engine.runner import run
from codemods.rules.per_operand_precision import OPS, accepted_precisions
from codemods.settings import Settings
from tests import jax_support

FOLLOWS = {name: (op.precision_position, "precision") for name, op in OPS.items()}
_KERNEL = """
    import functools
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
"""
_SHAPE = "jax.ShapeDtypeStruct((8, 128), x.dtype)"


def _kernel(text: str) -> str:
    return textwrap.dedent(_KERNEL) + textwrap.dedent(text)

_DOT_TABLE = """
    import jax.numpy as jnp
    from jax import lax

    def dot_fast(a, b):
        return jnp.dot(a, b)

    def dot_mixed(a, b):
        return jnp.dot(a, b, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))

    DOTS = {"fast": dot_fast, "mixed": dot_mixed}
"""

def _entry_reading(imported: str, precision: str) -> str:
    """An entry module whose kernel's dot reads `precision`, a value of another module (`imported`)."""
    return _kernel(f"""
        {imported}

        def body(x_ref, w_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision={precision})

        def run(x, w):
            return pl.pallas_call(body, out_shape={_SHAPE})(x, w)
    """)


# A NamedTuple of dot options (`PLAIN`, none set) and a kernel reading `options.precision` of the one it is given.
_OPTIONS = "from typing import Any, NamedTuple\n\n\nclass Opts(NamedTuple):\n    precision: Any = None\n\n\nPLAIN = Opts()\n"
_OPTIONS_KERNEL = _kernel(f"""
    def _mm(x_ref, w_ref, o_ref, *, options):
        o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=options.precision)

    def matmul(x, w, options):
        return pl.pallas_call(functools.partial(_mm, options=options), out_shape={_SHAPE})(x, w)
""")

# A package whose dot is in a helper (`mm`) of a module that also makes an instance relaying a body to a
# launch helper of a third module, both re-exported: the projects below add the module holding the body.
_RELAYED_TO_A_LAUNCH_HELPER = {
    "__init__.py": "from .launch import run  # noqa: F401\nfrom .kern import relay  # noqa: F401\n",
    "launch.py": _kernel(f"""
        def run(body, x, w):
            return pl.pallas_call(body, out_shape={_SHAPE})(x, w)
    """),
    "kern.py": _kernel("""
        from jax import lax
        from . import run

        def mm(a, b):
            return jnp.dot(a, b, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))

        class Relay:
            def run(self, body, x, w):
                return run(body, x, w)

        relay = Relay()
    """),
}


def _relayed_from_a_list(fill: str) -> dict[str, str]:
    """That package with an entry module whose body (the dot in `kern.mm`) is put in a list `K` by
    `fill` and launched as `K[0]` through the relay."""
    return {**_RELAYED_TO_A_LAUNCH_HELPER, "entry.py": _kernel(f"""
        import operator
        from .kern import mm
        from . import relay

        def body(x_ref, w_ref, o_ref):
            o_ref[...] = mm(x_ref[...], w_ref[...])

        K = [None]
        {fill}

        def run(x, w):
            return relay.run(K[0], x, w)
    """)}


# name -> (files, what the entry `<pkg>.entry.run(x, w)` is, the outcome: "fixed" or "manual")
PROJECTS = {
    "options_updated_in_a_config_module": ({  # `OPTS.update(precision=PAIR)` (it was silent: update wrote nothing)
        "kern.py": _kernel(f"""
            from .cfg import OPTS

            def _body(x_ref, w_ref, o_ref, *, precision=None):
                o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)

            def matmul(x, w):
                return pl.pallas_call(functools.partial(_body, **OPTS), out_shape={_SHAPE})(x, w)
        """),
        "cfg.py": "from jax import lax\nOPTS = {}\nOPTS.update(precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n",
        "entry.py": "from .kern import matmul\n\ndef run(x, w):\n    return matmul(x, w)\n",
    }, "fixed"),
    "kwargs_filtered_by_a_comprehension": ({  # entries of keys not known (it was silent: bound to nothing)
        "kern.py": _kernel(f"""
            def _body(x_ref, w_ref, o_ref, *, precision=None):
                o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)

            def matmul(x, w, **opts):
                kernel = functools.partial(_body, **{{k: v for k, v in opts.items() if k != "block"}})
                return pl.pallas_call(kernel, out_shape={_SHAPE})(x, w)
        """),
        "cfg.py": "from jax import lax\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
        "entry.py": "from .kern import matmul\nfrom .cfg import PAIR\n\ndef run(x, w):\n"
                    "    return matmul(x, w, precision=PAIR, block=8)\n",
    }, "fixed"),
    "kwargs_copied_by_dict": ({  # `dict(opts)` copies the entries (it was silent: the copy held nothing)
        "kern.py": _kernel(f"""
            def _body(x_ref, w_ref, o_ref, *, precision=None):
                o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)

            def matmul(x, w, **opts):
                kernel = functools.partial(_body, **dict(opts))
                return pl.pallas_call(kernel, out_shape={_SHAPE})(x, w)
        """),
        "cfg.py": "from jax import lax\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
        "entry.py": "from .kern import matmul\nfrom .cfg import PAIR\n\ndef run(x, w):\n    return matmul(x, w, precision=PAIR)\n",
    }, "fixed"),
    "kwargs_through_helpers": ({
        "kern.py": _kernel(f"""
            def _body(x_ref, w_ref, o_ref, *, precision):
                o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)

            def launch(body, x, w):
                return pl.pallas_call(body, out_shape={_SHAPE})(x, w)

            def matmul(x, w, **opts):
                return launch(functools.partial(_body, **opts), x, w)
        """),
        "cfg.py": "from jax import lax\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
        "entry.py": "from .kern import matmul\nfrom .cfg import PAIR\n\ndef run(x, w):\n    return matmul(x, w, precision=PAIR)\n",
    }, "fixed"),
    "helper_table_elsewhere": ({
        "helpers.py": """
            import functools
            import jax.numpy as jnp
            from jax import lax
            P = lax.Precision
            DOTS = {"fast": functools.partial(jnp.dot, precision=P.DEFAULT),
                    "mixed": functools.partial(jnp.dot, precision=(P.DEFAULT, P.HIGHEST))}
        """,
        "entry.py": _kernel(f"""
            from .helpers import DOTS

            def body(x_ref, w_ref, o_ref):
                o_ref[...] = DOTS["mixed"](x_ref[...], w_ref[...])

            def run(x, w):
                return pl.pallas_call(body, out_shape={_SHAPE})(x, w)
        """),
    }, "fixed"),
    "table_of_functions_elsewhere": ({
        "dots.py": _DOT_TABLE,
        "entry.py": _kernel(f"""
            from .dots import DOTS

            def body(x_ref, w_ref, o_ref):
                o_ref[...] = DOTS["mixed"](x_ref[...], w_ref[...])

            def run(x, w):
                return pl.pallas_call(body, out_shape={_SHAPE})(x, w)
        """),
    }, "fixed"),
    # The same table, and plain XLA code runs its functions too: called, handed to jax.jit, or the table
    # handed to jax (the link cannot tell what jax does with what it holds): the helper is shared.
    **{f"table_of_functions_{name}_by_plain_code": ({
        "dots.py": _DOT_TABLE,
        "entry.py": _kernel(f"""
            from .dots import DOTS

            def body(x_ref, w_ref, o_ref):
                o_ref[...] = DOTS["mixed"](x_ref[...], w_ref[...])

            def reference(x, w):
                return {plain}

            def run(x, w):
                return pl.pallas_call(body, out_shape={_SHAPE})(x, w)
        """),
    }, "manual") for name, plain in (("called", 'DOTS["mixed"](x, w)'), ("jitted", 'jax.jit(DOTS["mixed"])(x, w)'),
                                     ("handed_to_jax", "jax.tree.leaves(DOTS)"))},
    # `= MIXED`, and `dataclasses.field(default=MIXED)`: the field's default as `= MIXED` written plainly.
    **{name: ({
        "consts.py": "from jax import lax\nMIXED = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
        "config.py": f"""
            import dataclasses
            from .consts import MIXED

            @dataclasses.dataclass(frozen=True)
            class Cfg:
                block: int = 128
                precision: tuple = {default}
        """,
        "entry.py": _kernel(f"""
            from .config import Cfg

            def body(x_ref, w_ref, o_ref, *, cfg):
                o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=cfg.precision)

            def run(x, w, cfg=Cfg()):
                return pl.pallas_call(functools.partial(body, cfg=cfg), out_shape={_SHAPE})(x, w)
        """),
    }, "fixed") for name, default in (("dataclass_field_default", "MIXED"),
                                      ("dataclass_field_written_with_field_default", "dataclasses.field(default=MIXED)"))},
    # A nested config made by `dataclasses.field(default_factory=...)` (how a mutable or nested dataclass
    # default is written), read as `cfg.mlp.precision`: [manual] "computed" before (the seventh trial's N1).
    **{f"nested_config_default_factory_{name}": ({
        "consts.py": "from jax import lax\nMIXED = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
        "config.py": f"""
            import dataclasses
            from .consts import MIXED

            @dataclasses.dataclass
            class Mlp:
                precision: tuple = MIXED

            @dataclasses.dataclass
            class Model:
                width: int = 128
                mlp: Mlp = dataclasses.field(default_factory={factory})
        """,
        "entry.py": _kernel(f"""
            from .config import Model

            def body(x_ref, w_ref, o_ref, *, precision):
                o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)

            def run(x, w, cfg=Model()):
                return pl.pallas_call(functools.partial(body, precision=cfg.mlp.precision), out_shape={_SHAPE})(x, w)
        """),
    }, "fixed") for name, factory in (("class", "Mlp"), ("lambda", "lambda: Mlp()"))},
    "attribute_set_by_a_constructor_elsewhere": ({
        "layer.py": _kernel(f"""
            class Dense:
                def __init__(self, precision=None):
                    self.precision = precision

                def __call__(self, x, w):
                    def body(x_ref, w_ref, o_ref):
                        o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=self.precision)
                    return pl.pallas_call(body, out_shape={_SHAPE})(x, w)
        """),
        "entry.py": """
            from jax import lax
            from .layer import Dense

            LAYER = Dense(precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT))

            def run(x, w):
                return LAYER(x, w)
        """,
    }, "fixed"),
    "returned_by_a_function_elsewhere_launched_through_star_args": ({
        "prec.py": """
            from jax import lax

            def get_precision(dtype):
                if dtype == "bfloat16":
                    return lax.Precision.DEFAULT
                return (lax.Precision.DEFAULT, lax.Precision.HIGHEST)
        """,
        "launch.py": "from jax.experimental import pallas as pl\n\ndef launch(*args, **kwargs):\n"
                     "    return pl.pallas_call(*args, **kwargs)\n",
        "entry.py": _kernel(f"""
            from .prec import get_precision
            from .launch import launch

            def body(x_ref, w_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=get_precision("float32"))

            def run(x, w):
                return launch(body, out_shape={_SHAPE})(x, w)
        """),
    }, "fixed"),
    "module_name_shadowed_by_a_function_s_import": ({  # `jnp` of the kernel was numpy's: the pair was not followed
        "prec.py": "from jax import lax\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
        "entry.py": _kernel(f"""
            from .prec import PAIR

            def body(x_ref, w_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=PAIR)

            def run(x, w):
                return pl.pallas_call(body, out_shape={_SHAPE})(x, w)

            def numpy_reference(x, w):
                import numpy as jnp
                return jnp.dot(x, w)
        """),
    }, "fixed"),
    "dict_of_options_spread_into_the_dot": ({
        "opts.py": "from jax import lax\n_DOT_OPTS = {'precision': (lax.Precision.DEFAULT, lax.Precision.HIGHEST)}\n",
        "entry.py": _kernel(f"""
            from .opts import _DOT_OPTS

            def body(x_ref, w_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], w_ref[...], **_DOT_OPTS)

            def run(x, w):
                return pl.pallas_call(body, out_shape={_SHAPE})(x, w)
        """),
    }, "fixed"),
    "subclass_overrides_the_launched_method": ({
        "prec.py": "from jax import lax\nPRECISIONS = {'fast': lax.Precision.DEFAULT,\n"
                   "              'mixed': (lax.Precision.DEFAULT, lax.Precision.HIGHEST)}\n",
        "base.py": _kernel(f"""
            class Base:
                def body(self, x_ref, w_ref, o_ref):
                    o_ref[...] = x_ref[...]

                def run(self, x, w):
                    return pl.pallas_call(self.body, out_shape={_SHAPE})(x, w)
        """),
        "entry.py": """
            import jax.numpy as jnp
            from .base import Base
            from .prec import PRECISIONS

            class Mixed(Base):
                mode = "mixed"

                def body(self, x_ref, w_ref, o_ref):
                    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=PRECISIONS[self.mode])

            def run(x, w):
                return Mixed().run(x, w)
        """,
    }, "fixed"),
    # `from .cfg import *` re-exports the pair: `from .consts import PAIR` read it as [manual] (the
    # link followed a star import only for names read inside the importing module itself).
    "reexported_by_a_star_import": ({
        "cfg.py": "from jax import lax\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
        "consts.py": "from .cfg import *\n",
        "entry.py": _entry_reading("from .consts import PAIR", "PAIR"),
    }, "fixed"),
    # The pair's members looked up by name (`lax.Precision["HIGH"]`): read as no precision at all, the
    # kernel failed with no finding (the fifth new user's trial).
    "members_looked_up_by_name": ({
        "settings.py": 'from jax import lax\nPAIR = (lax.Precision["DEFAULT"], lax.Precision["HIGHEST"])\n',
        "entry.py": _entry_reading("from .settings import PAIR", "PAIR"),
    }, "fixed"),
    # A pair one element of which the code computes: no finding at all before (a two-element literal
    # the link could not read as a pair was passed over), now [manual] at the kernel.
    "pair_with_a_computed_element": ({
        "settings.py": 'import os\nfrom jax import lax\nLEVEL = getattr(lax.Precision, os.environ.get("LEVEL", "HIGHEST"))\n',
        "entry.py": _entry_reading("from .settings import LEVEL, lax", "(lax.Precision.DEFAULT, LEVEL)"),
    }, "manual"),
    # A bound method as the body, reading `self.prec` that a `@classmethod` constructor's `cls(...)` set:
    # the classmethod was called with the class as no argument, so the pair bound nothing (no finding).
    "set_by_a_classmethod_constructor": ({
        "layers.py": _kernel(f"""
            class Proj:
                def __init__(self, prec=None):
                    self.prec = prec

                @classmethod
                def with_precision(cls, prec):
                    return cls(prec)

                def _kernel(self, x_ref, w_ref, o_ref):
                    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=self.prec)

                def __call__(self, x, w):
                    return pl.pallas_call(self._kernel, out_shape={_SHAPE})(x, w)
        """),
        "entry.py": "from jax import lax\nfrom .layers import Proj\n\n\n"
                    "def run(x, w):\n    return Proj.with_precision((lax.Precision.HIGH, lax.Precision.HIGHEST))(x, w)\n",
    }, "fixed"),
    # A config copied with one field set, `dataclasses.replace(BASE, precision=PAIR)` and a NamedTuple's
    # `_replace(precision=PAIR)`: [manual] before ("may come from what `dataclasses.replace` gives"; "is
    # computed"), the copy read as an installed package's value.
    "set_by_dataclasses_replace": ({
        "config.py": "import dataclasses\nfrom typing import Any\n\n\n@dataclasses.dataclass(frozen=True)\n"
                     "class Cfg:\n    block: int = 128\n    precision: Any = None\n\n\nBASE = Cfg()\n",
        "model.py": "import dataclasses\nfrom jax import lax\nfrom .config import BASE\n\n"
                    "ACCURATE = dataclasses.replace(BASE, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n",
        "entry.py": _entry_reading("from .model import ACCURATE", "ACCURATE.precision"),
    }, "fixed"),
    "set_by_a_namedtuple_replace": ({
        "config.py": _OPTIONS,
        "ops.py": _OPTIONS_KERNEL,
        "entry.py": "from jax import lax\nfrom .config import PLAIN\nfrom .ops import matmul\n\n\ndef run(x, w):\n"
                    "    return matmul(x, w, PLAIN._replace(precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT)))\n",
    }, "fixed"),
    # Two instances of one class, one per site it is made at (the trial's M1): the copy or the instance
    # given the pair reaches the kernel, XLA code reads the other's field (None). [manual] before ("shared
    # with `jax.numpy.dot` outside kernels (m.reference:5)"): all instances of a class were one value.
    "replaced_copy_beside_a_base_xla_code_reads": ({
        "config.py": "import dataclasses\nfrom typing import Any\n\n\n@dataclasses.dataclass(frozen=True)\n"
                     "class Cfg:\n    block: int = 128\n    precision: Any = None\n\n\nBASE = Cfg()\n",
        "model.py": "import dataclasses\nfrom jax import lax\nfrom .config import BASE\n\n"
                    "ACCURATE = dataclasses.replace(BASE, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n",
        "entry.py": _entry_reading("from .model import ACCURATE", "ACCURATE.precision"),
        "reference.py": "import jax.numpy as jnp\nfrom .config import BASE\n\n"
                        "def reference(x, w):\n    return jnp.dot(x, w, precision=BASE.precision)\n",
    }, "fixed"),
    "built_beside_a_base_xla_code_reads": ({
        "config.py": "import dataclasses\nfrom typing import Any\nfrom jax import lax\n\n\n"
                     "@dataclasses.dataclass(frozen=True)\nclass Cfg:\n    block: int = 128\n    precision: Any = None\n\n\n"
                     "BASE = Cfg()\nACCURATE = Cfg(precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n",
        "entry.py": _entry_reading("from .config import ACCURATE", "ACCURATE.precision"),
        "reference.py": "import jax.numpy as jnp\nfrom .config import BASE\n\n"
                        "def reference(x, w):\n    return jnp.dot(x, w, precision=BASE.precision)\n",
    }, "fixed"),
    "namedtuple_replaced_beside_a_base_xla_code_reads": ({
        "config.py": _OPTIONS,
        "ops.py": _OPTIONS_KERNEL,
        "entry.py": "import jax.numpy as jnp\nfrom jax import lax\nfrom .config import PLAIN\nfrom .ops import matmul\n\n\n"
                    "def run(x, w):\n    return matmul(x, w, PLAIN._replace(precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT)))\n\n\n"
                    "def reference(x, w):\n    return jnp.dot(x, w, precision=PLAIN.precision)\n",
    }, "fixed"),
    # The copy of an instance XLA code reads the pair of: the copy holds it too, so it stays [manual].
    "replaced_copy_of_an_instance_xla_code_reads_the_pair_of": ({
        "config.py": "import dataclasses\nfrom typing import Any\nfrom jax import lax\n\n\n"
                     "@dataclasses.dataclass(frozen=True)\nclass Cfg:\n    block: int = 128\n    precision: Any = None\n\n\n"
                     "BASE = Cfg(precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n"
                     "WIDE = dataclasses.replace(BASE, block=256)\n",
        "entry.py": _entry_reading("from .config import WIDE", "WIDE.precision"),
        "reference.py": "import jax.numpy as jnp\nfrom .config import BASE\n\n"
                        "def reference(x, w):\n    return jnp.dot(x, w, precision=BASE.precision)\n",
    }, "manual"),
    "shared_with_xla_code_elsewhere": ({
        "kernels.py": _kernel(f"""
            from jax import lax
            MIXED = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)

            def body(x_ref, w_ref, o_ref, precision=MIXED):
                o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)

            def launch(x, w):
                return pl.pallas_call(body, out_shape={_SHAPE})(x, w)
        """),
        "reference.py": "import jax.numpy as jnp\nfrom .kernels import MIXED\n\n"
                        "def reference(x, w):\n    return jnp.dot(x, w, precision=MIXED)\n",
        "entry.py": "from .kernels import launch as run\n",
    }, "manual"),
    # Found by the property test (tests/flow_programs.py, value roads): the body's parameter is bound
    # only by `**opts`, so this module sees its default None and nothing else; the link's answer
    # was never asked and nothing was said.
    "kwargs_pair_shared_with_xla_code": ({
        "kernels.py": _kernel(f"""
            from jax import lax
            MIXED = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)

            def body(x_ref, w_ref, o_ref, *, precision=None):
                o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)

            def matmul(x, w, **opts):
                return pl.pallas_call(functools.partial(body, **opts), out_shape={_SHAPE})(x, w)
        """),
        "reference.py": "import jax.numpy as jnp\nfrom .kernels import MIXED\n\n"
                        "def reference(x, w):\n    return jnp.dot(x, w, precision=MIXED)\n",
        "entry.py": "from .kernels import MIXED, matmul\n\ndef run(x, w):\n    return matmul(x, w, precision=MIXED)\n",
    }, "manual"),
    # Found by the property test: the project index took the kernel's read of `CFG.precision` for a
    # call of kernel code made by `Config(...)`, and rewrote the pair there (unsafe) under the XLA
    # reference that reads it too.
    "dataclass_built_with_a_pair_shared_with_xla_code": ({
        "config.py": """
            import dataclasses

            @dataclasses.dataclass(frozen=True)
            class Config:
                block: int = 128
                precision: object = None
        """,
        "settings.py": "from jax import lax\nfrom .config import Config\n\n"
                       "CFG = Config(precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n",
        "entry.py": _entry_reading("from .settings import CFG", "CFG.precision"),
        "reference.py": "import jax.numpy as jnp\nfrom .settings import CFG\n\n"
                        "def reference(x, w):\n    return jnp.dot(x, w, precision=CFG.precision)\n",
    }, "manual"),
    # Found by the property test: the body launched from a loop over a dict's `.values()`, bound to a
    # pair imported from another module under a name other than `precision`; the link took
    # `.values()` for nothing, and nothing was said.
    "loop_over_dict_values": ({
        "kern.py": "import jax.numpy as jnp\nfrom jax import lax\n\n"
                   "PREC = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n\n"
                   "def body(x_ref, w_ref, o_ref, *, p=None):\n"
                   "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=p)\n",
        "entry.py": _kernel(f"""
            from . import kern
            from .kern import PREC

            def run(x, w):
                for body in {{"main": kern.body}}.values():
                    out = pl.pallas_call(functools.partial(body, p=PREC), out_shape={_SHAPE})(x, w)
                return out
        """),
    }, "fixed"),
    # Found by the property test: a pair of precision strings written in a module whose bytes say
    # neither precision nor dot (the rules' byte test passed it over, though the link had found
    # that the pair reaches a kernel and nothing else reads it).
    "string_pair_in_a_module_that_names_no_precision": ({
        "modes.py": "MIXED = ('bfloat16', 'float32')\n",
        "entry.py": _entry_reading("from .modes import MIXED", "MIXED"),
    }, "fixed"),
    # Found by the property test: a body launched from loops over `reversed(...)` and `enumerate(...)`,
    # bound to a pair of precision strings under another name (which only the link tells from a pair
    # of dtypes); the link read both calls as an installed package's, and nothing was said.
    "string_pair_launched_from_reversed_and_enumerate": ({
        "kern.py": "import jax.numpy as jnp\n\ndef body(x_ref, w_ref, o_ref, *, p=None):\n"
                   "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=p)\n",
        "entry.py": _kernel(f"""
            from .kern import body

            def run(x, w):
                for kernel in reversed((body,)):
                    for index, each in enumerate([kernel]):
                        out = pl.pallas_call(functools.partial(each, p=("bfloat16", "float32")), out_shape={_SHAPE})(x, w)
                return out
        """),
    }, "fixed"),
    # Issue 50's known gaps: a pair of strings under another name reaches the body only through a
    # comprehension or a loop over `zip` (the link read both as nothing, and said nothing).
    "string_pair_under_another_name_launched_from_a_comprehension": ({
        "kern.py": "import jax.numpy as jnp\n\ndef body(x_ref, w_ref, o_ref, *, p=None):\n"
                   "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=p)\n\n"
                   "KERNELS = {name: kernel for name, kernel in [('main', body)]}\n",
        "entry.py": _kernel(f"""
            from .kern import KERNELS

            def run(x, w):
                kernels = [functools.partial(k, p=("bfloat16", "float32")) for k in KERNELS.values() if k]
                return pl.pallas_call(kernels[0], out_shape={_SHAPE})(x, w)
        """),
    }, "fixed"),
    "string_pair_under_another_name_launched_from_a_zip_loop": ({
        "kern.py": "import jax.numpy as jnp\n\ndef body(x_ref, w_ref, o_ref, *, p=None, scale=1.0):\n"
                   "    o_ref[...] = scale * jnp.dot(x_ref[...], w_ref[...], precision=p)\n",
        "entry.py": _kernel(f"""
            from .kern import body

            def run(x, w):
                for kernel, scale in zip([functools.partial(body, p=("bfloat16", "float32"))], (2.0,)):
                    out = pl.pallas_call(functools.partial(kernel, scale=scale), out_shape={_SHAPE})(x, w)
                return out
        """),
    }, "fixed"),
    # Found by the property test: as dataclass_built_with_a_pair_shared_with_xla_code, launched from a
    # loop over `.items()`, which the link read as nothing: it did not see the pair reach a kernel, so
    # could not say that XLA code reads it too, and the project index's unsafe fix rewrote it.
    "dataclass_pair_shared_with_xla_code_launched_from_items": ({
        "config.py": """
            import dataclasses

            @dataclasses.dataclass(frozen=True)
            class Config:
                precision: object = None
        """,
        "settings.py": "from jax import lax\nfrom .config import Config\n\n"
                       "CFG = Config(precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n\n"
                       "def reference(x, w):\n    import jax.numpy as jnp\n    return jnp.dot(x, w, precision=CFG.precision)\n",
        "entry.py": _kernel(f"""
            from .settings import CFG

            def body(x_ref, w_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=CFG.precision)

            def run(x, w):
                for name, kernel in {{"main": body}}.items():
                    out = pl.pallas_call(kernel, out_shape={_SHAPE})(x, w)
                return out
        """),
    }, "manual"),
    # Found by the property test: the same, launched from a comprehension (which the link once read as
    # nothing, seeing the pair only as XLA code's precision): the pair reaches the kernel, XLA code reads it.
    "dataclass_pair_shared_with_xla_code_launched_from_a_comprehension": ({
        "config.py": "import dataclasses\n\n@dataclasses.dataclass(frozen=True)\nclass Config:\n"
                     "    precision: object = None\n",
        "settings.py": "from jax import lax\nfrom .config import Config\n\n"
                       "CFG = Config(precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n",
        "reference.py": "import jax.numpy as jnp\nfrom .settings import CFG\n\n"
                        "def reference(x, w):\n    return jnp.dot(x, w, precision=CFG.precision)\n",
        "entry.py": _kernel(f"""
            from .settings import CFG

            def body(x_ref, w_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=CFG.precision)

            def run(x, w):
                return pl.pallas_call([k for k in (body,)][0], out_shape={_SHAPE})(x, w)
        """),
    }, "manual"),
    # Found by the property test (seed 52): a body another module's helper makes a kernel's (its dot), put
    # in a list by `insert` after the list is built, launched as `K[0]` by a method of an instance of
    # another module calling a launch helper of a third, both re-exported by the package: the link did
    # not model the list's mutation, so the body was unknown to it, and the dot silent.
    "body_inserted_into_a_list_launched_by_a_method_of_another_module": ({
        **_relayed_from_a_list("K.insert(0, body)"),
    }, "fixed"),
    # Found by a mutant of `_container_method` that survived (docs/testing.md): a body appended in one
    # module to a list another module makes, launched by `next(iter(...))` in a third; the link read no
    # `next`, so the body was launched by nothing it knew, and the dot silent (`BODIES[0]` was fixed).
    "body_appended_to_another_modules_list_launched_by_next_of_iter": ({
        "registry.py": "BODIES = []\n",
        "bodies.py": "import jax.numpy as jnp\nfrom jax import lax\nfrom .registry import BODIES\n\n"
                     "def body(x, w, o):\n"
                     "    o[...] = jnp.dot(x[...], w[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n\n"
                     "BODIES.append(body)\n",
        "entry.py": _kernel(f"""
            from . import bodies
            from .registry import BODIES

            def run(x, w):
                return pl.pallas_call(next(iter(BODIES)), out_shape={_SHAPE})(x, w)
        """),
    }, "fixed"),
    # A list filled by `type(K).__setitem__` (not read by the link) and launched where it is written: the
    # module's own analysis takes the launch for one it cannot resolve, and notes the functions it may
    # run with what they call in their module, but `body` calls the dot in a third module: silent
    # then; [manual] at the launch, naming `body`.
    "body_set_into_a_list_launched_where_it_is_its_dot_in_a_third_module": ({
        "util.py": "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef mm(a, b):\n"
                   "    return jnp.dot(a, b, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n",
        "kern.py": "from .util import mm\n\n\ndef body(x_ref, w_ref, o_ref):\n    o_ref[...] = mm(x_ref[...], w_ref[...])\n",
        "entry.py": _kernel(f"""
            import operator
            from . import kern

            K = [None]
            type(K).__setitem__(K, 0, kern.body)

            def run(x, w):
                return pl.pallas_call(K[0], out_shape={_SHAPE})(x, w)
        """),
    }, "manual"),
    # A kernel parameter (default None) bound from `**dict(zip(names, values))`, the pair passed from
    # another module: the link names the entries it does not follow at the dot, which JAX001 dropped
    # (the parameter's only value in its module is None): it was silent.
    "keywords_of_a_dict_built_from_zip": ({
        "kern.py": _kernel(f"""
            def body(x_ref, w_ref, o_ref, *, precision=None):
                o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)

            def matmul(x, w, names, values):
                kernel = functools.partial(body, **dict(zip(names, values)))
                return pl.pallas_call(kernel, out_shape={_SHAPE})(x, w)
        """),
        "entry.py": "from jax import lax\nfrom .kern import matmul\n\ndef run(x, w):\n"
                    "    return matmul(x, w, ('precision',), ((lax.Precision.DEFAULT, lax.Precision.HIGHEST),))\n",
    }, "manual"),
    # The same, the list filled by `type(K).__setitem__`, which the link does not read: the body is lost
    # to it (the list holds None alone as it follows it), and the dot in another module's helper is
    # no function's the link finds launched: the launch says it cannot follow its body, never silent.
    "body_set_into_a_list_by_code_the_link_does_not_read": ({
        **_relayed_from_a_list("type(K).__setitem__(K, 0, body)"),
    }, "manual"),
}


# Filled by `operator.setitem` or `K.__setitem__` (`K[0] = body`, which the link reads): the body is followed
# and fixed, where the link once read nothing (the launch net's [manual], or silent when launched directly).
PROJECTS["body_set_into_a_list_by_operator_setitem"] = (_relayed_from_a_list("operator.setitem(K, 0, body)"), "fixed")
PROJECTS["body_set_into_a_list_by_its_setitem_method"] = (_relayed_from_a_list("K.__setitem__(0, body)"), "fixed")
PROJECTS["body_set_into_a_list_launched_where_it_is_by_its_setitem_method"] = ({
    **PROJECTS["body_set_into_a_list_launched_where_it_is_its_dot_in_a_third_module"][0],
    "entry.py": PROJECTS["body_set_into_a_list_launched_where_it_is_its_dot_in_a_third_module"][0]["entry.py"].replace(
        "type(K).__setitem__(K, 0, kern.body)", "K.__setitem__(0, kern.body)"),
}, "fixed")
# A pair written by an explicit dunder or `setattr` call the link did not read (the kernel's dot got
# nothing from it: silent, `--check` passing and the kernel failing to lower): fixed where it is written.
_SHAPED_BODY = _kernel(f"""
    def _body(x_ref, w_ref, o_ref, *, precision=None):
        o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)

    def _launch(x, w, **options):
        return pl.pallas_call(functools.partial(_body, **options), out_shape={_SHAPE})(x, w)
""")
PROJECTS["pair_set_into_a_dict_by_its_setitem_method_in_another_module"] = ({
    "cfg.py": "from jax import lax\n\nOPTS = {}\nOPTS.__setitem__('precision', (lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n",
    "entry.py": _SHAPED_BODY + "from .cfg import OPTS\n\ndef run(x, w):\n    return _launch(x, w, **OPTS)\n",
}, "fixed")
PROJECTS["pair_set_by_setattr_on_another_modules_instance"] = ({
    "config.py": "class Options:\n    precision = None\n\n\nOPTIONS = Options()\n",
    "setup.py": "from jax import lax\nfrom .config import OPTIONS\n\n"
                "setattr(OPTIONS, 'precision', (lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n",
    "entry.py": _SHAPED_BODY + "from . import setup  # noqa: F401\nfrom .config import OPTIONS\n\ndef run(x, w):\n"
                "    return _launch(x, w, precision=OPTIONS.precision)\n",
}, "fixed")
PROJECTS["pair_set_by_object_setattr_in_a_frozen_dataclasses_post_init"] = ({
    "config.py": """
        import dataclasses
        from jax import lax

        @dataclasses.dataclass(frozen=True)
        class DotConfig:
            precision: object = None

            def __post_init__(self):
                if self.precision is None:
                    object.__setattr__(self, "precision", (lax.Precision.DEFAULT, lax.Precision.HIGHEST))
    """,
    "entry.py": _SHAPED_BODY + "from .config import DotConfig\n\ndef run(x, w):\n"
                "    return _launch(x, w, precision=DotConfig().precision)\n",
}, "fixed")

# The same with a set (`set()` made in one module, `.add`ed to in another): the link followed no set.
PROJECTS["body_added_to_another_modules_set_launched_by_next_of_iter"] = ({
    **PROJECTS["body_appended_to_another_modules_list_launched_by_next_of_iter"][0],
    "registry.py": "BODIES = set()\n",
    "bodies.py": PROJECTS["body_appended_to_another_modules_list_launched_by_next_of_iter"][0]["bodies.py"].replace(
        "BODIES.append(body)", "BODIES.add(body)"),
}, "fixed")

# A decorator of another module whose wrapper forwards `*args, **kwargs` to the function it decorates
# (`@traced`, a new user's trial, N1): the pair a caller passes the decorated wrapper reaches the kernel
# `kw_mm` launches through `partial(_kw_kernel, **dot_kwargs)`. The link lost it at the decorator (the
# kernel's `[manual]` "`**kwargs` may carry a precision" named neither caller nor decorator); each
# decoration now runs the decorator's code for itself, so the pair is fixed where the caller writes it.
_KW_MM = _kernel(f"""
    def _kw_kernel(x_ref, w_ref, o_ref, **dot_kwargs):
        o_ref[...] = jnp.dot(x_ref[...], w_ref[...], **dot_kwargs)

    def kw_mm(x, w, **dot_kwargs):
        return pl.pallas_call(functools.partial(_kw_kernel, **dot_kwargs), out_shape={_SHAPE})(x, w)
""")
_TRACED = """
    import functools

    def traced(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)
        return wrapper

    def logged(name):
        def decorate(fn):
            def logging_wrapper(*args, **kwargs):
                print(name)
                return fn(*args, **kwargs)
            return logging_wrapper
        return decorate

    def plain(fn):
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)
        return wrapper
"""
_CALLER = ("from jax import lax\nfrom .blocks import dense_kw\n\ndef run(x, w):\n"
           "    return dense_kw(x, w, precision=(lax.Precision.HIGH, lax.Precision.HIGHEST))\n")


def _decorated(decoration: str) -> dict[str, str]:
    """The trial's project: `trace.py` the decorators, `kwmm.py` the kernel, `blocks.py` `dense_kw`
    decorated by `decoration` (its own lines above the def), `entry.py` the caller passing a pair."""
    return {"trace.py": _TRACED, "kwmm.py": _KW_MM, "entry.py": _CALLER,
            "blocks.py": f"from .trace import logged, plain, traced\nfrom .kwmm import kw_mm\n\n{decoration}\n"
                         "def dense_kw(x, w, **kwargs):\n    return kw_mm(x, w, **kwargs)\n"}


# A factory's body launched by a wrapper of another module whose precision defaults to a scalar; the entry
# hands the wrapper, a pair bound or passed, to a jax transform that calls it (the ninth trial's S1: silent,
# the wrapper was seen called with its default only).
_FACTORY_WRAPPER = _kernel(f"""
    from jax import lax

    def make(precision):
        def body(x_ref, w_ref, o_ref):
            o_ref[...] = jnp.matmul(x_ref[...], w_ref[...], precision=precision)
        return body

    def proj(x, w, precision=lax.Precision.DEFAULT):
        return pl.pallas_call(make(precision), out_shape={_SHAPE})(x, w)
""")


def _handed_to(call: str) -> dict[str, str]:
    """That wrapper (`kern.proj`) and an entry whose `run` is `call`, with `PAIR` a per-operand pair."""
    return {"kern.py": _FACTORY_WRAPPER, "entry.py": f"""
        import functools
        import jax
        from jax import lax
        from . import kern

        PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)

        def run(x, w):
            return {call}
    """}


for _name, _call in {
        "partial_handed_to_vmap": "jax.vmap(functools.partial(kern.proj, precision=PAIR), in_axes=(0, None))(x[None], w)[0]",
        "pair_handed_through_vmap": "jax.vmap(kern.proj, in_axes=(0, None, None))(x[None], w, PAIR)[0]",
        "partial_handed_to_shard_map": "jax.shard_map(functools.partial(kern.proj, precision=PAIR), "
                                       "in_specs=(jax.P(), jax.P()), out_specs=jax.P(), check_vma=False)(x, w)",
        "tree_util_partial": "jax.tree_util.Partial(kern.proj, precision=PAIR)(x, w)",
        "partial_handed_to_lax_map": "lax.map(functools.partial(kern.proj, w=w, precision=PAIR), x[None])[0]"}.items():
    PROJECTS[_name] = (_handed_to(_call), "fixed")
# A constant bound by one partial to another module's kernel and by another to a kernel of its own that hands
# it to another module's helper: every reader a kernel's (the ninth trial's N1: [manual] "write a single
# scalar", while either binding alone was fixed).
PROJECTS["pair_bound_to_a_foreign_kernel_and_to_a_local_one"] = ({
    "kern.py": _kernel("""
        def body(x_ref, w_ref, o_ref, *, precision):
            o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)

        def mm(a, b, *, precision):
            return jnp.dot(a, b, precision=precision)
    """),
    "entry.py": _kernel(f"""
        from jax import lax
        from . import kern

        PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)

        def _local(x_ref, w_ref, o_ref, *, precision):
            o_ref[...] = kern.mm(x_ref[...], w_ref[...], precision=precision)

        def run(x, w):
            a = pl.pallas_call(functools.partial(kern.body, precision=PAIR), out_shape={_SHAPE})(x, w)
            return a + pl.pallas_call(functools.partial(_local, precision=PAIR), out_shape={_SHAPE})(x, w)
    """)}, "fixed")
# A generic class given its type argument where it is made (`Runner[tuple](PAIR)`; PEP 695's `class Runner[T]`
# the same): the class (the ninth trial's N3: `self.precision` "is computed", [manual]).
PROJECTS["pair_given_to_a_generic_class_subscripted"] = ({
    "kern.py": _kernel(f"""
        from typing import Generic, TypeVar

        T = TypeVar("T")

        def body(x_ref, w_ref, o_ref, *, precision):
            o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)

        class Runner(Generic[T]):
            def __init__(self, precision: T):
                self.precision = precision

            def __call__(self, x, w):
                return pl.pallas_call(functools.partial(body, precision=self.precision), out_shape={_SHAPE})(x, w)
    """),
    "entry.py": "from jax import lax\nfrom . import kern\n\n\ndef run(x, w):\n"
                "    return kern.Runner[tuple]((lax.Precision.DEFAULT, lax.Precision.HIGHEST))(x, w)\n",
}, "fixed")
PROJECTS["pair_through_a_wraps_decorator_of_another_module"] = (_decorated("@traced"), "fixed")
PROJECTS["pair_through_stacked_decorators"] = (_decorated("@traced\n@logged('dense')\n@plain"), "fixed")
# Each decoration its own: the same decorator on XLA code given a scalar (`reference`) hands it neither the
# pair nor the kernel's keywords (read as one wrapper for all, the pair reached XLA code too: [manual]).
for _name, _decoration in (("a_decorator", "@plain"), ("a_decorator_factory", "@logged('dense')")):
    PROJECTS[f"pair_through_{_name}_xla_code_shares"] = ({
        **_decorated(_decoration), "entry.py": _CALLER.replace("from .blocks import dense_kw", "from .blocks import "
                                                               "dense_kw, reference") +
        "\ndef check(x, w):\n    return reference(x, w, precision=lax.Precision.HIGHEST)\n",
        "blocks.py": _decorated(_decoration)["blocks.py"] + "\nimport jax.numpy as jnp\n\n"
                     f"{_decoration}\ndef reference(x, w, **kwargs):\n    return jnp.dot(x, w, **kwargs)\n"}, "fixed")
PROJECTS["pair_through_a_decorator_called_by_name"] = ({
    **_decorated(""), "blocks.py": "from .trace import traced\nfrom .kwmm import kw_mm\n\n"
                                   "def _dense_kw(x, w, **kwargs):\n    return kw_mm(x, w, **kwargs)\n\n"
                                   "dense_kw = traced(_dense_kw)\n"}, "fixed")

# ejkernel's `ejit`: a decorator that returns what `jax.jit` made of the function, or a wrapper calling that,
# on a launch helper given a pair and on XLA code given a scalar. Run once for all its calls, every
# decorated name held every decorated function: the pair reached `reference` too (a needless [manual]),
# and every call of one a launch helper's context (the trees: 107 of ejkernel's). Now run per decoration
# (`link_heap.wrapping_decorators`), `ejit(...)` and its partial applied to the function (one site) apart.
PROJECTS["pair_through_a_decorator_calling_what_jax_jit_made"] = ({
    "jitting.py": """
        import functools
        import os
        import jax

        CACHE = os.environ.get("CACHE_COMPILES") == "1"

        def ejit(func=None, *, static_argnames=None):
            if func is None:
                return functools.partial(ejit, static_argnames=static_argnames)
            jitted_function = jax.jit(func, static_argnames=static_argnames)
            if not CACHE:
                return jitted_function

            @functools.wraps(func)
            def wrapper(*args, **kwargs):
                return jitted_function(*args, **kwargs)
            return wrapper
    """,
    "kern.py": _kernel(f"""
        from .jitting import ejit

        def body(x_ref, w_ref, o_ref, *, precision):
            o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)

        @ejit(static_argnames=("precision",))
        def mm(x, w, precision):
            return pl.pallas_call(functools.partial(body, precision=precision), out_shape={_SHAPE})(x, w)
    """),
    "ref.py": "import jax.numpy as jnp\nfrom .jitting import ejit\n\n\n@ejit(static_argnames=('precision',))\n"
              "def reference(x, w, precision):\n    return jnp.dot(x, w, precision=precision)\n",
    "entry.py": "from jax import lax\nfrom . import kern, ref\n\n\ndef run(x, w):\n"
                "    return kern.mm(x, w, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST)) + \\\n"
                "        ref.reference(x, w, precision=lax.Precision.HIGHEST)\n",
}, "fixed")
# The same with the wrapper calling `jax.jit(func, ...)(*args, **kwargs)` itself.
PROJECTS["pair_through_a_decorator_calling_jax_jit_of_the_function"] = ({
    **PROJECTS["pair_through_a_decorator_calling_what_jax_jit_made"][0],
    "jitting.py": PROJECTS["pair_through_a_decorator_calling_what_jax_jit_made"][0]["jitting.py"].replace(
        "return jitted_function(*args", "return jax.jit(func, static_argnames=static_argnames)(*args")}, "fixed")

# found exploring (`tests/test_flow_property.py --explore 1000 --seed 95`, silent): `__init__` imports a
# factory's name from two submodules, the second importing it back from the package; the summary bound
# both import statements to the last one's target, so the package's name held nothing (a cycle)
PROJECTS["pair_for_a_factory_the_package_imports_from_two_modules"] = ({
    "__init__.py": "from .blocks import make  # noqa: F401\nfrom .relay import make  # noqa: F401\n",
    "blocks.py": """
        import jax
        import jax.numpy as jnp
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        def make(p=None):
            def body(x_ref, w_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=p)
            return body

        def launch(body, x, w):
            out = jax.ShapeDtypeStruct((8, 128), jnp.float32)
            return pl.pallas_call(body, out_shape=out, compiler_params=pltpu.CompilerParams())(x, w)
    """,
    "relay.py": "from . import make  # noqa: F401\nfrom .blocks import launch\n\n"
                "relay = lambda body, x, w: launch(body, x, w)\n",
    "entry.py": """
        from jax import lax
        from . import make
        from .relay import relay

        PREC = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)

        def run(x, w):
            return relay(make(p=PREC), x, w)
    """}, "fixed")


def _write(root: Path, package: str, files: dict[str, str]) -> Path:
    folder = root / package
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip())
    return folder


def _notebook(path: Path, cells: list[str]) -> None:
    """A notebook of these cells: markdown those that start with `#`, code the others."""
    import json

    path.write_text(json.dumps({"cells": [
        {"cell_type": "markdown" if source.startswith("#") else "code", "metadata": {}, "source": source,
         **({} if source.startswith("#") else {"execution_count": None, "outputs": []})} for source in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def _lowering_error(package: str) -> "str | None":
    entry = importlib.import_module(f"{package}.entry")
    x = jax.ShapeDtypeStruct((8, 128), jnp.float32)
    w = jax.ShapeDtypeStruct((128, 128), jnp.float32)
    try:
        with jax_support.abstract_tpu():
            return jax_support.lowering_error(jax.jit(entry.run), (x, w), "tpu")
    finally:
        for name in [name for name in sys.modules if name.split(".")[0] == package]:
            del sys.modules[name]


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_a_pair_reaching_a_kernel_through_other_modules_is_fixed_or_reported(name: str, tmp_path: Path) -> None:
    files, outcome = PROJECTS[name]
    package = f"flowcase_{name}"
    folder = _write(tmp_path, package, files)
    sys.path.insert(0, str(tmp_path))
    try:
        assert "Per-operand dot precision unsupported" in (_lowering_error(package) or "")
        before = {path: path.read_bytes() for path in folder.glob("*.py")}
        results = run([folder], registry.select(["JAX001"]), Settings((0, 12, 0, 1), unsafe_fixes=True), jobs=1,
                      project=discover([folder]))
        assert all(result.error is None for result in results), [result.error for result in results]
        findings = [(Path(result.path).name, finding) for result in results for finding in result.findings]
        for result in results:
            if result.new_source is not None:
                Path(result.path).write_bytes(result.new_source)
        error = _lowering_error(package)
        if outcome == "fixed":
            assert error is None, (error, findings)
        else:
            assert error is not None and [kind for _, finding in findings if (kind := finding.kind) is Kind.MANUAL], findings
            assert {path: path.read_bytes() for path in folder.glob("*.py")} == before  # XLA code keeps its numerics
    finally:
        sys.path.remove(str(tmp_path))


def _answers(modules: dict[str, str]) -> dict:
    return link([summarise(textwrap.dedent(text), name) for name, text in modules.items()], FOLLOWS)[0]


_LAUNCHED = """
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    def body(x_ref, o_ref, precision=None):
        o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=precision)
    def run(x, precision):
        return pl.pallas_call(functools.partial(body, precision=precision), out_shape=x)(x)
"""


def test_an_unknown_value_is_named_at_the_kernel_call() -> None:
    """A precision from `getattr` or an installed package's call: never nothing at the site."""
    answers = _answers({"k": "import functools\n" + textwrap.dedent(_LAUNCHED),
                        "m": "import k, settings_lib\ndef f(x):\n    return k.run(x, settings_lib.precision())\n"})
    [sink] = answers["k"].sinks
    assert sink.reached and not sink.pairs
    assert sink.unknown == ("what `settings_lib.precision` gives (an installed package's code)",)


@pytest.mark.parametrize("plain", ["pass", "print(DOTS['mixed'], DOTS)", "jnp.sum(DOTS['mixed'](x, x))",
                                   "apply(DOTS['mixed'], x)", "jax.tree.leaves(DOTS)", "apply(DOTS, x)"])
def test_a_pair_in_a_kernel_helper_plain_code_may_run_too_is_not_fixable(plain: str) -> None:
    """A function held in a table kernels call through: plain code calling it, handing it to an
    installed package's code the link does not follow, or handing that code the table, may run it
    outside kernels, so its pair is read there too. Python's builtins hand functions on without
    calling them."""
    answers = _answers({
        "dots": "import jax.numpy as jnp\nfrom jax import lax\ndef dot_mixed(a, b):\n"
                "    return jnp.dot(a, b, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n"
                "DOTS = {'mixed': dot_mixed}\n",
        "entry": "import functools, jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n"
                 "from lib import apply\nfrom dots import DOTS\n"
                 "def body(x_ref, o_ref):\n    o_ref[...] = DOTS['mixed'](x_ref[...], x_ref[...])\n"
                 f"def run(x):\n    return pl.pallas_call(body, out_shape=x)(x)\ndef reference(x):\n    {plain}\n"})
    [sink] = answers["dots"].sinks
    [reach] = sink.pairs
    assert sink.backends and reach.fixable == (plain in ("pass", "print(DOTS['mixed'], DOTS)")), reach.readers


def test_a_precision_a_comprehension_or_zip_builds_is_named_at_the_kernel_call() -> None:
    """The link follows what comprehensions and `zip` hold, but a tuple they build at run time has no
    literal to rewrite: `[p for p in PAIR]`, `for row in zip(FIRST, SECOND)`: never nothing at the site."""
    answers = _answers({"k": "import functools\n" + textwrap.dedent(_LAUNCHED),
                        "m": "import k\nfrom jax import lax\nP = lax.Precision\n"
                             "def f(x):\n    k.run(x, [p for p in (P.HIGH, P.DEFAULT)])\n"
                             "    for row in zip((P.HIGH,), (P.DEFAULT,)):\n        k.run(x, row)\n"})
    [sink] = answers["k"].sinks
    assert sink.reached and not sink.pairs
    assert sink.unknown == ("a comprehension (m:5)", "a row `zip` builds (m:6)")


def test_a_function_nothing_in_the_project_calls_runs_with_its_defaults() -> None:
    answers = _answers({"k": "import functools\nfrom jax import lax\n" + textwrap.dedent(_LAUNCHED).replace(
        "def run(x, precision):", "def run(x, precision=(lax.Precision.HIGH, lax.Precision.DEFAULT)):")})
    [sink] = answers["k"].sinks
    assert [reach.levels for reach in sink.pairs] == [(("HIGH",), ("DEFAULT",))]
    assert [origin.site for origin in answers["k"].origins] == [(8, 21)]  # the default, where it is written


def _sink_of_run(module: str) -> object:
    """The sink of `_LAUNCHED`'s kernel (module `k`), `run` called by `module` (`m`)."""
    [sink] = _answers({"k": "import functools\n" + textwrap.dedent(_LAUNCHED), "m": module})["k"].sinks
    return sink


@pytest.mark.parametrize("handed", ["", "logging.info(LAYER)\n"])
def test_a_field_a_method_the_project_never_calls_writes_is_held_by_every_instance(handed: str) -> None:
    """A dataclass's instances are told apart by the site that makes them, but `setup` (a framework
    calls it, not the project) runs on any instance: the pair it writes is held by `LAYER`, made at its own site,
    and read by the installed code `LAYER` is handed to."""
    sink = _sink_of_run("import dataclasses, k, logging\nfrom jax import lax\n@dataclasses.dataclass\n"
                        "class Layer:\n    precision: object = None\n    def setup(self):\n"
                        "        self.precision = (lax.Precision.HIGH, lax.Precision.DEFAULT)\n"
                        "    def __call__(self, x):\n        return k.run(x, self.precision)\n"
                        "LAYER = Layer()\ndef f(x):\n    return LAYER(x)\n" + handed)
    [reach] = sink.pairs
    assert reach.levels == (("HIGH",), ("DEFAULT",)) and reach.fixable == (not handed), reach.readers


@pytest.mark.parametrize("sites", [2, 20])
def test_a_dataclass_made_at_many_sites_has_one_instance_for_all_which_those_made_before_read(sites: int) -> None:
    """Past 16 sites a dataclass's instances are one (the link's cost): `FIRST`, made before, holds its
    fields from then on, the pair `setup` (which the project never calls) writes into any instance too."""
    made = "".join(f"C{number} = Cfg()\n" for number in range(sites))
    sink = _sink_of_run("import dataclasses, k\nfrom jax import lax\n@dataclasses.dataclass\nclass Cfg:\n"
                        "    precision: object = None\n    def setup(self):\n"
                        "        self.precision = (lax.Precision.HIGH, lax.Precision.DEFAULT)\n"
                        f"FIRST = Cfg()\n{made}def f(x):\n    return k.run(x, FIRST.precision)\n")
    assert [reach.levels for reach in sink.pairs] == [(("HIGH",), ("DEFAULT",))]


@pytest.mark.parametrize("made", ["Cfg(**{'precision': PAIR})", "Cfg(**CHANGES)", "Cfg(*(1, PAIR))", "Cfg(*ARGS)",
                                  "dataclasses.replace(Cfg(), **{'precision': PAIR})",
                                  "dataclasses.replace(Cfg(), **CHANGES)", "Cfg(**settings_lib.changes())",
                                  "Cfg(1, *settings_lib.args())", "dataclasses.replace(Cfg(), **settings_lib.changes())"])
def test_a_dataclass_given_its_fields_by_a_spread_holds_them(made: str) -> None:
    """`Cfg(**changes)`, `Cfg(*args)`, `dataclasses.replace(cfg, **changes)`: the fields were bound from
    explicit arguments only, and the pair a spread gives was nothing at the kernel (no finding, the kernel
    failing). Now a mapping's entries by name, a tuple's elements from their position on, and an
    installed package's value named at the kernel."""
    sink = _sink_of_run("import k, dataclasses, settings_lib\nfrom jax import lax\n"
                        "PAIR = (lax.Precision.HIGH, lax.Precision.DEFAULT)\nCHANGES = dict(precision=PAIR)\n"
                        "ARGS = [1, PAIR]\n@dataclasses.dataclass\nclass Cfg:\n    block: int = 1\n"
                        f"    precision: object = None\nNEW = {made}\ndef f(x):\n    return k.run(x, NEW.precision)\n")
    installed = "settings_lib" in made
    assert [reach.levels for reach in sink.pairs] == ([] if installed else [(("HIGH",), ("DEFAULT",))])
    assert bool(sink.unknown) == installed, sink.unknown


def test_a_pair_also_handed_to_an_installed_function_is_not_fixable() -> None:
    answers = _answers({"k": "import functools\nfrom jax import lax\nimport logging\n" + textwrap.dedent(_LAUNCHED),
                        "m": "import k, logging\nfrom jax import lax\nPAIR = (lax.Precision.HIGH, lax.Precision.DEFAULT)\n"
                             "logging.info(PAIR)\ndef f(x):\n    return k.run(x, PAIR)\n"})
    [sink] = answers["k"].sinks
    [reach] = sink.pairs
    assert not reach.fixable and reach.readers == ("`logging.info` (m:4)",)
    [origin] = answers["m"].origins  # not rewritten where it is written: it says who else reads it
    assert origin.readers == reach.readers


def test_equal_pairs_and_scalars_are_no_findings() -> None:
    answers = _answers({"k": "import functools\n" + textwrap.dedent(_LAUNCHED),
                        "m": "import k\nfrom jax import lax\nP = lax.Precision\n"
                             "def f(x):\n    return k.run(x, (P.HIGH, P.HIGH)), k.run(x, P.DEFAULT), k.run(x, 'highest')\n"})
    [sink] = answers["k"].sinks
    assert sink.reached and not sink.pairs and not sink.unknown


def test_a_spread_tuple_of_known_length_lands_element_by_element() -> None:
    """`run(*(x, "highest"))`: the array is `x`, the precision the string; were each element bound to
    every parameter from there on, the installed `jnp.ones` would reach the precision as an unknown."""
    answers = _answers({"k": "import functools\n" + textwrap.dedent(_LAUNCHED),
                        "m": "import k\nimport jax.numpy as jnp\n"
                             "def f():\n    return k.run(*(jnp.ones(3), 'highest'))\n"})
    [sink] = answers["k"].sinks
    assert sink.reached and not sink.pairs and sink.unknown == ()


def test_a_partial_of_itself_ends() -> None:
    """`step = functools.partial(step, ...)` in a loop makes a partial whose function is itself (seen in
    ejkernel): calling or launching it ends, and the body it wraps is still kernel code."""
    answers = _answers({"k": "import functools\nfrom jax import lax\n" + textwrap.dedent(_LAUNCHED) +
                        "def loop(x):\n    step = functools.partial(body, precision=(lax.Precision.HIGH, lax.Precision.DEFAULT))\n"
                        "    for _ in range(3):\n        step = functools.partial(step)\n"
                        "    step(x, x)\n    return pl.pallas_call(step, out_shape=x)(x)\n"})
    [sink] = answers["k"].sinks
    assert [reach.levels for reach in sink.pairs] == [(("HIGH",), ("DEFAULT",))]


def test_a_notebook_passing_a_pair_to_a_wrapper_of_the_project_is_fixed(tmp_path: Path) -> None:
    """A notebook is a module no other imports, but it passes values to the project's wrappers as
    any module does: its pair, handed through `**opts` to a kernel, is fixed in its cell (`--check`
    passed while the kernel failed to lower), and the cell's code then lowers."""
    import json

    files, _ = PROJECTS["kwargs_through_helpers"]
    package = "flowcase_notebook"
    _write(tmp_path, package, {"kern.py": files["kern.py"]})
    cell = ("from jax import lax\nfrom flowcase_notebook.kern import matmul\n\n\ndef run(x, w):\n"
            "    return matmul(x, w, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n")
    notebook = tmp_path / "explore.ipynb"
    notebook.write_text(json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "execution_count": None,
                                               "outputs": [], "source": cell.splitlines(keepends=True)}],
                                    "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    results = run([tmp_path], registry.select(["JAX001"]), Settings((0, 12, 0, 1)), jobs=1, project=discover([tmp_path]))
    [result] = [r for r in results if r.path.endswith("explore.ipynb")]
    assert [(f.code, f.kind) for f in result.findings] == [("JAX001", Kind.FIXED)], result.findings
    fixed = "".join(json.loads(result.new_source)["cells"][0]["source"])
    module = type(sys)("explore")
    sys.path.insert(0, str(tmp_path))
    try:
        exec(compile(fixed, "explore", "exec"), module.__dict__)  # noqa: S102 - the cell as the tool wrote it
        x = jax.ShapeDtypeStruct((8, 128), jnp.float32)
        w = jax.ShapeDtypeStruct((128, 128), jnp.float32)
        with jax_support.abstract_tpu():
            assert jax_support.lowering_error(jax.jit(module.run), (x, w), "tpu") is None
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name.split(".")[0] == package]:
            del sys.modules[name]


def test_the_link_starts_from_the_packages_that_launch_kernels_and_their_importers_never_jax(tmp_path: Path) -> None:
    """What `linked` holds: every module of a package that launches a kernel, every module that
    imports one, however indirectly; not a package that does neither (read on demand only, as
    the pair the kernel package imports from `numerics` is), nor jax itself (a jax source tree
    beside the project: `jnp.dot` stays the call the rule follows, not a def of the project)."""
    from codemods.analysis.project import ProjectIndex

    files, _ = PROJECTS["kwargs_through_helpers"]
    files = {**files, "cfg.py": "from numerics.pairs import PAIR\n"}
    sources = {"numerics/__init__.py": "", "numerics/pairs.py": "from jax import lax\n"
               "PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
               "other/__init__.py": "", "other/table.py": "import numpy as np\nTABLE = (1, 2)\n",
               "app/__init__.py": "", "app/main.py": "from flowcase_scope import entry\n",
               "app/cli.py": "from app.main import entry\n",
               "jax/__init__.py": "from jax import numpy, lax\n",
               "jax/numpy.py": "def dot(a, b, precision=None):\n    return a\n",
               "jax/lax.py": "class Precision:\n    DEFAULT = 0\n    HIGHEST = 2\n",
               "jax/experimental/__init__.py": "",
               "jax/experimental/pallas/__init__.py": "def pallas_call(f, **kw):\n    return f\n"}
    _write(tmp_path, "flowcase_scope", files)
    for name, text in sources.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    index = ProjectIndex([str(path) for path in sorted(tmp_path.rglob("*.py"))], lambda path: Path(path).read_bytes())
    assert sorted(index.linked()) == ["app.cli", "app.main", "flowcase_scope", "flowcase_scope.cfg",
                                      "flowcase_scope.entry", "flowcase_scope.kern"]
    results = run([tmp_path / "numerics"], registry.select(["JAX001"]), Settings((0, 12, 0, 1)), jobs=1,
                  project=discover([tmp_path]))
    assert [(Path(r.path).name, f.kind) for r in results for f in r.findings] == [("pairs.py", Kind.FIXED)]


def test_a_helper_read_on_demand_that_plain_code_outside_the_link_calls_gets_no_answer(tmp_path: Path) -> None:
    """A kernel package calls `helpers.mm` of another package, whose pair the link sees reach the
    kernel only; but a third package, outside the link, calls `mm` from plain XLA code (17 modules). What the
    link says of `helpers` is not kept (it knows some of its callers only): the pair is not
    rewritten (it would change what the plain code computes)."""
    sources = {
        "helpers/__init__.py": "",
        "helpers/mm.py": "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef mm(a, b):\n"
        "    return jnp.dot(a, b, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n",
        "kernels/__init__.py": "",
        "kernels/kern.py": "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n"
        "from helpers.mm import mm\n\n\ndef body(x_ref, w_ref, o_ref):\n    o_ref[...] = mm(x_ref[...], w_ref[...])\n\n\n"
        "run = pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))\n",
        "plain/__init__.py": "",
        # (more plain users than the module's own analysis follows: the link alone would speak of them)
        **{f"plain/model_{number}.py": "from helpers.mm import mm\n\n\ndef f(a, b):\n    return mm(a, b)\n"
           for number in range(17)},
    }
    for name, text in sources.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    results = run([tmp_path], registry.select(["JAX001"]), Settings((0, 12, 0, 1)), jobs=1, project=discover([tmp_path]))
    assert [r.path for r in results if r.new_source is not None] == []


def test_the_answers_are_kept_until_a_summary_they_were_linked_from_changes(tmp_path: Path, monkeypatch) -> None:
    """A warm run links nothing where no module changed, nor where an edit leaves every summary as
    it was (a comment at a module's end); an edit of what the link read links again, and the
    answer is the new code's (the same as a cold run's)."""
    from codemods.analysis.project import flow
    from codemods.engine.cache import ResultCache

    files, _ = PROJECTS["kwargs_through_helpers"]
    folder = _write(tmp_path, "flowcase_kept", files)
    settings = Settings((0, 12, 0, 1))
    cache = ResultCache(tmp_path / "cache", settings)
    links = []
    real_link = flow.link
    monkeypatch.setattr(flow, "link", lambda *args: links.append(1) or real_link(*args))

    def findings() -> list:
        results = run([folder], registry.select(["JAX001"]), settings, jobs=1, cache=cache, project=discover([folder]))
        return [(Path(r.path).name, f.kind, f.message) for r in results for f in r.findings]

    cold = findings()
    assert [(name, kind) for name, kind, _ in cold] == [("cfg.py", Kind.FIXED)] and len(links) == 1
    assert findings() == cold and len(links) == 1
    (folder / "kern.py").write_text((folder / "kern.py").read_text() + "# a note\n")
    assert findings() == cold and len(links) == 1
    (folder / "cfg.py").write_text("from jax import lax\nPAIR = (lax.Precision.HIGH, lax.Precision.HIGHEST)\n")
    warm = findings()
    assert len(links) == 2 and warm != cold
    cache = ResultCache(tmp_path / "cold", settings)
    assert findings() == warm


_SHARED_PAIR = {
    "cfg.py": "from jax import lax\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
    "kern.py": _entry_reading("from . import cfg", "cfg.PAIR"),
    "reference.py": "import jax.numpy as jnp\nfrom . import cfg\n\ndef reference(x, w):\n"
                    "    return jnp.dot(x, w, precision=cfg.PAIR)\n",
}


@pytest.mark.parametrize("edit", [
    pytest.param(lambda text: "# a note\n\n" + text, id="lines above"),
    pytest.param(lambda text: text.replace("(", "( ", 1).replace("\n", "\n# between\n", 3), id="columns and lines"),
])
@pytest.mark.parametrize("module", sorted(_SHARED_PAIR))
def test_an_edit_that_only_moves_code_moves_the_kept_answers_and_links_nothing(
        tmp_path: Path, monkeypatch, module: str, edit) -> None:
    """Code moved down or right (a comment above it, a space in a call) changes a module's summary in
    its sites only: the kept answers are moved with them (where the kernel's call is, where the pair
    is written, the line of the plain XLA code that also reads it, in the finding's message), and the
    findings are a cold run's, with no link run. Counted: the link took 7 of 8.5 s of CPU for a
    comment at the top of an ejkernel module in kernel packages + site-packages."""
    from codemods.analysis.project import flow
    from codemods.engine.cache import ResultCache

    folder = _write(tmp_path, "flowcase_moved", _SHARED_PAIR)
    settings = Settings((0, 12, 0, 1))
    links = []
    real_link = flow.link
    monkeypatch.setattr(flow, "link", lambda *args: links.append(1) or real_link(*args))

    def findings(cache: str) -> list:
        results = run([folder], registry.select(["JAX001"]), settings, jobs=1,
                      cache=ResultCache(tmp_path / cache, settings), project=discover([folder]))
        return [(Path(r.path).name, f.line, f.column, f.kind, f.message) for r in results for f in r.findings]

    before = findings("warm")
    assert [(name, kind) for name, _, _, kind, _ in before] == [("kern.py", Kind.MANUAL)] and len(links) == 1
    assert "reference:5" in before[0][4] and "on line 2" in before[0][4]
    path = folder / module
    path.write_text(edit(path.read_text()))
    warm = findings("warm")
    assert len(links) == 1 and warm != before
    assert warm == findings("cold") and len(links) == 2


@pytest.mark.parametrize("edit", [
    pytest.param(lambda text: text + "# a note\n", id="a comment at the end"),
    pytest.param(lambda text: "# a note\n" + text, id="code moved"),
])
def test_a_run_that_takes_the_kept_answers_reads_no_kept_summary(tmp_path: Path, monkeypatch, edit) -> None:
    """The state keeps each summary's hash as data and the summaries themselves in one blob, read
    when one is asked for: a run whose answers are kept makes no summary of the kept data (where
    code moved, the edited module's kept summary is compared as data). Before, every kept summary
    was made on restoring the state: 0.1 s of CPU, with 0.15 s to load them, of a 1.15 s run on a
    file touched in kernel packages + site-packages, which needs none. Counted, not timed."""
    from codemods.analysis.project import flow
    from codemods.engine.cache import ResultCache

    folder = _write(tmp_path, "flowcase_lazy", _SHARED_PAIR)
    settings = Settings((0, 12, 0, 1))
    read_back = []
    real_from_data = flow.from_data
    monkeypatch.setattr(flow, "from_data", lambda data: read_back.append(data[0]) or real_from_data(data))

    def findings(cache: str) -> list:
        results = run([folder], registry.select(["JAX001"]), settings, jobs=1,
                      cache=ResultCache(tmp_path / cache, settings), project=discover([folder]))
        return [(Path(r.path).name, f.line, f.kind, f.message) for r in results for f in r.findings]

    findings("warm")
    path = folder / "kern.py"
    path.write_text(edit(path.read_text()))
    warm = findings("warm")
    assert read_back == []
    assert warm == findings("cold")


# -- accuracy= hints handed on in **kwargs (JAX002's follows): answered by where they are written --

_TANH_LAUNCHED = """
    import functools
    from jax import lax
    from jax.experimental import pallas as pl
    def body(x_ref, o_ref, **op_kwargs):
        o_ref[...] = lax.tanh(x_ref[...], **op_kwargs)
    def tanh(x, **op_kwargs):
        return pl.pallas_call(functools.partial(body, **op_kwargs), out_shape=x)(x)
"""


def _hint_answers(modules: dict[str, str]) -> dict:
    from codemods.rules.accuracy_hints import RULE

    return link([summarise(textwrap.dedent(text), name) for name, text in modules.items()], RULE.follows)[0]


def _droppable(answers: dict, module: str) -> list:
    """The module's origins the link lets a rule drop where written (those no other code reads)."""
    return [origin for origin in answers[module].origins if not origin.readers] if module in answers else []


def test_a_hint_handed_on_in_kwargs_is_answered_where_it_is_written() -> None:
    """The call keyword two **kwargs layers away, the dict entry and the dict(...) call: each an
    origin to drop in the module that writes it, the kernel's call answered with all three."""
    answers = _hint_answers({
        "k": _TANH_LAUNCHED,
        "layers": "import k\ndef gelu(x, **kw):\n    return k.tanh(x, **kw)\n",
        "m": "import layers, k\nfrom jax import lax\nA = {'accuracy': lax.AccuracyMode.HIGHEST}\n"
             "B = dict(accuracy=lax.AccuracyMode.HIGHEST)\n"
             "def f(x):\n    return layers.gelu(x, accuracy=lax.AccuracyMode.HIGHEST), k.tanh(x, **A), k.tanh(x, **B)\n"})
    [sink] = answers["k"].sinks
    assert [(reach.module, reach.site, reach.fixable) for reach in sink.pairs] == [
        ("m", (3, 4), True), ("m", (4, 4), True), ("m", (6, 11), True)]
    assert not sink.unknown
    assert [origin.site for origin in answers["m"].origins] == [(3, 4), (4, 4), (6, 11)]


def test_a_hint_plain_code_or_an_installed_function_reads_too_is_not_dropped_where_it_is_written() -> None:
    answers = _hint_answers({
        "k": _TANH_LAUNCHED,
        "m": "import json, k\nfrom jax import lax\nA = {'accuracy': lax.AccuracyMode.HIGHEST}\n"
             "B = {'accuracy': lax.AccuracyMode.HIGHEST}\njson.dumps(B)\n"
             "def f(x):\n    return k.tanh(x, **A), k.tanh(x, **B)\n"
             "def reference(x):\n    return lax.tanh(x, **A)\n"})
    [sink] = answers["k"].sinks
    assert [(reach.site, reach.fixable, reach.readers) for reach in sink.pairs] == [
        ((3, 4), False, ("`jax.lax.tanh` outside kernels (m:9)",)), ((4, 4), False, ("`json.dumps` (m:5)",))]
    assert not _droppable(answers, "m")


def test_a_hint_a_partial_binds_is_located_by_the_partial() -> None:
    """`functools.partial(body, accuracy=9)`: no call of the body writes it, the partial does (a
    hint passed by keyword carries where it is written): dropped there when only kernels read it."""
    bound = _hint_answers({"k": _TANH_LAUNCHED.replace("**op_kwargs), out_shape", "accuracy=9), out_shape"),
                           "m": "import k\ndef f(x):\n    return k.tanh(x)\n"})
    [sink] = bound["k"].sinks
    assert [(reach.module, reach.site, reach.fixable) for reach in sink.pairs] == [("k", (8, 26), True)]
    assert not sink.unknown
    assert [origin.site for origin in bound["k"].origins] == [(8, 26)]


def test_a_hint_the_link_cannot_locate_is_named_at_the_kernel_call() -> None:
    """A wrapper no code of the project calls (an entry point: its callers are elsewhere)."""
    [sink] = _hint_answers({"k": _TANH_LAUNCHED})["k"].sinks
    assert sink.reached and not sink.pairs
    assert sink.unknown == ("what the callers of `k.tanh` outside the project pass in its **kwargs",)


def test_only_none_reaching_a_hint_is_nothing_to_say() -> None:
    answers = _hint_answers({"k": _TANH_LAUNCHED, "m": "import k\ndef f(x):\n    return k.tanh(x, accuracy=None), k.tanh(x)\n"})
    [sink] = answers["k"].sinks
    assert sink.reached and not sink.pairs and not sink.unknown


def test_a_namedtuple_built_in_another_module_holds_the_fields_it_was_given() -> None:
    """`Config(opts={...})` of a typing.NamedTuple binds its fields as a dataclass's do: the hint in
    the dict the kernel spreads (`**cfg.opts`) is found where it is written."""
    answers = _hint_answers({
        "config": "from typing import NamedTuple\nclass Config(NamedTuple):\n    eps: float = 1e-6\n    opts: dict = {}\n",
        "k": "import functools\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n"
             "def body(x_ref, o_ref, *, cfg):\n    o_ref[...] = lax.rsqrt(x_ref[...], **cfg.opts)\n"
             "def norm(x, cfg):\n    return pl.pallas_call(functools.partial(body, cfg=cfg), out_shape=x)(x)\n",
        "m": "import k\nfrom jax import lax\nfrom config import Config\n"
             "CFG = Config(1e-5, opts={'accuracy': lax.AccuracyMode.HIGHEST})\ndef f(x):\n    return k.norm(x, CFG)\n"})
    [sink] = answers["k"].sinks
    assert [(reach.module, reach.site, reach.fixable) for reach in sink.pairs] == [("m", (4, 24), True)]


def test_a_hint_a_triton_kernel_reads_too_is_dropped_where_it_is_written_only_for_a_mosaic_one() -> None:
    """Triton ignores accuracy=: a dict a Triton kernel and a Mosaic TPU kernel both spread is dropped
    where it is written; one only a Triton kernel spreads is left alone."""
    def launched(name: str, params: str) -> str:
        return (f"def {name}_body(x_ref, o_ref, **kw):\n    o_ref[...] = lax.exp(x_ref[...], **kw)\n"
                f"def {name}(x, **kw):\n    return pl.pallas_call(functools.partial({name}_body, **kw), out_shape=x, "
                f"compiler_params={params})(x)\n")
    head = "import functools\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n" \
           "from jax.experimental.pallas import tpu as pltpu, triton as pltriton\n"
    kernels = head + launched("on_tpu", "pltpu.CompilerParams()") + launched("on_triton", "pltriton.CompilerParams()")
    answers = _hint_answers({"k": kernels, "m": "import k\nfrom jax import lax\nBOTH = {'accuracy': lax.AccuracyMode.HIGHEST}\n"
                             "TRITON = {'accuracy': lax.AccuracyMode.HIGHEST}\n"
                             "def f(x):\n    return k.on_tpu(x, **BOTH), k.on_triton(x, **BOTH), k.on_triton(x, **TRITON)\n"})
    assert [origin.site for origin in answers["m"].origins] == [(3, 7)]


def test_a_hint_set_in_a_dict_after_it_is_written_is_a_note_there(tmp_path: Path) -> None:
    """`OPTS["accuracy"] = ...` after `OPTS = {}`: the link finds the dict, which holds no entry to
    drop; never silent: a [manual] note where the dict is written, and nothing rewritten."""
    folder = _write(tmp_path, "hintset", {
        "k.py": "from jax.experimental.pallas import tpu as pltpu\n" + textwrap.dedent(_TANH_LAUNCHED).replace(
            "out_shape=x)", "out_shape=x, compiler_params=pltpu.CompilerParams())"),
        "m.py": "from jax import lax\nfrom . import k\nOPTS = {}\nOPTS['accuracy'] = lax.AccuracyMode.HIGHEST\n\n"
                "def f(x):\n    return k.tanh(x, **OPTS)\n"})
    results = run([folder], registry.select(["JAX002"]), Settings((0, 12, 0, 1), unsafe_fixes=True), jobs=1,
                  project=discover([folder]))
    findings = [(Path(r.path).name, f.line, f.kind) for r in results for f in r.findings]
    assert findings == [("m.py", 3, Kind.MANUAL)]
    assert all(r.new_source is None for r in results)


def test_a_hint_reaching_a_helper_only_the_link_finds_in_kernel_code_is_named_there(tmp_path: Path) -> None:
    """The kernel calls a helper out of another module's table (`HELPERS[mode](x, **OPTS)`): only the
    link runs the helper in the kernel. The dict plain XLA code splats too cannot be dropped where it
    is written; the helper's op says so, where this module's analysis sees no kernel at all."""
    folder = _write(tmp_path, "hinttable", {
        "ops.py": "from jax import lax\n\n\ndef exp_with(x, **opts):\n    return lax.exp(x, **opts)\n",
        "tables.py": "from . import ops\n\nHELPERS = {'exp': getattr(ops, 'exp_with')}\n",
        "kernels.py": """
            import functools
            import jax
            from jax import lax
            from jax.experimental import pallas as pl
            from jax.experimental.pallas import tpu as pltpu
            from . import tables

            OPTS = {"accuracy": lax.AccuracyMode.HIGHEST}

            def _kernel(x_ref, o_ref, *, mode):
                o_ref[...] = tables.HELPERS[mode](x_ref[...], **OPTS)

            def run(x):
                return pl.pallas_call(functools.partial(_kernel, mode="exp"), out_shape=x,
                                      compiler_params=pltpu.CompilerParams())(x)

            def reference(x):
                return lax.exp(x, **OPTS)
        """})
    results = run([folder], registry.select(["JAX002"]), Settings((0, 12, 0, 1), unsafe_fixes=True), jobs=1,
                  project=discover([folder]))
    findings = [(Path(r.path).name, f.line, f.kind, f.message) for r in results for f in r.findings]
    assert [(name, line, kind) for name, line, kind, _ in findings] == [("ops.py", 5, Kind.MANUAL)]
    assert "`jax.lax.exp` outside kernels (hinttable.kernels:18)" in findings[0][3]
    assert all(r.new_source is None for r in results)


@pytest.mark.parametrize("read", ["op_kwargs.get('accuracy')", "op_kwargs['accuracy']"])
def test_a_hint_code_reads_out_of_the_kwargs_is_not_dropped_where_it_is_written(read: str) -> None:
    """The wrapper hands its **kwargs to the kernel and reads the hint out of them for plain XLA code
    (`lax.tanh(x, accuracy=op_kwargs.get("accuracy"))`): the caller's keyword is read there too."""
    wrapper = _TANH_LAUNCHED.replace("    def tanh(x, **op_kwargs):\n", "    def tanh(x, **op_kwargs):\n"
                                     f"        x = lax.tanh(x, accuracy={read})\n")
    answers = _hint_answers({"k": wrapper, "m": "import k\nfrom jax import lax\n"
                             "def f(x):\n    return k.tanh(x, accuracy=lax.AccuracyMode.HIGHEST)\n"})
    [sink] = answers["k"].sinks
    [reach] = sink.pairs
    assert (reach.module, reach.site, reach.fixable) == ("m", (4, 11), False), reach
    assert not _droppable(answers, "m")


def test_a_hint_spread_into_a_parameter_of_its_name_is_not_dropped_where_it_is_written() -> None:
    """The wrapper spreads its **kwargs into the kernel and into plain code whose parameter is named
    accuracy (`xla_tanh(x, **op_kwargs)`): that code reads the caller's keyword too."""
    wrapper = _TANH_LAUNCHED.replace("    def tanh(x, **op_kwargs):\n", (
        "    def xla_tanh(x, accuracy=None):\n        return lax.tanh(x, accuracy=accuracy)\n"
        "    def tanh(x, **op_kwargs):\n        x = xla_tanh(x, **op_kwargs)\n"))
    answers = _hint_answers({"k": wrapper, "m": "import k\nfrom jax import lax\n"
                             "def f(x):\n    return k.tanh(x, accuracy=lax.AccuracyMode.HIGHEST)\n"})
    [sink] = answers["k"].sinks
    [reach] = sink.pairs
    assert not reach.fixable and reach.readers == ("`jax.lax.tanh` outside kernels (k:8)",
                                                   "`k.xla_tanh` (its parameter `accuracy`)"), reach
    assert not _droppable(answers, "m")


def test_a_hint_set_into_the_kwargs_or_from_an_installed_mapping_is_named_at_the_kernel_call() -> None:
    """`op_kwargs["accuracy"] = ...` in the wrapper (written where no call or dict writes it), and
    options an installed package's call gives: never nothing at the kernel's call."""
    stored = _TANH_LAUNCHED.replace("    def tanh(x, **op_kwargs):\n", (
        "    def tanh(x, **op_kwargs):\n        op_kwargs['accuracy'] = lax.AccuracyMode.HIGHEST\n"))
    [sink] = _hint_answers({"k": stored, "m": "import k\ndef f(x):\n    return k.tanh(x)\n"})["k"].sinks
    assert not sink.pairs and sink.unknown == ("a mapping the analysis does not follow to where it is written",)
    installed = _TANH_LAUNCHED.replace("**op_kwargs), out_shape", "**settings_lib.options()), out_shape").replace(
        "import functools", "import functools, settings_lib")
    [sink] = _hint_answers({"k": installed, "m": "import k\ndef f(x):\n    return k.tanh(x)\n"})["k"].sinks
    assert not sink.pairs and sink.unknown == ("what `settings_lib.options` gives (an installed package's code)",)


def test_a_hint_in_code_a_launch_the_link_does_not_follow_may_run_is_a_note(tmp_path: Path) -> None:
    """`getattr(launchers, f"launch_{backend}")(functools.partial(body, **OPTS), x)`: the body may run in
    a Mosaic TPU kernel (it does, and fails to lower); its op says so, with where the hint is written."""
    folder = _write(tmp_path, "hintmaybe", {
        "launchers.py": """
            import jax
            from jax.experimental import pallas as pl
            from jax.experimental.pallas import tpu as pltpu

            def launch_tpu(body, x):
                return pl.pallas_call(body, out_shape=x, compiler_params=pltpu.CompilerParams())(x)
        """,
        "kernels.py": """
            import functools
            from jax import lax
            from . import launchers

            OPTS = {"accuracy": lax.AccuracyMode.HIGHEST}

            def body(x_ref, o_ref, **kw):
                o_ref[...] = lax.exp(x_ref[...], **kw)

            def run(x, backend="tpu"):
                return getattr(launchers, f"launch_{backend}")(functools.partial(body, **OPTS), x)
        """})
    results = run([folder], registry.select(["JAX002"]), Settings((0, 12, 0, 1), unsafe_fixes=True), jobs=1,
                  project=discover([folder]))
    findings = [(Path(r.path).name, f.line, f.kind, f.message) for r in results for f in r.findings]
    assert [(name, line, kind) for name, line, kind, _ in findings] == [("kernels.py", 8, Kind.MANUAL)]
    assert "(written in `hintmaybe.kernels` on line 5), and this code may run in a kernel launched through " \
           "getattr with a computed name (hintmaybe.kernels:11)" in findings[0][3]
    assert all(r.new_source is None for r in results)


@pytest.mark.parametrize("rule, value_file, value, kernel_line", [
    ("JAX001", "consts.py", "from jax import lax\nSCORES = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
     "o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=SCORES)"),
    ("JAX002", "consts.py", "from jax import lax\nSCORES = {'accuracy': lax.AccuracyMode.HIGHEST}\n",
     "o_ref[...] = lax.exp(x_ref[...], **SCORES)"),
])
def test_a_run_without_the_file_a_kernels_value_is_written_in_says_so_at_the_kernel(
        tmp_path: Path, rule: str, value_file: str, value: str, kernel_line: str) -> None:
    """A run over the kernel's file only (one file named, a PR's changed files, a pre-commit hook):
    the fix is where the value is written, in a file the run does not process, so the kernel's call
    says so and `--check` fails. It passed silently (a new user's trial, S2). A run with that file
    fixes it there and says nothing at the kernel."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    folder = _write(tmp_path, "pkg", {value_file: value, "ops.py": _kernel(f"""
        from jax import lax
        from pkg.consts import SCORES

        def body(x_ref, o_ref):
            {kernel_line}

        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """)})
    settings = Settings((0, 12, 0, 1), unsafe_fixes=True)
    [alone] = run([folder / "ops.py"], registry.select([rule]), settings, jobs=1, project=discover([tmp_path]))
    [finding] = alone.findings
    assert finding.kind is Kind.MANUAL and finding.line == 10 and "`pkg.consts` on line 2" in finding.message
    assert "a file this run does not process" in finding.message and alone.new_source is None
    both = run([folder / "ops.py", folder / value_file], registry.select([rule]), settings, jobs=1,
               project=discover([tmp_path]))
    assert [Path(r.path).name for r in both for f in r.findings] == [value_file]


def test_a_pair_written_in_a_notebook_is_named_by_its_cell_in_another_files_finding(
        tmp_path: Path, monkeypatch) -> None:
    """A run over the kernel's file only, the pair passed by a notebook's cell: the kernel's note names
    where it is written as the notebook's own findings do (`explore.ipynb:cell 3:2`), not by the
    notebook's module name and its line in the cells joined (`<notebook /abs/explore.ipynb>` on line
    7: a new user's trial, bench/TRIAL_2026-12-06d.md M2)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    folder = _write(tmp_path, "pkg", {"kern.py": PROJECTS["kwargs_through_helpers"][0]["kern.py"]})
    cells = ["import jax\nimport pkg.kern", "# Notes\n\nThe wrapper, with a pair.",
             "from jax import lax\nresult = pkg.kern.matmul(x, w, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))"]
    _notebook(tmp_path / "explore.ipynb", cells)
    [alone] = run([folder / "kern.py"], registry.select(["JAX001"]), Settings((0, 12, 0, 1)), jobs=1,
                  project=discover([tmp_path]))
    [finding] = alone.findings
    assert finding.kind is Kind.MANUAL and "<notebook" not in finding.message, finding.message
    assert "written in explore.ipynb:cell 3:2, a file this run does not process" in finding.message, finding.message
    results = run([tmp_path], registry.select(["JAX001"]), Settings((0, 12, 0, 1)), jobs=1, project=discover([tmp_path]))
    [own] = [render_finding(r, f) for r in results for f in r.findings]
    assert own.startswith(f"{tmp_path / 'explore.ipynb'}:cell 3:2:"), own  # its own finding: the same cell and line


_SHARED_WRITERS = {
    "JAX001": ("from jax import lax\nimport jax.numpy as jnp\n\nSCORES = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n\n\n"
               "def reference(x):\n    return jnp.dot(x, x, precision=SCORES)\n",
               "o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=SCORES)"),
    "JAX002": ("from jax import lax\n\nSCORES = {'accuracy': lax.AccuracyMode.HIGHEST}\n\n\n"
               "def reference(x):\n    return lax.exp(x, **SCORES)\n",
               "o_ref[...] = lax.exp(x_ref[...], **SCORES)"),
}


@pytest.mark.parametrize("rule", sorted(_SHARED_WRITERS))
def test_a_run_over_the_writer_only_of_a_value_plain_code_reads_too_says_so_where_it_is_written(
        tmp_path: Path, monkeypatch, rule: str) -> None:
    """A value written in `consts.py` that a kernel of `ops.py` reads, and plain XLA code too: a run over
    every file says [manual] at the kernel's call only. A run over `consts.py` alone (pre-commit or
    `--diff-base` on a change to it) said nothing, `--check` passing though the kernel fails (a new
    user's trial, bench/TRIAL_2026-12-07.md G1): now [manual] where it is written, naming the kernel's call."""
    from typer.testing import CliRunner

    from codemods.cli import app

    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    value, kernel_line = _SHARED_WRITERS[rule]
    folder = _write(tmp_path, "pkg", {"consts.py": value, "ops.py": _kernel(f"""
        from jax import lax
        from pkg.consts import SCORES

        def body(x_ref, o_ref):
            {kernel_line}

        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """)})
    settings = Settings((0, 12, 0, 1), unsafe_fixes=True)
    whole = run([tmp_path], registry.select([rule]), settings, jobs=1, project=discover([tmp_path]))
    assert [(Path(r.path).name, f.line, f.kind) for r in whole for f in r.findings] == [("ops.py", 10, Kind.MANUAL)]
    [alone] = run([folder / "consts.py"], registry.select([rule]), settings, jobs=1, project=discover([tmp_path]))
    [finding] = alone.findings
    assert finding.kind is Kind.MANUAL and finding.line == 3 + (rule == "JAX001") and alone.new_source is None
    assert "`pkg.ops` line 10, a file this run does not process" in finding.message, finding.message
    assert "outside kernels (pkg.consts:" in finding.message, finding.message  # who else reads it
    checked = CliRunner().invoke(app, ["--check", "--no-cache", "--select", rule, "--jax-version", "0.12.0.1",
                                       "pkg/consts.py"], catch_exceptions=False)
    assert checked.exit_code == 1, checked.output


def _writer_and_kernel(root: Path, rule: str, shared: bool, launch: str, comment: str = "") -> Path:
    """`pkg/consts.py` writing a rule's value (`SCORES`; read by plain XLA code too where `shared`) that a
    kernel of `pkg/ops.py` reads on line 12 (`comment` at its end), launched by `pallas_call` or through a
    launcher `getattr` picks by a computed name, which the link does not follow (`launch`)."""
    value, kernel_line = _SHARED_WRITERS[rule]
    if not shared:
        value = value[:value.index("\n\n\ndef reference")] + "\n"
    launched = "pl.pallas_call(body, out_shape=x)(x)" if launch == "pallas_call" else \
        "getattr(launchers, os.environ['LAUNCHER'])(body, x)"
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    return _write(root, "pkg", {"consts.py": value, "launchers.py": _kernel("""
        def tpu(body, x):
            return pl.pallas_call(body, out_shape=x)(x)
    """), "ops.py": _kernel(f"""
        import os
        from jax import lax
        from pkg import launchers
        from pkg.consts import SCORES

        def body(x_ref, o_ref):
            {kernel_line}{comment}

        def run(x):
            return {launched}
    """)})


def _whole_and_writer_alone(root: Path, rule: str) -> tuple[list, list]:
    """The findings (file, line, kind) of a run over every file, and of a run over `pkg/consts.py` alone."""
    settings = Settings((0, 12, 0, 1), unsafe_fixes=True)
    found = [[(Path(r.path).name, f.line, f.kind) for r in run(files, registry.select([rule]), settings, jobs=1,
                                                                 project=discover([root])) for f in r.findings]
             for files in ([root], [root / "pkg" / "consts.py"])]
    return found[0], found[1]


@pytest.mark.parametrize("rule", sorted(_SHARED_WRITERS))
@pytest.mark.parametrize("launch", ["pallas_call", "getattr"])
@pytest.mark.parametrize("comment, silenced", [("  # jax-codemod: ignore[{rule}]", True), ("  # jax-codemod: ignore", True),
                                               ("  # jax-codemod: ignore[JAX004]", False)])
def test_a_suppression_at_the_kernels_call_silences_the_writers_note_in_a_run_over_the_writer_only(
        tmp_path: Path, rule: str, launch: str, comment: str, silenced: bool) -> None:
    """A kernel's [manual] finding for a value written in `consts.py` (other code reads it too, or a launch
    the link does not follow runs the kernel), silenced by a comment on the kernel's call: a run over every
    file says nothing, and a run over `consts.py` alone said the writer's note (G1's) all the same. The
    comment says "I know": the note follows it, so both runs agree; a comment naming another rule does not."""
    _writer_and_kernel(tmp_path, rule, launch == "pallas_call", launch, comment.format(rule=rule))
    whole, alone = _whole_and_writer_alone(tmp_path, rule)
    assert whole == ([] if silenced else [("ops.py", 12, Kind.MANUAL)]), whole
    assert alone == ([] if silenced else [("consts.py", 3 + (rule == "JAX001"), Kind.MANUAL)]), alone


@pytest.mark.parametrize("rule", sorted(_SHARED_WRITERS))
@pytest.mark.parametrize("ignored, shared", [("ops.py", True), ("consts.py", False)])
def test_a_rule_switched_off_for_the_other_file_says_nothing_of_it_in_a_run_over_one_file(
        tmp_path: Path, rule: str, ignored: str, shared: bool) -> None:
    """`per-file-ignores` switching the rule off for the kernel's file (the value read by XLA code too:
    the kernel's [manual] is not said) or for the writer's (the value only the kernel reads: its fix
    is not made), so a run over every file says nothing: a run over the other file alone said the note
    for what lies outside it all the same ([manual] at the writer, G1's; at the kernel's call, S2's).
    The run over one file agrees with the whole run, as a suppression comment there makes it."""
    _writer_and_kernel(tmp_path, rule, shared, "pallas_call")
    settings = Settings((0, 12, 0, 1), unsafe_fixes=True)

    def findings(files: list[Path]) -> list:
        return [(Path(r.path).name, f.line) for r in run(files, registry.select([rule]), settings, jobs=1,
                                                         project=discover([tmp_path]), rules_to_skip=lambda path:
                                                         frozenset({rule}) if Path(path).name == ignored else frozenset())
                for f in r.findings]
    other = "consts.py" if ignored == "ops.py" else "ops.py"
    assert findings([tmp_path]) == [] and findings([tmp_path / "pkg" / other]) == []


@pytest.mark.parametrize("rule", sorted(_SHARED_WRITERS))
@pytest.mark.parametrize("shared", [False, True])
def test_a_run_over_the_writer_only_of_a_value_a_kernel_reads_through_a_launch_not_followed_says_so(
        tmp_path: Path, monkeypatch, rule: str, shared: bool) -> None:
    """A value written in `consts.py` reaching a kernel in `ops.py` that a launcher picked by a computed name
    runs (`getattr(launchers, os.environ[...])`: the link cannot tell it is Mosaic TPU's): nothing to fix
    where it is written, [manual] at the kernel's call in a run over every file. A run over `consts.py`
    alone said nothing, `--check` passing (it is a G1 road G1's fix missed: no Mosaic TPU kernel the link
    follows reads it): now [manual] where it is written, naming the kernel's call and the launch."""
    from typer.testing import CliRunner

    from codemods.cli import app

    monkeypatch.chdir(tmp_path)
    _writer_and_kernel(tmp_path, rule, shared, "getattr")
    whole, alone = _whole_and_writer_alone(tmp_path, rule)
    assert whole == [("ops.py", 12, Kind.MANUAL)], whole
    assert alone == [("consts.py", 3 + (rule == "JAX001"), Kind.MANUAL)], alone
    [result] = run([tmp_path / "pkg" / "consts.py"], registry.select([rule]), Settings((0, 12, 0, 1)), jobs=1,
                   project=discover([tmp_path]))
    said = result.findings[0].message
    assert "at `pkg.ops` line 12, a file this run does not process, in code that may run in a Mosaic kernel " \
           "launched through getattr with a computed name (pkg.ops:15)" in said, said
    checked = CliRunner().invoke(app, ["--check", "--no-cache", "--select", rule, "--jax-version", "0.12.0.1",
                                       "pkg/consts.py"], catch_exceptions=False)
    assert checked.exit_code == 1, checked.output


def test_a_notebook_launching_through_getattr_a_kernel_its_pair_reaches_names_the_launch_by_its_cell(
        tmp_path: Path) -> None:
    """A notebook's cell writes a pair and launches a kernel of `pkg.ops` with it through a launcher `getattr`
    picks by a computed name: a run over the notebook alone names that launch, as the kernel's finding in a
    run over every file does, by its cell and line (not the notebook's module and the cells' joined line)."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    _write(tmp_path, "pkg", {"ops.py": _kernel("""
        def body(x_ref, o_ref, precision=None):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=precision)

        def tpu(kernel, x):
            return pl.pallas_call(kernel, out_shape=x)(x)
    """)})
    cells = ["import os\nimport functools\nfrom jax import lax\nimport pkg.ops", "# Notes",
             "PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\nlaunch = getattr(pkg.ops, os.environ['LAUNCHER'])\n"
             "result = launch(functools.partial(pkg.ops.body, precision=PAIR), x)"]
    _notebook(tmp_path / "explore.ipynb", cells)
    whole = run([tmp_path], registry.select(["JAX001"]), Settings((0, 12, 0, 1)), jobs=1, project=discover([tmp_path]))
    [kernel] = [finding for result in whole for finding in result.findings]
    assert f"launched through getattr with a computed name ({tmp_path / 'explore.ipynb'}:cell 3:3)" in kernel.message, \
        kernel.message
    [alone] = run([tmp_path / "explore.ipynb"], registry.select(["JAX001"]), Settings((0, 12, 0, 1)), jobs=1,
                  project=discover([tmp_path]))
    [finding] = alone.findings
    said = render_finding(alone, finding)
    assert said.startswith(f"{tmp_path / 'explore.ipynb'}:cell 3:1:") and finding.kind is Kind.MANUAL, said
    assert "`pkg.ops` line 7, a file this run does not process, in code that may run in a Mosaic kernel launched " \
           f"through getattr with a computed name ({tmp_path / 'explore.ipynb'}:cell 3:3)" in said, said


def test_a_notebook_handing_a_kernel_wrapper_a_pair_plain_code_reads_too_says_so_in_its_cell(
        tmp_path: Path, monkeypatch) -> None:
    """A notebook's cell hands `pkg.kern.matmul` a pair that its next line's `jnp.dot` reads too: [manual]
    at the kernel's call in a run over every file. `jax-codemod --check explore.ipynb` passed (G1 of
    bench/TRIAL_2026-12-07.md): now [manual] in its cell, naming the kernel's call."""
    from typer.testing import CliRunner

    from codemods.cli import app

    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    _write(tmp_path, "pkg", {"kern.py": PROJECTS["kwargs_through_helpers"][0]["kern.py"]})
    cells = ["import jax\nimport jax.numpy as jnp\nimport pkg.kern", "# Notes",
             "from jax import lax\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n"
             "result = pkg.kern.matmul(x, w, precision=PAIR)\nreference = jnp.dot(x, w, precision=PAIR)"]
    _notebook(tmp_path / "explore.ipynb", cells)
    whole = run([tmp_path], registry.select(["JAX001"]), Settings((0, 12, 0, 1)), jobs=1, project=discover([tmp_path]))
    assert [(Path(r.path).name, f.kind) for r in whole for f in r.findings] == [("kern.py", Kind.MANUAL)]
    [alone] = run([tmp_path / "explore.ipynb"], registry.select(["JAX001"]), Settings((0, 12, 0, 1)), jobs=1,
                  project=discover([tmp_path]))
    [finding] = alone.findings
    said = render_finding(alone, finding)
    assert said.startswith(f"{tmp_path / 'explore.ipynb'}:cell 3:2:") and finding.kind is Kind.MANUAL, said
    assert "`pkg.kern` line " in said and "a file this run does not process" in said and "explore.ipynb:cell 3:4" in said, said
    checked = CliRunner().invoke(app, ["--check", "--no-cache", "--select", "JAX001", "--jax-version", "0.12.0.1",
                                       "explore.ipynb"], catch_exceptions=False)
    assert checked.exit_code == 1, checked.output


@pytest.mark.parametrize("imported, read", [("from nets import settings", "settings.Mode.EXACT.value"),
                                            ("from nets.settings import Mode", "Mode.EXACT.value")])
def test_an_enum_members_value_of_another_module_is_followed_to_its_class_and_not_rewritten(
        tmp_path: Path, imported: str, read: str) -> None:
    """`precision=settings.Mode.EXACT.value`: [manual], as rewriting an Enum member's value could make two
    members aliases. The note said "a precision is followed within its own module only", which the README
    contradicts (a new user's trial, bench/TRIAL_2026-12-07.md M3): the link reads the member's value as
    written in the class body, and the note says where, that it is an Enum member's, and why not rewritten."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    _write(tmp_path, "nets", {
        "settings.py": "import enum\n\nfrom jax import lax\n\n\nclass Mode(enum.Enum):\n"
                       "    EXACT = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n    FAST = lax.Precision.DEFAULT\n",
        "ops.py": _kernel(f"""
            {imported}

            def body(x_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision={read})

            def run(x):
                return pl.pallas_call(body, out_shape=x)(x)
        """)})
    results = run([tmp_path], registry.select(["JAX001"]), Settings((0, 12, 0, 1)), jobs=1, project=discover([tmp_path]))
    [(path, finding)] = [(r.path, f) for r in results for f in r.findings]
    assert Path(path).name == "ops.py" and finding.kind is Kind.MANUAL and all(r.new_source is None for r in results)
    assert "within its own module only" not in finding.message, finding.message
    assert "can be (DEFAULT, HIGHEST), written in `nets.settings` on line 7, which the enum `nets.settings.Mode` " \
        "(it is `EXACT`'s value; rewriting it may make two members aliases) also reads" in finding.message, finding.message


def test_a_notebook_reading_a_pair_is_named_by_its_cell_in_the_note_of_who_else_reads_it(
        tmp_path: Path, monkeypatch) -> None:
    """A pair a kernel reads and a notebook's cell prints: the kernel's note says who else reads it as
    the notebook's own findings name a place (`explore.ipynb:cell 3:2`), not as the link wrote it (the
    notebook's module and its line in the cells joined: `<notebook /abs/explore.ipynb>:3`)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    folder = _write(tmp_path, "pkg", {"cfg.py": "from jax import lax\n\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
                                      "kern.py": textwrap.dedent("""\
        import jax.numpy as jnp
        from jax.experimental import pallas as pl
        from pkg.cfg import PAIR

        def body(x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=PAIR)

        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """)})
    cells = ["import jax", "# Notes", "from pkg.cfg import PAIR\nprint(PAIR)"]
    _notebook(tmp_path / "explore.ipynb", cells)
    results = run([tmp_path], registry.select(["JAX001"]), Settings((0, 12, 0, 1)), jobs=1, project=discover([tmp_path]))
    [(path, finding)] = [(r.path, f) for r in results for f in r.findings]
    assert Path(path) == folder / "kern.py" and finding.kind is Kind.MANUAL, finding.message
    assert "which `print` (explore.ipynb:cell 3:2) also reads" in finding.message, finding.message


@pytest.mark.parametrize("rule, value, comment, silenced", [
    ("JAX001", "SCORES = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)", "ignore[JAX001]", True),
    ("JAX001", "SCORES = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)", "ignore", True),
    ("JAX001", "SCORES = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)", "ignore[JAX002]", False),
    ("JAX002", "SCORES = {'accuracy': lax.AccuracyMode.HIGHEST}", "ignore[accuracy-hints]", True),
    ("JAX002", "SCORES = {'accuracy': lax.AccuracyMode.HIGHEST}", "ignore[JAX001]", False),
])
def test_a_value_whose_fix_a_comment_silences_in_a_file_outside_the_run_is_not_said_at_the_kernel(
        tmp_path: Path, rule: str, value: str, comment: str, silenced: bool) -> None:
    """`--add-noqa` wrote a suppression comment where the kernel's value is written (a file the run does
    not process): a run over every file reports nothing, so a run over the kernel's file alone (pre-commit)
    says nothing either; it said "run the tool on that file too", where the finding is silenced, and
    never passed. A comment that names another rule silences nothing here."""
    kernel_line = ("o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=SCORES)" if rule == "JAX001"
                   else "o_ref[...] = lax.exp(x_ref[...], **SCORES)")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    folder = _write(tmp_path, "pkg", {"consts.py": f"from jax import lax\n{value}  # jax-codemod: {comment}\n",
                                      "ops.py": _kernel(f"""
        from jax import lax
        from pkg.consts import SCORES

        def body(x_ref, o_ref):
            {kernel_line}

        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """)})
    settings = Settings((0, 12, 0, 1), unsafe_fixes=True)
    both = run([folder / "ops.py", folder / "consts.py"], registry.select([rule]), settings, jobs=1,
               project=discover([tmp_path]))
    fixed = Kind.FIXED if rule == "JAX001" else Kind.DROPPED  # (JAX002 drops the hint)
    assert [f.kind for r in both for f in r.findings] == ([] if silenced else [fixed])
    [alone] = run([folder / "ops.py"], registry.select([rule]), settings, jobs=1, project=discover([tmp_path]))
    assert [(f.kind, f.line) for f in alone.findings] == ([] if silenced else [(Kind.MANUAL, 10)])


def test_the_file_outside_the_run_whose_comment_is_read_is_the_index_path_of_its_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check of a comment where a kernel's value is written outside the run finds that file by
    the index's `path_of` (issue 50, item 4): it asked `module_of` of every file of the project to
    build the mapping the index holds. Here no file outside the run is asked about, and the comment
    in `consts.py` still silences the kernel's note."""
    from codemods.analysis.project import ProjectIndex

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    folder = _write(tmp_path, "pkg", {
        "consts.py": "from jax import lax\nSCORES = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)  # jax-codemod: ignore\n",
        "other.py": "X = 1\n",
        "ops.py": _kernel("""
            from jax import lax
            from pkg.consts import SCORES

            def body(x_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=SCORES)

            def run(x):
                return pl.pallas_call(body, out_shape=x)(x)
        """)})
    asked = []
    module_of = ProjectIndex.module_of
    monkeypatch.setattr(ProjectIndex, "module_of", lambda index, path: asked.append(Path(path).name) or module_of(index, path))
    [alone] = run([folder / "ops.py"], registry.select(["JAX001"]), Settings((0, 12, 0, 1)), jobs=1,
                  project=discover([tmp_path]))
    assert alone.findings == [] and alone.error is None
    assert set(asked) == {"ops.py"}


@pytest.mark.parametrize("written, finding", [
    ("P = lax.Precision.HIGHEST", False), ("P = 'bfloat16'", False), ("P = None", False),
    ("P = getattr(lax.Precision, NAME)", True), ("P = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)", True),
])
def test_a_wrapper_of_another_module_given_a_scalar_of_a_third_needs_no_word(
        tmp_path: Path, written: str, finding: bool) -> None:
    """`mlp(x, w, precision=consts.P)`, the wrapper's kernel in another module: JAX001 cannot follow
    `consts.P` in its own module, the link knows each value it passes. Only scalars that lower: no
    finding (it was a [manual] 'followed within its own module only'); anything else, a finding."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    folder = _write(tmp_path, "pkg", {
        "consts.py": f"from jax import lax\nNAME = 'HIGH' + 'EST'\n{written}\n",
        "mlp.py": _kernel(f"""
            def _body(x_ref, w_ref, o_ref, *, precision):
                o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)

            def mlp(x, w, precision=None):
                return pl.pallas_call(functools.partial(_body, precision=precision), out_shape={_SHAPE})(x, w)
        """),
        "entry.py": "from pkg import consts\nfrom pkg.mlp import mlp\n\ndef run(x, w):\n"
                    "    return mlp(x, w, precision=consts.P)\n"})
    results = run([folder], registry.select(["JAX001"]), Settings((0, 12, 0, 1)), jobs=1, project=discover([tmp_path]))
    found = [(Path(r.path).name, f.line) for r in results for f in r.findings]
    assert bool(found) == finding, found


@pytest.mark.parametrize("wrapper", [
    "def scaled_matmul(x, w, scale, **dot_kwargs):\n    return _launch(body, x, w, scale=scale, **dot_kwargs)\n",
    "def scaled_matmul(x, w, scale, precision=None):\n    return pl.pallas_call(functools.partial(body, scale=scale, "
    "precision=precision), out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x, w)\n",
], ids=["kwargs", "named"])
def test_a_call_handing_a_kernel_wrapper_a_pair_shared_with_xla_code_is_said_at_the_call(tmp_path: Path,
                                                                                           wrapper: str) -> None:
    """`ops.scaled_matmul(x, w, precision=MIXED)` in another package, the wrapper forwarding **kwargs (or
    its parameter) to its kernel, MIXED read by XLA code too: no fix anywhere, and the call itself is
    [manual], so that a run over the caller's package fails (through **kwargs it passed: a new user's
    trial, S1), saying where MIXED is written and who else reads it (through the parameter it said MIXED
    is 'followed within its own module only': M5). Handed to a wrapper of plain XLA code: nothing."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    _write(tmp_path, "tpuops", {
        "config.py": "from jax import lax\nMIXED = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
        "reference.py": "import jax.numpy as jnp\nfrom tpuops.config import MIXED\n\ndef reference(x, w):\n"
                        "    return jnp.dot(x, w, precision=MIXED)\n\ndef matmul(x, w, **kw):\n    return jnp.dot(x, w, **kw)\n",
        "ops.py": _kernel(f"""
            def body(x_ref, w_ref, o_ref, *, precision=None, scale=1.0):
                o_ref[...] = scale * jnp.dot(x_ref[...], w_ref[...], precision=precision)

            def _launch(kernel, x, w, **kernel_kwargs):
                return pl.pallas_call(functools.partial(kernel, **kernel_kwargs), out_shape={_SHAPE})(x, w)
        """) + "\n" + wrapper})
    models = _write(tmp_path, "models", {
        "mlp.py": "from tpuops import ops, reference\nfrom tpuops.config import MIXED\n\ndef layer(x, w):\n"
                  "    return ops.scaled_matmul(x, w, scale=2.0, precision=MIXED)\n\ndef check(x, w):\n"
                  "    return reference.matmul(x, w, precision=MIXED)\n"})
    results = run([models], registry.select(["JAX001"]), Settings((0, 12, 0, 1), unsafe_fixes=True), jobs=1,
                  project=discover([tmp_path]))
    [(path, finding)] = [(Path(r.path).name, f) for r in results for f in r.findings]
    assert (path, finding.line, finding.kind) == ("mlp.py", 5, Kind.MANUAL), finding
    assert "`tpuops.config` on line 2" in finding.message and "`tpuops.ops` line" in finding.message
    assert "outside kernels (tpuops.reference:5)" in finding.message and "its own module" not in finding.message


def _hints_fixed(folder: Path) -> tuple[dict, set[str]]:
    """JAX002 with unsafe fixes over a package: its findings by (file, line, kind), and the files it changes."""
    results = run([folder], registry.select(["JAX002"]), Settings((0, 12, 0, 1), unsafe_fixes=True), jobs=1,
                  project=discover([folder]))
    return ({(Path(r.path).name, f.line, f.kind): f.message for r in results for f in r.findings},
            {Path(r.path).name for r in results if r.new_source is not None})


@pytest.mark.parametrize("shared", [True, False])
def test_a_hint_a_dataclass_is_built_with_that_xla_code_reads_too_is_not_dropped_where_it_is_written(
        shared: bool, tmp_path: Path) -> None:
    """`CFG = Config(accuracy=HIGHEST)` (the class of another module) read as `CFG.accuracy` by a Mosaic
    TPU kernel of a third and by plain XLA code (issue 50's wrong fix, for a hint): the kernel's op is
    fixed where it reads it; the constructor's keyword is a [manual] note naming the XLA reader, never
    dropped (that would change what XLA computes). Where only kernels read it, it is dropped there (unsafe)."""
    files = {
        "util.py": "import dataclasses\n\n@dataclasses.dataclass(frozen=True)\nclass Config:\n    accuracy: object = None\n",
        "config.py": "from jax import lax\nfrom .util import Config\n\nCFG = Config(accuracy=lax.AccuracyMode.HIGHEST)\n",
        "kernels.py": """
            from jax import lax
            from jax.experimental import pallas as pl
            from jax.experimental.pallas import tpu as pltpu
            from .config import CFG

            def body(x_ref, o_ref):
                o_ref[...] = lax.exp(x_ref[...], accuracy=CFG.accuracy)

            def run(x):
                return pl.pallas_call(body, out_shape=x, compiler_params=pltpu.CompilerParams())(x)
        """}
    if shared:
        files["reference.py"] = "from jax import lax\nfrom .config import CFG\n\ndef reference(x):\n" \
                                "    return lax.exp(x, accuracy=CFG.accuracy)\n"
    package = f"hintcfg_{shared}"
    folder = _write(tmp_path, package, files)
    findings, changed = _hints_fixed(folder)
    assert ("kernels.py", 7, Kind.DROPPED) in findings, findings
    if shared:
        assert findings[("config.py", 4, Kind.MANUAL)].endswith(
            f"`jax.lax.exp` outside kernels ({package}.reference:5) also reads it (dropping it here would change "
            "what that code computes): give the kernel a hint of its own, or none"), findings
        assert changed == {"kernels.py"}
    else:
        assert ("config.py", 4, Kind.DROPPED) in findings, findings
        assert changed == {"kernels.py", "config.py"}


@pytest.mark.parametrize("shared", [True, False])
def test_a_hint_at_the_op_of_a_helper_only_the_link_runs_in_a_kernel_is_dropped_unless_xla_code_runs_it(
        shared: bool, tmp_path: Path) -> None:
    """The body calls a helper whose op has a hint, and is launched by a method of a module-level
    instance re-exported by `__init__` (`RELAY.run(body, x)`): only the link runs the helper in a Mosaic
    TPU kernel. Its hint is dropped at the op; where plain XLA code calls the helper too, [manual]."""
    files = {
        "__init__.py": "from .kern import RELAY  # noqa: F401\n",
        "util.py": """
            from jax import lax
            from jax.experimental import pallas as pl
            from jax.experimental.pallas import tpu as pltpu

            def act(a):
                return lax.exp(a, accuracy=lax.AccuracyMode.HIGHEST)

            def launch(body, x):
                return pl.pallas_call(body, out_shape=x, compiler_params=pltpu.CompilerParams())(x)
        """,
        "kern.py": "from .util import launch\n\nclass Relay:\n    def run(self, body, x):\n        return launch(body, x)\n\n"
                   "RELAY = Relay()\n",
        "api.py": "from . import RELAY\nfrom .util import act\n\ndef body(x_ref, o_ref):\n    o_ref[...] = act(x_ref[...])\n\n"
                  "def run(x):\n    return RELAY.run(body, x)\n"}
    if shared:
        files["reference.py"] = "from .util import act\n\ndef reference(x):\n    return act(x)\n"
    package = f"hintrelay_{shared}"
    folder = _write(tmp_path, package, files)
    findings, changed = _hints_fixed(folder)
    if shared:
        assert list(findings) == [("util.py", 6, Kind.MANUAL)], findings
        assert f"and as `jax.lax.exp` outside kernels ({package}.util:6) too" in findings[("util.py", 6, Kind.MANUAL)]
        assert not changed
    else:
        assert list(findings) == [("util.py", 6, Kind.DROPPED)], findings
        assert changed == {"util.py"}


def test_a_hint_a_kernel_passes_to_a_helper_xla_code_calls_with_its_own_is_dropped_at_the_kernels_call(
        tmp_path: Path) -> None:
    """`mathx.act(x, accuracy=None)` of another module, called by a Mosaic TPU kernel with
    `accuracy=numerics.KERNEL_ACC` and by plain XLA code with its own: the helper's op cannot drop it
    (XLA code runs it too), but the kernel's call can, and nothing else reads what it passes (held-out
    project 63); the op is then left as written, with nothing to say, and a check after the fix passes.
    Where XLA code runs the kernel's own call too, nothing is dropped: [manual] at the op."""
    files = {
        "mathx.py": "from jax import lax\n\n\ndef act(x, accuracy=None):\n    return lax.tanh(x, accuracy=accuracy)\n",
        "numerics.py": "from jax import lax\n\nKERNEL_ACC = lax.AccuracyMode.HIGHEST\nREFERENCE_ACC = lax.AccuracyMode.HIGHEST\n",
        "reference.py": "from . import mathx\nfrom .numerics import REFERENCE_ACC\n\n\ndef act_reference(x):\n"
                        "    return mathx.act(x, accuracy=REFERENCE_ACC)\n",
        "kernels.py": """
            from jax.experimental import pallas as pl
            from jax.experimental.pallas import tpu as pltpu
            from . import mathx, numerics

            def _act_kernel(x_ref, o_ref):
                o_ref[...] = mathx.act(x_ref[...], accuracy=numerics.KERNEL_ACC)

            def act(x):
                return pl.pallas_call(_act_kernel, out_shape=x, compiler_params=pltpu.CompilerParams())(x)
        """}
    for package, shared_kernel in (("hintpercaller", False), ("hintpercallershared", True)):
        if shared_kernel:  # plain XLA code calls the kernel's body too: what it passes is read there as well
            files["reference.py"] += "\n\ndef body_reference(x, out):\n    return kernels._act_kernel(x, out)\n"
            files["reference.py"] = files["reference.py"].replace("from . import mathx", "from . import kernels, mathx")
        folder = _write(tmp_path, package, files)
        results = run([folder], registry.select(["JAX002"]), Settings((0, 12, 0, 1), unsafe_fixes=True), jobs=1,
                      project=discover([folder]))
        findings = {(Path(r.path).name, f.line, f.kind) for r in results for f in r.findings}
        changed = {Path(r.path).name: r.new_source.decode() for r in results if r.new_source is not None}
        if shared_kernel:
            assert findings == {("mathx.py", 5, Kind.MANUAL)} and not changed, findings
            continue
        assert findings == {("kernels.py", 6, Kind.DROPPED)}, findings
        assert list(changed) == ["kernels.py"]
        assert "o_ref[...] = mathx.act(x_ref[...])\n" in changed["kernels.py"]
        (folder / "kernels.py").write_text(changed["kernels.py"])
        again = run([folder], registry.select(["JAX002"]), Settings((0, 12, 0, 1)), jobs=1, project=discover([folder]))
        assert not [f for r in again for f in r.findings]


@pytest.mark.parametrize("annotation", ["tuple", "tuple[lax.Precision, lax.Precision]", "typing.Tuple"])
def test_a_dataclass_fields_pair_made_a_scalar_keeps_a_true_annotation(tmp_path: Path, annotation: str) -> None:
    """`precision: tuple = (DEFAULT, HIGHEST)` became `precision: tuple = lax.Precision.HIGHEST`, an annotation
    type checkers flag (the new user's trial, W5): the annotation becomes the scalar's class; the kernel lowers."""
    package = "flowcase_annotated"
    folder = _write(tmp_path, package, {
        "config.py": f"import dataclasses, typing\nfrom jax import lax\n\n@dataclasses.dataclass(frozen=True)\nclass Cfg:\n"
                     f"    precision: {annotation} = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
        "entry.py": _kernel(f"""
            from .config import Cfg

            def body(x_ref, w_ref, o_ref, *, cfg):
                o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=cfg.precision)

            def run(x, w, cfg=Cfg()):
                return pl.pallas_call(functools.partial(body, cfg=cfg), out_shape={_SHAPE})(x, w)
        """)})
    sys.path.insert(0, str(tmp_path))
    try:
        results = run([folder], registry.select(["JAX001"]), Settings((0, 12, 0, 1)), jobs=1, project=discover([folder]))
        for result in results:
            if result.new_source is not None:
                Path(result.path).write_bytes(result.new_source)
        assert "    precision: lax.Precision = lax.Precision.HIGHEST\n" in (folder / "config.py").read_text()
        assert _lowering_error(package) is None
    finally:
        sys.path.remove(str(tmp_path))


def test_a_launch_helper_gives_each_body_only_the_keywords_of_the_calls_that_launch_it(tmp_path: Path) -> None:
    """`_launch(body, x, w, **kernel_kwargs)` -> `partial(body, **kernel_kwargs)`, called by two wrappers
    with two bodies: the pair `scaled_matmul` passes (shared with XLA code, so [manual]) reaches
    `scaled_kernel` only. The link ran the helper once for all its callers, so `matmul_kernel`, given
    a scalar, was [manual] for the pair too, and the call's note named both kernels (a new user's
    trial, W3). Lowered: `matmul` lowers as written, `scaled_matmul` fails where the note says."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    package = "w3_launch_helper"
    folder = _write(tmp_path, package, {
        "config.py": "from jax import lax\nMIXED = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
        "reference.py": "import jax.numpy as jnp\nfrom .config import MIXED\n\ndef reference(x, w):\n"
                        "    return jnp.dot(x, w, precision=MIXED)\n",
        "kernels.py": "import jax.numpy as jnp\n\n\ndef matmul_kernel(x_ref, w_ref, o_ref, *, precision=None):\n"
                      "    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)\n\n\n"
                      "def scaled_kernel(x_ref, w_ref, o_ref, *, precision=None, scale=1.0):\n"
                      "    o_ref[...] = scale * jnp.dot(x_ref[...], w_ref[...], precision=precision)\n",
        "ops.py": _kernel(f"""
            from jax import lax
            from .config import MIXED
            from .kernels import matmul_kernel, scaled_kernel

            def _launch(body, x, w, **kernel_kwargs):
                return pl.pallas_call(functools.partial(body, **kernel_kwargs), out_shape={_SHAPE})(x, w)

            def matmul(x, w):
                return _launch(matmul_kernel, x, w, precision=lax.Precision.HIGHEST)

            def scaled_matmul(x, w):
                return _launch(scaled_kernel, x, w, scale=2.0, precision=MIXED)
        """)})
    results = run([folder], registry.select(["JAX001"]), Settings((0, 12, 0, 1), unsafe_fixes=True), jobs=1,
                  project=discover([tmp_path]))
    found = sorted((Path(r.path).name, f.line, f.kind) for r in results for f in r.findings)
    call_line = (folder / "ops.py").read_text().splitlines().index(
        "    return _launch(scaled_kernel, x, w, scale=2.0, precision=MIXED)") + 1
    assert found == [("kernels.py", 9, Kind.MANUAL), ("ops.py", call_line, Kind.MANUAL)], found
    [at_the_call] = [f.message for r in results for f in r.findings if Path(r.path).name == "ops.py"]
    assert f"`{package}.kernels` line 9" in at_the_call and "line 5" not in at_the_call, at_the_call
    sys.path.insert(0, str(tmp_path))
    try:
        ops = importlib.import_module(f"{package}.ops")
        x, w = jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((128, 128), jnp.float32)
        with jax_support.abstract_tpu():
            assert jax_support.lowering_error(jax.jit(ops.matmul), (x, w), "tpu") is None
            assert "Per-operand dot precision unsupported" in (
                jax_support.lowering_error(jax.jit(ops.scaled_matmul), (x, w), "tpu") or "")
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name.split(".")[0] == package]:
            del sys.modules[name]


@pytest.mark.parametrize("other_importer", [True, False], ids=["unfollowed importer", "none"])
def test_a_pair_written_where_code_outside_the_link_imports_it_is_said_at_the_kernel(
        tmp_path: Path, other_importer: bool) -> None:
    """`models/attention.py` hands `consts.SCORES` to `ops.matmul`, whose kernel closes over it; the link
    reads `models.consts` on demand, and `models/reference.py`, which imports it and calls no kernel, is
    outside the link: what the link says of `consts` is not kept (it may not know every reader). The
    kernel's call says so and `--check` fails; it was silent, the kernel failing to lower (a new user's
    trial). With no such importer the pair is fixed where it is written."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    _write(tmp_path, "ops", {"mm.py": _kernel(f"""
        from jax import lax

        def matmul(x, w, *, precision=None):
            def kernel(x_ref, w_ref, o_ref):
                o_ref[...] = lax.dot(x_ref[...], w_ref[...], precision=precision)

            return pl.pallas_call(kernel, out_shape={_SHAPE})(x, w)
    """)})
    (tmp_path / "ops" / "__init__.py").write_text("from ops.mm import matmul\n")
    _write(tmp_path, "models", {
        "consts.py": "from jax import lax\nSCORES = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
        "attention.py": "import ops\nfrom models.consts import SCORES\n\n\ndef scores(q, k):\n"
                        "    return ops.matmul(q, k, precision=SCORES)\n",
        **({"reference.py": "from models import consts\n"} if other_importer else {})})
    results = run([tmp_path], registry.select(["JAX001"]), Settings((0, 12, 0, 1)), jobs=1,
                  project=discover([tmp_path]))
    found = [(Path(r.path).name, f.line, f.kind) for r in results for f in r.findings]
    if not other_importer:
        assert found == [("consts.py", 2, Kind.FIXED)]
        return
    assert found == [("mm.py", 10, Kind.MANUAL)] and all(r.new_source is None for r in results)
    [message] = [f.message for r in results for f in r.findings]
    assert "`models.consts` on line 2" in message and "`models.reference`" in message


def test_a_method_of_a_class_the_project_never_makes_runs_on_an_instance_made_with_its_defaults(
        tmp_path: Path) -> None:
    """`Attention.__call__` hands `self.precision`, set in `__init__` from its default pair, to a kernel
    wrapper of another module; no code of the project makes an `Attention` (the user's training script
    does). The link ran the method with `self` holding nothing: no finding, the kernel failing to lower
    (a new user's trial). It runs on an instance made with `__init__`'s defaults now: the default is
    fixed where it is written, and `Attention()` lowers."""
    package = "flowcase_a_class_nothing_makes"
    folder = _write(tmp_path, package, {
        "ops.py": _kernel(f"""
            from jax import lax

            def matmul(x, w, *, precision=None):
                def kernel(x_ref, w_ref, o_ref):
                    o_ref[...] = lax.dot(x_ref[...], w_ref[...], precision=precision)

                return pl.pallas_call(kernel, out_shape={_SHAPE})(x, w)
        """),
        "layer.py": f"""
            from jax import lax
            import {package}

            class Attention:
                def __init__(self, precision=(lax.Precision.HIGH, lax.Precision.HIGHEST)):
                    self.precision = precision

                def __call__(self, x, w):
                    return {package}.matmul(x, w, precision=self.precision)
        """})
    (folder / "__init__.py").write_text(f"from {package}.ops import matmul\n")  # (the wrapper, re-exported)
    # (the training script, outside the project the tool is run on)
    (tmp_path / f"{package}_train.py").write_text(f"from {package}.layer import Attention\n\n\n"
                                                  "def run(x, w):\n    return Attention()(x, w)\n")
    sys.path.insert(0, str(tmp_path))
    try:
        def lowering_error() -> "str | None":
            entry = importlib.import_module(f"{package}_train")
            shape = jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((128, 128), jnp.float32)
            try:
                with jax_support.abstract_tpu():
                    return jax_support.lowering_error(jax.jit(entry.run), shape, "tpu")
            finally:
                for name in [name for name in sys.modules if name.startswith(package)]:
                    del sys.modules[name]

        assert "Per-operand dot precision unsupported" in (lowering_error() or "")
        results = run([folder], registry.select(["JAX001"]), Settings((0, 12, 0, 1)), jobs=1,
                      project=discover([folder]))
        assert [(Path(r.path).name, f.line, f.kind) for r in results for f in r.findings] == [
            ("layer.py", 5, Kind.FIXED)]
        for result in results:
            if result.new_source is not None:
                Path(result.path).write_bytes(result.new_source)
        assert lowering_error() is None
    finally:
        sys.path.remove(str(tmp_path))



def test_a_preset_bound_into_another_modules_kernel_gets_the_presets_error_and_what_to_pass(tmp_path: Path) -> None:
    """The eighth trial's `mm_preset`: `partial(kern.body, algorithm=cfg.PRESET)` in another module. The
    note said "Per-operand dot precision unsupported" for a pair, while the kernel fails with the
    preset's own error; now it quotes that error, and the scalar it names lowers."""
    files = {"cfg.py": "from jax import lax\nPRESET = lax.DotAlgorithmPreset.BF16_BF16_F32_X3\n",
             "kern.py": "from jax import lax\n\ndef body(x_ref, w_ref, o_ref, *, algorithm):\n"
                        "    o_ref[...] = lax.dot(x_ref[...], w_ref[...], precision=algorithm)\n",
             "entry.py": "import functools\nimport jax\nfrom jax.experimental import pallas as pl\n"
                         "from flowcase_preset import cfg, kern\n\ndef run(x, w):\n"
                         "    body = functools.partial(kern.body, algorithm=cfg.PRESET)\n"
                         "    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, w)\n"}
    folder = _write(tmp_path, "flowcase_preset", files)
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(TypeError, match="'DotAlgorithmPreset' object is not subscriptable"):
            _lowering_error("flowcase_preset")
        results = run([folder], registry.select(["JAX001"]), Settings(jax_support.JAX_VERSION), jobs=1,
                      project=discover([folder]))
        [finding] = [finding for result in results for finding in result.findings]
        # the capability table's: jax 0.10.2 lowers no HIGH dot in a Mosaic TPU kernel
        level = "HIGH" if Level.HIGH in accepted_precisions("dot", jax_support.JAX_VERSION) else "HIGHEST"
        assert finding.kind is Kind.MANUAL and "Per-operand" not in finding.message
        assert finding.message.endswith(
            "a dot algorithm preset is rejected in Mosaic TPU kernels: \"TypeError: 'DotAlgorithmPreset' object is not "
            "subscriptable\"; pass what it computes in a form Mosaic TPU lowers instead, where it is written: "
            f"BF16_BF16_F32_X3: {level} (three bfloat16 passes (Mosaic's bf16x3))")
        (folder / "cfg.py").write_text(f"from jax import lax\nPRESET = lax.Precision.{level}\n")
        assert _lowering_error("flowcase_preset") is None
    finally:
        sys.path.remove(str(tmp_path))
