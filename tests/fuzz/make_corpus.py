#!/usr/bin/env python3
"""Regenerates the seed corpus of the fuzz targets (tests/fuzz/corpus/<target>/) from the test fixtures and a few
hand-written traces. Each seed starts with the settings byte the targets read first (fuzz_input.h: chunk size,
gzip). Usage: tests/fuzz/make_corpus.py [GTV_CLI]; with the path of a built gtv-cli it also adds traces rewritten by
gtv's writer (the gtv object, overlap tids, flows). `make_corpus.py --new` writes only the seeds of fuzz_sqlite
(small Nsight Systems exports, built from the schema in tests/data/nsys/make_nsys_sqlite.py), fuzz_merge (sets
of rank files) and fuzz_whatif (a line of changes and a trace: the adversarial shapes of tests/adversarial)."""
import gzip
import json
import os
import pathlib
import sqlite3
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE.parent / "data"
TARGETS = ["fuzz_read", "fuzz_analyze"]
EVENTS_PER_FIXTURE = 60
# 64-byte chunks, 512-byte chunks, 4 KiB chunks, 64-byte chunks gzipped.
SETTINGS = [0x00, 0x07, 0x3F, 0x40]

HAND_WRITTEN = {
    "empty_object": "{}",
    "empty_events": '{"traceEvents": []}',
    "bare_array": '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}]',
    "bom": '\ufeff{"traceEvents": [{"ph":"i","s":"t","name":"m","pid":1,"tid":1,"ts":5}]}',
    "counters_flows": json.dumps({"traceEvents": [
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 8, "ts": 10, "dur": 4,
         "args": {"correlation": 3}},
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 20, "dur": 30,
         "args": {"device": 0, "stream": 7, "correlation": 3, "grid": [1, 1, 1], "block": [32, 1, 1]}},
        {"ph": "s", "id": 3, "pid": 7, "tid": 8, "ts": 10, "cat": "ac2g", "name": "ac2g"},
        {"ph": "f", "id": 3, "pid": 0, "tid": 7, "ts": 20, "cat": "ac2g", "name": "ac2g", "bp": "e"},
        {"ph": "C", "name": "mem", "pid": 7, "ts": 12, "args": {"value": 1024}},
        {"ph": "M", "name": "thread_name", "pid": 7, "tid": 8, "args": {"name": "main"}},
        {"ph": "B", "name": "outer", "pid": 7, "tid": 8, "ts": 30},
        {"ph": "E", "pid": 7, "tid": 8, "ts": 40}]}),
    "gtv_object": json.dumps({
        "gtv": {"format_version": 1, "writer": "gtv 0.1.0",
                "metadata": {"source_tool": "gtv", "scenario": "s", "config": {"batch": "1"}, "notes": ["n"]},
                "lanes": [{"kind": "host", "pid": 1, "tid": 2, "name": "main", "sort_index": 0},
                          {"kind": "gpu", "pid": 0, "tid": 7, "name": "stream 7", "sort_index": 7}],
                "processes": [{"pid": 1, "name": "python3", "sort_index": 1, "labels": ["CPU"]}],
                "ranges": [{"name": "warm-up", "kind": "warmup", "start_ns": 0, "end_ns": 2000, "pid": 1,
                            "tid": 2, "device": -1}],
                "measurements": [{"name": "loop", "method": "stopwatch", "reported_ns": 1000, "host_start_ns": 0,
                                  "host_end_ns": 1000, "pid": 1, "tid": 2}]},
        "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
        "traceEvents": [{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 1,
                         "dur": 1, "args": {"device": 0, "stream": 7, "bytes": 64, "correlation": 9}},
                        {"ph": "X", "cat": "user_annotation", "name": "step", "pid": 1, "tid": 2, "ts": 0,
                         "dur": 5}]}),
}


def fixture_heads():
    """Each PyTorch fixture cut to its first events, keeping every top-level key (deviceProperties, ...)."""
    for path in sorted((DATA / "pytorch").glob("*.json.gz")):
        trace = json.loads(gzip.decompress(path.read_bytes()))
        trace["traceEvents"] = trace["traceEvents"][:EVENTS_PER_FIXTURE]
        yield path.name.removesuffix(".json.gz"), json.dumps(trace, separators=(",", ":"))


def rewritten(gtv_cli, name, text):
    with tempfile.TemporaryDirectory() as tmp:
        src, out = pathlib.Path(tmp, "in.json"), pathlib.Path(tmp, "out.json")
        src.write_text(text)
        done = subprocess.run([gtv_cli, "convert", str(src), str(out)], capture_output=True)
        return out.read_text() if done.returncode == 0 else None


ALLREDUCE = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
NSYS_SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, totalMemory INTEGER,
    smCount INTEGER, computeMajor INTEGER, computeMinor INTEGER);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER,
    globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER,
    gridX INTEGER, blockX INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER,
    srcKind INTEGER, dstKind INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT,
    textId INTEGER, globalTid INTEGER);
"""
NSYS_ROWS = """
INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'gemm_kernel'), (3, 'python3');
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.0');
INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000);
INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA H200', 150754820096, 132, 9, 0);
INSERT INTO ThreadNames VALUES (3, 0, 281543696187378);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000, 9000, 1, 281543696187378, 1, 1, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10000, 50000, 0, 7, 1, 281543696187392, 2, 2, 128, 256);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (60000, 70000, 0, 7, 0, 281543696187392, 4096, 1, 2, 3);
INSERT INTO NVTX_EVENTS VALUES (500, 80000, 59, 'step 0', NULL, 281543696187378);
"""


def sqlite_seed(extra_sql=""):
    """A small export (512-byte pages, so the file is a few KiB): its bytes after the 16-byte magic."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "seed.sqlite")
        db = sqlite3.connect(path)
        db.execute("PRAGMA page_size=512")
        db.executescript(NSYS_SCHEMA + NSYS_ROWS + extra_sql)
        db.commit()
        db.execute("VACUUM")
        db.close()
        return pathlib.Path(path).read_bytes()[16:]


def sqlite_seeds():
    return {
        "export": (0x00, sqlite_seed()),
        "export_gzip": (0x40, sqlite_seed()),
        "no_index": (0x00, sqlite_seed("ALTER TABLE StringIds RENAME TO S0; CREATE TABLE StringIds (id, value);"
                                       "INSERT INTO StringIds SELECT * FROM S0; DROP TABLE S0;")),
        "generated": (0x00, sqlite_seed("ALTER TABLE StringIds RENAME TO S0; CREATE TABLE StringIds (id INTEGER, "
                                        "raw TEXT, value TEXT GENERATED ALWAYS AS (raw || 'x') VIRTUAL);"
                                        "INSERT INTO StringIds (id, raw) SELECT * FROM S0; DROP TABLE S0;")),
        "view": (0x00, sqlite_seed("ALTER TABLE NVTX_EVENTS RENAME TO N0; CREATE VIEW NVTX_EVENTS AS SELECT * FROM N0;")),
        "wal": (0x00, sqlite_seed("PRAGMA journal_mode=WAL;")),
        "big_device": (0x00, sqlite_seed("INSERT INTO TARGET_INFO_GPU VALUES (0, 4294967296, 'x', 0, 0, 0, 0);")),
    }


def rank_doc(rank, world, base_ns, allreduces_us, pid=100):
    events = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": pid, "ts": 10,
               "dur": 5, "args": {"correlation": 1}},
              {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 20, "dur": 100,
               "args": {"correlation": 1, "device": 0, "stream": 7}}]
    for i, (start, end) in enumerate(allreduces_us):
        events.append({"ph": "X", "cat": "kernel", "name": ALLREDUCE, "pid": 0, "tid": 7, "ts": start, "dur": end - start,
                       "args": {"correlation": 2 + i, "device": 0, "stream": 7}})
    doc = {"baseTimeNanoseconds": base_ns, "traceEvents": events}
    if rank is not None:
        doc["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": world}
    return json.dumps(doc, separators=(",", ":"))


def merge_seeds():
    base = 1_700_000_000_000_000_000
    runs = {
        "two_ranks": ([rank_doc(0, 2, base, [(200, 400), (600, 800)]),
                       rank_doc(1, 2, base + 300_000, [(350, 401), (700, 803)])], 0x00),
        "collectives": ([rank_doc(1, 2, base, [(200, 400)]), rank_doc(0, 2, base, [(250, 401)])], 0x01),
        "shifted": ([rank_doc(0, 3, base, [(1, 2)]), rank_doc(2, 3, base, [(1, 3)])], 0x04),
        "by_order": ([rank_doc(None, 0, base, [(5, 9)]), rank_doc(None, 0, base, [(6, 9)]),
                      rank_doc(None, 0, base, [(7, 9)])], 0x00),
        "far_apart": ([rank_doc(0, 2, -(1 << 62), [(1, 2)]), rank_doc(1, 2, (1 << 62) - 1, [(1, 2)])], 0x03),
        "big_pids": ([rank_doc(0, 2, base, [(1, 2)], pid=(1 << 63) - 1),
                      rank_doc(1, 2, base, [(1, 2)], pid=(1 << 63) - 1)], 0x00),
    }
    return {name: (bytes([i % 4, flags, 0xF9, 0x7F]) + "\n#rank\n".join(files).encode())
            for i, (name, (files, flags)) in enumerate(runs.items())}


# The adversarial shapes (tests/adversarial) at a few events each, with the change each one attacks.
WHATIF_SHAPES = {
    "measurements": "streams",
    "measurements_no_links": "no-sync=cudaDeviceSynchronize",
    "context_syncs": "no-sync=cudaDeviceSynchronize",
    "fan_in": "no-sync=cudaDeviceSynchronize",
    "fan_out": "no-sync=cudaStreamSynchronize pinned",
    "deep_chain": "graphs",
    "cycles": "no-launch-blocking no-sync=cudaLaunchKernel",
    "launch_blocking": "no-launch-blocking",
    "shared_stream": "streams placement=0",
    "threads_overlap": "processes streams",
}


def whatif_seeds():
    """A settings byte, a line of changes and a trace: the adversarial shapes and a hand-written forward."""
    sys.path.insert(0, str(HERE.parent / "adversarial"))
    import adversarial_traces
    seeds = {}
    for i, (shape, changes) in enumerate(WHATIF_SHAPES.items()):
        trace, _ = adversarial_traces.SHAPES[shape](4)
        text = json.dumps(trace.document(), separators=(",", ":"))
        seeds[shape] = bytes([SETTINGS[i % len(SETTINGS)]]) + (changes + "\n" + text).encode()
    forward = json.loads(HAND_WRITTEN["counters_flows"])
    forward["gtv"] = {"format_version": 2, "ranges": [
        {"name": "model 0 forward", "kind": "forward", "start_ns": 9000, "end_ns": 15000, "pid": 7, "tid": 8,
         "device": 0}]}
    seeds["forward"] = bytes([0x00]) + ("placement=0 graphs\n" + json.dumps(forward)).encode()
    return seeds


def write_new_targets():
    for target, seeds in (("fuzz_sqlite", {k: bytes([s]) + b for k, (s, b) in sqlite_seeds().items()}),
                          ("fuzz_merge", merge_seeds()), ("fuzz_whatif", whatif_seeds())):
        folder = HERE / "corpus" / target
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        for name, data in seeds.items():
            (folder / f"{name}.bin").write_bytes(data)


def main():
    if sys.argv[1:] == ["--new"]:
        write_new_targets()
        return
    seeds = dict(HAND_WRITTEN)
    for path in sorted((DATA / "edge").glob("*.json")):
        seeds["edge_" + path.stem] = path.read_text()
    heads = dict(fixture_heads())
    seeds.update(heads)
    if len(sys.argv) > 1:
        for name, text in list(heads.items())[:2] + [("counters_flows", HAND_WRITTEN["counters_flows"])]:
            out = rewritten(sys.argv[1], name, text)
            if out is not None:
                seeds["gtv_" + name] = out
    for target in TARGETS:
        folder = HERE / "corpus" / target
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        for i, (name, text) in enumerate(sorted(seeds.items())):
            settings = SETTINGS[i % len(SETTINGS)]
            (folder / f"{name}.bin").write_bytes(bytes([settings]) + text.encode())
        # Already gzip-compressed bytes behind a plain settings byte: the reader must detect gzip by its magic.
        (folder / "raw_gzip.bin").write_bytes(bytes([0x01]) + gzip.compress(HAND_WRITTEN["counters_flows"].encode()))
    write_new_targets()


if __name__ == "__main__":
    main()
