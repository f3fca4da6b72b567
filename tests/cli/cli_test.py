"""End-to-end tests of gtv-cli: exit codes, messages and counts, run by ctest (one case per test).

usage: cli_test.py CASE --cli PATH --data DIR --work DIR [--trace-gen PATH]
"""
import gzip
import json
import os
import socket
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_counts  # noqa: E402

from case_runner import check, run_case

COMMANDS = ["info", "convert", "analyze", "merge", "compare", "whatif", "summarize", "reduce", "list", "run", "record"]
# The reader numbers string pids/tids ("Spans", "PyTorch Profiler") from here on and keeps the text as the
# process/thread name; the oracle keeps the text itself.
STRING_ID_BASE = 10**12


def cli(args, *argv, env=None):
    return subprocess.run([args.cli, *argv], capture_output=True, text=True, timeout=300, env=env)


def fixtures(data_dir):
    """Every trace file under tests/data, except the edge cases meant to be rejected (bad_*)."""
    found = []
    for root, _, files in os.walk(data_dir):
        for name in sorted(files):
            if (name.endswith(".json") or name.endswith(".json.gz")) and not name.startswith("bad_"):
                found.append(os.path.join(root, name))
    return sorted(found)


def bad_fixtures(data_dir):
    edge = os.path.join(data_dir, "edge")
    if not os.path.isdir(edge):
        return []
    return sorted(os.path.join(edge, n) for n in os.listdir(edge) if n.startswith("bad_"))


def case_help(args):
    r = cli(args, "--help")
    check(r.returncode == 0, "--help exits 0")
    for name in COMMANDS:
        check(("  " + name + " ") in r.stdout, "--help lists " + name)
    r = cli(args, "--version")
    check(r.returncode == 0 and r.stdout.startswith("gtv-cli "), "--version prints the version")
    for name in COMMANDS:
        own = cli(args, name, "--help")
        check(own.returncode == 0, name + " --help exits 0")
        check(own.stdout.startswith("usage: gtv-cli " + name), name + " --help starts with its usage line")
        check("--help" in own.stdout, name + " --help lists --help")
        via_help = cli(args, "help", name)
        check(via_help.returncode == 0 and via_help.stdout == own.stdout, "help " + name + " equals " + name + " --help")


def case_usage(args):
    cases = [
        [], ["nosuch"], ["help", "nosuch"], ["info"], ["info", "--bogus", "a.json"], ["merge", "a.json", "-o", "m"],
        ["merge", "a.json", "b.json"], ["info", "a.json", "b.json", "--clock", "sun"],
        ["analyze", "a.json", "b.json", "--shift", "1=soon"], ["merge", "a", "b", "-o", "m", "--shift", "x=1"],
        ["info", "--json=yes", "a.json"], ["convert", "a.json"], ["analyze"], ["analyze", "a.json", "--format"],
        ["analyze", "a.json", "--format", "xml"], ["compare", "a.json"], ["compare", "a", "b", "--format=pdf"],
        ["list", "extra"], ["run"], ["run", "baseline", "--iters"], ["whatif", "a.json"],
        ["whatif", "a.json", "--change", "stream"], ["whatif", "a.json", "--change", "placement=0,,1"],
        ["whatif", "a.json", "--change", "streams", "--change", "streams"],
        ["whatif", "a.json", "--change", "streams", "--format", "xml"], ["whatif", "--change", "streams"],
        ["whatif", "a.json", "--change", "streams", "--owners", ""],
    ]
    for argv in cases:
        r = cli(args, *argv)
        label = "gtv-cli " + " ".join(argv)
        check(r.returncode == 2, label + ": exit 2 (got %d)" % r.returncode)
        check(r.stderr.strip() != "", label + ": explains on stderr")
        check(r.stdout == "", label + ": prints nothing on stdout")


def runner_path(args):
    """The experiment runner `gtv-cli --version` names, or None when it says there is none."""
    version = cli(args, "--version").stdout
    marker = "(experiments: runner "
    if marker not in version:
        return None
    return version.split(marker, 1)[1].rsplit(")", 1)[0]


def case_no_runner(args):
    """Without the runner gtv-run (GTV_RUN names a missing file) list still works and run says why it cannot."""
    missing = os.path.join(args.work, "no-such-gtv-run")
    env = dict(os.environ, GTV_RUN=missing)
    r = cli(args, "--version", env=env)
    check(r.returncode == 0 and "(experiments: unavailable, no runner " + missing + ")" in r.stdout,
          "--version says there is no runner: %r" % r.stdout)
    r = cli(args, "list", env=env)
    check(r.returncode == 0 and "sequential" in r.stdout, "list works without a runner")
    out = os.path.join(args.work, "x.json")
    r = cli(args, "run", "baseline", "-o", out, env=env)
    check(r.returncode == 1, "run without a runner: exit 1 (got %d)" % r.returncode)
    lines = r.stderr.strip().splitlines()
    check(len(lines) == 1 and "gtv-run (LibTorch)" in lines[0] and missing in lines[0],
          "run without a runner: one line naming gtv-run, LibTorch and the path looked at: %r" % r.stderr)
    check(not os.path.exists(out), "run without a runner writes no file")
    r = cli(args, "run", "nosuch", "-o", out, env=env)
    check(r.returncode == 2 and "unknown scenario 'nosuch'" in r.stderr, "an unknown scenario is a usage error first")
    r = cli(args, "run", "baseline", "--iters", "0", "-o", out, env=env)
    check(r.returncode == 2 and "--iters" in r.stderr, "a bad option value is a usage error first")


def case_record(args):
    """CUPTI builds, no GPU needed: record runs the program with the recorder's environment, passes its exit code
    through, says when no process wrote a trace, and collects and merges what the processes left in its folder (here
    written by the program itself, as the injected recorder writes them at exit)."""
    out = os.path.join(args.work, "rec.json")
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH")}
    for argv, code in ((["true"], 0), (["sh", "-c", "exit 3"], 3), (["sh", "-c", "kill -TERM $$"], 143)):
        r = cli(args, "record", "-o", out, "--", *argv, env=env)
        label = "record -- " + " ".join(argv)
        check(r.returncode == code, label + ": exit %d, the program's (got %d)" % (code, r.returncode))
        check("gtv-cli record: no trace was written: no process of %s initialised CUDA" % argv[0] in r.stderr,
              label + ": says no process used CUDA: %r" % r.stderr)
        check(not os.path.exists(out), label + ": writes no file")
    r = cli(args, "record", "-o", out, "--", os.path.join(args.work, "no-such-program"), env=env)
    check(r.returncode == 127 and "cannot start" in r.stderr, "a program that cannot start: exit 127 and why")

    seen = os.path.join(args.work, "env.txt")
    r = cli(args, "record", "-o", out, "--capture-range", "nvtx:train step", "--max-events", "99", "--", "sh", "-c",
            'env > "$0"', seen, env=env)
    check(r.returncode == 0, "record -- sh -c env: exit 0")
    with open(seen) as f:
        child_env = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
    inject = child_env.get("CUDA_INJECTION64_PATH", "")
    check(inject.endswith("/libgtv-inject.so") and os.path.isabs(inject) and os.path.exists(inject),
          "CUDA_INJECTION64_PATH names the injection library: %r" % inject)
    check("libcupti.so" in child_env.get("NVTX_INJECTION64_PATH", ""), "NVTX_INJECTION64_PATH names its libcupti")
    check(child_env.get("GTV_RECORD_CAPTURE") == "nvtx:train step" and child_env.get("GTV_RECORD_MAX_EVENTS") == "99",
          "the capture range and the event limit reach the program")
    folder = child_env.get("GTV_RECORD_DIR", "")
    check(folder != "" and not os.path.exists(folder), "the per-process folder is removed afterwards: %r" % folder)

    # Two rank files, as two ranks of a launcher would leave them, merged as merge merges them.
    r0 = rank_file(args.work, "rank0.json", 0, 2, [(200, 400)])
    r1 = rank_file(args.work, "rank1.json", 1, 2, [(350, 401)])
    script = 'cp "$0" "$GTV_RECORD_DIR/gtv-101.json"; cp "$1" "$GTV_RECORD_DIR/gtv-102.json"; exit 5'
    r = cli(args, "record", "-o", out, "--", "sh", "-c", script, r0, r1, env=env)
    check(r.returncode == 5, "record passes the exit code through when traces were written (got %d)" % r.returncode)
    check("wrote " + out + " (2 processes, 6 events; clock: wall clock; sh ended with exit code 5)" in r.stderr,
          "two ranks merged on the wall clock: %r" % r.stderr)
    info = json.loads(cli(args, "info", out, "--json").stdout)
    check([x["source"] for x in info["run"]["ranks"]] == ["pid 101", "pid 102"], "each rank's process named")
    # The ranks of a launcher that initialised CUDA itself (torchrun's agent counts the GPUs): the launcher has no
    # rank; the ranks still merge as ranks, and the launcher goes beside them on the host's clock, named in a note.
    launcher = os.path.join(args.data, "pytorch", "one_gpu_basic.json.gz")
    script = ('cp "$0" "$GTV_RECORD_DIR/gtv-101.json"; cp "$1" "$GTV_RECORD_DIR/gtv-102.json"; '
              'gzip -dc "$2" > "$GTV_RECORD_DIR/gtv-100.json"')
    r = cli(args, "record", "-o", out, "--", "sh", "-c", script, r0, r1, launcher, env=env)
    check(r.returncode == 0, "ranks and their launcher: exit 0 (%s)" % r.stderr.strip())
    info = json.loads(cli(args, "info", out, "--json").stdout)
    check([x["source"] for x in info["run"]["ranks"]] == ["pid 101", "pid 102"],
          "the launcher's ranks are merged as ranks: %r" % info["run"].get("ranks"))
    launcher_events = json.loads(cli(args, "info", launcher, "--json").stdout)["event_count"]
    check(info["event_count"] == 6 + launcher_events, "every event of the ranks and the launcher kept (%d)"
          % info["event_count"])
    text = cli(args, "info", out).stdout
    check("pid 100 has no rank in its environment (a launcher or a helper process): merged beside the 2 ranks" in text,
          "a note names the launcher: %r" % text[-600:])
    # Processes that are not ranks of one job (no rank, or a rank twice), a refusal and a fork.
    single = os.path.join(args.data, "pytorch", "one_gpu_basic.json.gz")
    single_events = json.loads(cli(args, "info", single, "--json").stdout)["event_count"]
    script = ('cp "$0" "$GTV_RECORD_DIR/gtv-7.json"; cp "$0" "$GTV_RECORD_DIR/gtv-8.json"; '
              'echo "gtv-cli record: pid 9 (x) is not traced: because" > "$GTV_RECORD_DIR/gtv-9.refused"; '
              'echo 7 > "$GTV_RECORD_DIR/gtv-10.forked"; echo 7 > "$GTV_RECORD_DIR/gtv-8.forked"; '
              'echo partial > "$GTV_RECORD_DIR/.gtv-11.json.part"')
    r = cli(args, "record", "-o", out, "--", "sh", "-c", script, single, env=env)
    check(r.returncode == 0, "processes: exit 0 (%s)" % r.stderr.strip())
    check("wrote %s (2 processes, %d events; clock: wall clock" % (out, 2 * single_events) in r.stderr,
          "two processes merged on this host's clock, every event kept: %r" % r.stderr)
    check("gtv-cli record: pid 9 (x) is not traced: because" in r.stderr, "a refusal is repeated at the end")
    check("1 process was forked from a traced process after it had initialised CUDA (pid 10)" in r.stderr,
          "a forked child without a trace of its own is named (pid 8 ran a new program and wrote one)")
    check("recording cost" not in r.stderr, "files that carry no recorder cost print none")
    # One process whose file carries its recorder's cost, as the injected recorder writes it.
    with gzip.open(single, "rt") as f:
        doc = json.load(f)
    cost = {"pid": 7, "startup_ns": 52000000, "buffer_handling_ns": 3400000, "exit_ns": 9000000,
            "traced_ns": 2000000000, "buffers": 12, "records": 81000, "records_kept": 80500}
    doc["gtv"] = {"format_version": 2, "writer": "gtv 0.1.0",
                  "metadata": {"source_tool": "gtv 0.1.0", "recorder_cost": [cost]}}
    with_cost = os.path.join(args.work, "with_cost.json")
    with open(with_cost, "w") as f:
        json.dump(doc, f)
    r = cli(args, "record", "-o", out, "--", "sh", "-c", 'cp "$0" "$GTV_RECORD_DIR/gtv-7.json"', with_cost, env=env)
    check(r.returncode == 0 and "wrote %s (1 process, %d events; sh ended with exit code 0)" % (out, single_events)
          in r.stderr, "one process: its trace as it is: %r" % r.stderr)
    check("recording cost, as measured by the recorder:\n  pid 7: start-up 52.0 ms, buffer handling 3.4 ms on CUPTI's "
          "thread in 2000.0 ms traced (0.17% of that window), exit flush 9.0 ms; 80500 of 81000 records kept\n"
          in r.stderr, "the recorder's cost, printed: %r" % r.stderr)
    with open(out) as f:
        check(json.load(f)["gtv"]["metadata"].get("recorder_cost") == [cost], "and kept in OUT")


def case_record_unavailable(args):
    """Without the injection library (GTV_INJECT names a missing file) record says why and does not run CMD."""
    missing = os.path.join(args.work, "no-libgtv-inject.so")
    marker = os.path.join(args.work, "ran")
    env = dict(os.environ, GTV_INJECT=missing)
    r = cli(args, "record", "--", "sh", "-c", 'touch "$0"', marker, env=env)
    check(r.returncode == 1, "record without the injection library: exit 1 (got %d)" % r.returncode)
    lines = r.stderr.strip().splitlines()
    check(len(lines) == 1 and "no injection library " + missing in lines[0] and "CUPTI" in lines[0],
          "one line naming the library looked for and CUPTI: %r" % r.stderr)
    check(not os.path.exists(marker), "the program was not run")
    env = dict(os.environ, CUDA_INJECTION64_PATH="/opt/other/libinject.so")
    r = cli(args, "record", "--", "sh", "-c", 'touch "$0"', marker, env=env)
    check(r.returncode == 1 and "CUDA_INJECTION64_PATH is already set (/opt/other/libinject.so)" in r.stderr,
          "another injection library already set: exit 1 and says so")
    check(not os.path.exists(marker), "the program was not run")
    for argv in (["--capture-range", "sometimes", "--", "true"], ["--delay", "x", "--", "true"],
                 ["--capture-range", "nvtx:a", "--delay", "1", "--", "true"], ["--max-events", "0", "--", "true"],
                 []):
        r = cli(args, "record", *argv)
        check(r.returncode == 2 and r.stderr.strip() != "", "record " + " ".join(argv) + ": usage error")


def loaded_libraries(argv, env=None):
    """The shared objects the dynamic loader loads for argv (LD_DEBUG=libs), as file names."""
    env = dict(env or os.environ, LD_DEBUG="libs")
    r = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env)
    names = set()
    for line in r.stderr.splitlines():  # "  4711:\tcalling init: /lib/x86_64-linux-gnu/libz.so.1", one per object
        if "calling init:" in line:
            names.add(os.path.basename(line.split("calling init:", 1)[1].strip()))
    return r.returncode, names


HEAVY_LIBRARIES = ("libtorch", "libc10", "libcupti", "libicu", "libcuda", "libQt")


def case_lean_startup(args):
    """gtv-cli loads no LibTorch, CUPTI, CUDA, ICU or Qt for --version, list and info; the runner does load them."""
    trace = os.path.join(args.data, "pytorch", "one_gpu_basic.json.gz")
    for argv in (["--version"], ["list"], ["info", trace], ["analyze", trace]):
        code, names = loaded_libraries([args.cli, *argv])
        label = "gtv-cli " + " ".join(argv)
        check(code == 0, label + ": exit 0")
        check(any(n.startswith("libc.so") for n in names), label + ": LD_DEBUG=libs shows the libraries (libc)")
        heavy = sorted(n for n in names if n.startswith(HEAVY_LIBRARIES))
        check(heavy == [], label + ": loads none of %s, but loaded %r" % (", ".join(HEAVY_LIBRARIES), heavy))
        print("%s: %d shared libraries" % (label, len(names)))
    runner = runner_path(args)
    if runner is None:
        print("no runner in this build: its LibTorch is not checked")
        return
    code, names = loaded_libraries([runner, "--version"])
    check(code == 0 and any(n.startswith("libtorch") for n in names),
          "the check sees LibTorch where it is loaded (gtv-run --version): %r" % sorted(names)[:10])


def make_bad_files(work):
    os.makedirs(work, exist_ok=True)
    files = {"empty.json": b"", "garbage.json": bytes(range(256)) * 4, "truncated.json": b'{"traceEvents": [{"ph": "X"',
             "not_trace.json": b"42", "truncated.json.gz": b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xab\x56"}
    paths = []
    for name, content in files.items():
        path = os.path.join(work, name)
        with open(path, "wb") as f:
            f.write(content)
        paths.append(path)
    return paths + [os.path.join(work, "does_not_exist.json"), work]


def case_bad_input(args):
    for path in make_bad_files(os.path.join(args.work, "bad")) + bad_fixtures(args.data):
        for argv in (["info", path], ["info", "--json", path], ["analyze", path]):
            r = cli(args, *argv)
            label = "gtv-cli " + " ".join(argv)
            check(r.returncode == 1, label + ": exit 1 (got %d)" % r.returncode)
            lines = r.stderr.strip().splitlines()
            check(len(lines) == 1, label + ": one line on stderr (got %d)" % len(lines))
            check(os.path.basename(path) in r.stderr, label + ": the message names the file")
        out = os.path.join(args.work, "converted_bad.json")
        r = cli(args, "convert", path, out)
        check(r.returncode == 1 and not os.path.exists(out), "convert " + path + ": exit 1 and no output file")


def info_json(args, path):
    r = cli(args, "info", "--json", path)
    check(r.returncode == 0, "info --json %s: exit 0 (got %d: %s)" % (path, r.returncode, r.stderr.strip()))
    if r.returncode != 0:
        return None
    return json.loads(r.stdout)


def comparable(info):
    """The parts of `info --json` the oracle also computes, in the oracle's shape."""
    gpus = {}
    for g in info["gpus"]:
        streams = {s["stream"]: s["event_count"] for s in g["streams"]}
        if streams or g["kernel_count"]:
            gpus[g["index"]] = {"kernel_count": g["kernel_count"], "kernel_ns": g["kernel_ns"],
                                "busy_ns": g["busy_ns"], "streams": streams}
    threads = {}
    for p in info["processes"]:
        pid = p["name"] if p["pid"] >= STRING_ID_BASE else p["pid"]
        for t in p["threads"]:
            if t["event_count"] == 0:
                continue  # a lane named by metadata or an unclosed "B" but holding no event
            threads[(pid, t["name"] if t["tid"] >= STRING_ID_BASE else t["tid"])] = t["event_count"]
    return {"event_count": info["event_count"], "categories": info["categories"], "gpus": gpus, "threads": threads}


def named(value):
    return isinstance(value, str) or value >= STRING_ID_BASE


def split_threads(threads):
    """Lanes with numeric ids compare by key; lanes named by text ("Spans") compare by their counts only, because a
    converted file keeps the reader's numbers for them while the original has the text."""
    numeric = {k: n for k, n in threads.items() if not (named(k[0]) or named(k[1]))}
    by_name = sorted(n for k, n in threads.items() if named(k[0]) or named(k[1]))
    return numeric, by_name


def compare_counts(label, got, expected):
    for key in ("event_count", "categories", "gpus"):
        check(got[key] == expected[key], "%s: %s is %r, expected %r" % (label, key, got[key], expected[key]))
    got_threads, expected_threads = split_threads(got["threads"]), split_threads(expected["threads"])
    check(got_threads == expected_threads, "%s: threads are %r, expected %r" % (label, got_threads, expected_threads))


def case_run(args):
    """LibTorch builds: list, unknown scenario, and a small CPU-sized run whose trace records what was asked, made
    by gtv-cli run (which becomes the runner) and by the runner itself, reporting on --report-fd."""
    runner = runner_path(args)
    check(runner is not None, "--version names the runner")
    listed = cli(args, "list")
    check(listed.returncode == 0, "list: exit 0")
    names = [line.split()[0] for line in listed.stdout.splitlines() if line.strip()]
    check("sequential" in names and "baseline" in names, "list names the seed scenarios")
    missing = os.path.join(args.work, "nosuch.json")
    r = cli(args, "run", "nosuch", "-o", missing)
    check(r.returncode == 2, "run nosuch: exit 2")
    check(all(name in r.stderr for name in names), "run nosuch: prints the scenario list")
    check(not os.path.exists(missing), "run nosuch: writes nothing")
    out = os.path.join(args.work, "sequential.json.gz")
    r = cli(args, "run", "sequential", "--models", "2", "--hidden", "32", "--batch", "4", "--iters", "2",
            "--no-warmup", "--all-api", "-o", out)
    check(r.returncode == 0, "run sequential: exit 0 (%s)" % r.stderr.strip()[-300:])
    check("gtv-cli run:" in r.stderr, "run: progress lines on stderr")
    if r.returncode != 0:
        return
    with open(out, "rb") as f:
        raw = f.read()
    check(raw[:2] == b"\x1f\x8b", "run -o *.gz writes gzip")
    gtv = json.loads(gzip.decompress(raw))["gtv"]
    config = gtv["metadata"]["config"]
    asked = {"models": "2", "hidden": "32", "batch": "4", "iters": "2", "warmup": "false", "all_api": "true"}
    check({k: config.get(k) for k in asked} == asked, "the trace records the options: %r" % config)
    check(gtv["metadata"]["scenario"] == "sequential", "the trace names its scenario")
    check(not any(r["kind"] == "warmup" for r in gtv["ranges"]), "--no-warmup: no warm-up range")
    info = info_json(args, out)
    if info is not None:
        compare_counts("run trace", comparable(info), trace_counts.count(out))
        check(info["range_count"] == len(gtv["ranges"]), "info counts the ranges of the run")
        check(info["measurement_count"] == len(gtv["measurements"]) > 0, "info counts the measurements")
    # A model too large for any memory (200000^2 floats = 160 GB per layer): exit 1, and the trace of what ran
    # before the failure is still written and readable.
    partial = os.path.join(args.work, "too_large.json")
    r = cli(args, "run", "baseline", "--hidden", "200000", "--iters", "1", "-o", partial)
    check(r.returncode == 1, "run --hidden 200000: exit 1 (got %d)" % r.returncode)
    check(partial in r.stderr, "run --hidden 200000: says where the partial trace is")
    check(os.path.exists(partial) and info_json(args, partial) is not None, "the partial trace is readable")
    if runner is not None:
        check_runner_protocol(args, runner)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def case_ddp(args):
    """LibTorch builds: the ddp scenario's two ranks on the CPU over Gloo, started by gtv (the merged run and each
    rank's file) and as torchrun starts them (every rank the same command line, rank and rendezvous from the
    environment); the rank files merged by `gtv-cli merge` are the run gtv merged."""
    small = ["--hidden", "64", "--batch", "8", "--iters", "2", "--backend", "gloo"]
    out = os.path.join(args.work, "ddp.json")
    r = cli(args, "run", "ddp", "--ranks", "2", *small, "-o", out)
    if r.returncode != 0 and ("libgloo-dev" in r.stderr or "'gloo' is not in this LibTorch build" in r.stderr):
        check(r.returncode == 1 and not os.path.exists(out), "no Gloo in this build: exit 1, nothing written")
        print("skipped: this LibTorch build has no Gloo process group")
        return
    check(r.returncode == 0, "run ddp --ranks 2: exit 0 (%s)" % r.stderr.strip()[-300:])
    ranks = [os.path.join(args.work, "ddp.rank%d.json" % k) for k in (0, 1)]
    check(all(os.path.exists(p) for p in ranks), "run ddp writes each rank's file beside the run")
    for p in ranks:
        check(p in r.stderr, "run ddp says where %s is" % os.path.basename(p))
    info = info_json(args, out)
    if info is not None:
        check(len(info["run"]["ranks"]) == 2, "the run is merged from 2 ranks")
        remerged = os.path.join(args.work, "remerged.json")
        m = cli(args, "merge", *ranks, "-o", remerged)
        check(m.returncode == 0, "merge of the rank files: exit 0 (%s)" % m.stderr.strip()[-200:])
        again = info_json(args, remerged)
        if again is not None:
            check(comparable(again) == comparable(info), "merging the rank files gives the run gtv merged")
    # As torchrun runs it: two processes with one command line.
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()), WORLD_SIZE="2")
    shared = os.path.join(args.work, "torchrun.json")
    procs = [subprocess.Popen([args.cli, "run", "ddp-overlap", *small, "-o", shared],
                              env=dict(env, RANK=str(k), LOCAL_RANK=str(k)), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for k in (0, 1)]
    results = [p.communicate(timeout=300) for p in procs]
    check(all(p.returncode == 0 for p in procs), "torchrun-style ranks: exit 0 (%s)" % results[0][1][-300:])
    check(not os.path.exists(shared), "a rank writes no merged run")
    files = [os.path.join(args.work, "torchrun.rank%d.json" % k) for k in (0, 1)]
    check(all(os.path.exists(p) for p in files), "each rank writes its own file, named by its rank")
    for k, p in enumerate(files):
        if os.path.exists(p):
            with open(p) as f:
                distributed = json.load(f)["gtv"]["metadata"]["distributed"]
            check(distributed == {"rank": k, "world_size": 2, "backend": "gloo"}, "rank %d file: %r" % (k, distributed))
    # Bad options: exit 2 with the reason.
    r = cli(args, "run", "ddp", "--backend", "mpi", "-o", out)
    check(r.returncode == 2 and "--backend needs nccl or gloo" in r.stderr, "run ddp --backend mpi: exit 2")
    r = cli(args, "run", "ddp", "--ranks", "0", "-o", out)
    check(r.returncode == 2 and "--ranks" in r.stderr, "run ddp --ranks 0: exit 2")
    runner = runner_path(args)
    gpus = subprocess.run([runner, "--gpu-count"], capture_output=True, text=True).stdout.strip() if runner else ""
    if gpus == "0":
        r = cli(args, "run", "ddp", *small[:-2], "--backend", "nccl", "-o", os.path.join(args.work, "nccl.json"))
        check(r.returncode == 1 and "nccl" in r.stderr, "run ddp --backend nccl without GPUs: exit 1 naming nccl")


def check_runner_protocol(args, runner):
    """gtv-run with --report-fd 1: progress lines, then `wrote EVENTS PATH`; a failure part way adds `failed`."""
    out = os.path.join(args.work, "by_runner.json")
    r = subprocess.run([runner, "sequential", "--models", "1", "--hidden", "16", "--batch", "2", "--iters", "1",
                        "--report-fd", "1", "-o", out], capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, "gtv-run: exit 0 (%s)" % r.stderr.strip()[-300:])
    lines = r.stdout.splitlines()
    keywords = [line.split(" ", 1)[0] for line in lines]
    check(len(lines) >= 2 and set(keywords[:-1]) == {"progress"} and keywords[-1] == "wrote",
          "gtv-run --report-fd 1: progress lines, then wrote: %r" % lines)
    check("gtv-run: " in r.stderr, "gtv-run names itself on stderr")
    if lines and keywords[-1] == "wrote":
        events, path = lines[-1].split(" ", 2)[1:]
        check(path == out and os.path.exists(out), "wrote names the file: %r" % lines[-1])
        info = info_json(args, out)
        check(info is not None and info["event_count"] == int(events), "wrote counts the events in the file")
    partial = os.path.join(args.work, "by_runner_too_large.json")
    r = subprocess.run([runner, "baseline", "--hidden", "200000", "--iters", "1", "--report-fd", "1", "-o", partial],
                       capture_output=True, text=True, timeout=300)
    lines = r.stdout.splitlines()
    check(r.returncode == 1 and len(lines) >= 2 and lines[-1].startswith("failed ") and
          lines[-2] == "wrote %s %s" % (lines[-2].split(" ")[1], partial),
          "gtv-run: a failure part way reports wrote then failed: %r" % lines[-2:])
    r = subprocess.run([runner, "sequential", "--report-fd", "99", "-o", out], capture_output=True, text=True)
    check(r.returncode == 2 and "--report-fd" in r.stderr, "gtv-run --report-fd of a closed descriptor: exit 2")


def case_info_fixtures(args):
    paths = fixtures(args.data)
    check(len(paths) > 0, "fixtures found under " + args.data)
    for path in paths:
        info = info_json(args, path)
        if info is None:
            continue
        compare_counts(os.path.relpath(path, args.data), comparable(info), trace_counts.count(path))
        text = cli(args, "info", path)
        check(text.returncode == 0 and str(info["event_count"]) in text.stdout, "info (text) " + path)
    print("checked %d fixtures" % len(paths))


def case_convert(args):
    for path in fixtures(args.data):
        before = info_json(args, path)
        if before is None:
            continue
        stem = os.path.basename(path).split(".")[0]
        for suffix, gzipped in ((".json", False), (".json.gz", True)):
            out = os.path.join(args.work, "converted", stem + suffix)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            r = cli(args, "convert", path, out)
            check(r.returncode == 0, "convert %s %s: exit 0 (%s)" % (path, out, r.stderr.strip()))
            if r.returncode != 0:
                continue
            with open(out, "rb") as f:
                check((f.read(2) == b"\x1f\x8b") == gzipped, out + ": gzip exactly when the name ends in .gz")
            after = info_json(args, out)
            if after is None:
                continue
            compare_counts("round trip " + out, comparable(after), comparable(before))
            check(after["flow_count"] == before["flow_count"], out + ": flows kept")
            compare_counts("oracle on " + out, comparable(after), trace_counts.count(out))


def case_trace_gen(args):
    path = os.path.join(args.work, "generated.json")
    r = subprocess.run([args.trace_gen, "--events", "1001", "-o", path], capture_output=True, text=True)
    check(r.returncode == 0, "gtv-trace-gen exits 0")
    expected = trace_counts.count(path)
    check(expected["event_count"] == 1001, "the generator writes exactly 1001 events (oracle: %d)"
          % expected["event_count"])
    check("%d events" % expected["event_count"] in r.stdout, "the generator reports its count")
    check(set(expected["gpus"]) == {0, 1}, "2 GPUs")
    check(all(len(g["streams"]) == 4 for g in expected["gpus"].values()), "4 streams per GPU")
    info = info_json(args, path)
    if info is not None:
        compare_counts("generated trace", comparable(info), expected)
        flows = int(r.stdout.split(" flows")[0].rsplit(" ", 1)[1])
        check(info["flow_count"] == flows, "every ac2g flow joined (%d of %d)" % (info["flow_count"], flows))


def case_analyze(args):
    for path in fixtures(args.data):
        reports = {}
        for fmt in ("text", "markdown", "json"):
            r = cli(args, "analyze", path, "--format", fmt)
            check(r.returncode == 0 and r.stdout.strip() != "", "analyze %s --format %s: exit 0 with a report (%s)"
                  % (path, fmt, r.stderr.strip()))
            reports[fmt] = r.stdout
        if not reports["json"]:
            continue
        report = json.loads(reports["json"])
        compare_counts("analyze --format json " + path, comparable(report["summary"]), trace_counts.count(path))
        first = [line for line in reports["text"].splitlines() if line.strip() and set(line) - set("=-")][1]
        check(report["verdict"] and first == report["verdict"][0], path + ": the text report starts with the verdict")
        check(reports["markdown"].startswith("#"), path + ": markdown starts with a heading")


BASE_NS = 1790857026000000000
ALLREDUCE = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"


def rank_file(work, name, rank, world, allreduces_us, clock_error_us=0.0, pid=100):
    """A PyTorch-profiler-like file of one rank on its cuda:0: a GEMM launched from the host (one flow by
    correlation), then all-reduces [start, end) in microseconds, as a clock clock_error_us ahead reads them."""
    e = clock_error_us
    events = [
        {"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python3"}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": pid, "ts": 10 + e, "dur": 5,
         "args": {"correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_f32f32", "pid": 0, "tid": 7, "ts": 20 + e, "dur": 100,
         "args": {"correlation": 1, "device": 0, "stream": 7}},
    ]
    for i, (start, end) in enumerate(allreduces_us):
        events.append({"ph": "X", "cat": "kernel", "name": ALLREDUCE, "pid": 0, "tid": 7, "ts": start + e,
                       "dur": end - start, "args": {"correlation": 2 + i, "device": 0, "stream": 7}})
    doc = {"schemaVersion": 1, "baseTimeNanoseconds": BASE_NS,
           "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world}, "traceEvents": events}
    path = os.path.join(work, name)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def case_merge(args):
    """Two rank files with a known straggler (rank 1 starts every all-reduce 100-150 us late) and a known clock
    error (rank 1's host 300 us ahead): merge, info and analyze give the hand-computed answers."""
    r0 = rank_file(args.work, "rank0.json", 0, 2, [(200, 400), (600, 800), (1000, 1200)])
    r1 = rank_file(args.work, "rank1.json", 1, 2, [(350, 401), (700, 803), (1150, 1202)], clock_error_us=300)
    out = os.path.join(args.work, "merged.json")
    r = cli(args, "merge", r1, r0, "-o", out)
    check(r.returncode == 0 and os.path.exists(out), "merge: exit 0 and writes OUT (%s)" % r.stderr.strip())
    check("wrote " + out + " (2 ranks, 10 events; clock: wall clock)" in r.stderr, "merge says what it wrote: %r"
          % r.stderr)
    check("host process ids repeat across ranks" in r.stderr, "merge warns that rank 1's pid 100 was renumbered")
    info = json.loads(cli(args, "info", out, "--json").stdout)
    ranks = info["run"]["ranks"]
    check([x["rank"] for x in ranks] == [0, 1] and ranks[0]["source"] == r0, "ranks by rank, with their files")
    check([g["label"] for g in info["gpus"]] == ["rank 0 · GPU 0", "rank 1 · GPU 0"],
          "both ranks' cuda:0 kept apart and named: %r" % [g["label"] for g in info["gpus"]])
    check(info["event_count"] == 10 and info["flow_count"] == 2, "every event and both launch flows kept")
    check(info["run"]["clock"]["residual_ns"] == 303000, "wall clock: all-reduce ends 301-303 us apart")
    with open(out) as f:
        names = [ev["args"]["name"] for ev in json.load(f)["traceEvents"] if ev.get("name") == "thread_name"]
    check("rank 1 · GPU 0 · stream 7" in names, "the merged file names its lanes by rank for other viewers: %r" % names)
    in_memory = json.loads(cli(args, "info", r0, r1, "--json").stdout)
    check(in_memory["gpus"] == info["gpus"] and in_memory["event_count"] == 10, "info of the two files = info of OUT")

    r = cli(args, "analyze", "--merged", r0, r1, "--clock", "collectives", "--format", "json")
    check(r.returncode == 0, "analyze --merged two files on the collectives' clock: exit 0 (%s)" % r.stderr.strip())
    report = json.loads(r.stdout)
    clock = report["summary"]["run"]["clock"]
    check(clock["method"] == "collectives" and clock["residual_ns"] == 1000,
          "collectives: the ends then agree within 1 us: %r" % clock)
    check(report["summary"]["run"]["ranks"][1]["clock_offset_ns"] == -302000, "rank 1 moved by median(-301, -303, -302) us")
    # Rank 1 moved by -302 us lands 2 us early against the truth: it starts at 348, 698 and 1148 us, so rank 0
    # waited 148 + 98 + 148 us (on rank 1's uncorrected clock it would be 450 + 400 + 450).
    check(report["stragglers"]["headline"] ==
          "Over the whole trace, rank 1 arrived last at 3 of 3 all-reduces; the others waited 394.0 us in total for it.",
          "the straggler is named: %r" % report["stragglers"]["headline"])
    check(report["verdict"][1] == report["stragglers"]["headline"], "the verdict carries it")
    r = cli(args, "analyze", r0, r1, "--clock", "collectives", "--format", "json")
    reduced = json.loads(r.stdout) if r.returncode == 0 else {}
    check(reduced.get("stragglers") == report["stragglers"] and
          reduced["summary"]["clock"] == {k: v for k, v in clock.items() if k in reduced["summary"]["clock"]} and
          reduced["summary"]["ranks"][1]["clock_offset_ns"] == -302000,
          "analyze of the two files (their summaries reduced): the same stragglers and clock as --merged")
    text = cli(args, "analyze", out).stdout
    check("Ranks and collectives" in text and "Clock: wall clock." in text, "the text report has the ranks section")

    # Bad sets of files: one line naming the files, exit 1, nothing written.
    bad = os.path.join(args.work, "bad.json")
    other_world = rank_file(args.work, "other_world.json", 1, 4, [(200, 400)])
    late = rank_file(args.work, "late.json", 1, 2, [(200, 400)], clock_error_us=3 * 3600 * 1e6)
    for files, words in (([r0, r0], "are both rank 0"), ([r0, other_world], "world sizes disagree"),
                         ([r0, late], "recordings of different runs?")):
        r = cli(args, "merge", *files, "-o", bad)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 1 and len(lines) == 1 and words in lines[0] and files[1] in lines[0],
              "merge %s: exit 1, one line with %r: %r" % (files, words, r.stderr))
        check(not os.path.exists(bad), "a refused merge writes nothing")
    r = cli(args, "merge", r0, late, "-o", bad, "--allow-far-apart")
    check(r.returncode == 0, "--allow-far-apart merges them anyway (%s)" % r.stderr.strip())
    r = cli(args, "info", r0, "--clock", "collectives")
    check(r.returncode == 2 and "one file was given" in r.stderr, "--clock with one file is a usage error: %r" % r.stderr)


def stem(path):
    name = os.path.basename(path)
    for suffix in (".gz", ".json"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def run_figures_expected(path):
    counts = trace_counts.count(path)
    gpus = counts["gpus"].values()
    return {"label": stem(path), "wall_ns": counts["span_ns"], "kernel_count": sum(g["kernel_count"] for g in gpus),
            "kernel_ns": sum(g["kernel_ns"] for g in gpus), "gpu_busy_sum_ns": sum(g["busy_ns"] for g in gpus)}


def case_compare(args):
    paths = fixtures(args.data)
    for a, b in zip(paths, paths[1:] + paths[:1]):
        r = cli(args, "compare", a, b, "--format", "json")
        check(r.returncode == 0, "compare %s %s: exit 0 (%s)" % (a, b, r.stderr.strip()))
        if r.returncode != 0:
            continue
        result = json.loads(r.stdout)
        for side, path in (("a", a), ("b", b)):
            got = {k: result[side][k] for k in ("label", "wall_ns", "kernel_count", "kernel_ns", "gpu_busy_sum_ns")}
            expected = run_figures_expected(path)
            check(got == expected, "compare: %s side %s is %r, expected %r" % (path, side, got, expected))
        for fmt in ("text", "markdown"):
            r = cli(args, "compare", a, b, "--format=" + fmt)
            check(r.returncode == 0 and stem(a) in r.stdout and stem(b) in r.stdout, "compare --format " + fmt)
    # Two files of one name in two folders: every format names them by their folders, never "x ... than x".
    with open(paths[0], "rb") as f:
        content = f.read()
    same = []
    for folder in ("r1", "r2"):
        os.makedirs(os.path.join(args.work, folder), exist_ok=True)
        same.append(os.path.join(args.work, folder, os.path.basename(paths[0])))
        with open(same[-1], "wb") as f:
            f.write(content)
    name = stem(paths[0])
    r = cli(args, "compare", same[0], same[1], "--format", "json")
    labels = (json.loads(r.stdout)["a"]["label"], json.loads(r.stdout)["b"]["label"]) if r.returncode == 0 else None
    check(labels == ("r1/" + name, "r2/" + name), "compare r1/%s r2/%s: labels %r" % (name, name, labels))
    for fmt in ("text", "markdown"):
        r = cli(args, "compare", same[0], same[1], "--format=" + fmt)
        check(r.returncode == 0 and "r1/" + name in r.stdout and "r2/" + name in r.stdout,
              "compare --format %s of two files named %s: named by their folders" % (fmt, name))
    for path in paths:
        r = cli(args, "compare", path, path, "--format", "json")
        if r.returncode != 0:
            check(False, "compare %s with itself: exit 0" % path)
            continue
        result = json.loads(r.stdout)
        if result["a"]["wall_ns"] > 0:
            check(result["speedup"] == 1, path + ": a trace against itself has speedup 1")
        check(all(k["delta_ns"] == 0 for k in result["kernels"]), path + ": no kernel changes against itself")


def case_whatif(args):
    """On the bundled recordings (--data resources/traces): a prediction with its band, its window as gtv's
    measurement says, every format; a change that does not apply or names a GPU the machine lacked exits 1."""
    seq = os.path.join(args.data, "h200x1", "sequential.json.gz")
    r = cli(args, "whatif", seq, "--change", "streams", "--format", "json")
    check(r.returncode == 0, "whatif streams: exit 0 (%s)" % r.stderr.strip())
    if r.returncode == 0:
        p = json.loads(r.stdout)
        check(p["changes"] == ["streams"], "whatif json: the changes")
        check(p["window"] == "the measured 'timed loop'", "whatif json: the window is named")
        check(p["replayed_ns"] == p["recorded_ns"], "whatif json: the unchanged replay is the recording")
        low, high = p["band_ns"]
        check(low <= p["predicted_ns"] <= high, "whatif json: the prediction lies in its band")
        check(p["predicted_ns"] < p["recorded_ns"], "whatif json: streams on one GPU are predicted faster")
        check(p["assumptions"] and p["applied"] and p["critical_path"], "whatif json: assumptions, changes, path")
        # The recorded window from the file itself: the measurements' host interval (this recording's synced
        # stopwatch ends after its GPU work).
        with gzip.open(seq, "rt") as f:
            measured = json.load(f)["gtv"]["measurements"]
        span = max(m["host_end_ns"] for m in measured) - min(m["host_start_ns"] for m in measured)
        check(p["recorded_ns"] == span, "whatif json: recorded_ns %d is the measurements' span %d" %
              (p["recorded_ns"], span))
    for fmt, marker in (("text", "Predicted:"), ("markdown", "## What if: streams")):
        r = cli(args, "whatif", seq, "--change=streams", "--format", fmt)
        check(r.returncode == 0 and marker in r.stdout, "whatif --format " + fmt)
    r = cli(args, "whatif", seq, "--change", "placement=0,0,0", "--change", "streams")
    check(r.returncode == 1 and "every model already runs on the GPU" in r.stderr, "whatif: placement onto the same GPU")
    for change, message in (("pinned", "no pageable copies in this trace's window: nothing to change"),
                            ("placement=0,1,0", "placement= names GPU 1; the machine had 1 GPU"),
                            ("placement=0,0", "placement= names 2 models; the trace has 3"),
                            ("no-sync=cudaNoSuchCall", "no call named 'cudaNoSuchCall'")):
        r = cli(args, "whatif", seq, "--change", change)
        check(r.returncode == 1, "whatif --change %s: exit 1 (got %d)" % (change, r.returncode))
        check(message in r.stderr and r.stdout == "", "whatif --change %s: says %r (%s)" % (change, message, r.stderr))
    two = cli(args, "whatif", os.path.join(args.data, "h200x2", "sequential.json.gz"), "--change", "placement=0,0,0",
              "--change", "streams", "--format", "json")
    check(two.returncode == 0 and len(json.loads(two.stdout or "{}").get("applied", [])) == 2,
          "whatif: two changes apply in order")


def crowded_trace(work, gpus, processes):
    """One 0.5 us kernel on each of `gpus` GPUs (stream 7) and one CPU op in each of `processes` processes."""
    events = [{"ph": "X", "cat": "kernel", "name": "k", "pid": g, "tid": 7, "ts": g, "dur": 0.5,
               "args": {"device": g, "stream": 7}} for g in range(gpus)]
    events += [{"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1000 + p, "tid": 1, "ts": p, "dur": 0.5}
               for p in range(processes)]
    path = os.path.join(work, "crowded.json")
    with open(path, "w") as f:
        json.dump({"traceEvents": events}, f)
    return path


def case_listing(args):
    """Text and Markdown list the first 50 GPUs, streams and processes, then say how many more; --all and JSON all."""
    path = crowded_trace(args.work, 200, 120)
    info_more = " (gtv-cli info --all lists them; --json has every one)"
    analyze_more = " (gtv-cli analyze --all lists them; --format json has every one)"
    r = cli(args, "info", path)
    check(r.returncode == 0, "info crowded: exit 0 (%s)" % r.stderr.strip())
    lines = r.stdout.splitlines()
    check("GPUs (200):" in lines and "Processes (120):" in lines, "info: the headings count every GPU and process")
    check(sum(line.startswith("  GPU ") for line in lines) == 50, "info: 50 GPUs listed")
    check(sum(line.startswith("  process ") for line in lines) == 50, "info: 50 processes listed")
    check("  ... and 150 more GPUs" + info_more in lines, "info: the GPU cut line counts the other 150")
    check("  ... and 70 more processes" + info_more in lines, "info: the process cut line counts the other 70")
    r = cli(args, "info", "--all", path)
    lines = r.stdout.splitlines()
    check(r.returncode == 0 and sum(line.startswith("  GPU ") for line in lines) == 200, "info --all: 200 GPUs")
    check(sum(line.startswith("  process ") for line in lines) == 120, "info --all: 120 processes")
    check("... and" not in r.stdout, "info --all: no cut line")
    info = info_json(args, path)
    if info is not None:
        check(len(info["gpus"]) == 200 and len(info["processes"]) == 120, "info --json lists every GPU and process")
        all_json = cli(args, "info", "--json", "--all", path)
        check(all_json.stdout == cli(args, "info", "--json", path).stdout, "info --json is the same with --all")
    for fmt, prefix in (("text", "  "), ("markdown", "")):
        r = cli(args, "analyze", path, "--format", fmt)
        check(r.returncode == 0, "analyze --format %s crowded: exit 0 (%s)" % (fmt, r.stderr.strip()))
        check(r.stdout.count(prefix + "... and 150 more GPUs" + analyze_more + "\n") == 3,
              "analyze --format %s: the busy table, the streams of each GPU and the idle lines end with the GPU cut "
              "line" % fmt)
        check(r.stdout.count(prefix + "... and 150 more streams" + analyze_more + "\n") == 2,
              "analyze --format %s: the stream and queue tables end with the stream cut line" % fmt)
        check("200 GPU(s)" in r.stdout, "analyze --format %s: the overview counts every GPU" % fmt)
        r = cli(args, "analyze", path, "--all", "--format", fmt)
        check(r.returncode == 0 and "... and" not in r.stdout, "analyze --all --format %s: no cut line" % fmt)
        check(r.stdout.count("GPU 199 was idle") == 1 and r.stdout.count(" was idle for ") == 200,
              "analyze --all --format %s: one idle line per GPU" % fmt)
    r = cli(args, "analyze", path, "--format", "json")
    check(r.returncode == 0, "analyze --format json crowded: exit 0")
    if r.returncode == 0:
        report = json.loads(r.stdout)
        check(len(report["busy"]["gpus"]) == 200 and len(report["busy"]["streams"]) == 200,
              "analyze json: busy time of every GPU and stream")
        check(len(report["idle"]["lines"]) == 200 and len(report["launches"]["streams"]) == 200,
              "analyze json: every idle line and stream queue")
        check(len(report["summary"]["gpus"]) == 200, "analyze json: the summary lists every GPU")


def write_summary(path, doc):
    with gzip.open(path, "wt") as f:
        json.dump(doc, f)


def read_summary(path):
    with gzip.open(path, "rt") as f:
        return json.load(f)


def check_analyze_ranks(args, files, name):
    """analyze of several rank files against summarize of each and reduce of the summaries (byte for byte, stdout
    and stderr, in every format and with --jobs 1), and its cross-rank fields against analyze --merged's."""
    sums = []
    for i, trace in enumerate(files):
        sums.append(os.path.join(args.work, "%s-%d.gtvsum" % (name, i)))
        r = cli(args, "summarize", trace, "-o", sums[-1])
        check(r.returncode == 0, "%s: summarize %s (%s)" % (name, trace, r.stderr.strip()))
    for fmt in ("text", "markdown", "json"):
        red = cli(args, "reduce", *sums, "--format", fmt)
        for jobs in ((), ("--jobs", "1")):
            ana = cli(args, "analyze", *files, "--format", fmt, *jobs)
            check(ana.returncode == 0 and ana.stdout == red.stdout and ana.stderr == red.stderr,
                  "%s: analyze %s --format %s = summarize + reduce, byte for byte" % (name, " ".join(jobs), fmt))
        check("Computed from the ranks' summaries" in red.stdout and "--merged" in red.stdout,
              "%s --format %s: the report says it was computed from the summaries, and where the rest is" % (name, fmt))
    ana = json.loads(cli(args, "analyze", *files, "--format", "json").stdout)
    merged = cli(args, "analyze", "--merged", *files, "--format", "json")
    check(merged.returncode == 0, "%s: analyze --merged: exit 0 (%s)" % (name, merged.stderr.strip()))
    merged = json.loads(merged.stdout)
    run = merged["summary"]["run"]
    check(ana["stragglers"] == merged["stragglers"], "%s: every straggler field as --merged's" % name)
    check(ana["verdict"] == [merged["stragglers"]["headline"]] and ana["verdict"][0] in merged["verdict"],
          "%s: the straggler headline is the verdict, as in --merged's: %r" % (name, ana["verdict"]))
    check(ana["summary"]["clock"] == {k: run["clock"][k] for k in ana["summary"]["clock"]},
          "%s: the clock alignment as --merged's: %r" % (name, ana["summary"]["clock"]))
    check([{k: r[k] for k in ("rank", "source", "shift_ns", "clock_offset_ns")} for r in ana["summary"]["ranks"]] ==
          [{k: r[k] for k in ("rank", "source", "shift_ns", "clock_offset_ns")} for r in run["ranks"]],
          "%s: the ranks, their files and clock offsets as --merged's" % name)
    check("critical_path_across_ranks" in ana and "basis" in ana, "%s: the steps' critical path and the basis" % name)
    return ana


def check_per_rank(args, files, name):
    """--per-rank: the report of the summaries as it is, then each rank's own verdict, equal to what analyze of that
    file alone says (in rank order; the first 2 lines in text, every line with --all and in JSON)."""
    own = [json.loads(cli(args, "analyze", f, "--format", "json").stdout)["verdict"] for f in files]
    red = {fmt: cli(args, "analyze", *files, "--format", fmt).stdout for fmt in ("text", "markdown", "json")}
    r = cli(args, "analyze", "--per-rank", *files, "--format", "json")
    doc = json.loads(r.stdout) if r.returncode == 0 else {}
    check(doc.get("ranks_own_verdict") == [{"rank": i, "source": f, "verdict": v} for i, (f, v) in
                                           enumerate(zip(files, own))],
          "%s --per-rank json: each rank's verdict is its own analyze's (%r)" % (name, doc.get("ranks_own_verdict")))
    doc.pop("ranks_own_verdict", None)
    check(doc == json.loads(red["json"]), "%s --per-rank json: the rest is the summaries' report" % name)
    for fmt, listing in (("text", ()), ("text", ("--all",)), ("markdown", ())):
        r = cli(args, "analyze", "--per-rank", *files, "--format", fmt, *listing)
        base = cli(args, "analyze", *files, "--format", fmt, *listing).stdout
        check(r.returncode == 0 and r.stdout.startswith(base), "%s --per-rank %s: the report, then the ranks" % (
            name, fmt))
        tail = r.stdout[len(base):]
        lines = 2 if not listing else None
        blocks = []
        for rank, (f, v) in enumerate(zip(files, own)):
            if fmt == "text":
                blocks.append("  rank %d (%s): " % (rank, f) + "\n    ".join(v[:lines]) + "\n")
            else:
                blocks.append("- **rank %d** (%s): " % (rank, f) + " ".join(v[:lines]) + "\n")
        check(tail.endswith("".join(blocks)) and len(own[0]) > 2,
              "%s --per-rank %s %s: each rank's own verdict, in rank order (%r)" % (
                  name, fmt, " ".join(listing), tail[-600:]))
    for bad, words in (([files[0]], "one file was given"), (["--merged", *files], "--merged reports every rank")):
        r = cli(args, "analyze", "--per-rank", *bad)
        check(r.returncode == 2 and words in r.stderr, "--per-rank %s: usage error (%r)" % (bad[0], r.stderr))


def case_analyze_ranks(args):
    """On the bundled rank files (--data resources/traces): analyze of a run's rank files is its summaries reduced,
    and its cross-rank answer is the merged run's. One unreadable file among them: one line naming it, exit 1."""
    folder = os.path.join(args.data, "pytorch-h200x1")
    for run in ("ddp-gloo", "ddp-gloo-straggler"):
        files = [os.path.join(folder, "%s.rank%d.json.gz" % (run, r)) for r in (0, 1)]
        ana = check_analyze_ranks(args, files, run)
        check_per_rank(args, files, run)
        if run == "ddp-gloo-straggler":
            check("rank 1 arrived last" in ana["verdict"][0], "the planted straggler, rank 1: %r" % ana["verdict"])
    files = [os.path.join(folder, "ddp-gloo.rank%d.json.gz" % r) for r in (0, 1)]
    missing = os.path.join(args.work, "rank2.json.gz")
    cut = os.path.join(args.work, "cut.json.gz")
    with open(files[1], "rb") as f:
        raw = f.read()
    with open(cut, "wb") as f:
        f.write(raw[:len(raw) // 2])
    for argv, named in (([files[0], missing, files[1]], missing), ([files[0], cut, files[1]], cut),
                        ([cut, files[0], missing], cut), ([files[0], args.work], args.work)):
        for jobs in ("1", "3"):
            r = cli(args, "analyze", *argv, "--jobs", jobs)
            lines = r.stderr.strip().split("\n")
            check(r.returncode == 1 and r.stdout == "" and len(lines) == 1 and named in lines[0] and
                  lines[0].startswith("gtv-cli: "),
                  "analyze with %s unreadable (--jobs %s): exit 1, one line naming it (%d, %r)" %
                  (named, jobs, r.returncode, r.stderr))
    r = cli(args, "analyze", files[0], files[0])
    check(r.returncode == 1 and r.stderr.count("\n") == 1 and "are both rank 0" in r.stderr,
          "a rank twice: one line, exit 1 (%r)" % r.stderr)
    for bad in (["--jobs", "0"], ["--jobs", "x"], ["--jobs", "2", "--merged"]):
        r = cli(args, "analyze", *files, *bad)
        check(r.returncode == 2 and "--jobs" in r.stderr, "analyze %s: usage error (%r)" % (" ".join(bad), r.stderr))
    # More files than one merged trace takes: refused with --merged before any is read; read one by one without it.
    many = [missing] * 4097
    r = cli(args, "analyze", "--merged", *many)
    check(r.returncode == 2 and "--merged: at most 4096 files in one trace (given 4097)" in r.stderr,
          "analyze --merged of 4097 files: usage error (%r)" % r.stderr[:300])
    r = cli(args, "analyze", *many)
    check(r.returncode == 1 and r.stderr.count("\n") == 1 and missing in r.stderr,
          "analyze of 4097 files: read one by one, the missing one named (%r)" % r.stderr[:300])


def case_ranks(args):
    """summarize each rank, reduce the summaries: the cross-rank report equals analyze of the merged run, and a
    summary is readable with gzip and json alone. Bad summaries: one line naming the file, exit 1."""
    pytorch = os.path.join(args.data, "pytorch")
    ranks = [os.path.join(pytorch, "ddp_gloo_rank%d.json.gz" % r) for r in (0, 1)]
    sums = [os.path.join(args.work, "rank%d.gtvsum" % r) for r in (0, 1)]
    for trace, out in zip(ranks, sums):
        r = cli(args, "summarize", trace, "-o", out)
        check(r.returncode == 0 and os.path.exists(out), "summarize: exit 0 and writes OUT (%s)" % r.stderr.strip())
        check(r.stderr.startswith("wrote " + out + " (1 rank, 3 collectives, "), "summarize says what it wrote: %r"
              % r.stderr)
        with gzip.open(trace, "rb") as f:
            json_bytes = len(f.read())
        # Against the JSON the trace holds; against this small gzip file (46 KB) the summary's fixed part (paths,
        # names, keys: about 300 bytes) makes it 1.0% (docs/benchmarks.md).
        check(os.path.getsize(out) * 100 <= json_bytes, "summary at most 1% of the trace's JSON bytes")
    doc = read_summary(sums[1])
    check(doc["format"] == "gtvsum" and doc["version"] == 2 and len(doc["ranks"]) == 1, "the documented header")
    rank = doc["ranks"][0]
    cols = rank["collectives"]
    check(rank["rank"] == 1 and rank["world_size"] == 2 and rank["source"] == ranks[1], "rank, world, source")
    check(cols["count"] == 3 and [cols["kinds"][k] for k in cols["kind"]] == ["AllReduce"] * 3 and
          all(e >= s for s, e in zip(cols["start_ns"], cols["end_ns"])), "three all-reduces as columns: %r" % cols)

    check_analyze_ranks(args, ranks, "ddp_gloo")
    for fmt in ("json", "text", "markdown"):
        red = cli(args, "reduce", *sums, "--format", fmt)
        check(red.returncode == 0, "reduce --format %s: exit 0 (%s)" % (fmt, red.stderr.strip()))
        ana = cli(args, "analyze", "--merged", *ranks, "--format", fmt)
        check(red.stderr == ana.stderr, "reduce warns as the merge does: %r vs %r" % (red.stderr, ana.stderr))
        if fmt == "json":
            a, b = json.loads(ana.stdout), json.loads(red.stdout)
            check(a["stragglers"] == b["stragglers"], "reduce's stragglers = analyze's, every field")
            check(a["summary"]["run"]["clock"] == b["summary"]["clock"], "the same clock alignment")
            check(b["verdict"] == [a["stragglers"]["headline"]], "the straggler is the verdict")
            # reduce's own part: each profiler step's chain, bounded by the late rank, its links adding up.
            path = b["critical_path_across_ranks"]
            check(path["basis"] == "profiler_steps" and len(path["steps"]) == 3 and
                  all(st["bounding_rank"] == 1 and st["links"][0]["start_ns"] == st["start_ns"] and
                      st["links"][-1]["end_ns"] == st["end_ns"] and
                      sum(l["end_ns"] - l["start_ns"] for l in st["links"]) == st["end_ns"] - st["start_ns"]
                      for st in path["steps"]), "reduce: rank 1 bounds each step's chain (%r)" % path)
        else:
            title = "Ranks and collectives"
            section = lambda t: t[t.index(title):].split("\n\n" if fmt == "text" else "\n## ")[0]
            check(title in red.stdout and section(red.stdout) == section(ana.stdout),
                  "reduce --format %s: the section of analyze" % fmt)
            check("Critical path across ranks" in red.stdout and "Bounding rank: rank 1 in 3 of 3 steps." in red.stdout,
                  "reduce --format %s: the critical path across ranks" % fmt)
    # balanced-ranks from the summaries: what `whatif MERGED --change balanced-ranks` says, in every format.
    merged = os.path.join(args.work, "ddp_gloo_merged.json.gz")
    r = cli(args, "merge", *ranks, "-o", merged)
    check(r.returncode == 0, "merge of the ranks (%s)" % r.stderr.strip())
    for fmt in ("json", "text", "markdown"):
        red = cli(args, "reduce", *sums, "--format", fmt)
        wi = cli(args, "whatif", merged, "--change", "balanced-ranks", "--format", fmt)
        check(wi.returncode == 0, "whatif of the merged ranks (%s)" % wi.stderr.strip())
        if fmt == "json":
            got = json.loads(red.stdout)["balanced_ranks"]
            check(got == json.loads(wi.stdout) and got["predicted_ns"] < got["recorded_ns"],
                  "reduce's balanced-ranks = whatif's on the merged run: %r" % got.get("predicted_ns"))
        else:
            check(red.stdout.endswith(wi.stdout) and "balanced-ranks" in wi.stdout,
                  "reduce --format %s ends with whatif's balanced-ranks prediction" % fmt)
    red = cli(args, "reduce", *sums, "--clock", "collectives", "--format", "json")
    ana = cli(args, "analyze", "--merged", *ranks, "--clock", "collectives", "--format", "json")
    check(red.returncode == 0 and json.loads(red.stdout)["stragglers"] == json.loads(ana.stdout)["stragglers"],
          "--clock collectives: the same as analyze --merged's")
    ana = cli(args, "analyze", *ranks, "--clock", "collectives", "--format", "json")
    check(ana.returncode == 0 and ana.stdout == red.stdout, "--clock collectives: analyze of the files = reduce")

    # --gather: the run's summaries in one file, sources absolute; it reduces to the same report.
    gathered = os.path.join(args.work, "run.gtvsum")
    red = cli(args, "reduce", *sums, "--format", "json", "--gather", gathered)
    check(red.returncode == 0 and red.stderr.endswith("wrote %s (2 rank summaries, %d bytes)\n" % (
        gathered, os.path.getsize(gathered))), "reduce --gather: writes OUT and says so (%r)" % red.stderr)
    doc = read_summary(gathered)
    check([r["rank"] for r in doc["ranks"]] == [0, 1] and
          all(r["source"] == os.path.abspath(t) for r, t in zip(doc["ranks"], ranks)), "gathered: absolute sources")
    again = cli(args, "reduce", gathered, "--format", "json")
    check(again.returncode == 0 and json.loads(again.stdout) == json.loads(red.stdout), "the gathered file reduces alike")
    r = cli(args, "reduce", *sums, "--gather", sums[0])
    check(r.returncode == 2 and "names a summary read" in r.stderr, "--gather over an input: usage error")

    # A merged run: one summary holds every rank and reduces to the run's own analysis.
    merged = os.path.join(args.work, "merged.json.gz")
    check(cli(args, "merge", *ranks, "-o", merged).returncode == 0, "merge the two ranks")
    msum = os.path.join(args.work, "merged.gtvsum")
    r = cli(args, "summarize", merged, "-o", msum)
    check(r.returncode == 0 and "(2 ranks, 6 collectives" in r.stderr, "a merged run: every rank (%r)" % r.stderr)
    red = cli(args, "reduce", msum, "--format", "json")
    ana = cli(args, "analyze", merged, "--format", "json")
    check(red.returncode == 0 and json.loads(red.stdout)["stragglers"] == json.loads(ana.stdout)["stragglers"],
          "reduce of a merged run's summary = its analysis")

    def refused(files, expected, what):
        r = cli(args, "reduce", *files)
        lines = r.stderr.strip().split("\n")
        check(r.returncode == 1 and len(lines) == 1 and expected in lines[0] and r.stdout == "",
              "%s: exit 1, one line with %r (%d, %r)" % (what, expected, r.returncode, r.stderr))

    with open(sums[0], "rb") as f:
        raw = f.read()
    cut = os.path.join(args.work, "cut.gtvsum")
    with open(cut, "wb") as f:
        f.write(raw[:len(raw) // 2])
    refused([cut, sums[1]], cut + ": truncated", "a truncated summary")
    refused([ranks[0], sums[1]], ranks[0] + ": not a gtv rank summary", "a trace given as a summary")
    refused([sums[0], os.path.join(args.work, "missing.gtvsum")], "missing.gtvsum: cannot open", "a missing file")
    refused([sums[0], args.work], args.work + ": is a directory", "a directory")
    older = os.path.join(args.work, "v1.gtvsum")
    doc = read_summary(sums[1])
    doc["version"] = 1
    write_summary(older, doc)
    refused([sums[0], older], older + ": rank summary version 1; this gtv reads version 2", "an older version")
    refused([sums[0], sums[0]], sums[0] + " and " + sums[0] + " are both rank 0", "a rank twice")
    other = os.path.join(args.work, "world4.gtvsum")
    doc = read_summary(sums[1])
    doc["ranks"][0]["world_size"] = 4
    write_summary(other, doc)
    refused([sums[0], other], "world sizes disagree: " + sums[0] + " says 2, " + other + " says 4", "world sizes")
    refused([msum, sums[0]], msum + " is a merged run and " + sums[0] + " a rank's own file", "merged and rank files")
    r = cli(args, "summarize", ranks[0])
    check(r.returncode == 2 and "summarize needs -o OUT" in r.stderr, "summarize without -o: usage error")
    r = cli(args, "summarize", os.path.join(args.work, "nope.json"), "-o", os.path.join(args.work, "x.gtvsum"))
    check(r.returncode == 1 and "nope.json" in r.stderr and not os.path.exists(os.path.join(args.work, "x.gtvsum")),
          "summarize of a missing trace: exit 1, nothing written")


def main():
    return run_case(globals(), required=['--data'], optional=['--trace-gen'])


if __name__ == "__main__":
    sys.exit(main())
