#!/usr/bin/env python3
"""Regenerates the seed corpus of the fuzz targets (tests/fuzz/corpus/<target>/) from the test fixtures and a few
hand-written traces. Each seed starts with the settings byte the targets read first (fuzz_input.h: chunk size,
gzip). Usage: tests/fuzz/make_corpus.py [GTV_CLI]; with the path of a built gtv-cli it also adds traces rewritten by
gtv's writer (the gtv object, overlap tids, flows)."""
import gzip
import json
import pathlib
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


def main():
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


if __name__ == "__main__":
    main()
