"""codemods/rules/accuracy_hints.py (JAX002) run in the test's process (issue 35, item 3: mutation testing).

Each case runs JAX002 alone through `process_source` on a small module and checks the exact text it
becomes and every finding whole (line, column, kind, message, applicability): hints dropped in
Mosaic TPU and Mosaic GPU kernels (rsqrt through `rsqrt_safe`, safe; the others unsafe), the hint's
import let go, partials unwrapped (not in a class body), `approx_math=True` launches, functions a
backend cannot lower at all (a note, or a [manual] finding), `**kwargs`, launches the analysis
cannot resolve, code shared with plain XLA, and hints that reach another module's kernel code.
Nothing here imports jax.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from codemods import registry
from codemods.analysis.module import ModuleIndex
from codemods.engine.rule import ParsedFile
from codemods.engine.runner import process_source
from codemods.rules.accuracy_hints import RULE, AccuracyHints, _cannot_lower
from codemods.settings import Scope, Settings

TARGET = Settings((0, 12, 0, 1), helpers_module="h", unsafe_fixes=True)
H = ("import functools\nimport jax\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n"
     "from jax.experimental.pallas import tpu as pltpu\nfrom jax.experimental.pallas import mosaic_gpu as plgpu\n")


def _run(source: str, settings: Settings = TARGET, proven: dict | None = None):
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX002"]), settings, proven)
    assert result.error is None, result.error
    return (result.after or None,  # "": nothing changed
            [(f.line, f.column, f.kind.value, f.message, f.fix.applicability.value if f.fix else None)
             for f in result.findings])


CASES = [
    ('rsqrt-tpu', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.rsqrt(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     'import functools\nimport jax\nfrom jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\nfrom jax.experimental.pallas import mosaic_gpu as plgpu\nfrom h import rsqrt_safe\n\ndef k(x_ref, o_ref):\n    o_ref[...] = rsqrt_safe(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     [(8, 18, 'dropped', 'lax.rsqrt: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic TPU kernels); now rsqrt_safe(), a Newton-refined rsqrt that keeps float32 accuracy', 'safe')]),
    ('exp-tpu', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     [(8, 36, 'dropped', "lax.exp: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic TPU kernels); lax.exp now runs at the backend's default accuracy", 'unsafe')]),
    ('exp-gpu', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plgpu.CompilerParams())(x)\n',
     H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plgpu.CompilerParams())(x)\n',
     [(8, 36, 'dropped', "lax.exp: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic GPU kernels); lax.exp now runs at the backend's default accuracy", 'unsafe')]),
    ('exp-both', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\ndef run2(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plgpu.CompilerParams())(x)\n',
     H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\ndef run2(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plgpu.CompilerParams())(x)\n',
     [(8, 36, 'dropped', "lax.exp: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic GPU and Mosaic TPU kernels); lax.exp now runs at the backend's default accuracy", 'unsafe')]),
    ('tanh-none', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.tanh(x_ref[...], accuracy=None)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     []),
    ('tanh-no-hint', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.tanh(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     []),
    ('kwargs-tpu', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.tanh(x_ref[...], **kw)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     [(8, 18, 'manual', 'lax.tanh: **kwargs may carry an accuracy= hint, which Mosaic TPU rejects ("Not implemented: accuracy"); pass it explicitly or drop it', None)]),
    ('kwargs-both', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.tanh(x_ref[...], **kw)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\ndef run2(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plgpu.CompilerParams())(x)\n',
     None,
     [(8, 18, 'manual', 'lax.tanh: **kwargs may carry an accuracy= hint, which Mosaic GPU and Mosaic TPU reject ("Not implemented: accuracy"); pass it explicitly or drop it', None)]),
    ('triton', H + 'from jax.experimental.pallas import triton as plt\ndef k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plt.CompilerParams())(x)\n',
     None,
     []),
    ('outside-kernel', H + 'y = lax.exp(x, accuracy=lax.AccuracyMode.HIGHEST)\n',
     None,
     []),
    ('accuracy-mode-import', H + 'from jax.lax import AccuracyMode\ndef k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], accuracy=AccuracyMode.HIGHEST)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     [(9, 36, 'dropped', "lax.exp: dropped accuracy=AccuracyMode.HIGHEST (rejected by Mosaic TPU kernels); lax.exp now runs at the backend's default accuracy", 'unsafe')]),
    ('accuracy-mode-kept', H + 'from jax.lax import AccuracyMode\nM = AccuracyMode.TOL\ndef k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], accuracy=AccuracyMode.HIGHEST)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     H + 'from jax.lax import AccuracyMode\nM = AccuracyMode.TOL\ndef k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     [(10, 36, 'dropped', "lax.exp: dropped accuracy=AccuracyMode.HIGHEST (rejected by Mosaic TPU kernels); lax.exp now runs at the backend's default accuracy", 'unsafe')]),
    ('accuracy-variable', H + 'acc = lax.AccuracyMode.HIGHEST\ndef k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], accuracy=acc)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     H + 'acc = lax.AccuracyMode.HIGHEST\ndef k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     [(9, 36, 'dropped', "lax.exp: dropped accuracy=acc (rejected by Mosaic TPU kernels); lax.exp now runs at the backend's default accuracy", 'unsafe')]),
    ('accuracy-over-lines', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], accuracy=mode(\n        1))\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     [(8, 36, 'dropped', "lax.exp: dropped accuracy=mode(1) (rejected by Mosaic TPU kernels); lax.exp now runs at the backend's default accuracy", 'unsafe')]),
    ('tan-both', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.tan(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\ndef run2(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plgpu.CompilerParams())(x)\n',
     H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.tan(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\ndef run2(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plgpu.CompilerParams())(x)\n',
     [(8, 36, 'dropped', 'lax.tan: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic TPU kernels); lax.tan now runs at the backend\'s default accuracy; note: Mosaic GPU cannot lower tan in a kernel at all ("Unimplemented primitive in Pallas Mosaic GPU lowering: tan"), so this kernel lowers for Mosaic TPU only', 'unsafe')]),
    ('tan-both-rsqrt', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.rsqrt(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST) + lax.tan(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\ndef run2(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plgpu.CompilerParams())(x)\n',
     H + 'from h import rsqrt_safe\n\ndef k(x_ref, o_ref):\n    o_ref[...] = rsqrt_safe(x_ref[...]) + lax.tan(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\ndef run2(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plgpu.CompilerParams())(x)\n',
     [(8, 18, 'dropped', 'lax.rsqrt: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic GPU and Mosaic TPU kernels); now rsqrt_safe(), a Newton-refined rsqrt that keeps float32 accuracy', 'safe'), (8, 95, 'dropped', 'lax.tan: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic TPU kernels); lax.tan now runs at the backend\'s default accuracy; note: Mosaic GPU cannot lower tan in a kernel at all ("Unimplemented primitive in Pallas Mosaic GPU lowering: tan"), so this kernel lowers for Mosaic TPU only', 'unsafe')]),
    ('erfc-tpu', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.erfc(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     [(8, 18, 'manual', 'lax.erfc: Mosaic TPU cannot lower erfc in a kernel at all ("Unimplemented primitive in Pallas TPU lowering for tc: erfc"), with or without its accuracy= hint: this kernel cannot lower there as written (compute it from functions the kernel lowers); hint left as written', None)]),
    ('pallas-default-backends', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x)(x)\n',
     H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x)(x)\n',
     [(8, 36, 'dropped', "lax.exp: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic TPU kernels); lax.exp now runs at the backend's default accuracy", 'unsafe')]),
    ('two-hints-one-call-site', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.exp(lax.tanh(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST), accuracy=lax.AccuracyMode.HIGHEST)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.exp(lax.tanh(x_ref[...]))\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     [(8, 45, 'dropped', "lax.tanh: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic TPU kernels); lax.tanh now runs at the backend's default accuracy", 'unsafe'), (8, 81, 'dropped', "lax.exp: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic TPU kernels); lax.exp now runs at the backend's default accuracy", 'unsafe')]),
    ('partial-module-level', H + 'exp_hi = functools.partial(lax.exp, accuracy=lax.AccuracyMode.HIGHEST)\ndef k(x_ref, o_ref):\n    o_ref[...] = exp_hi(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     'import jax\nfrom jax import lax\nfrom jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\nfrom jax.experimental.pallas import mosaic_gpu as plgpu\nexp_hi = lax.exp\ndef k(x_ref, o_ref):\n    o_ref[...] = exp_hi(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     [(7, 10, 'dropped', "lax.exp: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic TPU kernels); lax.exp now runs at the backend's default accuracy", 'unsafe')]),
    ('partial-with-argument', H + 'exp_hi = functools.partial(lax.exp, 1.0, accuracy=lax.AccuracyMode.HIGHEST)\ndef k(x_ref, o_ref):\n    o_ref[...] = exp_hi()\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     H + 'exp_hi = functools.partial(lax.exp, 1.0)\ndef k(x_ref, o_ref):\n    o_ref[...] = exp_hi()\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     [(7, 40, 'dropped', "lax.exp: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic TPU kernels); lax.exp now runs at the backend's default accuracy", 'unsafe')]),
    ('partial-rsqrt', H + 'rs = functools.partial(lax.rsqrt, accuracy=lax.AccuracyMode.HIGHEST)\ndef k(x_ref, o_ref):\n    o_ref[...] = rs(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     'import jax\nfrom jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\nfrom jax.experimental.pallas import mosaic_gpu as plgpu\nfrom h import rsqrt_safe\n\nrs = rsqrt_safe\ndef k(x_ref, o_ref):\n    o_ref[...] = rs(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     [(7, 6, 'dropped', 'lax.rsqrt: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic TPU kernels); now rsqrt_safe(), a Newton-refined rsqrt that keeps float32 accuracy', 'safe')]),
    ('partial-class-attribute', H + 'class N:\n    f = functools.partial(lax.exp, accuracy=lax.AccuracyMode.HIGHEST)\n    def body(self, x_ref, o_ref):\n        o_ref[...] = self.f(x_ref[...])\n    def __call__(self, x):\n        return pl.pallas_call(self.body, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     H + 'class N:\n    f = functools.partial(lax.exp)\n    def body(self, x_ref, o_ref):\n        o_ref[...] = self.f(x_ref[...])\n    def __call__(self, x):\n        return pl.pallas_call(self.body, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     [(8, 34, 'dropped', "lax.exp: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic TPU kernels); lax.exp now runs at the backend's default accuracy", 'unsafe')]),
    ('approx-exp', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plgpu.CompilerParams(approx_math=True))(x)\n',
     H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plgpu.CompilerParams(approx_math=True))(x)\n',
     [(8, 36, 'dropped', 'lax.exp: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic GPU kernels); lax.exp will be approximated: the launch sets approx_math=True, so Mosaic GPU lowers it to a fast approximation, less accurate than the hint asked for', 'unsafe')]),
    ('approx-rsqrt', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.rsqrt(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plgpu.CompilerParams(approx_math=True))(x)\n',
     'import functools\nimport jax\nfrom jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\nfrom jax.experimental.pallas import mosaic_gpu as plgpu\nfrom h import rsqrt_safe\n\ndef k(x_ref, o_ref):\n    o_ref[...] = rsqrt_safe(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plgpu.CompilerParams(approx_math=True))(x)\n',
     [(8, 18, 'dropped', "lax.rsqrt: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic GPU kernels); now rsqrt_safe(), a Newton-refined rsqrt that keeps float32 accuracy even under the launch's approx_math=True", 'safe')]),
    ('cbrt-tpu', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.cbrt(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     [(8, 18, 'manual', 'lax.cbrt: Mosaic TPU cannot lower cbrt in a kernel at all ("Unimplemented primitive in Pallas TPU lowering for tc: cbrt"), with or without its accuracy= hint: this kernel cannot lower there as written (compute it from functions the kernel lowers); hint left as written', None)]),
    ('cbrt-tpu-none', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.cbrt(x_ref[...], accuracy=None)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     []),
    ('cbrt-tpu-no-hint', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.cbrt(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     []),
    ('cbrt-both', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.cbrt(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\ndef run2(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plgpu.CompilerParams())(x)\n',
     None,
     [(8, 18, 'manual', 'lax.cbrt: Mosaic GPU and Mosaic TPU cannot lower cbrt in a kernel at all ("Unimplemented primitive in Pallas Mosaic GPU lowering: cbrt"; "Unimplemented primitive in Pallas TPU lowering for tc: cbrt"), with or without its accuracy= hint: this kernel cannot lower there as written (compute it from functions the kernel lowers); hint left as written', None)]),
    ('cbrt-gpu', H + 'def k(x_ref, o_ref):\n    o_ref[...] = lax.cbrt(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plgpu.CompilerParams())(x)\n',
     None,
     [(8, 18, 'manual', 'lax.cbrt: Mosaic GPU cannot lower cbrt in a kernel at all ("Unimplemented primitive in Pallas Mosaic GPU lowering: cbrt"), with or without its accuracy= hint: this kernel cannot lower there as written (compute it from functions the kernel lowers); hint left as written', None)]),
    ('shared-helper', H + 'def f(x):\n    return lax.exp(x, accuracy=lax.AccuracyMode.HIGHEST)\ndef k(x_ref, o_ref):\n    o_ref[...] = f(x_ref[...])\ndef ref(x):\n    return f(x)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     [(8, 12, 'manual', '`f` runs in kernels and in plain XLA code, and needs a rewrite for its kernel callers (line 8): rewriting it would change the XLA path too; not rewritten (give the kernel its own copy)', None)]),
    ('shared-partial', H + 'e = functools.partial(lax.exp, accuracy=lax.AccuracyMode.HIGHEST)\ny = e(2.0)\ndef k(x_ref, o_ref):\n    o_ref[...] = e(x_ref[...])\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     [(7, 5, 'manual', '`e` runs in kernels and in plain XLA code, and needs a rewrite for its kernel uses (line 10; plain XLA code: line 8): rewriting it would change the XLA path too; not rewritten (give the kernel its own copy)', None)]),
    ('unresolved', H + 'import sys\ndef _a_kernel(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\ndef _b_kernel(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...])\ndef run(name, x):\n    body = getattr(sys.modules[__name__], name)\n    return pl.pallas_call(body, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     [(9, 18, 'manual', 'lax.exp: accuracy=lax.AccuracyMode.HIGHEST may run in a kernel: the launch on line 14 runs a body this analysis cannot resolve (`getattr(...)`), and `_a_kernel` may be it; if it does, its Mosaic lowering raises "Not implemented: accuracy"', None)]),
    ('foreign-partial', H + 'import ops\ndef run(x):\n    return pl.pallas_call(functools.partial(ops.body, accuracy=lax.AccuracyMode.HIGHEST), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     'import functools\nimport jax\nfrom jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\nfrom jax.experimental.pallas import mosaic_gpu as plgpu\nimport ops\ndef run(x):\n    return pl.pallas_call(functools.partial(ops.body), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     [(9, 53, 'dropped', 'dropped accuracy=lax.AccuracyMode.HIGHEST: it reaches `ops.body`, kernel code of another module run by Mosaic TPU, whose lowering rejects it ("Not implemented: accuracy"); that code now runs at its default accuracy', 'unsafe')]),
    ('foreign-partial-none', H + 'import ops\ndef run(x):\n    return pl.pallas_call(functools.partial(ops.body, accuracy=None), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     []),
    ('foreign-partial-other-keyword', H + 'import ops\ndef run(x):\n    return pl.pallas_call(functools.partial(ops.body, precision=1), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     []),
    ('foreign-passed', H + 'import ops\ndef k(x_ref, o_ref, accuracy):\n    o_ref[...] = ops.f(x_ref[...], accuracy=accuracy)\ndef run(x):\n    return pl.pallas_call(functools.partial(k, accuracy=lax.AccuracyMode.HIGHEST), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     [(11, 57, 'manual', 'accuracy=lax.AccuracyMode.HIGHEST reaches `ops.f`, kernel code of another module run by Mosaic TPU (passed on line 9): unless it is None there, its lowering raises "Not implemented: accuracy"', None)]),
    ('foreign-passed-unset', H + 'import ops\ndef k(x_ref, o_ref, accuracy=None):\n    o_ref[...] = ops.f(x_ref[...], accuracy=accuracy)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     [(9, 45, 'manual', 'accuracy=accuracy reaches `ops.f`, kernel code of another module run by Mosaic TPU (passed on line 9): unless it is None there, its lowering raises "Not implemented: accuracy"', None)]),
    ('foreign-passed-by-factory', H + 'import ops\ndef make(accuracy):\n    def k(x_ref, o_ref):\n        o_ref[...] = ops.f(x_ref[...], accuracy=accuracy)\n    return k\ndef run(x):\n    return pl.pallas_call(make(accuracy=lax.AccuracyMode.HIGHEST), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\ndef run2(x):\n    return pl.pallas_call(make(accuracy=lax.AccuracyMode.TOL), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     [(13, 41, 'manual', 'accuracy=lax.AccuracyMode.HIGHEST reaches `ops.f`, kernel code of another module run by Mosaic TPU (passed on line 10): unless it is None there, its lowering raises "Not implemented: accuracy"', None), (15, 41, 'manual', 'accuracy=lax.AccuracyMode.TOL reaches `ops.f`, kernel code of another module run by Mosaic TPU (passed on line 10): unless it is None there, its lowering raises "Not implemented: accuracy"', None)]),
    ('foreign-passed-positional', H + 'import ops\ndef make(a, accuracy):\n    def k(x_ref, o_ref):\n        o_ref[...] = ops.f(x_ref[...], accuracy=accuracy)\n    return k\ndef run(x):\n    return pl.pallas_call(make(1, lax.AccuracyMode.HIGHEST), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     [(13, 35, 'manual', 'accuracy=lax.AccuracyMode.HIGHEST reaches `ops.f`, kernel code of another module run by Mosaic TPU (passed on line 10): unless it is None there, its lowering raises "Not implemented: accuracy"', None)]),
    ('foreign-passed-module-value', H + 'import ops\nacc = lax.AccuracyMode.HIGHEST\ndef k(x_ref, o_ref):\n    o_ref[...] = ops.f(x_ref[...], accuracy=acc)\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     [(10, 45, 'manual', 'accuracy=acc reaches `ops.f`, kernel code of another module run by Mosaic TPU (passed on line 10): unless it is None there, its lowering raises "Not implemented: accuracy"', None)]),
    ('foreign-passed-none-by-a-caller', H + 'import ops\ndef make(accuracy):\n    def k(x_ref, o_ref):\n        o_ref[...] = ops.f(x_ref[...], accuracy=accuracy)\n    return k\ndef run(x):\n    return pl.pallas_call(make(None), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\ndef run2(x):\n    return pl.pallas_call(make(lax.AccuracyMode.TOL), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     [(15, 32, 'manual', 'accuracy=lax.AccuracyMode.TOL reaches `ops.f`, kernel code of another module run by Mosaic TPU (passed on line 10): unless it is None there, its lowering raises "Not implemented: accuracy"', None)]),
    ('foreign-passed-by-a-lambda', H + 'import ops\nk = lambda x_ref, o_ref, accuracy: ops.f(x_ref[...], accuracy=accuracy)\ndef run(x):\n    return pl.pallas_call(functools.partial(k, accuracy=lax.AccuracyMode.HIGHEST), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     None,
     [(10, 57, 'manual', 'accuracy=lax.AccuracyMode.HIGHEST reaches `ops.f`, kernel code of another module run by Mosaic TPU (passed on line 8): unless it is None there, its lowering raises "Not implemented: accuracy"', None)]),
    ('foreign-partial-two-keywords', H + 'import ops\ndef run(x):\n    return pl.pallas_call(functools.partial(ops.body, accuracy=lax.AccuracyMode.HIGHEST, y=1), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     'import functools\nimport jax\nfrom jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\nfrom jax.experimental.pallas import mosaic_gpu as plgpu\nimport ops\ndef run(x):\n    return pl.pallas_call(functools.partial(ops.body, y=1), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     [(9, 55, 'dropped', 'dropped accuracy=lax.AccuracyMode.HIGHEST: it reaches `ops.body`, kernel code of another module run by Mosaic TPU, whose lowering rejects it ("Not implemented: accuracy"); that code now runs at its default accuracy', 'unsafe')]),
    ('foreign-factory', H + 'import ops\ndef run(x):\n    return pl.pallas_call(ops.make(accuracy=lax.AccuracyMode.HIGHEST), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     'import functools\nimport jax\nfrom jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\nfrom jax.experimental.pallas import mosaic_gpu as plgpu\nimport ops\ndef run(x):\n    return pl.pallas_call(ops.make(), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     [(9, 36, 'dropped', 'dropped accuracy=lax.AccuracyMode.HIGHEST: it reaches `ops.make`, kernel code of another module run by Mosaic TPU, whose lowering rejects it ("Not implemented: accuracy"); that code now runs at its default accuracy', 'unsafe')]),
    ('foreign-partial-mode-imported', H + 'import ops\nfrom jax.lax import AccuracyMode\ndef run(x):\n    return pl.pallas_call(functools.partial(ops.body, accuracy=AccuracyMode.HIGHEST), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     H + 'import ops\ndef run(x):\n    return pl.pallas_call(functools.partial(ops.body), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n',
     [(10, 53, 'dropped', 'dropped accuracy=AccuracyMode.HIGHEST: it reaches `ops.body`, kernel code of another module run by Mosaic TPU, whose lowering rejects it ("Not implemented: accuracy"); that code now runs at its default accuracy', 'unsafe')]),
    ('foreign-partial-triton', H + 'import ops\nfrom jax.experimental.pallas import triton as plt\ndef run(x):\n    return pl.pallas_call(functools.partial(ops.body, accuracy=lax.AccuracyMode.HIGHEST), out_shape=x, compiler_params=plt.CompilerParams())(x)\n',
     None,
     []),
    ('foreign-partial-gpu', H + 'import ops\ndef run(x):\n    return pl.pallas_call(functools.partial(ops.body, accuracy=lax.AccuracyMode.HIGHEST), out_shape=x, compiler_params=plgpu.CompilerParams())(x)\n',
     'import functools\nimport jax\nfrom jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\nfrom jax.experimental.pallas import mosaic_gpu as plgpu\nimport ops\ndef run(x):\n    return pl.pallas_call(functools.partial(ops.body), out_shape=x, compiler_params=plgpu.CompilerParams())(x)\n',
     [(9, 53, 'dropped', 'dropped accuracy=lax.AccuracyMode.HIGHEST: it reaches `ops.body`, kernel code of another module run by Mosaic GPU, whose lowering rejects it ("Not implemented: accuracy"); that code now runs at its default accuracy', 'unsafe')]),
]


@pytest.mark.parametrize(("source", "after", "findings"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_jax002(source: str, after: str | None, findings: list) -> None:
    assert _run(source) == (after, findings)


HI = "accuracy=lax.AccuracyMode.HIGHEST"
ALL = Settings((0, 12, 0, 1), Scope.ALL, helpers_module="h", unsafe_fixes=True)
BOTH = "Mosaic GPU and Mosaic TPU"


def _dropped(name: str, value: str, backends: str) -> str:
    return (f"lax.{name}: dropped accuracy={value} (rejected by {backends} kernels); lax.{name} now runs at the "
            "backend's default accuracy")


def _kernel(body: str, params: str) -> str:
    return (f"def k(x_ref, o_ref):\n    o_ref[...] = {body}\ndef run(x):\n"
            f"    return pl.pallas_call(k, out_shape=x, compiler_params={params})(x)\n")


def test_scope_all_drops_hints_outside_kernels_for_every_mosaic_backend() -> None:
    assert _run(H + f"y = lax.exp(x, {HI})\nz = lax.rsqrt(x, {HI})\n", ALL) == (
        H + "from h import rsqrt_safe\n\ny = lax.exp(x)\nz = rsqrt_safe(x)\n",
        [(7, 14, "dropped", _dropped("exp", "lax.AccuracyMode.HIGHEST", BOTH), "unsafe"),
         (8, 5, "dropped", f"lax.rsqrt: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by {BOTH} kernels); now "
          "rsqrt_safe(), a Newton-refined rsqrt that keeps float32 accuracy", "safe")])


@pytest.mark.parametrize("target", ["f", "f: object"])
def test_a_partial_in_a_class_body_keeps_its_partial(target: str) -> None:
    """A partial is no descriptor and a function is: `self.f(x)` must not start passing self."""
    source = H + f"class N:\n    {target} = functools.partial(lax.exp, {HI})\n"
    column = 33 + len(target)
    assert _run(source, ALL) == (
        H + f"class N:\n    {target} = functools.partial(lax.exp)\n",
        [(8, column, "dropped", _dropped("exp", "lax.AccuracyMode.HIGHEST", BOTH), "unsafe")])


def test_a_partial_shared_with_xla_is_unwrapped_under_scope_all() -> None:
    source = H + f"e = functools.partial(lax.exp, {HI})\ny = e(2.0)\n"
    assert _run(source, ALL) == (
        H.replace("import functools\n", "") + "e = lax.exp\ny = e(2.0)\n",
        [(7, 5, "dropped", _dropped("exp", "lax.AccuracyMode.HIGHEST", BOTH), "unsafe")])


def test_a_line_a_traceback_proves_is_a_kernels_on_every_mosaic_backend() -> None:
    source = H + f"y = lax.exp(x, {HI})\nz = lax.tanh(x, {HI})\n"
    assert _run(source, proven={"JAX002": frozenset({8})}) == (
        H + f"y = lax.exp(x, {HI})\nz = lax.tanh(x)\n",
        [(8, 15, "dropped", _dropped("tanh", "lax.AccuracyMode.HIGHEST", BOTH), "unsafe")])
    assert _run(source, proven={"JAX001": frozenset({8})}) == (None, [])


@pytest.mark.parametrize(("version", "name", "params", "after", "finding"), [
    # Mosaic GPU lowers no sqrt before 0.11.2, and rejects its hint since.
    ((0, 10, 2), "sqrt", "plgpu.CompilerParams()", None,
     (8, 18, "manual", 'lax.sqrt: Mosaic GPU cannot lower sqrt in a kernel at all ("Unimplemented primitive in Pallas '
      'Mosaic GPU lowering: sqrt"), with or without its accuracy= hint: this kernel cannot lower there as written '
      "(compute it from functions the kernel lowers); hint left as written", None)),
    ((0, 12, 0, 1), "sqrt", "plgpu.CompilerParams()", "lax.sqrt(x_ref[...])",
     (8, 37, "dropped", _dropped("sqrt", "lax.AccuracyMode.HIGHEST", "Mosaic GPU"), "unsafe")),
    # erfc lowers nowhere since 0.12.0 (a note), and before it is none of this rule's.
    ((0, 11, 0), "erfc", "pltpu.CompilerParams()", None, None),
    # Mosaic TPU rejects log2's hint since 0.11.2; an unknown jax counts every release.
    ((0, 11, 0), "log2", "pltpu.CompilerParams()", None, None),
    (None, "log2", "pltpu.CompilerParams()", "lax.log2(x_ref[...])",
     (8, 37, "dropped", _dropped("log2", "lax.AccuracyMode.HIGHEST", "Mosaic TPU"), "unsafe")),
])
def test_what_is_rejected_depends_on_the_target_jax(version, name, params, after, finding) -> None:
    source = H + _kernel(f"lax.{name}(x_ref[...], {HI})", params)
    assert _run(source, Settings(version, helpers_module="h", unsafe_fixes=True)) == (
        None if after is None else H + _kernel(after, params), [] if finding is None else [finding])


def test_an_unsafe_drop_is_reported_and_not_applied_without_unsafe_fixes() -> None:
    source = H + _kernel(f"lax.exp(x_ref[...], {HI})", "pltpu.CompilerParams()")
    assert _run(source, Settings((0, 12, 0, 1), helpers_module="h")) == (
        None, [(8, 36, "dropped", _dropped("exp", "lax.AccuracyMode.HIGHEST", "Mosaic TPU"), "unsafe")])


def test_matches_a_hinted_call_or_one_with_kwargs_wherever_it_is() -> None:
    source = H + (f"a = lax.exp(x, {HI})\nb = lax.exp(x)\nc = lax.tanh(x, **kw)\nd = lax.add(x, {HI})\n"
                  f"e = functools.partial(lax.cbrt, {HI})\ne(x)\nf = lax.erfc(x, accuracy=None)\n")
    file = ParsedFile(Path("m.py"), ModuleIndex.parse(source), TARGET)
    calls = sorted((n for n in ast.walk(file.module.tree) if isinstance(n, ast.Call)), key=lambda n: n.lineno)
    assert [(call.lineno, AccuracyHints.matches_call(RULE, file, call)) for call in calls] == [
        (7, True), (8, False), (9, True), (10, False), (11, True), (12, True), (13, True)]


def test_cannot_lower_names_each_backend_in_order() -> None:
    assert _cannot_lower("jax.lax.cbrt", frozenset({"mosaic_tpu", "mosaic_gpu"})) == (
        'Mosaic GPU and Mosaic TPU cannot lower cbrt in a kernel at all ("Unimplemented primitive in Pallas Mosaic GPU '
        'lowering: cbrt"; "Unimplemented primitive in Pallas TPU lowering for tc: cbrt")')


def test_the_backends_that_reject_a_hint_are_those_of_the_target_jax() -> None:
    """Mosaic GPU rejects sqrt's hint only since 0.11.2 (before, it lowers no sqrt at all)."""
    old = Settings((0, 11, 0), helpers_module="h", unsafe_fixes=True)
    launches = ("def run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n"
                "def run2(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plgpu.CompilerParams())(x)\n")
    source = H + f"def k(x_ref, o_ref):\n    o_ref[...] = lax.sqrt(x_ref[...], {HI})\n" + launches
    assert _run(source, old) == (
        H + "def k(x_ref, o_ref):\n    o_ref[...] = lax.sqrt(x_ref[...])\n" + launches,
        [(8, 37, "dropped", _dropped("sqrt", "lax.AccuracyMode.HIGHEST", "Mosaic TPU") + '; note: Mosaic GPU cannot '
          'lower sqrt in a kernel at all ("Unimplemented primitive in Pallas Mosaic GPU lowering: sqrt"), so this '
          "kernel lowers for Mosaic TPU only", "unsafe")])
    assert _run(H + f"y = lax.sqrt(x, {HI})\n", Settings((0, 10, 2), Scope.ALL, helpers_module="h", unsafe_fixes=True)) == (
        H + "y = lax.sqrt(x)\n", [(7, 15, "dropped", _dropped("sqrt", "lax.AccuracyMode.HIGHEST", "Mosaic TPU"), "unsafe")])


def test_a_keyword_only_parameter_set_by_a_factorys_caller() -> None:
    source = H + ("import ops\ndef make(*, accuracy):\n    def k(x_ref, o_ref):\n"
                  "        o_ref[...] = ops.f(x_ref[...], accuracy=accuracy)\n    return k\ndef run(x):\n"
                  f"    return pl.pallas_call(make({HI}), out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n")
    assert _run(source) == (None, [(13, 41, "manual", "accuracy=lax.AccuracyMode.HIGHEST reaches `ops.f`, kernel code of "
                                    "another module run by Mosaic TPU (passed on line 10): unless it is None there, its "
                                    'lowering raises "Not implemented: accuracy"', None)])


def test_each_keyword_that_reaches_another_modules_kernel_is_judged_on_its_own() -> None:
    """`y=1` and `accuracy=None` are skipped; the reading goes on to the keywords after them."""
    launch = "out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n"
    message = ("dropped accuracy=lax.AccuracyMode.HIGHEST: it reaches `ops.{}`, kernel code of another module run by "
               'Mosaic TPU, whose lowering rejects it ("Not implemented: accuracy"); that code now runs at its '
               "default accuracy")
    without_lax = H.replace("from jax import lax\n", "")
    assert _run(H + f"import ops\ndef run(x):\n    return pl.pallas_call(functools.partial(ops.body, y=1, {HI}), "
                + launch) == (
        without_lax + "import ops\ndef run(x):\n    return pl.pallas_call(functools.partial(ops.body, y=1), " + launch,
        [(9, 58, "dropped", message.format("body"), "unsafe")])
    first = "import ops\ndef run(x):\n    return pl.pallas_call(functools.partial(ops.body, accuracy=None), " + launch
    assert _run(H + first + f"def run2(x):\n    return pl.pallas_call(functools.partial(ops.body2, {HI}), " + launch) == (
        without_lax + first + "def run2(x):\n    return pl.pallas_call(functools.partial(ops.body2), " + launch,
        [(11, 54, "dropped", message.format("body2"), "unsafe")])


def test_a_none_hint_where_an_unresolved_launch_may_run_is_no_finding() -> None:
    source = H + ("import sys\ndef _a_kernel(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], accuracy=None)\n"
                  "def run(name, x):\n    body = getattr(sys.modules[__name__], name)\n"
                  "    return pl.pallas_call(body, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n")
    assert _run(source) == (None, [])


@pytest.mark.parametrize("passed_first", [True, False])
def test_a_value_passed_on_and_a_value_bound_in_one_module(passed_first: bool) -> None:
    launch = "out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n"
    passed = ("def k(x_ref, o_ref, accuracy):\n    o_ref[...] = ops.f(x_ref[...], accuracy=accuracy)\ndef run(x):\n"
              f"    return pl.pallas_call(functools.partial(k, {HI}), " + launch)
    bound = "def run2(x):\n    return pl.pallas_call(functools.partial(ops.body{}), " + launch
    body = passed + bound if passed_first else bound + passed
    after = passed + bound.format("") if passed_first else bound.format("") + passed
    lines = (11, 9, 13) if passed_first else (13, 11, 9)
    findings = [(lines[0], 57, "manual", "accuracy=lax.AccuracyMode.HIGHEST reaches `ops.f`, kernel code of another module "
                 f"run by Mosaic TPU (passed on line {lines[1]}): unless it is None there, its lowering raises "
                 '"Not implemented: accuracy"', None),
                (lines[2], 53, "dropped", "dropped accuracy=lax.AccuracyMode.HIGHEST: it reaches `ops.body`, kernel code of "
                 'another module run by Mosaic TPU, whose lowering rejects it ("Not implemented: accuracy"); that code '
                 "now runs at its default accuracy", "unsafe")]
    assert _run(H + "import ops\n" + body.format(f", {HI}")) == (H + "import ops\n" + after, sorted(findings))


def test_matches_only_the_functions_the_target_jax_rejects_a_hint_of() -> None:
    source = H + f"a = lax.log2(x, {HI})\n"
    for version, matched in [((0, 11, 0), False), ((0, 11, 2), True)]:
        file = ParsedFile(Path("m.py"), ModuleIndex.parse(source), Settings(version))
        (call,) = [c for c in file.module.calls if c.lineno == 7]
        assert (version, AccuracyHints.matches_call(RULE, file, call)) == (version, matched)


def test_two_kernels_passing_values_on_each_get_a_finding() -> None:
    launch = "out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n"
    source = H + ("import ops\ndef k(x_ref, o_ref, accuracy):\n    o_ref[...] = ops.f(x_ref[...], accuracy=accuracy)\n"
                  "def k2(x_ref, o_ref, accuracy):\n    o_ref[...] = ops.g(x_ref[...], accuracy=accuracy)\ndef run(x):\n"
                  f"    return pl.pallas_call(functools.partial(k, {HI}), " + launch + "def run2(x):\n"
                  "    return pl.pallas_call(functools.partial(k2, accuracy=lax.AccuracyMode.TOL), " + launch)
    tail = ' kernel code of another module run by Mosaic TPU (passed on line {}): unless it is None there, its ' \
           'lowering raises "Not implemented: accuracy"'
    assert _run(source) == (None, [
        (13, 57, "manual", "accuracy=lax.AccuracyMode.HIGHEST reaches `ops.f`," + tail.format(9), None),
        (15, 58, "manual", "accuracy=lax.AccuracyMode.TOL reaches `ops.g`," + tail.format(11), None)])
