#!/usr/bin/env python3
"""The seed's loop (`sequential`: 3 LargeFcNet models on cuda:0, cuda:1, cuda:0, 10 iterations, batch 100) in
Python, timed after synchronize without and with torch.profiler, for comparison with gtv_overhead_bench.

    python3 tests/gpu/overhead_torch_profiler.py [--rounds 5]

Never run it together with gtv tracing: CUPTI has one client per process (this script runs alone).
"""
import argparse
import statistics
import time

import torch
from torch import nn


class LargeFcNet(nn.Module):
    """As core/experiments/src/large_fc_net.h: input layer, six hidden Linear+ReLU+Dropout layers, output layer."""

    def __init__(self, inp=100, hidden=10000, out=100, dropout=0.4):
        super().__init__()
        layers = [nn.Linear(inp, hidden), nn.ReLU()]
        for _ in range(6):
            layers += [nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(dropout)]
        layers.append(nn.Linear(hidden, out))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def timed_loop(models, inputs, iters):
    devices = sorted({x.device.index for x in inputs})
    start = time.perf_counter()
    for _ in range(iters):
        for model, x in zip(models, inputs):
            model(x)
    for d in devices:
        torch.cuda.synchronize(d)
    return (time.perf_counter() - start) * 1e3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iters", type=int, default=10)
    args = parser.parse_args()
    gpus = torch.cuda.device_count()
    if gpus == 0:
        raise SystemExit("no CUDA GPU")
    devices = [f"cuda:{i % gpus}" for i in range(3)]
    with torch.no_grad():
        models = [LargeFcNet().to(d).eval() for d in devices]
        inputs = [torch.randn(100, 100, device=d) for d in devices]
        timed_loop(models, inputs, 1)  # warm-up
        plain, profiled = [], []
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        for r in range(args.rounds):
            plain.append(timed_loop(models, inputs, args.iters))
            with torch.profiler.profile(activities=activities):
                profiled.append(timed_loop(models, inputs, args.iters))
            print(f"round {r}: plain {plain[-1]:.1f} ms, torch.profiler {profiled[-1]:.1f} ms")
    base, prof = statistics.median(plain), statistics.median(profiled)
    print(f"| sequential, synced loop (median of {args.rounds}) | plain {base:.1f} ms | torch.profiler {prof:.1f} ms "
          f"| overhead {100 * (prof - base) / base:+.1f}% |")


if __name__ == "__main__":
    main()
