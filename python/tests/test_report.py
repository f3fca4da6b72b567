"""Trace and Report against gtv-cli info and analyze on every bundled recording."""

from __future__ import annotations

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
    merged = cli.run("analyze", *RANKS)
    assert merged.returncode == 0
    assert trace.analyze().text == merged.stdout
    # gtv-cli prints the merge's warnings on stderr; the package gives the same lines as Python warnings.
    assert [f"gtv-cli: warning: {w}" for w in trace.warnings] == merged.stderr.splitlines()
    with pytest.warns(UserWarning):
        aligned = gtv.load(RANKS, clock="collectives")
    assert aligned.analyze().to_dict() == cli.json("analyze", *RANKS, "--clock", "collectives", "--format", "json")
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
