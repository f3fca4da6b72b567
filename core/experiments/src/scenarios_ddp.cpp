// `ddp` and `ddp-overlap`: LargeFcNet trained data-parallel, one process per rank, each tracing itself. A rank
// learns its place from the torchrun environment (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT), so the
// same runner works under torchrun or a batch scheduler on several machines; run on its own, gtv is the launcher:
// it forks one rank per GPU (before touching CUDA), sets that environment in each and merges the ranks' traces on
// the shared clock (merge_ranks).
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <thread>
#include <tuple>

#include "child_process.h"
#include "gtv/io/trace_file.h"
#include "gtv/model/rank_merge.h"
#include "scenario.h"

namespace gtv::exp {
namespace {

// DistributedDataParallel's default bucket_cap_mb.
constexpr std::int64_t kBucketBytes = 25LL * 1024 * 1024;
constexpr int kMaxRanks = 64;

std::optional<std::string> environment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

Expected<int> environment_int(const char* name, int min, int max) {
  const std::optional<std::string> text = environment(name);
  if (!text) return Error{std::string("the torchrun environment has RANK but no ") + name};
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text->c_str(), &end, 10);
  if (errno != 0 || end == text->c_str() || *end != '\0' || value < min || value > max)
    return Error{std::string(name) + "='" + *text + "' is not a number in " + std::to_string(min) + ".." +
                 std::to_string(max)};
  return static_cast<int>(value);
}

std::string no_backend_message() {
  return "ddp needs a c10d process group and this LibTorch build has none: NCCL comes with pip's LibTorch with "
         "CUDA; Gloo needs gloo's headers when gtv is built (Debian: libgloo-dev)";
}

// The backend asked for, else NCCL on GPUs and Gloo otherwise; an error when this build cannot make it.
Expected<std::string> choose_backend(const std::string& asked, bool on_gpu) {
  const std::vector<std::string> available = process_group_backends();
  auto has = [&](std::string_view name) {
    return std::find(available.begin(), available.end(), name) != available.end();
  };
  if (available.empty()) return Error{no_backend_message()};
  if (!asked.empty()) {
    if (!has(asked)) {
      std::string list;
      for (const std::string& name : available) list += (list.empty() ? "" : ", ") + name;
      return Error{"backend '" + asked + "' is not in this LibTorch build (it has " + list + ")"};
    }
    if (asked == "nccl" && !on_gpu) return Error{"backend nccl needs CUDA GPUs and this run has none (use gloo)"};
    return asked;
  }
  if (on_gpu && has("nccl")) return std::string("nccl");
  if (has("gloo")) return std::string("gloo");
  return Error{"without a GPU ddp needs Gloo, and this LibTorch build has only NCCL"};
}

std::string rank_label(int rank) { return "rank " + std::to_string(rank); }

void train_data_parallel(ScenarioContext& ctx, GradientSync sync) {
  if (!ctx.process_group) throw std::runtime_error("ddp runs as a rank of a process group");
  const ProcessGroupConfig& group = *ctx.process_group;
  const bool bucketed = sync == GradientSync::Bucketed;
  ctx.host.set_config("gradient_sync", bucketed ? "bucketed, during backward" : "one all-reduce after backward");
  if (bucketed) {
    ctx.host.set_config("bucket_bytes", std::to_string(kBucketBytes));
    const std::int64_t gradient_bytes = parameter_count(ctx.shape) * std::int64_t{sizeof(float)};
    if (gradient_bytes <= kBucketBytes)
      ctx.host.add_note("all gradients (" + std::to_string(gradient_bytes) + " bytes) fit one bucket of " +
                        std::to_string(kBucketBytes) + " bytes: one all-reduce at the end of backward, as in ddp");
  }
  const std::string place = rank_label(group.rank) + " of " + std::to_string(group.world_size);
  {
    ctx.progress("joining the process group as " + place);
    auto phase = ctx.host.scope("join process group (" + group.backend + ", " + place + ")", RangeKind::Phase);
    ctx.engine.join_process_group(group);
  }
  build_models(ctx);
  {
    auto phase = ctx.host.scope("broadcast parameters from rank 0", RangeKind::Phase);
    ctx.engine.broadcast_parameters(0);
    ctx.engine.synchronize();
  }
  const RangeFn in_range = [&ctx](std::string_view name, const std::function<void()>& body) {
    auto range = ctx.host.scope(std::string(name), RangeKind::User);
    body();
  };
  // An injected straggler: this rank sleeps on its host before each step, so its collectives start that much
  // later than the others' (the others' kernels or Gloo calls then wait for it).
  const bool straggles = ctx.config.straggler_rank == group.rank && ctx.config.straggler_us > 0;
  if (ctx.config.straggler_rank >= group.world_size)
    throw std::runtime_error("--straggler names rank " + std::to_string(ctx.config.straggler_rank) +
                             ", but the run has " + std::to_string(group.world_size) + " ranks");
  if (straggles) ctx.host.set_config("straggler_delay_us", std::to_string(ctx.config.straggler_us));
  auto step = [&] {
    if (straggles) {
      auto delay = ctx.host.scope("injected delay", RangeKind::User);
      std::this_thread::sleep_for(std::chrono::microseconds(ctx.config.straggler_us));
    }
    ctx.engine.train_step(0, sync, kBucketBytes, in_range);
  };
  warm_up(ctx, step, "warm-up step");
  timed(ctx, "timed loop", [&] { iterate(ctx, [&](int) { step(); }); });
  char sum[40];
  std::snprintf(sum, sizeof sum, "%.17g", ctx.engine.parameter_sum(0));
  ctx.host.set_config("parameter_sum", sum);
}

// --- the launcher: gtv starts the ranks on this machine -------------------------------------------------------

struct RankProcess {
  int rank = 0;
  pid_t pid = -1;
  int read_fd = -1;
  std::string bytes;  // its trace, as gtv JSON
  int exit_status = 0;
  bool done = false;
};

// A TCP port nobody listens on now, for the rendezvous (0 when none could be found).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
    port = ntohs(address.sin_port);
  ::close(fd);
  return port;
}

// In a forked rank: the environment torchrun would give it, then the scenario as that rank.
int run_rank(const RunConfig& config, int rank, int world_size, int port, int fd) {
  ::setenv("MASTER_ADDR", "127.0.0.1", 1);
  ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
  ::setenv("RANK", std::to_string(rank).c_str(), 1);
  ::setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
  ::setenv("WORLD_SIZE", std::to_string(world_size).c_str(), 1);
  ::setenv("LOCAL_WORLD_SIZE", std::to_string(world_size).c_str(), 1);
  ::unsetenv("TORCHELASTIC_USE_AGENT_STORE");
  const RunResult result = run_scenario(config, {});
  if (result.trace && !write_all(fd, io::write_trace_to_string(*result.trace))) return 3;
  return result.status.ok() ? 0 : (result.trace ? 1 : 2);
}

// Reads every rank's trace as it comes; when a rank fails, the others would wait in their next collective until
// the timeout, so they are stopped at once.
void collect_ranks(std::vector<RankProcess>& ranks, const std::function<void(std::string_view)>& report) {
  bool stopped_others = false;
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<RankProcess*> open;
    for (RankProcess& r : ranks)
      if (!r.done) {
        fds.push_back({r.read_fd, POLLIN, 0});
        open.push_back(&r);
      }
    if (fds.empty()) return;
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      RankProcess& r = *open[i];
      char buffer[1 << 16];
      const ssize_t n = ::read(r.read_fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) {
        r.bytes.append(buffer, static_cast<std::size_t>(n));
        continue;
      }
      ::close(r.read_fd);
      r.exit_status = wait_exit(r.pid);
      r.done = true;
      report(rank_label(r.rank) + " finished: " + describe_exit(r.exit_status));
      if (!exited_cleanly(r.exit_status) && !stopped_others) {
        stopped_others = true;
        for (RankProcess& other : ranks)
          if (!other.done) ::kill(other.pid, SIGKILL);
      }
    }
  }
}

Expected<std::vector<int>> rank_devices(const RunConfig& config, int world_size, int gpus, const std::string& backend) {
  std::vector<int> devices;
  for (int r = 0; r < world_size; ++r) {
    ProcessGroupConfig place;
    place.rank = place.local_rank = r;
    const Expected<int> device = rank_device(place, gpus, config.devices);
    if (!device) return device.error();
    devices.push_back(*device);
  }
  const std::size_t distinct = std::set<int>(devices.begin(), devices.end()).size();
  if (backend == "nccl" && distinct < devices.size())
    return Error{"nccl needs a GPU of its own for each rank: " + std::to_string(world_size) + " ranks on " +
                 std::to_string(distinct) + " GPU(s) (fewer --ranks, or --backend gloo, which can share a GPU)"};
  return devices;
}

RunResult merge_rank_traces(std::vector<RankProcess>& ranks) {
  Status status = ok_status();
  std::vector<Trace> traces;
  std::vector<std::string> problems;
  for (RankProcess& r : ranks) {
    if (!exited_cleanly(r.exit_status) && status.ok())
      status = Error{"ddp: " + rank_label(r.rank) + " failed (" + describe_exit(r.exit_status) + ")"};
    if (r.bytes.empty()) {
      problems.push_back(rank_label(r.rank) + ": no trace came back (" + describe_exit(r.exit_status) + ")");
      continue;
    }
    auto trace = io::read_trace_from_memory(r.bytes, rank_label(r.rank));
    if (!trace) {
      problems.push_back(rank_label(r.rank) + ": its trace could not be read: " + trace.error().message);
      continue;
    }
    traces.push_back(std::move(trace.value()));
  }
  if (traces.empty()) return {std::nullopt, status.ok() ? Status(Error{"ddp: no rank's trace came back"}) : status};
  if (traces.size() == 1) return {std::move(traces.front()), status};
  RankMergeOptions options;
  std::set<std::string> sums;
  for (const Trace& t : traces)
    if (auto it = t.metadata().config.find("parameter_sum"); it != t.metadata().config.end()) sums.insert(it->second);
  if (sums.size() == 1 && traces.size() == ranks.size())
    options.notes.push_back("after training every rank holds the same parameters (sum " + *sums.begin() +
                            "), though each trained on its own batch: the all-reduces averaged their gradients");
  else if (sums.size() > 1)
    options.notes.push_back("after training the ranks' parameters differ (" + std::to_string(sums.size()) +
                            " different sums): the gradients were not averaged alike");
  options.notes.insert(options.notes.end(), problems.begin(), problems.end());
  std::vector<RankFile> files;
  files.reserve(traces.size());
  for (const Trace& t : traces) files.push_back({&t, rank_label(static_cast<int>(t.metadata().distributed.rank))});
  auto merged = merge_ranks(files, options);
  if (!merged) return {std::nullopt, Error{"ddp: merging the ranks failed: " + merged.error().message}};
  RunResult result{std::move(merged->trace), status};
  result.rank_traces = std::move(traces);
  return result;
}

}  // namespace

Expected<std::optional<ProcessGroupConfig>> rank_from_environment() {
  if (!environment("RANK")) return std::optional<ProcessGroupConfig>{};
  const Expected<int> world = environment_int("WORLD_SIZE", 1, kMaxRanks);
  if (!world) return world.error();
  const Expected<int> rank = environment_int("RANK", 0, *world - 1);
  if (!rank) return rank.error();
  const Expected<int> local = environment("LOCAL_RANK") ? environment_int("LOCAL_RANK", 0, kMaxRanks - 1) : *rank;
  if (!local) return local.error();
  const std::optional<std::string> address = environment("MASTER_ADDR");
  if (!address) return Error{"the torchrun environment has RANK but no MASTER_ADDR"};
  const Expected<int> port = environment_int("MASTER_PORT", 1, 65535);
  if (!port) return port.error();
  ProcessGroupConfig config;
  config.master_addr = *address;
  config.master_port = *port;
  config.rank = *rank;
  config.world_size = *world;
  config.local_rank = *local;
  // torchrun's agent serves the store itself and says so; otherwise rank 0 does, as torch.distributed's env://.
  config.store_server = *rank == 0 && environment("TORCHELASTIC_USE_AGENT_STORE").value_or("") != "True";
  return std::optional<ProcessGroupConfig>{config};
}

Expected<int> rank_device(const ProcessGroupConfig& rank, int gpu_count, const std::vector<int>& devices) {
  if (gpu_count <= 0) {
    if (!devices.empty()) return Error{"devices requested, but this run has no CUDA GPU"};
    return kCpuDevice;
  }
  if (devices.empty()) return rank.local_rank % gpu_count;
  const int device = devices[static_cast<std::size_t>(rank.local_rank) % devices.size()];
  if (device < 0 || device >= gpu_count)
    return Error{"device " + std::to_string(device) + " does not exist: this machine has " + std::to_string(gpu_count) +
                 " CUDA GPU(s), numbered 0.." + std::to_string(gpu_count - 1)};
  return device;
}

Status prepare_rank(ScenarioContext& ctx) {
  ProcessGroupConfig& group = *ctx.process_group;
  const Expected<std::string> backend = choose_backend(ctx.config.backend, ctx.on_gpu());
  if (!backend) return backend.error();
  group.backend = *backend;
  ctx.host.set_distributed({group.rank, group.world_size, group.backend});
  ctx.host.set_config("ranks", std::to_string(group.world_size));
  ctx.host.set_config("rank", std::to_string(group.rank));
  ctx.host.set_config("backend", group.backend);
  return ok_status();
}

void run_ddp(ScenarioContext& ctx) { train_data_parallel(ctx, GradientSync::AfterBackward); }
void run_ddp_overlap(ScenarioContext& ctx) { train_data_parallel(ctx, GradientSync::Bucketed); }

RunResult run_in_ranks(const RunConfig& config, const std::function<void(std::string_view)>& report) {
  if (!config.force_cpu && cuda_touched_in_this_process())
    return {std::nullopt, Error{config.scenario +
                                " must run before this process uses CUDA (forked ranks cannot use a "
                                "CUDA their parent started): run it on its own, e.g. gtv-cli run " +
                                config.scenario}};
  const int gpus = probe_gpu_count(config.force_cpu);
  const Expected<std::string> backend = choose_backend(config.backend, gpus > 0);
  if (!backend) return {std::nullopt, backend.error()};
  const int world_size = config.ranks > 0 ? config.ranks : std::max(gpus, gpus > 0 ? 1 : 2);
  if (world_size > kMaxRanks)
    return {std::nullopt,
            Error{"ranks must be at most " + std::to_string(kMaxRanks) + ", got " + std::to_string(world_size)}};
  if (config.straggler_rank >= world_size)
    return {std::nullopt, Error{"--straggler names rank " + std::to_string(config.straggler_rank) +
                                ", but the run has " + std::to_string(world_size) + " ranks"}};
  const auto devices = rank_devices(config, world_size, gpus, *backend);
  if (!devices) return {std::nullopt, devices.error()};
  const int port = free_port();
  if (port == 0) return {std::nullopt, Error{"no free TCP port on 127.0.0.1 for the ranks' rendezvous"}};
  RunConfig mine = config;
  mine.backend = *backend;
  std::vector<RankProcess> ranks;
  for (int r = 0; r < world_size; ++r) {
    auto child = fork_with_pipe([&](int fd) { return run_rank(mine, r, world_size, port, fd); });
    if (!child) {
      for (RankProcess& started : ranks) {
        ::kill(started.pid, SIGKILL);
        ::close(started.read_fd);
        (void)wait_exit(started.pid);
      }
      return {std::nullopt, child.error()};
    }
    RankProcess process;
    process.rank = r;
    std::tie(process.pid, process.read_fd) = *child;
    ranks.push_back(std::move(process));
    report(rank_label(r) + " of " + std::to_string(world_size) + " started on " +
           device_label((*devices)[static_cast<std::size_t>(r)]) + " (" + *backend + "), pid " +
           std::to_string(ranks.back().pid));
  }
  collect_ranks(ranks, report);
  return merge_rank_traces(ranks);
}

}  // namespace gtv::exp
