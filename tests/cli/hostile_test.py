"""End-to-end tests of gtv-cli against hostile output paths and names, run by ctest (one case per test).

Writing never destroys what OUT names (devices, FIFOs, symlinks, modes, hard links, full disks, signals); names
from a trace never reach the terminal as control characters; skipped events are reported, not silent.

usage: hostile_test.py CASE --cli PATH --work DIR
"""
import json
import os
import resource
import signal
import stat
import subprocess
import sys
import threading
import time

from case_runner import check, run_case


def cli(args, *argv, **kwargs):
    return subprocess.run([args.cli, *argv], capture_output=True, text=True, timeout=300, **kwargs)


def write_trace(path, kernels, extra=()):
    """A small Kineto trace: one host thread launching `kernels` kernels on GPU 0, stream 7."""
    events = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python3"}}]
    for i in range(kernels):
        events.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10 * i, "dur": 4})
        events.append({"ph": "X", "cat": "kernel", "name": "gemm_%d" % (i % 7), "pid": 0, "tid": 7,
                       "ts": 10 * i + 5, "dur": 3, "args": {"device": 0, "stream": 7}})
    events.extend(extra)
    with open(path, "w") as f:
        json.dump({"traceEvents": events}, f)
    return path


def event_count(args, path):
    r = cli(args, "info", "--json", path)
    return json.loads(r.stdout)["event_count"] if r.returncode == 0 else None


def temp_files(folder):
    return [n for n in os.listdir(folder) if ".tmp-" in n]


def case_write_special(args):
    # Through links in the work folder, which name the same files as /dev/null and /dev/stdout: a writer that
    # replaced its target would then replace a link here, never a device of the machine that runs the tests.
    src = write_trace(os.path.join(args.work, "t.json"), 50)
    expected = event_count(args, src)
    null = os.path.join(args.work, "null")
    os.symlink("/dev/null", null)
    r = cli(args, "convert", src, null)
    check(r.returncode == 0, "convert to /dev/null: exit 0 (%s)" % r.stderr.strip())
    check(os.path.islink(null) and stat.S_ISCHR(os.stat(null).st_mode), "/dev/null is still a character device")
    stdout = os.path.join(args.work, "stdout")
    os.symlink("/proc/self/fd/1", stdout)  # what /dev/stdout is
    # Into a pipe, the usual way to pipe a conversion.
    p = subprocess.run([args.cli, "convert", src, stdout], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(p.returncode == 0, "convert to /dev/stdout: exit 0 (%s)" % p.stderr.decode(errors="replace").strip())
    piped = os.path.join(args.work, "piped.json")
    with open(piped, "wb") as f:
        f.write(p.stdout)
    check(event_count(args, piped) == expected, "what went through /dev/stdout reads back with every event")
    # Onto a regular file (`> file`): written through the descriptor, never replaced.
    redirected = os.path.join(args.work, "redirected.json")
    with open(redirected, "w") as f:
        p = subprocess.run([args.cli, "convert", src, stdout], stdout=f, stderr=subprocess.PIPE)
    check(p.returncode == 0 and event_count(args, redirected) == expected, "convert to /dev/stdout > file")
    check(os.path.islink(stdout), "the link to the descriptor is still a link")
    fifo = os.path.join(args.work, "fifo")
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo, "rb").read()), daemon=True)
    reader.start()
    r = cli(args, "convert", src, fifo)
    reader.join(60)
    check(r.returncode == 0, "convert into a FIFO: exit 0 (%s)" % r.stderr.strip())
    check(stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO is still a FIFO")
    check(received and json.loads(received[0])["traceEvents"], "the FIFO's reader got the trace")
    folder = os.path.join(args.work, "folder")
    os.mkdir(folder)
    r = cli(args, "convert", src, folder)
    check(r.returncode != 0, "convert onto a directory fails")
    check(len(r.stderr.strip().splitlines()) == 1 and "directory" in r.stderr, "one line naming the directory: "
          + r.stderr.strip())
    check(os.path.isdir(folder) and os.listdir(folder) == [], "the directory is untouched")
    check(temp_files(args.work) == [], "no temporary file left: %r" % temp_files(args.work))


def case_write_symlink(args):
    src = write_trace(os.path.join(args.work, "t.json"), 20)
    os.mkdir(os.path.join(args.work, "real"))
    target = os.path.join(args.work, "real", "target.json")
    with open(target, "w") as f:
        f.write("old")
    link = os.path.join(args.work, "link.json")
    os.symlink(os.path.join("real", "target.json"), link)  # relative, resolved against the link's folder
    r = cli(args, "convert", src, link)
    check(r.returncode == 0, "convert through a symlink: exit 0 (%s)" % r.stderr.strip())
    check(os.path.islink(link), "the symlink is still a symlink")
    check(event_count(args, target) == event_count(args, src), "the symlink's target holds the trace")
    check(temp_files(args.work) == [] and temp_files(os.path.dirname(target)) == [], "no temporary file left")
    dangling = os.path.join(args.work, "dangling.json")
    os.symlink("new_target.json", dangling)
    r = cli(args, "convert", src, dangling)
    check(r.returncode == 0 and os.path.islink(dangling), "a dangling symlink stays a link (%s)" % r.stderr.strip())
    check(os.path.isfile(os.path.join(args.work, "new_target.json")), "and its target is created")


def case_write_modes(args):
    src = write_trace(os.path.join(args.work, "t.json"), 20)
    private = os.path.join(args.work, "private.json")
    with open(private, "w") as f:
        f.write("old")
    os.chmod(private, 0o600)
    r = cli(args, "convert", src, private)
    check(r.returncode == 0, "convert over a 0600 file: exit 0")
    check(stat.S_IMODE(os.stat(private).st_mode) == 0o600, "the replaced file keeps mode 0600, got %o"
          % stat.S_IMODE(os.stat(private).st_mode))
    fresh = os.path.join(args.work, "fresh.json.gz")
    r = subprocess.run([args.cli, "convert", src, fresh], capture_output=True, preexec_fn=lambda: os.umask(0o027))
    check(r.returncode == 0, "convert to a new file: exit 0")
    check(stat.S_IMODE(os.stat(fresh).st_mode) == 0o640, "a new file honours umask 027 (0640), got %o"
          % stat.S_IMODE(os.stat(fresh).st_mode))
    first = os.path.join(args.work, "first.json")
    second = os.path.join(args.work, "second.json")
    with open(first, "w") as f:
        f.write("old")
    os.link(first, second)
    inode = os.stat(first).st_ino
    r = cli(args, "convert", src, first)
    check(r.returncode == 0, "convert over a hard-linked file: exit 0")
    check(os.stat(first).st_ino == inode and os.stat(second).st_ino == inode, "both names still share one file")
    check(event_count(args, second) == event_count(args, src), "the other name sees the new content")
    check(temp_files(args.work) == [], "no temporary file left")


def limit_file_size(limit_bytes):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write then fails with EFBIG, as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))
    return apply


def case_write_failure(args):
    src = write_trace(os.path.join(args.work, "t.json"), 5000)
    for name in ("out.json", "out.json.gz"):
        out = os.path.join(args.work, name)
        with open(out, "w") as f:
            f.write("precious")
        r = subprocess.run([args.cli, "convert", src, out], capture_output=True, text=True,
                           preexec_fn=limit_file_size(4096))
        check(r.returncode != 0, name + ": a failed write exits non-zero")
        check(len(r.stderr.strip().splitlines()) == 1 and "File too large" in r.stderr and out in r.stderr,
              name + ": one line naming the file and the cause: " + r.stderr.strip())
        with open(out) as f:
            check(f.read() == "precious", name + ": OUT is left as it was")
        check(temp_files(args.work) == [], name + ": the temporary file is removed: %r" % temp_files(args.work))


def case_write_signal(args):
    src = write_trace(os.path.join(args.work, "big.json"), 300000)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        out = os.path.join(args.work, "out.json.gz")
        p = subprocess.Popen([args.cli, "convert", src, out], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seen = False
        while p.poll() is None and not seen:
            seen = bool(temp_files(args.work))
            if not seen:
                time.sleep(0.001)
        if seen:
            p.send_signal(sig)
        rc = p.wait(300)
        check(seen, "%s: the temporary file appeared while converting" % sig.name)
        check(rc == -sig, "%s: the exit status says killed by the signal (got %d)" % (sig.name, rc))
        check(temp_files(args.work) == [], "%s: no temporary file left: %r" % (sig.name, temp_files(args.work)))
        check(not os.path.exists(out), "%s: no half-written OUT" % sig.name)


HOSTILE = "k\u0000a\nb\u001b[31mred\u009b7m|pipe\u007f\u00e9"


def hostile_trace(path):
    extra = [
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "thread " + HOSTILE}},
        {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "gpu " + HOSTILE}},
        {"ph": "X", "cat": "kernel", "name": HOSTILE, "pid": 0, "tid": 7, "ts": 2000, "dur": 50,
         "args": {"device": 0, "stream": 7}},
    ]
    return write_trace(path, 10, extra)


def check_printable(label, text):
    bad = [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f]
    check(not bad, label + ": no control character reaches the output: %r" % bad[:5])
    check("\\x1b[31mred" in text, label + ": ESC is shown as \\x1b")


def strings_in(value):
    if isinstance(value, str):
        return {value}
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return set().union(*(strings_in(v) for v in items)) if items else set()


def case_names_escaped(args):
    path = hostile_trace(os.path.join(args.work, "hostile.json"))
    runs = {
        "info": ["info", path], "analyze": ["analyze", path],
        "analyze markdown": ["analyze", path, "--format", "markdown"],
        "compare": ["compare", path, path], "compare markdown": ["compare", path, path, "--format", "markdown"],
    }
    for label, argv in runs.items():
        r = subprocess.run([args.cli, *argv], capture_output=True)
        check(r.returncode == 0, label + ": exit 0 (%s)" % r.stderr.decode(errors="replace").strip())
        text = r.stdout.decode("utf-8", errors="strict")
        check_printable(label, text)
        if "markdown" in label:
            rows = [line for line in text.splitlines() if "\\x1b[31mred" in line and line.startswith("|")]
            check(all("\\|pipe" in line and "|pipe" not in line.replace("\\|", "") for line in rows),
                  label + ": '|' in a name is escaped in table rows")
    for argv in (["info", "--json", path], ["analyze", "--format", "json", path]):
        r = subprocess.run([args.cli, *argv], capture_output=True)
        check(r.returncode == 0, " ".join(argv[:2]) + ": exit 0")
        text = r.stdout.decode("utf-8", errors="strict")
        check(not any(ord(c) < 0x20 and c != "\n" for c in text), " ".join(argv[:2]) + ": controls escaped")
        check("thread " + HOSTILE in strings_in(json.loads(text)), " ".join(argv[:2]) + ": the name survives in JSON")


def case_skipped_notes(args):
    path = os.path.join(args.work, "unmatched.json")
    with open(path, "w") as f:
        json.dump({"traceEvents": [{"ph": "B", "name": "x", "pid": 1, "tid": 1, "ts": i} for i in range(100000)]}, f)
    note = "100000 'B' events without an 'E'"
    r = cli(args, "info", path)
    check(r.returncode == 0, "info on a trace whose every event was skipped: exit 0")
    check("Note: reader skipped " + note in r.stdout, "info prints the reader's note: " + r.stdout)
    check("no event could be read" in r.stderr and note in r.stderr, "and says so on stderr: " + r.stderr)
    r = cli(args, "info", "--json", path)
    check(any(note in n for n in json.loads(r.stdout).get("notes", [])), "info --json lists the note")
    for fmt in ("text", "markdown"):
        r = cli(args, "analyze", path, "--format", fmt)
        check(r.returncode == 0 and note in r.stdout, "analyze --format %s prints the note" % fmt)
    r = cli(args, "analyze", path, "--format", "json")
    check(r.returncode == 0 and note in r.stdout, "analyze --format json holds the note")
    good = write_trace(os.path.join(args.work, "good.json"), 3)
    r = cli(args, "info", good)
    check(r.stderr == "", "a trace read in full gives no warning: " + r.stderr)


def main():
    return run_case(globals())


if __name__ == "__main__":
    sys.exit(main())
