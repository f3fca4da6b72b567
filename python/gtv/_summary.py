"""Summary and RankReport: `gtv-cli summarize` and `gtv-cli reduce` from Python."""

from __future__ import annotations

import json
import os
from typing import Iterable, Union

from . import _core
from ._table import Table

PathLike = Union[str, os.PathLike]


class Summary:
    """What the cross-rank analysis needs from the ranks of one trace file (a rank's own file: one rank; a merged
    run: every rank). ``bytes()`` is the .gtvsum file `gtv-cli summarize` writes, byte for byte; it pickles as
    those bytes, so a Dask worker can send it back."""

    def __init__(self, handle, name: str = "") -> None:
        self._handle = handle
        self._name = name

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "<bytes>") -> "Summary":
        """Reads .gtvsum bytes; errors (gtv.GtvError) name `name`."""
        return cls(_core.summary_from_bytes(bytes(data), name), name)

    @classmethod
    def read(cls, path: PathLike) -> "Summary":
        """Reads a .gtvsum file."""
        path = os.fspath(path)
        return cls(_core.read_summary(path), path)

    @property
    def ranks(self) -> list[int]:
        """The ranks it holds (-1: the file does not say its rank)."""
        return list(self._handle.ranks)

    @property
    def world_sizes(self) -> list[int]:
        """Each rank's world size as its file says it (0: it does not say)."""
        return list(self._handle.world_sizes)

    @property
    def start_unix_ns(self) -> list[int]:
        """Each rank's first recorded activity on its host's wall clock (ns since the Unix epoch)."""
        return list(self._handle.start_unix_ns)

    @property
    def sources(self) -> list[str]:
        """The trace file each rank's summary was made from."""
        return list(self._handle.sources)

    @property
    def collective_count(self) -> int:
        return self._handle.collective_count

    def bytes(self) -> bytes:
        return self._handle.bytes()

    def save(self, path: PathLike) -> None:
        """Writes the .gtvsum file (gzip-compressed JSON, docs/summary-format.md)."""
        self._handle.save(os.fspath(path))

    def to_dict(self) -> dict:
        """The summary's JSON document, uncompressed."""
        return json.loads(self._handle.json())

    def __reduce__(self):
        return (Summary.from_bytes, (self.bytes(), self._name or "<pickled summary>"))

    def __repr__(self) -> str:
        return f"<gtv.Summary ranks {self.ranks}: {self.collective_count} collectives, from {', '.join(self.sources)}>"


class RankReport:
    """The cross-rank report of a run from its summaries: ``text`` is ``gtv-cli reduce``'s output, ``to_dict()``
    its ``--format json``, ``rank_waits`` a table (Arrow C stream) of each rank's waits and clock offset;
    ``warnings`` are the lines gtv-cli reduce prints on stderr; ``failed`` names the rank files that could not be
    summarized (gtv.ranks.analyze) with their errors."""

    def __init__(self, handle, failed: dict[str, str] | None = None) -> None:
        self._handle = handle
        self.failed: dict[str, str] = dict(failed or {})

    @property
    def text(self) -> str:
        return self._handle.format("text", False)

    def to_text(self, all: bool = False) -> str:
        return self._handle.format("text", all)

    def to_markdown(self, all: bool = False) -> str:
        return self._handle.format("markdown", all)

    def to_json(self) -> str:
        return self._handle.format("json", False)

    def to_dict(self) -> dict:
        return json.loads(self.to_json())

    @property
    def warnings(self) -> list[str]:
        return list(self._handle.warnings)

    @property
    def rank_waits(self) -> Table:
        """One row per rank: collectives it arrived last at, the others' wait at those, its own wait, its clock
        offset against the first rank and that offset's uncertainty (null: none measures it)."""
        return Table("rank_waits", self._handle.rank_waits())

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<gtv.RankReport: {len(self.rank_waits)} ranks>"


def summarize(path: PathLike) -> Summary:
    """``gtv-cli summarize PATH``: the summary of the ranks a trace file holds. Raises gtv.GtvError with gtv-cli's
    one-line message when the file cannot be read. The GIL is released while the file is read."""
    path = os.fspath(path)
    return Summary(_core.summarize(path), path)


def _as_summary(s) -> Summary:
    if isinstance(s, Summary):
        return s
    if isinstance(s, (bytes, bytearray, memoryview)):
        return Summary.from_bytes(bytes(s))
    return Summary.read(s)


def reduce(summaries: Iterable, *, clock: str = "wall") -> RankReport:
    """``gtv-cli reduce``: the cross-rank report from Summary objects, .gtvsum paths or .gtvsum bytes (clock:
    'wall' or 'collectives', as --clock). Raises gtv.GtvError with gtv-cli's message when they are not one run."""
    parts = [_as_summary(s) for s in summaries]
    return RankReport(_core.reduce([p._handle for p in parts], clock))
