#!/usr/bin/env python3
"""Writes Kineto traces shaped against the happens-before graph, what-if and the analyses: inputs whose cost a
pairwise or walk-back computation turns into the square of their size. Each shape takes a size N and grows
linearly in N (events, links, streams); tests/adversarial/adversarial_test.py runs them small and checks the
results against brute force, bench/adversarial_bench.py scales them 10x and reports time and memory.

    tests/adversarial/adversarial_traces.py OUT_DIR [--size N] [--shape NAME ...] [--gzip]

Shapes (N = --size):
  measurements      N timing measurements, each spanning half of N launches (N^2 / 2 measurement-launch pairs)
  measurements_no_links  the same over N kernels without launch calls (a measurement's work is what overlaps it)
  context_syncs     N kernels, each on its own stream of one GPU, each followed by a cudaDeviceSynchronize with
                    Kineto's "Context Sync" record (N syncs x N streams)
  fan_in            N kernels on 4 streams, every one linked to the same cudaDeviceSynchronize
  fan_out           one kernel that N synchronizing calls on N threads wait for
  deep_chain        one thread launching N kernels back to back on one stream (a chain of 2N nodes)
  cycles            N launches whose kernels are linked to the call that launched them and to the one before:
                    corrupt links that close cycles through program order
  launch_blocking   N launches that each return after their kernel ends (CUDA_LAUNCH_BLOCKING=1)
  shared_stream     one kernel of thread A, then N kernels of thread B on the same stream, each followed by a
                    cudaStreamSynchronize (the stream's work goes to two streams under `whatif --change streams`)
  threads_overlap   N threads of one process, each in one long launch that overlaps every other thread's
"""
import argparse
import gzip
import json
import os

PID = 100
TID = 101
DEVICE = 0
STREAM = 7


class Trace:
    """Events on the host threads of process PID and the streams of GPU 0, times in integer microseconds."""

    def __init__(self):
        self.events = [{"ph": "M", "name": "process_name", "pid": PID, "tid": 0, "args": {"name": "python3"}}]
        self.correlation = 0
        self.links = 0
        self.gtv = None

    def call(self, name, ts, dur, tid=TID, cat="cuda_runtime"):
        self.correlation += 1
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": PID, "tid": tid, "ts": ts, "dur": dur,
                            "args": {"correlation": self.correlation}})
        return self.correlation

    def kernel(self, name, ts, dur, correlation, stream=STREAM):
        self.events.append({"ph": "X", "cat": "kernel", "name": name, "pid": DEVICE, "tid": stream, "ts": ts,
                            "dur": dur, "args": {"device": DEVICE, "stream": stream, "correlation": correlation,
                                                 "grid": [1, 1, 1], "block": [128, 1, 1]}})

    def launch(self, ts, dur, kernel_ts, kernel_dur, stream=STREAM, tid=TID, name="k"):
        c = self.call("cudaLaunchKernel", ts, dur, tid)
        self.kernel(name, kernel_ts, kernel_dur, c, stream)
        return c

    def sync_record(self, name, ts, dur, correlation, stream=-1, tid=TID):
        self.events.append({"ph": "X", "cat": "cuda_sync", "name": name, "pid": PID, "tid": tid, "ts": ts,
                            "dur": dur, "args": {"device": DEVICE, "stream": stream, "correlation": correlation}})

    def link(self, kernel_ts, stream, host_ts, tid=TID):
        """A gtv_dependency link from the kernel that starts at kernel_ts to the host call that starts at host_ts."""
        self.links += 1
        self.events.append({"ph": "s", "id": self.links, "pid": DEVICE, "tid": stream, "ts": kernel_ts,
                            "cat": "gtv_dependency", "name": "gtv_dependency", "args": {"gtv_lane": "gpu"}})
        self.events.append({"ph": "f", "id": self.links, "pid": PID, "tid": tid, "ts": host_ts, "bp": "e",
                            "cat": "gtv_dependency", "name": "gtv_dependency", "args": {"gtv_lane": "host"}})

    def document(self):
        doc = {"traceEvents": self.events}
        if self.gtv is not None:
            doc["gtv"] = self.gtv
        return doc


# --- the shapes; each returns (Trace, facts) where facts is what the brute-force checks need ---

def measurements(n):
    t = Trace()
    launches = []
    for k in range(n):
        ts = 100 + 10 * k
        # Two streams and durations of up to 17 us: the GPU work of a measurement overlaps, so its busy time is a
        # union, not a sum.
        kernel = (ts + 5, 3 + (k % 3) * 7)
        t.launch(ts, 4, kernel[0], kernel[1], stream=STREAM + k % 2)
        launches.append((ts, kernel))
    half = max(1, n // 2)
    ms = []
    for i in range(n):
        a = (i * 7919) % n
        b = min(n, a + half)
        # From just before launch a to just before launch b: exactly launches [a, b).
        ms.append({"name": "m%d" % i, "method": "stopwatch", "reported_ns": 1000 * (10 * (b - a) + 1),
                   "host_start_ns": 1000 * (100 + 10 * a - 2), "host_end_ns": 1000 * (100 + 10 * b - 3),
                   "pid": PID, "tid": TID})
    t.gtv = {"format_version": 2, "writer": "adversarial_traces.py", "measurements": ms}
    return t, {"launches": launches, "measurements": ms}


def measurements_no_links(n):
    """The same measurements over GPU work without launch calls: each one's work is what overlaps it."""
    t = Trace()
    kernels = []
    for k in range(n):
        ts = 100 + 10 * k
        # Overlapping durations, a zero-length kernel now and then, one long kernel that spans many measurements.
        dur = 0 if k % 11 == 5 else (400 if k == n // 3 else 3 + (k % 3) * 7)
        t.events.append({"ph": "X", "cat": "kernel", "name": "k", "pid": DEVICE, "tid": STREAM + k % 2, "ts": ts,
                         "dur": dur, "args": {"device": DEVICE, "stream": STREAM + k % 2}})
        kernels.append((ts, ts + dur))
    half = max(1, n // 2)
    ms = []
    for i in range(n):
        a = (i * 7919) % n
        b = min(n, a + half)
        ms.append({"name": "m%d" % i, "method": "stopwatch", "reported_ns": 1000 * (10 * (b - a) + 1),
                   "host_start_ns": 1000 * (100 + 10 * a) + 7 * (i % 3), "host_end_ns": 1000 * (100 + 10 * b - 3),
                   "pid": PID, "tid": TID})
    t.gtv = {"format_version": 2, "writer": "adversarial_traces.py", "measurements": ms}
    return t, {"kernels": kernels, "measurements": ms}


def context_syncs(n):
    t = Trace()
    kernels = []  # (correlation, start_us, end_us, stream)
    syncs = []  # (correlation, start_us)
    for k in range(n):
        ts = 100 + 20 * k
        # Long and short kernels alternate, so the latest-ending work before a sync is not always the last one.
        dur = 3 + (k % 4) * 13
        c = t.launch(ts, 4, ts + 5, dur, stream=1000 + k)
        kernels.append((c, ts + 5, ts + 5 + dur, 1000 + k))
        s = t.call("cudaDeviceSynchronize", ts + 6, 10)
        t.sync_record("Context Sync", ts + 6, 10, s)
        syncs.append((s, ts + 6))
    return t, {"kernels": kernels, "syncs": syncs}


def fan_in(n):
    t = Trace()
    starts = []
    for k in range(n):
        ts = 100 + 2 * k
        stream = STREAM + k % 4
        t.launch(ts, 1, ts + 3, 5 + k % 3, stream=stream)
        starts.append((ts + 3, stream))
    sync_ts = 100 + 2 * n + 1
    t.call("cudaDeviceSynchronize", sync_ts, 50)
    for ts, stream in starts:
        t.link(ts, stream, sync_ts)
    return t, {"sync_ts": sync_ts}


def fan_out(n):
    t = Trace()
    t.launch(100, 4, 105, 50 + n)
    for k in range(n):
        tid = 200 + k
        ts = 110 + k % 40
        t.call("cudaStreamSynchronize", ts, 155 + n - ts + 2, tid=tid)
        t.link(105, STREAM, ts, tid=tid)
    return t, {}


def deep_chain(n):
    t = Trace()
    for k in range(n):
        ts = 100 + 3 * k
        t.launch(ts, 2, ts + 2, 2 + k % 2)
    return t, {}


def cycles(n):
    t = Trace()
    for k in range(n):
        ts = 100 + 10 * k
        t.launch(ts, 4, ts + 5, 3)
        # The kernel starts after its launch call ended; a link into that call (or into the one before) closes a
        # cycle: call end -> kernel start -> kernel end -> call end.
        t.link(ts + 5, STREAM, ts)
        if k > 0:
            t.link(ts + 5, STREAM, ts - 10)
    return t, {}


def launch_blocking(n):
    t = Trace()
    for k in range(n):
        ts = 100 + 40 * k
        # The kernel (over 20 us) ends before its launch returns: a synchronous launch.
        t.launch(ts, 30, ts + 3, 24)
    return t, {"launches": n}


def shared_stream(n):
    t = Trace()
    t.launch(100, 4, 105, 5, tid=TID)
    for k in range(n):
        ts = 120 + 20 * k
        t.launch(ts, 3, ts + 4, 5, tid=TID + 1)
        t.call("cudaStreamSynchronize", ts + 4, 8, tid=TID + 1)
    return t, {}


def threads_overlap(n):
    t = Trace()
    calls = []  # (start_us, end_us, tid)
    for k in range(n):
        tid = 1000 + k
        # Every thread's first launch overlaps every other thread's; its second one, far apart, runs alone.
        start, dur = 100 + k, 10 * n + 50
        t.launch(start, dur, start + dur + 2, 1, tid=tid)
        calls.append((start, start + dur, tid))
        alone = 100 + 10 * n + 100 + 40 * k
        t.launch(alone, 7, alone + 9, 5, tid=tid)
        calls.append((alone, alone + 7, tid))
    return t, {"calls": calls}


SHAPES = {
    "measurements": measurements,
    "measurements_no_links": measurements_no_links,
    "context_syncs": context_syncs,
    "fan_in": fan_in,
    "fan_out": fan_out,
    "deep_chain": deep_chain,
    "cycles": cycles,
    "launch_blocking": launch_blocking,
    "shared_stream": shared_stream,
    "threads_overlap": threads_overlap,
}


def write(shape, n, path):
    """Writes the shape at size n to path (gzip if it ends in .gz); returns the facts the checks need."""
    trace, facts = SHAPES[shape](n)
    text = json.dumps(trace.document(), separators=(",", ":"))
    if path.endswith(".gz"):
        with gzip.open(path, "wt", compresslevel=6) as f:
            f.write(text)
    else:
        with open(path, "w") as f:
            f.write(text)
    return facts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--shape", action="append", choices=sorted(SHAPES))
    parser.add_argument("--gzip", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for shape in args.shape or SHAPES:
        path = os.path.join(args.out_dir, "%s-%d.json%s" % (shape, args.size, ".gz" if args.gzip else ""))
        write(shape, args.size, path)
        print(path)


if __name__ == "__main__":
    main()
