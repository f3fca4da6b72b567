#!/usr/bin/env python3
"""Start-up cost of gtv's programs: wall time, peak resident memory and the shared libraries loaded.

usage: bench/startup_bench.py --cli GTV_CLI --trace TRACE [--gui GTV] [--runs N] [--label TEXT]

For `gtv-cli --version` and `gtv-cli info TRACE` (and, with --gui, `gtv --version`, which starts Qt offscreen):
  wall ms     median and maximum of N runs (default 20, after one untimed run that warms the page cache),
              time.perf_counter around subprocess.run, output to /dev/null
  peak RSS    the largest "Maximum resident set size" of /usr/bin/time -v over 5 runs, in MB (1 MB = 1024 KiB)
  libraries   shared objects the dynamic loader loaded (LD_DEBUG=libs "calling init:" lines: one per object,
              the dynamic loader itself included, the program not) and the lines of `ldd PROGRAM`, with the heavy
              ones named (LibTorch, c10, CUPTI, CUDA, ICU, Qt)
No limits are checked here: it prints numbers.
"""
import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import time

HEAVY = ("libtorch", "libc10", "libcupti", "libcuda", "libicu", "libQt")


def wall_ms(argv, runs, env):
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        times.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(times), max(times)


def peak_rss_mb(argv, env):
    peaks = []
    for _ in range(5):
        r = subprocess.run(["/usr/bin/time", "-v", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, env=env)
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr)
        peaks.append(int(m.group(1)) if m else 0)
    return max(peaks) / 1024.0


def loaded_libraries(argv, env):
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       env=dict(env, LD_DEBUG="libs"))
    names = []
    for line in r.stderr.splitlines():  # "  4711:\tcalling init: /lib/x86_64-linux-gnu/libz.so.1", one per object
        if "calling init:" in line:
            names.append(os.path.basename(line.split("calling init:", 1)[1].strip()))
    return names


def ldd_lines(program):
    r = subprocess.run(["ldd", program], capture_output=True, text=True)
    return r.stdout.splitlines()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--trace", required=True)
    parser.add_argument("--gui")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    env = dict(os.environ)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print("# %s %s, nproc %d (%s), loadavg %s" % (time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                                                 platform.platform(), os.cpu_count(), cpu,
                                                 " ".join(open("/proc/loadavg").read().split()[:3])))
    print("# %s" % args.label)
    version = subprocess.run([args.cli, "--version"], capture_output=True, text=True).stdout.strip()
    print("# cli: %s (%s), trace: %s (%d bytes), %d runs" % (args.cli, version, args.trace,
                                                            os.path.getsize(args.trace), args.runs))
    cases = [("gtv-cli --version", [args.cli, "--version"]), ("gtv-cli info TRACE", [args.cli, "info", args.trace])]
    if args.gui:
        cases.append(("gtv --version", [args.gui, "--version"]))
    print("# %-20s %9s %9s %8s %6s %5s  %s" % ("command", "median_ms", "max_ms", "rss_MB", "loaded", "ldd",
                                             "heavy libraries loaded"))
    for label, argv in cases:
        median, worst = wall_ms(argv, args.runs, env)
        rss = peak_rss_mb(argv, env)
        loaded = loaded_libraries(argv, env)
        heavy = sorted({n for n in loaded if n.startswith(HEAVY)})
        print("  %-20s %9.1f %9.1f %8.1f %6d %5d  %s" % (label, median, worst, rss, len(loaded),
                                                      len(ldd_lines(argv[0])), ", ".join(heavy) or "none"))
    print("# loadavg after: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
