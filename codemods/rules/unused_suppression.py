"""JAX900 unused-suppression: a `# jax-codemod: ignore[...]` comment that names no known rule, or
that silences nothing in this run (Ruff's RUF100 unused-noqa). Opt-in: `--select JAX900`."""

from __future__ import annotations

from codemods.engine.diagnostics import Finding, Kind
from codemods.engine.rule import SUPPRESSIONS, ParsedFile, Rule


def _known(selector: str) -> bool:
    from codemods import registry  # not at import time: the registry imports this module

    return bool(registry.matching(selector))


def _check(rule: Rule, file: ParsedFile) -> list[Finding]:
    used = file.shared.get(SUPPRESSIONS)  # set by the engine once the other rules ran
    if used is None:
        return []  # checked alone, with no other rule's findings to weigh: nothing to judge
    findings = []
    for line, comment in sorted(used.comments.items()):
        silenced = used.silenced.get(line, set())
        if not comment.selectors:  # every rule (None), or none at all (`ignore[]`, which silences nothing)
            problems = [] if silenced else ["silences no finding"]
        else:
            unknown = [s for s in comment.selectors if not _known(s)]
            unused = [s for s in comment.selectors if s not in silenced and s not in unknown]
            problems = ([f"names no known rule: {', '.join(unknown)}"] if unknown else []) + (
                [f"silences no finding: {', '.join(unused)}"] if unused else [])
        if problems:
            findings.append(Finding(rule.code, Kind.WARNING, line, comment.column,
                                    f"unused suppression comment ({'; '.join(problems)}): remove it or what it names",
                                    end_line=line, end_column=comment.end_column))
    return findings


RULE = Rule(
    code="JAX900",
    name="unused-suppression",
    summary="Report `# jax-codemod: ignore` comments that name no known rule or silence nothing (opt-in).",
    what="""
        Reports each `# jax-codemod: ignore[...]` comment that names a rule no code, prefix or name
        matches (a typo: `ignore[JAX01]` is a prefix and fine, `ignore[acuracy-hints]` is not), and
        each one, or each rule it names, that silences no finding of this run. Not selected by
        default: `--select JAX900` (with the rules whose comments it should check), or `ALL`.
        It has no fix: a person decides whether the comment or the code is what is stale.
    """,
    why="""
        A comment that silences nothing hides the next real finding on its line, and one with a
        misspelt rule silences nothing while looking as if it did. As Ruff's RUF100 (unused-noqa),
        it counts against the rules this run checks: a comment for a rule not selected is reported
        as silencing nothing.
    """,
    example="""
        # before: jnp.dot has no precision to fix, and the comment names no rule
        y = jnp.dot(x, w)  # jax-codemod: ignore[JAX001, acuracy-hints]
        # reported: JAX900 unused suppression comment (names no known rule: acuracy-hints;
        #           silences no finding: JAX001)
        # after (by hand)
        y = jnp.dot(x, w)
    """,
    words=(b"jax-codemod:",),
    kernel_scoped=False,
    check=_check,
    default=False,
    reviews_suppressions=True,
)
