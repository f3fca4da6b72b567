"""whatif: gtv-cli whatif, a change predicted from one recording."""

from __future__ import annotations

from typing import Iterable, Union

from . import _core
from ._formatted import Formatted


class Prediction(Formatted):
    """The timed region's recorded and predicted length with a band, the predicted critical path and every
    assumption made: ``text`` is ``gtv-cli whatif``'s output, ``to_dict()`` its ``--format json``."""

    def __init__(self, trace, changes: list[str], handle) -> None:
        self._trace = trace
        self.changes = changes
        self._handle = handle

    def __repr__(self) -> str:
        return f"<gtv.Prediction {', '.join(self.changes)} on {self._trace.path}>"


def whatif(trace, changes: Union[str, Iterable[str]]) -> Prediction:
    """Predicts changes (``"streams"``, ``"pinned"``, ``"graphs"``, ``"no-sync=NAME"``, ``"balanced-ranks"``...)
    on a trace. A change the CLI would refuse raises ValueError with its message; one that does not apply to the
    trace raises gtv.GtvError."""
    from ._trace import load

    if not hasattr(trace, "_handle"):
        trace = load(trace)
    change_list = [changes] if isinstance(changes, str) else list(changes)
    return Prediction(trace, change_list, _core.whatif(trace._handle, change_list))
