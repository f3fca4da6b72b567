"""Trace: a loaded recording, like Perfetto's TraceProcessor(trace=path) or HTA's TraceAnalysis(trace_dir=...)."""

from __future__ import annotations

import json
import os
import warnings
from functools import cached_property
from typing import Iterable, Union

from . import _core

PathLike = Union[str, os.PathLike]


class Trace:
    """A recording loaded by gtv's reader: a Chrome/Kineto JSON trace or an Nsight Systems SQLite export (plain or
    gzip, told apart by content), or the ranks of one run merged as ``gtv-cli merge`` does."""

    def __init__(self, handle) -> None:
        self._handle = handle

    @property
    def path(self) -> str:
        """The file; for a run merged from ranks, the first rank's (``paths`` lists them all)."""
        return self._handle.paths[0]

    @property
    def paths(self) -> list[str]:
        return list(self._handle.paths)

    @property
    def name(self) -> str:
        """The file name without directories and trace suffixes: how gtv-cli compare labels the run."""
        return _core.trace_stem(self.path)

    @property
    def format(self) -> str:
        """'json' (Chrome/Kineto trace events) or 'sqlite' (Nsight Systems export); 'mixed' for merged ranks of
        both."""
        return self._handle.format

    @property
    def compressed(self) -> bool:
        return self._handle.gzip

    @property
    def warnings(self) -> list[str]:
        """What the reader or the rank merge warned about (gtv-cli prints these on stderr)."""
        return list(self._handle.warnings)

    def info(self) -> dict:
        """``gtv-cli info --json``: source, span, processes and threads, GPUs and streams, counts."""
        return json.loads(self._handle.info("json", True))

    def info_text(self, all: bool = False) -> str:
        """``gtv-cli info`` (``--all`` with all=True)."""
        return self._handle.info("text", all)

    @cached_property
    def _info(self) -> dict:
        return self.info()

    @property
    def start_ns(self) -> int:
        return self._info["start_ns"]

    @property
    def end_ns(self) -> int:
        return self._info["end_ns"]

    @property
    def duration_ns(self) -> int:
        return self._info["duration_ns"]

    @property
    def span_ns(self) -> tuple[int, int]:
        """(start_ns, end_ns) on the trace's clock."""
        return (self.start_ns, self.end_ns)

    @property
    def gpus(self) -> list[dict]:
        """One entry per GPU: index, label, name, kernel_count, kernel_ns, busy_ns and its streams."""
        return self._info["gpus"]

    @property
    def processes(self) -> list[dict]:
        return self._info["processes"]

    @property
    def counts(self) -> dict:
        """Events, flows, ranges and measurements, and events per category."""
        i = self._info
        return {
            "events": i["event_count"],
            "flows": i["flow_count"],
            "ranges": i["range_count"],
            "measurements": i["measurement_count"],
            "categories": dict(i["categories"]),
        }

    def analyze(self):
        """The report of ``gtv-cli analyze``, computed once (later calls return it again)."""
        from ._report import Report

        return Report(self, _core.analyze(self._handle))

    def __repr__(self) -> str:
        return f"<gtv.Trace {self.path} ({self.format}{', gzip' if self.compressed else ''})>"


def load(path: Union[PathLike, Iterable[PathLike]], *, clock: str = "wall") -> Trace:
    """Reads a trace. Several paths are the ranks of one run, merged (clock: 'wall', each file's own timestamps,
    or 'collectives', aligned on matched NCCL collectives). Raises gtv.GtvError with gtv-cli's one-line message
    when a file cannot be read."""
    if isinstance(path, (str, os.PathLike)):
        paths = [os.fspath(path)]
    else:
        paths = [os.fspath(p) for p in path]
    handle = _core.load(paths, clock)
    for w in handle.warnings:
        warnings.warn(w, stacklevel=2)
    return Trace(handle)
