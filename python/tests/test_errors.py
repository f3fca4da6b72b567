"""Bad input raises gtv.GtvError with the line gtv-cli prints (without its "gtv-cli: " prefix)."""

from __future__ import annotations

import gzip

import pytest

import gtv
from conftest import RANKS, SOURCE_DIR


def bad_files(tmp_path):
    good = (SOURCE_DIR / "resources/traces/h200x1/sequential.json.gz").read_bytes()
    files = {
        "missing.json": None,
        "empty.json": b"",
        "garbage.json": b"this is not a trace",
        "truncated.json.gz": good[: len(good) // 2],
        "cut.json": gzip.decompress(good)[:5000],
        "wrong-shape.json": b'{"traceEvents": 3}',
    }
    paths = []
    for name, data in files.items():
        p = tmp_path / name
        if data is not None:
            p.write_bytes(data)
        paths.append(p)
    (tmp_path / "a-folder.json").mkdir()
    return paths + [tmp_path / "a-folder.json"]


def test_bad_files_raise_the_cli_error(tmp_path, cli):
    for path in bad_files(tmp_path):
        r = cli.run("info", path)
        assert r.returncode == 1, path
        with pytest.raises(gtv.GtvError) as e:
            gtv.load(path)
        assert r.stderr == f"gtv-cli: {e.value}\n", path
        assert "\n" not in str(e.value) and str(path) in str(e.value)
        assert isinstance(e.value, ValueError)


def test_a_bad_rank_file_fails_the_merge(tmp_path, cli):
    bad = tmp_path / "rank2.json"
    bad.write_bytes(b"{")
    r = cli.run("analyze", *RANKS, bad)
    assert r.returncode == 1
    with pytest.raises(gtv.GtvError) as e:
        gtv.load([*RANKS, bad])
    assert f"gtv-cli: {e.value}" in r.stderr.splitlines()


def test_usage_errors_are_value_errors():
    with pytest.raises(ValueError, match="neither wall nor collectives"):
        gtv.load(RANKS, clock="ntp")
    with pytest.raises(ValueError, match="one file was given"):
        gtv.load(RANKS[0], clock="collectives")
    with pytest.raises(ValueError, match="at least one"):
        gtv.load([])


def test_a_file_whose_events_were_all_skipped_warns_like_the_cli(tmp_path, cli):
    path = tmp_path / "unknown-phases.json"
    path.write_text('{"traceEvents": [{"ph": "Z", "name": "x", "ts": 1, "pid": 1, "tid": 1}]}')
    r = cli.run("info", path)
    assert r.returncode == 0 and "no event could be read" in r.stderr
    with pytest.warns(UserWarning) as caught:
        trace = gtv.load(path)
    assert [f"gtv-cli: warning: {w.message}" for w in caught] == r.stderr.splitlines() == [
        f"gtv-cli: warning: {w}" for w in trace.warnings
    ]
    assert trace.counts["events"] == 0
