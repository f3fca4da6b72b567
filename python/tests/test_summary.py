"""gtv.summarize and gtv.reduce: the .gtvsum bytes and the cross-rank report of gtv-cli summarize and reduce."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import pytest

import gtv
from conftest import RANKS
from rank_files import write_run


def cli_summaries(cli, paths, folder):
    out = []
    for i, p in enumerate(paths):
        s = folder / f"cli{i}.gtvsum"
        cli.out("summarize", p, "-o", s)
        out.append(s)
    return out


def test_summary_bytes_are_the_cli_file(cli, tmp_path):
    for path, cli_file in zip(RANKS, cli_summaries(cli, RANKS, tmp_path)):
        s = gtv.summarize(path)
        assert s.bytes() == cli_file.read_bytes()
        assert s.ranks == [int(path.name[-len("0.json.gz")])] and s.world_sizes == [2]
        assert s.sources == [str(path)] and s.collective_count == 3
        assert s.to_dict() == gtv.Summary.read(cli_file).to_dict()
        s.save(tmp_path / "saved.gtvsum")
        assert (tmp_path / "saved.gtvsum").read_bytes() == cli_file.read_bytes()
        assert pickle.loads(pickle.dumps(s)).bytes() == s.bytes()


def test_reduce_is_the_cli_report(cli, tmp_path):
    paths = write_run(tmp_path, ranks=4, steps=6, straggler=2)
    files = cli_summaries(cli, paths, tmp_path)
    summaries = [gtv.summarize(p) for p in paths]
    for given in (summaries, files, [s.bytes() for s in summaries]):
        report = gtv.reduce(given)
        assert report.text == cli.out("reduce", *files)
        assert report.to_dict() == cli.json("reduce", *files, "--format", "json")
    waits = report.rank_waits.to_pylist()
    assert [w["rank"] for w in waits] == [0, 1, 2, 3]
    assert [w["arrived_last"] for w in waits] == [0, 0, 6, 0]  # the planted straggler, at every all-reduce
    assert gtv.reduce(summaries, clock="collectives").text == cli.out("reduce", "--clock", "collectives", *files)


def test_errors_are_the_cli_lines(cli, tmp_path):
    bad = tmp_path / "cut.gtvsum"
    bad.write_bytes(gtv.summarize(RANKS[0]).bytes()[:100])
    with pytest.raises(gtv.GtvError) as e:
        gtv.reduce([bad])
    assert "gtv-cli: " + str(e.value) + "\n" == cli.run("reduce", bad).stderr
    missing = tmp_path / "missing.json"
    with pytest.raises(gtv.GtvError) as e:
        gtv.summarize(missing)
    assert "gtv-cli: " + str(e.value) + "\n" == cli.run("summarize", missing, "-o", tmp_path / "x.gtvsum").stderr
    twice = gtv.summarize(RANKS[0])
    with pytest.raises(gtv.GtvError) as e:
        gtv.reduce([twice, twice])
    assert "rank" in str(e.value)


def test_the_gil_is_released_while_a_rank_is_summarized(tmp_path):
    """As test_report's check for load: a thread summarizes a rank read from a named pipe that this thread fills,
    which finishes only if the summary lets Python run meanwhile (a child process, so a hang is killed)."""
    fifo = tmp_path / "rank.json.gz"
    os.mkfifo(fifo)
    script = f"""
import threading, gtv
made = []
reader = threading.Thread(target=lambda: made.append(gtv.summarize({str(fifo)!r})))
reader.start()
with open({str(fifo)!r}, "wb") as pipe:
    pipe.write(open({str(RANKS[1])!r}, "rb").read())
reader.join()
print(made[0].collective_count, made[0].ranks[0])
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["3", "1"]
