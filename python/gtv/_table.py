"""Table: one table of a report, readable by any Arrow implementation (the Arrow PyCapsule interface)."""

from __future__ import annotations


class Table:
    """Columns of one report table. ``pyarrow.table(t)``, ``polars.from_arrow(t)`` and DuckDB read it through
    ``__arrow_c_stream__``; ``to_arrow()`` and ``to_pandas()`` need pyarrow. Times are nanoseconds on the
    trace's clock, as in the JSON report; a missing value (no device, no sequence number) is null."""

    def __init__(self, name: str, handle) -> None:
        self._name = name
        self._handle = handle

    @property
    def name(self) -> str:
        return self._name

    @property
    def num_rows(self) -> int:
        return self._handle.num_rows

    @property
    def column_names(self) -> list[str]:
        return list(self._handle.column_names)

    def __len__(self) -> int:
        return self.num_rows

    def __repr__(self) -> str:
        return f"<gtv.Table {self._name}: {self.num_rows} rows, columns {', '.join(self.column_names)}>"

    def __arrow_c_stream__(self, requested_schema=None):
        return self._handle.__arrow_c_stream__(requested_schema)

    def __arrow_c_schema__(self):
        return self._handle.__arrow_c_schema__()

    def to_arrow(self):
        """A pyarrow.Table (needs pyarrow >= 14)."""
        import pyarrow

        return pyarrow.table(self)

    def to_pandas(self):
        """A pandas.DataFrame, through pyarrow."""
        return self.to_arrow().to_pandas()

    def to_pylist(self) -> list[dict]:
        """The rows as dictionaries (needs pyarrow)."""
        return self.to_arrow().to_pylist()
