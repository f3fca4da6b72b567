#include "gtv/ranks/reduce.h"

#include <algorithm>
#include <array>
#include <limits>
#include <set>

#include "gtv/analysis/report.h"
#include "gtv/base/printable.h"
#include "gtv/model/rank_alignment.h"
#include "gtv/whatif/balanced_ranks.h"
#include "gtv/whatif/rank_work.h"

namespace gtv::ranks {
namespace {

// One rank of the run, in rank order.
struct Part {
  const RankSummary* summary = nullptr;
  std::int64_t rank = 0;
};

// What errors call a summary: the .gtvsum the user gave, else the trace it was made from.
const std::string& name_of(const RankSummary& s) { return s.file.empty() ? s.source : s.file; }

bool default_options(const RankMergeOptions& o) {
  return o.clock == ClockMethod::WallClock &&
         std::all_of(o.manual_shift_ns.begin(), o.manual_shift_ns.end(), [](const auto& s) { return s.second == 0; });
}

Status no_rank_twice(std::span<const Part> parts) {
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (parts[i - 1].rank == parts[i].rank)
      return Error{name_of(*parts[i - 1].summary) + " and " + name_of(*parts[i].summary) + " are both rank " +
                   std::to_string(parts[i].rank)};
  return ok_status();
}

// GPU ids of the merged run: the ranks' own where no two ranks name the same GPU, else numbered 0, 1, ... in rank
// order, one per rank and GPU.
std::vector<std::vector<std::int64_t>> merged_devices(std::span<const Part> parts, std::vector<std::string>& warnings) {
  std::vector<std::vector<std::int64_t>> out;
  std::set<std::int64_t> seen;
  bool shared = false;
  for (const Part& p : parts) {
    out.push_back(p.summary->devices);
    for (std::int64_t d : p.summary->devices) shared = !seen.insert(d).second || shared;
  }
  if (!shared) return out;
  warnings.push_back(
      "ranks name the same GPU ids (each its cuda:0, say) and the files do not say whether that is one GPU "
      "shared by ranks of one host or a GPU each: shown apart, one GPU per rank");
  std::int64_t next = 0;
  for (std::vector<std::int64_t>& list : out)
    for (std::int64_t& d : list) d = next++;
  return out;
}

// The steps of the parts that ran collectives (those in the stragglers), moved by their shifts.
std::vector<RankSteps> rank_steps(std::span<const Part> parts, const std::vector<TimeNs>& shift_ns) {
  std::vector<RankSteps> out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const RankSummary& s = *parts[i].summary;
    if (s.collectives.empty()) continue;
    RankSteps r{saturating_add(s.start_ns, shift_ns[i]), s.steps};
    for (StepWork& w : r.steps) {
      w.start_ns = saturating_add(w.start_ns, shift_ns[i]);
      w.end_ns = saturating_add(w.end_ns, shift_ns[i]);
    }
    out.push_back(std::move(r));
  }
  return out;
}

// Stragglers from the parts' collectives moved by their shifts; ranks without collectives left out.
analysis::Stragglers stragglers_of(std::span<const Part> parts, const std::vector<TimeNs>& shift_ns,
                                   const ClockAlignment& clock, const CollectiveMatch* match = nullptr) {
  std::vector<std::int64_t> ranks;
  std::vector<std::span<const Collective>> per_rank;
  std::vector<TimeNs> shifts;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].summary->collectives.empty()) continue;
    ranks.push_back(parts[i].rank);
    per_rank.emplace_back(parts[i].summary->collectives);
    shifts.push_back(shift_ns[i]);
  }
  // The match of every part holds when every part ran collectives; else the ranks without are left out of it.
  const bool all = ranks.size() == parts.size();
  return analysis::stragglers_of(std::move(ranks), per_rank, shifts, clock, all ? match : nullptr);
}

// The rank's own work at its collective that started at start_ns and ended at end_ns (its own clock); 0 when the
// summary has no such collective.
TimeNs own_work_at(const RankSummary& s, TimeNs start_ns, TimeNs end_ns) {
  const auto by_start = [](const Collective& c, TimeNs t) { return c.start_ns < t; };
  auto it = std::lower_bound(s.collectives.begin(), s.collectives.end(), start_ns, by_start);
  for (; it != s.collectives.end() && it->start_ns == start_ns; ++it) {
    const auto i = static_cast<std::size_t>(it - s.collectives.begin());
    if (it->end_ns == end_ns && i < s.collective_own_work_ns.size()) return s.collective_own_work_ns[i];
  }
  return 0;
}

// balanced-ranks from the summaries: the window as the merged run's (its ranks' windows moved by their shifts,
// joined), each rank's values moved likewise. `devices`: per part, the run's ids of its GPUs in the order of its own.
void predict_balanced(std::span<const Part> parts, const std::vector<TimeNs>& shift_ns,
                      const std::vector<std::vector<std::int64_t>>& devices, bool from_merged_run, RankReport& out) {
  const analysis::Stragglers& st = out.stragglers;
  if (st.ranks.size() < 2) return;
  whatif::BalancedRanksInput in;
  in.backend = parts.empty() ? std::string() : parts[0].summary->distributed.backend;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const RankWindow& w = parts[i].summary->window;
    const TimeNs start = saturating_add(w.start_ns, shift_ns[i]), end = saturating_add(w.end_ns, shift_ns[i]);
    in.window_start_ns = i == 0 ? start : std::min(in.window_start_ns, start);
    in.window_end_ns = i == 0 ? end : std::max(in.window_end_ns, end);
    if (from_merged_run) {
      if (i == 0) names = w.measurements;
      continue;
    }
    for (const std::string& m : w.measurements) names.push_back("rank " + std::to_string(parts[i].rank) + ": " + m);
  }
  in.ranks.resize(st.ranks.size());
  in.own_work_ns.assign(st.collectives.size(), std::vector<TimeNs>(st.ranks.size(), 0));
  for (std::size_t r = 0; r < st.ranks.size(); ++r) {
    std::size_t i = 0;
    while (i < parts.size() && parts[i].rank != st.ranks[r]) ++i;
    if (i == parts.size()) continue;
    const RankSummary& s = *parts[i].summary;
    const RankWindow& w = s.window;
    whatif::BalancedRankWork& rw = in.ranks[r];
    if (w.last_measurement_end_ns != std::numeric_limits<TimeNs>::min())
      rw.last_measurement_end_ns = saturating_add(w.last_measurement_end_ns, shift_ns[i]);
    rw.bound_ns = w.longest_own_work_ns;
    rw.gpu_work_ns = w.gpu_work_ns;
    rw.local_devices = s.devices;
    std::int64_t device = w.longest_own_work_device;
    const auto local = std::find(s.devices.begin(), s.devices.end(), device);
    if (device >= 0 && local != s.devices.end() && !from_merged_run)
      device = devices[i][static_cast<std::size_t>(local - s.devices.begin())];
    rw.bound_what = whatif::bound_text(device, w.longest_own_work_tid);
    for (std::size_t k = 0; k < st.collectives.size(); ++k)
      in.own_work_ns[k][r] = own_work_at(s, saturating_sub(st.collectives[k].arrival_ns[r], shift_ns[i]),
                                         saturating_sub(st.collectives[k].end_ns[r], shift_ns[i]));
  }
  whatif::Prediction p;
  p.window = whatif::window_name(names);
  p.whole_trace = names.empty();
  p.recorded_ns = in.window_end_ns - in.window_start_ns;
  if (Expected<Ok> ok = whatif::predict_balanced_ranks(st, in, p); !ok)
    out.balanced_ranks_error = "balanced-ranks: " + ok.error().message;
  else
    out.balanced_ranks = std::move(p);
}

Expected<RankReport> reduce_files(std::span<const RankSummary> summaries, const RankMergeOptions& options) {
  RankReport out;
  std::vector<RankSide> sides;
  sides.reserve(summaries.size());
  for (const RankSummary& s : summaries)
    sides.push_back({name_of(s), s.source, s.distributed, s.origin_unix_ns, s.start_ns, s.end_ns, s.collectives});
  const Expected<RankRun> run = check_rank_run(sides, options, out.warnings);
  if (!run) return run.error();
  std::vector<Part> parts;
  parts.reserve(run->side.size());
  for (std::size_t r = 0; r < run->side.size(); ++r) parts.push_back({&summaries[run->side[r]], run->rank[r]});
  const std::vector<std::vector<std::int64_t>> devices = merged_devices(parts, out.warnings);
  const Expected<RankClocks> clocks = align_rank_clocks(sides, *run, options, out.warnings);
  if (!clocks) return clocks.error();

  analysis::TraceSummary& s = out.summary;
  s.distributed = DistributedInfo{-1, run->world_size, parts[0].summary->distributed.backend};
  s.clock = clocks->clock;
  s.origin_unix_ns = clocks->origin_unix_ns;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const Part& p = parts[i];
    RankInfo info;
    info.rank = p.rank;
    info.source = p.summary->source;
    info.devices = devices[i];
    info.local_devices = p.summary->devices;
    info.shift_ns = clocks->shift_ns[i];
    info.clock_offset_ns = clocks->clock_offset_ns[i];
    s.ranks.push_back(std::move(info));
    const TimeNs start = saturating_add(p.summary->start_ns, clocks->shift_ns[i]);
    const TimeNs end = saturating_add(p.summary->end_ns, clocks->shift_ns[i]);
    s.start_ns = i == 0 ? start : std::min(s.start_ns, start);
    s.end_ns = i == 0 ? end : std::max(s.end_ns, end);
  }
  out.stragglers = stragglers_of(parts, clocks->shift_ns, s.clock, &run->match);
  out.step_paths = step_paths(out.stragglers, rank_steps(parts, clocks->shift_ns));
  predict_balanced(parts, clocks->shift_ns, devices, false, out);
  return out;
}

// Summaries taken from one merged run: its alignment stands.
Expected<RankReport> reduce_merged(std::span<const RankSummary> summaries, const RankMergeOptions& options) {
  const RankSummary& first = summaries[0];
  for (const RankSummary& s : summaries)
    if (s.source != first.source || s.origin_unix_ns != first.origin_unix_ns || s.merged_clock != first.merged_clock)
      return Error{name_of(first) + " and " + name_of(s) + " are ranks of two different merged runs"};
  if (!default_options(options))
    return Error{first.source +
                 " is a merged run, its clocks already aligned: --clock and --shift apply to the "
                 "summaries of rank files"};
  std::vector<Part> parts;
  for (const RankSummary& s : summaries) parts.push_back({&s, s.merged_rank.rank});
  std::stable_sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.rank < b.rank; });
  if (Status st = no_rank_twice(parts); !st) return st.error();
  RankReport out;
  analysis::TraceSummary& sum = out.summary;
  sum.distributed = DistributedInfo{-1, first.distributed.world_size, first.distributed.backend};
  sum.clock = first.merged_clock;
  sum.origin_unix_ns = first.origin_unix_ns;
  sum.start_ns = first.start_ns;
  sum.end_ns = first.end_ns;
  for (const Part& p : parts) sum.ranks.push_back(p.summary->merged_rank);
  const std::vector<TimeNs> no_shift(parts.size(), 0);
  out.stragglers = stragglers_of(parts, no_shift, sum.clock);
  out.step_paths = step_paths(out.stragglers, rank_steps(parts, no_shift));
  predict_balanced(parts, no_shift, {}, true, out);
  return out;
}

}  // namespace

Expected<RankReport> reduce(std::span<const RankSummary> summaries, const RankMergeOptions& options) {
  if (summaries.empty()) return Error{"no rank summaries to reduce"};
  const std::size_t merged = static_cast<std::size_t>(
      std::count_if(summaries.begin(), summaries.end(), [](const RankSummary& s) { return s.from_merged_run; }));
  if (merged != 0 && merged != summaries.size()) {
    const auto a =
        std::find_if(summaries.begin(), summaries.end(), [](const RankSummary& s) { return s.from_merged_run; });
    const auto b =
        std::find_if(summaries.begin(), summaries.end(), [](const RankSummary& s) { return !s.from_merged_run; });
    return Error{name_of(*a) + " is a merged run and " + name_of(*b) +
                 " a rank's own file: reduce the summaries of one or the other"};
  }
  if (merged != 0) return reduce_merged(summaries, options);
  if (summaries.size() == 1) {
    if (!default_options(options))
      return Error{"--clock and --shift align the summaries of several ranks; one was given"};
    RankReport out;
    out.summary.distributed = summaries[0].distributed;
    out.summary.origin_unix_ns = summaries[0].origin_unix_ns;
    out.summary.start_ns = summaries[0].start_ns;
    out.summary.end_ns = summaries[0].end_ns;
    return out;
  }
  return reduce_files(summaries, options);
}

std::string format_rank_report(const RankReport& report, analysis::Format format, analysis::Listing listing) {
  analysis::Report r;
  r.summary = report.summary;
  r.stragglers = report.stragglers;
  std::string out = analysis::format_ranks(r, format, listing, std::string(kReducedBasis));
  const std::string paths = format_step_paths(report.step_paths, report.stragglers, format, listing);
  std::string balanced;
  if (report.balanced_ranks) {
    const std::array<whatif::Change, 1> change{whatif::Change{whatif::ChangeKind::BalancedRanks, {}, {}}};
    balanced = whatif::format_prediction(*report.balanced_ranks, change, format);
  } else if (!report.balanced_ranks_error.empty()) {
    balanced = format == analysis::Format::Json ? "{\"error\": " + json_quoted(report.balanced_ranks_error) + "}"
                                                : "\nWhat if: " + report.balanced_ranks_error + "\n";
  }
  if (format != analysis::Format::Json) {
    if (!balanced.empty() && format == analysis::Format::Text && balanced.front() != '\n') balanced.insert(0, "\n");
    if (!balanced.empty() && format == analysis::Format::Markdown) balanced.insert(0, "\n");
    return out + paths + balanced;
  }
  // Into the report's top-level object, as its last fields.
  std::string fields;
  if (!paths.empty()) fields += ",\n  \"critical_path_across_ranks\": " + paths;
  if (!balanced.empty()) {
    while (!balanced.empty() && (balanced.back() == '\n' || balanced.back() == ' ')) balanced.pop_back();
    fields += ",\n  \"balanced_ranks\": " + balanced;
  }
  if (fields.empty()) return out;
  const std::size_t close = out.rfind('}');
  if (close == std::string::npos) return out;
  std::size_t before = close;
  while (before > 0 && (out[before - 1] == '\n' || out[before - 1] == ' ')) --before;
  return out.substr(0, before) + fields + "\n}\n";
}

}  // namespace gtv::ranks
