#!/usr/bin/env python3
"""Writes one small recording twice: as an Nsight Systems SQLite export and as a Kineto (PyTorch profiler) JSON trace.

No real `nsys export --type sqlite` file was at hand, so the SQLite file is built from NVIDIA's documented schema
(Nsight Systems documentation, "SQLite Schema Reference", schema 3.x: the tables and columns below, with their
types and NOT NULL constraints). The JSON file holds the same activity in Kineto's conventions (GPU events with
pid = device and tid = stream, args "correlation", "grid", ..., "ac2g" flows). gtv must read both into the same
trace and the same analysis (tests/unit/io/nsys_equivalence_test.cpp).

The recording: one process (pid 4242) with a main thread and a data-loader thread, two GPUs with two streams
each, three training steps. Each step copies a batch to GPU 0, launches kernels on both GPUs and streams, copies
peer to peer from GPU 0 to GPU 1, clears a buffer with a memset, copies the loss back and waits for it. NVTX
push/pop ranges mark the steps and their forward passes, a start/end range the loader's work, a mark each
checkpoint.

    make_nsys_sqlite.py [--out DIR]    writes DIR/two_gpus.sqlite and DIR/two_gpus_kineto.json (DIR: this folder)
    make_nsys_sqlite.py --check DIR    exit 1 unless the files in DIR hold what this script writes
"""
import argparse
import json
import os
import sqlite3
import sys
import tempfile

PID = 4242
MAIN_TID = 4242
LOADER_TID = 4250
SESSION_START_UTC_NS = 1_700_000_000_000_000_000
GPUS = [
    # id, name, total memory, SMs, compute capability
    (0, "NVIDIA H200", 150_754_820_096, 132, (9, 0)),
    (1, "NVIDIA H200", 150_754_820_096, 132, (9, 0)),
]
THREAD_NAMES = {MAIN_TID: "python3", LOADER_TID: "pt_data_loader"}

# CUpti_ActivityMemcpyKind and CUpti_ActivityMemoryKind values, as stored in copyKind, srcKind, dstKind, memKind.
COPY_KINDS = {"HtoD": 1, "DtoH": 2, "DtoD": 8, "PtoP": 10}
MEMORY_KINDS = {"Pageable": 1, "Pinned": 2, "Device": 3}
# NVTX_EVENTS.eventType values (ENUM_NSYS_EVENT_TYPE).
NVTX_MARK, NVTX_PUSH_POP, NVTX_START_END = 34, 59, 60

GEMM = ("void gemm_kernel<float, 128>(float const*, float const*, float*, int)", "gemm_kernel")
RELU = ("void relu_kernel<float>(float*, long)", "relu_kernel")
REDUCE = ("void reduce_loss_kernel(float const*, float*, int)", "reduce_loss_kernel")


def global_tid(pid, tid):
    """Serialized global thread id: pid in bits 24..47, tid in bits 0..23 (and a VM id above)."""
    return (1 << 48) | (pid << 24) | tid


def global_pid(pid):
    return (1 << 48) | (pid << 24)


def build_activity():
    """The recording as plain records, times in ns since the session start."""
    calls, kernels, copies, memsets, nvtx = [], [], [], [], []
    correlation = [0]

    def call(name, version, tid, start, duration):
        correlation[0] += 1
        calls.append(dict(name=name, version=version, tid=tid, start=start, end=start + duration,
                          correlation=correlation[0]))
        return correlation[0]

    def kernel(names, device, stream, start, duration, corr, grid, block, registers, static_smem, dynamic_smem):
        kernels.append(dict(demangled=names[0], short=names[1], device=device, stream=stream, start=start,
                            end=start + duration, correlation=corr, grid=grid, block=block, registers=registers,
                            static_smem=static_smem, dynamic_smem=dynamic_smem))

    def copy(kind, src, dst, device, stream, start, duration, corr, size, dst_device=None):
        copies.append(dict(kind=kind, src=src, dst=dst, device=device, stream=stream, start=start,
                           end=start + duration, correlation=corr, bytes=size, dst_device=dst_device))

    nvtx.append(dict(type=NVTX_START_END, text="load batches", tid=LOADER_TID, start=400_000, end=30_500_000))
    step_ns = 10_000_000
    for step in range(3):
        t = 1_000_000 + step * step_ns
        warm = 2 if step == 0 else 1  # the first step is slower: its launches and kernels take longer
        nvtx.append(dict(type=NVTX_PUSH_POP, text=f"step {step}", tid=MAIN_TID, start=t, end=t + 8_200_000))
        nvtx.append(dict(type=NVTX_PUSH_POP, text_id="forward", tid=MAIN_TID, start=t + 50_000, end=t + 3_900_000))
        c = call("cudaMemcpyAsync", "v3020", MAIN_TID, t + 100_000, 15_000 * warm)
        copy("HtoD", "Pinned", "Device", 0, 7, t + 160_000, 350_000, c, 4 << 20)
        c = call("cudaLaunchKernel", "v7000", MAIN_TID, t + 200_000, 8_000 * warm)
        kernel(GEMM, 0, 7, t + 520_000, 1_280_000 * warm, c, (128, 1, 1), (256, 1, 1), 64, 4096, 8192)
        c = call("cudaLaunchKernel", "v7000", MAIN_TID, t + 220_000, 7_000)
        kernel(RELU, 0, 13, t + 300_000, 600_000, c, (512, 1, 1), (128, 1, 1), 16, 0, 0)
        c = call("cudaMemsetAsync", "v3020", MAIN_TID, t + 240_000, 6_000)
        memsets.append(dict(device=1, stream=7, start=t + 260_000, end=t + 280_000, correlation=c, bytes=1 << 20,
                            value=0, kind="Device"))
        c = call("cudaLaunchKernel", "v7000", MAIN_TID, t + 250_000, 7_000)
        kernel(GEMM, 1, 7, t + 290_000, 1_210_000, c, (128, 1, 1), (256, 1, 1), 64, 4096, 8192)
        c = call("cudaLaunchKernel", "v7000", LOADER_TID, t + 270_000, 9_000)
        kernel(RELU, 1, 13, t + 1_600_000, 300_000, c, (512, 1, 1), (128, 1, 1), 16, 0, 0)
        c = call("cudaMemcpyPeerAsync", "v4000", MAIN_TID, t + 1_900_000, 12_000)
        copy("PtoP", "Device", "Device", 0, 13, t + 1_950_000, 400_000, c, 8 << 20, dst_device=1)
        c = call("cudaLaunchKernel", "v7000", MAIN_TID, t + 1_920_000, 7_000)
        kernel(REDUCE, 1, 13, t + 2_400_000, 450_000, c, (64, 1, 1), (1024, 1, 1), 32, 16384, 0)
        c = call("cudaMemcpyAsync", "v3020", MAIN_TID, t + 2_950_000, 10_000)
        copy("DtoH", "Device", "Pageable", 1, 13, t + 2_960_000, 380_000, c, 4096)
        call("cudaStreamSynchronize", "v3020", MAIN_TID, t + 2_965_000, 380_000)
        call("cudaDeviceSynchronize", "v3020", MAIN_TID, t + 4_000_000, 150_000)
        nvtx.append(dict(type=NVTX_MARK, text=f"checkpoint {step}", tid=MAIN_TID, start=t + 8_300_000))
    return dict(calls=calls, kernels=kernels, copies=copies, memsets=memsets, nvtx=nvtx)


# The documented tables gtv reads, with the documented columns (a subset of each table's columns: those the
# recording fills, in the documented order).
SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
CREATE TABLE TARGET_INFO_GPU (
    vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT, isDiscrete INTEGER,
    l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER,
    pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER, computeMajor INTEGER,
    computeMinor INTEGER);
CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER NOT NULL, pid INTEGER NOT NULL, uuid TEXT,
    numMultiprocessors INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
    start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER,
    correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
    start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
    greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
    demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER,
    cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
    gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
    staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
    localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
    sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
    start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
    greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
    bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,
    srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER,
    graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (
    start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
    greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
    value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE NVTX_EVENTS (
    start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER,
    color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER,
    jsonText TEXT, eventId INTEGER NOT NULL PRIMARY KEY);
"""


def write_sqlite(path, activity):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    strings = {}

    def string_id(text):
        if text not in strings:
            strings[text] = len(strings) + 1
            db.execute("INSERT INTO StringIds VALUES (?, ?)", (strings[text], text))
        return strings[text]

    # The schema version the tables follow; no EXPORT_PRODUCT_VERSION, since no Nsight Systems wrote the file.
    db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.28.1')")
    db.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, '2023-11-14T22:13:20Z', NULL)",
               (SESSION_START_UTC_NS,))
    for gpu_id, name, memory, sms, (major, minor) in GPUS:
        db.execute("INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, isDiscrete, totalMemory, smCount, "
                   "uuid, chipName, cuDevice, computeMajor, computeMinor) VALUES (0, ?, ?, ?, 1, ?, ?, ?, 'GH100', "
                   "?, ?, ?)",
                   (gpu_id, name, f"0000:{0x18 + gpu_id:02x}:00.0", memory, sms, f"GPU-{gpu_id:08d}", gpu_id, major,
                    minor))
        db.execute("INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (?, ?, ?, ?, ?)",
                   (gpu_id, gpu_id, PID, f"GPU-{gpu_id:08d}", sms))
    for tid, name in THREAD_NAMES.items():
        db.execute("INSERT INTO ThreadNames VALUES (?, 0, ?)", (string_id(name), global_tid(PID, tid)))
    for c in activity["calls"]:
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
                   (c["start"], c["end"], global_tid(PID, c["tid"]), c["correlation"],
                    string_id(f"{c['name']}_{c['version']}")))
    for grid_id, k in enumerate(activity["kernels"]):
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, 1, NULL, ?, ?, ?, ?, ?, NULL, 0, 0, ?, "
                   "?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?, NULL, NULL)",
                   (k["start"], k["end"], k["device"], k["stream"], k["correlation"], global_pid(PID),
                    string_id(k["demangled"]), string_id(k["short"]), k["registers"], *k["grid"], *k["block"],
                    k["static_smem"], k["dynamic_smem"], grid_id + 1, k["static_smem"] + k["dynamic_smem"]))
    for c in activity["copies"]:
        dst_device = c["dst_device"] if c["dst_device"] is not None else c["device"]
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, ?, 1, NULL, ?, ?, ?, ?, ?, NULL, ?, ?, ?, 1, "
                   "?, 1, NULL, NULL, NULL)",
                   (c["start"], c["end"], c["device"], c["stream"], c["correlation"], global_pid(PID), c["bytes"],
                    COPY_KINDS[c["kind"]], MEMORY_KINDS[c["src"]], MEMORY_KINDS[c["dst"]], c["device"], dst_device))
    for m in activity["memsets"]:
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?, ?, ?, 1, NULL, ?, ?, ?, ?, ?, NULL, ?)",
                   (m["start"], m["end"], m["device"], m["stream"], m["correlation"], global_pid(PID), m["value"],
                    m["bytes"], MEMORY_KINDS[m["kind"]]))
    for event_id, n in enumerate(activity["nvtx"]):
        # Registered strings (nvtxDomainRegisterString) are in StringIds through textId; others in text.
        text_id = string_id(n["text_id"]) if "text_id" in n else None
        db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId, eventId) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?)",
                   (n["start"], n.get("end"), n["type"], n.get("text"), global_tid(PID, n["tid"]), text_id,
                    event_id + 1))
    db.commit()
    db.close()


def us(ns):
    """Kineto's microseconds with three decimals, exact for integer nanoseconds."""
    return f"{ns // 1000}.{ns % 1000:03d}"


def kineto_events(activity):
    events = []

    def event(ph, cat, name, pid, tid, start, end=None, args=None, **extra):
        e = {"ph": ph, "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": us(start)}
        if end is not None:
            e["dur"] = us(end - start)
        e.update(extra)
        if args is not None:
            e["args"] = args
        events.append(e)

    for tid, name in THREAD_NAMES.items():
        events.append({"ph": "M", "name": "thread_name", "pid": PID, "tid": tid,
                       "args": {"name": f"thread {tid} ({name})"}})
    gpu_start = {}
    for k in activity["kernels"]:
        event("X", "kernel", k["demangled"], k["device"], k["stream"], k["start"], k["end"],
              {"device": k["device"], "stream": k["stream"], "correlation": k["correlation"], "grid": list(k["grid"]),
               "block": list(k["block"]), "registers per thread": k["registers"],
               "shared memory": k["static_smem"] + k["dynamic_smem"]})
        gpu_start[k["correlation"]] = (k["device"], k["stream"], k["start"])
    for c in activity["copies"]:
        args = {"device": c["device"], "stream": c["stream"], "correlation": c["correlation"], "bytes": c["bytes"],
                "memory bandwidth (GB/s)": round(c["bytes"] / (c["end"] - c["start"]), 6)}
        if c["dst_device"] is not None:
            args["dst device"] = c["dst_device"]
        event("X", "gpu_memcpy", f"Memcpy {c['kind']} ({c['src']} -> {c['dst']})", c["device"], c["stream"],
              c["start"], c["end"], args)
        gpu_start[c["correlation"]] = (c["device"], c["stream"], c["start"])
    for m in activity["memsets"]:
        event("X", "gpu_memset", f"Memset ({m['kind']})", m["device"], m["stream"], m["start"], m["end"],
              {"device": m["device"], "stream": m["stream"], "correlation": m["correlation"], "bytes": m["bytes"]})
        gpu_start[m["correlation"]] = (m["device"], m["stream"], m["start"])
    for c in activity["calls"]:
        event("X", "cuda_runtime", c["name"], PID, c["tid"], c["start"], c["end"], {"correlation": c["correlation"]})
        if c["correlation"] in gpu_start:
            device, stream, start = gpu_start[c["correlation"]]
            event("s", "ac2g", "ac2g", PID, c["tid"], c["start"], id=c["correlation"])
            event("f", "ac2g", "ac2g", device, stream, start, id=c["correlation"], bp="e")
    for n in activity["nvtx"]:
        name = n.get("text", n.get("text_id"))
        if n["type"] == NVTX_MARK:
            event("i", "user_annotation", name, PID, n["tid"], n["start"], s="t")
        else:
            event("X", "user_annotation", name, PID, n["tid"], n["start"], n["end"])
    return events


def write_kineto_json(path, activity):
    devices = [{"id": gpu_id, "name": name, "totalGlobalMem": memory, "computeMajor": major, "computeMinor": minor,
                "numSms": sms} for gpu_id, name, memory, sms, (major, minor) in GPUS]
    lines = ['{', '  "schemaVersion": 1,', f'  "deviceProperties": {json.dumps(devices)},',
             f'  "baseTimeNanoseconds": {SESSION_START_UTC_NS},', '  "traceEvents": [']
    events = kineto_events(activity)
    for i, e in enumerate(events):
        # "ts" and "dur" as exact decimals, not Python floats.
        text = json.dumps(e)
        for key in ("ts", "dur"):
            if key in e:
                text = text.replace(f'"{key}": "{e[key]}"', f'"{key}": {e[key]}')
        lines.append("    " + text + ("," if i + 1 < len(events) else ""))
    lines += ["  ]", "}"]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def write_all(directory):
    activity = build_activity()
    write_sqlite(os.path.join(directory, "two_gpus.sqlite"), activity)
    write_kineto_json(os.path.join(directory, "two_gpus_kineto.json"), activity)


def sqlite_content(path):
    """Schema and rows of every table: what the file holds, whatever SQLite version laid out its pages."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = db.execute("SELECT name, sql FROM sqlite_master ORDER BY name").fetchall()
    content = [(name, sql, db.execute(f'SELECT * FROM "{name}" ORDER BY rowid').fetchall()) for name, sql in tables]
    db.close()
    return content


def check(directory):
    with tempfile.TemporaryDirectory() as fresh:
        write_all(fresh)
        same_sqlite = sqlite_content(os.path.join(directory, "two_gpus.sqlite")) == sqlite_content(
            os.path.join(fresh, "two_gpus.sqlite"))
        with open(os.path.join(directory, "two_gpus_kineto.json"), "rb") as a, \
                open(os.path.join(fresh, "two_gpus_kineto.json"), "rb") as b:
            same_json = a.read() == b.read()
    for ok, name in ((same_sqlite, "two_gpus.sqlite"), (same_json, "two_gpus_kineto.json")):
        if not ok:
            print(f"{os.path.join(directory, name)} differs from what {sys.argv[0]} writes: run it again",
                  file=sys.stderr)
    return 0 if same_sqlite and same_json else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--check", metavar="DIR")
    args = parser.parse_args()
    if args.check:
        return check(args.check)
    write_all(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
