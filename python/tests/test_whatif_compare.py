"""gtv.whatif and gtv.compare against gtv-cli whatif and compare."""

from __future__ import annotations

import pytest

import gtv
from conftest import H200, SOURCE_DIR

TRACES = SOURCE_DIR / "resources/traces/h200x1"

# Each change on a recording it applies to.
CHANGES = [
    ("sequential", ["streams"]),
    ("copy-pageable", ["pinned"]),
    ("launch-blocking", ["no-launch-blocking"]),
    ("sequential", ["graphs"]),
    ("threads", ["processes"]),
]


@pytest.mark.parametrize("name,changes", CHANGES, ids=[f"{n}-{'+'.join(c)}" for n, c in CHANGES])
def test_whatif_equals_cli(name, changes, cli, traces_by_path):
    path = TRACES / f"{name}.json.gz"
    args = [a for c in changes for a in ("--change", c)]
    p = gtv.whatif(traces_by_path(path), changes)
    assert p.text == cli.out("whatif", path, *args)
    assert p.to_markdown() == cli.out("whatif", path, *args, "--format", "markdown")
    assert p.to_dict() == cli.json("whatif", path, *args, "--format", "json")


def test_whatif_takes_a_path_and_one_change(cli):
    path = TRACES / "sequential.json.gz"
    assert gtv.whatif(str(path), "streams").text == cli.out("whatif", path, "--change", "streams")


def test_whatif_errors_are_the_clis(cli, traces_by_path):
    path = TRACES / "streams.json.gz"
    trace = traces_by_path(path)
    # A change that does not apply: bad input (exit 1), the same line.
    r = cli.run("whatif", path, "--change", "streams")
    assert r.returncode == 1
    with pytest.raises(gtv.GtvError) as e:
        gtv.whatif(trace, ["streams"])
    assert f"gtv-cli: {e.value}\n" == r.stderr
    # A change the CLI cannot parse: a usage error (exit 2), the same message.
    r = cli.run("whatif", path, "--change", "fastest")
    assert r.returncode == 2
    with pytest.raises(ValueError) as e:
        gtv.whatif(trace, ["fastest"])
    assert not isinstance(e.value, gtv.GtvError)
    assert r.stderr.splitlines()[0] == f"gtv-cli whatif: {e.value}"


def test_compare_equals_cli(cli, traces_by_path):
    a, b = TRACES / "sequential.json.gz", TRACES / "streams.json.gz"
    c = gtv.compare(traces_by_path(a), traces_by_path(b))
    assert c.text == cli.out("compare", a, b)
    assert c.to_markdown() == cli.out("compare", a, b, "--format", "markdown")
    assert c.to_dict() == cli.json("compare", a, b, "--format", "json")
    assert gtv.compare(str(a), str(b)).text == c.text  # paths, loaded on the way
    labelled = gtv.compare(traces_by_path(a), traces_by_path(b), label_a="before", label_b="after")
    assert labelled.to_dict()["a"]["label"] == "before" and labelled.to_dict()["b"]["label"] == "after"


@pytest.mark.parametrize("a,b", [(H200[0], H200[1]), (TRACES / "warmup.json.gz", TRACES / "baseline.json.gz")])
def test_compare_more_pairs(a, b, cli, traces_by_path):
    assert gtv.compare(traces_by_path(a), traces_by_path(b)).to_dict() == cli.json("compare", a, b, "--format", "json")
