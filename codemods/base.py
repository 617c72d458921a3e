"""What every transform shares: the file's one analysis, kernel scope, and planning fixes.

A transform reads the module through the stdlib-`ast` analysis (`ModuleIndex`: qualified names,
scopes, kernel bodies) and reports findings, each with the fix it plans (`FixPlan`: edits over
source spans, helpers, imports). The engine decides which fixes to apply, applies them together
(codemods/engine/fixes.py) and verifies. Nothing here imports libcst: most files plan no edit,
and then libcst is never loaded.
"""

from __future__ import annotations

import ast
from abc import ABC, abstractmethod
from typing import Callable, Collection, Iterator, Optional

from codemods.analysis.flow.flow_facts import Called, LostLaunch, OriginAnswer, SinkAnswer
from codemods.analysis.kernel_scope import NO_LAUNCH_FOUND, Backends, KernelScope, find_kernels
from codemods.analysis.module import FUNCTIONS, FunctionNode, ModuleIndex
from codemods.analysis.module_helpers import Helper, HelperInserter
from codemods.analysis.names import display
from codemods.engine.diagnostics import Applicability, Finding, Fix, Kind
from codemods.engine.fixes import Edit, FixPlan, import_spec
from codemods.engine.rule import ParsedFile, Rule
from codemods.settings import Scope


class FileAnalysis:
    """One module's analysis, computed once and shared by every transform that runs on it."""

    def __init__(self, file: ParsedFile) -> None:
        self.module: ModuleIndex = file.module
        self.settings = file.settings
        # Lines a traceback proves to hold a failing call, by rule (`jax-codemod explain`).
        self.proven = file.proven
        self.helpers = HelperInserter(file.module, file.settings.helpers_module)
        self._kernels: Optional[KernelScope] = None
        self._wall_kernels: Optional[KernelScope] = None
        self.facts = file.facts  # what the rest of the project says about this module

    @classmethod
    def of(cls, file: ParsedFile) -> "FileAnalysis":
        analysis = file.shared.get(cls.__name__)
        if analysis is None:
            analysis = file.shared[cls.__name__] = cls(file)
        return analysis

    @property
    def kernels(self) -> KernelScope:
        if self._kernels is None:
            self._kernels = find_kernels(self.module, self.facts)
        return self._kernels

    @property
    def wall_kernels(self) -> KernelScope:
        """The kernels of the rules that follow no call (JAX004-JAX008): with the functions the link
        says other modules' kernels run (`ModuleFacts.with_flow_kernels`)."""
        if self._wall_kernels is None:
            facts = self.facts.with_flow_kernels()
            self._wall_kernels = self.kernels if facts is self.facts else find_kernels(self.module, facts)
        return self._wall_kernels


class JaxTransform(ABC):
    """A rule's implementation: `plan()` reports findings, each with the fix it plans, if any."""

    def __init__(self, rule: Rule, file: ParsedFile) -> None:
        self.rule = rule
        self.analysis = FileAnalysis.of(file)
        self.module = self.analysis.module
        self.settings = self.analysis.settings
        self.findings: list[Finding] = []
        self._shared_uses: dict[ast.AST, list[ast.Call]] = {}  # by helper def or shared value
        self._shared_findings: dict[ast.AST, int] = {}

    @property
    def kernels(self) -> KernelScope:
        """This rule's kernels: a rule that follows calls (JAX001-JAX003) reads the index's facts and
        the link's answers at those calls; the others, every function the link says kernels run."""
        return self.analysis.kernels if self.rule.follows else self.analysis.wall_kernels

    @classmethod
    def check(cls, rule: Rule, file: ParsedFile) -> list[Finding]:
        """`Rule.check`: the findings of this transform on one file."""
        transform = cls(rule, file)
        transform.plan()
        return transform.findings

    @classmethod
    def matches_call(cls, rule: Rule, file: ParsedFile, call: ast.Call) -> bool:
        """`Rule.matches`, for `explain`: the call, or the value it calls when that is bound by
        `name = functools.partial(...)` (the traceback points at `name(x)`)."""
        transform = cls(rule, file)
        if transform.matches(call):
            return True
        bound = transform.module.bindings(call.func) if isinstance(call.func, ast.Name) else []
        return any(isinstance(b.value, ast.Call) and transform.matches(b.value) for b in bound)

    @abstractmethod
    def plan(self) -> None:
        """Inspect the module; `report()` findings, with a fix planned by `replace()`/`rewrite()`."""

    # -- where a call runs --

    def target_kernel(self, node: ast.AST) -> Optional[FunctionNode]:
        return self.kernels.kernel_of(node)

    def matches(self, call: ast.Call) -> bool:
        """Whether `call` is one this rule rewrites or reports, wherever it sits."""
        return False

    def proven(self, call: ast.Call) -> bool:
        """A traceback proved that this call fails in a kernel (`jax-codemod explain`): the line of
        the call, or of a use of the name it is bound to (`exp_hi(x)` for a partial)."""
        lines = self.analysis.proven.get(self.rule.code, frozenset())
        spans = [call, *(self.module.parent.get(use, use) for use in self.kernels.uses_of(call))]
        return any(node.lineno <= line <= node.end_lineno for node in spans for line in lines)

    # -- values that cross modules: the whole-program value flow's answers (analysis/flow/link.py) --

    def flow_answer(self, call: ast.Call) -> Optional[SinkAnswer]:
        """What the link found reaching `call` (a call of the rule's `follows`), if anything reaches
        it in the project."""
        answer = self.analysis.facts.flow.sink_at((call.lineno, call.col_offset))
        return answer if answer is not None and answer.reached else None

    def values_called(self, functions: Collection[str], named_partials: bool = True) -> Iterator[tuple[ast.Call, Called]]:
        """Calls here, in kernel code, of a function among `functions` the link finds reached as a value
        (`ACTS[name](x)`, `act(x)` bound by a partial to a table's entry: `FlowFacts.called`), which this
        module's analysis does not name: neither the function nor a partial of it bound to the name called
        (`exp_hi = functools.partial(lax.exp, ...)`, said where it is written). `named_partials` False: nor
        one bound to a name of another module and called by that name (`from ops import EXP_HI`), which
        the project index follows for JAX001-JAX003 (that module's analysis reports it, where written)."""
        called = self.analysis.facts.flow.called
        calls = {(call.lineno, call.col_offset): call for call in self.module.calls} if called else {}
        for value in called:
            call = calls.get(value.site)
            if call is None or value.function not in functions or self.module.applied(call, functions) is not None:
                continue
            func = call.func
            if isinstance(func, ast.Name) and any(isinstance(binding.value, ast.Call) and self.module.applied(
                    binding.value, functions) is not None for binding in self.module.bindings(func)):
                continue
            names = self.module.qualified_names(func) if isinstance(func, (ast.Name, ast.Attribute)) else ()
            if named_partials or not (value.partials_only and names and not any(name.startswith("jax.") for name in names)):
                yield call, value

    def report_lost_launches(self, rejecters: Backends, what: str, left_to: Backends = frozenset()) -> None:
        """A [manual] finding at each call here giving a launch (for a backend among `rejecters`, none
        of `left_to`: another rule's) a body the link cannot follow (`what`: what is then not checked in
        its kernel, and how it fails): never silent. Not where this module's analysis already takes the
        body for a function, or for a launch it cannot resolve (it notes what that launch may run),
        unless a body it may run calls code of another module, which those notes do not reach."""
        lost: list[LostLaunch] = [launch for launch in self.analysis.facts.flow.lost
                                  if launch.backends & rejecters and not launch.backends & left_to]
        if not lost:
            return
        kernels = self.kernels
        taken = {(site.lineno, site.col_offset) for site in
                 [*kernels.resolved, *(site for site, _, _ in kernels.unresolved)] if isinstance(site, ast.Call)}
        calls = {(call.lineno, call.col_offset): call for call in self.module.calls}
        for launch in lost:
            call = calls.get(launch.site)
            if call is not None and (launch.site not in taken or launch.beyond):
                through = f" through {' and '.join(launch.through)}" if launch.through else ""
                beyond = f"; it may be {', '.join(launch.beyond)}, which calls code of another module" \
                    if launch.beyond else ""
                self.report(call, Kind.MANUAL, f"{display(launch.launcher)}{through}: the analysis cannot follow the "
                            f"body this call launches ({' or '.join(launch.unknown)}{beyond}): {what}")

    def flow_origins(self, kinds: tuple[type, ...], callees: Collection[str],
                     unseen: bool = False) -> Iterator[tuple[ast.AST, OriginAnswer]]:
        """The values written in this module that the link found reaching only kernel calls of
        `callees` in the project, and read by nothing else (each the node of one of `kinds` written there), to be rewritten
        where they are written; not those on a line this rule already said something of. `unseen`: instead
        those reaching such calls in files the run does not process, whose findings there are [manual]."""
        origins = [origin for origin in self.analysis.facts.flow.origins
                   if (origin.unseen if unseen else not origin.readers)
                   and any(callee in callees for _, _, callee in (origin.unseen if unseen else origin.reaches))]
        written = {(node.lineno, node.col_offset): node for node in ast.walk(self.module.tree)
                   if isinstance(node, kinds)} if origins else {}
        reported = {finding.line for finding in self.findings}
        for origin in origins:
            node = written.get(origin.site)
            if node is not None and self.module.position(node)[0] not in reported:
                yield node, origin

    def report_unseen_kernels(self, kinds: tuple[type, ...], callees: Collection[str], value: str, rewriting: str,
                              fails: str) -> None:
        """A value written here reaching kernels' calls of `callees` in files a run over some files does not
        process (`OriginAnswer.unseen`), whose findings there are [manual]: other code reads it too, or the
        kernel may run through a launch the link does not follow (`OriginAnswer.maybe`); or a hint's member
        passed on there, whose finding drops it (`OriginAnswer.dropped`). Those findings are
        not in the run, so it says so here (`--check` on a notebook or wrapper alone fails too), never silent."""
        for node, origin in self.flow_origins(kinds, callees, unseen=True):
            kernels = [(module, site, callee) for module, site, callee in origin.unseen if callee in callees]
            shared = [kernel for kernel in kernels if kernel not in origin.maybe and kernel not in origin.dropped]
            doubted = [kernel for kernel in kernels if kernel in origin.maybe]
            dropped = [kernel for kernel in kernels if kernel in origin.dropped]
            said = []
            if shared:
                said.append(f"in a Mosaic TPU kernel at {_calls(shared)}, a file this run does not process, whose finding "
                            f"there is [manual]: {', '.join(origin.readers)} also read{'s' if len(origin.readers) == 1 else ''} "
                            f"it ({rewriting} here would change what that code reads)")
            if doubted:
                said.append(f"at {_calls(doubted)}, a file this run does not process, in code that may run in a Mosaic "
                            f"kernel launched through {' or '.join(origin.launches)}, which the analysis does not "
                            "follow: its finding there is [manual]")
            if dropped:
                said.append(f"in a Mosaic kernel that rejects it, passed on at {_calls(dropped)}, a file this run does not "
                            "process, where the finding of a run over every file drops it (run the tool on that file too)")
            self.report(node, Kind.MANUAL, f"this {value} reaches {display(kernels[0][2])} {'; and '.join(said)}"
                        + (f"; {fails}" if shared or doubted else ""))

    def flow_readers(self, written: ast.AST) -> tuple[str, ...]:
        """Who besides kernels' followed calls reads the value written at `written` (a pair literal, or
        a call whose `accuracy=` keyword the link follows to kernels: `Config(accuracy=...)`), as the
        link finds it: () if nobody, or if the link does not know it."""
        site = (written.lineno, written.col_offset)
        return tuple(reader for origin in self.analysis.facts.flow.origins if origin.site == site
                     for reader in origin.readers)

    def rejecting_backends(self, call: ast.Call, rejecters: Backends) -> Backends:
        """The backends among `rejecters` that the code at `call` may be lowered for: empty when
        the rule has nothing to do there. Outside kernels nothing rejects (XLA honours the code),
        except with --scope all, where every rejecter counts, and where a traceback proved that
        the call fails in a kernel static analysis cannot see."""
        if self.settings.scope is Scope.ALL or self.proven(call):
            return rejecters
        return self.kernels.backends_of(call) & rejecters

    def unresolved_launch(self, call: ast.Call, rejecters: Backends) -> Optional[str]:
        """Where `call` sits outside every known kernel but may run in one whose launch the analysis
        cannot resolve (for one of `rejecters`): what to say of it. Never silent: such a call that
        fails in a kernel gets a [manual] finding, and `--check` fails."""
        if self.settings.scope is Scope.ALL or self.target_kernel(call) is not None:
            return None
        kernels = self.kernels
        function = self.module.enclosing.get(call)
        while function is not None:
            found = kernels.maybe_kernels.get(function)
            if found is not None and found[2] & rejecters:
                site, reason, _ = found
                if NO_LAUNCH_FOUND in reason:  # a launch this analysis does not follow may run it
                    return f"may run in a kernel: {reason} (one this analysis does not follow, such as `importlib` or " \
                           "a table of launchers, may run it)"
                launch = reason if site is None else \
                    f"the launch on line {self.module.position(site)[0]} runs a body this analysis cannot resolve ({reason})"
                return f"may run in a kernel: {launch}, and `{getattr(function, 'name', 'lambda')}` may be it"
            function = self.module.function_parent.get(function)
        return None

    def shared_with_xla(self, call: ast.Call) -> bool:
        """A call that needs a rewrite but sits in a helper plain XLA code uses too, or is a value
        (`exp_hi = functools.partial(...)`) that plain XLA code calls too: reported once per helper or
        value, not rewritten (rewriting it would change the XLA path)."""
        if self.settings.scope is Scope.ALL:
            return False
        kernels = self.kernels
        kernel = self.target_kernel(call)
        if kernel is not None and kernel in kernels.shared:  # a def, or a lambda bound to a name
            holder = kernel
            bound = self.module.binding_of_value(kernel) if isinstance(kernel, ast.Lambda) else kernel
            name = bound.name  # type: ignore[union-attr]
        elif kernels.used_outside_kernels(call):
            holder, name = call, self.module.binding_of_value(call).name  # type: ignore[union-attr]
        else:
            return False
        uses = self._shared_uses.setdefault(holder, [])
        uses.append(call)
        if len(uses) == 1:
            self._shared_findings[holder] = len(self.findings)
            self.findings.append(Finding(self.rule.code, Kind.MANUAL, 0, 0, ""))  # filled in by _describe_shared
        self._describe_shared(holder, name)
        return True

    def _describe_shared(self, holder: ast.AST, name: str) -> None:
        uses = self._shared_uses[holder]
        line, column = self.module.position(uses[0])
        if isinstance(holder, FUNCTIONS):
            where = f"needs a rewrite for its kernel callers ({_lines(self.module, uses)})"
        else:  # a value: say where kernels and plain code call it, here or in other modules
            kernels = self.kernels
            inside = [use for use in kernels.uses_of(holder) if kernels.kernel_of(use) is not None]
            outside = [use for use in kernels.used_outside_kernels(holder) if use is not holder]
            foreign = kernels.foreign_uses.get(self.module.binding_of_value(holder))  # type: ignore[arg-type]
            where = (f"needs a rewrite for its kernel uses ({_places(self.module, inside, foreign is not None)}; "
                     f"plain XLA code: {_places(self.module, outside, foreign is not None and foreign[1])})")
        message = (f"`{name}` runs in kernels and in plain XLA code, and {where}: rewriting it would change the "
                   "XLA path too; not rewritten (give the kernel its own copy)")
        self.findings[self._shared_findings[holder]] = Finding(
            self.rule.code, Kind.MANUAL, line, column, message, *self.module.end_position(uses[0]))

    # -- planning fixes --

    def replace(self, fix: FixPlan, node: ast.AST, text: str) -> None:
        """Replace the source of `node` (its own parentheses stay) with `text`."""
        self.rewrite(fix, node, lambda _code: text)

    def rewrite(self, fix: FixPlan, node: ast.AST, change: Callable[[str], str]) -> None:
        """Replace the source of `node` with `change(source)`, edits inside it applied first."""
        start, end = self.module.span(node)
        fix.edits.append(Edit(start, end, change))

    def use_helper(self, fix: FixPlan, helper: Helper) -> str:
        return self.analysis.helpers.use(helper, fix)

    def forget_imports(self, fix: FixPlan, node: ast.AST) -> None:
        """Let the imports `node` used go once nothing else uses them.

        Relative imports stay: which module they name depends on the file's package."""
        names = [n for n in ast.walk(node) if isinstance(n, ast.Name)]
        bindings = [binding for name in names for binding in self.module.bindings(name)]
        if any(binding.is_relative_import for binding in bindings):
            return
        for binding in bindings:
            if binding.statement is not None:
                spec = import_spec(binding.statement, binding.node)  # type: ignore[arg-type]
                fix.maybe_unused_imports[spec] = binding.name

    # -- findings --

    def report(self, node: ast.AST, kind: Kind, message: str, fix: Optional[FixPlan] = None,
               applicability: Applicability = Applicability.SAFE) -> None:
        """A finding about `node`, with the fix planned for it (the engine decides whether to apply it)."""
        line, column = self.module.position(node)
        planned = None if fix is None else Fix(applicability, plan=fix)
        self.findings.append(Finding(self.rule.code, kind, line, column, message,
                                     *self.module.end_position(node), fix=planned))


def _places(module: ModuleIndex, nodes: list, elsewhere: bool) -> str:
    """`line 4`, `other modules` or `line 4 and other modules`."""
    return " and ".join([*([_lines(module, nodes)] if nodes else []), *(["other modules"] if elsewhere else [])])


def _lines(module: ModuleIndex, nodes: list) -> str:
    lines = sorted({module.position(node)[0] for node in nodes})
    return f"line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}"


def _calls(kernels: list[tuple[str, tuple[int, int], str]]) -> str:
    """Kernels' calls in other modules, as a finding names them."""
    return ", ".join(f"`{module}` line {site[0]}" for module, site, _ in kernels)
