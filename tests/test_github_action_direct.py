"""codemods/github_action.py called directly, in the test's process: the inputs and their errors,
the base of a pull request (in a real git repository), running the tool (a fake `jax-codemod` that
records its arguments), reading its report, the counts, the verdict under each `fail-on`, the
summary's markdown, the log blocks and `main` whole (stdout, the step summary, the outputs, the exit
code). tests/test_github_action.py runs action.yml for real, the module in a subprocess.

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks exact values.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codemods import github_action as ga
from codemods.github_action import ActionError, Counts, Inputs


def test_the_constants():
    assert ga.PR_EVENTS == ("pull_request", "pull_request_target")
    assert ga.FAIL_ON == ("findings", "errors", "never")
    assert ga.JSON_VERSION == 3
    assert (ga.EXIT_PASS, ga.EXIT_FINDINGS, ga.EXIT_ERRORS) == (0, 1, 2)
    assert (ga.MAX_SUMMARY_FINDINGS, ga.MAX_SUMMARY_DIFF) == (200, 60_000)


# read_inputs


def test_read_inputs_defaults():
    assert ga.read_inputs({}) == Inputs(["."], [], "", "", "findings")


def test_read_inputs_given():
    env = {"INPUT_PATHS": "src 'my dir'", "INPUT_ARGS": "--select JAX1 --exclude 'a b'", "INPUT_JAX_VERSION": " 0.5 ",
           "INPUT_BASE": " main ", "INPUT_FAIL_ON": " never ", "INPUT_INSTALL": "true", "INPUT_REVIEWDOG": "false"}
    assert ga.read_inputs(env) == Inputs(["src", "my dir"], ["--select", "JAX1", "--exclude", "a b"], "0.5", "main",
                                         "never")
    assert ga.read_inputs({"INPUT_PATHS": "  "}).paths == ["."]
    assert ga.read_inputs({"INPUT_FAIL_ON": "errors"}).fail_on == "errors"
    assert ga.read_inputs({"INPUT_ONLY_CHANGED_LINES": "true"}).only_changed_lines is True
    assert ga.read_inputs({"INPUT_ONLY_CHANGED_LINES": "false"}).only_changed_lines is False


@pytest.mark.parametrize(("env", "message"), [
    ({"INPUT_FAIL_ON": "always"}, "input `fail-on` must be one of findings, errors, never, not 'always'"),
    ({"INPUT_FAIL_ON": ""}, "input `fail-on` must be one of findings, errors, never, not ''"),
    ({"INPUT_INSTALL": "yes"}, "input `install` must be true or false, not 'yes'"),
    ({"INPUT_REVIEWDOG": "True"}, "input `reviewdog` must be true or false, not 'True'"),
    ({"INPUT_ONLY_CHANGED_LINES": "yes"}, "input `only-changed-lines` must be true or false, not 'yes'"),
    ({"INPUT_PATHS": "'src"}, "inputs `paths` and `args` are split as a shell would: No closing quotation"),
    ({"INPUT_ARGS": '--x "a'}, "inputs `paths` and `args` are split as a shell would: No closing quotation"),
])
def test_read_inputs_errors(env: dict, message: str):
    with pytest.raises(ActionError) as raised:
        ga.read_inputs(env)
    assert str(raised.value) == message


# the base: a real repository


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """origin (bare) with main; a clone with a feature branch; main moved on after the clone."""
    for key in ("GIT_DIR", "GIT_WORK_TREE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("GIT_AUTHOR_NAME", "t")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "t@x")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "t")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "t@x")
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    (work / "a.py").write_text("a\n")
    git(work, "add", "a.py")
    git(work, "commit", "-q", "-m", "one")
    fork = git(work, "rev-parse", "HEAD")
    git(tmp_path, "clone", "-q", "--bare", str(work), "origin.git")
    git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), "clone")
    clone = tmp_path / "clone"
    git(clone, "checkout", "-q", "-b", "feature")
    (clone / "b.py").write_text("b\n")
    git(clone, "add", "b.py")
    git(clone, "commit", "-q", "-m", "two")
    (work / "c.py").write_text("c\n")
    git(work, "add", "c.py")
    git(work, "commit", "-q", "-m", "three")
    git(work, "push", "-q", str(tmp_path / "origin.git"), "main", "main:dev")
    later = git(work, "rev-parse", "HEAD")
    monkeypatch.chdir(clone)
    return {"fork": fork, "later": later, "clone": str(clone)}


def test_commit_of_a_rev_in_the_clone(repo):
    assert ga._commit("main", "main") == repo["fork"]
    assert ga._commit(repo["fork"], repo["fork"]) == repo["fork"]


def test_commit_fetched_when_the_clone_lacks_it(repo, tmp_path: Path):
    git(tmp_path / "origin.git", "tag", "v-later", repo["later"])
    assert ga._commit(repo["later"], repo["later"]) == repo["later"]
    assert git(Path(repo["clone"]), "tag", "-l") == ""  # --no-tags: the base's tags stay on origin


def test_commit_of_a_branch_only_the_clone_has(repo):
    feature = git(Path(repo["clone"]), "rev-parse", "feature")
    assert ga._commit("feature", "feature") == feature


def test_commit_that_cannot_be_fetched(repo):
    with pytest.raises(ActionError) as raised:
        ga._commit("nosuchbranch", "nosuchbranch")
    message = str(raised.value)
    assert message.startswith("the base nosuchbranch is not in this clone, and `git fetch origin nosuchbranch` "
                              "failed: ")
    assert "nosuchbranch" in message[len("the base nosuchbranch is not in this clone, and `git fetch origin "
                                         "nosuchbranch` failed: "):]
    assert not message.endswith("\n")


def test_resolve_base_given_is_the_merge_base(repo):
    assert ga.resolve_base({}, "main") == repo["fork"]
    assert ga.resolve_base({"GITHUB_EVENT_NAME": "push"}, repo["later"]) == repo["fork"]


def test_resolve_base_outside_a_pull_request_is_none(repo):
    assert ga.resolve_base({}, "") is None
    assert ga.resolve_base({"GITHUB_EVENT_NAME": "push", "GITHUB_BASE_REF": "main"}, "") is None


@pytest.mark.parametrize("event_name", ["pull_request", "pull_request_target"])
def test_resolve_base_of_a_pull_request_from_the_event(repo, tmp_path: Path, event_name: str):
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"base": {"sha": repo["later"]}}}))
    env = {"GITHUB_EVENT_NAME": event_name, "GITHUB_EVENT_PATH": str(event), "GITHUB_BASE_REF": "nosuch"}
    assert ga.resolve_base(env, "") == repo["fork"]


def test_resolve_base_of_a_pull_request_from_the_base_ref(repo, tmp_path: Path):
    env = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_BASE_REF": " main "}
    assert ga.resolve_base(env, "") == repo["fork"]  # in the clone
    git(tmp_path / "origin.git", "tag", "v-later", repo["later"])
    env = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_BASE_REF": "dev"}  # made after the clone: fetched
    assert ga.resolve_base(env, "") == repo["fork"]
    assert git(Path(repo["clone"]), "rev-parse", "refs/remotes/origin/dev") == repo["later"]
    assert git(Path(repo["clone"]), "tag", "-l") == ""  # --no-tags: the base's tags stay on origin


def test_resolve_base_without_a_merge_base(repo, tmp_path: Path, capsys: pytest.CaptureFixture):
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "x")
    (other / "z").write_text("z")
    git(other, "add", "z")
    git(other, "commit", "-q", "-m", "z")
    git(Path(repo["clone"]), "fetch", "-q", str(other), "x:unrelated")
    unrelated = git(other, "rev-parse", "HEAD")
    assert ga.resolve_base({}, "unrelated") == unrelated
    assert capsys.readouterr().out == (
        f"::notice title=jax-codemod::no merge base of {unrelated} and HEAD in this clone (shallow?): the files are "
        "compared with the base itself; actions/checkout with fetch-depth: 0 fetches the history\n")


def test_resolve_base_a_pull_request_without_a_base(tmp_path: Path):
    with pytest.raises(ActionError) as raised:
        ga.resolve_base({"GITHUB_EVENT_NAME": "pull_request_target", "GITHUB_BASE_REF": " "}, "")
    assert str(raised.value) == (
        "a pull_request_target event without a base: GITHUB_BASE_REF is empty and GITHUB_EVENT_PATH is not set; "
        "pass the base to compare with as the action's `base` input")


@pytest.mark.parametrize(("content", "why"), [
    (None, "the event file {path} cannot be read: "),
    ("not json", "the event file {path} cannot be read: "),
    ("[]", "the event file {path} has no pull_request.base.sha"),
    ('{"pull_request": []}', "the event file {path} has no pull_request.base.sha"),
    ('{"pull_request": {"base": "x"}}', "the event file {path} has no pull_request.base.sha"),
    ('{"pull_request": {"base": {"sha": 1}}}', "the event file {path} has no pull_request.base.sha"),
    ('{"pull_request": {"base": {"sha": ""}}}', "the event file {path} has no pull_request.base.sha"),
    ('{"pull_request": {"base": {}}}', "the event file {path} has no pull_request.base.sha"),
])
def test_event_base_sha_why_not(tmp_path: Path, content, why: str):
    path = tmp_path / "event.json"
    if content is not None:
        path.write_text(content)
    sha, message = ga._event_base_sha({"GITHUB_EVENT_PATH": str(path)})
    assert sha is None
    assert message.startswith(why.format(path=path))
    if content is None:
        assert "No such file" in message


def test_event_base_sha(tmp_path: Path):
    path = tmp_path / "event.json"
    path.write_text('{"pull_request": {"base": {"sha": "abc"}}}')
    assert ga._event_base_sha({"GITHUB_EVENT_PATH": str(path)}) == ("abc", "")
    assert ga._event_base_sha({}) == (None, "GITHUB_EVENT_PATH is not set")
    path.write_bytes(b'{"pull_request": {"base": {"sha": "\xff"}}}')
    assert ga._event_base_sha({"GITHUB_EVENT_PATH": str(path)})[0] is None


# running the tool


FAKE = """#!{python}
import json, os, sys
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
fmt = sys.argv[sys.argv.index("--output-format") + 1]
sys.stderr.write("warned " + fmt + "\\n")
sys.stdout.write(os.environ.get("FAKE_" + fmt.upper(), ""))
sys.exit(int(os.environ.get("FAKE_EXIT_" + fmt.upper(), os.environ.get("FAKE_EXIT", "0"))))
"""


@pytest.fixture
def tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    path = folder / "jax-codemod"
    path.write_text(FAKE.format(python=sys.executable))
    path.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "calls.log"))
    return path


def calls(tmp_path: Path) -> list[list[str]]:
    return [json.loads(line) for line in (tmp_path / "calls.log").read_text().splitlines()]


def test_tool_on_path(tool: Path):
    assert ga._tool() == str(tool)


def test_tool_missing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ActionError) as raised:
        ga._tool()
    assert str(raised.value) == ("jax-codemod is not on PATH: with `install: false` install it in an earlier step "
                                 "(in the python3 the action runs)")


def test_run_tool(tool: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture):
    monkeypatch.setenv("FAKE_JSON", "out")
    monkeypatch.setenv("FAKE_EXIT", "1")
    run = ga.run_tool([str(tool), "src"], "json", quiet=False)
    assert (run.returncode, run.stdout, run.stderr) == (1, "out", None)
    assert capfd.readouterr().err == "warned json\n"
    run = ga.run_tool([str(tool), "src"], "github", quiet=True)
    assert (run.returncode, run.stdout, run.stderr) == (1, "", "warned github\n")
    assert calls(tmp_path) == [["src", "--output-format", "json"], ["src", "-q", "--output-format", "github"]]


def report(**changes) -> dict:
    document = {
        "version": 3, "findings": [], "errors": [], "files": [],
        "summary": {"scanned": 3, "parsed": 3, "changed": 0, "errors": 0, "findings": 0,
                    "fixes": {"applied": 0, "unsafe_not_applied": 0}, "suppressed": 0,
                    "by_kind": {"fixed": 0, "dropped": 0, "manual": 0, "warning": 0}, "by_rule": {}},
    }
    document.update(changes)
    return document


def completed(stdout: str, code: int = 0) -> subprocess.CompletedProcess:
    return subprocess.CompletedProcess([], code, stdout, "")


def test_read_report():
    assert ga.read_report(completed(json.dumps(report()))) == report()


@pytest.mark.parametrize(("stdout", "code", "message"), [
    ("", 2, "jax-codemod exited 2 without a report: its message is above"),
    ("not json", 1, "jax-codemod exited 1 without a report: its message is above"),
    ('{"version": 2}', 0, "jax-codemod wrote a JSON report of version 2; this action reads version 3: install a "
                          "matching `version`"),
    ("[3]", 0, "jax-codemod wrote a JSON report of version None; this action reads version 3: install a matching "
               "`version`"),
    ("{}", 0, "jax-codemod wrote a JSON report of version None; this action reads version 3: install a matching "
              "`version`"),
])
def test_read_report_errors(stdout: str, code: int, message: str):
    with pytest.raises(ActionError) as raised:
        ga.read_report(completed(stdout, code))
    assert str(raised.value) == message
    assert raised.value.__suppress_context__ == ("without a report" in message)


# counts and verdict


def test_counts_of():
    summary = {"scanned": 9, "findings": 8, "fixes": {"applied": 7, "unsafe_not_applied": 6},
               "by_kind": {"manual": 2, "warning": 3, "fixed": 1}, "changed": 4, "errors": 1}
    assert Counts.of({"summary": summary}) == Counts(files=9, findings=8, fixes=7, unsafe=6, manual=5, changed=4,
                                                      errors=1)
    summary["by_kind"] = {}
    assert Counts.of({"summary": summary}).manual == 0
    summary["by_kind"] = {"warning": 3}
    assert Counts.of({"summary": summary}).manual == 3
    summary["by_kind"] = {"manual": 2}
    assert Counts.of({"summary": summary}).manual == 2


def counts(**changes) -> Counts:
    values = dict(files=5, findings=0, fixes=0, unsafe=0, manual=0, changed=0, errors=0)
    values.update(changes)
    return Counts(**values)


def test_files():
    assert [ga._files(n) for n in (0, 1, 2)] == ["0 files", "1 file", "2 files"]


@pytest.mark.parametrize(("c", "fail_on", "expected"), [
    (counts(), "findings", (0, "")),
    (counts(errors=1, findings=3), "findings", (2, "1 file could not be checked")),
    (counts(errors=2), "errors", (2, "2 files could not be checked")),
    (counts(errors=2, findings=1), "never", (0, "")),
    (counts(findings=1, changed=1), "findings", (1, "1 finding, 1 file would change")),
    (counts(findings=2, changed=0), "findings", (1, "2 findings, 0 files would change")),
    (counts(findings=0, changed=3), "findings", (1, "0 findings, 3 files would change")),
    (counts(findings=2, changed=2), "errors", (0, "")),
    (counts(findings=2, changed=2), "never", (0, "")),
])
def test_verdict(c: Counts, fail_on: str, expected):
    assert ga.verdict(c, fail_on) == expected


# findings as text


def finding(**changes) -> dict:
    entry = {"rule": "JAX101", "kind": "fixed", "path": "src/a.py", "start": {"line": 3, "column": 5},
             "message": "jax.tree_map -> jax.tree.map", "fix": None}
    entry.update(changes)
    return entry


@pytest.mark.parametrize(("fix", "kind", "expected"), [
    (None, "manual", "manual"),
    ({"applicability": "safe", "applicable": True}, "fixed", "fixed"),
    ({"applicability": "safe", "applicable": False}, "dropped", "dropped, not applied"),
    ({"applicability": "unsafe", "applicable": True}, "fixed", "fixed, unsafe"),
    ({"applicability": "unsafe", "applicable": False}, "dropped", "dropped, unsafe fix: --unsafe-fixes"),
])
def test_label(fix, kind: str, expected: str):
    assert ga.label(finding(fix=fix, kind=kind)) == expected
    assert ga.label({"kind": kind, **({"fix": fix} if fix else {})}) == expected


def test_location_and_finding_line():
    assert ga.location(finding()) == "src/a.py:3:5"
    assert ga.location(finding(cell=4)) == "src/a.py:cell 4:3:5"
    assert ga.finding_line(finding(kind="manual")) == "src/a.py:3:5: JAX101 [manual] jax.tree_map -> jax.tree.map"


def test_markdown_and_fence():
    assert ga._markdown("a `b` *c* _d_ [e] <f> g|h ~i \\j") == \
        "a \\`b\\` \\*c\\* \\_d\\_ \\[e\\] \\<f\\> g\\|h \\~i \\\\j"
    assert ga._markdown("plain (text) #1!") == "plain (text) #1!"
    assert ga._fence("no ticks") == "```"
    assert ga._fence("a `b` ``c``") == "```"
    assert ga._fence("```") == "````"
    assert ga._fence("x ````` y") == "``````"


@pytest.mark.parametrize(("text", "limit", "expected"), [
    ("abc\ndef\n", 8, ("abc\ndef\n", 0)),
    ("abc\ndef\n", 100, ("abc\ndef\n", 0)),
    ("abc\ndef\n", 7, ("abc\n", 1)),
    ("abc\ndef\nghi\n", 4, ("abc\n", 2)),
    ("abc\ndef\nghi\n", 3, ("", 3)),
    ("abc\ndef\nghi", 5, ("abc\n", 2)),
    ("abc\ndef", 6, ("abc\n", 1)),
    ("abc\ndef", 7, ("abc\ndef", 0)),  # exactly the limit, no final newline: whole
    ("\nabcdef\n", 3, ("\n", 1)),  # a newline at the very start is a line to keep
])
def test_cut(text: str, limit: int, expected):
    assert ga.cut(text, limit) == expected


def test_whole_diff():
    files = [{"diff": "one\n"}, {"diff": None}, {"diff": ""}, {"diff": "two\n"}]
    assert ga.whole_diff({"files": files}) == "one\ntwo\n"
    assert ga.whole_diff({"files": []}) == ""


# the summary


def test_summary_markdown_passing():
    text = ga.summary_markdown(report(), counts(files=1), None, ["src", "lib"], 0, "", "findings")
    assert text == (
        "## jax-codemod\n\nChecked 1 file under `src` `lib`: passes (fail-on: findings).\n\n"
        "| | Count |\n| --- | ---: |\n| Findings | 0 |\n| Fixes in the diff | 0 |\n"
        "| Unsafe fixes not applied (`--unsafe-fixes` applies them) | 0 |\n| Need manual review | 0 |\n"
        "| Files that would change | 0 |\n| Files that could not be checked | 0 |\n")


def test_summary_markdown_failing_with_findings_errors_and_a_diff():
    rep = report(findings=[finding(message="uses **kwargs"), finding(kind="manual", cell=2, fix=None)],
                 errors=[{"path": "b.py", "message": "cannot parse: <x>"}],
                 files=[{"diff": "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n"}, {"diff": None}])
    c = counts(files=4, findings=2, fixes=1, unsafe=3, manual=1, changed=1, errors=1)
    text = ga.summary_markdown(rep, c, "abc123", ["."], 2, "1 file could not be checked", "errors")
    assert text == (
        "## jax-codemod\n\nChecked 4 files under `.` changed since `abc123`: **fails** (fail-on: errors): "
        "1 file could not be checked.\n\n"
        "| | Count |\n| --- | ---: |\n| Findings | 2 |\n| Fixes in the diff | 1 |\n"
        "| Unsafe fixes not applied (`--unsafe-fixes` applies them) | 3 |\n| Need manual review | 1 |\n"
        "| Files that would change | 1 |\n| Files that could not be checked | 1 |\n"
        "\n### Findings\n\n"
        "- `src/a.py:3:5` JAX101 \\[fixed\\] uses \\*\\*kwargs\n"
        "- `src/a.py:cell 2:3:5` JAX101 \\[manual\\] jax.tree\\_map -\\> jax.tree.map\n"
        "\n### Files that could not be checked\n\n"
        "- `b.py`: cannot parse: \\<x\\>\n"
        "\n### Diff\n\n```diff\n--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n```\n")


def test_summary_markdown_cuts_the_findings():
    rep = report(findings=[finding(start={"line": n, "column": 1}) for n in range(1, 203)])
    text = ga.summary_markdown(rep, counts(findings=202), None, ["."], 1, "202 findings", "findings")
    lines = text.splitlines()
    assert lines.count("- ... and 2 more: every one is in the step's log") == 1
    assert sum(line.startswith("- `src/a.py:") for line in lines) == 200
    assert "- `src/a.py:200:1` JAX101" in text and "- `src/a.py:201:1`" not in text
    rep = report(findings=[finding(start={"line": n, "column": 1}) for n in range(1, 201)])
    text = ga.summary_markdown(rep, counts(findings=200), None, ["."], 1, "x", "findings")
    assert "more: every one" not in text and "- `src/a.py:200:1` JAX101" in text


def test_summary_markdown_cuts_the_diff_and_fences_it():
    diff = "".join(f"+line {n:05d} ```\n" for n in range(6000))  # 96,000 characters
    text = ga.summary_markdown(report(files=[{"diff": diff}]), counts(), None, ["."], 0, "", "never")
    shown, left_out = ga.cut(diff, 60_000)
    assert left_out == 6000 - 3750
    assert text.endswith(f"\n### Diff\n\n````diff\n{shown.rstrip()}\n````\n"
                         f"\n... {left_out} more lines of the diff: the whole diff is in the step's log.\n")
    short = ga.summary_markdown(report(files=[{"diff": diff[:32]}]), counts(), None, ["."], 0, "", "never")
    assert short.endswith("````diff\n+line 00000 ```\n+line 00001 ```\n````\n")


# the log


def test_log_block(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(ga.secrets, "token_hex", lambda n: f"T{n}")
    assert ga.log_block("title", "a\n::error::x\n\n") == \
        "::group::title\n::stop-commands::T16\na\n::error::x\n::T16::\n::endgroup::\n"
    assert ga.log_block("t", "+x = 1  \n") == "::group::t\n::stop-commands::T16\n+x = 1  \n::T16::\n::endgroup::\n"


def test_log_block_tokens_are_random():
    one, two = ga.log_block("t", "x"), ga.log_block("t", "x")
    assert one != two
    token = one.splitlines()[1].split("::")[2]
    assert len(token) == 32 and int(token, 16) >= 0
    assert one.splitlines()[3] == f"::{token}::"


def test_append(tmp_path: Path):
    path = tmp_path / "out"
    ga._append(str(path), "a=1\n")
    ga._append(str(path), "b=\udcff\n")
    assert path.read_bytes() == b"a=1\nb=?\n"


# main


def pr_report() -> dict:
    return report(
        findings=[finding(), finding(kind="manual", path="src/b.py", rule="JAX001", message="look")],
        files=[{"path": "src/a.py", "changed": True, "encoding": "utf-8", "diff": "--- a/src/a.py\n+x\n"}],
        summary={"scanned": 2, "parsed": 2, "changed": 1, "errors": 0, "findings": 2,
                 "fixes": {"applied": 1, "unsafe_not_applied": 0}, "suppressed": 0,
                 "by_kind": {"fixed": 1, "dropped": 0, "manual": 1, "warning": 0}, "by_rule": {}})


@pytest.fixture
def action(tool: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(ga.secrets, "token_hex", lambda n: "TOKEN")
    monkeypatch.setenv("FAKE_JSON", json.dumps(pr_report()))
    monkeypatch.setenv("FAKE_GITHUB", "::notice file=src/a.py::x\n")
    monkeypatch.setenv("FAKE_RDJSON", '{"diagnostics": []}\n')
    (tmp_path / "runner").mkdir()
    env = {"RUNNER_TEMP": str(tmp_path / "runner"), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
           "GITHUB_OUTPUT": str(tmp_path / "output"), "INPUT_PATHS": "src", "INPUT_ARGS": "--select JAX1",
           "INPUT_JAX_VERSION": "0.12.0", "INPUT_FAIL_ON": "findings"}
    return env


def test_main_reports_a_failing_check(action: dict, tmp_path: Path, capfd: pytest.CaptureFixture):
    assert ga.main(action) == 0
    out, err = capfd.readouterr()
    assert out == (
        "::notice file=src/a.py::x\n"
        "::group::jax-codemod: findings\n::stop-commands::TOKEN\n"
        "src/a.py:3:5: JAX101 [fixed] jax.tree_map -> jax.tree.map\n"
        "src/b.py:3:5: JAX001 [manual] look\n::TOKEN::\n::endgroup::\n"
        "::group::jax-codemod: diff\n::stop-commands::TOKEN\n--- a/src/a.py\n+x\n::TOKEN::\n::endgroup::\n"
        "::error title=jax-codemod::2 findings, 1 file would change (fail-on: findings)\n")
    assert err == "warned json\n"  # the later runs' messages only when they end otherwise
    assert calls(tmp_path) == [
        ["src", "--select", "JAX1", "--jax-version", "0.12.0", "--output-format", fmt] if fmt == "json" else
        ["src", "--select", "JAX1", "--jax-version", "0.12.0", "-q", "--output-format", fmt]
        for fmt in ("json", "github", "rdjson")]
    runner = tmp_path / "runner"
    assert json.loads((runner / "jax-codemod.json").read_text()) == pr_report()
    assert (runner / "jax-codemod.rdjson").read_text() == '{"diagnostics": []}\n'
    assert (tmp_path / "output").read_text() == (
        f"report={runner / 'jax-codemod.json'}\nrdjson={runner / 'jax-codemod.rdjson'}\n"
        "findings=2\nfixes=1\nunsafe-fixes=0\nmanual=1\nchanged-files=1\nerrors=0\nfiles=2\nbase=\nexit-code=1\n")
    summary = (tmp_path / "summary.md").read_text()
    assert summary == ga.summary_markdown(pr_report(), Counts.of(pr_report()), None, ["src"], 1,
                                          "2 findings, 1 file would change", "findings")


def test_main_passing_with_a_base(action: dict, repo, tmp_path: Path, capfd: pytest.CaptureFixture,
                                  monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FAKE_JSON", json.dumps(report()))
    monkeypatch.setenv("FAKE_GITHUB", "")
    action.update(INPUT_BASE="main", INPUT_JAX_VERSION="", INPUT_ARGS="")
    assert ga.main(action) == 0
    out, err = capfd.readouterr()
    assert out == "jax-codemod: passes (fail-on: findings)\n"
    assert calls(tmp_path)[0] == ["src", "--diff-base", repo["fork"], "--output-format", "json"]
    output = (tmp_path / "output").read_text()
    assert f"\nbase={repo['fork']}\nexit-code=0\n" in output
    assert f"changed since `{repo['fork']}`" in (tmp_path / "summary.md").read_text()


def test_main_passes_only_changed_lines_with_the_base(action: dict, repo, tmp_path: Path,
                                                      capfd: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FAKE_JSON", json.dumps(report()))
    action.update(INPUT_BASE="main", INPUT_JAX_VERSION="", INPUT_ARGS="", INPUT_ONLY_CHANGED_LINES="true")
    assert ga.main(action) == 0
    assert calls(tmp_path)[0] == ["src", "--diff-base", repo["fork"], "--only-changed-lines", "--output-format", "json"]
    del action["INPUT_BASE"]  # no pull request, no base: no lines to keep to
    assert ga.main(action) == 2
    assert capfd.readouterr().out.endswith(
        "::error title=jax-codemod::input `only-changed-lines` keeps the findings on the lines a change set changed: "
        "it needs a base (a pull request's, or the `base` input)\n")


def test_main_shows_a_later_runs_messages_when_it_ends_otherwise(action: dict, capfd: pytest.CaptureFixture,
                                                                 monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FAKE_EXIT_RDJSON", "2")
    assert ga.main(action) == 0
    assert capfd.readouterr().err == "warned json\nwarned rdjson\n"


def test_main_without_summary_and_output_files(action: dict, tmp_path: Path, capfd: pytest.CaptureFixture,
                                               monkeypatch: pytest.MonkeyPatch):
    del action["GITHUB_STEP_SUMMARY"], action["GITHUB_OUTPUT"]
    action["RUNNER_TEMP"] = ""
    monkeypatch.setattr(ga.tempfile, "gettempdir", lambda: str(tmp_path / "runner"))
    action["INPUT_FAIL_ON"] = "never"
    assert ga.main(action) == 0
    assert capfd.readouterr().out.endswith("jax-codemod: passes (fail-on: never)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin", "calls.log", "runner"]
    assert sorted(p.name for p in (tmp_path / "runner").iterdir()) == ["jax-codemod.json", "jax-codemod.rdjson"]


@pytest.mark.parametrize(("change", "message"), [
    ({"INPUT_FAIL_ON": "sometimes"}, "input `fail-on` must be one of findings, errors, never, not 'sometimes'"),
    ({"GITHUB_EVENT_NAME": "pull_request"}, "a pull_request event without a base: GITHUB_BASE_REF is empty and "
                                            "GITHUB_EVENT_PATH is not set; pass the base to compare with as the "
                                            "action's `base` input"),
])
def test_main_a_check_that_cannot_run(action: dict, change: dict, message: str, capfd: pytest.CaptureFixture,
                                      tmp_path: Path):
    action.update(change)
    assert ga.main(action) == 2
    assert capfd.readouterr().out == f"::error title=jax-codemod::{message}\n"
    assert not (tmp_path / "calls.log").exists()
    assert not (tmp_path / "output").exists()


def test_main_without_a_report(action: dict, capfd: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch,
                               tmp_path: Path):
    monkeypatch.setenv("FAKE_JSON", "")
    monkeypatch.setenv("FAKE_EXIT", "2")
    assert ga.main(action) == 2
    out, err = capfd.readouterr()
    assert out == "::error title=jax-codemod::jax-codemod exited 2 without a report: its message is above\n"
    assert err == "warned json\n"
    assert len(calls(tmp_path)) == 1
