"""Peak resident memory of a process tree, sampled: every process seen (the root and all its descendants), each
with its own peak RSS, and the tree's peak total. Used by dask_bench.py."""

from __future__ import annotations

import subprocess
import threading
import time

import psutil


class TreeSampler:
    """Samples the RSS of root_pid and its descendants every period_s on a thread, until stop()."""

    def __init__(self, root_pid: int, period_s: float = 0.05) -> None:
        self.root = psutil.Process(root_pid)
        self.period_s = period_s
        self.peak_bytes: dict[int, int] = {}
        self.names: dict[int, str] = {}
        self.cpu_s: dict[int, float] = {}
        self.peak_total_bytes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> "TreeSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    def _sample(self) -> None:
        try:
            procs = [self.root] + self.root.children(recursive=True)
        except psutil.Error:
            return
        total = 0
        for p in procs:
            try:
                rss = p.memory_info().rss
                times = p.cpu_times()
                self.cpu_s[p.pid] = times.user + times.system
                if p.pid not in self.names:
                    self.names[p.pid] = " ".join(p.cmdline())[:160] or p.name()
            except psutil.Error:
                continue
            total += rss
            self.peak_bytes[p.pid] = max(self.peak_bytes.get(p.pid, 0), rss)
        self.peak_total_bytes = max(self.peak_total_bytes, total)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._sample()
            time.sleep(self.period_s)

    def processes(self) -> list[dict]:
        """Every process seen, largest peak first: pid, command line, peak RSS in bytes, CPU seconds when last seen."""
        rows = [{"pid": pid, "command": self.names.get(pid, "?"), "peak_rss_bytes": peak,
                 "cpu_s_at_last_sample": round(self.cpu_s.get(pid, 0.0), 2)}
                for pid, peak in self.peak_bytes.items()]
        return sorted(rows, key=lambda r: -r["peak_rss_bytes"])


def run_measured(command: list[str], **kwargs) -> dict:
    """Runs command; its wall time, exit status, output tail, and the peak RSS of every process of its tree."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs)
    with TreeSampler(proc.pid) as sampler:
        out, _ = proc.communicate()
    wall = time.perf_counter() - start
    procs = sampler.processes()
    return {"command": " ".join(command[:6]) + (f" ... ({len(command)} args)" if len(command) > 6 else ""),
            "returncode": proc.returncode, "wall_s": round(wall, 2), "output_tail": out[-2000:],
            "max_process_rss_bytes": max((p["peak_rss_bytes"] for p in procs), default=0),
            "peak_total_rss_bytes": sampler.peak_total_bytes, "processes": procs}
