"""Interrupting gtv-cli while it writes: convert and merge are stopped by SIGINT, SIGTERM or SIGHUP at many instants
(spread over a whole run, and the moments the temporary file appears and OUT starts to change), on every kind of
output path. After each, OUT is as it was or complete, never cut; no temporary file is left; the complete output is
never deleted while OUT does not hold it. Also: a write past `ulimit -f` with SIGXFSZ at its default.

usage: interrupt_test.py CASE --cli PATH --work DIR
"""
import json
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time

from case_runner import check, run_case

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
OLD = b'{"traceEvents": [], "old": "content kept while gtv writes"}'


def write_trace(path, kernels, rank=None):
    events = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python3"}}]
    for i in range(kernels):
        events.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10 * i, "dur": 4})
        events.append({"ph": "X", "cat": "kernel", "name": "gemm_%d" % (i % 7), "pid": 0, "tid": 7,
                       "ts": 10 * i + 5, "dur": 3, "args": {"device": 0, "stream": 7}})
    doc = {"traceEvents": events, "baseTimeNanoseconds": 1700000000000000000}
    if rank is not None:
        doc["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": 2}
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def temp_files(folder):
    return [n for n in os.listdir(folder) if ".tmp-" in n]


def read(path):
    with open(path, "rb") as f:
        return f.read()


class Target:
    """One output path kind: prepare() makes OUT (and what it needs), state() reads what OUT holds now."""

    def __init__(self, kind, work):
        self.kind, self.work = kind, work
        self.folder = os.path.join(work, kind)
        self.reader = None

    def prepare(self):
        shutil.rmtree(self.folder, ignore_errors=True)
        os.makedirs(self.folder)
        self.out = os.path.join(self.folder, "out.json")
        real = os.path.join(self.folder, "real.json")
        if self.kind == "new":
            return self.out
        if self.kind == "fifo":
            os.mkfifo(self.out)
            self.received = bytearray()

            def drain():
                with open(self.out, "rb") as f:
                    while True:
                        chunk = f.read(1 << 16)
                        if not chunk:
                            return
                        self.received += chunk
            self.reader = threading.Thread(target=drain)
            self.reader.start()
            return self.out
        with open(real if self.kind == "symlinked" else self.out, "wb") as f:
            f.write(OLD)
        if self.kind == "symlinked":
            os.symlink("real.json", self.out)
        if self.kind == "hardlinked":
            os.link(self.out, os.path.join(self.folder, "other-name.json"))
        if self.kind == "readonly_folder":
            os.chmod(self.folder, 0o555)
        return self.out

    def finish(self):
        if self.reader is not None:
            # gtv ended; if it never opened the FIFO the reader still waits in open(): a writer that opens and
            # closes it ends that wait with an empty read.
            # (It may not be in open() yet: tried until it ends.)
            for _ in range(6000):
                try:
                    os.close(os.open(self.out, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:
                    pass
                self.reader.join(0.01)
                if not self.reader.is_alive():
                    break
            self.reader = None
        os.chmod(self.folder, 0o755)

    def holds(self):
        """What OUT (and every other name of it) holds: None when absent."""
        if self.kind == "fifo":
            return bytes(self.received)
        if not os.path.exists(self.out):
            return None
        content = read(self.out)
        if self.kind == "hardlinked" and read(os.path.join(self.folder, "other-name.json")) != content:
            return b"names differ"
        return content

    def old(self):
        return None if self.kind == "new" else b"" if self.kind == "fifo" else OLD


def run(cmd, target, when, sig):
    """Starts cmd and sends sig at `when`: a delay in seconds, "temp" (the temporary file appeared) or "out" (OUT
    started to change)."""
    out = target.prepare()
    before = os.stat(out) if target.kind not in ("new", "fifo") else None
    p = subprocess.Popen(cmd(out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    start = time.monotonic()
    sent = False
    while p.poll() is None and not sent:
        if isinstance(when, float):
            sent = time.monotonic() - start >= when
        elif when == "temp":
            sent = bool(temp_files(target.folder))
        elif before is not None:
            now = os.stat(out)
            sent = (now.st_size, now.st_mtime_ns) != (before.st_size, before.st_mtime_ns)
        if sent:
            p.send_signal(sig)
    _, err = p.communicate(timeout=300)
    target.finish()
    return p.returncode, sent, err.decode(errors="replace")


def interrupt_everywhere(args, name, cmd, kinds):
    """Runs cmd uninterrupted once per kind for the complete output, then interrupts it at many instants."""
    for kind in kinds:
        target = Target(kind, args.work)
        rc, _, err = run(cmd, target, 1e9, signal.SIGINT)
        complete = target.holds()
        if kind == "readonly_folder" and os.geteuid() != 0:  # root writes into a read-only folder anyway
            check(rc == 1 and target.holds() == OLD, "%s into %s: refused, OUT unchanged (%s)" % (name, kind, err))
            continue
        check(rc == 0 and complete, "%s into %s: uninterrupted run writes OUT (%s)" % (name, kind, err))
        started = time.monotonic()
        run(cmd, target, 1e9, signal.SIGINT)
        duration = time.monotonic() - started
        instants = ["temp", "out"] + [duration * k / 6 for k in range(6)]
        for i, when in enumerate(instants):
            sig = SIGNALS[i % len(SIGNALS)]
            rc, sent, err = run(cmd, target, when, sig)
            holds = target.holds()
            label = "%s into %s, %s at %s" % (name, kind, sig.name, when if isinstance(when, str) else "%.3fs" % when)
            if kind == "fifo":
                check(complete.startswith(holds), label + ": the reader got a prefix of the output")
            else:
                check(holds in (target.old(), complete),
                      label + ": OUT is as it was or complete (got %s bytes)" % (None if holds is None else len(holds)))
            check(not sent or rc in (-sig, 0), label + ": ends by the signal or completes (exit %d: %s)" % (rc, err))
            check(temp_files(target.folder) == [], label + ": no temporary file left: %r" % temp_files(target.folder))


def case_write_interrupt(args):
    src = write_trace(os.path.join(args.work, "big.json"), 60000)
    r0 = write_trace(os.path.join(args.work, "rank0.json"), 30000, rank=0)
    r1 = write_trace(os.path.join(args.work, "rank1.json"), 30000, rank=1)
    kinds = ["new", "existing", "hardlinked", "symlinked", "fifo", "readonly_folder"]
    interrupt_everywhere(args, "convert", lambda out: [args.cli, "convert", src, out], kinds)
    interrupt_everywhere(args, "merge", lambda out: [args.cli, "merge", r0, r1, "-o", out], kinds)


def case_write_fsize(args):
    """ulimit -f with SIGXFSZ at its default (as a shell leaves it): a message and exit 1, not death by SIGXFSZ."""
    src = write_trace(os.path.join(args.work, "t.json"), 5000)

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    for kind in ("existing", "hardlinked", "new"):
        target = Target(kind, args.work)
        out = target.prepare()
        r = subprocess.run([args.cli, "convert", src, out], capture_output=True, text=True, preexec_fn=limit)
        target.finish()
        check(r.returncode == 1, kind + ": exit 1, not killed by SIGXFSZ (got %d)" % r.returncode)
        check("write failed: File too large" in r.stderr and out in r.stderr and len(r.stderr.splitlines()) == 1,
              kind + ": one line naming OUT and the cause: %r" % r.stderr)
        check(target.holds() == target.old(), kind + ": OUT is as it was")
        check(temp_files(target.folder) == [], kind + ": the temporary file is removed")


def main():
    return run_case(globals())


if __name__ == "__main__":
    sys.exit(main())
