"""One copy of a helper function per module, or one import of it from the user's shared module.

Transforms that route calls through a helper (JAX002's rsqrt_safe, JAX003's float32 LSTM wrapper)
ask for it here. The helper is inserted once, after the imports; a definition already present with
the same code is reused; a name taken by something else makes us pick a free one (`name_2`, ...).
With `--helpers-module pkg.jax_compat` the helper is imported from there instead, so a monorepo
keeps one copy. Everything here reads the stdlib `ast`; the insertion is a text edit.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import functools
import itertools
from dataclasses import dataclass
from typing import Iterator, Optional

from codemods.analysis.module import NEWLINE, ModuleIndex, Scope
from codemods.engine.fixes import Definition, FixPlan, ImportSpec, Insertion, import_spec

# An import a helper's body uses: (module, obj or None, asname or None), as AddImportsVisitor takes it.
Need = ImportSpec


@dataclass(frozen=True)
class Helper:
    name: str  # preferred name
    template: str  # the `def`, with `{name}` where its name goes
    needs: tuple[Need, ...] = ()

    def code(self, name: str) -> str:
        return self.template.format(name=name)


_SOURCE_INDENT = "    "
REFERENCE_SOURCE = "helpers_source.py"  # in the codemods package; users copy it for --helpers-module


@functools.lru_cache(maxsize=None)
def reference_helper(name: str) -> Helper:
    """The helper `name` as codemods/helpers_source.py defines it, with the imports its body uses.

    That file is the one copy of each helper's code: what is inserted, and what users copy."""
    from importlib import resources  # here: only a fix that inserts a helper pays its import (tempfile, random)

    text = resources.files("codemods").joinpath(REFERENCE_SOURCE).read_text()
    tree = ast.parse(text)
    function = next(s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == name)
    used = {node.id for node in ast.walk(function) if isinstance(node, ast.Name)}
    needs = tuple(need for statement in tree.body for bound, need in _imports(statement) if bound in used)
    code = ast.get_source_segment(text, function, padded=False) or ""
    header = f"def {name}("
    assert code.startswith(header), code[:40]
    return Helper(name, "def {name}(" + _escape(code[len(header):]), needs)


def _escape(code: str) -> str:
    return code.replace("{", "{{").replace("}", "}}")


def _imports(statement: ast.stmt) -> Iterator[tuple[str, Need]]:
    """(the name bound, the need) for each absolute import in `statement`."""
    if isinstance(statement, ast.Import) or (isinstance(statement, ast.ImportFrom) and not statement.level):
        for alias in statement.names:
            need = import_spec(statement, alias)
            yield _bound(need), need


def _target(need: Need) -> str:
    """The qualified name an import binds: `jax.numpy` for `import jax.numpy as jnp`."""
    module, obj, asname = need
    if obj is not None:
        return f"{module}.{obj}"
    return module if asname else module.split(".")[0]


def _bound(need: Need) -> str:
    module, obj, asname = need
    return asname or (obj if obj is not None else module.split(".")[0])


class HelperInserter:
    """Helpers for one file: the name each is called by, and what a fix that calls it needs (its
    definition, inserted after the imports, or its import from the helpers module)."""

    def __init__(self, module: ModuleIndex, helpers_module: Optional[str]) -> None:
        self.module = module
        self.helpers_module = helpers_module
        self.scope: Scope = module.module_scope
        self._uses: dict[Helper, tuple[str, tuple[ImportSpec, ...], Optional[Definition]]] = {}

    @functools.cached_property
    def indent(self) -> str:
        """The module's indentation, found only when a helper is inserted (most files insert none)."""
        return _default_indent(self.module)

    def use(self, helper: Helper, plan: FixPlan) -> str:
        """The name to call the helper by in this module; `plan` gets its definition or import."""
        if helper not in self._uses:
            self._uses[helper] = self._resolve(helper)
        name, imports, definition = self._uses[helper]
        plan.imports_to_add += [spec for spec in imports if spec not in plan.imports_to_add]
        if definition is not None and definition not in plan.definitions:
            plan.definitions.append(definition)
        return name

    def _resolve(self, helper: Helper) -> tuple[str, tuple[ImportSpec, ...], Optional[Definition]]:
        local = helper if self.helpers_module else _indented(self._in_module_names(helper), self.indent)
        name = self._free_name(local)
        if self.helpers_module:
            if self._imported_from(name, self.helpers_module):
                return name, (), None
            return name, ((self.helpers_module, helper.name, None if name == helper.name else name),), None
        if self._defined_as(name, local):
            return name, (), None
        return name, local.needs, Definition(local.code(name), self._insertion)

    def _in_module_names(self, helper: Helper) -> Helper:
        """The helper spelled with the module's own imports: what the module already imports is not
        imported again, and where it binds it under another name (`import jax.numpy as np`) the body
        uses that name (`np.float32`). A name the module binds to something else (`lax = None`,
        `import numpy as jnp`) is imported under a free one (`from jax import lax as lax_2`): the
        import would rebind the module's own name, or the module's name would replace the helper's."""
        renames: dict[str, str] = {}
        needs: list[Need] = []
        for need in helper.needs:
            target = _target(need)
            names = sorted(
                name for name, bindings in self.scope.bindings.items()
                if any(binding.imported == target for binding in bindings)
            )
            bound = _bound(need)
            if not names and self._taken(bound):
                alias = next(f"{bound}_{k}" for k in itertools.count(2) if not self._taken(f"{bound}_{k}"))
                needs.append((need[0], need[1], alias))
                renames[bound] = alias
            elif not names:
                needs.append(need)
            elif bound not in names:
                renames[bound] = names[0]
        if not renames:  # libcst dedupes an import only in the module's leading imports, not below a cell of magics
            return Helper(helper.name, helper.template, tuple(needs))
        return Helper(helper.name, _rename_names(helper.template, renames), tuple(needs))

    def _free_name(self, helper: Helper) -> str:
        candidate, suffix = helper.name, 1
        while self._taken(candidate) and not (
            self._imported_from(candidate, self.helpers_module) if self.helpers_module
            else self._defined_as(candidate, helper)
        ):
            suffix += 1
            candidate = f"{helper.name}_{suffix}"
        return candidate

    def _taken(self, name: str) -> bool:
        return name in self.scope.bindings or hasattr(builtins, name)

    def _defined_as(self, name: str, helper: Helper) -> bool:
        """`name` is a module-level def with exactly the helper's code."""
        nodes = [binding.node for binding in self.scope.bindings.get(name, ())]
        if len(nodes) != 1 or not isinstance(nodes[0], ast.FunctionDef) or nodes[0].decorator_list:
            return False
        function = nodes[0]
        start = self.module.line_start(function.lineno)
        end = self.module.offset(function.end_lineno, function.end_col_offset)
        code = NEWLINE.sub("\n", self.module.text[start:end])
        return code.strip() == helper.code(name).strip()

    def _imported_from(self, name: str, module: Optional[str]) -> bool:
        return any(
            isinstance(binding.statement, ast.ImportFrom) and binding.statement.module == module
            for binding in self.scope.bindings.get(name, ())
        )

    @functools.cached_property
    def _insertion(self) -> Insertion:
        """After the docstring and the imports at the top."""
        offset, after_statements, blank_lines_after = _insertion_point(self.module)
        return Insertion(offset, after_statements, blank_lines_after, _first_newline(self.module.text))


def _insertion_point(module: ModuleIndex) -> tuple[int, bool, int]:
    """(offset, whether statements come before it, blank lines to add after the inserted defs)."""
    body = module.tree.body
    lines: list[list[ast.stmt]] = []  # statements grouped by physical line (`import a; import b`)
    for statement in body:
        if lines and statement.lineno == lines[-1][-1].end_lineno:
            lines[-1].append(statement)
        else:
            lines.append([statement])
    position = scanned = 0
    while scanned < len(lines):  # in a notebook, past a magics-only cell to the imports of the next
        if _is_import_block(lines[scanned], scanned):
            position = scanned = scanned + 1
        elif _is_placeholder(lines[scanned]) or _is_string(lines[scanned]) and all(map(_is_placeholder, lines[:scanned])):
            scanned += 1
        else:
            break
    if position == len(lines):  # nothing but imports: at the end
        last = lines[-1][-1] if lines else None
        offset = module.line_start(last.end_lineno + 1) if last else len(module.text)
        return offset, last is not None, 0
    following = lines[position][0]
    first_line = min([following.lineno] + [d.lineno for d in getattr(following, "decorator_list", ())])
    if position == 0:  # the comments and blank lines above the first statement stay on top
        return module.line_start(first_line), False, 2
    previous_end = lines[position - 1][-1].end_lineno
    blanks = 0
    for line in range(previous_end + 1, first_line):
        text = module.text[module.line_start(line):module.line_start(line + 1)]
        if text.strip():
            break
        blanks += 1
    return module.line_start(previous_end + 1), True, max(0, 2 - blanks)


def _is_import_block(statements: list[ast.stmt], index: int) -> bool:
    return index == 0 and _is_string(statements) or all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in statements)


def _is_string(statements: list[ast.stmt]) -> bool:
    first = statements[0]
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)


def _is_placeholder(statements: list[ast.stmt]) -> bool:
    """A notebook's IPython line (`%load_ext autoreload`) as the module reads it: `pass` or `0`
    (codemods/engine/notebook.py); skipped only on the way to imports below it."""
    return all(isinstance(s, ast.Pass) or isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
               and s.value.value == 0 for s in statements)


def _rename_names(code: str, renames: dict[str, str]) -> str:
    """Renames variables in a helper's code; attributes and keywords of the same spelling stay."""
    text = code.format(name="__helper__")
    index = ModuleIndex.parse(text)
    spans = sorted(
        (index.span(node), renames[node.id])
        for node in ast.walk(index.tree) if isinstance(node, ast.Name) and node.id in renames
    )
    for (start, end), new in reversed(spans):
        text = text[:start] + new + text[end:]
    return _escape(text).replace("__helper__", "{name}")


def _indented(helper: Helper, indent: str) -> Helper:
    """The helper indented like the module (helpers_source.py uses four spaces), its docstring too."""
    if indent == _SOURCE_INDENT:
        return helper

    def reindent(line: str) -> str:
        depth = (len(line) - len(line.lstrip(" "))) // len(_SOURCE_INDENT)
        return indent * depth + line[depth * len(_SOURCE_INDENT):]

    return dataclasses.replace(helper, template="\n".join(map(reindent, helper.template.split("\n"))))


def _default_indent(module: ModuleIndex) -> str:
    """The indentation of the module's first indented block, as libcst infers it (from the text
    without form feeds in leading whitespace it is given: Python counts a line's indentation from
    its last form feed, see engine/fixes.py's _FormFeedIndents)."""
    for node in ast.walk(module.tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(node, ast.stmt) and body[0].lineno > node.lineno:
            line = module.text[module.line_start(body[0].lineno):module.offset(body[0].lineno, body[0].col_offset)]
            line = line[line.rfind("\f") + 1:]
            header = module.text[module.line_start(node.lineno):]
            header = header[:len(header) - len(header.lstrip(" \t\f"))]
            outer = len(header) - header.rfind("\f") - 1
            if line[outer:]:
                return line[outer:]
    return _SOURCE_INDENT


def _first_newline(text: str) -> str:
    match = NEWLINE.search(text)
    return match.group() if match else "\n"
