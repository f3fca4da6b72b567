"""Trace and Report against gtv-cli info and analyze on every bundled recording."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

import gtv
from conftest import ALL_TRACES, RANKS, trace_id


@pytest.mark.parametrize("path", ALL_TRACES, ids=trace_id)
def test_analyze_equals_cli(path, cli, traces_by_path):
    report = traces_by_path(path).analyze()
    assert report.text == cli.out("analyze", path)
    assert report.to_text(all=True) == cli.out("analyze", path, "--all")
    assert report.to_markdown() == cli.out("analyze", path, "--format", "markdown")
    assert report.to_dict() == cli.json("analyze", path, "--format", "json")
    assert report.verdict == report.to_dict()["verdict"] and report.verdict


@pytest.mark.parametrize("path", ALL_TRACES, ids=trace_id)
def test_info_equals_cli(path, cli, traces_by_path):
    trace = traces_by_path(path)
    info = cli.json("info", path, "--json")
    assert trace.info() == info
    assert trace.info_text() == cli.out("info", path)
    assert trace.info_text(all=True) == cli.out("info", path, "--all")
    assert trace.span_ns == (info["start_ns"], info["end_ns"])
    assert trace.duration_ns == info["end_ns"] - info["start_ns"] > 0
    assert trace.gpus == info["gpus"] and trace.gpus
    assert trace.counts["events"] == info["event_count"] == sum(trace.counts["categories"].values())
    assert trace.format == ("sqlite" if path.suffix == ".sqlite" else "json")
    assert trace.compressed == (path.suffix == ".gz")
    assert trace.path == str(path) and trace.name == trace_id(path)


def test_ranks_merge_like_cli(cli):
    with pytest.warns(UserWarning, match="ranks name the same GPU ids"):
        trace = gtv.load(RANKS)
    merged = cli.run("analyze", "--merged", *RANKS)
    assert merged.returncode == 0
    assert trace.analyze().text == merged.stdout
    # gtv-cli prints the merge's warnings on stderr; the package gives the same lines as Python warnings.
    assert [f"gtv-cli: warning: {w}" for w in trace.warnings] == merged.stderr.splitlines()
    with pytest.warns(UserWarning):
        aligned = gtv.load(RANKS, clock="collectives")
    merged_json = cli.json("analyze", "--merged", *RANKS, "--clock", "collectives", "--format", "json")
    assert aligned.analyze().to_dict() == merged_json
    run = aligned.info()["run"]
    assert [r["rank"] for r in run["ranks"]] == [0, 1] and run["clock"]["method"] == "collectives"
    assert run["ranks"][1]["clock_offset_ns"] != 0 == trace.info()["run"]["ranks"][1]["clock_offset_ns"]


def test_report_is_computed_once_and_shared_by_threads(cli):
    """Several threads analysing one trace at once (the GIL released) get the one report, equal to the CLI's."""
    path = ALL_TRACES[0]
    trace = gtv.load(path)
    texts: list[str] = []

    def work():
        texts.append(trace.analyze().text)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert texts == [cli.out("analyze", path)] * 4


def test_the_gil_is_released_while_the_core_reads(tmp_path):
    """A thread loads a trace from a named pipe while this thread writes the trace into it: the load can only
    finish if it lets Python run meanwhile. Run in a child process, so a held GIL shows as a hang that is killed
    (the timeout guards against the hang; it is no speed limit)."""
    path = ALL_TRACES[0].parent / "sequential.json.gz"
    fifo = tmp_path / "pipe.json.gz"
    os.mkfifo(fifo)
    script = f"""
import threading, gtv
loaded = []
reader = threading.Thread(target=lambda: loaded.append(gtv.load({str(fifo)!r})))
reader.start()
with open({str(fifo)!r}, "wb") as pipe:
    pipe.write(open({str(path)!r}, "rb").read())
reader.join()
print(loaded[0].counts["events"])
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == gtv.load(path).counts["events"] > 0
