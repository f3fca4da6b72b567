// `processes`: one worker process per GPU (one per model on the CPU), each running `sequential` for its models
// with its own CUPTI, merged on the shared clock. Workers are forked before this process touches CUDA (a CUDA
// context does not survive fork); each sends its trace back through a pipe as gtv JSON.
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <tuple>
#include <utility>

#include "child_process.h"
#include "gtv/collect/thread_id.h"
#include "gtv/config.h"
#include "gtv/io/trace_file.h"
#include "scenario.h"
#include "trace_merge.h"

namespace gtv::exp {
namespace {

struct Worker {
  int device = kCpuDevice;
  int models = 0;
  pid_t pid = -1;
  int read_fd = -1;
  std::string bytes;  // its trace, as gtv JSON
  int exit_status = 0;
  [[nodiscard]] std::string label(std::size_t index) const {
    return "worker " + std::to_string(index) + " (" + device_label(device) + ")";
  }
};

// Workers build their models and warm up at their own pace (context creation alone differs by 100 ms); the
// gate makes their timed loops start together, as one process per GPU would be used: each worker says "ready"
// on one pipe and waits for "go" on another. A worker that dies before it is ready no longer holds the others.
struct StartGate {
  int ready[2] = {-1, -1};
  int go[2] = {-1, -1};

  [[nodiscard]] bool open() { return ::pipe(ready) == 0 && ::pipe(go) == 0; }

  // In a worker: announce, then block until the parent opens the gate (or goes away).
  void wait_in_worker() const {
    (void)write_all(ready[1], "r");
    char byte = 0;
    while (::read(go[0], &byte, 1) < 0 && errno == EINTR) {
    }
  }
  void close_parent_ends_in_worker() const {
    ::close(ready[0]);
    ::close(go[1]);
  }
  void close_all() {
    for (int* fd : {&ready[0], &ready[1], &go[0], &go[1]})
      if (*fd >= 0) ::close(std::exchange(*fd, -1));
  }
};

bool exited_without_reaping(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

// In the parent: waits until every live worker is ready, then opens the gate for all of them at once.
void open_gate_when_ready(StartGate& gate, const std::vector<pid_t>& pids) {
  std::size_t ready = 0;
  while (ready < pids.size()) {
    pollfd pfd{gate.ready[0], POLLIN, 0};
    if (::poll(&pfd, 1, 200) > 0) {
      char bytes[64];
      const ssize_t n = ::read(gate.ready[0], bytes, sizeof bytes);
      if (n > 0) ready += static_cast<std::size_t>(n);
      continue;
    }
    const auto dead = std::count_if(pids.begin(), pids.end(), exited_without_reaping);
    if (ready + static_cast<std::size_t>(dead) >= pids.size()) break;
  }
  for (std::size_t i = 0; i < pids.size(); ++i) (void)write_all(gate.go[1], "g");
}

std::vector<Worker> plan_workers(const std::vector<int>& placement) {
  std::vector<Worker> workers;
  for (int device : placement) {
    auto it = std::find_if(workers.begin(), workers.end(), [&](const Worker& w) { return w.device == device; });
    if (device == kCpuDevice || it == workers.end()) {
      Worker worker;
      worker.device = device;
      worker.models = 1;
      workers.push_back(std::move(worker));
    } else {
      ++it->models;
    }
  }
  return workers;
}

int run_worker(const RunConfig& config, const Worker& worker, const StartGate& gate, int fd) {
  gate.close_parent_ends_in_worker();
  RunConfig mine = config;
  mine.before_timed_work = [&gate, waited = false]() mutable {
    if (!std::exchange(waited, true)) gate.wait_in_worker();
  };
  mine.scenario = "sequential";
  mine.models = worker.models;
  mine.devices = worker.device == kCpuDevice ? std::vector<int>{} : std::vector<int>{worker.device};
  mine.force_cpu = config.force_cpu || worker.device == kCpuDevice;
  const RunResult result = run_scenario(mine, {});
  if (result.trace && !write_all(fd, io::write_trace_to_string(*result.trace))) return 3;
  return result.status.ok() ? 0 : (result.trace ? 1 : 2);
}

std::map<std::string, std::string> describe_config(const RunConfig& c, int gpus, const std::vector<int>& placement,
                                                   std::size_t workers) {
  std::string devices;
  for (int d : placement) devices += (devices.empty() ? "" : ",") + (d == kCpuDevice ? "cpu" : std::to_string(d));
  const int hidden = c.hidden != 0 ? c.hidden : (gpus > 0 ? kDefaultHiddenGpu : kDefaultHiddenCpu);
  return {{"models", std::to_string(c.models)},
          {"input", std::to_string(c.input)},
          {"hidden", std::to_string(hidden)},
          {"output", std::to_string(c.output)},
          {"batch", std::to_string(c.batch)},
          {"iters", std::to_string(c.iters)},
          {"devices", devices},
          {"workers", std::to_string(workers)},
          {"warmup", c.warmup ? "true" : "false"}};
}

RunResult merge_workers(const RunConfig& config, const std::vector<Worker>& workers, int gpus,
                        const std::vector<int>& placement, TimeNs origin_ns, TimeNs end_ns) {
  TraceMetadata meta;
  meta.source_tool = std::string("gtv ") + GTV_VERSION;
  meta.scenario = "processes";
  meta.config = describe_config(config, gpus, placement, workers.size());
  if (gpus == 0) meta.notes.push_back("no CUDA GPU: one CPU worker process per model");
  Status status = ok_status();
  std::vector<Trace> traces;
  traces.reserve(workers.size());  // parts point into it
  std::vector<MergePart> parts;
  for (std::size_t i = 0; i < workers.size(); ++i) {
    const Worker& w = workers[i];
    const bool failed = !exited_cleanly(w.exit_status);
    if (failed) {
      meta.notes.push_back(w.label(i) + " failed: " + describe_exit(w.exit_status));
      if (status.ok()) status = Error{"processes: " + w.label(i) + " failed (" + describe_exit(w.exit_status) + ")"};
    }
    if (w.bytes.empty()) {
      meta.notes.push_back(w.label(i) + ": no trace came back");
      continue;
    }
    auto trace = io::read_trace_from_memory(w.bytes, w.label(i));
    if (!trace) {
      meta.notes.push_back(w.label(i) + ": its trace could not be read: " + trace.error().message);
      continue;
    }
    traces.push_back(std::move(trace.value()));
    parts.push_back({&traces.back(), w.label(i)});
  }
  const Range scenario{
      "processes", RangeKind::Scenario, 0, end_ns - origin_ns, collect::current_pid(), collect::current_tid(), -1};
  auto merged = merge_traces(parts, std::move(meta), {scenario}, origin_ns);
  if (!merged) return {std::nullopt, merged.error()};
  return {std::move(merged.value()), status};
}

}  // namespace

RunResult run_in_processes(const RunConfig& config, const std::function<void(std::string_view)>& report) {
  if (!config.force_cpu && cuda_touched_in_this_process())
    return {std::nullopt, Error{"processes must run before this process uses CUDA (forked workers cannot use a "
                                "CUDA their parent started): run it on its own, e.g. gtv-cli run processes"}};
  const TimeNs origin_ns = unix_now_ns();
  const int gpus = probe_gpu_count(config.force_cpu);
  auto placement = assign_devices(config.models, gpus, config.devices);
  if (!placement) return {std::nullopt, placement.error()};
  std::vector<Worker> workers = plan_workers(*placement);
  StartGate gate;
  if (!gate.open()) return {std::nullopt, Error{"cannot create the pipes that start the workers together"}};
  std::vector<pid_t> pids;
  for (std::size_t i = 0; i < workers.size(); ++i) {
    auto child = fork_with_pipe([&](int fd) { return run_worker(config, workers[i], gate, fd); });
    if (!child) {
      gate.close_all();  // workers already started see the gate close and go on
      return {std::nullopt, child.error()};
    }
    std::tie(workers[i].pid, workers[i].read_fd) = *child;
    pids.push_back(workers[i].pid);
    report(workers[i].label(i) + " started, pid " + std::to_string(workers[i].pid));
  }
  ::close(std::exchange(gate.ready[1], -1));
  ::close(std::exchange(gate.go[0], -1));
  open_gate_when_ready(gate, pids);
  report("all workers ready: timed loops start together");
  gate.close_all();
  for (std::size_t i = 0; i < workers.size(); ++i) {
    workers[i].bytes = read_all(workers[i].read_fd);
    ::close(workers[i].read_fd);
    workers[i].exit_status = wait_exit(workers[i].pid);
    report(workers[i].label(i) + " finished: " + describe_exit(workers[i].exit_status));
  }
  const TimeNs end_ns = unix_now_ns();
  return merge_workers(config, workers, gpus, *placement, origin_ns, end_ns);
}

}  // namespace gtv::exp
