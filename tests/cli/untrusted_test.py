"""gtv-cli against inputs crafted to make it run code, overflow or mislead: SQLite exports with generated columns,
views, WAL files, hot journals, bombs, URI-like names and 33-bit device ids; times at the edge of the accepted
range; rank files whose numbers contradict each other. Each case fails on the behaviour it guards against.

usage: untrusted_test.py CASE --cli PATH --data DIR --work DIR
"""
import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading

from case_runner import check, run_case

BASE_NS = 1700000000000000000


def cli(args, *argv, **kwargs):
    kwargs.setdefault("capture_output", True)
    return subprocess.run([args.cli, *argv], text=True, timeout=300, **kwargs)


def event_count(args, path, **kwargs):
    r = cli(args, "info", "--json", path, **kwargs)
    return json.loads(r.stdout)["event_count"] if r.returncode == 0 else None


def export_copy(args, name, sql=""):
    """A copy of the bundled Nsight Systems export, changed by sql."""
    path = os.path.join(args.work, name)
    shutil.copyfile(os.path.join(args.data, "nsys", "two_gpus.sqlite"), path)
    if sql:
        db = sqlite3.connect(path)
        db.executescript(sql)
        db.commit()
        db.close()
    return path


def case_sqlite_code(args):
    """Nothing in the file runs: generated columns and views under the names gtv reads are refused."""
    plain = export_copy(args, "plain.sqlite")
    expected = event_count(args, plain)
    check(expected and expected > 0, "the bundled export reads")
    generated = export_copy(args, "generated.sqlite", """
        ALTER TABLE StringIds RENAME TO S0;
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, raw TEXT, value TEXT GENERATED ALWAYS AS
            (raw || printf('%.*c', 1000, 'x')) VIRTUAL);
        INSERT INTO StringIds (id, raw) SELECT id, value FROM S0; DROP TABLE S0;""")
    r = cli(args, "info", generated)
    check(r.returncode == 1 and "generated column 'value'" in r.stderr and "StringIds" in r.stderr,
          "a generated column in StringIds is refused: %r" % r.stderr)
    view = export_copy(args, "view.sqlite", """
        ALTER TABLE StringIds RENAME TO S0;
        CREATE VIEW StringIds AS SELECT id, replace(value, 'gemm', 'evil') AS value FROM S0;""")
    r = cli(args, "info", view)
    check(r.returncode == 1 and "StringIds is a view or a virtual table" in r.stderr,
          "a view named StringIds is refused: %r" % r.stderr)
    kernels_view = export_copy(args, "kernels_view.sqlite", """
        ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO K0;
        CREATE VIEW cupti_activity_kind_kernel AS SELECT * FROM K0;""")
    r = cli(args, "info", kernels_view)
    check(r.returncode == 1 and "is a view or a virtual table" in r.stderr,
          "a view under a table name in another case is refused: %r" % r.stderr)
    # StringIds without an index on id, ids repeated: read once, in file order (the first row of an id wins).
    unindexed = export_copy(args, "unindexed.sqlite", """
        ALTER TABLE StringIds RENAME TO S0;
        CREATE TABLE StringIds (id INTEGER, value TEXT);
        INSERT INTO StringIds SELECT id, value FROM S0; INSERT INTO StringIds SELECT id, 'later ' || value FROM S0;
        DROP TABLE S0;""")
    r = cli(args, "info", "--json", unindexed)
    check(r.returncode == 0 and json.loads(r.stdout)["event_count"] == expected and "later " not in r.stdout,
          "StringIds without an index reads the same trace: %r" % r.stderr)


def case_sqlite_beside(args):
    """gtv never writes beside its input: a WAL export in a read-only folder, a hot journal, a file: name."""
    folder = os.path.join(args.work, "ro")
    os.makedirs(folder)
    expected = event_count(args, export_copy(args, "plain.sqlite"))
    wal = os.path.join(folder, "wal.sqlite")
    shutil.copyfile(os.path.join(args.data, "nsys", "two_gpus.sqlite"), wal)
    db = sqlite3.connect(wal)
    db.execute("PRAGMA journal_mode=WAL")
    db.close()
    journal = os.path.join(folder, "journal.sqlite")
    shutil.copyfile(os.path.join(args.data, "nsys", "two_gpus.sqlite"), journal)
    with open(journal + "-journal", "wb") as f:  # a hot journal's header, as a crash would leave it
        f.write(bytes.fromhex("d9d505f920a163d7") + b"\xff" * 504)
    before = sorted(os.listdir(folder))
    os.chmod(folder, 0o555)
    try:
        for path in (wal, journal):
            r = cli(args, "info", "--json", path)
            check(r.returncode == 0 and json.loads(r.stdout)["event_count"] == expected,
                  "%s reads from a read-only folder: %r" % (os.path.basename(path), r.stderr))
            with open(path, "rb") as f:
                data = f.read()
            for how, kwargs in (("gzip", None), ("pipe", None)):
                if how == "gzip":
                    gz = os.path.join(args.work, os.path.basename(path) + ".gz")
                    with gzip.open(gz, "wb") as f:
                        f.write(data)
                    r = cli(args, "info", "--json", gz)
                else:
                    r = cli(args, "info", "--json", "/dev/stdin", input=data.decode("latin-1"), encoding="latin-1")
                check(r.returncode == 0 and json.loads(r.stdout)["event_count"] == expected,
                      "%s through %s: %r" % (os.path.basename(path), how, r.stderr))
        check(sorted(os.listdir(folder)) == before, "nothing written beside the inputs: %r" % os.listdir(folder))
    finally:
        os.chmod(folder, 0o755)
    # A name that starts with "file:" is a file name, not a URI naming another file.
    shutil.copyfile(os.path.join(args.data, "nsys", "two_gpus.sqlite"), os.path.join(args.work, "file:a.sqlite"))
    with open(os.path.join(args.work, "a.sqlite"), "wb") as f:
        f.write(b"SQLite format 3\0" + b"\0" * 84)
    for name in ("file:a.sqlite", "file:a.sqlite?mode=memory"):
        if name != "file:a.sqlite":
            shutil.copyfile(os.path.join(args.work, "file:a.sqlite"), os.path.join(args.work, name))
        r = cli(args, "info", "--json", name, cwd=args.work)
        check(r.returncode == 0 and json.loads(r.stdout)["event_count"] == expected,
              "info %s reads that file: %r" % (name, r.stderr))


def case_sqlite_bomb(args):
    """SQLite from a pipe or gzip is copied only as far as its header says, into a temporary file."""
    tmp = os.path.join(args.work, "tmp")
    os.makedirs(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    header = bytearray(b"SQLite format 3\0" + b"\0" * 84)
    header[16:18] = (4096).to_bytes(2, "big")
    header[28:32] = (1).to_bytes(4, "big")  # one page, counter 0 = version-valid-for 0
    junk = bytes(header) + b"\xa5" * (4096 - 100) + b"\x5a" * (64 << 20)
    p = subprocess.Popen([args.cli, "info", "/dev/stdin"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    sent = [0]

    def feed():
        try:
            for i in range(0, len(junk), 1 << 16):
                p.stdin.write(junk[i:i + (1 << 16)])
                sent[0] = i + (1 << 16)
            p.stdin.close()
        except (BrokenPipeError, ValueError):
            pass
    writer = threading.Thread(target=feed)
    writer.start()
    out, err = p.communicate(timeout=300)
    writer.join()
    check(p.returncode == 1, "a one-page database with 64 MiB after it: refused, exit 1 (%r)" % err)
    check(sent[0] < (32 << 20), "gtv stopped reading the pipe after the declared size: read %d bytes" % sent[0])
    check(os.listdir(tmp) == [], "the temporary copy is removed: %r" % os.listdir(tmp))
    claims = bytearray(header)
    claims[28:32] = (0x7fffffff).to_bytes(4, "big")
    gz = os.path.join(args.work, "claims.sqlite.gz")
    with gzip.open(gz, "wb") as f:
        f.write(bytes(claims))
    r = cli(args, "info", gz, env=dict(env, GTV_MAX_STREAM_BYTES="1G"))
    check(r.returncode == 1 and "GTV_MAX_STREAM_BYTES" in r.stderr, "a header claiming 8 TiB is refused: %r" % r.stderr)
    with open(os.path.join(args.data, "nsys", "two_gpus.sqlite"), "rb") as f:
        good = f.read()
    r = cli(args, "info", "--json", "/dev/stdin", input=good.decode("latin-1"), encoding="latin-1", env=env)
    check(r.returncode == 0 and os.listdir(tmp) == [], "a real export through a pipe reads, its copy removed")


def case_sqlite_devices(args):
    """A GPU id beyond 32 bits does not name GPU 0."""
    path = export_copy(args, "devices.sqlite", """
        INSERT INTO TARGET_INFO_GPU (vmId, id, name) VALUES (0, 4294967296, 'Impostor GPU');""")
    r = cli(args, "info", "--json", path)
    check(r.returncode == 0 and "Impostor" not in r.stdout, "the 33-bit id names no GPU: %r" % r.stderr)


def rank_doc(rank=None, world=None, base_ns=BASE_NS, pid=100, ts=10):
    events = [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": pid, "tid": 1, "ts": ts, "dur": 5},
              {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": ts + 10, "dur": 5,
               "args": {"device": 0, "stream": 7}}]
    doc = {"baseTimeNanoseconds": base_ns, "traceEvents": events}
    if rank is not None:
        doc["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": world}
    return doc


def write(args, name, doc):
    path = os.path.join(args.work, name)
    with open(path, "w") as f:
        f.write(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def case_time_range(args):
    """Times are accepted within [-2^62, 2^62) ns; beyond, refused when read; arithmetic never overflows."""
    r = cli(args, "info", write(args, "huge_base.json", '{"baseTimeNanoseconds": 1e300, "traceEvents": []}'))
    check(r.returncode == 1 and "baseTimeNanoseconds" in r.stderr and "2^62" in r.stderr,
          "baseTimeNanoseconds 1e300 is refused, not read as 0: %r" % r.stderr)
    r = cli(args, "info", write(args, "u64_base.json", '{"baseTimeNanoseconds": 18446744073709551615, '
                                                      '"traceEvents": []}'))
    check(r.returncode == 1 and "baseTimeNanoseconds" in r.stderr, "2^64 - 1 is refused, not read as -1")
    early = write(args, "early.json", rank_doc(0, 2, base_ns=-(1 << 62)))
    late = write(args, "late.json", rank_doc(1, 2, base_ns=(1 << 62) - 1))
    out = os.path.join(args.work, "merged.json")
    r = cli(args, "merge", early, late, "-o", out, "--allow-far-apart")
    check(r.returncode == 1 and "accepted time range" in r.stderr and not os.path.exists(out),
          "ranks 2^63 ns apart cannot share a clock: refused: %r" % r.stderr)
    r = cli(args, "merge", early, late, "-o", out)
    check(r.returncode == 1 and "recordings of different runs?" in r.stderr and "-" not in r.stderr.split("starts")[1]
          .split("after")[0], "the start difference is said without overflow: %r" % r.stderr)
    a = write(args, "pid_a.json", rank_doc(0, 2, pid=(1 << 63) - 1))
    b = write(args, "pid_b.json", rank_doc(1, 2, pid=(1 << 63) - 1))
    r = cli(args, "merge", a, b, "-o", out)
    check(r.returncode == 0, "a pid of INT64_MAX in two ranks merges: %r" % r.stderr)
    if r.returncode == 0:
        pids = [p for rank in json.loads(cli(args, "info", "--json", out).stdout)["run"]["ranks"] for p in rank["pids"]]
        check(len(set(pids)) == len(pids) and all(p > 0 for p in pids), "renumbered pids are distinct: %r" % pids)


def case_merge_inputs(args):
    """The merge's inputs are checked as docs/cli.md says."""
    out = os.path.join(args.work, "merged.json")
    r5 = write(args, "r5.json", rank_doc(5, 2))
    r7 = write(args, "r7.json", rank_doc(7, 2))
    r = cli(args, "merge", r5, r7, "-o", out)
    check(r.returncode == 1 and "rank 5 of world size 2" in r.stderr and not os.path.exists(out),
          "ranks 5 and 7 of a world of 2 are refused: %r" % r.stderr)
    r0 = write(args, "r0.json", rank_doc(0, 2))
    r1 = write(args, "r1.json", rank_doc(1, 2, ts=20))
    for shift in ("1=1e400", "1=-1e400", "1=nan", "1=1e13", "x=1"):
        r = cli(args, "merge", r0, r1, "-o", out, "--shift", shift)
        check(r.returncode == 2 and "--shift" in r.stderr, "--shift %s is refused as a usage error: %r" % (shift, r.stderr))
    for command in (["info", r0], ["analyze", r0]):
        for option in (["--clock", "collectives"], ["--shift", "0=5"]):
            r = cli(args, *command, *option)
            check(r.returncode == 2 and "one file was given" in r.stderr,
                  "%s with one file: usage error, exit 2 (%d)" % (option[0], r.returncode))
    r = cli(args, "merge", *([r0] * 4097), "-o", out)
    check(r.returncode == 2 and "at most 4096" in r.stderr, "4097 files: the limit is named: %r" % r.stderr)
    with open(r1) as f:
        before = f.read()
    r = cli(args, "merge", r0, r1, "-o", r1)
    with open(r1) as f:
        check(r.returncode == 2 and "names the input" in r.stderr and f.read() == before,
              "merge A B -o B is refused and B kept: %r" % r.stderr)
    r = cli(args, "merge", r0, r1, "-o", out)
    check(r.returncode == 0, "two good ranks merge: %r" % r.stderr)
    with open(out) as f:
        merged = json.load(f)
    for label, change in (("4 ranks of world size 2", lambda m: m["ranks"].extend(m["ranks"])),
                          ("rank 0 twice", lambda m: m["ranks"][1].update(rank=0)),
                          ("rank -7", lambda m: m["ranks"][1].update(rank=-7))):
        doc = json.loads(json.dumps(merged))
        change(doc["gtv"]["metadata"])
        r = cli(args, "info", write(args, "bad_ranks.json", doc))
        check(r.returncode == 1 and "gtv.metadata.ranks" in r.stderr, "a rank table with %s is refused: %r"
              % (label, r.stderr))


def main():
    return run_case(globals(), required=['--data'])


if __name__ == "__main__":
    sys.exit(main())
