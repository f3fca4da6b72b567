// Warm-up and timing: what a first call costs, how the CPU compares, and what each timing method reports.
#include "scenario.h"

namespace gtv::exp {
namespace {

std::string product_name(const char* which, int n, int device) {
  return std::string(which) + " matmul N=" + std::to_string(n) + " on " + device_label(device);
}

// iters products on device after one untimed warm-up product.
void time_products(ScenarioContext& ctx, int device, int n) {
  ctx.engine.prepare_matmul(device, n);
  warm_up(
      ctx, [&] { ctx.engine.matmul(device, n); }, "warm-up " + product_name("first", n, device));
  const std::string name =
      std::to_string(ctx.config.iters) + " x matmul N=" + std::to_string(n) + " on " + device_label(device);
  auto loop = [&] { iterate(ctx, [&](int) { ctx.engine.matmul(device, n); }); };
  timed(ctx, name, loop, RangeKind::Phase, device != kCpuDevice);
}

}  // namespace

void run_timing_methods(ScenarioContext& ctx) {
  ctx.model_devices.resize(1);
  ctx.host.add_note("timing-methods times one model (model 0 on " + device_label(ctx.model_devices[0]) + ")");
  build_models(ctx);
  warm_up(ctx, [&] { forward_in_range(ctx, 0, {}); });
  timed(ctx, "timed work", [&] { iterate(ctx, [&](int) { forward_in_range(ctx, 0, {}); }); });
}

// First against second product at a small and a large size on each device in use, then the first against a
// later forward of model 0. The first calls are WarmUp ranges: the GPU trace shows context creation, lazy
// kernel loading and cuBLAS set-up inside them.
void run_warmup(ScenarioContext& ctx) {
  for (int device : ctx.devices_in_use()) {
    {
      auto range = ctx.host.scope("first use of " + device_label(device) + " (operands)", RangeKind::WarmUp);
      for (int n : matmul_sizes(ctx)) ctx.engine.prepare_matmul(device, n);
      ctx.engine.synchronize();
    }
    for (int n : matmul_sizes(ctx)) {
      const bool gpu_work = device != kCpuDevice;
      auto product = [&] { ctx.engine.matmul(device, n); };
      timed(ctx, product_name("first", n, device), product, RangeKind::WarmUp, gpu_work);
      timed(ctx, product_name("second", n, device), product, RangeKind::Phase, gpu_work);
    }
  }
  ctx.model_devices.resize(1);
  build_models(ctx);
  timed(
      ctx, "first forward of model 0", [&] { forward_in_range(ctx, 0, {}); }, RangeKind::WarmUp);
  timed(ctx, "second forward of model 0", [&] { forward_in_range(ctx, 0, {}); });
}

void run_cpu_vs_gpu(ScenarioContext& ctx) {
  if (!ctx.on_gpu()) ctx.host.add_note("cpu-vs-gpu: no GPU in this run, only the CPU side ran");
  for (int n : matmul_sizes(ctx)) {
    time_products(ctx, kCpuDevice, n);
    if (ctx.on_gpu())
      for (int device : ctx.devices_in_use()) time_products(ctx, device, n);
  }
}

}  // namespace gtv::exp
