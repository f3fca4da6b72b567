"""The text, Markdown and JSON forms every result of the core writes, read from its handle's format()."""

from __future__ import annotations

import json
from functools import cached_property


class Formatted:
    """``text`` is the CLI's text output, ``to_markdown()`` and ``to_json()`` its other formats, ``to_dict()``
    the JSON parsed; subclasses set ``self._handle``, whose ``format(name)`` writes each form."""

    _handle: object

    @cached_property
    def text(self) -> str:
        return self._handle.format("text")

    def to_markdown(self) -> str:
        return self._handle.format("markdown")

    def to_json(self) -> str:
        return self._handle.format("json")

    def to_dict(self) -> dict:
        return json.loads(self.to_json())

    def __str__(self) -> str:
        return self.text
