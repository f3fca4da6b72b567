#!/usr/bin/env python3
"""What `with torch.cuda.stream(s):` around each model's forward costs the host, traced and untraced.

Usage: python3 bench/training/stream_switch.py   (on a machine with a CUDA GPU)

Three small nets on cuda:0 (record_training.py's small_net, batch 32 of 512: launch-bound), each forward in a
record_function range, ten rounds of the three a block. Blocks alternate between the forwards on one stream and
each forward inside `with torch.cuda.stream(streams[k])`; each block ends in a synchronize, so its wall time is
the host's. Prints, untraced and under torch.profiler (CPU and CUDA activities, as record_training.py), the median
over block pairs of (stream block - same-stream block) / forwards: what one switch to a stream and back adds. Also
the bare context manager's cost (`with torch.cuda.stream(s): pass`) by timeit.
"""
import os
import statistics
import sys
import time
import timeit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from record_training import small_net  # noqa: E402

ROUNDS = 10
BLOCK_PAIRS = 40


def main():
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function
    dev = torch.device("cuda:0")
    torch.manual_seed(0)
    models = [small_net(dev) for _ in range(3)]
    inputs = [torch.randn(32, 512, device=dev) for _ in range(3)]
    streams = [torch.cuda.Stream(dev) for _ in range(3)]

    def block(switch):
        start = time.perf_counter()
        with torch.no_grad():
            for _ in range(ROUNDS):
                for k in range(3):
                    if switch:
                        with torch.cuda.stream(streams[k]):
                            with record_function(f"model {k} forward"):
                                models[k](inputs[k])
                    else:
                        with record_function(f"model {k} forward"):
                            models[k](inputs[k])
        torch.cuda.synchronize()
        return time.perf_counter() - start

    def per_switch_us():
        for _ in range(5):
            block(False), block(True)  # warm-up
        diffs, same = [], []
        for _ in range(BLOCK_PAIRS):
            a, b = block(False), block(True)
            same.append(a)
            diffs.append((b - a) / (ROUNDS * 3) * 1e6)
        return statistics.median(diffs), statistics.median(same) / (ROUNDS * 3) * 1e6

    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(dev)}")
    diff, fwd = per_switch_us()
    print(f"untraced: a switch to a stream and back adds {diff:.1f} us (a forward on one stream: {fwd:.1f} us)")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
        diff, fwd = per_switch_us()
    print(f"under torch.profiler: a switch to a stream and back adds {diff:.1f} us (a forward: {fwd:.1f} us)")
    s = streams[0]

    def bare():
        with torch.cuda.stream(s):
            pass

    n = 20000
    print(f"bare `with torch.cuda.stream(s): pass`: {min(timeit.repeat(bare, number=n, repeat=5)) / n * 1e6:.2f} us")


if __name__ == "__main__":
    main()
