// run_scenario: validate, place the models, start collection, run the scenario, and always hand back the trace
// of what ran, also when the scenario failed part way.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "allocator_counters.h"
#include "gtv/collect/trace_recorder.h"
#include "gtv/config.h"
#include "machine.h"
#include "op_tracer.h"
#include "scenario.h"

namespace gtv::exp {
namespace {

Status enable_launch_blocking() {
  const char* value = std::getenv("CUDA_LAUNCH_BLOCKING");
  if (value != nullptr && std::strcmp(value, "1") == 0) return ok_status();
  if (cuda_touched_in_this_process())
    return Error{
        "launch-blocking must be the first GPU run of its process (CUDA reads CUDA_LAUNCH_BLOCKING when "
        "it starts): run it on its own, e.g. gtv-cli run launch-blocking"};
  if (setenv("CUDA_LAUNCH_BLOCKING", "1", 1) != 0) return Error{"cannot set CUDA_LAUNCH_BLOCKING=1"};
  return ok_status();
}

std::string unknown_scenario_message(std::string_view name) {
  std::string message = "unknown scenario '" + std::string(name) + "'; valid scenarios:";
  const char* separator = " ";
  for (const ScenarioInfo& info : list_scenarios()) {
    message += separator + info.name;
    separator = ", ";
  }
  return message;
}

Status validate(const RunConfig& c) {
  auto positive = [](int value, const char* what) -> Status {
    if (value >= 1) return ok_status();
    return Error{std::string(what) + " must be at least 1, got " + std::to_string(value)};
  };
  for (auto s : {positive(c.models, "models"), positive(c.input, "input"), positive(c.output, "output"),
                 positive(c.batch, "batch"), positive(c.iters, "iters")})
    if (!s) return s;
  if (c.hidden < 0) return Error{"hidden must be at least 1 (or 0 for the default), got " + std::to_string(c.hidden)};
  if (c.models > 64) return Error{"models must be at most 64, got " + std::to_string(c.models)};
  if (c.ranks < 0) return Error{"ranks must be at least 1 (or 0 for one per GPU), got " + std::to_string(c.ranks)};
  if (!(c.dropout >= 0.0 && c.dropout < 1.0))
    return Error{"dropout must be in [0, 1), got " + std::to_string(c.dropout)};
  return ok_status();
}

std::string join_devices(const std::vector<int>& devices) {
  std::string text;
  for (int d : devices) text += (text.empty() ? "" : ",") + std::to_string(d);
  return text;
}

void describe_run(ScenarioContext& ctx) {
  const RunConfig& c = ctx.config;
  ctx.host.set_scenario(c.scenario);
  ctx.host.name_current_thread("main");
  ctx.host.set_config("models", std::to_string(c.models));
  ctx.host.set_config("input", std::to_string(c.input));
  ctx.host.set_config("hidden", std::to_string(c.hidden));
  ctx.host.set_config("output", std::to_string(c.output));
  ctx.host.set_config("dropout", std::to_string(c.dropout));
  ctx.host.set_config("batch", std::to_string(c.batch));
  ctx.host.set_config("iters", std::to_string(c.iters));
  ctx.host.set_config("devices", ctx.on_gpu() ? join_devices(ctx.model_devices) : "cpu");
  ctx.host.set_config("warmup", c.warmup ? "true" : "false");
  ctx.host.set_config("all_api", c.all_api ? "true" : "false");
  ctx.host.set_config("trace_ops", c.trace_ops ? "true" : "false");
  record_machine(ctx);
  if (!ctx.engine.timing_events_supported())
    ctx.host.add_note(ctx.on_gpu() ? "CUDA events: not supported by this LibTorch (needs 2.x); not measured"
                                   : "CUDA events: no GPU in this run; not measured");
}

// The scenario inside its Scenario range, with op callbacks, the allocator's counters and GPU tracing around it.
// Never throws.
Status record(ScenarioContext& ctx, const ScenarioEntry& entry) {
  GpuTracing tracing(ctx);
  std::optional<OpTracer> ops;
  if (ctx.config.trace_ops) ops.emplace(ctx.host);
  std::optional<AllocatorCounters> allocator;
  if (ctx.on_gpu()) allocator.emplace(ctx.host, ctx.devices_in_use());
  Status status = ok_status();
  try {
    auto range = ctx.host.scope(std::string(entry.name), RangeKind::Scenario);
    entry.run(ctx);
  } catch (const std::exception& e) {
    status = Error{std::string(entry.name) + ": " + e.what()};
    ctx.host.add_note("run failed: " + std::string(e.what()));
  }
  ops.reset();
  allocator.reset();
  try {
    ctx.engine.synchronize();  // CUPTI delivers a kernel only after it ended
  } catch (const std::exception& e) {
    ctx.host.add_note("synchronize after the run failed: " + std::string(e.what()));
  }
  tracing.stop();
  return status;
}

}  // namespace

int cuda_device_count() {
  try {
    return make_torch_engine(false)->gpu_count();
  } catch (const std::exception&) {
    return 0;
  }
}

Expected<std::vector<int>> assign_devices(int models, int gpu_count, const std::vector<int>& devices) {
  if (gpu_count <= 0) {
    if (!devices.empty()) return Error{"devices " + join_devices(devices) + " requested, but this run has no CUDA GPU"};
    return std::vector<int>(static_cast<std::size_t>(std::max(models, 0)), kCpuDevice);
  }
  for (int d : devices)
    if (d < 0 || d >= gpu_count)
      return Error{"device " + std::to_string(d) + " does not exist: this machine has " + std::to_string(gpu_count) +
                   " CUDA GPU(s), numbered 0.." + std::to_string(gpu_count - 1)};
  std::vector<int> placement;
  for (int m = 0; m < models; ++m)
    placement.push_back(devices.empty() ? m % gpu_count : devices[static_cast<std::size_t>(m) % devices.size()]);
  return placement;
}

RunResult run_scenario(const RunConfig& config, const std::function<void(std::string_view)>& progress) {
  const ScenarioEntry* entry = find_entry(config.scenario);
  if (entry == nullptr) return {std::nullopt, Error{unknown_scenario_message(config.scenario)}};
  if (Status s = validate(config); !s) return {std::nullopt, s};
  std::function<void(std::string_view)> report = progress;
  if (!report) report = [](std::string_view) {};
  if (entry->in_processes) return run_in_processes(config, report);
  std::optional<ProcessGroupConfig> rank;
  if (find_scenario(config.scenario)->ranks) {
    auto from_environment = rank_from_environment();
    if (!from_environment) return {std::nullopt, from_environment.error()};
    if (!*from_environment) return run_in_ranks(config, report);
    rank = **from_environment;
  }
  if (entry->launch_blocking && !config.force_cpu)
    if (Status s = enable_launch_blocking(); !s) return {std::nullopt, s};
  std::unique_ptr<Engine> engine;
  try {
    engine = make_torch_engine(config.force_cpu);
  } catch (const std::exception& e) {
    return {std::nullopt, Error{std::string("LibTorch failed to start: ") + e.what()}};
  }
  Expected<std::vector<int>> placement = std::vector<int>{};
  if (rank) {
    const Expected<int> device = rank_device(*rank, engine->gpu_count(), config.devices);
    if (!device) return {std::nullopt, device.error()};
    placement = std::vector<int>{*device};  // one replica of the model per rank
  } else {
    placement = assign_devices(config.models, engine->gpu_count(), config.devices);
  }
  if (!placement) return {std::nullopt, placement.error()};

  collect::TraceRecorder recorder;
  collect::HostRecorder host(recorder);
  RunConfig resolved = config;
  if (rank) resolved.models = 1;
  if (resolved.hidden == 0) resolved.hidden = engine->cuda_available() ? kDefaultHiddenGpu : kDefaultHiddenCpu;
  const NetShape shape{resolved.input, resolved.hidden, resolved.output, resolved.dropout, resolved.batch};
  ScenarioContext ctx{resolved, shape, std::move(placement.value()), *engine, host, report, rank, {}};
  if (rank)
    if (Status s = prepare_rank(ctx); !s) return {std::nullopt, s};
  if (!engine->cuda_available()) {
    const std::string notice = std::string(config.force_cpu ? "CPU requested" : "no CUDA GPU") +
                               ": running on the CPU with hidden=" + std::to_string(resolved.hidden);
    report(notice);
    host.add_note(notice);
  }
  describe_run(ctx);
  Status status = record(ctx, *entry);
  auto trace = recorder.finish();
  if (!trace) return {std::nullopt, status ? Status(trace.error()) : status};
  return {std::move(trace.value()), status};
}

}  // namespace gtv::exp
