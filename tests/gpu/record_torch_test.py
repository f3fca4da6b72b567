"""gtv-cli record on PyTorch programs on a real GPU (ctest label gpu): the seed's three models with NVTX owner ranges
(analyze, then `whatif --change streams` and `--change graphs` scored against the recorded variants), a CUDA-graph
replay, a DataLoader with two worker processes, a torchrun job of two Gloo ranks, and torch.profiler running inside a
recorded program. Counts come from the written files, read here with json; the what-if scores are printed.

usage: record_torch_test.py --cli GTV_CLI --work DIR
Exit 0 when every check holds (or with "SKIP" when there is no PyTorch with CUDA), 1 otherwise.
"""
import argparse
import gzip
import json
import os
import subprocess
import sys

failures = []

MODELS = r'''
import sys, time, torch
variant = sys.argv[1]
dev = torch.device("cuda:0")
torch.manual_seed(0)

def net():
    layers = [torch.nn.Linear(100, 10000), torch.nn.ReLU()]
    for _ in range(5):
        layers += [torch.nn.Linear(10000, 10000), torch.nn.ReLU()]
    layers += [torch.nn.Linear(10000, 100)]
    return torch.nn.Sequential(*layers).to(dev).eval()

models = [net() for _ in range(3)]
xs = [torch.randn(100, 100, device=dev) for _ in range(3)]
streams = [torch.cuda.Stream(dev) for _ in range(3)]
for s in streams:
    s.wait_stream(torch.cuda.current_stream(dev))
graphs = []
if variant == "graphs":
    side = torch.cuda.Stream(dev)
    side.wait_stream(torch.cuda.current_stream(dev))
    with torch.no_grad(), torch.cuda.stream(side):
        for m, x in zip(models, xs):
            for _ in range(3):
                m(x)
    torch.cuda.current_stream(dev).wait_stream(side)
    with torch.no_grad():
        for m, x in zip(models, xs):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                m(x)
            graphs.append(g)
torch.cuda.synchronize()

def forward(k):
    with torch.cuda.nvtx.range(f"model {k} forward"):
        if variant == "graphs":
            graphs[k].replay()
        else:
            models[k](xs[k])

def step():
    with torch.no_grad():
        for k in range(3):
            if variant == "streams":
                with torch.cuda.stream(streams[k]):
                    forward(k)
            else:
                forward(k)
    torch.cuda.synchronize()

for _ in range(3):
    step()
torch.cuda.profiler.start()
start = time.perf_counter()
for _ in range(5):
    with torch.cuda.nvtx.range("step"):
        step()
print(f"5 steps wall: {(time.perf_counter() - start) * 1e3:.2f} ms", flush=True)
torch.cuda.profiler.stop()
'''

LOADER = r'''
import torch
from torch.utils.data import DataLoader, TensorDataset

def main():
    dev = torch.device("cuda:0")
    data = TensorDataset(torch.randn(256, 3, 64, 64), torch.randint(0, 10, (256,)))
    loader = DataLoader(data, batch_size=32, num_workers=2, pin_memory=True)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
                              torch.nn.Flatten(), torch.nn.Linear(32, 10)).to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    for x, y in loader:
        with torch.cuda.nvtx.range("step"):
            x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
    torch.cuda.synchronize()

if __name__ == "__main__":
    main()
'''

DDP = r'''
import torch, torch.distributed as dist
dist.init_process_group("gloo")
torch.cuda.set_device(0)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 10)).cuda()
ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[0])
opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
x = torch.randn(64, 1024, device="cuda")
y = torch.randint(0, 10, (64,), device="cuda")
for _ in range(6):
    with torch.cuda.nvtx.range("step"):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(ddp(x), y).backward()
        opt.step()
torch.cuda.synchronize()
dist.destroy_process_group()
'''

KINETO = r'''
import sys, torch
from torch.profiler import ProfilerActivity, profile
x = torch.ones(512, 512, device="cuda")
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(5):
        x = x @ x
    torch.cuda.synchronize()
prof.export_chrome_trace(sys.argv[1])
'''


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)


def write(work, name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def record(args, out, *command, extra=()):
    r = subprocess.run([args.cli, "record", "-o", out, *extra, "--", *command], capture_output=True, text=True,
                       timeout=600, cwd=args.work)
    print("$ gtv-cli record -o %s %s -- %s\n%s%s" % (os.path.basename(out), " ".join(extra), " ".join(command),
                                                   r.stdout[-1500:], r.stderr[-1500:]), flush=True)
    return r


def cli(args, *argv):
    r = subprocess.run([args.cli, *argv], capture_output=True, text=True, timeout=600)
    return r


def show_analysis(args, path, what, lines):
    """gtv-cli analyze of a recording: it must succeed; its first lines go to the log."""
    r = cli(args, "analyze", path)
    check(r.returncode == 0, "analyze of %s: exit 0" % what)
    print("\n".join(r.stdout.splitlines()[:lines]), flush=True)


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        trace = json.load(f)
    return trace, [e for e in trace["traceEvents"] if e.get("ph") == "X"]


def kernels(evs):
    return [e for e in evs if e.get("cat") == "kernel"]


def named(evs, name):
    return [e for e in evs if e.get("name") == name]


def activity_ns(args, path):
    info = json.loads(cli(args, "info", path, "--json").stdout)
    return info["activity_end_ns"] - info["activity_start_ns"]


def score(args, original, change, variant):
    r = cli(args, "whatif", original, "--change", change, "--format", "json")
    check(r.returncode == 0, "whatif %s --change %s applies with the NVTX owners (%s)"
          % (os.path.basename(original), change, r.stderr.strip()[-300:]))
    if r.returncode != 0:
        return
    p = json.loads(r.stdout)
    recorded = activity_ns(args, variant)
    low, high = p["band_ns"]
    error = (p["predicted_ns"] - recorded) / recorded
    print("score: %s --change %s: recorded %.2f ms, predicted %.2f ms (band %.2f-%.2f), variant recorded %.2f ms, "
          "error %+.1f%%, in band %s" % (os.path.basename(original), change, p["recorded_ns"] / 1e6,
                                         p["predicted_ns"] / 1e6, low / 1e6, high / 1e6, recorded / 1e6, 100 * error,
                                         "yes" if low <= recorded <= high else "no"), flush=True)
    check(abs(error) <= 0.10, "%s prediction within 10%% of the recorded variant" % change)


def models(args):
    path = write(args.work, "models.py", MODELS)
    out = {}
    for variant in ("sequential", "streams", "graphs"):
        out[variant] = os.path.join(args.work, "models-%s.json.gz" % variant)
        r = record(args, out[variant], sys.executable, path, variant, extra=["--capture-range", "cudaProfilerApi"])
        check(r.returncode == 0, "models %s: exit 0" % variant)
        trace, evs = load(out[variant])
        owners = [e for e in evs if e.get("name", "").startswith("model ") and e["name"].endswith(" forward")]
        check(len(owners) == 15, "models %s: 15 NVTX owner ranges 'model k forward' (%d)" % (variant, len(owners)))
        check(len(named(evs, "step")) == 5, "models %s: 5 NVTX ranges 'step'" % variant)
        check(len(kernels(evs)) >= 15 * 7, "models %s: the forwards' kernels (%d)" % (variant, len(kernels(evs))))
        if variant == "streams":
            streams = {e["tid"] for e in kernels(evs)}
            check(len(streams) >= 3, "models streams: kernels on 3 streams (%d)" % len(streams))
        if variant == "graphs":
            launches = [e for e in evs if e.get("name", "").startswith("cudaGraphLaunch")]
            check(len(launches) == 15, "models graphs: 15 graph launches (%d)" % len(launches))
    show_analysis(args, out["sequential"], "the recorded sequential loop", 40)
    score(args, out["sequential"], "streams", out["streams"])
    score(args, out["sequential"], "graphs", out["graphs"])


def loader(args):
    path = write(args.work, "loader.py", LOADER)
    out = os.path.join(args.work, "loader.json.gz")
    r = record(args, out, sys.executable, path)
    check(r.returncode == 0, "DataLoader with 2 workers: exit 0, no hang")
    trace, evs = load(out)
    check(len(named(evs, "step")) == 8, "DataLoader: 8 steps (%d)" % len(named(evs, "step")))
    copies = [e for e in evs if "Memcpy HtoD" in e.get("name", "")]
    check(len(copies) >= 16, "DataLoader: the batches' copies to the GPU (%d)" % len(copies))
    pids = {e["pid"] for e in evs if e.get("cat") in ("cuda_runtime", "cuda_driver", "kernel")}
    print("DataLoader: processes with CUDA records: %s; notes: %s" % (sorted(pids, key=str),
                                                                    trace["gtv"]["metadata"].get("notes")))
    show_analysis(args, out, "the DataLoader recording", 30)


def torchrun(args):
    path = write(args.work, "ddp.py", DDP)
    out = os.path.join(args.work, "ddp.json.gz")
    r = record(args, out, sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2", path)
    check(r.returncode == 0, "torchrun, 2 Gloo ranks on one GPU: exit 0")
    trace, evs = load(out)
    meta = trace["gtv"]["metadata"]
    check(len(meta.get("ranks", [])) == 2, "torchrun: two ranks merged (%r)" % meta.get("ranks"))
    per_pid = {}
    for e in kernels(evs):
        per_pid[e["pid"]] = per_pid.get(e["pid"], 0) + 1
    check(len(per_pid) == 2, "torchrun: kernels of both ranks (%r)" % per_pid)
    check(len(named(evs, "step")) == 12, "torchrun: 6 steps a rank (%d)" % len(named(evs, "step")))
    show_analysis(args, out, "the torchrun recording", 30)


def kineto(args):
    path = write(args.work, "kineto.py", KINETO)
    out = os.path.join(args.work, "kineto-gtv.json.gz")
    kineto_out = os.path.join(args.work, "kineto-own.json")
    r = record(args, out, sys.executable, path, kineto_out)
    check(r.returncode == 0, "torch.profiler inside a recorded program: exit 0")
    with open(kineto_out) as f:
        kineto_kernels = [e for e in json.load(f)["traceEvents"] if e.get("cat") == "kernel"]
    _, evs = load(out)
    gtv_kernels = kernels(evs)
    print("torch.profiler beside gtv-cli record: Kineto's file has %d kernels, gtv's %d" % (len(kineto_kernels),
                                                                                          len(gtv_kernels)))
    said = "not traced" in r.stderr or "CUPTI" in r.stderr
    check(len(gtv_kernels) == 5 or said, "gtv records the 5 kernels or says why it does not")
    check(len(kineto_kernels) == 5 or said, "Kineto records its 5 kernels or gtv says that it took CUPTI from it")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--only", nargs="*", default=[])
    args = parser.parse_args()
    args.cli = os.path.abspath(args.cli)  # the recorded programs run in the work folder
    os.makedirs(args.work, exist_ok=True)
    code = subprocess.run([sys.executable, "-c", "import torch; assert torch.cuda.is_available()"],
                          capture_output=True).returncode
    if code != 0:
        print("SKIP: no PyTorch with CUDA")
        return 0
    for part in (models, loader, torchrun, kineto):
        if args.only and part.__name__ not in args.only:
            continue
        try:
            part(args)
        except Exception as e:  # a failed part is reported and the others still run
            check(False, "%s raised %r" % (part.__name__, e))
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
