#!/usr/bin/env python3
"""What the main thread pays to receive and to free a batch from a DataLoader's worker processes (pin_memory=False).

Usage: python3 bench/training/loader_free.py [STEPS]

A DataLoader with 4 workers hands the main thread batches of 128 images of 3x128x128 (25 MB) in shared memory. Per
batch this prints the time in `next()` (receiving it), in touching every page once (a clone, standing in for the
copy to the GPU), and in rebinding the name, which frees the received batch (`x = x.to(device)` does the same).
With pin_memory=True the DataLoader's pin-memory thread does the receiving and the freeing instead (docs/whatif.md,
`pinned`). Needs PyTorch, no GPU.
"""
import sys
import time

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 12
images = torch.randn((steps + 4) * 128, 3, 128, 128)
labels = torch.randint(0, 10, ((steps + 4) * 128,))
batches = iter(torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, labels), batch_size=128,
                                           num_workers=4, pin_memory=False))
time.sleep(2)  # let the workers fill their queue: next() then receives, it does not wait for a batch to be made
for _ in range(steps):
    t0 = time.perf_counter()
    x, y = next(batches)
    t1 = time.perf_counter()
    copy = x.clone()
    t2 = time.perf_counter()
    x = copy
    t3 = time.perf_counter()
    print(f"next {1e3 * (t1 - t0):6.2f} ms  touch {1e3 * (t2 - t1):6.2f} ms  free {1e3 * (t3 - t2):6.2f} ms", flush=True)
