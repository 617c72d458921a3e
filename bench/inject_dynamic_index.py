#!/usr/bin/env python
"""Injection over jax's own Pallas TPU kernels for JAX006: is every value indexed at a traced position
found, and does the fix give back the kernel as jax wrote it?

    python bench/inject_dynamic_index.py [--jax-version 0.12.0.1] [--show silent|manual|all] [--only splash]

For every read of a ref at an index that is not all constants (`x_ref[i]`, `k_ref[pl.ds(s, n), :]`,
a name ending in `_ref`) in kernel code of `jax/experimental/pallas/ops/tpu/` (the installed jax's; a
line is kernel code as bench/inject.py's `static_labels` says, not as the tool says), ONE SITE AT A
TIME, the read becomes a read of a whole load hoisted just before its statement:

    o_ref[...] = x_ref[i] * 2    ->    __jax006_v = x_ref[...]
                                       o_ref[...] = __jax006_v[i] * 2

which is the wall (a dynamic_slice of a value, where `i` is traced). JAX006 runs on the injected
module (in process, with the facts the project index gives the pristine package, unsafe fixes on), and
each site is:
  fixed    the output is the injected module with the read given back to the ref: the original
           kernel plus the hoisted load line, and nothing else changed;
  manual   a [manual] finding on the site's line (its reason is listed);
  silent   no finding: the tool takes the index for static (a Python loop's index, a parameter a
           partial binds, a shape), which would lower as written; listed for review;
  wrong    anything else: a fix that changes other text, a finding elsewhere, a crash.
Sites whose statement cannot take a line before it (an `elif` test, a lambda) are skipped and counted.
Exit 1 on any wrong site.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from codemods import registry  # noqa: E402
from codemods.capabilities import parse_version  # noqa: E402
from codemods.engine import runner  # noqa: E402
from codemods.settings import Settings  # noqa: E402

HOISTED = "__jax006_v"


def _static_labels():
    """bench/inject.py's labels: the module already imported as `inject` where it is (a test process
    that imported it keeps its own: replacing it broke the pickling of its functions there)."""
    path = REPO / "bench" / "inject.py"
    loaded = sys.modules.get("inject")
    if loaded is not None and Path(getattr(loaded, "__file__", "")).resolve() == path.resolve():
        return loaded.static_labels
    spec = importlib.util.spec_from_file_location("inject", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["inject"] = module  # its dataclasses look their module up while it runs
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    finally:
        if loaded is None:
            del sys.modules["inject"]
        else:
            sys.modules["inject"] = loaded
    return module.static_labels


def _constant(index: ast.expr) -> bool:
    return not any(isinstance(node, (ast.Name, ast.Call)) for node in ast.walk(index))


def sites(source: str, rel: str, labels) -> list[ast.Subscript]:
    """Reads of a `*_ref` name at a non-constant index, on lines the oracle labels kernel code."""
    tree = ast.parse(source)
    kernel_lines = {line for line, (label, _) in labels(source, rel).items() if label.startswith("kernel")}
    return sorted((node for node in ast.walk(tree)
                   if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
                   and isinstance(node.value, ast.Name) and node.value.id.endswith("_ref")
                   and not _constant(node.slice) and node.lineno in kernel_lines),
                  key=lambda node: (node.lineno, node.col_offset))


def _statement(tree: ast.Module, node: ast.AST) -> ast.stmt:
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    while not isinstance(node, ast.stmt):
        if isinstance(node, ast.Lambda):
            raise ValueError("in a lambda")
        node = parents[node]
    return node


def inject(source: str, site: ast.Subscript) -> tuple[str, str]:
    """(the injected module, what a correct fix gives back: the original plus the hoisted load)."""
    tree = ast.parse(source)
    statement = _statement(tree, next(node for node in ast.walk(tree) if isinstance(node, ast.Subscript)
                                      and (node.lineno, node.col_offset) == (site.lineno, site.col_offset)))
    lines = source.splitlines(keepends=True)
    header = lines[statement.lineno - 1]
    if header.lstrip().startswith("elif") or header.lstrip().startswith("@"):
        raise ValueError("no line can go before it")
    indent = header[: len(header) - len(header.lstrip())]
    load = f"{indent}{HOISTED} = {site.value.id}[...]\n"  # type: ignore[attr-defined]
    line = lines[site.lineno - 1].encode()
    start, end = site.value.col_offset, site.value.end_col_offset  # byte offsets
    injected_line = (line[:start] + HOISTED.encode() + line[end:]).decode()
    injected = lines[:site.lineno - 1] + [injected_line] + lines[site.lineno:]
    injected.insert(statement.lineno - 1, load)
    expected = list(lines)
    expected.insert(statement.lineno - 1, load)
    return "".join(injected), "".join(expected)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jax-version", default="0.12.0.1")
    parser.add_argument("--show", choices=("silent", "manual", "all"), default="all")
    parser.add_argument("--only", default="", help="only the kernel files whose path holds this text")
    options = parser.parse_args(argv)
    spec = importlib.util.find_spec("jax")
    if spec is None or spec.origin is None:
        print("jax is not installed: nothing to inject into", file=sys.stderr)
        return 2
    ops = Path(spec.origin).parent / "experimental" / "pallas" / "ops"
    files = sorted(path for path in (ops / "tpu").rglob("*.py") if options.only in str(path))
    settings = Settings(parse_version(options.jax_version), unsafe_fixes=True)
    rules = registry.select(["JAX006"])
    index = runner.project_index(sorted(ops.rglob("*.py")), rules, settings)
    labels = _static_labels()
    counts = {"fixed": 0, "manual": 0, "silent": 0, "wrong": 0, "skipped": 0}
    listed: list[str] = []
    for path in files:
        source = path.read_text()
        rel = str(path.relative_to(ops.parent))
        for site in sites(source, rel, labels):
            where = f"{rel}:{site.lineno}: `{ast.unparse(site)}`"
            try:
                injected, expected = inject(source, site)
                ast.parse(injected)
            except (ValueError, SyntaxError) as why:
                counts["skipped"] += 1
                listed.append(f"skipped {where}: {why}")
                continue
            result = runner.process_source(path, injected.encode(), rules, settings, facts=index.facts(path))
            line = site.lineno + 1  # the hoisted load is above it
            mine = [f for f in result.findings if f.line == line]
            if result.error is not None or len(mine) != len(result.findings):
                kind, detail = "wrong", f"{result.error or ''} {[f.message for f in result.findings]}"
            elif not mine:
                kind, detail = "silent", ""
            elif [f.kind.value for f in mine] == ["manual"]:
                kind, detail = "manual", mine[0].message.split("; not rewritten: ", 1)[-1].split("; index the ref")[0]
            elif (result.after or injected) == expected:
                kind, detail = "fixed", ""
            else:
                kind, detail = "wrong", "the fix changed more than the read"
            counts[kind] += 1
            if kind == "wrong" or options.show == "all" and kind != "fixed" or options.show == kind:
                listed.append(f"{kind} {where}" + (f": {detail}" if detail else ""))
    print("\n".join(listed))
    print(f"{sum(counts.values())} sites in {len(files)} files: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    return 1 if counts["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
