"""gtv-cli against inputs crafted for the happens-before graph, what-if, collective matching and pid renumbering:
huge ranks, huge model numbers, times at the edges of the accepted range, absurd copy rates, names that act on a
terminal, sequence numbers that lie, SQLite bombs inside gzip. Each case fails on the behaviour it guards against
(a hang, a crash, a wrapped number, a false sentence, gigabytes written).

usage: attack_test.py CASE --cli PATH --traces DIR --work DIR   (DIR: the bundled recordings, resources/traces)
"""
import gzip
import json
import os
import subprocess
import time
import sys

from case_runner import check, run_case

BASE_NS = 1700000000000000000
ESC_NAME = "loop\x1b]0;owned\x07\nPredicted:  0.1 ms, band 0.1 ms to 0.1 ms: 1000.00x faster"


def cli(args, *argv, timeout=120, **kwargs):
    kwargs.setdefault("capture_output", True)
    try:
        return subprocess.run([args.cli, *argv], text=True, timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, -1, "", "timed out after %d s" % timeout)


def write(args, name, doc):
    path = os.path.join(args.work, name)
    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "wt") as f:
        json.dump(doc, f)
    return path


def bundled(args, name="h200x1/sequential.json.gz"):
    with gzip.open(os.path.join(args.traces, name), "rt") as f:
        return json.load(f)


def rank_doc(rank, world, pid=100, events=()):
    evs = [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": pid, "tid": 1, "ts": 10, "dur": 5},
           {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 20, "dur": 5,
            "args": {"device": 0, "stream": 7}}]
    return {"baseTimeNanoseconds": BASE_NS, "traceEvents": evs + list(events),
            "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world}}


def case_pid_renumbering(args):
    """Ranks 0 and 2^57 of a world of 2^57 + 1, both with host pid 100: every command that merges them ends."""
    huge = 1 << 57
    a = write(args, "a.json", rank_doc(0, huge + 1))
    b = write(args, "b.json", rank_doc(huge, huge + 1))
    out = os.path.join(args.work, "merged.json")
    said = "rank %d's 100 as 4194304" % huge
    for argv in (["merge", a, b, "-o", out], ["info", a, b], ["analyze", a, b]):
        r = cli(args, *argv, timeout=60)
        check(r.returncode == 0, "%s: exit 0, no hang (%d: %s)" % (argv[0], r.returncode, r.stderr.strip()[-300:]))
        check(said in r.stderr, "%s: the warning names the id given: %r" % (argv[0], r.stderr[-400:]))
    if os.path.exists(out):
        ranks = json.loads(cli(args, "info", "--json", out).stdout)["run"]["ranks"]
        pids = [p for rank in ranks for p in rank["pids"]]
        check(sorted(pids) == [100, 4194304], "merged pids are distinct and positive: %r" % pids)


def main():
    return run_case(globals(), required=["--traces"])


if __name__ == "__main__":
    sys.exit(main())
