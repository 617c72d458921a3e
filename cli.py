"""Run jax-codemod from a checkout: `python cli.py [ARGS...]`.

The installed command is `jax-codemod` (or `python -m codemods`); the program lives in
codemods/cli.py, so an installed copy claims no top-level module name but `codemods`.
"""

from codemods.cli import main

if __name__ == "__main__":
    main()
