"""The work of the GitHub Action (action.yml at the repository root; docs/github-action.md).

On a pull request: check the files it changed with the installed `jax-codemod` (a dry run), print
the annotations, write the job summary (counts, findings, the diff) and the step's outputs, and
say whether the job fails (`fail-on`). The action's inputs arrive as INPUT_* variables (action.yml
maps them), GitHub's context as its own variables (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH,
GITHUB_BASE_REF, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP).

The CLI is the one authority on findings and formats: it runs once per format it is asked for
(json: counts, findings and the diff; github: the annotations; rdjson: reviewdog's input), and the
runs after the first read its result cache. This module only chooses the files and reports.

Standard library only, run by path from the action's own checkout with `python3 -I` (no
codemods/ folder on sys.path to shadow the standard library): it works whichever jax-codemod
the `version` input installed, one without this module included.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

PR_EVENTS = ("pull_request", "pull_request_target")
FAIL_ON = ("findings", "errors", "never")
JSON_VERSION = 3  # the `version` of jax-codemod's JSON report this module reads
EXIT_PASS, EXIT_FINDINGS, EXIT_ERRORS = 0, 1, 2
# A step summary holds at most 1 MiB: the findings and the diff are cut well before that.
MAX_SUMMARY_FINDINGS = 200
MAX_SUMMARY_DIFF = 60_000  # characters


class ActionError(Exception):
    """The check could not run (bad input, no base, no tool): the step fails with this message."""


@dataclass(frozen=True)
class Inputs:
    paths: list[str]
    args: list[str]
    jax_version: str
    base: str
    fail_on: str
    only_changed_lines: bool = False


def _boolean(env: Mapping[str, str], name: str) -> bool:
    """A boolean input (`install`, `reviewdog`, `only-changed-lines`): a typo must not skip a step silently."""
    value = env.get(f"INPUT_{name.upper().replace('-', '_')}", "false")
    if value not in ("true", "false"):
        raise ActionError(f"input `{name}` must be true or false, not {value!r}")
    return value == "true"


def read_inputs(env: Mapping[str, str]) -> Inputs:
    fail_on = env.get("INPUT_FAIL_ON", "findings").strip()
    if fail_on not in FAIL_ON:
        raise ActionError(f"input `fail-on` must be one of {', '.join(FAIL_ON)}, not {fail_on!r}")
    for name in ("install", "reviewdog"):
        _boolean(env, name)
    only_changed_lines = _boolean(env, "only-changed-lines")
    try:
        paths = shlex.split(env.get("INPUT_PATHS", ".")) or ["."]
        args = shlex.split(env.get("INPUT_ARGS", ""))
    except ValueError as error:  # an unclosed quote
        raise ActionError(f"inputs `paths` and `args` are split as a shell would: {error}") from None
    return Inputs(paths, args, env.get("INPUT_JAX_VERSION", "").strip(), env.get("INPUT_BASE", "").strip(), fail_on,
                  only_changed_lines)


# -- the base the pull request is compared with --


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], capture_output=True, text=True)


def _commit(rev: str, fetch: str) -> str:
    """`rev`'s commit; fetched from origin (`git fetch origin <fetch>`) when the clone lacks it,
    as a shallow checkout of the pull request does."""
    found = _git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if found.returncode == 0:
        return found.stdout.strip()
    fetched = _git("fetch", "--no-tags", "--quiet", "origin", fetch)
    if fetched.returncode != 0:
        raise ActionError(f"the base {rev} is not in this clone, and `git fetch origin {fetch}` failed: "
                          f"{fetched.stderr.strip()}")
    return _git("rev-parse", "FETCH_HEAD^{commit}").stdout.strip()


def _event_base_sha(env: Mapping[str, str]) -> tuple[Optional[str], str]:
    """The event's `pull_request.base.sha`, or None and why there is none (for the error)."""
    path = env.get("GITHUB_EVENT_PATH", "")
    if not path:
        return None, "GITHUB_EVENT_PATH is not set"
    try:
        with open(path, encoding="utf-8") as file:
            event = json.load(file)
    except (OSError, ValueError) as error:
        return None, f"the event file {path} cannot be read: {error}"
    pull_request = event.get("pull_request") if isinstance(event, dict) else None
    base = pull_request.get("base") if isinstance(pull_request, dict) else None
    sha = base.get("sha") if isinstance(base, dict) else None
    return (sha, "") if isinstance(sha, str) and sha else (None, f"the event file {path} has no pull_request.base.sha")


def resolve_base(env: Mapping[str, str], given: str) -> Optional[str]:
    """The commit to pass as --diff-base: the merge base of HEAD and the pull request's base (so a
    change made on the base branch since is not the PR's), or the base itself when the history
    between them was not fetched. None outside a pull request without the `base` input: every
    file under `paths` is checked."""
    if given:
        base = _commit(given, given)
    elif env.get("GITHUB_EVENT_NAME", "") in PR_EVENTS:
        sha, why_not = _event_base_sha(env)
        ref = env.get("GITHUB_BASE_REF", "").strip()
        if sha:
            base = _commit(sha, sha)
        elif ref:
            base = _commit(f"refs/remotes/origin/{ref}", f"+refs/heads/{ref}:refs/remotes/origin/{ref}")
        else:
            raise ActionError(f"a {env['GITHUB_EVENT_NAME']} event without a base: GITHUB_BASE_REF is empty and "
                              f"{why_not}; pass the base to compare with as the action's `base` input")
    else:
        return None
    merge_base = _git("merge-base", base, "HEAD")
    if merge_base.returncode == 0:
        return merge_base.stdout.strip()
    print(f"::notice title=jax-codemod::no merge base of {base} and HEAD in this clone (shallow?): the files are "
          "compared with the base itself; actions/checkout with fetch-depth: 0 fetches the history", flush=True)
    return base


# -- running the tool --


def _tool() -> str:
    found = shutil.which("jax-codemod")
    if found is None:
        raise ActionError("jax-codemod is not on PATH: with `install: false` install it in an earlier step "
                          "(in the python3 the action runs)")
    return found


def run_tool(command: Sequence[str], output_format: str, *, quiet: bool) -> subprocess.CompletedProcess:
    """One run of the CLI in a machine format; its stdout is the report. The first run's messages
    go to the log; a later run's (the same warnings again) only when it ends otherwise."""
    return subprocess.run([*command, *(["-q"] if quiet else []), "--output-format", output_format],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE if quiet else None, text=True)


def read_report(run: subprocess.CompletedProcess) -> dict:
    try:
        report = json.loads(run.stdout)
    except ValueError:
        raise ActionError(f"jax-codemod exited {run.returncode} without a report: its message is above") from None
    version = report.get("version") if isinstance(report, dict) else None
    if version != JSON_VERSION:
        raise ActionError(f"jax-codemod wrote a JSON report of version {version}; this action reads version "
                          f"{JSON_VERSION}: install a matching `version`")
    return report


# -- counts, verdict, summary --


@dataclass(frozen=True)
class Counts:
    files: int
    findings: int
    fixes: int  # in the diff
    unsafe: int  # unsafe fixes shown, not applied
    manual: int  # [manual] and [warning]: no fix, a person must look
    changed: int  # files that would change
    errors: int  # files that could not be read or parsed

    @classmethod
    def of(cls, report: dict) -> "Counts":
        summary = report["summary"]
        return cls(summary["scanned"], summary["findings"], summary["fixes"]["applied"],
                   summary["fixes"]["unsafe_not_applied"],
                   summary["by_kind"].get("manual", 0) + summary["by_kind"].get("warning", 0),
                   summary["changed"], summary["errors"])


def _files(count: int) -> str:
    return f"{count} file" + ("s" if count != 1 else "")


def verdict(counts: Counts, fail_on: str) -> tuple[int, str]:
    """The job's exit code under `fail-on`, and why."""
    if counts.errors and fail_on != "never":
        return EXIT_ERRORS, f"{_files(counts.errors)} could not be checked"
    if fail_on == "findings" and (counts.findings or counts.changed):
        return EXIT_FINDINGS, (f"{counts.findings} finding{'s' if counts.findings != 1 else ''}, "
                               f"{_files(counts.changed)} would change")
    return EXIT_PASS, ""


def label(finding: dict) -> str:
    """The finding's label as the text output prints it: a fix left out must not read as done."""
    fix, text = finding.get("fix"), finding["kind"]
    if fix is not None and fix["applicability"] == "unsafe":
        text += ", unsafe" if fix["applicable"] else ", unsafe fix: --unsafe-fixes"
    elif fix is not None and not fix["applicable"]:
        text += ", not applied"
    return text


def location(finding: dict) -> str:
    cell = f"cell {finding['cell']}:" if "cell" in finding else ""
    return f"{finding['path']}:{cell}{finding['start']['line']}:{finding['start']['column']}"


def finding_line(finding: dict) -> str:
    """`path:line:col: CODE [label] message`, as the text output prints it."""
    return f"{location(finding)}: {finding['rule']} [{label(finding)}] {finding['message']}"


_MARKDOWN = re.compile(r"([\\`*_\[\]<>|~])")


def _markdown(text: str) -> str:
    """Text shown as is in markdown (a message's `**kwargs` is not bold)."""
    return _MARKDOWN.sub(r"\\\1", text)


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in `text`, which would end a shorter one."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    return "`" * max(3, longest + 1)


def cut(text: str, limit: int) -> tuple[str, int]:
    """`text` up to `limit` characters, cut after a whole line; and how many lines were left out."""
    if len(text) <= limit:
        return text, 0
    kept = text[:text.rfind("\n", 0, limit) + 1]
    return kept, text[len(kept):].count("\n") + (not text.endswith("\n"))


def whole_diff(report: dict) -> str:
    return "".join(file["diff"] for file in report["files"] if file["diff"])


def summary_markdown(report: dict, counts: Counts, base: Optional[str], paths: Sequence[str],
                     code: int, why: str, fail_on: str) -> str:
    where = " ".join(f"`{path}`" for path in paths)
    scope = f"under {where} changed since `{base}`" if base else f"under {where}"
    lines = [
        "## jax-codemod",
        "",
        f"Checked {_files(counts.files)} {scope}: "
        + (f"**fails** (fail-on: {fail_on}): {why}." if code else f"passes (fail-on: {fail_on})."),
        "",
        "| | Count |",
        "| --- | ---: |",
        f"| Findings | {counts.findings} |",
        f"| Fixes in the diff | {counts.fixes} |",
        f"| Unsafe fixes not applied (`--unsafe-fixes` applies them) | {counts.unsafe} |",
        f"| Need manual review | {counts.manual} |",
        f"| Files that would change | {counts.changed} |",
        f"| Files that could not be checked | {counts.errors} |",
    ]
    findings = report["findings"]
    if findings:
        lines += ["", "### Findings", ""]
        lines += [f"- `{location(f)}` {f['rule']} \\[{label(f)}\\] {_markdown(f['message'])}"
                  for f in findings[:MAX_SUMMARY_FINDINGS]]
        if len(findings) > MAX_SUMMARY_FINDINGS:
            lines.append(f"- ... and {len(findings) - MAX_SUMMARY_FINDINGS} more: every one is in the step's log")
    if report["errors"]:
        lines += ["", "### Files that could not be checked", ""]
        lines += [f"- `{error['path']}`: {_markdown(error['message'])}" for error in report["errors"]]
    diff = whole_diff(report)
    if diff:
        shown, left_out = cut(diff, MAX_SUMMARY_DIFF)
        fence = _fence(shown)
        lines += ["", "### Diff", "", f"{fence}diff", shown.rstrip("\n"), fence]
        if left_out:
            lines.append(f"\n... {left_out} more lines of the diff: the whole diff is in the step's log.")
    return "\n".join(lines) + "\n"


def log_block(title: str, text: str) -> str:
    """`text` as a collapsed group of the log, read as plain text: a line of the checked code that
    looks like a workflow command (`::error::...`) runs nothing."""
    token = secrets.token_hex(16)
    return f"::group::{title}\n::stop-commands::{token}\n{text.rstrip(chr(10))}\n::{token}::\n::endgroup::\n"


def _append(path: str, text: str) -> None:
    """errors="replace": a byte of a file in another encoding is a lone surrogate in the report's text."""
    with open(path, "a", encoding="utf-8", errors="replace") as file:
        file.write(text)


def main(env: Mapping[str, str] = os.environ) -> int:
    """The check step: 0 with the verdict in the `exit-code` output (a later step fails the job,
    after reviewdog had its turn), 2 when the check itself could not run."""
    try:
        inputs = read_inputs(env)
        base = resolve_base(env, inputs.base)
        if inputs.only_changed_lines and not base:
            raise ActionError("input `only-changed-lines` keeps the findings on the lines a change set changed: it "
                              "needs a base (a pull request's, or the `base` input)")
        command = [_tool(), *inputs.paths, *inputs.args,
                   *(["--jax-version", inputs.jax_version] if inputs.jax_version else []),
                   *(["--diff-base", base] if base else []),
                   *(["--only-changed-lines"] if inputs.only_changed_lines else [])]
        first = run_tool(command, "json", quiet=False)
        report = read_report(first)
    except ActionError as error:
        print(f"::error title=jax-codemod::{error}")
        return EXIT_ERRORS
    folder = env.get("RUNNER_TEMP") or tempfile.gettempdir()
    outputs = {"report": os.path.join(folder, "jax-codemod.json"), "rdjson": os.path.join(folder, "jax-codemod.rdjson")}
    annotations = run_tool(command, "github", quiet=True)
    rdjson = run_tool(command, "rdjson", quiet=True)
    for name, run in (("report", first), ("rdjson", rdjson)):
        with open(outputs[name], "w", encoding="utf-8") as file:
            file.write(run.stdout)
    for later in (annotations, rdjson):
        if later.returncode != first.returncode:
            sys.stderr.write(later.stderr)
    sys.stdout.write(annotations.stdout)
    findings = "".join(finding_line(f) + "\n" for f in report["findings"])
    sys.stdout.write("".join(log_block(f"jax-codemod: {title}", text)
                             for title, text in (("findings", findings), ("diff", whole_diff(report))) if text))
    counts = Counts.of(report)
    code, why = verdict(counts, inputs.fail_on)
    print(f"::error title=jax-codemod::{why} (fail-on: {inputs.fail_on})" if code else
          f"jax-codemod: passes (fail-on: {inputs.fail_on})")
    if env.get("GITHUB_STEP_SUMMARY"):
        _append(env["GITHUB_STEP_SUMMARY"],
                summary_markdown(report, counts, base, inputs.paths, code, why, inputs.fail_on))
    outputs.update({"findings": counts.findings, "fixes": counts.fixes, "unsafe-fixes": counts.unsafe,
                    "manual": counts.manual, "changed-files": counts.changed, "errors": counts.errors,
                    "files": counts.files, "base": base or "", "exit-code": code})
    if env.get("GITHUB_OUTPUT"):
        _append(env["GITHUB_OUTPUT"], "".join(f"{name}={value}\n" for name, value in outputs.items()))
    return EXIT_PASS


if __name__ == "__main__":
    sys.stdout.reconfigure(errors="replace")  # type: ignore[union-attr]  # as _append, for the log
    sys.exit(main())
