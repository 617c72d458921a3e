"""Who may use a name: the word table of the modules' import lines, and the searches over it, each of
which is one dependency (an edit can change its answer only in the edited module)."""

from __future__ import annotations

import bisect
from typing import Callable, Optional

from codemods.analysis.project.base import ProjectBase
from codemods.analysis.project.modules import PROJECT, SEARCH, _Module, _is_jax


# The word of an import line that makes a module a start of the link outside kernel land: the module
# of `jax.experimental.rnn.lstm`, whose precision JAX003 follows across modules (a module importing only
# jax starts it where the project imports it: `_plain_starts`; else JAX003 reads its call as that module
# alone does).
PLAIN_FOLLOWED = b"rnn"


class WordIndex(ProjectBase):
    """The modules whose import lines and code say given words (see `_importers_saying`)."""

    def _importers_saying(self, words: set[bytes], names: tuple[str, ...], exclude: Optional[_Module] = None,
                          unmarked: bool = False, limit: Optional[int] = None) -> list[_Module]:
        """The modules, in the project's order, whose imports say one of `words` and whose code says
        one of `names` (and not pallas, if `unmarked`), but `exclude`; more than `limit` stops the
        search. Its answer is one dependency (SEARCH), not one per module asked: an edit can only
        change it in the edited module (`_answer_changed`), and asking thousands of modules (jax's
        own, who say `jax`) must not leave thousands of dependencies behind."""
        found: list[_Module] = []
        asked = self._asked(names)
        for candidate in self._candidates(words, names):
            if candidate is not exclude and self._meets(candidate, asked, unmarked):
                found.append(candidate)
                if limit is not None and len(found) > limit:
                    break
        self._depend(PROJECT, (SEARCH, tuple(sorted(words)), names, unmarked, tuple(m.name for m in found),
                               exclude.name if exclude else PROJECT, limit))
        return found

    def _candidates(self, words: set[bytes], names: tuple[str, ...]) -> list[_Module]:
        """The modules whose imports say one of `words`, in the project's order; where the summary
        learnt who says each of `names`, only those (and the modules it did not summarise)."""
        wanted = [name.encode() for name in names]
        importers = [self._importers_of(word) for word in words]  # the word table: kept for the next run
        if not self._named.issuperset(wanted):
            return self._in_order({name for listed in importers for name in listed})
        said = {module for word in wanted for module in self._sayers.get(word, ())}.union(self._unsummarised)
        return [module for module in self._in_order(said) if not words.isdisjoint(self._words_imported(module))]

    def _meets(self, module: _Module, asked: tuple[list[bytes], bool], unmarked: bool) -> bool:
        """What a search asks of an importer, beyond the words of its imports (`asked`: its names, `_asked`)."""
        return not (unmarked and self._marked(module)) and self._says_words(module, *asked)

    def _answer_changed(self, search: tuple, changed: set[str]) -> bool:
        """Whether a search (see `_importers_saying`) answers otherwise now: a changed module that
        now meets it was not found, or one found no longer meets it (the others did not change,
        and only a changed module's imports can change the word table). A search cut at its limit
        answered only that (its callers read nothing else): another module meeting it changes nothing."""
        _, words, names, unmarked, found, excluded, limit = search
        cut, asked, wanted = limit is not None and len(found) > limit, self._asked(names), set(words)
        for name in changed - {excluded}:
            module = self._modules[name]
            meets = bool(self._words_imported(module) & wanted) and self._meets(module, asked, unmarked)
            if meets != (name in found) and not (cut and meets):
                return True
        return False

    def _importers_of(self, word: bytes) -> list[str]:
        """The modules that import another module of the project (only they can use one) and whose
        import statements say `word`, in the project's order: who may import a module is looked
        up, not searched for."""
        if self._importing is None:
            self._importing = {}
            for module in self._modules.values():  # in order: each list comes out sorted
                for imported in self._words_imported(module):
                    self._importing.setdefault(imported, []).append(module.name)
        return self._importing.get(word, [])

    def _words_imported(self, module: _Module) -> frozenset[bytes]:
        """What the word table holds of a module: its import words if it imports the project."""
        with self._quiet():
            return self._import_words(module) if self._imports_project(module) else frozenset()

    def _index_import_words(self, module: _Module) -> None:
        """Put a changed module in a restored word table under the words its imports say now."""
        assert self._importing is not None
        words = self._words_imported(module)
        for word, names in list(self._importing.items()):
            if module.name in names and word not in words:
                names.remove(module.name)
                if not names:
                    del self._importing[word]
        position = self._order[module.name]
        for word in words:
            names = self._importing.setdefault(word, [])
            if module.name not in names:
                names.insert(bisect.bisect([self._order[name] for name in names], position), module.name)

    def _plain_starts(self) -> list[str]:
        """The modules importing `PLAIN_FOLLOWED` (JAX003's `jax.experimental.rnn`) that values may cross
        into: they import the project (the word table's), or a module of the project imports them (a
        wrapper importing only jax, whose callers in other modules pass the precision)."""
        starts = self._importers_of(PLAIN_FOLLOWED)
        return [*starts, *(name for name, module in self._modules.items()
                           if not _is_jax(name) and self._imports_plain_followed(module) and name not in starts
                           and self._importers(name))]

    def _imports_plain_followed(self, module: _Module) -> bool:
        """Whether an import statement of it says `PLAIN_FOLLOWED` (the texts first: few say `rnn`)."""
        return any(PLAIN_FOLLOWED in text for text in self._import_texts(module)) \
            and PLAIN_FOLLOWED in self._import_words(module)

    def may_start_plain_link(self, passes: Callable[[bytes], bool]) -> bool:
        """Whether a module may start the link outside kernels (see `linked`): not jax's own, it says
        `PLAIN_FOLLOWED`, its bytes pass `passes` (the following rules' byte test: a module calling
        the LSTM says `lstm`), and values may cross into it: it imports the project, or a module of
        the project imports it (a wrapper importing only jax, whose callers pass the precision). Where
        none does and no kernel-scoped rule runs, the run needs no index (runner's `project_index`)."""
        return any(not _is_jax(name) and PLAIN_FOLLOWED in (raw := self._bytes(module)) and passes(raw)
                   and (self._imports_project(module) or self._importers(name))
                   for name, module in self._modules.items())
