#!/usr/bin/env python3
"""Scales each adversarial shape (tests/adversarial/adversarial_traces.py) by 10 and reports how the time and peak
memory of the commands that shape attacks grow: at most n log n, so about 10-13x for 10x the input (n of 10^3 to
10^6); a cost that grows with the square shows as about 100x.

    bench/adversarial_bench.py GTV_CLI [--shape NAME ...] [--scale K] [--timeout S] [--work DIR]

For each shape: writes it at its base size and at 10x (gzip), then runs each of its commands once per size under
/usr/bin/time: CPU seconds (user + system, all threads; the growth is taken on them, since wall time on a shared
machine waits for other work) and peak resident MB. A command that does not finish within --timeout (default 600 s)
shows as a timeout. --scale K multiplies every base size by K (0.1 for a quick look).
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "adversarial"))
import adversarial_traces  # noqa: E402

# Base size and the commands of each shape (after `gtv-cli`, the file appended).
SHAPES = [
    ("measurements", 5000, [["analyze"], ["whatif", "--change", "streams"]]),
    ("measurements_no_links", 5000, [["analyze"]]),
    ("context_syncs", 5000, [["info"], ["analyze"]]),
    ("fan_in", 20000, [["analyze"], ["whatif", "--change", "no-sync=cudaDeviceSynchronize"]]),
    ("fan_out", 5000, [["analyze"], ["whatif", "--change", "no-sync=cudaStreamSynchronize"]]),
    ("deep_chain", 100000, [["analyze"], ["whatif", "--change", "no-sync=cudaDeviceSynchronize"]]),
    ("cycles", 20000, [["analyze"], ["whatif", "--change", "no-launch-blocking"]]),
    ("launch_blocking", 20000, [["analyze"], ["whatif", "--change", "no-launch-blocking"]]),
    ("shared_stream", 20000, [["analyze"], ["whatif", "--change", "streams"]]),
    ("threads_overlap", 2000, [["analyze"], ["whatif", "--change", "processes"]]),
]


def measure(cli, argv, path, timeout):
    """(CPU seconds, peak MB, exit status) of one run; status 124 when it ran past the timeout."""
    timing = tempfile.NamedTemporaryFile(delete=False)
    timing.close()
    cmd = ["/usr/bin/time", "-f", "%U %S %M", "-o", timing.name, "timeout", str(timeout), cli, argv[0], path, *argv[1:]]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    fields = open(timing.name).read().split()[-3:]
    os.unlink(timing.name)
    if len(fields) < 3:
        return float("nan"), float("nan"), r.returncode
    return float(fields[0]) + float(fields[1]), float(fields[2]) / 1024, r.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cli")
    parser.add_argument("--shape", action="append", choices=[s[0] for s in SHAPES])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--timeout", type=int, default=600)
    parser.add_argument("--work", default=None)
    args = parser.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="gtv-adversarial-")
    os.makedirs(work, exist_ok=True)
    print("# %s UTC, %s, nproc %d, loadavg %s" % (time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
                                                 " ".join(os.uname()[2:5:2]), os.cpu_count(),
                                                 " ".join(open("/proc/loadavg").read().split()[:3])))
    print("# cli: %s" % args.cli)
    print("# %-21s %-46s %8s %9s %8s %9s %8s %7s %7s %6s" %
          ("shape", "command", "n", "cpu_s", "peak_MB", "10n", "cpu_s", "peak_MB", "time_x", "mem_x"))
    for shape, base, commands in SHAPES:
        if args.shape and shape not in args.shape:
            continue
        n = max(2, int(base * args.scale))
        paths = []
        for size in (n, 10 * n):
            path = os.path.join(work, "%s-%d.json.gz" % (shape, size))
            if not os.path.exists(path):
                adversarial_traces.write(shape, size, path)
            paths.append(path)
        for argv in commands:
            small = measure(args.cli, argv, paths[0], args.timeout)
            large = measure(args.cli, argv, paths[1], args.timeout)
            status = "" if large[2] in (0, 1) else "  exit %d%s" % (large[2], " (timeout)" if large[2] == 124 else "")
            print("  %-21s %-46s %8d %9.2f %8.0f %9d %8.2f %7.0f %7.1f %6.1f%s" %
                  (shape, " ".join(argv), n, small[0], small[1], 10 * n, large[0], large[1], large[0] / max(small[0], 0.01),
                   large[1] / small[1], status), flush=True)
    print("# n log n at 10x: %.1fx (n = 10^3) to %.1fx (n = 10^6); n^2: 100x" %
          (10 * math.log(1e4) / math.log(1e3), 10 * math.log(1e7) / math.log(1e6)))


if __name__ == "__main__":
    main()
