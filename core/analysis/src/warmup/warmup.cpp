#include "gtv/analysis/warmup.h"

#include <algorithm>
#include <array>
#include <tuple>

#include "warmup/warmup_parts.h"

namespace gtv::analysis {
namespace {

std::vector<WarmUpCauseTotal> totals_of(const std::vector<WarmUpFinding>& findings) {
  std::array<WarmUpCauseTotal, kWarmUpCauseCount> totals{};
  std::array<std::vector<Interval>, kWarmUpCauseCount> spans{};
  for (const WarmUpFinding& f : findings) {
    const auto c = static_cast<std::size_t>(f.cause);
    WarmUpCauseTotal& t = totals[c];
    t.cause = f.cause;
    t.count += f.count;
    ++t.finding_count;
    if (f.on_gpu)
      t.cost_ns += f.cost_ns;  // excess over the steady runs: a sum, the spans are not the cost
    else
      spans[c].insert(spans[c].end(), f.spans.begin(), f.spans.end());
    if (std::find(t.devices.begin(), t.devices.end(), f.device) == t.devices.end()) t.devices.push_back(f.device);
  }
  std::vector<WarmUpCauseTotal> out;
  for (std::size_t c = 0; c < totals.size(); ++c) {
    if (totals[c].finding_count == 0) continue;
    if (!spans[c].empty()) totals[c].cost_ns += total_length_ns(merged(std::move(spans[c])));
    std::sort(totals[c].devices.begin(), totals[c].devices.end());
    out.push_back(std::move(totals[c]));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const WarmUpCauseTotal& a, const WarmUpCauseTotal& b) { return a.cost_ns > b.cost_ns; });
  return out;
}

TimeNs host_cost_of(const std::vector<WarmUpFinding>& findings) {
  std::vector<Interval> all;
  for (const WarmUpFinding& f : findings)
    if (!f.on_gpu) all.insert(all.end(), f.spans.begin(), f.spans.end());
  return total_length_ns(merged(std::move(all)));
}

}  // namespace

std::string_view to_string(WarmUpCause cause) { return entry_of(kWarmUpCauses, cause).words; }

std::string_view warmup_cause_key(WarmUpCause cause) { return entry_of(kWarmUpCauses, cause).key; }

WarmUp analyze_warmup(const Trace& trace) {
  return analyze_warmup(trace, region_of_interest(trace, analyze_timing_truth(trace)));
}

WarmUp analyze_warmup(const Trace& trace, const Region& region) {
  WarmUp w;
  const detail::LaneLaunches launches = detail::launches_by_lane(trace);
  w.findings = detail::find_first_use_calls(trace, launches);
  for (WarmUpFinding& f : detail::find_slow_first_kernels(trace)) w.findings.push_back(std::move(f));
  std::stable_sort(w.findings.begin(), w.findings.end(), [](const WarmUpFinding& a, const WarmUpFinding& b) {
    return std::tie(a.start_ns, a.on_gpu, a.pid, a.tid, a.cause) <
           std::tie(b.start_ns, b.on_gpu, b.pid, b.tid, b.cause);
  });
  w.causes = totals_of(w.findings);
  w.host_cost_ns = host_cost_of(w.findings);
  w.iterations = detail::compare_first_iterations(trace, launches);
  detail::add_first_use_inside(w.iterations, w.findings);
  w.memory = detail::find_memory_growth(trace, region, w.iterations);
  w.lines = detail::warmup_lines(trace, w);
  w.headline = detail::warmup_headline(trace, w);
  return w;
}

TimeNs warmup_host_cost_within(const WarmUp& warmup, std::span<const Interval> spans) {
  std::vector<Interval> host;
  for (const WarmUpFinding& f : warmup.findings)
    if (!f.on_gpu) host.insert(host.end(), f.spans.begin(), f.spans.end());
  return intersection_length_ns(merged(std::move(host)), spans);
}

TimeNs warmup_host_cost_within(const WarmUp& warmup, TimeNs start_ns, TimeNs end_ns) {
  std::vector<Interval> spans;
  for (const WarmUpFinding& f : warmup.findings)
    if (!f.on_gpu) spans.insert(spans.end(), f.spans.begin(), f.spans.end());
  return length_within_ns(merged(std::move(spans)), start_ns, end_ns);
}

}  // namespace gtv::analysis
