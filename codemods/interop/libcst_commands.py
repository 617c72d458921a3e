"""jax-codemod's transforms as libcst codemod commands, for `python -m libcst.tool codemod`.

Setup, once per repository: list this package in the `modules:` of `.libcst.codemod.yaml` (the file
`python -m libcst.tool initialize .` writes; libcst looks for it from the current folder upwards)::

    modules: ['codemods.interop']

Then, from that repository (with jax-codemod installed in the Python that runs libcst)::

    python -m libcst.tool codemod libcst_commands.JaxCodemod --no-format src/            # all three
    python -m libcst.tool codemod libcst_commands.PerOperandPrecision --no-format src/   # JAX001 only
    python -m libcst.tool codemod libcst_commands.AccuracyHints --no-format src/         # JAX002 only
    python -m libcst.tool codemod libcst_commands.Bf16Lstm --no-format src/              # JAX003 only
    python -m libcst.tool codemod libcst_commands.JaxCodemod --no-format -u 3 src/       # diff, write nothing
    python -m libcst.tool list                                                           # shows the four

Without a config file, name the class directly:
`python -m libcst.tool codemod -x codemods.interop.libcst_commands.JaxCodemod --no-format src/`.

Settings are `jax-codemod fix`'s: the `[tool.jax-codemod]` table of the nearest pyproject.toml above
each file (select, ignore, per-file-ignores, jax-version, precision-policy, ...), with the options
given after the command name winning (`--help` lists them): `--jax-version X.Y.Z` (default: found
as `fix` finds it, codemods/target.py), `--scope kernels|all`, `--precision-policy
nearest|highest`, `--helpers-module pkg.mod`, `--unsafe-fixes`. A bad option or config fails the run.

Each file goes through the engine `jax-codemod` runs (`codemods.engine.runner.process_source`), so
the text written is the CLI's, byte for byte. Findings (`path:line:col: JAX001 [fixed] ...`) are libcst
warnings, printed per file. A file the engine cannot decode or parse is skipped (libcst counts it
under "Skipped"); an internal error fails that file ("Failed to codemod", exit status 1) and
writes nothing. Pass `--no-format`: otherwise libcst runs its configured formatter (black by default)
over every file it changed, reformatting lines the transforms did not touch.
"""

from __future__ import annotations

import argparse
from abc import ABC
from typing import ClassVar, Optional, Sequence, Union

import libcst
from libcst.codemod import CodemodCommand, CodemodContext, SkipFile

from codemods.capabilities import Version
from codemods.interop._shared import project_choices, rewrite
from codemods.rules import accuracy_hints, bf16_lstm, per_operand_precision
from codemods.engine.rule import Rule
from codemods.registry import RULES as ALL_RULES
from codemods.settings import PrecisionPolicy, Scope


def _describe(rules: Sequence[Rule]) -> str:
    return " ".join(f"{rule.code} ({rule.name}): {rule.summary}" for rule in rules)


class JaxCodemodCommand(CodemodCommand, ABC):
    """Runs `RULES` through jax-codemod's engine on each module libcst hands over. A base: ABC keeps
    it out of `libcst.tool list`; the four commands below are the subclasses users run."""

    RULES: ClassVar[Sequence[Rule]] = ()  # the subclasses say which transforms they run

    @staticmethod
    def add_args(arg_parser: argparse.ArgumentParser) -> None:
        # Every default is None: an option not given leaves the project's config (or the default) in force.
        arg_parser.add_argument(
            "--jax-version", default=None, metavar="X.Y.Z",
            help="Target jax release (default: found as jax-codemod fix finds it; conservative if none).",
        )
        arg_parser.add_argument(
            "--scope", choices=[s.value for s in Scope], default=None,
            help="kernels (default): only inside Pallas kernel bodies; all: everywhere.",
        )
        arg_parser.add_argument(
            "--precision-policy", choices=[p.value for p in PrecisionPolicy], default=None,
            help="nearest (default): least accurate accepted scalar that loses no accuracy; highest: always HIGHEST.",
        )
        arg_parser.add_argument(
            "--helpers-module", default=None, metavar="PKG.MOD",
            help="Import the helpers JAX002/JAX003 call (rsqrt_safe, lstm_float32) from this module instead of inlining them.",
        )
        arg_parser.add_argument(
            "--unsafe-fixes", action="store_true", default=None,
            help="Also apply fixes that change numerics or need judgement.",
        )

    def __init__(
        self,
        context: CodemodContext,
        jax_version: Union[str, Version, None] = None,
        scope: Union[str, Scope, None] = None,
        precision_policy: Union[str, PrecisionPolicy, None] = None,
        helpers_module: Optional[str] = None,
        unsafe_fixes: Optional[bool] = None,
    ) -> None:
        super().__init__(context)
        self.given = dict(jax_version=jax_version, scope=scope, precision_policy=precision_policy,
                          helpers_module=helpers_module, unsafe_fixes=unsafe_fixes)
        project_choices(None, self.RULES, **self.given)  # a bad option or config fails the run up front

    def transform_module_impl(self, tree: libcst.Module) -> libcst.Module:
        # The project's [tool.jax-codemod] of this file, as `jax-codemod fix` reads it.
        rules, settings = project_choices(self.context.filename, self.RULES, **self.given)
        # tree.bytes: the file's bytes in its own encoding (PEP 263 cookie, BOM), as the CLI reads them.
        result = rewrite(self.context.filename, tree.bytes, rules, settings)
        for finding in result.findings:
            self.warn(finding.render(result.path))
        if result.error is not None:  # not ours to rewrite (undecodable, or a syntax this Python's ast lacks)
            raise SkipFile(f"jax-codemod: {result.error}")
        if result.new_source is None:
            return tree
        return libcst.parse_module(result.new_source, config=tree.config_for_parsing)


class PerOperandPrecision(JaxCodemodCommand):
    RULES = (per_operand_precision.RULE,)
    DESCRIPTION = _describe(RULES)


class AccuracyHints(JaxCodemodCommand):
    RULES = (accuracy_hints.RULE,)
    DESCRIPTION = _describe(RULES)


class Bf16Lstm(JaxCodemodCommand):
    RULES = (bf16_lstm.RULE,)
    DESCRIPTION = _describe(RULES)


class JaxCodemod(JaxCodemodCommand):
    RULES = ALL_RULES
    DESCRIPTION = "All jax-codemod transforms. " + _describe(RULES)
