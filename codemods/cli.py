"""jax-codemod: rewrite JAX code that hits unsupported-precision walls, checked against the real compiler.

`jax-codemod PATHS...` is `jax-codemod fix PATHS...` (its options are listed below).

Exit codes, as Ruff's: 0 nothing left to do (no finding, or every one fixed on disk); 1 a finding
remains (any kind, [manual] included: a dry run, --check, an unsafe fix not applied, a declined
fix), unless --exit-zero; 2 some file could not be processed (the others are still processed and
reported), a rule family could not run (the JAX1xx rules with no target jax: pass --jax-version; the
diff of the other rules is still shown), or the run could not start (a bad config or option).
"""

from __future__ import annotations

import contextlib
import enum
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer
from typer.core import TyperGroup

from codemods.capabilities import format_version, installed_version
from codemods.settings import PrecisionPolicy, Scope, Settings

if TYPE_CHECKING:
    from codemods.floor import Floor

EXIT_CLEAN, EXIT_CHANGES, EXIT_ERRORS = 0, 1, 2


class _FixByDefault(TyperGroup):
    """`jax-codemod PATHS...` means `jax-codemod fix PATHS...`, like ruff's implied `check`."""

    def parse_args(self, ctx, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h")):
            args = ["fix", *args]
        return super().parse_args(ctx, args)

    def format_options(self, ctx, formatter) -> None:
        """`jax-codemod --help` lists the default command's options too: that is what users run."""
        super().format_options(ctx, formatter)
        fix = self.commands["fix"]
        fix_ctx = type(ctx)(fix, info_name="fix", parent=ctx)  # click's Context: typer may not depend on click
        records = [record for param in fix.get_params(fix_ctx) if (record := param.get_help_record(fix_ctx))]
        with formatter.section("Options of `fix`, the default command (jax-codemod [OPTIONS] [PATHS]...)"):
            formatter.write_dl(records)


app = typer.Typer(
    cls=_FixByDefault,
    help=__doc__,
    add_completion=False,
    no_args_is_help=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},  # `-h` as Ruff takes it, for every command
)


class OutputFormat(str, enum.Enum):
    TEXT = "text"  # diff on stdout, findings and summary on stderr
    JSON = "json"  # one JSON document on stdout: findings, fixes as diffs, errors, summary
    SARIF = "sarif"  # SARIF 2.1.0 on stdout, for code-scanning dashboards
    GITHUB = "github"  # GitHub Actions workflow commands on stdout: annotations on the PR
    RDJSON = "rdjson"  # reviewdog's diagnostic format: fixes as suggested changes on the PR
    GITLAB = "gitlab"  # GitLab Code Quality report
    JUNIT = "junit"  # JUnit XML, for CI test-report viewers


# A run this large gets a progress bar on a terminal (nothing when stderr is not a terminal).
PROGRESS_MIN_FILES = 1000
PROGRESS_MIN_ANALYSED = 50


@app.command()
def fix(
    paths: List[Path] = typer.Argument(None, help="Files or folders (default: the current folder)."),
    write: bool = typer.Option(False, "--write", help="Apply the changes in place (atomically)."),
    check: bool = typer.Option(False, "--check", help="List the files that would change and the findings; exit 1 while any finding remains."),
    interactive: bool = typer.Option(False, "--interactive", "-i", help="Show each fix (its finding and diff) and ask before applying it."),
    select: List[str] = typer.Option([], "--select", help="Only these rules: codes, code prefixes or names (JAX001, JAX0, ALL)."),
    ignore: List[str] = typer.Option([], "--ignore", help="Skip these rules: codes, code prefixes or names."),
    unsafe_fixes: Optional[bool] = typer.Option(
        None, "--unsafe-fixes/--no-unsafe-fixes",
        help="Also apply fixes that change numerics or need judgement (shown, not applied, by default).",
    ),
    jobs: int = typer.Option(0, "--jobs", "-j", min=0, help="Worker processes (default: all cores)."),
    executor: Optional[str] = typer.Option(
        None, "--executor", envvar="JAX_CODEMOD_EXECUTOR", metavar="local|dask://HOST:PORT",
        help="Where each file's rules run: local processes (default), or the workers of a Dask scheduler, which "
        "read the files at the same paths (the `dask` extra; docs/executors.md)."),
    jax_version: Optional[str] = typer.Option(
        None, "--jax-version", help="Target jax release (default: the config's, else the project's environment's, "
        "else the tool's, else the project's pin)."
    ),
    jax_floor: Optional[str] = typer.Option(
        None, "--jax-floor", help="The lowest jax the project supports: JAX1xx fixes use nothing it lacks; given "
        "here, it holds for every file (default: each file's own project's: the nearest folder above it with a "
        "jax-floor in its config or a jax requirement in pyproject.toml, setup.cfg, setup.py, requirements*.txt, "
        "lock files)."
    ),
    scope: Optional[Scope] = typer.Option(None, "--scope", help="kernels (default): only inside Pallas kernel bodies; all: everywhere."),
    precision_policy: Optional[PrecisionPolicy] = typer.Option(
        None, "--precision-policy",
        help="nearest (default): least accurate accepted scalar that loses no accuracy; highest: always HIGHEST.",
    ),
    helpers_module: Optional[str] = typer.Option(
        None, "--helpers-module", help="Import the helpers JAX002/JAX003 call (rsqrt_safe, lstm_float32) from this module instead of inlining them."
    ),
    create_helpers_module: bool = typer.Option(
        False, "--create-helpers-module", help="Write the --helpers-module (with --write) when the project has no such module."),
    output_format: OutputFormat = typer.Option(OutputFormat.TEXT, "--output-format", help="text, json, sarif, github, rdjson, gitlab or junit."),
    exclude: List[str] = typer.Option([], "--exclude", help="Skip paths matching this glob (added to the config's)."),
    force_exclude: bool = typer.Option(False, "--force-exclude", help="Apply excludes to files named explicitly too (pre-commit)."),
    diff_base: Optional[str] = typer.Option(None, "--diff-base", help="Only the .py and .ipynb files changed since the merge base of this git revision and HEAD "
        "(as `git diff REV...`)."),
    add_noqa: bool = typer.Option(
        False, "--add-noqa", help="Write a `# jax-codemod: ignore[CODE]` comment on the line of every finding "
        "(as Ruff's --add-noqa), then report what is left."),
    only_changed_lines: bool = typer.Option(
        False, "--only-changed-lines",
        help="With --diff-base: only the findings (and fixes) on lines the branch added or changed, as "
        "reviewdog's filter-mode=added."),
    shard: Optional[str] = typer.Option(None, "--shard", help="K/N: only the Kth of N deterministic parts of the files (CI matrices)."),
    split_by: Optional[str] = typer.Option(
        None, "--split-by", metavar="codeowners|directory:N",
        help="With --write-patches: one patch per CODEOWNERS owner, or per folder N levels deep."),
    write_patches: Optional[Path] = typer.Option(
        None, "--write-patches", metavar="DIR",
        help="Write the --split-by patches and SUMMARY.md to DIR instead of showing the diff (a dry run)."),
    force: bool = typer.Option(
        False, "--force", help="With --write-patches: replace the *.patch files and SUMMARY.md already in DIR."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the diff (or file list) and errors."),
    exit_zero: bool = typer.Option(
        False, "--exit-zero", help="Exit 0 even when findings or changes remain (2 still means a file failed)."),
    no_cache: bool = typer.Option(
        False, "--no-cache", help="Analyse every file again instead of reusing results for unchanged files "
        "(kept in $JAX_CODEMOD_CACHE_DIR, else ~/.cache/jax-codemod)."
    ),
    trust_mtime: bool = typer.Option(
        True, "--trust-mtime/--no-trust-mtime", envvar="JAX_CODEMOD_TRUST_MTIME",
        help="Take a file whose size and modification time are unchanged for unchanged (the default); "
        "--no-trust-mtime reads and hashes every file, where a checkout or copy restores mtimes."),
    show_version: bool = typer.Option(False, "--version", help="Print the version and exit."),
) -> None:
    """Show (default), check or write the rewrites for PATHS."""
    if show_version:
        print(f"jax-codemod {_tool_version()}")
        raise typer.Exit(EXIT_CLEAN)
    from codemods import config as project_config
    from codemods import registry
    from codemods.engine import discovery, patches, runner
    from codemods.engine.cache import ResultCache, default_directory
    from codemods.engine.executors import ExecutorError

    if sum((write, check, interactive)) > 1:
        raise typer.BadParameter("--write, --check and --interactive exclude each other")
    if interactive and output_format is not OutputFormat.TEXT:
        raise typer.BadParameter("--interactive shows diffs as text: use it without --output-format")
    split = _split(split_by, write_patches, force, write or check or interactive)
    if add_noqa and (write or check or interactive or split):
        raise typer.BadParameter("--add-noqa writes suppression comments, not fixes: use it without --write, "
                                 "--check, --interactive and --split-by")
    if only_changed_lines and (not diff_base or interactive):
        raise typer.BadParameter("--only-changed-lines keeps the findings on the lines changed since --diff-base: "
                                 "give --diff-base REV, and leave out --interactive")
    paths = paths or [Path(".")]
    _no_command_among(paths)
    try:
        config = project_config.load(project_config.find(paths), registry.RULES)
        transforms, settings = project_config.resolve(
            config, registry.RULES, select=select, ignore=ignore, jax_version=jax_version, jax_floor=jax_floor,
            scope=scope, precision_policy=precision_policy, helpers_module=helpers_module, unsafe_fixes=unsafe_fixes,
            executor=executor)
        created = project_config.helpers_module_ready(config, settings, create=create_helpers_module, write=write or interactive)
        files, project, root = _files(paths, config, exclude, force_exclude, diff_base, shard)
        lines = discovery.changed_lines(diff_base) if only_changed_lines and diff_base else None
        plan = patches.Plan.prepare(split, _repository_root(root), write_patches, force) if split else None
    except ValueError as error:  # registry.UnknownRule among them
        raise typer.BadParameter(str(error.args[0]))
    except (project_config.ConfigError, discovery.DiscoveryError, patches.PatchError) as error:
        sys.stderr.write(f"error: {error}\n")
        raise typer.Exit(EXIT_ERRORS)
    jax1_off = _check_target(settings, transforms, select or config.select, severity="error")
    if created is not None:
        sys.stderr.write(f"{created}: written, the --helpers-module {settings.helpers_module} the fixes import\n")
    cache = None if no_cache else ResultCache(default_directory(), settings, trust_mtime)
    from codemods.engine.report import plural

    def analyse(last: bool = True):
        try:
            with _progress(len(files)) if not interactive else contextlib.nullcontext() as progress:  # no bar under prompts
                results = runner.run(files, transforms, settings, jobs or runner.default_jobs(), cache,
                                     rules_to_skip=config.ignored_rules, progress=progress, project=project,
                                     review=_reviewer() if interactive else _on_lines(lines) if lines is not None else None,
                                     discovered=True, shard=shard is not None)
        except ExecutorError as error:  # before anything is written
            sys.stderr.write(f"error: {error}\n")
            raise typer.Exit(EXIT_ERRORS)
        left_out = 0
        for result in results if lines is not None else ():
            kept = [f for f in result.findings if _on(f, lines.get(os.path.realpath(result.path)))]
            left_out += len(result.findings) - len(kept)
            result.findings = kept
        if left_out and last and not quiet:
            sys.stderr.write(f"{plural(left_out, 'finding')} on lines the branch did not change left out "
                             "(--only-changed-lines)\n")
        return results

    results = analyse(last=not add_noqa)
    if add_noqa:  # then what is left: a finding on a line that took no comment, a file that could not be written
        _add_ignores(results, quiet)
        failed = {result.path: result for result in results if result.error}
        results = [failed.get(result.path, result) for result in analyse()]
    if not diff_base:
        results += _empty_folders(paths, files, config, exclude)
    _report(results, settings, write=write or interactive, check=check, quiet=quiet, output=output_format,
            exit_zero=exit_zero, plan=plan, jax1_off=jax1_off)


def _add_ignores(results, quiet: bool) -> None:
    """--add-noqa: the comments written, the lines that could not take one."""
    from codemods.engine import runner
    from codemods.engine.report import plural

    added = files = 0
    for result in results:
        if result.error is not None or not result.findings:
            continue
        refused = runner.write_ignores(result)
        for line in refused:
            codes = ", ".join(sorted({finding.code for finding in result.findings if finding.comment_line == line}))
            sys.stderr.write(f"{result.path}:{line}: {codes}: no suppression comment can go on this line (it ends "
                             "inside a string or with a backslash): the finding stays\n")
        commented = len({finding.comment_line for finding in result.findings} - set(refused))
        added += commented if result.error is None else 0
        files += bool(commented) and result.error is None
    if not quiet:
        sys.stderr.write(f"{plural(added, 'suppression comment')} added to {plural(files, 'file')}\n")


def _no_command_among(paths: List[Path]) -> None:
    """`jax-codemod --jax-version X explain log` hands `explain` and the log to `fix` as paths (the
    group implies `fix` when its first word is an option): a missing path named like a command is a
    misplaced command, said so, not `cannot read` (`fix` too: `--jax-version X fix .`)."""
    commands = {command.name or typer.main.get_command_name(command.callback.__name__)
                for command in app.registered_commands if command.callback is not None}
    for path in paths:
        if str(path) in commands and not path.exists():
            raise typer.BadParameter(f"`{path}` is a command, not a file: write its options after its name "
                                     f"(jax-codemod {path} [OPTIONS] ...)")


def _split(split_by: Optional[str], write_patches: Optional[Path], force: bool, applies: bool):
    """The parsed --split-by, once its companions are right (usage errors otherwise)."""
    from codemods.engine.patches import Split

    if split_by is None:
        if write_patches is not None or force:
            raise typer.BadParameter("--write-patches and --force need --split-by codeowners or directory:N")
        return None
    if write_patches is None or applies:
        raise typer.BadParameter("--split-by is a dry run that writes patches: use it with --write-patches DIR, "
                                 "without --write, --check or --interactive")
    try:
        return Split.parse(split_by)
    except ValueError as error:
        raise typer.BadParameter(str(error))


def _repository_root(root: Optional[Path]) -> Path:
    """What patches are relative to (`git apply` reads them from the top of the work tree): the
    git root around the project, else the project root, else the current folder."""
    from codemods.engine import discovery

    folder = root if root is not None else Path.cwd()
    return discovery.git_toplevel(folder) or Path(os.path.realpath(folder))


def _files(paths: List[Path], config, exclude: List[str], force_exclude: bool, diff_base: Optional[str],
           shard: Optional[str]) -> tuple[list[str], "list[Path | str]", Optional[Path]]:
    """Stage 1, as the options and the project config ask: the files to process, the files of
    the project they belong to (indexed together, so that a kernel launched from another module is
    found however the files to process are narrowed: one file, a shard, a PR's changes), and the
    project's root."""
    from codemods.engine import discovery

    parsed_shard = discovery.Shard.parse(shard) if shard else None
    excluded = config.excluded(exclude)
    notebooks = config.notebooks
    if diff_base:
        files = discovery.discover(discovery.changed_since(diff_base, paths, notebooks), excluded, force_exclude=True,
                                   notebooks=notebooks, as_text=True)
    else:
        files = discovery.discover(paths, excluded, force_exclude=force_exclude, notebooks=notebooks, as_text=True)
    root = discovery.project_root(paths, config.path.parent if config.path else None)
    indexed = discovery.indexed_folder(paths, root)
    if not diff_base and len(paths) == 1 and paths[0].is_dir() and os.path.realpath(paths[0]) == os.path.realpath(indexed):
        project = files  # `jax-codemod .` at the root: the run's walk is the project's (not walked twice)
    else:
        project = discovery.project_files(indexed, excluded, notebooks, files)
    anchor = root if root is not None else config.root  # the project's root: the same shards from any folder
    return [f for f in files if parsed_shard is None or parsed_shard.holds(f, anchor)], project, root


def _empty_folders(paths: List[Path], files: List[Path], config, exclude: List[str]):
    """Results saying why a folder named on the command line yielded no file, when it is our doing."""
    from codemods.engine import discovery
    from codemods.engine.report import FileResult

    excluded = config.excluded(exclude)
    for folder in (p for p in paths if p.is_dir()):
        prefix = os.path.join(os.path.abspath(folder), "")
        # Stops at its first file (an absolute path per file of a large tree costs a tenth of a second).
        reason = None if any(os.path.abspath(f).startswith(prefix) for f in files) \
            else discovery.why_empty(folder, excluded)
        if reason is not None:
            yield FileResult(str(folder), skipped=reason)


@contextlib.contextmanager
def _progress(files: int):
    """A progress bar on stderr for long runs on a terminal (rich, loaded only then); else nothing."""
    if not sys.stderr.isatty() or os.environ.get("TERM") == "dumb":
        yield None
        return
    state: dict = {}

    def update(done: int, total: int) -> None:
        if "bar" not in state:
            if files < PROGRESS_MIN_FILES and total < PROGRESS_MIN_ANALYSED:
                return
            from rich.console import Console
            from rich.progress import Progress

            state["bar"] = Progress(console=Console(stderr=True), transient=True)
            state["bar"].start()
            state["task"] = state["bar"].add_task(f"analysing {total} of {files} files", total=total)
        state["bar"].update(state["task"], completed=done)

    try:
        yield update
    finally:
        if "bar" in state:
            state["bar"].stop()


def _reviewer():
    """`--interactive`: show each fix (its finding and its diff) and ask; the run then fixes the file
    again with the accepted fixes, applied together as `--write` would apply them (None: all were)."""
    from codemods.engine.report import fix_diff, render_finding

    state = {"all": False, "stop": False}

    def review(result):
        offered = [f for f in result.findings if f.applied]
        accepted = set()
        for finding in [] if state["stop"] else offered:  # after [q]uit, every fix is declined
            answer = "y" if state["all"] else _ask(render_finding(result, finding), fix_diff(result, finding) or b"")
            state["all"] |= answer == "a"
            if answer == "q":
                state["stop"] = True
                break
            if answer in ("y", "a"):
                accepted.add(_identity(finding))
        if len(accepted) == len(offered):
            return None
        return lambda finding: _identity(finding) in accepted

    return review


def _on(finding, lines: Optional[frozenset]) -> bool:
    """The finding touches one of `lines` (None: a new file, every line of it is)."""
    return lines is None or any(line in lines for line in range(finding.line, max(finding.line, finding.end_line) + 1))


def _on_lines(changed: dict):
    """--only-changed-lines: a file's fixes are applied only where their findings touch a changed line."""
    def review(result):
        lines = changed.get(os.path.realpath(result.path))
        if all(_on(finding, lines) for finding in result.findings if finding.applied):
            return None
        return lambda finding: _on(finding, lines)

    return review


def _identity(finding) -> tuple:
    return (finding.code, finding.line, finding.column, finding.message)


def _report(results, settings: Settings, *, write: bool, check: bool, quiet: bool, output: OutputFormat,
            exit_zero: bool, plan=None, jax1_off: bool = False) -> None:
    """Stage 7: write or show the changes (or, with a `patches.Plan`, write them as patches),
    report findings in the chosen format, exit. `jax1_off`: the JAX1xx rules were to run and could
    not (no target jax): the summary says so and the run exits 2, so that no check passes on it."""
    from codemods import registry
    from codemods.engine import runner
    from codemods.engine.report import Summary, file_diff, render_findings

    text = output is OutputFormat.TEXT
    if plan is not None:
        _write_patches(plan, results, _target(settings, jax1_off), _floor_of_file(settings), text=text, quiet=quiet)
    for result in results:
        if result.new_source is None or result.error is not None or plan is not None:
            continue
        if write:
            runner.write(result)
            result.written = result.error is None
        elif check and text:
            print(result.path)
        elif text:
            sys.stdout.flush()
            sys.stdout.buffer.write(file_diff(result))
    summary = Summary()
    for result in results:
        summary.add(result)
    if not text:
        from codemods.engine import formats

        sys.stdout.write(formats.render(output.value, results, rules=registry.RULES, tool_version=_tool_version(),
                                        suppressed=summary.suppressed))
    errors = [r for r in results if r.error]
    if not quiet and text:
        sys.stderr.write(render_findings(results))
    for result in errors if text else ():
        sys.stderr.write(f"{result.path}: error: {result.error}\n")
    for result in results if text and not quiet else ():
        if result.skipped:
            sys.stderr.write(f"{result.path}: skipped: {result.skipped}\n")
    if not quiet:
        sys.stderr.write(f"{summary.render(written=write)} {_target(settings, jax1_off)}{_floors(results, settings)}\n")
    if errors or jax1_off:
        raise typer.Exit(EXIT_ERRORS)
    raise typer.Exit(EXIT_CHANGES if _remaining(results) and not exit_zero else EXIT_CLEAN)


def _write_patches(plan, results, target: str, floor_of, *, text: bool, quiet: bool) -> None:
    """--write-patches: the patches and SUMMARY.md (headed by the tool and `target`, `_target`'s
    words; each owner's floors as `floor_of` names them); their paths on stdout (with text output)."""
    from codemods.engine.patches import SUMMARY, PatchError
    from codemods.engine.report import plural

    try:
        written = plan.write(results, f"jax-codemod {_tool_version()} {target}", floor_of)
    except (PatchError, OSError) as error:
        sys.stderr.write(f"error: --write-patches {plan.folder}: {error}\n")
        raise typer.Exit(EXIT_ERRORS)
    for path in written if text else ():
        print(path)
    if not quiet:
        sys.stderr.write(f"{plural(len(written), 'patch')} and {SUMMARY} written to {plan.folder} ({plan.describe()})\n")


def _target(settings: Settings, jax1_off: bool = False) -> str:
    """`(target jax 0.12.0.1 from .venv)`: the release the JAX1xx rules moved to, and what chose it;
    with `jax1_off`, that they did not run."""
    if jax1_off:
        return f"(target jax unknown: {JAX1_OFF})"
    source = f" from {settings.jax_version_source}" if settings.jax_version_source else ""
    return f"(target jax {format_version(settings.jax_version)}{source})"


NO_FLOOR_IN = "(no jax>= in pyproject.toml, setup.cfg, setup.py, requirements*.txt or a lock file)"
NO_FLOOR = (f"; no jax floor found {NO_FLOOR_IN}: the JAX1xx fixes need only the target; declare the oldest jax "
            "supported or pass --jax-floor")


def _floors_held_to(results, settings: Settings) -> "dict[Floor, int]":
    """The floors the run's JAX1xx findings were held to (each file's project's: Settings.floor), and
    how many fixes each held back."""
    held: dict = {}
    for result in results:
        if any(finding.code.startswith("JAX1") for finding in result.findings):
            floor = settings.floor(result.path)
            held[floor] = held.get(floor, 0) + sum(finding.held_back for finding in result.findings)
    return held


def _floors(results, settings: Settings) -> str:
    """What the floors cost this run and where they were read (one line of a pyproject.toml can hold
    back every fix), and the files held to none (their fixes may use what older jax lacks). In a
    monorepo, each project's floor, named with its folder."""
    from codemods.engine.report import plural

    held = _floors_held_to(results, settings)
    if len(held) == 1:
        [(floor, count)] = held.items()
        if floor.version is None:
            return NO_FLOOR
        if floor.source == "--jax-floor":
            return f"; {plural(count, 'fix')} held back by --jax-floor {format_version(floor.version)}: raise it" \
                if count else ""
        return f"; {plural(count, 'fix')} held back by jax>={format_version(floor.version)} ({floor.source}): raise " \
               "it or pass --jax-floor" if count else ""
    declared = sorted((item for item in held.items() if item[0].version is not None), key=lambda item: item[0].project)
    missing = sorted(floor.project for floor in held if floor.version is None)
    said = ""
    if declared:
        said += "; floors: " + ", ".join(
            f"jax>={format_version(floor.version)} for {floor.project} ({floor.source}"
            + (f": {plural(count, 'fix')} held back)" if count else ")") for floor, count in declared)
        said += ": raise them or pass --jax-floor" if any(count for _, count in declared) else ""
    if missing:
        said += f"; no jax floor found for {', '.join(missing)} {NO_FLOOR_IN}: the JAX1xx fixes there need only the " \
                "target; declare the oldest jax supported or pass --jax-floor"
    return said


def _floor_of_file(settings: Settings):
    """SUMMARY.md's words for the floor a file's JAX1xx findings were held to (None: it has none)."""
    def named(result) -> Optional[str]:
        if not any(finding.code.startswith("JAX1") for finding in result.findings):
            return None
        floor = settings.floor(result.path)
        if floor.version is None:
            return f"no jax floor found{' for ' + floor.project if floor.project else ''} {NO_FLOOR_IN}"
        where = f"for {floor.project} " if floor.project else ""
        return f"jax>={format_version(floor.version)} {where}({floor.source})"

    return named


NO_TARGET = ("no target jax release, so the JAX1xx rules cannot run: pass --jax-version X, set jax-version = \"X\" "
             "in [tool.jax-codemod], or install jax in the project's .venv")
JAX1_OFF = "the JAX1xx rules did not run; pass --jax-version X, or --ignore JAX1"


def _check_target(settings: Settings, transforms, selectors, severity: str = "warning") -> bool:
    """Without a target the JAX1xx rules find nothing, which reads as "nothing to upgrade": say so,
    and exit 2 where they were selected by name (a pre-commit hook must not pass silently). Where
    they were selected by default, the other rules still run: True, the family is off (`fix` then
    says so in its summary and exits 2), said here with `severity`."""
    from codemods import registry

    if settings.jax_version is not None or not any(rule.code.startswith("JAX1") for rule in transforms):
        return False
    named = any(matched and all(rule.code.startswith("JAX1") for rule in matched)
                for matched in (registry.matching(key) for key in registry.split(selectors)))
    sys.stderr.write(f"{'error' if named else severity}: {NO_TARGET}\n")
    if named:
        raise typer.Exit(EXIT_ERRORS)
    return True


def _remaining(results) -> bool:
    """Whether something is left to do, as Ruff counts it: a change not written, or an (unsuppressed)
    finding of any kind that this run did not fix on disk: [manual] and [warning] notes, unsafe
    fixes not applied, fixes declined in --interactive, and every finding of a dry run or --check."""
    return any(result.new_source is not None and not result.written for result in results) or any(
        not (finding.applied and result.written) for result in results for finding in result.findings)


def _ask(title: str, diff: bytes) -> str:
    """Show one fix and ask what to do with it: [y]es, [n]o, [a]ll remaining, [q]uit."""
    sys.stdout.flush()
    sys.stdout.write(title + "\n")
    sys.stdout.flush()
    sys.stdout.buffer.write(diff)
    while True:
        sys.stdout.write("Apply this fix? [y]es, [n]o, [a]ll, [q]uit: ")
        sys.stdout.flush()
        answer = sys.stdin.readline()
        if not answer:  # end of input: nothing more is accepted
            return "q"
        answer = answer.strip().lower()[:1]
        if answer in ("y", "n", "a", "q"):
            return answer


def _tool_version() -> str:
    return installed_version("jax_codemod") or installed_version("jax-codemod") or "unknown"


@app.command()
def explain(
    log: Optional[Path] = typer.Argument(None, help="A log holding JAX tracebacks (default: standard input)."),
    write: bool = typer.Option(False, "--write", help="Apply the fixes (only to files under --root)."),
    root: Path = typer.Option(
        Path("."), "--root", help="The project: log paths from another machine are looked for under it, its "
        "[tool.jax-codemod] config applies, and --write writes only files under it."),
    select: List[str] = typer.Option([], "--select", help="Only these rules (as for fix)."),
    ignore: List[str] = typer.Option([], "--ignore", help="Skip these rules (as for fix)."),
    jax_version: Optional[str] = typer.Option(None, "--jax-version", help="Target jax release (as for fix)."),
    jax_floor: Optional[str] = typer.Option(None, "--jax-floor", help="The lowest jax the project supports (as for fix)."),
    precision_policy: Optional[PrecisionPolicy] = typer.Option(None, "--precision-policy", help="nearest or highest (as for fix)."),
    helpers_module: Optional[str] = typer.Option(None, "--helpers-module", help="As for fix."),
    create_helpers_module: bool = typer.Option(False, "--create-helpers-module", help="As for fix."),
    unsafe_fixes: Optional[bool] = typer.Option(
        None, "--unsafe-fixes/--no-unsafe-fixes", help="Also apply fixes that change numerics (as for fix)."),
    notebook: Optional[Path] = typer.Option(
        None, "--notebook", help="The notebook the traceback's cells ran in: `In [7]` is its code cell with "
        "execution count 7 (--write changes that cell's source only)."),
) -> None:
    """Read the traceback you just got, find the call that failed, and show (or --write) its fix."""
    from codemods import config as project_config
    from codemods import explain as tracebacks
    from codemods import registry

    try:
        config = project_config.load(project_config.find([root]), registry.RULES)
        transforms, settings = project_config.resolve(
            config, registry.RULES, select=select, ignore=ignore, jax_version=jax_version, jax_floor=jax_floor,
            precision_policy=precision_policy, helpers_module=helpers_module, unsafe_fixes=unsafe_fixes)
        created = project_config.helpers_module_ready(config, settings, create=create_helpers_module, write=write)
    except ValueError as error:
        raise typer.BadParameter(str(error.args[0]))
    except project_config.ConfigError as error:
        sys.stderr.write(f"error: {error}\n")
        raise typer.Exit(EXIT_ERRORS)
    _check_target(settings, transforms, select or config.select)
    if created is not None:
        sys.stderr.write(f"{created}: written, the --helpers-module {settings.helpers_module} the fixes import\n")
    from codemods.engine.notebook import NotebookError, is_notebook

    if notebook is not None and not is_notebook(notebook):
        sys.stderr.write(f"error: {notebook}: not a notebook (.ipynb)\n")
        raise typer.Exit(EXIT_ERRORS)
    try:
        cells = tracebacks.Notebook.load(notebook) if notebook is not None else None
    except (OSError, NotebookError, SyntaxError, ValueError) as error:
        sys.stderr.write(f"error: {notebook}: {error}\n")
        raise typer.Exit(EXIT_ERRORS)
    text = (log.read_text(errors="replace") if log else sys.stdin.read())
    sys.stdout.flush()
    from codemods.engine import discovery

    project = discovery.project_files(root, config.excluded(), config.notebooks)
    outcome = tracebacks.run(text, root, {rule.code: rule for rule in registry.RULES}, settings, write=write, out=sys.stdout.buffer,
                             err=sys.stderr, selected=transforms, ignored_rules=config.ignored_rules, notebook=cells,
                             project=project)
    raise typer.Exit({tracebacks.Outcome.FIXED: EXIT_CLEAN, tracebacks.Outcome.PENDING: EXIT_CHANGES,
                      tracebacks.Outcome.UNRESOLVED: EXIT_ERRORS}[outcome])


@app.command()
def rules(
    selector: Optional[str] = typer.Argument(
        None, help="A rule's code or name: its documentation. A code prefix (JAX0): the rules it selects."),
) -> None:
    """List the rules (code, name, summary), or document one: what it does, why, an example."""
    from codemods import registry

    try:
        exact = registry.lookup(selector) if selector else None
        listed = registry.select([selector] if selector else ["ALL"])  # the opt-in rules too
    except ValueError as error:
        raise typer.BadParameter(str(error.args[0]))
    if exact is not None:
        sys.stdout.write(exact.documentation())
        return
    for rule in listed:
        print(f"{rule.code}  {rule.name:<24} {rule.summary}")


@app.command()
def clean() -> None:
    """Remove the result cache ($JAX_CODEMOD_CACHE_DIR, else ~/.cache/jax-codemod): only the files it wrote."""
    from codemods.engine import cache

    directory = cache.default_directory()
    try:
        removed, size, left = cache.clean(directory)
    except OSError as error:
        sys.stderr.write(f"error: cannot clean {directory}: {error}\n")
        raise typer.Exit(EXIT_ERRORS)
    print(f"removed {removed} cache entries ({size / 1e6:.1f} MB) from {directory}" if removed
          else f"no cache entries in {directory}")
    for path in left:
        print(f"left {path}: not written by jax-codemod")


@app.command()
def probe(json_output: bool = typer.Option(False, "--json", help="Machine-readable output.")) -> None:
    """Lower small kernels and reach the changed APIs with the installed jax; compare with the tool's
    capability and API-change tables."""
    from codemods import probe as probe_module

    raise typer.Exit(probe_module.main(json_output=json_output))


@app.command()
def server(
    stdio: bool = typer.Option(True, "--stdio", help="Talk LSP over standard input and output (the only transport)."),
) -> None:
    """Run the language server (LSP over stdio) for editors: diagnostics, quick fixes, fix-all, hover."""
    try:
        from codemods import server as language_server
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] not in ("pygls", "lsprotocol", "cattrs", "attrs"):
            raise
        from codemods.extras import install_command

        sys.stderr.write(f"error: `jax-codemod server` needs pygls and lsprotocol ({error.name} is missing): "
                         f"{install_command('server')}\n")
        raise typer.Exit(EXIT_ERRORS)
    language_server.main()


def main() -> None:
    """The console command. It ends without tearing its heap down (as mypy does): on a large tree
    the interpreter's last collection over the run's millions of objects (the project index, the
    parses) took 1-2 s after the results were out. What it wrote is flushed first. Under coverage
    (whose data is saved at exit) it exits as Python does."""
    try:
        app()
        status: object = 0
    except SystemExit as stop:
        if "coverage" in sys.modules:
            raise
        status = stop.code
    if status is not None and not isinstance(status, int):  # what Python does with `sys.exit("message")`
        sys.stderr.write(f"{status}\n")
        status = 1
    for stream in (sys.stdout, sys.stderr):
        if stream is None or getattr(stream, "closed", False):  # the language server's, closed at its end
            continue
        try:
            stream.flush()
        except OSError:  # a closed pipe (`| head`): Python's own exit status when flushing fails
            status = 120
    os._exit(status or 0)


if __name__ == "__main__":
    main()
