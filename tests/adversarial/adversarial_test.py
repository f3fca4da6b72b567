"""Runs `gtv-cli analyze` and every `gtv-cli whatif` change on one adversarial shape (adversarial_traces.py) at a
small size, and checks that each finishes with a sane result or a clean refusal, and that what the shape is about
comes out as a brute-force computation here says. Sizes are small so the case runs in seconds; how the cost grows
with the size is measured by bench/adversarial_bench.py, never timed here.

usage: adversarial_test.py SHAPE --cli PATH --work DIR [--size N]
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from case_runner import check, run_case  # noqa: E402

import adversarial_traces  # noqa: E402

CHANGES = ["streams", "pinned", "graphs", "no-launch-blocking", "processes", "balanced-ranks",
           "no-sync=cudaDeviceSynchronize", "no-sync=cudaStreamSynchronize", "placement=0"]
# Shapes whose links are not corrupt: an unchanged replay reproduces the recording exactly.
EXACT_REPLAY = {"measurements", "measurements_no_links", "context_syncs", "fan_in", "fan_out", "deep_chain", "launch_blocking",
                "shared_stream", "threads_overlap"}
SIZE = 200


def cli(args, *argv):
    return subprocess.run([args.cli, *argv], capture_output=True, text=True, timeout=600)


def shape_file(args, shape):
    path = os.path.join(args.work, shape + ".json")
    facts = adversarial_traces.write(shape, int(args.size or SIZE), path)
    return path, facts


def finished_cleanly(r, what):
    """Exit 0, or exit 1 with one line that says why: never a crash, a signal or a usage error."""
    check(r.returncode in (0, 1), "%s: exit 0 or 1, got %d (%s)" % (what, r.returncode, r.stderr.strip()[-300:]))
    if r.returncode == 1:
        lines = r.stderr.strip().splitlines()
        check(len(lines) == 1 and lines[0].startswith("gtv-cli: "), "%s: a one-line refusal: %r" % (what, r.stderr))
    return r.returncode == 0


def run_all(args, path, shape):
    """analyze (text and JSON) and every change; returns the analysis JSON and each applied change's JSON."""
    r = cli(args, "analyze", path)
    check(r.returncode == 0 and "GPU timeline analysis" in r.stdout, "%s: analyze: %s" % (shape, r.stderr.strip()))
    r = cli(args, "analyze", path, "--format", "json")
    analysis = json.loads(r.stdout) if r.returncode == 0 else {}
    check(bool(analysis), "%s: analyze --format json" % shape)
    predictions = {}
    for change in CHANGES:
        r = cli(args, "whatif", path, "--change", change, "--format", "json")
        if not finished_cleanly(r, "%s: whatif --change %s" % (shape, change)):
            continue
        p = json.loads(r.stdout)
        predictions[change] = p
        band = p["band_ns"]
        check(band[0] <= p["predicted_ns"] <= band[1] and band[0] >= 0,
              "%s: %s: the band %s holds the prediction %d" % (shape, change, band, p["predicted_ns"]))
        if shape in EXACT_REPLAY:
            check(p["replayed_ns"] == p["recorded_ns"],
                  "%s: %s: the unchanged replay reproduces the recording (%d, recorded %d)" %
                  (shape, change, p["replayed_ns"], p["recorded_ns"]))
        r = cli(args, "whatif", path, "--change", change)
        check(r.returncode == 0 and "Predicted" in r.stdout, "%s: %s: the text report" % (shape, change))
    return analysis, predictions


def union_ns(intervals):
    total, end = 0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def case_measurements(args):
    path, facts = shape_file(args, "measurements")
    analysis, predictions = run_all(args, path, "measurements")
    got = {m["name"]: m for m in analysis.get("timing", {}).get("measurements", [])}
    check(len(got) == len(facts["measurements"]), "every measurement is judged (%d)" % len(got))
    wrong = 0
    for m in facts["measurements"]:
        work = [(1000 * k[0], 1000 * (k[0] + k[1])) for ts, k in facts["launches"]
                if m["host_start_ns"] <= 1000 * ts < m["host_end_ns"]]
        g = got.get(m["name"], {})
        last_end = max([e for _, e in work], default=m["host_end_ns"])
        truth = max(m["host_end_ns"], last_end) - m["host_start_ns"]
        if (g.get("gpu_activity_count"), g.get("gpu_busy_ns"), g.get("truth_ns")) != (len(work), union_ns(work), truth):
            wrong += 1
            if wrong <= 3:
                print("measurement %s: got %s, want count %d busy %d truth %d" %
                      (m["name"], {k: g.get(k) for k in ("gpu_activity_count", "gpu_busy_ns", "truth_ns")},
                       len(work), union_ns(work), truth))
    check(wrong == 0, "each measurement's GPU work, busy time and truth match brute force (%d wrong)" % wrong)


def case_measurements_no_links(args):
    path, facts = shape_file(args, "measurements_no_links")
    analysis, _ = run_all(args, path, "measurements_no_links")
    got = {m["name"]: m for m in analysis.get("timing", {}).get("measurements", [])}
    check(len(got) == len(facts["measurements"]), "every measurement is judged (%d)" % len(got))
    wrong = 0
    for m in facts["measurements"]:
        # Every kernel that overlaps the host interval, its ends included.
        work = [(1000 * s, 1000 * e) for s, e in facts["kernels"]
                if 1000 * s <= m["host_end_ns"] and 1000 * e >= m["host_start_ns"]]
        g = got.get(m["name"], {})
        last_end = max([e for _, e in work], default=m["host_end_ns"])
        truth = max(m["host_end_ns"], last_end) - m["host_start_ns"]
        want = (len(work), union_ns([w for w in work if w[1] > w[0]]), truth)
        if (g.get("gpu_activity_count"), g.get("gpu_busy_ns"), g.get("truth_ns")) != want:
            wrong += 1
            if wrong <= 3:
                print("measurement %s: got %s, want %s" %
                      (m["name"], {k: g.get(k) for k in ("gpu_activity_count", "gpu_busy_ns", "truth_ns")}, want))
    check(wrong == 0, "each measurement's overlapping GPU work, busy time and truth match brute force (%d wrong)" %
          wrong)


def dependency_links(args, path):
    """The trace's dependency links as gtv writes them: (from ts us, from tid) -> (to ts us, to tid)."""
    out = os.path.join(args.work, "converted.json")
    r = cli(args, "convert", path, out)
    check(r.returncode == 0, "convert: %s" % r.stderr.strip())
    ends = {}
    for e in json.load(open(out))["traceEvents"]:
        if e.get("cat") == "gtv_dependency":
            ends.setdefault(e["id"], {})[e["ph"]] = (round(e["ts"]), e["tid"])
    return sorted((v["s"], v["f"]) for v in ends.values() if "s" in v and "f" in v)


def case_context_syncs(args):
    path, facts = shape_file(args, "context_syncs")
    run_all(args, path, "context_syncs")
    want = []
    for correlation, sync_ts in facts["syncs"]:
        # Of the work launched before the sync (a lower correlation id) on every stream of the GPU, the one that
        # ends last; on a tie, the lowest stream.
        before = [k for k in facts["kernels"] if k[0] < correlation]
        if before:
            latest = max(before, key=lambda k: (k[2], -k[3]))
            want.append(((latest[1], latest[3]), (sync_ts, adversarial_traces.TID)))
    got = dependency_links(args, path)
    check(got == sorted(want), "each Context Sync waits for the latest-ending work before it (%d links, want %d)" %
          (len(got), len(want)))


def case_fan_in(args):
    path, _ = shape_file(args, "fan_in")
    _, predictions = run_all(args, path, "fan_in")
    p = predictions.get("no-sync=cudaDeviceSynchronize", {})
    check(p.get("applied") == ["1 calls of cudaDeviceSynchronize no longer wait for the GPU"],
          "the synchronize that every kernel is linked to stops waiting: %s" % p.get("applied"))


def case_fan_out(args):
    path, _ = shape_file(args, "fan_out")
    _, predictions = run_all(args, path, "fan_out")
    n = int(args.size or SIZE)
    p = predictions.get("no-sync=cudaStreamSynchronize", {})
    check(p.get("applied") == ["%d calls of cudaStreamSynchronize no longer wait for the GPU" % n],
          "every call that waited for the one kernel stops waiting: %s" % p.get("applied"))


def case_deep_chain(args):
    path, _ = shape_file(args, "deep_chain")
    analysis, _ = run_all(args, path, "deep_chain")
    check(bool(analysis), "the chain is analysed")


def case_cycles(args):
    path, _ = shape_file(args, "cycles")
    run_all(args, path, "cycles")


def case_launch_blocking(args):
    path, facts = shape_file(args, "launch_blocking")
    _, predictions = run_all(args, path, "launch_blocking")
    p = predictions.get("no-launch-blocking", {})
    check(p.get("applied") == ["%d launches no longer wait for their kernels" % facts["launches"]],
          "every synchronous launch becomes asynchronous: %s" % p.get("applied"))
    # Each launch then takes the time to its kernel's start (3 us) and the kernels (24 us) run back to back.
    n = facts["launches"]
    if p:
        check(p["predicted_ns"] < p["recorded_ns"], "the launches no longer waiting shortens the run")


def case_shared_stream(args):
    path, _ = shape_file(args, "shared_stream")
    _, predictions = run_all(args, path, "shared_stream")
    p = predictions.get("streams", {})
    check(p.get("applied") == ["the work of 2 threads that shared 1 stream runs on a stream of its own"],
          "the two threads' work goes to streams of its own: %s" % p.get("applied"))
    # Thread A's one kernel ended before thread B began: its own stream gives B nothing back.
    check(p.get("predicted_ns") == p.get("recorded_ns"), "separate streams change nothing here")


def case_threads_overlap(args):
    path, facts = shape_file(args, "threads_overlap")
    _, predictions = run_all(args, path, "threads_overlap")
    calls = sorted(facts["calls"])
    contended = [False] * len(calls)
    for i in range(len(calls)):
        for j in range(len(calls)):
            if i != j and calls[i][2] != calls[j][2] and calls[j][0] < calls[i][1] and calls[i][0] < calls[j][1]:
                contended[i] = True
    alone = sorted(e - s for (s, e, _), c in zip(calls, contended) if not c)
    typical = alone[len(alone) // 2]
    shortened = sum(1 for (s, e, _), c in zip(calls, contended) if e - s > typical)
    threads = len({c[2] for c in calls})
    p = predictions.get("processes", {})
    want = "%d host threads launching GPU work become processes of their own: %d calls take their uncontended time"
    check(p.get("applied", [""])[0] == want % (threads, shortened), "processes: %s" % p.get("applied"))


if __name__ == "__main__":
    sys.exit(run_case(globals(), optional=("--size",)))
