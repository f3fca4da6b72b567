"""A generated run written as per-rank PyTorch-profiler files (bench/ranks/rank_run_gen.py) against its planted
answers: reduce on the collectives' clock finds each step's late rank, every rank's wait, the clock offsets, and the
slow-link steps' transfer times; gtv-cli summarize + reduce and gtv.ranks.analyze on Dask give the same report."""

from __future__ import annotations

import importlib.util
import json

import pytest

import gtv
from conftest import SOURCE_DIR

spec = importlib.util.spec_from_file_location("rank_run_gen", SOURCE_DIR / "bench/ranks/rank_run_gen.py")
rank_run_gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rank_run_gen)

RANKS = 12
STEPS = 60


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("planted")
    planted = rank_run_gen.generate(str(folder), RANKS, STEPS, stragglers=3, slow_link_every=10, seed=5)
    paths = [folder / f"rank{r}.json.gz" for r in range(RANKS)]
    return paths, planted


@pytest.fixture(scope="module")
def report(run):
    paths, _ = run
    return gtv.reduce([gtv.summarize(p) for p in paths], clock="collectives").to_dict()


def within(measured: int, planted: int) -> bool:
    return abs(measured - planted) <= max(0.05 * abs(planted), 20_000)


def test_the_files_are_what_the_answers_describe(run):
    paths, planted = run
    assert json.loads((paths[0].parent / "planted.json").read_text()) == planted
    assert planted["events_per_rank"] == STEPS * rank_run_gen.EVENTS_PER_STEP
    assert len(set(planted["straggler"])) == 3 and planted["slow_link_steps"] == [9, 19, 29, 39, 49, 59]
    counts = gtv.load(paths[0]).counts
    assert counts["events"] == planted["events_per_rank"] and counts["flows"] == STEPS * 16
    assert counts["categories"] == {"cpu_op": STEPS * 18, "cuda_runtime": STEPS * 16, "kernel": STEPS * 16}


def test_the_planted_straggler_of_each_step_is_found(run, report):
    _, planted = run
    collectives = report["stragglers"]["collectives"]
    assert [c["seq"] for c in collectives] == list(range(STEPS))  # matched by PyTorch's sequence numbers
    found = sum(c["last_rank"] == planted["straggler"][c["seq"]] for c in collectives)
    assert found >= 0.95 * STEPS
    late = {r: planted["straggler"].count(r) for r in set(planted["straggler"])}
    for row in report["stragglers"]["ranks"]:
        assert row["arrived_last"] == late.get(row["rank"], 0)


def test_every_wait_is_the_planted_one(run, report):
    _, planted = run
    for c in report["stragglers"]["collectives"]:
        expected = planted["wait_ns"][c["seq"]]
        assert all(within(m, p) for m, p in zip(c["wait_ns"], expected)), (c["seq"], c["wait_ns"], expected)


def test_clock_offsets_are_within_their_stated_uncertainty(run, report):
    _, planted = run
    offsets = planted["offset_ns"]
    uncertainty = {row["rank"]: row["clock_uncertainty_ns"] for row in report["stragglers"]["ranks"]}
    for rank in report["summary"]["ranks"]:
        r = rank["rank"]
        # The alignment moves each rank by minus how far its clock reads ahead of rank 0's.
        assert abs(-rank["shift_ns"] - (offsets[r] - offsets[0])) <= uncertainty[r], (r, rank["shift_ns"])
    assert max(abs(o) for o in offsets) > 10_000_000  # the offsets are far larger than any wait


def test_slow_link_steps_have_the_planted_transfer_time(run, report):
    _, planted = run
    for c in report["stragglers"]["collectives"]:
        assert within(max(c["transfer_ns"]), planted["transfer_ns"][c["seq"]]), (c["seq"], c["transfer_ns"])


def test_on_the_wall_clock_the_offsets_are_measured_not_hidden(run):
    paths, planted = run
    d = gtv.reduce([gtv.summarize(p) for p in paths], clock="wall").to_dict()
    offsets = planted["offset_ns"]
    for row in d["stragglers"]["ranks"]:
        r = row["rank"]
        assert abs(row["clock_offset_ns"] - (offsets[r] - offsets[0])) <= row["clock_uncertainty_ns"]


def test_the_cli_gives_the_same_report(cli, run, report, tmp_path):
    paths, _ = run
    sums = []
    for p in paths:
        sums.append(tmp_path / (p.name + ".gtvsum"))
        cli.out("summarize", p, "-o", sums[-1])
    assert cli.json("reduce", "--clock", "collectives", "--format", "json", *sums) == report


def test_dask_gives_the_same_report(run, report):
    distributed = pytest.importorskip("distributed")
    paths, _ = run
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        result = gtv.ranks.analyze(paths, client, clock="collectives", progress=None)
    assert result.failed == {} and result.to_dict() == report


def test_balanced_ranks_from_the_summaries_is_whatif_of_the_merged_run(cli, run, report, tmp_path):
    """reduce's balanced-ranks prediction (point, band, path, sentences, in ns) equals `gtv-cli whatif` of the
    ranks merged into one trace on the same clock, and balancing the planted stragglers shortens the run."""
    paths, _ = run
    merged = tmp_path / "merged.json.gz"
    cli.out("merge", "--clock", "collectives", *paths, "-o", merged)
    expected = cli.json("whatif", merged, "--change", "balanced-ranks", "--format", "json")
    got = report["balanced_ranks"]
    assert got == expected
    assert got["band_ns"][0] <= got["predicted_ns"] <= got["band_ns"][1] < got["recorded_ns"]
