// Copies of each output to the host: what makes a loop over GPUs serial, and the ways around it.
#include "scenario.h"

namespace gtv::exp {
namespace {

void copy_loop(ScenarioContext& ctx, CopyMode mode) {
  if (!ctx.on_gpu()) ctx.host.add_note("CPU run: outputs already live in host memory, so no copy to the host happens");
  ForwardOptions options;
  options.copy = mode;
  build_models(ctx);
  auto pass = [&] {
    for (int m = 0; m < ctx.model_count(); ++m) forward_in_range(ctx, m, options);
  };
  warm_up(ctx, pass);
  timed(ctx, "timed loop", [&] { iterate(ctx, [&](int) { pass(); }); });
}

}  // namespace

void run_copy_pageable(ScenarioContext& ctx) { copy_loop(ctx, CopyMode::Pageable); }
void run_copy_pageable_nonblocking(ScenarioContext& ctx) { copy_loop(ctx, CopyMode::PageableNonBlocking); }
void run_copy_pinned(ScenarioContext& ctx) { copy_loop(ctx, CopyMode::Pinned); }

void run_copy_batched(ScenarioContext& ctx) {
  if (!ctx.on_gpu()) ctx.host.add_note("CPU run: outputs already live in host memory, so no copy to the host happens");
  ForwardOptions options;
  options.keep_output = true;
  build_models(ctx);
  auto pass = [&] {
    for (int m = 0; m < ctx.model_count(); ++m) forward_in_range(ctx, m, options);
  };
  auto copy_all = [&] {
    auto range = ctx.host.scope("copy outputs to host", RangeKind::Phase);
    ctx.engine.copy_kept_outputs();
  };
  warm_up(ctx, [&] {
    pass();
    copy_all();
  });
  timed(ctx, "timed loop", [&] {
    iterate(ctx, [&](int) { pass(); });
    copy_all();
  });
}

}  // namespace gtv::exp
