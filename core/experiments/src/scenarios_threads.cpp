// The seed's multi-threaded inference: one host thread per model.
#include <exception>
#include <optional>
#include <thread>

#include "scenario.h"

namespace gtv::exp {
namespace {

// Runs passes forwards of every model, each model on its own host thread; rethrows the first worker failure.
void run_on_threads(ScenarioContext& ctx, const ForwardOptions& options, int passes, bool iteration_ranges) {
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(ctx.model_count()));
  std::vector<std::thread> workers;
  for (int m = 0; m < ctx.model_count(); ++m) {
    workers.emplace_back([&ctx, &options, &failures, m, passes, iteration_ranges] {
      try {
        ctx.host.name_current_thread("model " + std::to_string(m) + " worker");
        for (int i = 0; i < passes; ++i) {
          std::optional<collect::HostRecorder::Scope> range;
          if (iteration_ranges) range.emplace(ctx.host.scope("iteration " + std::to_string(i), RangeKind::Iteration));
          forward_in_range(ctx, m, options);
        }
      } catch (...) {
        failures[static_cast<std::size_t>(m)] = std::current_exception();
      }
    });
  }
  for (auto& worker : workers) worker.join();
  for (const auto& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

void threaded(ScenarioContext& ctx, const ForwardOptions& options) {
  build_models(ctx);
  if (options.use_stream) ctx.engine.create_model_streams();
  warm_up(ctx, [&] { run_on_threads(ctx, options, 1, false); });
  timed(ctx, "timed loop", [&] { run_on_threads(ctx, options, ctx.config.iters, true); });
}

}  // namespace

void run_threads(ScenarioContext& ctx) { threaded(ctx, {}); }

void run_threads_streams(ScenarioContext& ctx) {
  ForwardOptions options;
  options.use_stream = true;
  if (!ctx.on_gpu()) ctx.host.add_note("threads-streams: the CPU has no streams; as threads");
  threaded(ctx, options);
}

}  // namespace gtv::exp
