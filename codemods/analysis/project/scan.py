"""What a module's bytes and bare syntax tree say, without its index: its words and import lines (what
the searches look up), whether a statement may fail in a kernel, whether its code may launch, hand
on or wrap a launcher. Cheap tests first, so that most modules of a large tree are never parsed."""

from __future__ import annotations

import ast
import bisect
import re
import sys
import warnings
from array import array
from typing import Iterator, Optional

from codemods.analysis.kernel_scope import (
    Backends, KERNEL_MARKER, KernelScope, MOSAIC_TPU, defined_launchers, precision_taken, takes_refs,
)
from codemods.analysis.module import ModuleIndex, import_binding
from codemods.analysis.project.modules import FUNCTION_DEFS
from codemods.analysis.value_flow import returned_values
from codemods.capabilities import Level, PRECISION_NAMES
from codemods.engine.rule import WORD_BYTES


# Every byte that cannot be part of an identifier, as a space: a module's words are then its bytes
# split, in C (twice as fast as a regex's matches on 6,500 modules). A run of digits and letters
# that starts with a digit (`0x1f`, `3j`) is one word too, that no name can equal.
_SPACE_FOR_NON_WORD = bytes(byte if byte in WORD_BYTES else 0x20 for byte in range(256))


def _words(code: bytes) -> frozenset[bytes]:
    """The words `code` says: the names it may bind or use, and its numbers."""
    return frozenset(code.translate(_SPACE_FOR_NON_WORD).split())


def _word_hashes(code: bytes) -> array:
    """The hashes of the words `code` says, sorted: what the usage searches ask of a module (does it
    say one of these names?) answered for every name from one pass over its bytes, in a tenth of the
    memory of the words themselves (a search for each name read the bytes again: 159,000 scans of
    3,272 modules on the trees at --jobs 1)."""
    return array("q", sorted(map(hash, _words(code))))


def _may_say(hashes: array, word: bytes) -> bool:
    """Whether `word` may be one of the words hashed (`_word_hashes`): False is exact; True, almost
    always (two words may share a hash), to be checked against the words."""
    wanted = hash(word)
    at = bisect.bisect_left(hashes, wanted)
    return at < len(hashes) and hashes[at] == wanted


# An import statement's first module: None for a relative one (`from . import x`, `from .a import x`).
_FIRST_IMPORTED = re.compile(rb"[ \t]*(?:from[ \t]+(?:\.|([A-Za-z_]\w*))|import[ \t]+([A-Za-z_]\w*))")


_IMPORT_STATEMENT = rb"[ \t]*(?:from[ \t]+\S+[ \t]+import[ \t]*\([^)]*\)|(?:from|import)[ \t][^\n]*)"


# Where an import line starts: the file's start, or after a newline. The search for the latter
# starts with the newline (a literal, which the regex engine skips to) rather than `^` under
# MULTILINE (tried at every byte): half the time on 6,500 modules, the same lines.
_IMPORT_AT_START = re.compile(_IMPORT_STATEMENT)


_IMPORT_AFTER_NEWLINE = re.compile(rb"\n(" + _IMPORT_STATEMENT + rb")")


def _parsed(code: bytes) -> Optional[ast.Module]:
    """A module's parse, from its bytes as the index reads them (UTF-8); None where it does not parse."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(code.decode("utf-8"))
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeDecodeError):
        return None


# What can make code fail in a kernel: a precision or accuracy argument, arguments unpacked into a
# call, a precision where an op takes it positionally, or an LSTM (its precision may come from the
# default). Code without any of these needs no kernel context from other modules, whatever launches it.
_HINT_KEYWORDS = {"precision", "accuracy"}


_POSITIONAL_PRECISION = {"dot_general": 4, "batch_matmul": 3, "conv_general_dilated": 10, "conv": 5,
                         "conv_with_general_padding": 7, "dot": 6}  # args needed to reach it


# The ops whose unpacked arguments (`*args`, `**kwargs`) may carry a precision or an accuracy hint.
_OP_NAMES = {*_POSITIONAL_PRECISION, "matmul", "einsum", "inner", "tensordot", "vdot", "lstm", "rsqrt", "sqrt",
             "cbrt", "tanh", "logistic", "exp", "exp2", "expm1", "log", "log2", "log1p", "sin", "cos", "tan"}


# The same on bytes, before a module is parsed: a hint keyword, an LSTM, unpacked arguments, or a
# call of an op that takes a precision positionally (its argument may be a parameter a helper passes
# on: `lax.dot_general(x, w, dims, p)` says no word of precision). Unpacked arguments count first or
# later in the call, and in a partial of the op (`partial(jnp.dot, **options)`).
_OPS = b"|".join(sorted(name.encode() for name in _OP_NAMES))


_HINT = re.compile(rb"(?:precision|accuracy)\s*=\s*(?!None\b)")


# It opens with a lookahead for the first byte of an op or of `partial`, which every match starts
# with (so it changes no match): a pattern that starts with `\b` is tried at every byte of the
# module, one that starts with a class of bytes only where one of them is (a quarter less CPU on
# the 2,947 modules of the trees that unpack arguments).
_UNPACKED_FIRST = bytes(sorted({name[0] for name in (*_OPS.split(b"|"), b"partial")}))


_UNPACKED = re.compile(rb"(?=[" + _UNPACKED_FIRST + rb"])(?:\b(?:" + _OPS + rb")\s*\(|\bpartial\s*\(\s*[\w.]*\b(?:"
                       + _OPS + rb")\s*,)(?:(?:[^()]|\([^()]*\))*[(,])?\s*\*")


_UNPACKING = re.compile(rb"[(,]\s*\*")  # how every match of _UNPACKED ends: a cheap test first


# `name(?<!\wname)` is `\bname`, found twice as fast: a pattern whose every alternative starts with
# a literal lets the regex engine skip to the positions where one of their first bytes is.
_POSITIONAL_OP = re.compile(rb"(?:dot_general|conv\w*|batch_matmul|dot(?<!\wdot))\s*\(")


# A pair of Precision members (`(P.DEFAULT, P.HIGHEST)`), which a call may hand on under any name.
_LEVELS = frozenset(Level.__members__)


_MEMBER_PAIR = re.compile(rb"(?:DEFAULT(?<!\wDEFAULT)|HIGHEST(?<!\wHIGHEST)|HIGH(?<!\wHIGH))\s*,\s*[\w.]*"
                          rb"\b(?:DEFAULT|HIGHEST|HIGH)\b")


# Each pattern is searched only where a substring every match of it holds is present (`in` runs
# at memchr speed; the patterns' alternations at a fraction of it): on a tree of 6,000 modules the
# test cost 4.5 s unguarded.
_GUARDS = {
    _HINT: lambda code: b"precision" in code or b"accuracy" in code,
    _UNPACKED: lambda code: _UNPACKING.search(code) is not None,
    _POSITIONAL_OP: lambda code: b"dot" in code or b"conv" in code or b"batch_matmul" in code,
    _MEMBER_PAIR: lambda code: b"HIGH" in code or b"DEFAULT" in code,
}


def _import_lines(raw: bytes) -> list[bytes]:
    """The source of each import statement: each line that starts with one, the parenthesized names
    of `from a import (...)` included."""
    first = _IMPORT_AT_START.match(raw)
    return [first.group(), *_IMPORT_AFTER_NEWLINE.findall(raw, first.end())] if first is not None \
        else _IMPORT_AFTER_NEWLINE.findall(raw)


def _search(pattern: re.Pattern, code: bytes) -> bool:
    return _GUARDS[pattern](code) and pattern.search(code) is not None


def _may_fail_bytes(code: bytes) -> bool:
    return b"lstm" in code or _search(_HINT, code) or _search(_UNPACKED, code) \
        or _search(_POSITIONAL_OP, code) or _search(_MEMBER_PAIR, code)


def _hint_offsets(raw: bytes) -> list[int]:
    """Sorted offsets where a match of one of `_may_fail_bytes`'s patterns starts in a whole module:
    a statement none of them starts in cannot pass that test alone (its matches lie within one
    call), so one pass over the module replaces a search per statement."""
    starts = [match.start() for match in re.finditer(rb"lstm", raw)]
    for pattern, guard in _GUARDS.items():
        starts += [match.start() for match in pattern.finditer(raw)] if guard(raw) else []
    return sorted(starts)


def _reaching(tree: Optional[ast.Module], raw: bytes, starts: list[int], needy: set[str]) -> list[str]:
    """Top-level defs and values that name a needy one (`def body(...): mm(...)`, `k = body`,
    `BODIES = [body]`), transitively: launched or called from a kernel elsewhere, they bring it there.
    Only those another module may launch are asked about (values, classes, defs that take refs as
    kernel bodies do, factories); the helpers between them only carry the question. A statement's
    words (its bytes, decorators included) are read first: only one that spells a needy name is
    walked for the names it loads."""
    statements: dict[str, tuple[ast.stmt, frozenset[bytes]]] = {}
    for statement in tree.body if tree is not None else ():
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = statement.name
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            name = statement.targets[0].id
        else:
            continue
        if name not in needy:
            first = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))])
            end = starts[statement.end_lineno] if statement.end_lineno < len(starts) else len(raw)
            statements[name] = (statement, _words(raw[starts[first - 1]:end]))
    found: list[tuple[str, ast.stmt]] = []
    wanted = {name.encode() for name in needy}
    changed = True
    while changed:
        changed = False
        for name, (statement, words) in list(statements.items()):
            if words & wanted and needy & {node.id for part in _launchable_parts(statement) for node in ast.walk(part)
                                           if isinstance(node, ast.Name)}:
                needy.add(name)
                wanted.add(name.encode())
                found.append((name, statement))
                del statements[name]
                changed = True
    return [name for name, statement in found if _askable(statement)]


def _launchable_parts(statement: ast.stmt) -> list[ast.AST]:
    """What another module launches when it launches this statement's name. A class holds it in its
    attributes (`kernel = staticmethod(...)`, or set by `__init__`) and in its methods that take
    refs as kernel bodies do (`pl.pallas_call(Kernels.mm)`, `Fused(2.0).body`); its other methods
    are asked for where they are called."""
    if isinstance(statement, ast.ClassDef):
        return [s for s in statement.body if not isinstance(s, FUNCTION_DEFS) or s.name == "__init__" or takes_refs(s)]
    return [statement]


def _askable(statement: ast.stmt) -> bool:
    """Another module may launch it: a value, a class, a def that takes refs as kernel bodies do, or
    a factory (a def that returns a function it defines, a lambda or a partial). A def that only
    uses nested helpers (`gmres`) runs where it is called, as plain code or inside this module's
    kernels, and is not asked about."""
    if not isinstance(statement, FUNCTION_DEFS):
        return True
    if takes_refs(statement):
        return True
    inner = {node.name for node in ast.walk(statement) if isinstance(node, FUNCTION_DEFS) and node is not statement}
    def a_function(value: ast.expr) -> bool:
        if isinstance(value, (ast.Tuple, ast.List)):
            return any(a_function(element) for element in value.elts)
        return isinstance(value, ast.Lambda) or isinstance(value, ast.Name) and value.id in inner \
            or isinstance(value, ast.Call) and _terminal_name(value.func) == "partial"
    return any(a_function(value) for value in returned_values(statement))


def _may_fail_in_a_kernel(call: ast.Call) -> bool:
    """A call with a precision or hint that is not None, written here or passed on from the
    function's parameters (`precision=precision`, `**kwargs`): a helper that passes on its caller's
    value is as needy as code that writes one. Its callers may be in another module and hand it a
    pair without a word of precision in their own code (`ops.matmul(x, w, PAIR)`, or a body's
    `prec` that a partial binds): only this code names the op, so only here can a finding say so."""
    named = _terminal_name(call.func)
    if named == "lstm" or any(k.arg in _HINT_KEYWORDS and not _is_none(k.value) for k in call.keywords):
        return True
    if any(_is_member_pair(value) for value in (*call.args, *(k.value for k in call.keywords))):
        return True  # a pair handed on under another name (`Runner(partial(body, p=PAIR))`)
    arguments = len(call.args) - (1 if named == "partial" else 0)
    if named == "partial" and call.args:
        named = _terminal_name(call.args[0])
    if named not in _OP_NAMES:
        return False
    # `**kwargs` may carry either argument; `*args` only a precision where an op takes it positionally.
    unpacked = any(k.arg is None and not _is_none(k.value) for k in call.keywords) \
        or named in _POSITIONAL_PRECISION and any(isinstance(a, ast.Starred) and not _is_none(a.value) for a in call.args)
    positional = arguments >= _POSITIONAL_PRECISION.get(named, arguments + 1) \
        and not _is_none(call.args[_POSITIONAL_PRECISION[named] - 1 + (len(call.args) - arguments)])
    return unpacked or positional


def _imports_within(statement: ast.stmt, package: str) -> bool:
    """A relative import, or an absolute one of the package itself or of its own modules."""
    def within(name: str) -> bool:
        return name == package or name.startswith(package + ".")
    if isinstance(statement, ast.ImportFrom):
        return bool(statement.level) or within(statement.module or "")
    return isinstance(statement, ast.Import) and any(within(alias.name) for alias in statement.names)


def _terminal_name(node: ast.AST) -> str:
    """`dot` for `jnp.dot` or `dot`."""
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


# The names a launcher is called by (a pattern's alternatives).
_LAUNCHER_NAMES = rb"pallas_call|kernel|core_map|emit_pipeline\w*"


# The name a launcher is fed: `pallas_call(body,`, `pallas_call(kernel=body,`, `pallas_call(partial(body, n=1)`,
# `pallas_call(self.body,` (a runner class keeps what its `__init__` takes).
_LAUNCHED_NAME = re.compile(rb"(?:" + _LAUNCHER_NAMES + rb")\(\s*(?:(?:kernel|body|f)\s*=\s*)?"
                            rb"(?:(?:functools\s*\.\s*)?partial\s*\(\s*)?(?:self\s*\.\s*)?([A-Za-z_]\w*)\s*[,)]")


_PARTIAL_OF_A_LAUNCHER = re.compile(rb"\bpartial\s*\(\s*[\w.]*\b(?:pallas_call|kernel|emit_pipeline\w*)\s*[,)]")


def _another_name_for(names: bytes) -> bytes:
    """A pattern (MULTILINE) for a plain assignment of one of `names` (`call = tpu_call`, `call = pl.pallas_call`)."""
    return rb"=[ \t]*[\w.]*\b(?:" + names + rb")[ \t]*(?:$|#|;)"


# A launcher's name, called (`plgpu.kernel(`, `pl.core_map(`) or as a decorator (`@plgpu.kernel`).
_LAUNCHER_WORD = re.compile(rb"\b(?:" + _LAUNCHER_NAMES + rb")\b\s*[(\n]")


_LAUNCHER_LITERALS = (b"kernel", b"pallas_call", b"core_map", b"emit_pipeline")  # one is in every match


_ALIAS_OF_A_LAUNCHER = re.compile(_another_name_for(_LAUNCHER_NAMES), re.M)


def _says_a_launcher(raw: bytes) -> bool:
    """Whether `_LAUNCHER_WORD` matches: searched only where one of its literals is (`in` is five
    times faster than the pattern, which has no literal prefix: 3,600 modules ask on site-packages)."""
    return any(literal in raw for literal in _LAUNCHER_LITERALS) and _LAUNCHER_WORD.search(raw) is not None


def _launchers_in(name: str, scope: KernelScope) -> dict[str, tuple[Optional[int], str, Backends]]:
    """The launchers module `name` defines for its importers, by qualified name: its top-level
    defs, classes and decorator factories that launch (`defined_launchers`), its module-level partials."""
    return {f"{name}.{launcher}": spec for launcher, spec in {**defined_launchers(scope), **scope.partial_launchers}.items()}


def _may_hand_on(raw: bytes, launchers: set[str]) -> bool:
    """Whether the code may call one of `launchers` (`tpu_call(body`), bind a partial of one, or
    give one another name (`call = tpu_call`)."""
    names = b"|".join(re.escape(name.encode()) for name in sorted(launchers))
    return re.search(rb"\b(?:" + names + rb")\s*\(|partial\([\w. ]*\b(?:" + names + rb")\b|" + _another_name_for(names),
                     raw, re.M) is not None


def _may_define_launch_helpers(raw: bytes) -> bool:
    """A launcher fed a bare name that some def or lambda takes as a parameter (`def run(body):
    pallas_call(body`), a partial of a launcher (`tpu_call = functools.partial(pl.pallas_call, ...)`)
    or another name for one (`call = pl.pallas_call`)."""
    if KERNEL_MARKER not in raw:
        return False
    if _PARTIAL_OF_A_LAUNCHER.search(raw) or _ALIAS_OF_A_LAUNCHER.search(raw):
        return True
    for name in set(_LAUNCHED_NAME.findall(raw)):
        if re.search(rb"(?:\bdef[ \t]+\w+[ \t]*\([^)]*|\blambda\b[^:]*)\b" + re.escape(name) + rb"\b", raw):
            return True
    return False


def _holder(statement: ast.stmt) -> Optional[str]:
    """The top-level name a statement puts values in: a class, a value (`k = body`, `BODIES =
    [body]`), or a container filled after it is built (`BODIES[1] = body`, `BODIES.insert(0,
    body)`, `TABLE.update(main=body)`)."""
    if isinstance(statement, ast.ClassDef):
        return statement.name
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        while isinstance(target, ast.Subscript):
            target = target.value
        return target.id if isinstance(target, ast.Name) else None
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) \
            and isinstance(statement.value.func, ast.Attribute) and statement.value.func.attr in _FILLING \
            and isinstance(statement.value.func.value, ast.Name):
        return statement.value.func.value.id
    return None


# The methods that put values in a list, set or dict after it is built.
_FILLING = frozenset({"append", "insert", "extend", "add", "update", "setdefault"})


def _is_partial_of(call: Optional[ast.AST], node: ast.AST) -> bool:
    """`partial(node, ...)`."""
    return isinstance(call, ast.Call) and bool(call.args) and call.args[0] is node and _terminal_name(call.func) == "partial"


def _holding_expression(index: ModuleIndex, node: ast.AST) -> tuple[ast.AST, bool]:
    """The expression that holds `node`'s value, through calls of it (`ops.make()`: what it
    returns), subscripts (`ops.BODIES["a"]`) and partials of those; and whether a call was one."""
    made = False
    while True:
        above = index.parent.get(node)
        if isinstance(above, ast.Call) and above.func is node:
            node, made = above, True
        elif isinstance(above, ast.Subscript) and above.value is node or _is_partial_of(above, node):
            node = above
        else:
            return node, made


def _is_member_pair(node: ast.AST) -> bool:
    """`(P.DEFAULT, P.HIGHEST)`, `[DEFAULT, HIGH]`: two Precision members however spelled."""
    return isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) == 2 \
        and all(_last_name(element) in _LEVELS for element in node.elts)


_PRECISION_NAMED = re.compile(rb"\bprecision\s*=\s*([A-Za-z_]\w*)")


_POSITIONAL_CALL = re.compile(rb"\b(" + b"|".join(sorted(name.encode() for name in _POSITIONAL_PRECISION)) + rb")\s*\(")


_NAME = re.compile(rb"[A-Za-z_]\w*")


def _may_wrap_a_precision(raw: bytes) -> bool:
    """A precision given as a name (`precision=precision`, `precision=p`, `lax.dot_general(x, w, dims,
    p)`) that a def takes as a parameter: where a kernel may take its precision from a wrapper's."""
    names = set(_PRECISION_NAMED.findall(raw)) - {b"None"} if b"precision" in raw else set()
    names |= _positional_precision_names(raw)
    return any(re.search(rb"\bdef[ \t]+\w+[ \t]*\([^)]*\b" + re.escape(name) + rb"\b", raw) for name in names)


def _positional_precision_names(raw: bytes) -> set[bytes]:
    """The names an op that takes its precision by position is given there (`lax.dot_general(x, w,
    dims, p)`: `p`), read from its arguments' bytes (brackets balanced, strings not read)."""
    found = set()
    for match in _POSITIONAL_CALL.finditer(raw) if _POSITIONAL_OP.search(raw) else ():
        depth, start, arguments = 0, match.end(), []
        for position in range(match.end(), min(len(raw), match.end() + 2000)):
            byte = raw[position:position + 1]
            if byte in b"([{":
                depth += 1
            elif byte in b")]}" and depth:
                depth -= 1
            elif byte == b"," and not depth or byte == b")":
                arguments.append(raw[start:position].strip())
                start = position + 1
                if byte == b")":
                    break
        needed = _POSITIONAL_PRECISION[match.group(1).decode()]
        if len(arguments) >= needed and _NAME.fullmatch(arguments[needed - 1]):
            found.add(arguments[needed - 1])
    return found


def _precision_constants(tree: Optional[ast.Module]) -> list[str]:
    """The module's top-level `NAME = value` whose value may be a precision (see `_may_be_a_precision`)."""
    return [statement.targets[0].id for statement in (tree.body if tree is not None else ())
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name) and _may_be_a_precision(statement.value)]


def _may_be_a_precision(value: ast.expr) -> bool:
    """A value the rules may read as a precision and rewrite where it is written: a pair, a member
    (`P.HIGHEST`), a string (`"bfloat16"`), `Precision("highest")`."""
    if isinstance(value, (ast.Tuple, ast.List)):
        return len(value.elts) == 2 and all(isinstance(e, ast.Name) or _may_be_a_precision(e) for e in value.elts)
    if isinstance(value, ast.Call):
        return len(value.args) == 1 and not value.keywords and _may_be_a_precision(value.args[0])
    if isinstance(value, ast.Constant):
        return isinstance(value.value, str) and value.value.lower() in PRECISION_NAMES
    return isinstance(value, ast.Attribute) and value.attr in _LEVELS


def _kernel_precision(index: ModuleIndex, scope: KernelScope, mention: ast.AST) -> bool:
    """The precision of a call (`precision=<mention>`, or an op's argument at its precision's
    position) in a kernel of its module that Mosaic TPU may lower: a read that wants the same fix
    as the kernel that writes it."""
    parent = index.parent.get(mention)
    call = index.parent.get(parent) if isinstance(parent, ast.keyword) else parent
    kernel = scope.kernel_of(mention)
    return isinstance(call, ast.Call) and precision_taken(call, _POSITIONAL_PRECISION) is mention \
        and kernel is not None and MOSAIC_TPU in scope.backends.get(kernel, frozenset())


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _ref_takers(tree: ast.Module) -> list[str]:
    """The module's top-level defs that take refs as kernel bodies do (see takes_refs), in order."""
    return [statement.name for statement in tree.body
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and takes_refs(statement)]


_TRY_STAR = (ast.TryStar,) if sys.version_info >= (3, 11) else ()


def _conditional_imports(statement: ast.stmt) -> Iterator[tuple[str, str]]:
    """What the imports in a top-level `if` or `try` statement's blocks bind (see import_binding)."""
    for block in (getattr(statement, "body", []), getattr(statement, "orelse", []), getattr(statement, "finalbody", []),
                  *(handler.body for handler in getattr(statement, "handlers", []))):
        for inner in block:
            if isinstance(inner, (ast.Import, ast.ImportFrom)):
                yield from (import_binding(inner, alias) for alias in inner.names if alias.name != "*")
            elif isinstance(inner, (ast.If, ast.Try, *_TRY_STAR)):
                yield from _conditional_imports(inner)


def _dotted(node: ast.AST) -> Optional[str]:
    """`a.b.c` of a name or an attribute chain; None for any other expression."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def _last_name(node: ast.AST) -> Optional[str]:
    """`c` for `a.b.c` or `c`."""
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
