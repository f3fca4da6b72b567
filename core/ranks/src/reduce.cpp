#include "gtv/ranks/reduce.h"

#include <algorithm>
#include <set>

#include "gtv/analysis/report.h"
#include "reduce_parts.h"

namespace gtv::ranks {
namespace {

using detail::Part;

std::string list_of(const std::vector<std::int64_t>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size(); ++i)
    out += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[i]);
  return out;
}

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

// Ranks from distributedInfo, or the order of the summaries when none says; sorted by rank.
Expected<std::vector<Part>> assign_ranks(std::span<const RankSummary> summaries, std::vector<std::string>& warnings) {
  const auto said = [](const RankSummary& s) { return s.distributed.rank >= 0; };
  const auto with_info = static_cast<std::size_t>(std::count_if(summaries.begin(), summaries.end(), said));
  if (with_info != 0 && with_info != summaries.size()) {
    const auto a = std::find_if(summaries.begin(), summaries.end(), said);
    const auto b = std::find_if_not(summaries.begin(), summaries.end(), said);
    return Error{name_of(*a) + " says its rank (distributedInfo) but " + name_of(*b) +
                 " does not: give files that all say it, or none (then the order of the files numbers the ranks)"};
  }
  if (with_info == 0)
    warnings.push_back("no file says its rank (distributedInfo): ranks numbered 0 to " +
                       std::to_string(summaries.size() - 1) + " in the order of the files");
  std::vector<Part> parts;
  for (std::size_t i = 0; i < summaries.size(); ++i)
    parts.push_back({&summaries[i], with_info == 0 ? static_cast<std::int64_t>(i) : summaries[i].distributed.rank});
  std::stable_sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.rank < b.rank; });
  if (Status s = no_rank_twice(parts); !s) return s.error();
  return parts;
}

Expected<std::int64_t> check_world(std::span<const Part> parts, std::vector<std::string>& warnings) {
  const RankSummary* sized = nullptr;
  for (const Part& p : parts) {
    const DistributedInfo& d = p.summary->distributed;
    if (d.world_size <= 0) continue;
    if (sized != nullptr && sized->distributed.world_size != d.world_size)
      return Error{"world sizes disagree: " + name_of(*sized) + " says " +
                   std::to_string(sized->distributed.world_size) + ", " + name_of(*p.summary) + " says " +
                   std::to_string(d.world_size)};
    if (sized == nullptr) sized = p.summary;
    if (sized->distributed.backend != d.backend)
      warnings.push_back("backends differ: " + sized->source + " used \"" + sized->distributed.backend + "\", " +
                         p.summary->source + " \"" + d.backend + "\"");
  }
  const std::int64_t world = sized == nullptr ? static_cast<std::int64_t>(parts.size()) : sized->distributed.world_size;
  for (const Part& p : parts)
    if (p.rank < 0 || p.rank >= world)
      return Error{name_of(*p.summary) + " is rank " + std::to_string(p.rank) + " but the world size is " +
                   std::to_string(world)};
  const std::int64_t missing_count = world - static_cast<std::int64_t>(parts.size());
  std::vector<std::int64_t> missing;
  constexpr std::size_t kNamed = 5;
  // Ranks are sorted and distinct: walk them once for the first few gaps.
  std::size_t next = 0;
  for (std::int64_t r = 0; r < world && missing.size() < kNamed && missing_count > 0; ++r) {
    if (next < parts.size() && parts[next].rank == r) {
      ++next;
      continue;
    }
    missing.push_back(r);
  }
  if (missing_count > 0)
    warnings.push_back("world size " + std::to_string(world) + ", but no file for " +
                       (missing_count == 1
                            ? "rank " + list_of(missing)
                            : std::to_string(missing_count) + " ranks (" + list_of(missing) +
                                  (missing_count > static_cast<std::int64_t>(missing.size()) ? ", ..." : "") + ")") +
                       "; collectives wait for ranks this view does not show");
  return world;
}

TimeNs absolute_start_ns(const RankSummary& s) { return saturating_add(s.origin_unix_ns, s.start_ns); }

std::string gap_text(TimeNs gap_ns) {
  if (gap_ns < 3600 * kNsPerS) return format_duration(gap_ns);
  constexpr TimeNs kTenthHourNs = 360 * kNsPerS;
  const std::int64_t tenths = gap_ns / kTenthHourNs + (gap_ns % kTenthHourNs >= kTenthHourNs / 2 ? 1 : 0);
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " h";
}

Status check_one_run(std::span<const Part> parts, const RankMergeOptions& options) {
  const auto [first, last] = std::minmax_element(parts.begin(), parts.end(), [](const Part& a, const Part& b) {
    return absolute_start_ns(*a.summary) < absolute_start_ns(*b.summary);
  });
  const TimeNs gap = saturating_sub(absolute_start_ns(*last->summary), absolute_start_ns(*first->summary));
  if (!options.allow_far_apart && gap > options.max_start_gap_ns)
    return Error{name_of(*last->summary) + " starts " + gap_text(gap) + " after " + name_of(*first->summary) +
                 ": recordings of different runs?"};
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

// Stragglers from the parts' collectives moved by their shifts; ranks without collectives left out.
analysis::Stragglers stragglers_of(std::span<const Part> parts, const std::vector<TimeNs>& shift_ns,
                                   const ClockAlignment& clock, const CollectiveMatch* match = nullptr) {
  std::vector<std::int64_t> ranks;
  std::vector<std::vector<Collective>> per_rank;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].summary->collectives.empty()) continue;
    ranks.push_back(parts[i].rank);
    std::vector<Collective> list = parts[i].summary->collectives;
    for (Collective& c : list) {
      c.start_ns = saturating_add(c.start_ns, shift_ns[i]);
      c.end_ns = saturating_add(c.end_ns, shift_ns[i]);
    }
    per_rank.push_back(std::move(list));
  }
  // The match of every part holds when every part ran collectives; else the ranks without are left out of it.
  if (match != nullptr && ranks.size() == parts.size())
    return analysis::stragglers_of(std::move(ranks), std::move(per_rank), clock, *match);
  return analysis::stragglers_of(std::move(ranks), std::move(per_rank), clock);
}

Expected<RankReport> reduce_files(std::span<const RankSummary> summaries, const RankMergeOptions& options) {
  RankReport out;
  Expected<std::vector<Part>> assigned = assign_ranks(summaries, out.warnings);
  if (!assigned) return assigned.error();
  std::vector<Part> parts = std::move(assigned).value();
  const Expected<std::int64_t> world = check_world(parts, out.warnings);
  if (!world) return world.error();
  for (const auto& [rank, shift] : options.manual_shift_ns)
    if (std::none_of(parts.begin(), parts.end(), [r = rank](const Part& p) { return p.rank == r; }))
      return Error{"a shift is given for rank " + std::to_string(rank) + ", which no file holds"};
  if (Status s = check_one_run(parts, options); !s) return s.error();
  Expected<detail::Aligned> aligned = detail::align_clocks(parts, options);
  if (!aligned) return aligned.error();
  const std::vector<std::vector<std::int64_t>> devices = merged_devices(parts, out.warnings);
  out.warnings.insert(out.warnings.end(), aligned->warnings.begin(), aligned->warnings.end());

  analysis::TraceSummary& s = out.summary;
  s.distributed = DistributedInfo{-1, *world, parts[0].summary->distributed.backend};
  s.clock = aligned->clock;
  s.origin_unix_ns = parts[0].summary->origin_unix_ns;
  std::vector<TimeNs> shifts;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const Part& p = parts[i];
    s.origin_unix_ns = std::min(s.origin_unix_ns, p.summary->origin_unix_ns);
    shifts.push_back(detail::total_shift(p));
    RankInfo info;
    info.rank = p.rank;
    info.source = p.summary->source;
    info.devices = devices[i];
    info.local_devices = p.summary->devices;
    info.shift_ns = shifts.back();
    info.clock_offset_ns = saturating_add(p.offset_ns, p.manual_ns);
    s.ranks.push_back(std::move(info));
    const TimeNs start = saturating_add(p.summary->start_ns, shifts.back());
    const TimeNs end = saturating_add(p.summary->end_ns, shifts.back());
    s.start_ns = i == 0 ? start : std::min(s.start_ns, start);
    s.end_ns = i == 0 ? end : std::max(s.end_ns, end);
  }
  out.stragglers = stragglers_of(parts, shifts, s.clock, &aligned->match);
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
  out.stragglers = stragglers_of(parts, std::vector<TimeNs>(parts.size(), 0), sum.clock);
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
  return analysis::format_ranks(r, format, listing);
}

}  // namespace gtv::ranks
