#!/usr/bin/env python3
"""Writes a generated distributed run as per-rank PyTorch-profiler files (Kineto JSON, gzip), with its planted
answers alongside: which rank was late at each step and by how much, every rank's wait, every rank's clock offset
and the steps whose all-reduce crossed a slow link.

    python3 bench/ranks/rank_run_gen.py --ranks 1024 --events 50000 -o DIR [--steps 1000] [--jobs 2] [--seed 1]

DIR/rank{r}.json.gz for every rank r and DIR/planted.json. The run, step by step:
- every rank computes (15 GEMM kernels, each launched by an aten::mm cpu_op through cudaLaunchKernel with an ac2g
  flow, inside a ProfilerStep#N cpu_op), then all-reduces (record_param_comms, cudaLaunchKernel, an NCCL kernel
  with PyTorch's "Seq" and "Process Group Name" args): 50 X events a rank a step;
- per-rank noise: each rank's compute time is 1 ms plus uniform noise of +/- that rank's own spread (10-50 us);
- stragglers: a few ranks (--stragglers) take turns; at each step one of them computes 0.5-3 ms longer;
- the all-reduce kernels start at each rank's arrival and end, on every rank, the transfer time after the last
  arrival (200 us; on slow-link steps, every --slow-link-every-th, 1.2 ms) plus 0-3 us of per-rank jitter;
- clock offsets: every rank's timestamps read its host clock, off the truth by up to +/- --offset-us (50 ms).

planted.json: {"ranks", "steps", "events_per_rank", "offset_ns": [per rank: clock minus truth],
"straggler": [per step], "delay_ns": [per step], "wait_ns": [[per step, per rank]: last arrival minus own arrival],
"transfer_ns": [per step], "slow_link_steps": [...]}. Standard library plus numpy.
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing
import os
import sys

import numpy as np

BASE_NS = 1790857026000000000
ALLREDUCE = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
GEMM = "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel"
KERNELS_PER_STEP = 15
EVENTS_PER_STEP = 3 * (KERNELS_PER_STEP + 1) + 2  # cpu_op, launch and kernel of each; ProfilerStep; optimizer
HOST_TID = 4242
STREAM = 7
US = 1000


class Plan:
    """The whole run's truth, computed once: arrivals on the true clock, ends, offsets, the answers."""

    def __init__(self, ranks: int, steps: int, stragglers: int, slow_link_every: int, offset_us: int, seed: int):
        rng = np.random.default_rng(seed)
        self.ranks, self.steps = ranks, steps
        self.offset_ns = rng.integers(-offset_us * US, offset_us * US, ranks, endpoint=True)
        spread = rng.integers(10 * US, 50 * US, ranks, endpoint=True)  # each rank's own noise level
        late = rng.choice(ranks, size=min(stragglers, ranks), replace=False)
        self.straggler = late[np.arange(steps) % len(late)]
        self.delay_ns = rng.integers(500 * US, 3000 * US, steps, endpoint=True)
        self.transfer_ns = np.full(steps, 200 * US, dtype=np.int64)
        self.slow_link_steps = [s for s in range(steps)
                                if slow_link_every > 0 and s % slow_link_every == slow_link_every - 1]
        self.transfer_ns[self.slow_link_steps] = 1200 * US
        noise = rng.uniform(-1.0, 1.0, (steps, ranks)) * spread  # [step, rank]
        compute = (1000 * US + noise).astype(np.int64)
        compute[np.arange(steps), self.straggler] += self.delay_ns
        jitter = rng.integers(0, 3 * US, (steps, ranks), endpoint=True)
        self.start = np.zeros((steps, ranks), dtype=np.int64)
        self.arrival = np.zeros((steps, ranks), dtype=np.int64)
        self.end = np.zeros((steps, ranks), dtype=np.int64)
        t = 100_000 * US
        for s in range(steps):
            start = t + rng.integers(0, 5 * US, ranks, endpoint=True)  # ranks leave the previous all-reduce apart
            self.start[s] = start
            self.arrival[s] = start + compute[s]
            last = int(self.arrival[s].max())
            self.end[s] = last + self.transfer_ns[s] + jitter[s]
            t = int(self.end[s].max()) + 50 * US
        self.wait_ns = self.arrival.max(axis=1, keepdims=True) - self.arrival

    def answers(self) -> dict:
        return {"ranks": self.ranks, "steps": self.steps, "events_per_rank": self.steps * EVENTS_PER_STEP,
                "offset_ns": self.offset_ns.tolist(), "straggler": self.straggler.tolist(),
                "delay_ns": self.delay_ns.tolist(), "wait_ns": self.wait_ns.tolist(),
                "transfer_ns": self.transfer_ns.tolist(), "slow_link_steps": self.slow_link_steps}


def _us(ns: int) -> str:
    return f"{ns // 1000}.{ns % 1000:03d}"


def rank_events(plan: Plan, r: int):
    """Rank r's events as JSON text, one step at a time, on rank r's own (offset) clock, relative to BASE_NS."""
    off = int(plan.offset_ns[r])
    corr = 0
    ext = 0
    for s in range(plan.steps):
        start = int(plan.start[s, r]) + off
        arrival = int(plan.arrival[s, r]) + off
        end = int(plan.end[s, r]) + off
        out = []
        # The host runs ahead: it launches the step's kernels during the previous all-reduce.
        host = start - 150 * US
        out.append(f'{{"ph":"X","cat":"cpu_op","name":"ProfilerStep#{s}","pid":{r},"tid":{HOST_TID},'
                   f'"ts":{_us(host)},"dur":{_us(140 * US)},"args":{{"External id":{ext}}}}}')
        ext += 1
        kernel_ns = (arrival - start) // KERNELS_PER_STEP
        k_start = start
        for k in range(KERNELS_PER_STEP + 1):
            corr += 1
            ext += 1
            op = host + 2 * US + k * 8 * US
            collective = k == KERNELS_PER_STEP
            name = "record_param_comms" if collective else "aten::mm"
            out.append(f'{{"ph":"X","cat":"cpu_op","name":"{name}","pid":{r},"tid":{HOST_TID},"ts":{_us(op)},'
                       f'"dur":{_us(7 * US)},"args":{{"External id":{ext}}}}}')
            out.append(f'{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":{r},"tid":{HOST_TID},'
                       f'"ts":{_us(op + 2 * US)},"dur":{_us(4 * US)},"args":{{"External id":{ext},"cbid":211,'
                       f'"correlation":{corr}}}}}')
            if collective:
                ks, kd = arrival, end - arrival
                out.append(f'{{"ph":"X","cat":"kernel","name":"{ALLREDUCE}","pid":0,"tid":{STREAM},"ts":{_us(ks)},'
                           f'"dur":{_us(kd)},"args":{{"External id":{ext},"device":0,"stream":{STREAM},'
                           f'"correlation":{corr},"Process Group Name":"0","Seq":{s}}}}}')
            else:
                ks = k_start
                kd = kernel_ns if k < KERNELS_PER_STEP - 1 else arrival - k_start
                k_start += kd
                out.append(f'{{"ph":"X","cat":"kernel","name":"{GEMM}","pid":0,"tid":{STREAM},"ts":{_us(ks)},'
                           f'"dur":{_us(kd)},"args":{{"External id":{ext},"device":0,"stream":{STREAM},'
                           f'"correlation":{corr}}}}}')
            out.append(f'{{"ph":"s","id":{corr},"pid":{r},"tid":{HOST_TID},"ts":{_us(op + 3 * US)},"cat":"ac2g",'
                       f'"name":"ac2g"}}')
            out.append(f'{{"ph":"f","id":{corr},"pid":0,"tid":{STREAM},"ts":{_us(ks)},"cat":"ac2g","name":"ac2g",'
                       f'"bp":"e"}}')
        ext += 1
        out.append(f'{{"ph":"X","cat":"cpu_op","name":"Optimizer.step#SGD.step","pid":{r},"tid":{HOST_TID},'
                   f'"ts":{_us(host + 135 * US)},"dur":{_us(4 * US)},"args":{{"External id":{ext}}}}}')
        yield ",\n".join(out)


def write_rank(plan: Plan, r: int, folder: str, level: int) -> str:
    path = os.path.join(folder, f"rank{r}.json.gz")
    tmp = path + ".tmp"
    head = json.dumps({"schemaVersion": 1, "baseTimeNanoseconds": BASE_NS,
                       "distributedInfo": {"backend": "nccl", "rank": r, "world_size": plan.ranks}})
    with gzip.open(tmp, "wt", compresslevel=level) as f:
        f.write(head[:-1] + ',\n"traceEvents": [\n')
        first = True
        for chunk in rank_events(plan, r):
            if not first:
                f.write(",\n")
            f.write(chunk)
            first = False
        f.write("\n]}\n")
    os.replace(tmp, path)
    return path


_PLAN: Plan | None = None


def _write(args):
    r, folder, level = args
    return write_rank(_PLAN, r, folder, level)


def generate(folder: str, ranks: int, steps: int, *, stragglers: int = 3, slow_link_every: int = 10,
             offset_us: int = 50_000, seed: int = 1, jobs: int = 1, level: int = 1, progress=None) -> dict:
    """Writes the run to folder; returns the planted answers (also written to folder/planted.json)."""
    global _PLAN
    os.makedirs(folder, exist_ok=True)
    _PLAN = Plan(ranks, steps, stragglers, slow_link_every, offset_us, seed)
    answers = _PLAN.answers()
    with open(os.path.join(folder, "planted.json"), "w") as f:
        json.dump(answers, f)
    work = [(r, folder, level) for r in range(ranks)]
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for i, path in enumerate(pool.imap_unordered(_write, work)):
                if progress:
                    progress(i + 1, ranks, path)
    else:
        for i, w in enumerate(work):
            path = _write(w)
            if progress:
                progress(i + 1, ranks, path)
    return answers


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ranks", type=int, required=True)
    p.add_argument("--events", type=int, default=50_000, help="X events a rank (rounded down to whole steps of "
                   f"{EVENTS_PER_STEP}); ignored with --steps")
    p.add_argument("--steps", type=int, help="steps (all-reduces) a rank")
    p.add_argument("--stragglers", type=int, default=3, help="ranks that take turns being late (default 3)")
    p.add_argument("--slow-link-every", type=int, default=10, help="every K-th all-reduce is slow (0: none)")
    p.add_argument("--offset-us", type=int, default=50_000, help="clock offsets up to +/- this (default 50 ms)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="processes writing files")
    p.add_argument("--gzip-level", type=int, default=1)
    p.add_argument("-o", "--output", required=True, help="folder")
    a = p.parse_args(argv)
    steps = a.steps or a.events // EVENTS_PER_STEP
    if a.ranks < 2 or steps < 1:
        p.error("needs at least 2 ranks and 1 step")
    if not 0 <= a.offset_us < 100_000:
        p.error("--offset-us must be in [0, 100000): the run starts 100 ms after the files' base time")

    def progress(done, total, path):
        if done == total or done % 64 == 0:
            print(f"rank_run_gen: {done}/{total} ranks written ({path})", file=sys.stderr, flush=True)

    generate(a.output, a.ranks, steps, stragglers=a.stragglers, slow_link_every=a.slow_link_every,
             offset_us=a.offset_us, seed=a.seed, jobs=a.jobs, level=a.gzip_level, progress=progress)
    print(f"rank_run_gen: {a.ranks} ranks x {steps * EVENTS_PER_STEP} X events ({steps} steps) in {a.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
