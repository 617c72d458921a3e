"""The module summaries a project state keeps (ProjectIndex.state), read only when one is asked for.

Most of a large project's state is its summaries (13 of 19.7 MB on kernel packages + site-packages),
and a run that links nothing (an unchanged project, a file touched, code moved) needs only their
hashes. So the state keeps each module's summary hash as plain data, and every summary's `as_data`
as one marshal blob in a file of its own beside it (the result cache's `.summaries` entry, `path`):
read on the first summary asked for, and written only where a summary changed (otherwise the state
names the file it was read from, and neither reads nor writes it again).
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass, field
from typing import Mapping, Optional


@dataclass
class KeptSummaries:
    hashes: dict[str, bytes] = field(default_factory=dict)  # module name -> the hash of its summary's data
    # marshal of {module name: as_data}, for the modules of `hashes` (b"": none, or not read from `path`).
    # Not compared: the hashes say what it holds, and marshal's bytes for equal data vary (which equal
    # strings are one object).
    blob: bytes = field(default=b"", compare=False)
    # The file that holds the blob (the one it was read from), where `blob` is empty; None: `blob` is
    # all there is (made this run: not written yet).
    path: Optional[str] = field(default=None, compare=False)
    _data: Optional[dict] = field(default=None, compare=False, repr=False)

    def data(self, name: str) -> Optional[tuple]:
        """Module `name`'s summary as `as_data`, None where none is kept (or the blob does not read:
        the summary is made again)."""
        if self._data is None:
            try:
                blob = self.blob
                if not blob and self.path is not None:
                    with open(self.path, "rb") as kept:
                        blob = kept.read()
                loaded = marshal.loads(blob) if blob else {}
            except (OSError, ValueError, EOFError, TypeError):
                loaded = {}
            self._data = loaded if isinstance(loaded, dict) else {}
        return self._data.get(name)

    def updated(self, hashes: dict[str, bytes], new: Mapping[str, tuple]) -> "KeptSummaries":
        """These summaries with `hashes` for the modules kept now, and `new` data for those whose
        summary is not the one kept here (the blob is made again only then)."""
        if not new and hashes.keys() <= self.hashes.keys():
            return KeptSummaries(hashes, self.blob, self.path, self._data)
        data = {name: self.data(name) for name in hashes if name not in new}
        data.update(new)
        data = {name: value for name, value in data.items() if value is not None}
        return KeptSummaries({name: hashes[name] for name in data}, marshal.dumps(data), None, data)
