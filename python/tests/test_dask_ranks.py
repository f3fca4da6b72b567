"""gtv.ranks.analyze on a LocalCluster of 2 worker processes: the report equals gtv-cli reduce of the same
summaries, bad ranks are named and the rest reduce, a worker killed mid-run changes nothing."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import gtv
from conftest import RANKS
from rank_files import BASE_NS, write_run

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return write_run(tmp_path_factory.mktemp("run"), ranks=6, steps=8, straggler=4)


def cli_reduce(cli, paths, folder, *options):
    files = []
    for i, p in enumerate(paths):
        files.append(folder / f"cli{i}.gtvsum")
        cli.out("summarize", p, "-o", files[-1])
    return cli.out("reduce", *options, *files)


def test_bundled_ranks_equal_the_cli(cli, client, tmp_path):
    seen = []
    report = gtv.ranks.analyze([str(p) for p in RANKS], client,
                               progress=lambda done, total, path, error: seen.append((done, total, path, error)))
    assert report.text == cli_reduce(cli, RANKS, tmp_path)
    assert report.failed == {}
    assert [s[0] for s in seen] == [1, 2] and {s[1] for s in seen} == {2}  # one call per rank as it finishes
    assert sorted(s[2] for s in seen) == sorted(map(str, RANKS)) and {s[3] for s in seen} == {None}


def test_generated_run_from_a_glob(cli, client, run, tmp_path):
    report = gtv.ranks.analyze(str(run[0].parent / "rank*.json.gz"), client, progress=None)
    assert report.text == cli_reduce(cli, run, tmp_path)
    assert report.to_dict() == gtv.reduce([gtv.summarize(p) for p in run]).to_dict()
    assert [w["arrived_last"] for w in report.rank_waits.to_pylist()] == [0, 0, 0, 0, 8, 0]


def test_bad_ranks_are_named_and_the_rest_reduce(cli, client, run, tmp_path):
    truncated = tmp_path / "rank6.json.gz"
    truncated.write_bytes(run[1].read_bytes()[:60])
    unreadable = tmp_path / "rank7.json.gz"  # does not exist
    other_run = write_run(tmp_path, ranks=3, steps=2, straggler=0, prefix="other")[2]  # world size 3, rank 2
    # The same world size, rank 5 again, recorded two hours later.
    later_run = write_run(tmp_path, ranks=6, steps=2, straggler=0, prefix="later", base_ns=BASE_NS + 7200 * 10**9)[5]
    lines = []
    report = gtv.ranks.analyze(run + [truncated, unreadable, other_run, later_run], client,
                               progress=lambda d, t, path, error: lines.append((path, error)))
    assert sorted(report.failed) == sorted(map(str, [truncated, unreadable, other_run, later_run]))
    assert str(truncated) in report.failed[str(truncated)]
    assert report.failed[str(other_run)] == "world size 3, the other ranks' 6: another run"
    assert report.failed[str(later_run)] == "recorded 2.0 h from the other ranks' median start: another run"
    assert {p for p, e in lines if e} == set(report.failed)
    assert report.text == cli_reduce(cli, run, tmp_path)
    with pytest.raises(gtv.GtvError, match="no rank could be summarized"):
        gtv.ranks.analyze([unreadable], client, progress=None)


def test_a_killed_worker_is_retried_with_the_same_result(cli, client, run, tmp_path):
    marker = tmp_path / "killed"

    class KillOnce(distributed.WorkerPlugin):
        """Kills its worker process as the first gtv summary task starts there, once for the whole cluster."""

        def transition(self, key, start, finish, **kwargs):
            if finish == "executing" and "_summarize_task" in str(key):
                try:
                    fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                except FileExistsError:
                    return
                os.close(fd)
                os._exit(1)

    client.register_plugin(KillOnce(), name="kill-once")
    try:
        report = gtv.ranks.analyze(run, client, progress=None)
    finally:
        client.unregister_worker_plugin("kill-once")
    assert marker.exists()  # a worker did die mid-task
    assert report.failed == {}
    assert report.text == cli_reduce(cli, run, tmp_path)


def test_command_line(cli, run, tmp_path):
    out = tmp_path / "report.txt"
    missing = tmp_path / "rank9.json.gz"
    r = subprocess.run([sys.executable, "-m", "gtv.ranks", *map(str, run), str(missing), "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr  # the report, without the rank named on stderr
    assert out.read_text() == cli_reduce(cli, run, tmp_path)
    assert f"left out {missing}: cannot open" in r.stderr and f"wrote {out} (6 of 7 ranks)" in r.stderr
    assert r.stderr.count("] summarized ") == 6
