"""Generated per-rank PyTorch-profiler files with a known answer: every rank computes, then all-reduces; one rank
(the straggler) reaches every all-reduce late, and each kernel ends 200 us after the last arrival."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

BASE_NS = 1790857026000000000
ALLREDUCE = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"


def write_run(folder: Path, ranks: int, steps: int, straggler: int, delay_us: int = 2000, seed: int = 1,
              world: int | None = None, prefix: str = "rank", base_ns: int = BASE_NS) -> list[Path]:
    """Writes folder/{prefix}{r}.json.gz for r in range(ranks); world is the world size the files say."""
    rng = random.Random(seed)
    events: list[list[dict]] = [[] for _ in range(ranks)]
    start = 1000
    for s in range(steps):
        arrivals = [start + 1000 + rng.randint(-50, 50) + (delay_us if r == straggler else 0) for r in range(ranks)]
        end = max(arrivals) + 200
        for r in range(ranks):
            events[r].append({"ph": "X", "cat": "kernel", "name": ALLREDUCE, "pid": 0, "tid": 7, "ts": arrivals[r],
                              "dur": end + rng.randint(0, 3) - arrivals[r],
                              "args": {"correlation": 1 + s, "device": 0, "stream": 7}})
        start = end + 100
    paths = []
    for r in range(ranks):
        doc = {"schemaVersion": 1, "baseTimeNanoseconds": base_ns,
               "distributedInfo": {"backend": "nccl", "rank": r, "world_size": world or ranks},
               "traceEvents": events[r]}
        path = folder / f"{prefix}{r}.json.gz"
        path.write_bytes(gzip.compress(json.dumps(doc).encode()))
        paths.append(path)
    return paths
