#!/usr/bin/env python3
"""`gtv-cli analyze` of a run's rank files, side by side: the ranks' summaries reduced (the default, and with
`--jobs 1`: one rank in memory at a time; with --per-rank, also `--per-rank`) against the ranks merged into one
trace (`--merged`), each under `/usr/bin/time -v` (wall time, CPU time, peak resident memory of the process),
alternating, on each folder of generated ranks.

    python3 bench/ranks/analyze_bench.py --gtv-cli build/app/cli/gtv-cli --runs 3 [--per-rank] DIR8 DIR32 [-o raw]

Each DIR holds rank*.json.gz from `bench/ranks/rank_run_gen.py --ranks N --events 50000 -o DIR`. Every command
run with --clock collectives --format json; the bench checks that the reports' "stragglers" objects are equal
(the cross-rank answer is the same whichever way it was computed) and prints a Markdown table of medians.
Standard library only.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys


def measured(argv: list[str]) -> tuple[dict, str]:
    """Runs argv under /usr/bin/time -v; its figures and stdout."""
    r = subprocess.run(["/usr/bin/time", "-v", *argv], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("analyze_bench: %s failed (%d): %s" % (" ".join(argv[:3]), r.returncode, r.stderr[-2000:]))
    def field(name: str) -> str:
        m = re.search(r"^\s*" + re.escape(name) + r": (.+)$", r.stderr, re.M)
        if not m:
            sys.exit("analyze_bench: /usr/bin/time printed no %r" % name)
        return m.group(1).strip()
    wall = 0.0
    for part in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"):
        wall = wall * 60 + float(part)
    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    return {"wall_s": wall, "cpu_s": cpu, "rss_mb": int(field("Maximum resident set size (kbytes)")) / 1024}, r.stdout


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dirs", nargs="+")
    p.add_argument("--gtv-cli", default="build/app/cli/gtv-cli")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("-o", "--output", help="also write the raw figures (JSON lines) here")
    p.add_argument("--per-rank", action="store_true", help="also time analyze --per-rank (each rank's own verdict)")
    a = p.parse_args()
    raw = open(a.output, "w") if a.output else None
    rows = []
    for folder in a.dirs:
        files = sorted(glob.glob(os.path.join(folder, "rank*.json.gz")),
                       key=lambda f: int(re.search(r"rank(\d+)", os.path.basename(f)).group(1)))
        if len(files) < 2:
            sys.exit("analyze_bench: %s holds fewer than 2 rank*.json.gz" % folder)
        mb = sum(os.path.getsize(f) for f in files) / 2**20
        extras = {"summaries + reduce": [], "summaries + reduce, --jobs 1": ["--jobs", "1"], "--merged": ["--merged"]}
        if a.per_rank:
            extras["summaries + reduce, --per-rank"] = ["--per-rank"]
        ways = {way: [] for way in extras}
        reports = {}
        for run in range(a.runs):
            for way in ways:
                figures, out = measured([a.gtv_cli, "analyze", *extras[way], "--clock", "collectives", "--format",
                                         "json", *files])
                ways[way].append(figures)
                reports[way] = json.loads(out)["stragglers"]
                line = {"ranks": len(files), "way": way, "run": run, **figures}
                print(json.dumps(line), file=sys.stderr)
                if raw:
                    print(json.dumps(line), file=raw, flush=True)
        same = all(report == reports["--merged"] for report in reports.values())
        if not same:
            sys.exit("analyze_bench: the two ways' stragglers differ on %s" % folder)
        for way, runs in ways.items():
            medians = [statistics.median(r[k] for r in runs) for k in ("wall_s", "cpu_s", "rss_mb")]
            rows.append((len(files), mb, way, *medians, min(r["wall_s"] for r in runs), max(r["wall_s"] for r in runs)))
    print("| ranks (MB of .json.gz) | analyze | wall (median; min-max) | CPU | peak RSS |")
    print("|---|---|---|---|---|")
    for ranks, mb, way, wall, cpu, rss, lo, hi in rows:
        print("| %d (%.1f MB) | %s | %.2f s (%.2f-%.2f) | %.2f s | %.0f MB |" %
              (ranks, mb, way, wall, lo, hi, cpu, rss))
    print("stragglers equal every way on every folder: yes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
