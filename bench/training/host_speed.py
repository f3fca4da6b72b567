#!/usr/bin/env python3
"""How fast the host ran one recording against another: the ratio of their pure host ops' times.

Usage: python3 bench/training/host_speed.py RECORDING VARIANT [RECORDING VARIANT ...]

For each pair of torch.profiler traces (.json or .json.gz) this prints the variant's median duration of each op
that only does host work (no launch, no wait: aten::t, aten::transpose, aten::view, aten::empty, ...; at least 10
of each in both files) over the recording's, and the median of those ratios: 1.50 means the variant's process ran
the same host code 1.5x slower. For a loop the host bounds, a what-if prediction made from the recording is off
from the variant by about 1 / ratio - 1 from this alone (bench/training/README.md).
"""
import collections
import gzip
import json
import statistics
import sys

PURE_HOST_OPS = {
    "aten::t", "aten::transpose", "aten::as_strided", "aten::view", "aten::empty", "aten::empty_strided",
    "aten::detach", "detach", "aten::expand", "aten::reshape", "aten::_reshape_alias", "aten::unsqueeze",
    "aten::squeeze", "aten::select", "aten::slice", "aten::permute", "aten::result_type", "aten::resolve_conj",
    "aten::resolve_neg", "aten::alias", "aten::flatten", "aten::contiguous", "aten::_unsafe_view",
    "aten::lift_fresh", "aten::size", "aten::stride",
}


def op_medians(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    times = collections.defaultdict(list)
    for e in doc["traceEvents"]:
        if e.get("ph") == "X" and e.get("cat") == "cpu_op" and e["name"] in PURE_HOST_OPS:
            times[e["name"]].append(e["dur"])
    return {name: statistics.median(v) for name, v in times.items() if len(v) >= 10}


def main():
    args = sys.argv[1:]
    if not args or len(args) % 2:
        sys.exit(__doc__)
    for recording, variant in zip(args[0::2], args[1::2]):
        a, b = op_medians(recording), op_medians(variant)
        common = sorted(n for n in a if n in b and a[n] > 0)
        if not common:
            print(f"{recording} -> {variant}: no pure host op both ran 10 times")
            continue
        ratio = statistics.median(b[n] / a[n] for n in common)
        print(f"{recording} -> {variant}: {ratio:.2f} ({len(common)} ops)")


if __name__ == "__main__":
    main()
