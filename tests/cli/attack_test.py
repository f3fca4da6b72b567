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
    for argv in (["merge", a, b, "-o", out], ["info", a, b], ["analyze", "--merged", a, b]):
        r = cli(args, *argv, timeout=60)
        check(r.returncode == 0, "%s: exit 0, no hang (%d: %s)" % (argv[0], r.returncode, r.stderr.strip()[-300:]))
        check(said in r.stderr, "%s: the warning names the id given: %r" % (argv[0], r.stderr[-400:]))
    # From the ranks' summaries, which keep no host processes: nothing to renumber, and the world still checked.
    r = cli(args, "analyze", a, b, timeout=60)
    check(r.returncode == 0 and "but no file for 144115188075855871 ranks" in r.stderr,
          "analyze of the summaries: exit 0, no hang, the missing ranks warned of (%d: %s)" %
          (r.returncode, r.stderr.strip()[-300:]))
    if os.path.exists(out):
        ranks = json.loads(cli(args, "info", "--json", out).stdout)["run"]["ranks"]
        pids = [p for rank in ranks for p in rank["pids"]]
        check(sorted(pids) == [100, 4194304], "merged pids are distinct and positive: %r" % pids)


def renamed(doc, old, new):
    for r in doc["gtv"]["ranges"] + doc["gtv"]["measurements"]:
        if r["name"] == old:
            r["name"] = new
    return doc


def case_model_numbers(args):
    """Forward ranges of models 0 and 2^31 - 1 (or 10^20 - 1): placement=0 refuses them with one line, no crash."""
    for number in ("2147483647", "99999999999999999999"):
        doc = renamed(renamed(bundled(args), "model 1 forward", "model %s forward" % number), "model 2 forward",
                      "model 0 forward")
        path = write(args, "model_%s.json.gz" % number[:4], doc)
        r = cli(args, "whatif", path, "--change", "placement=0")
        check(r.returncode == 1 and r.stdout == "", "placement=0 with model %s: exit 1 (%d)" % (number, r.returncode))
        said = "a range names model %s; placement= places models 0 to 1023" % number
        check(said in r.stderr and len(r.stderr.splitlines()) == 1, "model %s: one line names it: %r"
              % (number, r.stderr))


def kineto(events, base_ns=BASE_NS):
    return {"baseTimeNanoseconds": base_ns, "traceEvents": events}


def call(name, ts, dur, corr=None, pid=1, tid=1):
    e = {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": {}}
    if corr is not None:
        e["args"]["correlation"] = corr
    return e


def gpu(cat, name, ts, dur, corr, stream=7, **more):
    args = {"device": 0, "stream": stream, "correlation": corr}
    args.update(more)
    return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur, "args": args}


def whatif_json(args, path, change):
    r = cli(args, "whatif", path, "--change", change, "--format", "json")
    return r, (json.loads(r.stdout) if r.returncode == 0 else None)


def case_whatif_time_range(args):
    """Times at the edges of [-2^62, 2^62) ns: the prediction is right or refused with one line, never wrapped."""
    lo_us, hi_us = -4611686018427387, 4611686018427387  # whole microseconds inside the range
    events = [call("cudaLaunchKernel", lo_us, 5, corr=1), gpu("kernel", "gemm", lo_us + 10, hi_us - 2 - lo_us - 10, 1),
              call("cudaDeviceSynchronize", lo_us + 20, hi_us - lo_us - 20)]
    path = write(args, "edges.json", kineto(events, base_ns=0))
    r, p = whatif_json(args, path, "no-sync=cudaDeviceSynchronize")
    check(r.returncode == 0, "whatif on a trace as long as the range: exit 0 (%s)" % r.stderr.strip())
    if p:
        low, high = p["band_ns"]
        check(0 <= low <= p["predicted_ns"] <= high, "the band holds the prediction: %r %r" % (p["band_ns"],
                                                                                            p["predicted_ns"]))
        check(p["predicted_ns"] == (hi_us - 2 - lo_us) * 1000, "predicted: the kernel's end: %d" % p["predicted_ns"])
    r = cli(args, "whatif", path, "--change", "no-sync=cudaDeviceSynchronize")
    check(r.returncode == 0 and "inf" not in r.stdout and "Predicted:  -" not in r.stdout,
          "text: no negative or infinite figure: %r" % r.stdout[:300])


def pinned_trace(args, name, pageable_bytes):
    """A pageable copy of `pageable_bytes` in the window; after it a 1-byte pinned copy that took 9.3e12 ns."""
    events = [call("cudaLaunchKernel", 5, 5, corr=1), gpu("kernel", "gemm", 10, 100, 1),
              call("cudaMemcpyAsync", 15, 107, corr=2),
              gpu("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 110, 10, 2, bytes=pageable_bytes),
              call("cudaDeviceSynchronize", 125, 2),
              call("cudaMemcpyAsync", 300, 5, corr=3),
              gpu("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 310, 9.3e9, 3, stream=8, bytes=1)]
    doc = kineto(events)
    return write(args, name, doc)


def case_whatif_pinned_rate(args):
    """pinned with a rate of 9.3e12 ns a byte: the product is computed without wrapping, or refused past 2^62."""
    r, p = whatif_json(args, pinned_trace(args, "pinned.json", 100), "pinned")
    check(r.returncode == 0, "pinned: exit 0 (%s)" % r.stderr.strip())
    if p:
        # The whole trace is predicted: 110 us, then the copy of 100 x 9.3e12 ns.
        expected = 110e3 + 100 * 9.3e12
        check(abs(p["predicted_ns"] - expected) < 1e-6 * expected, "pinned: predicted %d, by hand %d"
              % (p["predicted_ns"], expected))
        check(p["band_ns"][0] <= p["predicted_ns"] <= p["band_ns"][1], "pinned: the band holds it")
    r = cli(args, "whatif", pinned_trace(args, "pinned_beyond.json", 1000000), "--change", "pinned")
    check(r.returncode == 1 and "outside the accepted time range [-2^62, 2^62) ns" in r.stderr and r.stdout == "",
          "pinned past 2^62 ns: refused with one line: %r" % r.stderr)


def case_whatif_names(args):
    """A measurement named with a terminal title, a bell and a forged line: whatif shows it escaped, as analyze."""
    doc = renamed(bundled(args), "timed loop", ESC_NAME)
    path = write(args, "names.json.gz", doc)
    for fmt, predicted in (("text", "Predicted:"), ("markdown", "**Predicted:**")):
        r = cli(args, "whatif", path, "--change", "streams", "--format", fmt)
        check(r.returncode == 0, "whatif %s: exit 0 (%s)" % (fmt, r.stderr.strip()))
        check("\x1b" not in r.stdout and "\x07" not in r.stdout, "whatif %s: no ESC or BEL" % fmt)
        lines = [line for line in r.stdout.splitlines() if line.startswith(predicted)]
        check(len(lines) == 1, "whatif %s: one %s line, not a forged one: %r" % (fmt, predicted, lines))
        check("loop\\x1b]0;owned\\x07\\x0aPredicted:" in r.stdout, "whatif %s: the name escaped" % fmt)
    analyzed = cli(args, "analyze", path)
    check(analyzed.returncode == 0 and "\x1b" not in analyzed.stdout, "analyze escapes the same name")


def nccl(rank, k, seq, group="0", elements=1024, late_us=0.0):
    """Rank `rank`'s k-th all-reduce: 100 us from 1000 k us (+ late_us on arrival); all ranks' end together."""
    start = 1000 * k + late_us
    return {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
            "pid": 0, "tid": 7, "ts": start, "dur": 1000 * k + 100 - start,
            "args": {"device": 0, "stream": 7, "Seq": seq, "Process Group Name": group, "In msg nelems": elements}}


def case_collective_sequence(args):
    """The same Seq on every collective, or numbers no two ranks share: matched by order, and said so."""
    out = os.path.join(args.work, "merged.json")
    # Rank 1 arrives 30 us late at each of 20 all-reduces; ends agree (clocks aligned); every Seq is 7.
    files = [write(args, "same%d.json" % r, rank_doc(r, 2, pid=100 + r, events=[
        nccl(r, k, 7, late_us=30 * r) for k in range(20)])) for r in range(2)]
    r = cli(args, "analyze", *files)
    check(r.returncode == 0, "analyze: exit 0 (%s)" % r.stderr.strip())
    check("sequence numbers were not used: rank 0 gives sequence number 7 in group 0 to 20 collectives" in r.stdout,
          "analyze says why the sequence numbers were not used: %r" % r.stdout[-2000:])
    check("ended before the rank it needed arrived" not in r.stdout, "no false anomaly from a false match")
    check("rank 1's clock reads +0 ns" in r.stdout, "no false clock offset: %r" % r.stdout[-1500:])
    check("rank 1 arrived last at 20 of 20 all-reduces; the others waited 600.0 us in total for it" in r.stdout,
          "each all-reduce matched with its own: rank 1 30 us late at each")
    r = cli(args, "merge", *files, "-o", out, "--clock", "collectives")
    check(r.returncode == 0 and "sequence numbers were not used" in r.stderr, "merge warns: %r" % r.stderr)
    if r.returncode == 0:
        ranks = json.loads(cli(args, "info", "--json", out).stdout)["run"]["ranks"]
        check(all(rank["clock_offset_ns"] == 0 for rank in ranks), "merge --clock collectives moves no rank: %r"
              % [rank["clock_offset_ns"] for rank in ranks])
    # Four ranks, 20 all-reduces each, numbered apart: every one is matched by order.
    files = [write(args, "apart%d.json" % r, rank_doc(r, 4, pid=100 + r, events=[
        nccl(r, k, 1000 * r + k) for k in range(20)])) for r in range(4)]
    r = cli(args, "analyze", *files)
    check(r.returncode == 0 and "ran on every rank: no arrivals" not in r.stdout, "four ranks: collectives matched: %r"
          % r.stdout[-1500:])
    check("no sequence number is recorded by every rank" in r.stdout, "four ranks: why the numbers were not used")


def case_sqlite_gzip_bomb(args):
    """A .gz of an SQLite header that states 4 GiB and zeros after it: refused before it is inflated."""
    tmp = os.path.join(args.work, "tmp")
    os.makedirs(tmp)
    header = bytearray(b"SQLite format 3\0" + b"\0" * 84)
    header[16:18] = (4096).to_bytes(2, "big")
    header[28:32] = (1 << 20).to_bytes(4, "big")  # 2^20 pages of 4 KiB: 4 GiB
    path = os.path.join(args.work, "bomb.sqlite.gz")
    zeros = b"\0" * (1 << 20)
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(bytes(header) + b"\0" * (4096 - 100))
        for _ in range(64):  # 64 MiB of the 4 GiB: enough to see whether gtv inflates before it checks
            f.write(zeros)
    p = subprocess.Popen([args.cli, "info", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, TMPDIR=tmp))
    largest = 0
    while p.poll() is None:
        largest = max([largest] + [os.path.getsize(os.path.join(tmp, n)) for n in os.listdir(tmp)
                                   if os.path.exists(os.path.join(tmp, n))])
        time.sleep(0.005)
    err = p.stderr.read()
    check(p.returncode == 1 and "page 1" in err, "the bomb is refused from its first page: %r" % err)
    check(largest == 0 and os.listdir(tmp) == [], "nothing was written to TMPDIR (largest %d bytes)" % largest)


def main():
    return run_case(globals(), required=["--traces"])


if __name__ == "__main__":
    sys.exit(main())
