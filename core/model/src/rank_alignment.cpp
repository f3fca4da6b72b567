#include "gtv/model/rank_alignment.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "gtv/model/collective_clock.h"

namespace gtv {
namespace {

// Sums and differences of times from several files (each inside the trace time range, so a sum of a few never
// leaves 128 bits), clamped back to int64 where a value is only reported.
__extension__ using Wide = __int128;
TimeNs clamp_to_ns(Wide v) {
  if (v > std::numeric_limits<TimeNs>::max()) return std::numeric_limits<TimeNs>::max();
  if (v < std::numeric_limits<TimeNs>::min()) return std::numeric_limits<TimeNs>::min();
  return static_cast<TimeNs>(v);
}

std::string signed_duration(TimeNs ns) {
  return (ns < 0 ? "-" : "+") + format_duration(ns < 0 ? saturating_sub(0, ns) : ns);
}

std::string list_of(const std::vector<std::int64_t>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size(); ++i)
    out += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[i]);
  return out;
}

// Ranks from distributedInfo, or the order of the sides when none says; sorted by rank, none twice.
Status assign_ranks(std::span<const RankSide> sides, RankRun& run, std::vector<std::string>& warnings) {
  const auto said = [](const RankSide& s) { return s.distributed.rank >= 0; };
  const auto with_info = static_cast<std::size_t>(std::count_if(sides.begin(), sides.end(), said));
  if (with_info != 0 && with_info != sides.size()) {
    const auto a = std::find_if(sides.begin(), sides.end(), said);
    const auto b = std::find_if_not(sides.begin(), sides.end(), said);
    return Error{a->name + " says its rank (distributedInfo) but " + b->name +
                 " does not: give files that all say it, or none (then the order of the files numbers the ranks)"};
  }
  if (with_info == 0)
    warnings.push_back("no file says its rank (distributedInfo): ranks numbered 0 to " +
                       std::to_string(sides.size() - 1) + " in the order of the files");
  const auto rank_of = [&](std::size_t i) {
    return with_info == 0 ? static_cast<std::int64_t>(i) : sides[i].distributed.rank;
  };
  run.side.resize(sides.size());
  std::iota(run.side.begin(), run.side.end(), std::size_t{0});
  std::stable_sort(run.side.begin(), run.side.end(),
                   [&](std::size_t a, std::size_t b) { return rank_of(a) < rank_of(b); });
  for (std::size_t i : run.side) run.rank.push_back(rank_of(i));
  for (std::size_t i = 1; i < run.rank.size(); ++i)
    if (run.rank[i - 1] == run.rank[i])
      return Error{sides[run.side[i - 1]].name + " and " + sides[run.side[i]].name + " are both rank " +
                   std::to_string(run.rank[i])};
  return ok_status();
}

Status check_world(std::span<const RankSide> sides, RankRun& run, std::vector<std::string>& warnings) {
  const RankSide* sized = nullptr;
  for (std::size_t i : run.side) {
    const DistributedInfo& d = sides[i].distributed;
    if (d.world_size <= 0) continue;
    if (sized != nullptr && sized->distributed.world_size != d.world_size)
      return Error{"world sizes disagree: " + sized->name + " says " + std::to_string(sized->distributed.world_size) +
                   ", " + sides[i].name + " says " + std::to_string(d.world_size)};
    if (sized == nullptr) sized = &sides[i];
    if (sized->distributed.backend != d.backend)
      warnings.push_back("backends differ: " + sized->source + " used \"" + sized->distributed.backend + "\", " +
                         sides[i].source + " \"" + d.backend + "\"");
  }
  const std::int64_t world = sized == nullptr ? static_cast<std::int64_t>(sides.size()) : sized->distributed.world_size;
  for (std::size_t k = 0; k < run.rank.size(); ++k)
    if (run.rank[k] < 0 || run.rank[k] >= world)
      return Error{sides[run.side[k]].name + " is rank " + std::to_string(run.rank[k]) + " but the world size is " +
                   std::to_string(world)};
  // Ranks are distinct and inside the world, so world - sides are missing; the first few are named (a file may
  // claim a world of 10^12 ranks: the walk stops after them).
  const std::int64_t missing_count = world - static_cast<std::int64_t>(sides.size());
  std::vector<std::int64_t> missing;
  constexpr std::size_t kNamed = 5;
  std::size_t next = 0;
  for (std::int64_t r = 0; r < world && missing.size() < kNamed && missing_count > 0; ++r) {
    if (next < run.rank.size() && run.rank[next] == r) {
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
  run.world_size = world;
  return ok_status();
}

// Absolute start of a side's recording, in Unix ns.
TimeNs absolute_start_ns(const RankSide& s) { return saturating_add(s.origin_unix_ns, s.start_ns); }

// "3.0 h" for gaps of an hour or more, else as format_duration writes it.
std::string gap_text(TimeNs gap_ns) {
  if (gap_ns < 3600 * kNsPerS) return format_duration(gap_ns);
  constexpr TimeNs kTenthHourNs = 360 * kNsPerS;
  const std::int64_t tenths = gap_ns / kTenthHourNs + (gap_ns % kTenthHourNs >= kTenthHourNs / 2 ? 1 : 0);
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " h";
}

Status check_one_run(std::span<const RankSide> sides, const RankRun& run, const RankMergeOptions& options) {
  const auto [first, last] = std::minmax_element(run.side.begin(), run.side.end(), [&](std::size_t a, std::size_t b) {
    return absolute_start_ns(sides[a]) < absolute_start_ns(sides[b]);
  });
  const TimeNs gap = saturating_sub(absolute_start_ns(sides[*last]), absolute_start_ns(sides[*first]));
  if (!options.allow_far_apart && gap > options.max_start_gap_ns)
    return Error{sides[*last].name + " starts " + gap_text(gap) + " after " + sides[*first].name +
                 ": recordings of different runs?"};
  return ok_status();
}

std::vector<std::span<const Collective>> collectives_in_rank_order(std::span<const RankSide> sides,
                                                                   const RankRun& run) {
  std::vector<std::span<const Collective>> out;
  out.reserve(run.side.size());
  for (std::size_t i : run.side) out.push_back(sides[i].collectives);
  return out;
}

// A rank's way onto the run's clock: the difference of origins (wall clock), the method's alignment on top of it
// and the shift by hand.
struct Shift {
  TimeNs origin_ns = 0;
  TimeNs offset_ns = 0;
  TimeNs manual_ns = 0;
  [[nodiscard]] TimeNs total() const { return clamp_to_ns(Wide{origin_ns} + offset_ns + manual_ns); }
};

std::vector<TimeNs> totals(std::span<const Shift> shifts) {
  std::vector<TimeNs> out;
  out.reserve(shifts.size());
  for (const Shift& s : shifts) out.push_back(s.total());
  return out;
}

// Largest spread of the ends of one matched collective that ends together (all-reduce, all-gather, reduce-scatter,
// barrier: a broadcast's root ends early by design), and how many there were; residual -1 without any.
ClockAlignment residual(std::span<const std::span<const Collective>> per_rank, const CollectiveMatch& match,
                        std::span<const Shift> shifts) {
  ClockAlignment out;
  const auto end_on_clock = [&](std::size_t r, const MatchedCollective& m) {
    const Shift& s = shifts[r];
    return Wide{per_rank[r][m.index[r]].end_ns} + s.origin_ns + s.offset_ns + s.manual_ns;
  };
  for (const MatchedCollective& m : match.matched) {
    if (!measures_clocks(m.kind)) continue;
    ++out.collectives_checked;
    Wide lo = end_on_clock(0, m), hi = lo;
    for (std::size_t r = 1; r < per_rank.size(); ++r) {
      lo = std::min(lo, end_on_clock(r, m));
      hi = std::max(hi, end_on_clock(r, m));
    }
    out.residual_ns = std::max(out.residual_ns, clamp_to_ns(hi - lo));
  }
  return out;
}

// "rank 1 -302.0 us +/- 1.00 us, rank 2 ..." from an estimate.
std::string offsets_text(const RankRun& run, std::span<const Shift> shifts, const ClockEstimate& estimate, bool moved) {
  std::string out;
  for (std::size_t r = 1; r < run.rank.size(); ++r) {
    const RankClockEstimate& e = estimate.ranks[r];
    const TimeNs offset = moved ? shifts[r].offset_ns : e.offset_ns;
    out += (r == 1 ? "" : ", ") + std::string("rank ") + std::to_string(run.rank[r]) + " " + signed_duration(offset) +
           " +/- " + format_duration(e.uncertainty_ns);
  }
  return out;
}

// On the wall clock, a rank whose collectives end much further from the reference's than their spread allows: its
// host's clock is off, and every wait measured across ranks with it.
void warn_misaligned(const RankRun& run, const ClockEstimate& estimate, std::vector<std::string>& warnings) {
  const std::int64_t worst = estimate.misaligned_rank();
  if (worst < 0) return;
  const RankClockEstimate& e = estimate.ranks[static_cast<std::size_t>(worst)];
  const TimeNs magnitude = e.offset_ns < 0 ? saturating_sub(0, e.offset_ns) : e.offset_ns;
  warnings.push_back("rank " + std::to_string(run.rank[static_cast<std::size_t>(worst)]) + "'s " +
                     estimate.basis_words() + " end " + format_duration(magnitude) +
                     (e.offset_ns < 0 ? " before" : " after") + " rank " + std::to_string(run.rank[0]) +
                     "'s on the wall clock, yet agree within +/- " + format_duration(e.uncertainty_ns) +
                     " of that: the clocks disagree and waits across ranks are wrong by as much; merge with "
                     "--clock collectives");
}

// Every rank's times, moved onto the run's clock, must stay inside the trace time range like any trace's times.
// The shift and its parts (origin difference, alignment) are written into a merged file's rank table, which is
// read back under the same rule.
Status check_shifted_range(std::span<const RankSide> sides, const RankRun& run, std::span<const Shift> shifts) {
  for (std::size_t r = 0; r < shifts.size(); ++r) {
    const RankSide& side = sides[run.side[r]];
    const Shift& s = shifts[r];
    const Wide alignment = Wide{s.offset_ns} + s.manual_ns;
    const Wide shift = Wide{s.origin_ns} + alignment;
    const Wide first = Wide{side.start_ns} + shift;
    const Wide last = Wide{side.end_ns} + shift;
    const auto outside = [](Wide v) { return v < kMinTraceTimeNs || v > kMaxTraceTimeNs; };
    if (outside(s.origin_ns) || outside(alignment) || outside(shift) || outside(first) || outside(last))
      return Error{"rank " + std::to_string(run.rank[r]) + " (" + side.source + ") moved by " +
                   signed_duration(clamp_to_ns(shift)) +
                   " onto the merged clock would leave the accepted time range [-2^62, 2^62) ns"};
  }
  return ok_status();
}

std::string describe(const RankMergeOptions& options, const RankRun& run, std::span<const Shift> shifts,
                     const ClockAlignment& check, const ClockEstimate& estimate) {
  std::string basis;
  if (options.clock == ClockMethod::WallClock) {
    basis =
        "Each rank's own timestamps on its host's wall clock (baseTimeNanoseconds + ts): exact between ranks "
        "of one host, off by the hosts' clock difference otherwise";
  } else {
    basis = "Ranks moved so that matched collectives end together: each rank by the median, over " +
            estimate.basis_words() + ", of its end against rank " + std::to_string(run.rank[0]) + "'s (" +
            offsets_text(run, shifts, estimate, true) + ")";
  }
  for (const auto& [rank, shift] : options.manual_shift_ns)
    if (shift != 0) basis += "; rank " + std::to_string(rank) + " moved " + signed_duration(shift) + " by hand";
  if (check.residual_ns >= 0) {
    basis += ". After alignment the ends of one collective differ by at most " + format_duration(check.residual_ns) +
             " between ranks (" + estimate.basis_words() + "; broadcasts and reduces end apart by design)";
    if (options.clock == ClockMethod::WallClock)
      basis += "; measured on them, the clocks read against rank " + std::to_string(run.rank[0]) +
               "'s: " + offsets_text(run, shifts, estimate, false);
  } else {
    basis +=
        ". No all-reduce, all-gather, reduce-scatter or barrier ran on every rank, so the alignment could not "
        "be checked";
  }
  return basis + ".";
}

}  // namespace

Expected<RankRun> check_rank_run(std::span<const RankSide> sides, const RankMergeOptions& options,
                                 std::vector<std::string>& warnings) {
  RankRun run;
  if (Status s = assign_ranks(sides, run, warnings); !s) return s.error();
  if (Status s = check_world(sides, run, warnings); !s) return s.error();
  for (const auto& [rank, shift] : options.manual_shift_ns)
    if (!std::binary_search(run.rank.begin(), run.rank.end(), rank))
      return Error{"a shift is given for rank " + std::to_string(rank) + ", which no file holds"};
  if (Status s = check_one_run(sides, run, options); !s) return s.error();
  std::vector<std::string> names;
  names.reserve(run.rank.size());
  for (std::int64_t r : run.rank) names.push_back("rank " + std::to_string(r));
  run.match = match_collectives(collectives_in_rank_order(sides, run), names);
  if (!run.match.sequence_doubt.empty()) warnings.push_back("collectives are matched by " + match_basis(run.match));
  return run;
}

Expected<RankClocks> align_rank_clocks(std::span<const RankSide> sides, const RankRun& run,
                                       const RankMergeOptions& options, std::vector<std::string>& warnings) {
  RankClocks out;
  out.origin_unix_ns = sides[run.side[0]].origin_unix_ns;
  for (std::size_t i : run.side) out.origin_unix_ns = std::min(out.origin_unix_ns, sides[i].origin_unix_ns);
  std::vector<Shift> shifts(run.side.size());
  for (std::size_t r = 0; r < shifts.size(); ++r)
    shifts[r].origin_ns = saturating_sub(sides[run.side[r]].origin_unix_ns, out.origin_unix_ns);
  const std::vector<std::span<const Collective>> per_rank = collectives_in_rank_order(sides, run);
  if (options.clock == ClockMethod::Collectives) {
    const ClockEstimate estimate = estimate_clocks(per_rank, run.match, totals(shifts));
    if (estimate.collectives == 0)
      return Error{
          "no all-reduce, all-gather, reduce-scatter or barrier ran on every rank: nothing to align the clocks "
          "on (broadcasts and reduces do not end together; use the wall clock)"};
    for (std::size_t r = 1; r < shifts.size(); ++r)
      shifts[r].offset_ns = saturating_sub(0, estimate.ranks[r].offset_ns);
  }
  for (std::size_t r = 0; r < shifts.size(); ++r)
    if (const auto it = options.manual_shift_ns.find(run.rank[r]); it != options.manual_shift_ns.end())
      shifts[r].manual_ns = it->second;
  if (Status s = check_shifted_range(sides, run, shifts); !s) return s.error();
  out.clock = residual(per_rank, run.match, shifts);
  // What the collectives say of the clocks as aligned: offsets near zero, within their error bars, unless the
  // wall clock of some host is off.
  const ClockEstimate estimate = estimate_clocks(per_rank, run.match, totals(shifts));
  if (options.clock == ClockMethod::WallClock) warn_misaligned(run, estimate, warnings);
  out.clock.method = options.clock == ClockMethod::WallClock ? "wall clock" : "collectives";
  if (std::any_of(options.manual_shift_ns.begin(), options.manual_shift_ns.end(),
                  [](const auto& s) { return s.second != 0; }))
    out.clock.method += " + manual";
  out.clock.basis = describe(options, run, shifts, out.clock, estimate);
  for (const Shift& s : shifts) {
    out.shift_ns.push_back(s.total());
    out.clock_offset_ns.push_back(clamp_to_ns(Wide{s.offset_ns} + s.manual_ns));
  }
  return out;
}

}  // namespace gtv
