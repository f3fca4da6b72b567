#!/usr/bin/env python3
"""Independent counts for the PyTorch fixtures, computed with the json module only (no gtv code).
Run: python3 tests/unit/io/fixture_counts.py tests/data/pytorch/*.json.gz
The numbers it prints are pasted into fixture_test.cpp."""
import collections, gzip, json, sys

GPU = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation"}
KIND = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset", "cuda_runtime": "runtime",
        "cuda_driver": "driver", "cuda_sync": "sync", "cpu_op": "cpu_op", "user_annotation": "annotation",
        "gpu_user_annotation": "annotation", "overhead": "overhead"}

for path in sys.argv[1:]:
    d = json.load(gzip.open(path))
    ev = d["traceEvents"]
    kinds = collections.Counter()
    host, gpu = set(), set()
    host_corr, gpu_corr = set(), []
    for e in ev:
        ph = e.get("ph")
        if ph not in ("X", "i", "I"):
            continue
        cat = e.get("cat", "")
        kind = "instant" if ph != "X" else KIND.get(cat, "other")
        kinds[kind] += 1
        a = e.get("args", {})
        if cat in GPU:
            gpu.add((a.get("device", e["pid"]), a.get("stream", e["tid"])))
            if "correlation" in a and cat != "gpu_user_annotation":
                gpu_corr.append(a["correlation"])
        else:
            host.add((str(e["pid"]), str(e["tid"])))
            if "correlation" in a and cat in ("cuda_runtime", "cuda_driver"):
                host_corr.add(a["correlation"])
    joined = {c for c in gpu_corr if c in host_corr}
    flows = sum(1 for c in gpu_corr if c in host_corr)
    # "ac2g" pairs (both 's' and 'f' present) add a flow when their GPU end was not joined by correlation.
    starts = {e["id"] for e in ev if e.get("ph") == "s" and e.get("cat") == "ac2g"}
    ends = {e["id"] for e in ev if e.get("ph") == "f" and e.get("cat") == "ac2g"}
    flows += len((starts & ends) - joined)
    total = sum(kinds.values())
    print(path, "events", total, dict(sorted(kinds.items())), "host_lanes", len(host), "gpu_lanes", len(gpu),
          "flows", flows, "devices", len(d.get("deviceProperties", [])), "base", d.get("baseTimeNanoseconds"))
