"""gtv-cli record on a real GPU (ctest label gpu): a small CUDA program (gtv_record_target) recorded whole, within
cudaProfilerStart/Stop and within NVTX ranges; two ranks of a launcher; a fork after CUDA was initialised; and,
when PyTorch is there, a Python script with NVTX ranges. Counts come from the written files, read here with json.

usage: record_gpu_test.py --cli GTV_CLI --target GTV_RECORD_TARGET --work DIR
Exit 0 when every check holds (or with "SKIP" when there is no GPU), 1 otherwise.
"""
import argparse
import json
import os
import subprocess
import sys

failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def record(args, out, *command, extra=(), env=None):
    return subprocess.run([args.cli, "record", "-o", out, *extra, "--", *command], capture_output=True, text=True,
                          timeout=300, env=env)


def events(path):
    with open(path) as f:
        trace = json.load(f)
    return trace, [e for e in trace["traceEvents"] if e.get("ph") == "X"]


def named(evs, name):
    return [e for e in evs if e.get("name") == name]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--target", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    probe = subprocess.run([args.target, "--launches", "0"], capture_output=True, text=True, timeout=120)
    if probe.returncode == 77:
        print("SKIP: no CUDA driver or GPU")
        return 0

    whole = os.path.join(args.work, "whole.json")
    r = record(args, whole, args.target, "--launches", "5")
    print(r.stderr)
    check(r.returncode == 0, "record of the whole run: exit 0")
    trace, evs = events(whole)
    check(len(named(evs, "gtv_record_noop")) == 7, "7 kernels: warm-up, 5 steps, after (%d)"
          % len(named(evs, "gtv_record_noop")))
    check(len(named(evs, "step")) == 5, "5 NVTX ranges 'step' (%d)" % len(named(evs, "step")))
    check(len(named(evs, "warm-up")) == 1, "the NVTX range 'warm-up'")
    check(any("Memset" in e["name"] for e in evs), "the memset")
    check(any("Memcpy HtoD" in e["name"] for e in evs), "the copy to the device")
    check(len(named(evs, "cuLaunchKernel")) >= 7, "the launches (driver API)")
    costs = trace["gtv"]["metadata"].get("recorder_cost", [])
    check(len(costs) == 1 and costs[0]["startup_ns"] > 0 and costs[0]["traced_ns"] > 0,
          "the recorder's own cost is in the file: %r" % costs)
    check("recording cost" in r.stderr, "and printed")

    api = os.path.join(args.work, "api.json")
    r = record(args, api, args.target, "--launches", "5", extra=["--capture-range", "cudaProfilerApi"])
    check(r.returncode == 0, "cudaProfilerApi: exit 0")
    _, evs = events(api)
    check(len(named(evs, "gtv_record_noop")) == 5, "cudaProfilerApi keeps the 5 kernels between start and stop (%d)"
          % len(named(evs, "gtv_record_noop")))

    nvtx = os.path.join(args.work, "nvtx.json")
    r = record(args, nvtx, args.target, "--launches", "4", extra=["--capture-range", "nvtx:step"])
    check(r.returncode == 0, "nvtx:step: exit 0")
    _, evs = events(nvtx)
    check(len(named(evs, "gtv_record_noop")) == 4, "nvtx:step keeps the 4 kernels inside the ranges (%d)"
          % len(named(evs, "gtv_record_noop")))

    limited = os.path.join(args.work, "limited.json")
    r = record(args, limited, args.target, "--launches", "50", extra=["--max-events", "20"])
    check(r.returncode == 0, "--max-events 20: exit 0")
    trace, evs = events(limited)
    notes = trace["gtv"]["metadata"]["notes"]
    check(any(n.startswith("the event limit (--max-events 20) was reached") for n in notes),
          "--max-events: the note says what was left out")

    forked = os.path.join(args.work, "forked.json")
    r = record(args, forked, args.target, "--fork")
    check(r.returncode == 0, "fork after CUDA initialised: exit 0, no hang")
    check("forked from a traced process after it had initialised CUDA" in r.stderr, "and a note says so")

    ranks = os.path.join(args.work, "ranks.json")
    script = ('RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 "$0" & RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 "$0"; s=$?; wait $! || exit 1; '
              'exit $s')
    r = record(args, ranks, "sh", "-c", script, args.target)
    check(r.returncode == 0, "two ranks: exit 0 (%s)" % r.stderr.strip()[-300:])
    trace, evs = events(ranks)
    meta = trace["gtv"]["metadata"]
    check(len(meta.get("ranks", [])) == 2 and meta["clock"]["method"] == "wall clock",
          "two ranks merged as merge does, on the wall clock")
    check(len(meta.get("recorder_cost", [])) == 2, "each rank's recorder cost")

    code = subprocess.run([sys.executable, "-c", "import torch; assert torch.cuda.is_available()"],
                          capture_output=True).returncode
    if code == 0:
        py = os.path.join(args.work, "torch.json")
        script = ("import torch\nx = torch.ones(256, 256, device='cuda')\n"
                  "for i in range(3):\n    with torch.cuda.nvtx.range('iteration'):\n        x = x @ x\n"
                  "torch.cuda.synchronize()\n")
        r = record(args, py, sys.executable, "-c", script)
        check(r.returncode == 0, "a PyTorch script: exit 0 (%s)" % r.stderr.strip()[-300:])
        _, evs = events(py)
        check(len(named(evs, "iteration")) == 3, "its 3 NVTX ranges (torch.cuda.nvtx.range)")
        check(sum(1 for e in evs if e.get("cat") == "kernel") >= 3, "its GEMM kernels")
    else:
        print("no PyTorch with CUDA here: the Python check is left out")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
