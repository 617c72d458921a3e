"""How the rest of the project uses one module's function or value: launched, called from kernel code,
or read by plain XLA code; and which of its precision constants other modules read. A search driven
by need (the module's needy names), backwards through the modules that say the name."""

from __future__ import annotations

import ast
from typing import Iterable, Iterator, Optional

from codemods.analysis.kernel_scope import FACTORY, KernelScope
from codemods.analysis.module import FunctionNode, MAX_ALIAS_DEPTH, ModuleIndex
from codemods.analysis.project.base import ProjectBase
from codemods.analysis.project.modules import CONTENT, PROJECT, Usage, _MAX_REEXPORTS, _Module
from codemods.analysis.project.scan import (
    _holder, _holding_expression, _is_partial_of, _kernel_precision, _last_name, _precision_constants,
)


_MAX_REFERRERS = 16  # see ProjectIndex._referrers


class UsageSearch(ProjectBase):
    """Who uses a module's top-level names, and how (see `Usage`)."""

    def _usage(self, module: _Module, name: str) -> Usage:
        """How modules other than `module` use its top-level `name` (memoized; a cycle gives nothing)."""
        return self._remembered(self._usages, (module.name, name), lambda: self._find_usage(module, name),
                                in_progress=Usage())  # type: ignore[return-value]

    def _find_usage(self, module: _Module, name: str) -> Usage:
        usage = Usage()
        referrers, renamed = self._referrers_under_any_name(module, name)
        for referrer in referrers:
            if not self._in_kernel_land(referrer.name):  # no kernel runs its code: any use is plain,
                # but a class's field default (a config dataclass's `dot_fn = dots.accurate_dot`)
                # stores it: the code that reads the field runs it
                usage |= Usage(plain=self._mentions(referrer, module, name, renamed, self._dotted_beside_fields(referrer)))
                for field in self._fields_storing(referrer, module, name, renamed):
                    usage |= self._field_reads(field)
                continue
            index, scope = self._index(referrer), self._scope(referrer)
            if index is None or scope is None:
                continue
            bodies = {id(mention): (why, launched, role) for mention, why, launched, role in scope.foreign_bodies}
            aliases = self._aliases(referrer, name, renamed)
            for function, mentions in self._project_mentions(referrer, index).items():
                for mention in mentions:
                    if _last_name(mention) in aliases and (module, name) in self._targets(referrer, index, mention):
                        usage |= self._usage_at(referrer, index, scope, function, mention, bodies)
        for holder, members in self._holders(module).get(name, ()):  # `k = body`, `BODIES = [body]` here: used as they are
            held = self._usage(module, holder)
            # `kernel = staticmethod(Model().kernel)` in a launched class, `[Model().kernel]`: the member
            usage |= Usage(held.backends, held.role, held.plain, held.why, members if held.backends else frozenset())
        return usage

    def _referrers_under_any_name(self, module: _Module, name: str) -> tuple[list[_Module], set[str]]:
        """The modules that may use `module.name`, and the other names it is re-exported under."""
        referrers = self._referrers(module, name)
        renamed = self._renamed(module, name, referrers)
        for alias in sorted(renamed):  # `mylib.mm` after `from mylib.ops import fused_mm as mm` in mylib
            known = {referrer.name for referrer in referrers}
            referrers += [referrer for referrer in self._referrers(module, alias) if referrer.name not in known]
        return referrers, renamed

    def _constants_read_elsewhere(self, module: _Module) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Its top-level constants that may be a precision (`MIXED = (P.DEFAULT, P.HIGHEST)`), each
        with the other modules that read it otherwise than as the precision of a Mosaic TPU kernel's
        call (imported by name, as `kernels.MIXED`, or through a re-export): a fix of the constant
        would change what they read (plain XLA code's numerics), so its module's rules must not
        rewrite it (ModuleFacts.read_elsewhere)."""
        self._depend(module.name, CONTENT)
        if module.constants is None:  # (found by `_needy_names`, on the parse a worker took, where it ran)
            module.constants = _precision_constants(self._tree(module))
        found = [(name, readers) for name in module.constants if (readers := self._plain_readers(module, name))]
        return tuple(sorted(found))

    def _plain_readers(self, module: _Module, name: str) -> tuple[str, ...]:
        """The other modules that read `module.name`, not (only) as a Mosaic TPU kernel's precision."""
        referrers, renamed = self._referrers_under_any_name(module, name)
        readers = []
        for referrer in referrers:
            if self._star_imports(referrer, module):  # `from pkg.kernels import *`: its uses are not resolved
                readers.append(referrer.name)
                continue
            if not self._in_kernel_land(referrer.name):  # no kernel runs its code: any use is plain
                if self._mentions(referrer, module, name, renamed):
                    readers.append(referrer.name)
                continue
            index, scope = self._index(referrer), self._scope(referrer)
            if index is None or scope is None:
                continue
            aliases = self._aliases(referrer, name, renamed)
            if any(_last_name(mention) in aliases and (module, name) in self._targets(referrer, index, mention)
                   and not _kernel_precision(index, scope, mention)
                   for mentions in self._project_mentions(referrer, index).values() for mention in mentions):
                readers.append(referrer.name)
        return tuple(readers)

    def _star_imports(self, referrer: _Module, module: _Module) -> bool:
        """Whether `referrer` imports every name of `module` (`from pkg.kernels import *`)."""
        return any(isinstance(statement, ast.ImportFrom) and any(alias.name == "*" for alias in statement.names)
                   and referrer.absolute("." * statement.level + (statement.module or "")) == module.name
                   for statement in self._import_statements(referrer))

    def _renamed(self, module: _Module, name: str, referrers: list[_Module]) -> set[str]:
        """The other names `referrers` re-export `module.name` under (`from .ops import fused_mm as
        mm`): other modules may use it by those (`mylib.mm`), never saying `name`."""
        renamed = set()
        for referrer in referrers:
            for bound, qualified in self._top_level(referrer).items():
                if bound != name and qualified != "def" and qualified.rpartition(".")[2] == name:
                    absolute = referrer.absolute(qualified)
                    if absolute and self._function(absolute, _MAX_REEXPORTS) == (module, name):
                        renamed.add(bound)
        return renamed

    def _holders(self, module: _Module) -> dict[str, list[tuple[str, frozenset[str]]]]:
        """For each name, the top-level values and classes of the module that hold it (`k = body`,
        `BODIES = [body]`, `class Holder: kernel = staticmethod(body)`): another module launching
        those launches it. With each, the attributes the holder's statement reads, which a member
        of the name's instances it launches may be (`staticmethod(Model().kernel)`: `kernel`)."""
        self._depend(module.name, CONTENT)
        if module.holders is None:
            module.holders = {}
            tree = self._tree(module)
            for statement in tree.body if tree is not None else ():
                holder = _holder(statement)
                if holder is None:
                    continue
                nodes = list(ast.walk(statement))
                # What it may read of an instance it makes: `Model().kernel`, `[m.kernel for m in ...]`.
                read = frozenset(node.attr for node in nodes if isinstance(node, ast.Attribute))
                for named in {node.id for node in nodes if isinstance(node, ast.Name)} - {holder}:
                    module.holders.setdefault(named, []).append((holder, read))
        return module.holders

    def _usage_at(self, referrer: _Module, index: ModuleIndex, scope: KernelScope, function: Optional[FunctionNode],
                  mention: ast.AST, bodies: dict, depth: int = MAX_ALIAS_DEPTH) -> Usage:
        if id(mention) in bodies:  # its value reaches a launch (the module's value flow followed it there)
            why, launched, role = bodies[id(mention)]
            return Usage(launched, role, why=f"{why} in {referrer.name}")
        holder = index.parent.get(mention)
        if isinstance(holder, ast.Call) and holder.func is mention:  # `Model().kernel`: a member of an instance
            holder = index.parent.get(holder) if isinstance(index.parent.get(holder), ast.Attribute) else holder
        if isinstance(holder, ast.Attribute) and id(holder) in bodies:  # `Holder.kernel`
            why, launched, role = bodies[id(holder)]
            return Usage(launched, role, why=f"{why} in {referrer.name}", members=frozenset({holder.attr}))
        holder = index.parent.get(mention)
        holder = holder if _is_partial_of(holder, mention) else mention
        binding = index.binding_of_value(holder)
        if binding is not None:  # `chosen = kernels.body` or `partial(kernels.body, ...)`: runs where the name is used
            if depth <= 0:
                return Usage(plain=True)  # followed too far: taken for plain code
            usage = Usage()
            for reference in binding.references:
                usage |= self._usage_at(referrer, index, scope, index.enclosing.get(reference), reference, bodies,
                                        depth - 1)
            if binding.scope is index.module_scope:  # `k = kernels.body` at the top: other modules may launch `k`
                usage |= self._usage(referrer, binding.name)
            return usage
        kernel = scope.kernel_of(mention)
        if kernel is not None:
            return Usage(scope.backends.get(kernel, frozenset()), why=f"called from a kernel body in {referrer.name}")
        if mention in scope.handed:
            return Usage(scope.handed[mention], why=f"passed to a kernel body in {referrer.name}")
        top = function
        while top is not None and index.function_parent.get(top) is not None:
            top = index.function_parent[top]
        value, made = _holding_expression(index, holder)
        read = index.parent.get(value)
        attribute = read.attr if made and isinstance(read, ast.Attribute) and read.value is value else None
        if attribute is not None:  # `ops.Model().kernel`: what is held is a member of the instance it makes
            value, made = _holding_expression(index, read)
        member = self._instance_member(index, top, value)
        if member is not None:  # `self.kernel = ops.body` in a method: runs where the class's member is launched
            held = self._usage(referrer, member[0])
            if member[1] in held.members:
                return Usage(held.backends, FACTORY if made else held.role, held.plain, held.why,
                             frozenset({attribute}) if attribute is not None else frozenset())
        if top is None:  # at the top: held by a value or class (`BODIES = [ops.body]`), used as that is
            statement = mention
            while not isinstance(index.parent.get(statement), (ast.Module, type(None))):
                statement = index.parent[statement]
            holder = _holder(statement)  # type: ignore[arg-type]
            if holder is None:
                return Usage(plain=True)
            held = self._usage(referrer, holder)
            plain = held.plain or not held.backends
            field = _field_of(statement, mention)
            if field is not None and plain:  # making an instance stores it: it runs where the field is read
                reads = self._field_reads(field)
                return Usage(held.backends | reads.backends, held.role, reads.plain, held.why or reads.why)
            return Usage(held.backends, held.role, plain, held.why)
        if isinstance(top, ast.Lambda) or index.module_scope.bindings.get(top.name) is None:
            return Usage(plain=True)
        outer = self._usage(referrer, top.name)  # a function of the referrer: it runs where that runs
        called_plainly = any(scope.kernel_of(reference) is None
                             for binding in index.module_scope.bindings[top.name] for reference in binding.references)
        return Usage(outer.backends, plain=outer.plain or called_plainly or not outer.backends,
                     why=f"called from {referrer.name}.{top.name}, which kernels run")

    @staticmethod
    def _instance_member(index: ModuleIndex, method: Optional[FunctionNode], value: ast.AST) -> Optional[tuple[str, str]]:
        """(class, attribute) where `value` is what a method of a top-level class assigns to
        `self.<attribute>` (`Model().kernel` launched in another module runs it)."""
        statement = index.parent.get(value)
        owner = index.parent.get(method) if method is not None else None
        if not (isinstance(statement, ast.Assign) and statement.value is value and isinstance(owner, ast.ClassDef)
                and isinstance(index.parent.get(owner), ast.Module) and method.args.args):
            return None
        this = method.args.args[0].arg
        for target in statement.targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == this:
                return owner.name, target.attr
        return None

    def _aliases(self, referrer: _Module, name: str, renamed: "set[str] | frozenset[str]" = frozenset()) -> set[str]:
        """What `name` (or a name it is re-exported under: `renamed`) may be called in `referrer`:
        itself, or a name its imports bind it to (`as`). (A def's entry in `_top_level` is "def", a
        keyword: never a name's last part.)"""
        names = {name, *renamed}
        return names | {bound for bound, qualified in self._top_level(referrer).items()
                        if qualified.rsplit(".", 1)[-1] in names}

    def _fields_storing(self, referrer: _Module, module: _Module, name: str, renamed: "set[str] | frozenset[str]") -> set[str]:
        """The fields of `referrer`'s top-level classes whose default names `module.name`."""
        tree = self._tree(referrer)
        return {field for statement in (tree.body if tree is not None else ()) if isinstance(statement, ast.ClassDef)
                for field, value in _field_defaults(statement)
                if self._mentions(referrer, module, name, renamed, _dotted_by_last_name(ast.walk(value)))}

    def _dotted_beside_fields(self, module: _Module) -> dict[str, set[str]]:
        """`_dotted_names` but for the defaults of the module's top-level classes' fields: one walk
        per module, however many names of other modules are asked about (a module outside kernel
        land that uses a library's helpers is asked about each of them: on the trees, 252 walks of
        the trees of far fewer modules, the facts' largest cost after the parses)."""
        self._depend(module.name, CONTENT)
        if module.dotted_beside_fields is None:
            tree = self._tree(module)
            defaults = {id(node) for statement in (tree.body if tree is not None else ()) if isinstance(statement, ast.ClassDef)
                        for _, value in _field_defaults(statement) for node in ast.walk(value)}
            module.dotted_beside_fields = {} if tree is None else \
                _dotted_by_last_name(node for node in ast.walk(tree) if id(node) not in defaults)
        return module.dotted_beside_fields

    def _field_reads(self, field: str) -> Usage:
        """See `_find_field_reads` (memoized with the modules it read; a cycle reads plain)."""
        return self._remembered(self._usages, (PROJECT, field), lambda: self._find_field_reads(field),
                                in_progress=Usage(plain=True))  # type: ignore[return-value]

    def _find_field_reads(self, field: str) -> Usage:
        """Where the project reads a field named `field` (`cfg.dot_fn`, whatever class `cfg` is):
        a function a class stores there runs where it is read. A read a kernel makes, or hands to a
        kernel (`partial(kernel, dot_fn=cfg.dot_fn)`), runs in kernels; any other, a read in a module
        no kernel reaches, or the field's name in a string (`getattr(cfg, "dot_fn")`), is plain. Any
        module may read it (one handed the instance need not import its class): each is asked, and
        an edit to any of them asks again."""
        usage = Usage()
        for reader in self._modules.values():
            self._depend(reader.name, CONTENT)
            if not self._says(reader, (field,)):
                continue
            index = self._index(reader) if self._in_kernel_land(reader.name) else None
            scope = self._scope(reader) if index is not None else None
            tree = index.tree if index is not None else self._tree(reader)
            reads = [node for node in ast.walk(tree) if isinstance(node, ast.Constant) and node.value == field
                     or isinstance(node, ast.Attribute) and node.attr == field and isinstance(node.ctx, ast.Load)] \
                if tree is not None else []
            if not reads:  # (the class that declares it)
                continue
            if scope is None:
                return Usage(plain=True)
            for node in reads:
                if isinstance(node, ast.Constant):
                    return Usage(plain=True)
                kernel = scope.kernel_of(node)
                if kernel is not None:
                    usage |= Usage(scope.backends.get(kernel, frozenset()), why=f"read from a kernel body in {reader.name}")
                elif node in scope.handed:
                    usage |= Usage(scope.handed[node], why=f"passed to a kernel body in {reader.name}")
                else:
                    return Usage(plain=True)
        return usage

    def _mentions(self, referrer: _Module, module: _Module, name: str, renamed: "set[str] | frozenset[str]" = frozenset(),
                  dotted: Optional[dict[str, set[str]]] = None) -> bool:
        """Whether `referrer` names `module.name` through its top-level imports (read from its bare
        syntax tree, without the scopes: a shadowing local counts, which can only keep a fix back), in
        `dotted` (its `_dotted_names` unless given)."""
        imports = {bound: qualified for bound, qualified in self._top_level(referrer).items() if qualified != "def"}
        if not imports:
            return False
        dotted = self._dotted_names(referrer) if dotted is None else dotted
        for alias in self._aliases(referrer, name, renamed):  # only what can be the name: resolving is the cost
            for spelled in dotted.get(alias, ()):
                root, _, rest = spelled.partition(".")
                if root in imports:
                    absolute = referrer.absolute(f"{imports[root]}.{rest}" if rest else imports[root])
                    if absolute and self._function(absolute, _MAX_REEXPORTS) == (module, name):
                        return True
        return False

    def _dotted_names(self, module: _Module) -> dict[str, set[str]]:
        """Every name and loaded attribute chain of the module (`ops.act`, `ops`, `act`), by its last
        part: one walk per module, however many of its names are asked about."""
        self._depend(module.name, CONTENT)
        if module.dotted is None:
            tree = self._tree(module)
            module.dotted = _dotted_by_last_name(ast.walk(tree) if tree is not None else ())
        return module.dotted

    def _referrers(self, module: _Module, name: str) -> list[_Module]:
        """The modules that may use `module.name`: they import the project, use the word, and import
        it, its module or a package of it (`from .ops import act`, `from pkg.ops import math`,
        `import pkg` for `pkg.ops.act`, ...)."""
        parts = {part.encode() for part in module.name.split(".")} | {name.encode()}
        # More than _MAX_REFERRERS: a name that many modules may use is a library's API (jax's own
        # `lax.dot_general` in a site-packages tree), not a kernel helper: following it would parse the library.
        found = self._importers_saying(parts, (name,), exclude=module, limit=_MAX_REFERRERS)
        return [] if len(found) > _MAX_REFERRERS else found


def _field_defaults(statement: ast.ClassDef) -> Iterator[tuple[str, ast.expr]]:
    """A class's fields with their defaults (`dot_fn: Callable = dots.accurate_dot`, `block = 128`)."""
    for field in statement.body:
        if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name) and field.value is not None:
            yield field.target.id, field.value
        elif isinstance(field, ast.Assign) and len(field.targets) == 1 and isinstance(field.targets[0], ast.Name):
            yield field.targets[0].id, field.value


def _field_of(statement: ast.stmt, mention: ast.AST) -> Optional[str]:
    """The field of the class `statement` whose default `mention` is in."""
    if isinstance(statement, ast.ClassDef):
        for field, value in _field_defaults(statement):
            if any(node is mention for node in ast.walk(value)):
                return field
    return None


def _dotted_by_last_name(nodes: Iterable[ast.AST]) -> dict[str, set[str]]:
    """The names and loaded attribute chains among `nodes` (`ops.act`, `ops`, `act`), by last part."""
    dotted: dict[str, set[str]] = {}
    for node in nodes:
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) or isinstance(node, ast.Name):
            parts, last = [], node
            while isinstance(node, ast.Attribute):
                parts.append(node.attr)
                node = node.value
            if isinstance(node, ast.Name):
                dotted.setdefault(_last_name(last), set()).add(".".join([node.id, *reversed(parts)]))
    return dotted
