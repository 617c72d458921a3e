from typing import Any, NamedTuple


class DotOptions(NamedTuple):
    precision: Any = None
    preferred_element_type: Any = None


PLAIN = DotOptions()
