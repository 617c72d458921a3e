"""Which CODEOWNERS file `--split-by codeowners` reads, and what it says about one it cannot read,
end to end through the CLI (the outcome a user sees: the patch each owner gets, SUMMARY.md's
first line, the exit code and the message naming file and line). The patterns themselves are in
tests/test_split_patches.py; these pin what mutation testing found unpinned (docs/testing.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods.engine import ownership
from tests.test_cli import git, needs_git
from tests.test_split_patches import TREE_MAP, split

pytestmark = needs_git


def one_file_repo(root: Path, codeowners: dict[str, str]) -> Path:
    """A git repository with one file to fix, `src/app.py`, and these CODEOWNERS files."""
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(TREE_MAP)
    for location, text in codeowners.items():
        (root / location).parent.mkdir(parents=True, exist_ok=True)
        (root / location).write_text(text)
    git("init", "-q", cwd=root)
    return root


def patches_and_summary(repo: Path, out: Path) -> tuple[set[str], str]:
    result = split(repo, out)
    assert result.returncode == 1, result.stderr.decode()
    return {p.name for p in out.glob("*.patch")}, (out / "SUMMARY.md").read_text()


# GitHub's order, then GitLab's folder: each one is read when it is the only one, and wins over
# every later one.
LOCATIONS = [".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS", ".gitlab/CODEOWNERS"]


@pytest.mark.parametrize("first", range(len(LOCATIONS)), ids=LOCATIONS)
def test_the_first_codeowners_file_in_githubs_order_is_the_one_read(tmp_path: Path, first: int) -> None:
    """Catches a location left out (the run would stop with "no CODEOWNERS file"), misspelt, or
    read in another order (the files would go to the owners of a file GitHub does not read)."""
    files = {location: f"*  @team{i}\n" for i, location in enumerate(LOCATIONS) if i >= first}
    repo = one_file_repo(tmp_path / "repo", files)
    names, summary = patches_and_summary(repo, tmp_path / "patches")
    assert names == {f"team{first}.patch"}
    assert f"split by codeowners ({LOCATIONS[first]})" in summary.splitlines()[2]


@pytest.mark.parametrize("line, message", [
    ("[]  @org/core", "empty section name"),
    ("!/src/  @org/core", "'!/src/': CODEOWNERS has no negation (!)"),
    ("src/***/x.py  @org/core", "'src/***/x.py': three consecutive asterisks"),
    ("/src/  @org/core  @@nobody1", "'@@nobody1' is not an owner"),
    ("^[Optional  @org/core", "unterminated section header '^[Optional  @org/core' (expected [Section] or ^[Section])"),
    ("[Core]  alice", "'alice' is not an owner"),  # a section's default owners are checked too
])
def test_each_line_that_cannot_be_read_stops_the_run_naming_it(tmp_path: Path, line: str, message: str) -> None:
    """Catches a line that GitHub rejects read as some pattern (the files would go to the wrong
    team without a word), or its message losing what is wrong."""
    repo = one_file_repo(tmp_path / "repo", {"CODEOWNERS": f"*  @org/infra\n\n{line}\n"})
    out = tmp_path / "patches"
    result = split(repo, out)
    stderr = result.stderr.decode()
    assert result.returncode == 2, stderr
    assert f"{repo / 'CODEOWNERS'}:3: {message}" in stderr
    assert not out.exists()


def test_gitlab_roles_and_emails_own_files(tmp_path: Path) -> None:
    """Catches `@@role` owners (GitLab) refused as not owners, or an email's dots misread."""
    repo = one_file_repo(tmp_path / "repo", {".gitlab/CODEOWNERS": "*  @@maintainer  first.last@corp.example.org\n"})
    names, summary = patches_and_summary(repo, tmp_path / "patches")
    assert names == {"maintainer_first.last-corp.example.org.patch"}
    assert "| `@@maintainer first.last@corp.example.org` | 1 | 1 | 0 |" in summary


def test_a_codeowners_file_that_is_not_utf8_is_still_read(tmp_path: Path) -> None:
    """Catches a Latin-1 byte in a comment (a name with an accent) stopping the run."""
    repo = one_file_repo(tmp_path / "repo", {})
    (repo / "CODEOWNERS").write_bytes(b"# owners: Ren\xe9\n*  @org/infra\n")
    names, _ = patches_and_summary(repo, tmp_path / "patches")
    assert names == {"org-infra.patch"}


def test_no_codeowners_file_lists_the_four_places_in_order(tmp_path: Path) -> None:
    """Catches the message's list of places garbled (it tells the user where to put the file)."""
    repo = one_file_repo(tmp_path / "repo", {})
    result = split(repo, tmp_path / "patches")
    assert result.returncode == 2
    assert ("--split-by codeowners: no CODEOWNERS file; looked for "
            + ", ".join(str(repo / location) for location in LOCATIONS)) in result.stderr.decode()


# Who owns a path: (pattern, path, owned by that line). More of GitHub's rules than
# tests/test_split_patches.py::test_codeowners_patterns checks, each row one that a wrong
# translation of the pattern gets wrong (the file would go to another team's patch).
@pytest.mark.parametrize("pattern, path, matches", [
    ("/", "a.py", False),  # GitHub: `/` alone owns nothing
    ("**", "a/b.py", True),
    ("**", "a.py", True),
    ("lib", "lib", True),
    ("lib", "lib/y.py", True),
    ("lib", "mylib/a.py", False),  # a name at any depth, but a whole name
    ("/build/", "buildx/y.py", False),
    ("/docs/**", "docs/a/b.md", True),
    ("/docs/**", "docsx/a.md", False),
    ("src/**/test.py", "x/src/test.py", False),  # an inner slash anchors
    ("src/**/test.py", "src/a/xtest.py", False),  # `**` spans whole folders
    ("src/**/test.py", "srctest.py", False),
    ("docs/*", "x/docs/a.md", False),
    ("a/b", "x/a/b", False),
    ("a/b", "a/b/c.py", True),
    ("a/*/b.py", "a/x/b.py", True),
    ("a/*/b.py", "a/x/y/b.py", False),
    ("*.py", "we\nird/x.py", True),  # a folder name may hold a newline
    ("*.py", "notpy", False),  # `.` is a dot, not any character
])
def test_codeowners_patterns_as_github_reads_them(pattern: str, path: str, matches: bool) -> None:
    owners = ownership.parse(f"{pattern} @team\n", Path("CODEOWNERS"))
    assert (owners.owners(path) == ("@team",)) is matches


def test_a_trailing_backslash_is_a_literal_one() -> None:
    """Catches the pattern `x\\` (a line without owners: it un-owns) crashing the parse, or not
    matching the file `x\\`."""
    owners = ownership.parse("*  @team\nx\\\n", Path("CODEOWNERS"))
    assert owners.owners("x\\") == () and owners.owners("y") == ("@team",)
