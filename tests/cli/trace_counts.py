"""Independent counts of a Chrome/Kineto trace file, computed with Python's json and gzip modules only.

This is the test oracle for `gtv-cli info --json`: it shares no code with gtv's reader, and follows the mapping
that docs/trace-format.md documents (Kineto conventions):
- "X" events are events; a "B"/"E" pair on one (pid, tid) is one event; "i"/"I" events are instants.
- GPU activity (cat kernel, gpu_memcpy, gpu_memset, gpu_user_annotation) sits on GPU lanes: pid = device,
  tid = stream. Everything else sits on host lanes (pid, tid).
- "X" events with args.gtv_range are copies of gtv's ranges (kept in the top-level "gtv" object) written for
  other viewers; they are not events.
- Categories are reported as the model names them: user_annotation and gpu_user_annotation are both
  "user_annotation"; instants are "instant"; unknown categories keep their text.
"""
import gzip
import json
from decimal import Decimal

# Kineto categories (and the older capitalized ones, matched case-insensitively) -> (category as gtv reports it,
# on a GPU lane). Anything else keeps its text and sits on a host lane.
KNOWN_CATEGORIES = {
    "kernel": ("kernel", True), "concurrent_kernel": ("kernel", True),
    "gpu_memcpy": ("gpu_memcpy", True), "memcpy": ("gpu_memcpy", True),
    "gpu_memset": ("gpu_memset", True), "memset": ("gpu_memset", True),
    "gpu_user_annotation": ("user_annotation", True), "user_annotation": ("user_annotation", False),
    "cuda_runtime": ("cuda_runtime", False), "runtime": ("cuda_runtime", False),
    "cuda_driver": ("cuda_driver", False), "driver": ("cuda_driver", False),
    "cuda_sync": ("cuda_sync", False), "cpu_op": ("cpu_op", False), "operator": ("cpu_op", False),
    "overhead": ("overhead", False), "instant": ("instant", False),
}
BUSY_CATEGORIES = {"kernel", "gpu_memcpy", "gpu_memset"}


def classify(cat):
    return KNOWN_CATEGORIES.get(cat.lower(), (cat, False))


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8")
    try:
        doc = json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError:
        # Chrome's JSON Array Format allows the closing "]" to be missing (a trace cut off while recording).
        stripped = text.rstrip().rstrip(",")
        if not stripped.lstrip().startswith("["):
            raise
        doc = json.loads(stripped + "]", parse_float=Decimal)
    return doc if isinstance(doc, list) else doc.get("traceEvents", [])


def lane_id(value):
    """pid/tid as the reader keys them: numbers (also when written as digit strings), else the text."""
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return value if value is not None else 0


def to_ns(us):
    return int(Decimal(us) * 1000)


def union_length(intervals):
    total, end = 0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def count(path):
    """Returns {"event_count", "categories": {cat: n}, "gpus": {device: {...}}, "threads": {(pid, tid): n}}."""
    events = []  # (cat, pid, tid, start_ns, dur_ns)
    open_b = {}
    for e in load(path):
        ph = e.get("ph")
        cat = e.get("cat", "")
        if ph == "X" and isinstance(e.get("args"), dict) and "gtv_range" in e["args"]:
            continue
        if ph == "X":
            events.append((cat, e.get("pid"), e.get("tid"), to_ns(e["ts"]), to_ns(e.get("dur", 0))))
        elif ph in ("i", "I"):
            events.append(("instant", e.get("pid"), e.get("tid"), to_ns(e["ts"]), 0))
        elif ph == "B":
            open_b.setdefault((e.get("pid"), e.get("tid")), []).append(e)
        elif ph == "E":
            stack = open_b.get((e.get("pid"), e.get("tid")))
            if stack:
                b = stack.pop()
                events.append((b.get("cat", ""), b.get("pid"), b.get("tid"), to_ns(b["ts"]),
                               to_ns(e["ts"]) - to_ns(b["ts"])))
    return summarize(events)


def summarize(events):
    categories, gpus, threads = {}, {}, {}
    for cat, pid, tid, start, dur in events:
        name, on_gpu = classify(cat)
        categories[name] = categories.get(name, 0) + 1
        if on_gpu:
            gpu = gpus.setdefault(int(pid), {"kernel_count": 0, "kernel_ns": 0, "busy": [], "streams": {}})
            gpu["streams"][int(tid)] = gpu["streams"].get(int(tid), 0) + 1
            if name == "kernel":
                gpu["kernel_count"] += 1
                gpu["kernel_ns"] += dur
            if name in BUSY_CATEGORIES and dur > 0:
                gpu["busy"].append((start, start + dur))
        else:
            key = (lane_id(pid), lane_id(tid))
            threads[key] = threads.get(key, 0) + 1
    for gpu in gpus.values():
        gpu["busy_ns"] = union_length(gpu.pop("busy"))
    span_ns = max(s + d for _, _, _, s, d in events) - min(s for _, _, _, s, _ in events) if events else 0
    return {"event_count": len(events), "categories": categories, "gpus": gpus, "threads": threads,
            "span_ns": span_ns}
