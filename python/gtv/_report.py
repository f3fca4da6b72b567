"""Report: gtv-cli analyze's report, as text, as a dictionary and as tables."""

from __future__ import annotations

import json
from functools import cached_property

from . import _core
from ._table import Table


class Report:
    """The analysis of one trace: ``text`` is ``gtv-cli analyze``'s output, ``to_dict()`` its ``--format json``
    (lists of at most 1,000 rows), and each table holds every row."""

    #: The tables, each an attribute of the same name.
    TABLES = tuple(_core.table_names())

    def __init__(self, trace, handle) -> None:
        self._trace = trace
        self._handle = handle
        self._tables: dict[str, Table] = {}

    @property
    def trace(self):
        return self._trace

    @cached_property
    def text(self) -> str:
        return self._handle.format("text", False)

    def to_text(self, all: bool = False) -> str:
        """The text; all=True lists every row of every table (``--all``)."""
        return self._handle.format("text", all)

    def to_markdown(self, all: bool = False) -> str:
        return self._handle.format("markdown", all)

    def to_json(self) -> str:
        return self._handle.format("json", False)

    def to_dict(self) -> dict:
        return json.loads(self.to_json())

    @property
    def verdict(self) -> list[str]:
        """The headline sentences, most important first."""
        return self.to_dict()["verdict"]

    def table(self, name: str) -> Table:
        if name not in self._tables:
            self._tables[name] = Table(name, self._handle.table(name))
        return self._tables[name]

    @property
    def kernels(self) -> Table:
        """One row per kernel over all GPUs, by total time (HTA's get_gpu_kernel_breakdown)."""
        return self.table("kernels")

    @property
    def kernels_per_gpu(self) -> Table:
        return self.table("kernels_per_gpu")

    @property
    def idle_causes(self) -> Table:
        """Idle time of each GPU inside the region by cause, with the saving of removing it (null: no removal)."""
        return self.table("idle_causes")

    @property
    def idle_intervals(self) -> Table:
        return self.table("idle_intervals")

    @property
    def critical_path(self) -> Table:
        """The region's critical path, segment by segment, tiling the region."""
        return self.table("critical_path")

    @property
    def critical_path_causes(self) -> Table:
        """Each cause on the path, checked by removing it and replaying: saving_ns."""
        return self.table("critical_path_causes")

    @property
    def measurements(self) -> Table:
        """Each recorded measurement against its truth (host interval extended to the end of its GPU work)."""
        return self.table("measurements")

    @property
    def collectives(self) -> Table:
        """Every NCCL collective (or Gloo range) of every rank."""
        return self.table("collectives")

    @property
    def rank_waits(self) -> Table:
        """A merged run: how long each rank made the others wait at collectives, and waited itself."""
        return self.table("rank_waits")

    # HolisticTraceAnalysis's names for the same tables, as pandas DataFrames.
    def get_gpu_kernel_breakdown(self):
        return self.kernels.to_pandas()

    def get_idle_time_breakdown(self):
        return self.idle_causes.to_pandas()

    def critical_path_analysis(self):
        return self.critical_path.to_pandas()

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<gtv.Report of {self._trace.path}>"
