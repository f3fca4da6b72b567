#include "gtv/analysis/compare.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "gtv/analysis/concurrency.h"
#include "gtv/analysis/host_blocking.h"
#include "gtv/analysis/kernel_stats.h"

namespace gtv::analysis {
namespace {

std::vector<KernelDiff> kernel_diffs(const KernelStats& a, const KernelStats& b) {
  std::map<std::string, KernelDiff> by_full;  // joined by full name: the same kernel in both runs
  for (const KernelStat& k : a.kernels) {
    KernelDiff& d = by_full[k.full_name];
    d.name = k.name;
    d.full_name = k.full_name;
    d.count_a = k.count;
    d.total_a_ns = k.total_ns;
  }
  for (const KernelStat& k : b.kernels) {
    KernelDiff& d = by_full[k.full_name];
    if (d.name.empty()) d.name = k.name;
    d.full_name = k.full_name;
    d.count_b = k.count;
    d.total_b_ns = k.total_ns;
  }
  std::vector<KernelDiff> out;
  for (auto& [full, d] : by_full) {
    d.delta_ns = d.total_b_ns - d.total_a_ns;
    out.push_back(std::move(d));
  }
  std::stable_sort(out.begin(), out.end(), [](const KernelDiff& x, const KernelDiff& y) {
    return std::abs(x.delta_ns) > std::abs(y.delta_ns);
  });
  return out;
}

std::string verdict_for(const Comparison& c) {
  if (c.a.wall_ns == 0 || c.b.wall_ns == 0)
    return "Cannot compare wall times: " + std::string(c.a.wall_ns == 0 ? c.a.label : c.b.label) + " is empty.";
  std::string head;
  if (c.speedup > 1.005)
    head = c.b.label + " is " + fixed(c.speedup, 2) + "x faster than " + c.a.label;
  else if (c.speedup < 0.995)
    head = c.b.label + " is " + fixed(1.0 / c.speedup, 2) + "x slower than " + c.a.label;
  else
    head = c.a.label + " and " + c.b.label + " take the same time";
  return head + " (" + format_duration(c.b.wall_ns) + " vs " + format_duration(c.a.wall_ns) +
         " wall); GPU overlap " + format_duration(c.a.overlap_ns) + " -> " + format_duration(c.b.overlap_ns) +
         "; effective parallelism " + fixed(c.a.effective_parallelism, 2) + " -> " +
         fixed(c.b.effective_parallelism, 2) + ".";
}

}  // namespace

RunFigures run_figures(const Trace& trace, std::string label) {
  RunFigures f;
  f.label = std::move(label);
  f.wall_ns = trace.end_ns() - trace.start_ns();
  const Concurrency c = analyze_concurrency(trace);
  f.gpu_busy_ns = c.any_busy_ns;
  f.gpu_busy_sum_ns = c.sum_busy_ns;
  f.overlap_ns = c.overlap_ns;
  f.effective_parallelism = c.effective_parallelism;
  f.gpu_count = c.gpu_count;
  f.host_blocked_ns = analyze_host_blocking(trace).total_blocked_ns;
  return f;
}

Comparison compare(const Trace& a, const Trace& b, std::string label_a, std::string label_b) {
  Comparison c;
  c.a = run_figures(a, std::move(label_a));
  c.b = run_figures(b, std::move(label_b));
  const KernelStats ka = analyze_kernels(a), kb = analyze_kernels(b);
  c.a.kernel_ns = ka.total_kernel_ns;
  c.a.kernel_count = ka.kernel_count;
  c.b.kernel_ns = kb.total_kernel_ns;
  c.b.kernel_count = kb.kernel_count;
  c.speedup = safe_ratio(double(c.a.wall_ns), double(c.b.wall_ns));
  c.kernels = kernel_diffs(ka, kb);
  c.verdict = verdict_for(c);
  return c;
}

}  // namespace gtv::analysis
