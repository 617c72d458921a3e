"""Who owns a file, as GitHub and GitLab read CODEOWNERS: `--split-by codeowners` makes one patch
per owner, so that a monorepo's upgrade is reviewed by the people who own each part.

The file is the first of `.github/CODEOWNERS`, `CODEOWNERS`, `docs/CODEOWNERS` (GitHub's order)
and `.gitlab/CODEOWNERS` in the repository root. Each line is a gitignore-style pattern and its
owners (`@user`, `@org/team`, GitLab's `@group/subgroup` and `@@role`, or an email); `#` starts a
comment, `\\#` is a literal `#`, `\\ ` a literal space. Patterns match as GitHub matches them
(the translation of github.com/hmarr/codeowners): no slash, or only a trailing one, matches at any
depth; a leading or inner slash anchors to the root; `dir/` owns everything below; `*` and `?` stay
within one path component and `**` spans any number; a trailing `/*` owns the folder's own files
only, not those of its subfolders. The last matching line wins; a line without owners un-owns.

GitLab sections (`[Section]`, `^[Optional]`, `[Section][2]`, each with optional default owners)
are read: a line without owners in a section takes the section's defaults. GitLab itself gives a
file the owners of every section that matches it; a patch needs exactly one owner, so here the
last matching line of the whole file wins, whichever section it is in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

LOCATIONS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS", ".gitlab/CODEOWNERS")

_OWNER = re.compile(
    r"@[A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9._-]+)*"  # @user, @org/team, @group/subgroup/team
    r"|@@[A-Za-z]+"  # GitLab roles: @@developer, @@maintainer, @@owner
    r"|[^@\s]+@[^@\s]+\.[^@\s]+"  # an email
)
_SECTION = re.compile(r"\^?\[(?P<name>[^\]]*)\](?:\[\d+\])?(?P<rest>.*)", re.S)
_TOKEN = re.compile(r"(?:\\.|[^\s\\]|\\\Z)+")  # whitespace separates tokens; `\ ` is part of one


class OwnershipError(Exception):
    """No CODEOWNERS file, or a line of it that cannot be read (the message names file and line)."""


@dataclass(frozen=True)
class Entry:
    pattern: str
    owners: tuple[str, ...]  # as written; () un-owns
    line: int
    regex: re.Pattern


@dataclass(frozen=True)
class Codeowners:
    path: Path
    entries: tuple[Entry, ...]

    def owners(self, path: str) -> tuple[str, ...]:
        """The owners of `path` (`/`-separated, relative to the root): the last matching line's."""
        for entry in reversed(self.entries):
            if entry.regex.fullmatch(path):
                return entry.owners
        return ()


def load(root: Path) -> Codeowners:
    """The CODEOWNERS file GitHub (else GitLab) reads in the repository at `root`, parsed."""
    for location in LOCATIONS:
        path = root / location
        if path.is_file():
            return parse(path.read_text(encoding="utf-8", errors="replace"), path)
    raise OwnershipError(f"--split-by codeowners: no CODEOWNERS file; looked for "
                         f"{', '.join(str(root / location) for location in LOCATIONS)}")


def parse(text: str, path: Path) -> Codeowners:
    entries: list[Entry] = []
    defaults: tuple[str, ...] = ()  # the current GitLab section's default owners
    for number, line in enumerate(text.splitlines(), 1):
        where = f"{path}:{number}"
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith(("[", "^[")):
            section = _SECTION.fullmatch(stripped)
            if section is None:
                raise OwnershipError(f"{where}: unterminated section header {stripped!r} (expected [Section] or ^[Section])")
            if not section["name"].strip():
                raise OwnershipError(f"{where}: empty section name")
            defaults = _owners(_tokens(section["rest"]), where)
            continue
        pattern, *rest = _tokens(stripped)
        if pattern.startswith("!"):
            raise OwnershipError(f"{where}: {pattern!r}: CODEOWNERS has no negation (!)")
        owners = _owners(rest, where) or defaults
        entries.append(Entry(pattern, owners, number, _regex(pattern, where)))
    return Codeowners(path, tuple(entries))


def _tokens(text: str) -> list[str]:
    """The line's tokens up to a trailing `# comment`."""
    tokens = _TOKEN.findall(text)
    comment = next((i for i, token in enumerate(tokens) if token.startswith("#")), len(tokens))
    return tokens[:comment]


def _owners(tokens: list[str], where: str) -> tuple[str, ...]:
    for token in tokens:
        if not _OWNER.fullmatch(token):
            raise OwnershipError(f"{where}: {token!r} is not an owner (@user, @org/team or an email)")
    return tuple(tokens)


def _regex(pattern: str, where: str) -> re.Pattern:
    """The pattern as a regex over root-relative paths (hmarr/codeowners's translation)."""
    if "***" in pattern:
        raise OwnershipError(f"{where}: {pattern!r}: three consecutive asterisks")
    if pattern == "/":
        return re.compile(r"(?!)")  # matches nothing, as on GitHub
    segments = pattern.split("/")
    if segments[0] == "":
        segments = segments[1:]  # a leading slash anchors to the root
    elif (len(segments) == 1 or (len(segments) == 2 and segments[1] == "")) and segments[0] != "**":
        segments = ["**", *segments]  # one component: at any depth
    if len(segments) > 1 and segments[-1] == "":
        segments[-1] = "**"  # `dir/` is `dir/**`
    out: list[str] = []
    need_slash = False
    last = len(segments) - 1
    for i, segment in enumerate(segments):
        if segment == "**":
            if i == 0 and i == last:
                out.append(".+")
            elif i == 0:
                out.append("(?:.+/)?")
                need_slash = False
            elif i == last:
                out.append("/.*")
            else:
                out.append("(?:/.+)?")
                need_slash = True
            continue
        if need_slash:
            out.append("/")
        need_slash = True
        if segment == "*":
            out.append("[^/]+")  # a lone `*` component matches one name, never a folder's contents
            continue
        out.append(re.sub(r"\\(.)|\\$|(\*)|(\?)|(.)", _translate, segment, flags=re.S))
        if i == last:
            out.append("(?:/.*)?")  # a name also owns what lies below it
    return re.compile("".join(out), re.S)


def _translate(match: re.Match) -> str:
    escaped, star, question, other = match.groups()
    if star:
        return "[^/]*"
    if question:
        return "[^/]"
    return re.escape(escaped if escaped is not None else other if other is not None else "\\")
