#!/usr/bin/env python3
"""Writes small traces with very many processes, threads, GPUs or lanes: shapes that a linear search per key
turns into minutes. Each file is a few MB; `gtv-cli info` and `gtv-cli analyze` must handle each in seconds.

    bench/hostile_traces.py OUT_DIR [--count N] [--lanes-count N]

Shapes (N = --count, default 100000; gtv_lanes uses --lanes-count, default 300000):
  string_pids     N X events, each in a process named by a string pid ("proc-17"), so N processes
  gpu_lanes       N kernels, each on its own GPU (pid = device)
  gpu_streams     N kernels on one GPU, each on its own stream
  process_names   N process_name metadata events, one per pid, plus one event per process
  device_props    N deviceProperties entries and one kernel
  gtv_lanes       a gtv section with N lanes (host and GPU) and one event
"""
import argparse
import json
import os


def event(name, cat, pid, tid, ts_us, dur_us, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts_us, "dur": dur_us}
    if args:
        e["args"] = args
    return e


def string_pids(n):
    return {"traceEvents": [event("op", "cpu_op", f"proc-{i}", 1, i, 0.5) for i in range(n)]}


def gpu_lanes(n):
    return {"traceEvents": [event("k", "kernel", i, 7, i, 0.5, device=i, stream=7) for i in range(n)]}


def gpu_streams(n):
    return {"traceEvents": [event("k", "kernel", 0, i, i, 0.5, device=0, stream=i) for i in range(n)]}


def process_names(n):
    meta = [{"ph": "M", "name": "process_name", "pid": i, "tid": 0, "args": {"name": f"worker {i}"}} for i in range(n)]
    return {"traceEvents": meta + [event("op", "cpu_op", i, 1, i, 0.5) for i in range(n)]}


def device_props(n):
    props = [{"id": i, "name": f"GPU {i}", "totalGlobalMem": 1 << 30, "computeMajor": 9, "computeMinor": 0,
              "numSms": 132} for i in range(n)]
    return {"deviceProperties": props, "traceEvents": [event("k", "kernel", 0, 7, 1, 0.5, device=0, stream=7)]}


def gtv_lanes(n):
    lanes = [{"kind": "gpu" if i % 2 else "host", "pid": i // 2, "tid": i, "name": f"lane {i}", "sort_index": i}
             for i in range(n)]
    gtv = {"format_version": 1, "writer": "hostile_traces.py", "lanes": lanes}
    return {"gtv": gtv, "traceEvents": [event("op", "cpu_op", 0, 0, 1, 0.5)]}


SHAPES = {
    "string_pids": string_pids,
    "gpu_lanes": gpu_lanes,
    "gpu_streams": gpu_streams,
    "process_names": process_names,
    "device_props": device_props,
    "gtv_lanes": gtv_lanes,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir")
    parser.add_argument("--count", type=int, default=100000)
    parser.add_argument("--lanes-count", type=int, default=300000)
    a = parser.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    for name, make in SHAPES.items():
        n = a.lanes_count if name == "gtv_lanes" else a.count
        path = os.path.join(a.out_dir, f"{name}.json")
        with open(path, "w") as f:
            json.dump(make(n), f, separators=(",", ":"))
        print(f"{path}: {n} entries, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
