"""Run jax-codemod's transforms from other refactoring runners.

Two adapters, each a thin shell around the engine's `process_source` (the same prefilter ->
analysis -> rewrite -> verify that `jax-codemod` runs, so both produce the CLI's text for a file):

* `codemods.interop.libcst_commands` — `libcst.codemod` commands for `python -m libcst.tool codemod`
  (list the package `codemods.interop` under `modules:` in `.libcst.codemod.yaml`).
* `codemods.interop.bowler_modifier` — a Bowler modifier and a ready `bowler.Query`
  (needs `pip install 'jax-codemod[bowler]'`; lib2to3 grammar limits apply, see that module).

Importing this package loads neither libcst nor Bowler.
"""
