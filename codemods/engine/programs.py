"""A run split by import root, where two files of the project share a module name.

`examples/a/utils.py` and `examples/b/utils.py` are both the module `utils`: each folder is a
script folder Python puts on `sys.path` (the script's own, pytest's rootdir insertion), and no one
process imports both. The project index keeps one module a name (the first listed), so the files
of the other folder would be linked to the first folder's `utils`: values followed into the wrong
module, or not at all. Each root that loses a name runs as a program of its own, over the whole
project listed from that root first (its own modules then win, as its scripts import them); the
rest run together, as before.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Optional, Sequence

from codemods.analysis.project.modules import module_name


def import_root(path: str, packages: set[str]) -> str:
    """The folder Python needs on `sys.path` to import `path` by its module name: the one above its
    topmost package folder (`packages`: the folders holding an `__init__.py`)."""
    folder = os.path.dirname(path)
    while folder in packages and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    return folder


def _roots(files: Sequence["Path | str"]) -> tuple[list[str], dict[str, set[str]], set[str]]:
    """Each file's import root (absolute), the module names each root holds, and the roots holding
    a name a root listed before holds already (the index, first come first named, links their
    imports elsewhere)."""
    absolute = [os.path.abspath(path) for path in files]
    packages = {os.path.dirname(path) for path in absolute if os.path.basename(path) == "__init__.py"}
    prefixes: dict[str, str] = {}
    roots = [import_root(path, packages) for path in absolute]
    names: dict[str, set[str]] = {}
    owner: dict[str, str] = {}  # module name -> the root of the file indexed under it
    shadowed: set[str] = set()
    for path, root in zip(absolute, roots):
        if not path.endswith(".py"):
            continue
        name, _ = module_name(path, packages, prefixes)
        names.setdefault(root, set()).add(name)
        if owner.setdefault(name, root) != root:
            shadowed.add(root)
    return roots, names, shadowed


def programs(paths: Sequence["Path | str"], project: Optional[Sequence["Path | str"]],
             relevant: Callable[[list], bool] = lambda files: True) -> list[tuple[list, Optional[list]]]:
    """(the files to process, the project to index them with) for each program of the run: one
    (`paths`, `project` as given) where no module name is shared across import roots. A program's
    project is its own roots' files first, then those of every other root that holds none of
    their module names (a shared library; not a sibling script folder, whose modules would import
    this program's as their own). A shadowed root none of whose files in the project is `relevant`
    (no rule's words in them: nothing there to analyse) stays with the rest."""
    listed = list(paths if project is None else project)
    roots, names, shadowed = _roots(listed)
    if not shadowed:
        return [(list(paths), None if project is None else listed)]
    root_of = dict(zip(map(os.path.abspath, listed), roots))
    by_root: dict[str, list] = {}
    for path in paths:
        root = root_of.get(os.path.abspath(path)) or _roots([path])[0][0]
        by_root.setdefault(root if root in shadowed else "", []).append(path)
    def folder(root: str) -> list:
        """The files to process in `root`, then the project's others there: a file with no rule's
        word (a `config.py` of pairs) is analysed for the kernels beside it."""
        own = set(map(os.path.abspath, by_root[root]))
        return by_root[root] + [path for path, at in zip(listed, roots) if at == root and os.path.abspath(path) not in own]

    for root in [root for root in by_root if root and not relevant(folder(root))]:
        by_root.setdefault("", []).extend(by_root.pop(root))

    def indexed(own: set[str]) -> list:
        held = set().union(*(names.get(root, set()) for root in own))
        first = [path for path, root in zip(listed, roots) if root in own]
        return first + [path for path, root in zip(listed, roots)
                        if root not in own and not names.get(root, set()) & held]

    return [(files, indexed({root} if root else set(names) - shadowed)) for root, files in by_root.items()]
