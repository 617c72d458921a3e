"""The module summaries a project state keeps (ProjectIndex.state), read only when one is asked for.

Most of a large project's state is its summaries (12 of 16 MB on kernel packages + site-packages),
and a run that links nothing (an unchanged project, a file touched, code moved) needs only their
hashes. So the state keeps each module's summary hash as plain data, and every summary's `as_data`
as one marshal blob inside it: loaded on the first summary asked for, and written again only where
a summary changed (otherwise the blob read is written back as it was).
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass, field
from typing import Mapping, Optional


@dataclass
class KeptSummaries:
    hashes: dict[str, bytes] = field(default_factory=dict)  # module name -> the hash of its summary's data
    # marshal of {module name: as_data}, for the modules of `hashes` (b"": none). Not compared: the hashes
    # say what it holds, and marshal's bytes for equal data vary (which equal strings are one object).
    blob: bytes = field(default=b"", compare=False)
    _data: Optional[dict] = field(default=None, compare=False, repr=False)

    def data(self, name: str) -> Optional[tuple]:
        """Module `name`'s summary as `as_data`, None where none is kept (or the blob does not read)."""
        if self._data is None:
            try:
                loaded = marshal.loads(self.blob) if self.blob else {}
            except (ValueError, EOFError, TypeError):
                loaded = {}
            self._data = loaded if isinstance(loaded, dict) else {}
        return self._data.get(name)

    def updated(self, hashes: dict[str, bytes], new: Mapping[str, tuple]) -> "KeptSummaries":
        """These summaries with `hashes` for the modules kept now, and `new` data for those whose
        summary is not the one kept here (the blob is made again only then)."""
        if not new and hashes.keys() <= self.hashes.keys():
            return KeptSummaries(hashes, self.blob, self._data)
        data = {name: self.data(name) for name in hashes if name not in new}
        data.update(new)
        data = {name: value for name, value in data.items() if value is not None}
        return KeptSummaries({name: hashes[name] for name in data}, marshal.dumps(data), data)
