#!/usr/bin/env python3
"""Records the PyTorch profiler fixtures in this folder on a machine with CUDA GPUs.

Usage: python3 record_fixtures.py OUT_DIR [one_gpu|two_gpus|conv|ddp|ddp_gloo ...]

Each fixture is a small real workload traced by torch.profiler with CPU and CUDA activities and written with
export_chrome_trace, then gzipped. They are what `gtv` must open as "someone else's trace":
  - two_gpus_streams.json.gz: an MLP on cuda:0 and cuda:1 (one on a side stream), a pinned and a pageable copy
    back to the host, record_function ranges, recorded shapes;
  - one_gpu_basic.json.gz: a few matrix products on cuda:0 on the default stream (plain settings);
  - two_gpus_schedule.json.gz: the same two-GPU loop under a wait/warmup/active schedule (what the profiler
    writes when users follow the tutorial), with memory profiling on;
  - conv_training.json.gz: a small convolutional net trained for a few steps under a schedule (recorded after
    warm-up, as users record their own training): one kernel name runs at several layer shapes;
  - ddp_rank0.json.gz, ddp_rank1.json.gz: the same net trained with DistributedDataParallel (NCCL), one process
    per GPU, each rank recorded under a schedule into its own file (distributedInfo names rank and world size);
  - ddp_gloo_rank0.json.gz, ddp_gloo_rank1.json.gz: the same with the Gloo backend, both ranks on cuda:0 (what a
    machine with one GPU can run: NCCL refuses two ranks on one GPU); rank 1 sleeps 2 ms before each step, so it
    is the straggler; gradients go through the host, so there are no NCCL kernels.
"""
import gzip
import os
import shutil
import sys

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule


def mlp(device):
    torch.manual_seed(0)
    layers = []
    for _ in range(3):
        layers += [torch.nn.Linear(512, 512), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers).to(device).eval()


def two_gpu_step(models, inputs, side_stream, pinned_out):
    with record_function("iteration"):
        with record_function("forward cuda:0"):
            y0 = models[0](inputs[0])
        with torch.cuda.device(1), torch.cuda.stream(side_stream):
            with record_function("forward cuda:1 (side stream)"):
                y1 = models[1](inputs[1])
        pinned_out.copy_(y0, non_blocking=True)  # pinned destination: asynchronous
        host = y1.to("cpu")  # pageable destination: synchronous
        torch.cuda.synchronize(0)
        torch.cuda.synchronize(1)
        return host


def gzip_file(path):
    with open(path, "rb") as src, gzip.open(path + ".gz", "wb", compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(path)
    print("wrote", path + ".gz", os.path.getsize(path + ".gz"), "bytes")


def record_two_gpus(out_dir):
    models = [mlp("cuda:0"), mlp("cuda:1")]
    inputs = [torch.randn(256, 512, device="cuda:0"), torch.randn(256, 512, device="cuda:1")]
    side_stream = torch.cuda.Stream(device=1)
    pinned_out = torch.empty(256, 512, pin_memory=True)
    with torch.no_grad():
        two_gpu_step(models, inputs, side_stream, pinned_out)  # warm-up outside the trace
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
            for _ in range(3):
                two_gpu_step(models, inputs, side_stream, pinned_out)
    path = os.path.join(out_dir, "two_gpus_streams.json")
    prof.export_chrome_trace(path)
    gzip_file(path)

    with torch.no_grad():
        sched = schedule(wait=1, warmup=1, active=2, repeat=1)
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=sched,
                     profile_memory=True) as prof:
            for _ in range(4):
                two_gpu_step(models, inputs, side_stream, pinned_out)
                prof.step()
    path = os.path.join(out_dir, "two_gpus_schedule.json")
    prof.export_chrome_trace(path)
    gzip_file(path)


def record_one_gpu(out_dir):
    a = torch.randn(1024, 1024, device="cuda:0")
    b = torch.randn(1024, 1024, device="cuda:0")
    torch.mm(a, b)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(4):
            c = torch.mm(a, b)
            a = torch.relu(c)
        torch.cuda.synchronize()
    path = os.path.join(out_dir, "one_gpu_basic.json")
    prof.export_chrome_trace(path)
    gzip_file(path)


def conv_net(device):
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(32, 64, 3, padding=1, stride=2), torch.nn.ReLU(),
        torch.nn.Conv2d(64, 64, 3, padding=1, stride=2), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, 10)).to(device)


def train_steps(model, optimizer, data, target, prof, steps):
    loss_fn = torch.nn.CrossEntropyLoss()
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(data), target)
        loss.backward()
        optimizer.step()
        prof.step()


def record_conv_training(out_dir):
    model = conv_net("cuda:0")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    data = torch.randn(64, 3, 64, 64, device="cuda:0")
    target = torch.randint(0, 10, (64,), device="cuda:0")
    sched = schedule(wait=1, warmup=2, active=3, repeat=1)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=sched) as prof:
        train_steps(model, optimizer, data, target, prof, 6)
    torch.cuda.synchronize()
    path = os.path.join(out_dir, "conv_training.json")
    prof.export_chrome_trace(path)
    gzip_file(path)


def ddp_worker(rank, world_size, out_dir, port, backend="nccl"):
    import time
    import torch.distributed as dist
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    gpu = rank if backend == "nccl" else 0
    torch.cuda.set_device(gpu)
    dist.init_process_group(backend, rank=rank, world_size=world_size)
    model = torch.nn.parallel.DistributedDataParallel(conv_net(f"cuda:{gpu}"), device_ids=[gpu])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    data = torch.randn(64, 3, 64, 64, device=f"cuda:{gpu}")
    target = torch.randint(0, 10, (64,), device=f"cuda:{gpu}")
    sched = schedule(wait=1, warmup=2, active=3, repeat=1)
    straggle_s = 0.002 if backend == "gloo" and rank == 1 else 0.0

    class Straggler:  # sleeps before each step on the straggling rank, then steps the profiler
        def step(self):
            prof.step()
            if straggle_s:
                time.sleep(straggle_s)

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=sched) as prof:
        train_steps(model, optimizer, data, target, Straggler(), 6)
    torch.cuda.synchronize()
    name = "ddp" if backend == "nccl" else "ddp_gloo"
    path = os.path.join(out_dir, f"{name}_rank{rank}.json")
    prof.export_chrome_trace(path)
    gzip_file(path)
    dist.destroy_process_group()


def record_ddp(out_dir, backend="nccl"):
    import torch.multiprocessing as mp
    mp.spawn(ddp_worker, args=(2, out_dir, 29517 if backend == "nccl" else 29518, backend), nprocs=2, join=True)


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out_dir, exist_ok=True)
    print("torch", torch.__version__, "cuda", torch.version.cuda, "gpus", torch.cuda.device_count())
    only = sys.argv[2:]  # fixture groups to record: one_gpu two_gpus conv ddp (all when none named); ddp_gloo
    if not only or "one_gpu" in only:
        record_one_gpu(out_dir)
    if not only or "conv" in only:
        record_conv_training(out_dir)
    if "ddp_gloo" in only:
        record_ddp(out_dir, "gloo")
    if torch.cuda.device_count() >= 2:
        if not only or "two_gpus" in only:
            record_two_gpus(out_dir)
        if not only or "ddp" in only:
            record_ddp(out_dir)
    else:
        print("only one GPU: two-GPU fixtures not recorded")


if __name__ == "__main__":
    main()
