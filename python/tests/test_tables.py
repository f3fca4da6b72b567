"""The report's tables through the Arrow C stream interface: row counts and values against the JSON report,
column types, nulls, and the stream protocol itself."""

from __future__ import annotations

import pyarrow as pa
import pytest

import gtv
from conftest import ALL_TRACES, RANKS, SOURCE_DIR, trace_id

I64, F64, STR, BOOL = pa.int64(), pa.float64(), pa.string(), pa.bool_()

SCHEMAS = {
    "kernels": [("name", STR), ("full_name", STR), ("count", I64), ("total_ns", I64), ("mean_ns", I64),
                ("min_ns", I64), ("max_ns", I64), ("share", F64)],
    "idle_causes": [("device", I64), ("cause", STR), ("cause_words", STR), ("detail", STR), ("total_ns", I64),
                    ("intervals", I64), ("saving_ns", I64)],
    "idle_intervals": [("device", I64), ("start_ns", I64), ("end_ns", I64), ("cause", STR), ("detail", STR)],
    "critical_path": [("start_ns", I64), ("end_ns", I64), ("kind", STR), ("lane", I64), ("event", I64),
                      ("name", STR), ("device", I64), ("cause", STR)],
    "critical_path_causes": [("key", STR), ("cause", STR), ("detail", STR), ("on_path_ns", I64),
                             ("waited_ns", I64), ("saving_ns", I64), ("replayed_ns", I64)],
    "measurements": [("name", STR), ("method", STR), ("reported_ns", I64), ("host_start_ns", I64),
                     ("host_end_ns", I64), ("by_flows", BOOL), ("gpu_activity_count", I64),
                     ("gpu_first_start_ns", I64), ("gpu_last_end_ns", I64), ("gpu_busy_ns", I64), ("truth_ns", I64),
                     ("error_ns", I64), ("relative_error", F64), ("verdict", STR)],
    "collectives": [("rank", I64), ("kind", STR), ("name", STR), ("start_ns", I64), ("end_ns", I64),
                    ("on_gpu", BOOL), ("seq", I64), ("group", STR), ("elements", I64), ("root", I64)],
    "rank_waits": [("rank", I64), ("arrived_last", I64), ("caused_ns", I64), ("waited_ns", I64),
                   ("clock_offset_ns", I64), ("clock_uncertainty_ns", I64)],
}
SCHEMAS["kernels_per_gpu"] = [("device", I64)] + SCHEMAS["kernels"]


def rows(table) -> list[dict]:
    return pa.table(table).to_pylist()


def without_nulls(row: dict) -> dict:
    return {k: v for k, v in row.items() if v is not None}


@pytest.mark.parametrize("path", ALL_TRACES, ids=trace_id)
def test_tables_match_the_json_report(path, traces_by_path):
    report = traces_by_path(path).analyze()
    d = report.to_dict()
    assert set(report.TABLES) == set(SCHEMAS)
    for name, columns in SCHEMAS.items():
        table = pa.table(report.table(name))
        assert table.schema == pa.schema([pa.field(n, t, nullable=True) for n, t in columns]), name
        assert table.num_rows == report.table(name).num_rows == len(report.table(name))

    # The JSON report rounds shares to 3 decimals and lists at most 1,000 rows; the tables hold every row exactly.
    def same_kernels(table, listed):
        assert table.num_rows == len(listed)
        for row, j in zip(table.to_pylist(), listed):
            assert {k: row[k] for k in j if k != "share"} == {k: v for k, v in j.items() if k != "share"}
            assert row["share"] == pytest.approx(j["share"], abs=5e-4)

    same_kernels(pa.table(report.kernels), d["kernels"]["all"])
    same_kernels(pa.table(report.kernels_per_gpu), d["kernels"]["per_device"])
    assert sum(r["count"] for r in rows(report.kernels)) == d["kernels"]["kernel_count"]

    # saving_ns -1 ("no removal") in JSON is null in the table.
    assert [{**r, "saving_ns": -1 if r["saving_ns"] is None else r["saving_ns"]}
            for r in rows(report.idle_causes)] == [{**c, "cause_words": r["cause_words"]}
                                                   for c, r in zip(d["idle_causes"], rows(report.idle_causes))]
    assert len(rows(report.idle_causes)) == len(d["idle_causes"])
    intervals = rows(report.idle_intervals)  # the JSON lists the first ones and counts them all
    assert intervals[: len(d["idle"]["intervals"])] == d["idle"]["intervals"]
    assert len(intervals) == d["idle"]["interval_count"]
    for gpu in d["idle"]["gpus"]:  # the intervals of a GPU tile its idle time
        assert sum(v["end_ns"] - v["start_ns"] for v in intervals if v["device"] == gpu["device"]) == gpu["idle_ns"]

    path_json = d["critical_path"]
    segments = [without_nulls({k: v for k, v in r.items() if k != "name"}) for r in rows(report.critical_path)]
    assert segments == path_json["segments"]
    # replayed_ns -1 ("not capped") in JSON is null in the table.
    assert [{**r, "replayed_ns": -1 if r["replayed_ns"] is None else r["replayed_ns"]}
            for r in rows(report.critical_path_causes)] == path_json["causes"]
    if segments:  # the segments tile the region
        assert segments[0]["start_ns"] == path_json["region_start_ns"]
        assert segments[-1]["end_ns"] == path_json["region_end_ns"]
        assert all(a["end_ns"] == b["start_ns"] for a, b in zip(segments, segments[1:]))

    measured = rows(report.measurements)
    assert len(measured) == len(d["timing"]["measurements"])
    for row, j in zip(measured, d["timing"]["measurements"]):
        picked = {k: row[k] for k in j if k != "relative_error"}
        assert picked == {k: v for k, v in j.items() if k != "relative_error"}
        assert row["relative_error"] == pytest.approx(j["relative_error"], abs=5e-5)
        if row["gpu_activity_count"]:
            assert row["host_start_ns"] <= row["gpu_last_end_ns"] and row["gpu_first_start_ns"] <= row["gpu_last_end_ns"]
        else:
            assert row["gpu_first_start_ns"] is None and row["gpu_last_end_ns"] is None

    # Single-rank recordings: no rank table; collectives are the trace's NCCL kernels, else its Gloo ranges.
    assert report.rank_waits.num_rows == 0
    collectives = rows(report.collectives)
    nccl_kernels = sum(r["count"] for r in rows(report.kernels) if "nccl" in r["full_name"].lower())
    if nccl_kernels:
        assert len(collectives) == nccl_kernels
        assert all(c["on_gpu"] and "nccl" in c["name"].lower() for c in collectives)
    else:
        assert all(not c["on_gpu"] and c["name"].startswith("gloo:") for c in collectives)
    assert all(c["end_ns"] >= c["start_ns"] for c in collectives)
    assert [c["start_ns"] for c in collectives] == sorted(c["start_ns"] for c in collectives)


def test_collectives_of_one_rank(traces_by_path):
    report = traces_by_path(RANKS[1]).analyze()
    table = pa.table(report.collectives)
    assert table.num_rows == 3  # the three all-reduces of the recorded steps
    assert set(table.column("kind").to_pylist()) == {"AllReduce"}
    assert set(table.column("rank").to_pylist()) == {1}  # the file's distributedInfo


def test_merged_ranks_tables(traces_by_path):
    with pytest.warns(UserWarning):
        trace = gtv.load(RANKS)
    report = trace.analyze()
    d = report.to_dict()
    assert rows(report.rank_waits) == d["stragglers"]["ranks"]
    collectives = rows(report.collectives)
    # Gloo: the all-reduce ranges on each rank's host, one per matched all-reduce on each rank.
    matched = d["stragglers"]["collectives"]
    assert len(collectives) == 2 * len(matched) > 0
    assert [c["rank"] for c in collectives] == [0] * len(matched) + [1] * len(matched)
    assert all(not c["on_gpu"] and c["kind"] == "AllReduce" for c in collectives)
    rank1_arrivals = [c["start_ns"] for c in collectives if c["rank"] == 1]
    assert rank1_arrivals == [m["arrival_ns"][1] for m in matched]


def test_arrow_stream_protocol(traces_by_path):
    report = traces_by_path(SOURCE_DIR / "resources/traces/h200x1/streams.json.gz").analyze()
    table = report.critical_path
    reader = pa.RecordBatchReader.from_stream(table)
    batches = list(reader)
    assert len(batches) == 1 and batches[0].num_rows == table.num_rows > 0
    assert reader.schema == pa.schema(pa.table(table).schema)
    # The schema capsule alone, and a table read twice (each stream is independent).
    assert pa.schema(table) == reader.schema
    assert pa.table(table).equals(pa.table(table))
    # Nulls: critical-path segments without a device (host work) are null, not -1.
    devices = pa.table(table).column("device")
    assert devices.null_count > 0 and -1 not in devices.to_pylist()
    # An empty table still carries its schema.
    empty = pa.table(report.rank_waits)
    assert empty.num_rows == 0 and empty.schema.names == report.rank_waits.column_names


def test_to_pandas(traces_by_path):
    pd = pytest.importorskip("pandas")
    report = traces_by_path(SOURCE_DIR / "resources/traces/h200x1/sequential.json.gz").analyze()
    frame = report.kernels.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == report.kernels.column_names
    assert len(frame) == report.kernels.num_rows > 0
    assert frame["total_ns"].dtype == "int64" and frame["share"].dtype == "float64"
    assert frame["total_ns"].tolist() == sorted(frame["total_ns"].tolist(), reverse=True)
    assert report.get_gpu_kernel_breakdown().equals(frame)
    assert report.get_idle_time_breakdown().shape[0] == report.idle_causes.num_rows


def test_unknown_table_names_the_known_ones(traces_by_path):
    report = traces_by_path(SOURCE_DIR / "resources/traces/h200x1/sequential.json.gz").analyze()
    with pytest.raises(ValueError, match="no table 'gpus' \\(known: kernels, kernels_per_gpu"):
        report.table("gpus")
