"""jax-codemod: rewrite JAX code that hits unsupported-precision walls, checked against the real compiler.

Exit codes: 0 nothing to change (or everything written), 1 changes pending (dry run or --check),
2 some file could not be processed (the others are still processed and reported).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer
from typer.core import TyperGroup

from codemods.capabilities import format_version, installed_version, parse_version
from codemods.settings import PrecisionPolicy, Scope, Settings

EXIT_CLEAN, EXIT_CHANGES, EXIT_ERRORS = 0, 1, 2


class _FixByDefault(TyperGroup):
    """`jax-codemod PATHS...` means `jax-codemod fix PATHS...`, like ruff's implied `check`."""

    def parse_args(self, ctx, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h")):
            args = ["fix", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(
    cls=_FixByDefault,
    help=__doc__,
    add_completion=False,
    no_args_is_help=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def installed_jax_version() -> Optional[tuple[int, ...]]:
    """The installed jax's version, read from its dist-info folder: jax itself is never imported.
    Only where none is found (an egg install, say) is importlib.metadata asked."""
    text = installed_version("jax")
    if text is None:
        from importlib import metadata

        try:
            text = metadata.version("jax")
        except metadata.PackageNotFoundError:
            return None
    try:
        return parse_version(text)
    except ValueError:
        return None


@app.command()
def fix(
    paths: List[Path] = typer.Argument(None, help="Files or folders (default: the current folder)."),
    write: bool = typer.Option(False, "--write", help="Apply the changes in place (atomically)."),
    check: bool = typer.Option(False, "--check", help="List files that would change; exit 1 if any."),
    select: List[str] = typer.Option([], "--select", help="Only these transforms (codes or names, e.g. JAX001)."),
    ignore: List[str] = typer.Option([], "--ignore", help="Skip these transforms (codes or names)."),
    jobs: int = typer.Option(0, "--jobs", "-j", help="Worker processes (default: all cores)."),
    jax_version: Optional[str] = typer.Option(
        None, "--jax-version", help="Target jax release (default: the installed jax; conservative if none)."
    ),
    scope: Scope = typer.Option(Scope.KERNELS, "--scope", help="kernels: only inside Pallas kernel bodies; all: everywhere."),
    precision_policy: PrecisionPolicy = typer.Option(
        PrecisionPolicy.NEAREST, "--precision-policy",
        help="nearest: least accurate accepted scalar that loses no accuracy; highest: always HIGHEST.",
    ),
    helpers_module: Optional[str] = typer.Option(
        None, "--helpers-module", help="Import the helpers JAX002/JAX003 call (rsqrt_safe, lstm_float32) from this module instead of inlining them."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the diff (or file list) and errors."),
    no_cache: bool = typer.Option(
        False, "--no-cache", help="Analyse every file again instead of reusing results for unchanged files "
        "(kept in $JAX_CODEMOD_CACHE_DIR, else ~/.cache/jax-codemod)."
    ),
) -> None:
    """Show (default), check or write the rewrites for PATHS."""
    from codemods import registry
    from codemods.engine import runner
    from codemods.engine.cache import ResultCache, default_directory
    from codemods.engine.report import Summary, render_findings, unified_diff

    if write and check:
        raise typer.BadParameter("--write and --check exclude each other")
    try:
        transforms = registry.select(select, ignore)
        version = parse_version(jax_version) if jax_version else installed_jax_version()
    except (KeyError, ValueError) as error:
        raise typer.BadParameter(str(error.args[0]))
    settings = Settings(version, scope, precision_policy, helpers_module)
    cache = None if no_cache else ResultCache(default_directory(), transforms, settings)
    results = runner.run(paths or [Path(".")], transforms, settings, jobs or runner.default_jobs(), cache)

    summary = Summary()
    for result in results:
        if result.new_source is not None:
            if write:
                runner.write(result)
            elif check:
                print(result.path)
            else:
                sys.stdout.flush()
                sys.stdout.buffer.write(unified_diff(result.path, result.raw, result.new_source))
        summary.add(result)
    errors = [r for r in results if r.error]
    if not quiet:
        sys.stderr.write(render_findings(results))
    for result in errors:
        sys.stderr.write(f"{result.path}: error: {result.error}\n")
    if not quiet:
        sys.stderr.write(f"{summary.render(written=write)} (target jax {format_version(version)})\n")
    if errors:
        raise typer.Exit(EXIT_ERRORS)
    raise typer.Exit(EXIT_CHANGES if summary.changed and not write else EXIT_CLEAN)


@app.command()
def rules() -> None:
    """Describe every transform: what it does, why, and an example."""
    from codemods import registry

    for rule in registry.RULES:
        print(f"{rule.code} {rule.name}\n    {rule.description}")
        doc = sys.modules[rule.load().__module__].__doc__ or ""
        print("\n".join("    " + line for line in doc.splitlines()))


@app.command()
def probe(json_output: bool = typer.Option(False, "--json", help="Machine-readable output.")) -> None:
    """Lower small kernels with the installed jax and compare with the tool's capability table."""
    from codemods import probe as probe_module

    raise typer.Exit(probe_module.main(json_output=json_output))


def main() -> None:
    app()


if __name__ == "__main__":
    main()
