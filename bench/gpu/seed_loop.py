#!/usr/bin/env python3
"""The seed's `sequential` loop in Python, timed with and without torch.profiler, for the overhead table.

Same workload as `gtv-cli run sequential` with default sizes: LargeFcNet(100 -> 10000 x6 -> 100, dropout 0.4),
batch 100, 3 models round-robin over the GPUs, one warm-up pass, then 10 timed iterations; the wall time is taken
after torch.cuda.synchronize() on every device. Prints one JSON line per run: {"mode": ..., "synced_wall_ns": ...}.
Usage: seed_loop.py MODE [REPEATS]   MODE: plain | profiler
"""
import json
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile


class LargeFcNet(torch.nn.Module):
    def __init__(self, input_size=100, hidden=10000, output=100, dropout=0.4):
        super().__init__()
        layers, width = [], input_size
        for _ in range(6):
            layers += [torch.nn.Linear(width, hidden), torch.nn.ReLU(), torch.nn.Dropout(dropout)]
            width = hidden
        layers.append(torch.nn.Linear(width, output))
        self.net = torch.nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def sync_all():
    for d in range(torch.cuda.device_count()):
        torch.cuda.synchronize(d)


def timed_loop(models, inputs, iters=10):
    sync_all()
    start = time.perf_counter_ns()
    for _ in range(iters):
        for model, x in zip(models, inputs):
            model(x)
    sync_all()
    return time.perf_counter_ns() - start


def main():
    mode = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    gpus = torch.cuda.device_count()
    devices = [f"cuda:{i % gpus}" for i in range(3)]
    torch.manual_seed(0)
    models = [LargeFcNet().to(d).eval() for d in devices]
    inputs = [torch.randn(100, 100, device=d) for d in devices]
    with torch.no_grad():
        timed_loop(models, inputs, iters=1)  # warm-up
        for _ in range(repeats):
            if mode == "profiler":
                with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
                    wall_ns = timed_loop(models, inputs)
            else:
                wall_ns = timed_loop(models, inputs)
            print(json.dumps({"mode": "torch.profiler" if mode == "profiler" else "python untraced",
                              "synced_wall_ns": wall_ns}), flush=True)


if __name__ == "__main__":
    main()
