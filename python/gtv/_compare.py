"""compare: gtv-cli compare, two runs side by side."""

from __future__ import annotations

from typing import Optional

from . import _core
from ._formatted import Formatted


class Comparison(Formatted):
    """``text`` is ``gtv-cli compare A B``'s output, ``to_dict()`` its ``--format json``."""

    def __init__(self, a, b, handle) -> None:
        self.a = a
        self.b = b
        self._handle = handle


def compare(a, b, *, label_a: Optional[str] = None, label_b: Optional[str] = None) -> Comparison:
    """Compares run B with the reference run A (traces or paths). The labels default to the file names without
    trace suffixes, as gtv-cli names the columns."""
    from ._trace import load

    if not hasattr(a, "_handle"):
        a = load(a)
    if not hasattr(b, "_handle"):
        b = load(b)
    handle = _core.compare(a._handle, b._handle, label_a or a.name, label_b or b.name)
    return Comparison(a, b, handle)
