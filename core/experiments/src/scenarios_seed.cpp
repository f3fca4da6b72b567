// The seed's own experiment: three models called from one host thread, the ways the seed tried.
#include <stdexcept>

#include "scenario.h"

namespace gtv::exp {
namespace {

void forward_all(ScenarioContext& ctx, const ForwardOptions& options) {
  for (int m = 0; m < ctx.model_count(); ++m) forward_in_range(ctx, m, options);
}

// Build, warm up with one pass over the models, then the timed loop of config.iters passes.
void loop_over_models(ScenarioContext& ctx, const ForwardOptions& options) {
  build_models(ctx);
  if (options.use_stream) ctx.engine.create_model_streams();
  warm_up(ctx, [&] { forward_all(ctx, options); });
  timed(ctx, "timed loop", [&] { iterate(ctx, [&](int) { forward_all(ctx, options); }); });
}

}  // namespace

void run_baseline(ScenarioContext& ctx) {
  build_models(ctx);
  warm_up(ctx, [&] { forward_all(ctx, {}); });
  for (int m = 0; m < ctx.model_count(); ++m) {
    const std::string name = "model " + std::to_string(m) + " alone (" + device_label(ctx.engine.device_of(m)) + ")";
    timed(ctx, name, [&] { iterate(ctx, [&](int) { forward_in_range(ctx, m, {}); }); });
  }
}

void run_sequential(ScenarioContext& ctx) { loop_over_models(ctx, {}); }

void run_sequential_to(ScenarioContext& ctx) {
  ForwardOptions options;
  options.redundant_to = true;
  loop_over_models(ctx, options);
}

void run_list(ScenarioContext& ctx) {
  ForwardOptions options;
  options.keep_output = true;
  build_models(ctx);
  auto pass = [&] {
    ctx.engine.clear_kept_outputs();  // a fresh list of outputs each iteration, as the seed's method 3
    forward_all(ctx, options);
  };
  warm_up(ctx, pass);
  timed(ctx, "timed loop", [&] { iterate(ctx, [&](int) { pass(); }); });
  ctx.engine.clear_kept_outputs();
}

// The runner has set CUDA_LAUNCH_BLOCKING=1 before CUDA started: each launch returns only when its kernel is done.
void run_launch_blocking(ScenarioContext& ctx) {
  ctx.host.add_note(ctx.on_gpu() ? "CUDA_LAUNCH_BLOCKING=1: every launch waited for its kernel"
                                 : "launch-blocking: CUDA_LAUNCH_BLOCKING has no effect on the CPU; as sequential");
  loop_over_models(ctx, {});
}

// The seed's loop with each model's forward captured once as a CUDA graph and replayed: the GPU runs the same
// kernels, the host launches each forward with one cudaGraphLaunch instead of one launch per kernel.
void run_cuda_graph(ScenarioContext& ctx) {
  if (!ctx.on_gpu())
    throw std::runtime_error("CUDA graphs capture GPU work and this run has no CUDA GPU (nothing was replayed)");
  if (!ctx.engine.cuda_graphs_supported())
    throw std::runtime_error(
        "this LibTorch has no CUDA graphs (at::cuda::CUDAGraph comes with LibTorch built with CUDA)");
  build_models(ctx);
  {
    // Set-up the steady state does not pay: the capture (and the forward before it) happens once per model.
    auto range = ctx.host.scope("capture graphs", RangeKind::WarmUp);
    for (int m = 0; m < ctx.model_count(); ++m) {
      ctx.progress("capturing model " + std::to_string(m) + "'s forward as a CUDA graph on " +
                   device_label(ctx.engine.device_of(m)));
      auto capture =
          ctx.host.scope("capture model " + std::to_string(m) + " graph", RangeKind::Phase, ctx.engine.device_of(m));
      ctx.engine.capture_forward_graph(m);
    }
    ctx.engine.synchronize();
  }
  ForwardOptions options;
  options.replay_graph = true;
  warm_up(ctx, [&] { forward_all(ctx, options); });
  timed(ctx, "timed loop", [&] { iterate(ctx, [&](int) { forward_all(ctx, options); }); });
}

void run_streams(ScenarioContext& ctx) {
  ForwardOptions options;
  options.use_stream = true;
  if (!ctx.on_gpu()) ctx.host.add_note("streams: the CPU has no streams; the models ran one after another");
  loop_over_models(ctx, options);
}

}  // namespace gtv::exp
