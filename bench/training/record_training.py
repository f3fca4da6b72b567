#!/usr/bin/env python3
"""Records the training corpus: real training and inference loops traced by torch.profiler on a CUDA GPU.

Usage: python3 bench/training/record_training.py OUT_DIR [SCENARIO ...] [--repeat N]
       python3 bench/training/record_training.py OUT_DIR --same-process SCENARIO ... [--rounds K] [--processes P]

Each scenario runs in a process of its own (CUDA_LAUNCH_BLOCKING must be set before CUDA starts, and one process
per scenario keeps one run's caches and allocator from flattering the next) and writes OUT_DIR/<scenario>.json.gz
(with --repeat N > 1, <scenario>.rK.json.gz for K = 1..N). Every loop is recorded the way the PyTorch tutorials
record training: `profile(activities=[CPU, CUDA], schedule=schedule(wait=1, warmup=2, active=5))` with
`prof.step()` after each step, so the file holds ProfilerStep#3 to #7 and no warm-up. Users' annotations are
`record_function` ranges: "model N forward" around each model's forward in the multi-model loops (what gtv's
what-if needs to tell models apart), "data", "forward", "backward", "optimizer" in the training loops.

The scenarios come in pairs: a recording and the variant a what-if change predicts (bench/training/README.md).
With --same-process the scenarios run in turn inside one process, K rounds over (A B A B ...), in each of P
processes, and write OUT_DIR/<scenario>.pP.rK.json.gz: both halves of a pair then run on a host at one speed.
Without a GPU nothing is recorded (exit 1).
"""
import gzip
import os
import shutil
import subprocess
import sys
import threading
import time

ACTIVE_STEPS = 5
SCHEDULE = dict(wait=1, warmup=2, active=ACTIVE_STEPS, repeat=1)
STEPS = SCHEDULE["wait"] + SCHEDULE["warmup"] + ACTIVE_STEPS


# ---------------------------------------------------------------- models


def seed_net(device):
    """The seed's LargefcNet: 100 -> 10000 x6 -> 100 with dropout 0.4 (inference: eval, so dropout is off)."""
    import torch
    layers = [torch.nn.Linear(100, 10000, device=device), torch.nn.ReLU(), torch.nn.Dropout(0.4)]
    for _ in range(5):
        layers += [torch.nn.Linear(10000, 10000, device=device), torch.nn.ReLU(), torch.nn.Dropout(0.4)]
    layers += [torch.nn.Linear(10000, 100, device=device)]
    return torch.nn.Sequential(*layers).eval()


def small_net(device):
    """An MLP whose kernels take a few microseconds: its forward is bound by the host's launches."""
    import torch
    layers = []
    for _ in range(8):
        layers += [torch.nn.Linear(512, 512, device=device), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers).eval()


def conv_net(device):
    import torch
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(32, 64, 3, padding=1, stride=2), torch.nn.ReLU(),
        torch.nn.Conv2d(64, 64, 3, padding=1, stride=2), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, 10)).to(device)


def resnet18(device):
    import torchvision
    return torchvision.models.resnet18(num_classes=1000).to(device)


def transformer(device):
    import torch
    layer = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, batch_first=True)
    return torch.nn.Sequential(torch.nn.TransformerEncoder(layer, num_layers=6),
                               torch.nn.Linear(512, 1000)).to(device)


# ---------------------------------------------------------------- the profiler


def profiled(steps_fn, out_path):
    """Runs steps_fn(step) STEPS times under the tutorial's schedule and writes the gzipped trace. Prints the wall
    time of the active steps (from a synchronize at the end of the last warm-up step, which the profiler does not
    keep, to the end of the last step, which synchronizes). With RECORD_TRAINING_PLAIN=1 in the environment the
    same steps run without torch.profiler, the active ones between cudaProfilerStart and cudaProfilerStop (for
    `gtv-cli record --capture-range cudaProfilerApi`, or untraced), and no file is written."""
    import torch
    from torch.profiler import ProfilerActivity, profile, schedule
    first_active = SCHEDULE["wait"] + SCHEDULE["warmup"]
    plain = os.environ.get("RECORD_TRAINING_PLAIN") == "1"
    start = 0.0

    def run(step, advance):
        nonlocal start
        steps_fn(step)
        if step == first_active - 1:  # before the profiler's step into the active phase
            torch.cuda.synchronize()
            if plain:
                torch.cuda.profiler.start()
            start = time.perf_counter()
        if step == STEPS - 1:
            print(f"active steps wall: {(time.perf_counter() - start) * 1e3:.2f} ms", flush=True)
            if plain:
                torch.cuda.profiler.stop()
        advance()

    if plain:
        for step in range(STEPS):
            run(step, lambda: None)
        return
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=schedule(**SCHEDULE)) as prof:
        for step in range(STEPS):
            run(step, prof.step)
    torch.cuda.synchronize()
    raw = out_path[:-len(".gz")]
    prof.export_chrome_trace(raw)
    with open(raw, "rb") as src, gzip.open(out_path, "wb", compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(raw)


def last_step(step):
    return step == STEPS - 1


# ---------------------------------------------------------------- three models on one GPU (the seed's question)


def multi_model(kind, variant, out_path):
    """Three models on cuda:0, each forward in a record_function "model N forward" range; a step is `repeats`
    rounds of the three forwards, then a synchronize.
    variant: sequential | streams | graphs | copy-pageable | copy-pinned | threads | threads-streams"""
    import torch
    from torch.profiler import record_function
    dev = torch.device("cuda:0")
    torch.manual_seed(0)
    make, batch, width, repeats = (seed_net, 100, 100, 1) if kind == "seed" else (small_net, 32, 512, 10)
    models = [make(dev) for _ in range(3)]
    inputs = [torch.randn(batch, width, device=dev) for _ in range(3)]
    streams = [torch.cuda.Stream(dev) for _ in range(3)]
    for s in streams:
        s.wait_stream(torch.cuda.current_stream(dev))
    pinned = [torch.empty(batch, 100 if kind == "seed" else 512, pin_memory=True) for _ in range(3)]
    graphs = []
    if variant == "graphs":
        static_out = []
        side = torch.cuda.Stream(dev)
        side.wait_stream(torch.cuda.current_stream(dev))
        with torch.no_grad(), torch.cuda.stream(side):
            for m, x in zip(models, inputs):
                for _ in range(3):
                    m(x)  # warm-up on a side stream before capture, as torch.cuda.graphs asks
        torch.cuda.current_stream(dev).wait_stream(side)
        with torch.no_grad():
            for m, x in zip(models, inputs):
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):
                    static_out.append(m(x))
                graphs.append(g)
    torch.cuda.synchronize()

    def forward(k):
        with record_function(f"model {k} forward"):
            if variant == "graphs":
                graphs[k].replay()
                return None
            y = models[k](inputs[k])
            if variant == "copy-pageable":
                y = y.to("cpu")  # pageable destination: the host waits for the GPU
            elif variant == "copy-pinned":
                pinned[k].copy_(y, non_blocking=True)
            return y

    def thread_body(k, use_stream):
        torch.cuda.set_device(dev)
        with torch.no_grad():
            if use_stream:
                with torch.cuda.stream(streams[k]):
                    for _ in range(repeats):
                        forward(k)
            else:
                for _ in range(repeats):
                    forward(k)

    def step(_):
        with torch.no_grad():
            if variant in ("threads", "threads-streams"):
                threads = [threading.Thread(target=thread_body, args=(k, variant == "threads-streams"))
                           for k in range(3)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
            else:
                for _ in range(repeats):
                    for k in range(3):
                        if variant == "streams":
                            with torch.cuda.stream(streams[k]):
                                forward(k)
                        else:
                            forward(k)
        torch.cuda.synchronize()

    profiled(step, out_path)


# ---------------------------------------------------------------- training loops


def training(kind, variant, out_path):
    """A training loop on cuda:0 with record_function ranges for its phases.
    kind: cnn (ResNet-18, fp32, batch 64 of 3x224x224) | transformer (6 encoder layers, bf16 autocast, batch 32
    of 256 tokens).
    variant: plain (one synchronize at the end of the last step) | sync (torch.cuda.synchronize() after every
    step, as a stopwatch around each step needs) | launch-blocking (run under CUDA_LAUNCH_BLOCKING=1) | item
    (loss.item() every step to log it) | lossbuf (the loss copied into pinned memory without blocking, read at
    the end)."""
    import torch
    from torch.profiler import record_function
    dev = torch.device("cuda:0")
    torch.manual_seed(0)
    if kind == "cnn":
        model = resnet18(dev)
        data = torch.randn(64, 3, 224, 224, device=dev)
        target = torch.randint(0, 1000, (64,), device=dev)
        autocast = None
    else:
        model = transformer(dev)
        data = torch.randn(32, 256, 512, device=dev)
        target = torch.randint(0, 1000, (32,), device=dev)
        autocast = torch.bfloat16
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    loss_log = torch.zeros(STEPS, pin_memory=True)
    logged = []

    def step(i):
        optimizer.zero_grad(set_to_none=True)
        with record_function("forward"):
            if autocast is not None:
                with torch.autocast("cuda", dtype=autocast):
                    out = model(data)
                    loss = loss_fn(out.mean(dim=1) if out.dim() == 3 else out, target)
            else:
                loss = loss_fn(model(data), target)
        with record_function("backward"):
            loss.backward()
        with record_function("optimizer"):
            optimizer.step()
        if variant == "item":
            logged.append(loss.item())
        elif variant == "lossbuf":
            loss_log[i].copy_(loss.detach(), non_blocking=True)
        if variant == "sync" or last_step(i):
            torch.cuda.synchronize()

    profiled(step, out_path)


def loader(variant, out_path):
    """A DataLoader with 4 worker processes feeding a small CNN on cuda:0: batches of 128 images of 3x128x128
    (25 MB each) from host memory. variant: pageable (pin_memory=False, `.to(device)`) | pinned
    (pin_memory=True, `.to(device, non_blocking=True)`)."""
    import torch
    from torch.profiler import record_function
    dev = torch.device("cuda:0")
    torch.manual_seed(0)
    images = torch.randn(STEPS * 128, 3, 128, 128)
    labels = torch.randint(0, 10, (STEPS * 128,))
    pin = variant == "pinned"
    batches = iter(torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, labels), batch_size=128,
                                               num_workers=4, pin_memory=pin, shuffle=False))
    model = conv_net(dev)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(i):
        with record_function("data"):
            x, y = next(batches)
            x = x.to(dev, non_blocking=pin)
            y = y.to(dev, non_blocking=pin)
        optimizer.zero_grad(set_to_none=True)
        with record_function("forward"):
            loss = loss_fn(model(x), y)
        with record_function("backward"):
            loss.backward()
        with record_function("optimizer"):
            optimizer.step()
        if last_step(i):
            torch.cuda.synchronize()

    profiled(step, out_path)


def ddp_worker(rank, world_size, out_dir, stem, port, straggle_s):
    """One rank of DistributedDataParallel over Gloo on cuda:0 (both ranks share the one GPU: NCCL refuses two
    ranks on one GPU); the straggling rank sleeps before each step."""
    import torch
    import torch.distributed as dist
    from torch.profiler import record_function
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(0)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(conv_net("cuda:0"), device_ids=[0])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    data = torch.randn(64, 3, 64, 64, device="cuda:0")
    target = torch.randint(0, 10, (64,), device="cuda:0")
    loss_fn = torch.nn.CrossEntropyLoss()
    sleep_s = straggle_s if rank == 1 else 0.0

    def step(i):
        if sleep_s:
            with record_function("straggler sleep"):
                time.sleep(sleep_s)
        optimizer.zero_grad(set_to_none=True)
        with record_function("forward"):
            loss = loss_fn(model(data), target)
        with record_function("backward"):
            loss.backward()
        with record_function("optimizer"):
            optimizer.step()
        if last_step(i):
            torch.cuda.synchronize()

    dist.barrier()
    profiled(step, os.path.join(out_dir, f"{stem}.rank{rank}.json.gz"))
    dist.destroy_process_group()


def ddp(variant, out_path):
    import torch.multiprocessing as mp
    out_dir = os.path.dirname(out_path) or "."
    stem = os.path.basename(out_path)[:-len(".json.gz")]
    straggle_s = 0.005 if variant == "straggler" else 0.0
    port = 29600 + (os.getpid() % 300)
    mp.spawn(ddp_worker, args=(2, out_dir, stem, port, straggle_s), nprocs=2, join=True)


# ---------------------------------------------------------------- the scenarios

SCENARIOS = {
    # three large models on one GPU (GPU-bound)
    "seed3-sequential": lambda out: multi_model("seed", "sequential", out),
    "seed3-streams": lambda out: multi_model("seed", "streams", out),
    "seed3-graphs": lambda out: multi_model("seed", "graphs", out),
    "seed3-copy-pageable": lambda out: multi_model("seed", "copy-pageable", out),
    "seed3-copy-pinned": lambda out: multi_model("seed", "copy-pinned", out),
    "seed3-threads": lambda out: multi_model("seed", "threads", out),
    "seed3-threads-streams": lambda out: multi_model("seed", "threads-streams", out),
    # three small models on one GPU (bound by the host's launches)
    "small3-sequential": lambda out: multi_model("small", "sequential", out),
    "small3-streams": lambda out: multi_model("small", "streams", out),
    "small3-graphs": lambda out: multi_model("small", "graphs", out),
    # training
    "cnn": lambda out: training("cnn", "plain", out),
    "cnn-sync": lambda out: training("cnn", "sync", out),
    "cnn-launch-blocking": lambda out: training("cnn", "launch-blocking", out),
    "transformer-amp": lambda out: training("transformer", "plain", out),
    "transformer-amp-item": lambda out: training("transformer", "item", out),
    "transformer-amp-lossbuf": lambda out: training("transformer", "lossbuf", out),
    "loader-pageable": lambda out: loader("pageable", out),
    "loader-pinned": lambda out: loader("pinned", out),
    "ddp-gloo": lambda out: ddp("balanced", out),
    "ddp-gloo-straggler": lambda out: ddp("straggler", out),
}


def run_one(name, out_path):
    """Runs one scenario in this process (the child side)."""
    import torch
    if not torch.cuda.is_available():
        sys.exit("record_training: no CUDA GPU")
    SCENARIOS[name](out_path)


def run_in_turn(pairs):
    """Runs scenarios one after another in this process (the child side of --same-process): [(name, out), ...]."""
    import torch
    if not torch.cuda.is_available():
        sys.exit("record_training: no CUDA GPU")
    for name, out in pairs:
        start = time.time()
        SCENARIOS[name](out)
        print(f"{os.path.basename(out)}: ok ({time.time() - start:.1f} s)", flush=True)


def same_process(out_dir, names, rounds, processes):
    """Records the scenarios in turn inside one process, `rounds` times over (A B A B ...), in each of `processes`
    processes: OUT_DIR/<name>.pP.rK.json.gz. Two recordings of one process ran on the same host at the same speed,
    which recordings in processes of their own do not (bench/training/README.md)."""
    blocked = [n for n in names if n.endswith("launch-blocking") or n.startswith("ddp")]
    if blocked:
        sys.exit(f"record_training: {blocked[0]} needs a process of its own (an environment set at start, or ranks)")
    os.makedirs(out_dir, exist_ok=True)
    failed = 0
    for p in range(1, processes + 1):
        child = ["--child-in-turn"]
        for r in range(1, rounds + 1):
            for name in names:
                child += [name, os.path.join(out_dir, f"{name}.p{p}.r{r}.json.gz")]
        start = time.time()
        proc = subprocess.run([sys.executable, __file__] + child, timeout=600, capture_output=True, text=True)
        print(proc.stdout.strip(), flush=True)
        if proc.returncode != 0:
            failed += 1
            print(f"process {p}: FAILED ({time.time() - start:.1f} s): {proc.stderr.strip()[-2000:]}", flush=True)
    sys.exit(1 if failed else 0)


def pop_int(args, flag, default=1):
    """Takes `flag N` out of args and returns N, or default when the flag is not there."""
    if flag not in args:
        return default
    i = args.index(flag)
    value = int(args[i + 1])
    del args[i:i + 2]
    return value


def main():
    args = sys.argv[1:]
    if len(args) >= 3 and args[0] == "--child":
        run_one(args[1], args[2])
        return
    if len(args) >= 3 and args[0] == "--child-in-turn":
        run_in_turn(list(zip(args[1::2], args[2::2])))
        return
    if "--same-process" in args:
        args.remove("--same-process")
        rounds, processes = pop_int(args, "--rounds"), pop_int(args, "--processes")
        unknown = [n for n in args[1:] if n not in SCENARIOS]
        if len(args) < 2 or unknown:
            sys.exit(__doc__ if not unknown else f"record_training: unknown scenario {unknown[0]}")
        same_process(args[0], args[1:], rounds, processes)
        return
    repeat = pop_int(args, "--repeat")
    if not args:
        sys.exit(__doc__)
    out_dir, names = args[0], args[1:] or list(SCENARIOS)
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        sys.exit(f"record_training: unknown scenario {unknown[0]} (known: {' '.join(SCENARIOS)})")
    os.makedirs(out_dir, exist_ok=True)
    failed = 0
    for r in range(1, repeat + 1):
        for name in names:
            stem = name if repeat == 1 else f"{name}.r{r}"
            out = os.path.join(out_dir, stem + ".json.gz")
            env = dict(os.environ)
            if name.endswith("launch-blocking"):
                env["CUDA_LAUNCH_BLOCKING"] = "1"
            start = time.time()
            proc = subprocess.run([sys.executable, __file__, "--child", name, out], env=env, timeout=300,
                                  capture_output=True, text=True)
            took = time.time() - start
            if proc.returncode != 0:
                failed += 1
                print(f"{stem}: FAILED ({took:.1f} s): {proc.stderr.strip()[-2000:]}", flush=True)
            else:
                print(f"{stem}: ok ({took:.1f} s) {proc.stdout.strip()}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
