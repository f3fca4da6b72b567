#include "gtv/analysis/report.h"

namespace gtv::analysis {
namespace {

std::vector<std::string> headline(const Report& r) {
  std::vector<std::string> out;
  out.push_back(r.concurrency.verdict);
  if (!r.blocking.headline.empty()) out.push_back(r.blocking.headline);
  if (!r.warmup.headline.empty()) out.push_back(r.warmup.headline);
  for (const MeasurementTruth& m : r.timing.measurements) {
    if (out.size() >= 6) break;
    out.push_back(m.verdict);
  }
  return out;
}

}  // namespace

Report analyze(const Trace& trace) {
  Report r;
  r.busy = analyze_busy(trace);
  r.summary = summarize(trace, r.busy);
  r.concurrency = analyze_concurrency(r.busy);
  r.warmup = analyze_warmup(trace);
  r.blocking = analyze_host_blocking(trace);
  r.launches = analyze_launches(trace);
  r.timing = analyze_timing_truth(trace);
  r.kernels = analyze_kernels(trace);
  r.verdict = headline(r);
  return r;
}

}  // namespace gtv::analysis
