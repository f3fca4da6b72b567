"""The ranks of a run on a Dask cluster: each rank's trace summarized where a worker reads it, the summaries
gathered and reduced into the cross-rank report (``gtv-cli summarize`` on every rank, then ``gtv-cli reduce``).

    import gtv.ranks
    report = gtv.ranks.analyze("run/rank*.json.gz")              # a LocalCluster of 2 worker processes
    report = gtv.ranks.analyze(paths, client=Client(scheduler_file="sched.json"))
    print(report.text); report.failed                            # {path: error} of the ranks left out

    python -m gtv.ranks 'run/rank*.json.gz' [--scheduler-file F] [-o report.txt] [--format json]
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
from collections import Counter
from typing import Callable, Iterable, Optional, Union

from . import _core
from ._summary import RankReport, Summary, summarize

#: progress(done, total, path, error): called on the client as each rank's task finishes; error is None when the
#: rank was summarized, else the one-line reason it was left out.
Progress = Callable[[int, int, str, Optional[str]], None]


def _summarize_task(path: str):
    """Runs on a worker: the rank's .gtvsum bytes, or the reason it could not be summarized."""
    try:
        return path, summarize(path).bytes(), None
    except _core.GtvError as e:
        return path, None, str(e)


def expand(paths_or_glob: Union[str, os.PathLike, Iterable]) -> list[str]:
    """A glob pattern (sorted matches) or a list of paths (kept in order), made absolute against this process's
    working directory: the workers may run in another one, or on other hosts of a shared file system."""
    if isinstance(paths_or_glob, (str, os.PathLike)):
        pattern = os.fspath(paths_or_glob)
        paths = sorted(glob.glob(pattern))
        if not paths:
            paths = [pattern]  # a plain path that does not exist: its rank fails by name
    else:
        paths = [os.fspath(p) for p in paths_or_glob]
    return [os.path.abspath(p) for p in paths]


def _named(path: str, error: str) -> str:
    """The error with the file named once (the core's messages already name it)."""
    return error if path in error else f"{path}: {error}"


def print_progress(done: int, total: int, path: str, error: Optional[str]) -> None:
    """The default progress: one line on stderr per rank as it finishes."""
    if error is None:
        print(f"gtv.ranks: [{done}/{total}] summarized {path}", file=sys.stderr, flush=True)
    else:
        print(f"gtv.ranks: [{done}/{total}] left out {_named(path, error)}", file=sys.stderr, flush=True)


#: Ranks whose recordings start further apart than this are refused as different runs (gtv-cli reduce's limit).
MAX_START_GAP_NS = 3600 * 10**9


def _other_runs(summaries: dict[str, Summary]) -> dict[str, str]:
    """Files that belong to another run, named with the reason: a world size that is not the one most ranks give,
    or a recording that starts more than an hour from the median start of the ranks."""
    sizes = {path: s.world_sizes for path, s in summaries.items()}
    counts = Counter(w for ws in sizes.values() for w in ws if w > 0)
    other: dict[str, str] = {}
    if len(counts) >= 2:
        world, _ = counts.most_common(1)[0]
        for path, ws in sizes.items():
            if any(w > 0 and w != world for w in ws):
                other[path] = f"world size {', '.join(str(w) for w in ws)}, the other ranks' {world}: another run"
    starts = sorted(t for path, s in summaries.items() if path not in other for t in s.start_unix_ns)
    if starts:
        median = starts[len(starts) // 2]
        for path, s in summaries.items():
            gap = max((abs(t - median) for t in s.start_unix_ns), default=0)
            if path not in other and gap > MAX_START_GAP_NS:
                other[path] = f"recorded {gap / 3.6e12:.1f} h from the other ranks' median start: another run"
    return other


def analyze(
    paths_or_glob,
    client=None,
    *,
    clock: str = "wall",
    progress: Optional[Progress] = print_progress,
    n_workers: int = 2,
) -> RankReport:
    """Summarizes every rank file on the cluster's workers (one task per file, read where the worker runs; only
    the summary's bytes come back), then reduces the summaries here. Without a client, a LocalCluster of
    n_workers processes is started and closed. A rank that cannot be summarized (unreadable, truncated, not a
    trace) or that belongs to another run (another world size, or recorded more than an hour from the others)
    is left out and named in ``report.failed``; the
    others still reduce. A worker lost mid-run is replaced by Dask, which runs its tasks again elsewhere. Raises
    gtv.GtvError when no rank is left or the remaining summaries do not reduce (gtv-cli reduce's message)."""
    paths = expand(paths_or_glob)
    if not paths:
        raise ValueError("analyze needs at least one rank file")
    if client is None:
        from distributed import Client, LocalCluster

        with LocalCluster(
            n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster, Client(cluster) as own:
            return _run(paths, own, clock, progress)
    return _run(paths, client, clock, progress)


def _run(paths: list[str], client, clock: str, progress: Optional[Progress]) -> RankReport:
    from distributed import as_completed

    futures = client.map(_summarize_task, paths, pure=False)
    index = {f.key: i for i, f in enumerate(futures)}
    summaries: dict[str, Summary] = {}
    failed: dict[str, str] = {}
    done = 0
    for future in as_completed(futures):
        path = paths[index[future.key]]
        try:
            _, data, error = future.result()
            if error is None:
                summaries[path] = Summary.from_bytes(data, path)
        except Exception as e:  # the task itself failed on every worker Dask tried (e.g. KilledWorker)
            error = f"{type(e).__name__}: {e}"
        if error is not None:
            failed[path] = error
        done += 1
        if progress is not None:
            progress(done, len(paths), path, error)
    for path, reason in _other_runs(summaries).items():
        del summaries[path]
        failed[path] = reason
        if progress is not None:
            progress(done, len(paths), path, reason)
    if not summaries:
        raise _core.GtvError("no rank could be summarized: " + "; ".join(_named(p, e) for p, e in failed.items()))
    ordered = [summaries[p] for p in paths if p in summaries]
    return RankReport(_core.reduce([s._handle for s in ordered], clock), failed)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gtv.ranks",
        description="The cross-rank report of a run: every rank file summarized on a Dask cluster's workers, the "
        "summaries reduced (gtv-cli summarize on each rank, then gtv-cli reduce). Exit status 0: every rank was "
        "reduced; 1: the report was made without the ranks named on stderr; 2: no report.",
    )
    parser.add_argument("ranks", nargs="+", help="rank trace files or glob patterns (quoted, for runs with more files than a command line takes)")
    parser.add_argument("--scheduler-file", help="a running cluster's scheduler file (dask scheduler "
                        "--scheduler-file F); without it a LocalCluster is started")
    parser.add_argument("--workers", type=int, default=2, help="the LocalCluster's worker processes (default 2)")
    parser.add_argument("-o", "--output", help="write the report here instead of stdout")
    parser.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    parser.add_argument("--clock", choices=["wall", "collectives"], default="wall")
    parser.add_argument("--all", action="store_true", help="list every collective (text and markdown)")
    args = parser.parse_args(argv)
    paths = [p for arg in args.ranks for p in expand(arg)]
    try:
        if args.scheduler_file:
            from distributed import Client

            with Client(scheduler_file=args.scheduler_file) as client:
                report = analyze(paths, client, clock=args.clock)
        else:
            report = analyze(paths, clock=args.clock, n_workers=args.workers)
    except _core.GtvError as e:
        print(f"gtv.ranks: {e}", file=sys.stderr)
        return 2
    for line in report.warnings:
        print(f"gtv.ranks: {line}", file=sys.stderr)
    if args.format == "json":
        text = report.to_json()
    elif args.format == "markdown":
        text = report.to_markdown(args.all)
    else:
        text = report.to_text(args.all)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
        print(f"gtv.ranks: wrote {args.output} ({len(paths) - len(report.failed)} of {len(paths)} ranks)",
              file=sys.stderr)
    else:
        sys.stdout.write(text)
    for path, error in report.failed.items():
        print(f"gtv.ranks: left out {_named(path, error)}", file=sys.stderr)
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
