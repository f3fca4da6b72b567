// The comparison's note on tracing overhead on the critical path: a compared region that the tracer's own work
// lengthened compares the tracing too.
#include <algorithm>
#include <cstdlib>

#include "gtv/analysis/compare.h"
#include "gtv/analysis/report.h"

namespace gtv::analysis {
namespace {

// Below this share of its basis, a run's tracing overhead on the path does not change what the speedup says.
constexpr double kTracingShareWorthSaying = 0.01;

// The region's saving without tracing overhead (0 when the path met none), or -1 when the basis is not the region
// the path was walked on (within 1%): then the saving says nothing about the basis.
TimeNs tracing_saving_ns(const Report& r, TimeNs basis_ns) {
  const TimeNs region_ns = r.critical.length_ns;
  if (basis_ns <= 0 || region_ns <= 0 || !r.critical.region.from_measurements) return -1;
  if (std::llabs(region_ns - basis_ns) * 100 > basis_ns) return -1;
  for (const CauseSaving& cause : r.critical.causes)
    if (cause.key == "tracing_overhead") return std::max<TimeNs>(cause.saving_ns, 0);
  return 0;
}

}  // namespace

void note_tracing_overhead(Comparison& c, const Report& a, const Report& b) {
  if (c.speedup <= 0 || c.same_run) return;
  const TimeNs saving_a = tracing_saving_ns(a, c.basis_a_ns), saving_b = tracing_saving_ns(b, c.basis_b_ns);
  if (saving_a < 0 || saving_b < 0) return;
  const double share_a = double(saving_a) / double(c.basis_a_ns), share_b = double(saving_b) / double(c.basis_b_ns);
  if (std::max(share_a, share_b) < kTracingShareWorthSaying) return;
  const TimeNs without_a = c.basis_a_ns - saving_a, without_b = c.basis_b_ns - saving_b;
  if (without_a <= 0 || without_b <= 0) return;
  // Per iteration the iteration counts divide both sides alike: the ratio of the totals carries them.
  double scale = c.per_iteration ? double(c.iterations_b) / double(c.iterations_a) : 1.0;
  if (c.per_kernel) scale = double(c.basis_kernels_b) / double(c.basis_kernels_a);
  const double speedup = double(without_a) / double(without_b) * scale;
  std::string line = "Tracing overhead lies on the critical path: removing it would shorten the " + c.basis_what +
                     " of " + c.a.label + " by " + format_duration(saving_a) + " (" + percent(share_a, 1) +
                     ") and of " + c.b.label + " by " + format_duration(saving_b) + " (" + percent(share_b, 1) +
                     "); without it ";
  if (fixed(speedup, 2) == "1.00" && fixed(1.0 / speedup, 2) == "1.00")
    line += "they take the same time";
  else
    line += c.b.label + " would be " + fixed(speedup > 1 ? speedup : 1.0 / speedup, 2) + "x " +
            (speedup > 1 ? "faster" : "slower");
  line += std::string(c.per_iteration ? " per iteration"
                      : c.per_kernel  ? " per kernel instance"
                                      : "") +
          " (" + format_duration(without_a) + " -> " + format_duration(without_b) +
          ", the regions replayed without it).";
  c.warnings.push_back(std::move(line));
}

}  // namespace gtv::analysis
