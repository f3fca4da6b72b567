#include <algorithm>
#include <memory>
#include <stdexcept>

#include "scenario.h"

namespace gtv::exp {

std::string device_label(int device) {
  return device == kCpuDevice ? std::string("cpu") : "cuda:" + std::to_string(device);
}

std::vector<int> ScenarioContext::devices_in_use() const {
  std::vector<int> devices;
  for (int d : model_devices)
    if (std::find(devices.begin(), devices.end(), d) == devices.end()) devices.push_back(d);
  return devices;
}

void build_models(ScenarioContext& ctx) {
  auto phase = ctx.host.scope("build models", RangeKind::Phase);
  for (int m = 0; m < ctx.model_count(); ++m) {
    ctx.progress("building model " + std::to_string(m) + " on " + device_label(ctx.model_devices[m]));
    (void)ctx.engine.add_model(ctx.shape, ctx.model_devices[m]);
  }
  ctx.engine.synchronize();
}

void forward_in_range(ScenarioContext& ctx, int model, const ForwardOptions& options) {
  const int device = ctx.engine.device_of(model);
  auto range = ctx.host.scope("model " + std::to_string(model) + " forward", RangeKind::Forward, device);
  ctx.engine.forward(model, options);
}

void warm_up(ScenarioContext& ctx, const std::function<void()>& body, const std::string& name) {
  if (!ctx.config.warmup) return;
  ctx.progress(name);
  ctx.phase = name;
  auto range = ctx.host.scope(name, RangeKind::WarmUp);
  body();
  ctx.engine.synchronize();
  ctx.phase.clear();
}

namespace {

// How often iterate says how far it got: often enough that a loop of minutes is seen moving, seldom enough that
// the report (a line to a pipe and to stderr, a few microseconds) adds nothing measurable to a timed loop.
constexpr TimeNs kIterationReportNs = 100'000'000;

}  // namespace

void iterate(ScenarioContext& ctx, const std::function<void(int)>& body) {
  const int iters = ctx.config.iters;
  TimeNs reported_ns = unix_now_ns();
  for (int i = 0; i < iters; ++i) {
    if (ctx.config.cancelled && ctx.config.cancelled()) throw std::runtime_error("cancelled");
    {
      auto range = ctx.host.scope("iteration " + std::to_string(i), RangeKind::Iteration);
      body(i);
    }
    const TimeNs now_ns = unix_now_ns();
    if (now_ns - reported_ns < kIterationReportNs && i + 1 < iters) continue;
    ctx.progress((ctx.phase.empty() ? std::string() : ctx.phase + ": ") + std::to_string(i + 1) + " of " +
                 std::to_string(iters) + " iterations");
    reported_ns = now_ns;
  }
}

void timed(ScenarioContext& ctx, const std::string& name, const std::function<void()>& body, RangeKind kind,
           bool gpu_work) {
  if (ctx.config.before_timed_work) ctx.config.before_timed_work();
  ctx.progress(name);
  ctx.phase = name;
  auto phase = ctx.host.scope(name, kind);
  std::unique_ptr<EventTimer> events = gpu_work ? ctx.engine.start_event_timer() : nullptr;
  const TimeNs start_ns = unix_now_ns();
  body();
  const TimeNs returned_ns = unix_now_ns();
  if (events) events->stop();
  ctx.engine.synchronize();
  const TimeNs synced_ns = unix_now_ns();
  phase.end();
  ctx.phase.clear();
  ctx.host.record_measurement(name, MeasurementMethod::StopwatchNoSync, returned_ns - start_ns, start_ns, returned_ns);
  ctx.host.record_measurement(name, MeasurementMethod::StopwatchSync, synced_ns - start_ns, start_ns, synced_ns);
  if (events)
    ctx.host.record_measurement(name, MeasurementMethod::CudaEvents, events->elapsed_ns(), start_ns, synced_ns);
}

}  // namespace gtv::exp

namespace gtv::exp {

std::vector<int> matmul_sizes(const ScenarioContext& ctx) { return {4, ctx.on_gpu() ? 4000 : ctx.config.hidden}; }

}  // namespace gtv::exp
