// The clocks of the ranks put on one axis from their summaries: the same steps, checks and sentences as merging the
// rank files (gtv/model/rank_merge.h), on the collectives the summaries carry.
#include <algorithm>
#include <limits>

#include "gtv/model/collectives.h"
#include "reduce_parts.h"

namespace gtv::ranks::detail {
namespace {

__extension__ using Wide = __int128;

TimeNs clamp_to_ns(Wide v) {
  if (v > std::numeric_limits<TimeNs>::max()) return std::numeric_limits<TimeNs>::max();
  if (v < std::numeric_limits<TimeNs>::min()) return std::numeric_limits<TimeNs>::min();
  return static_cast<TimeNs>(v);
}

std::string signed_duration(TimeNs ns) {
  return (ns < 0 ? "-" : "+") + format_duration(ns < 0 ? saturating_sub(0, ns) : ns);
}

struct Run {
  std::vector<std::vector<Collective>> per_rank;
  CollectiveMatch match;
};

Run match_run(std::span<const Part> parts) {
  Run out;
  std::vector<std::string> names;
  for (const Part& p : parts) {
    out.per_rank.push_back(p.summary->collectives);
    names.push_back("rank " + std::to_string(p.rank));
  }
  out.match = match_collectives(out.per_rank, names);
  return out;
}

std::vector<TimeNs> shifts_of(std::span<const Part> parts) {
  std::vector<TimeNs> out;
  out.reserve(parts.size());
  for (const Part& p : parts) out.push_back(clamp_to_ns(Wide{p.shift_ns} + p.offset_ns + p.manual_ns));
  return out;
}

ClockAlignment residual(const Run& run, std::span<const Part> parts) {
  ClockAlignment out;
  const auto end_on_clock = [&](std::size_t r, const MatchedCollective& m) {
    const Part& p = parts[r];
    return Wide{run.per_rank[r][m.index[r]].end_ns} + p.shift_ns + p.offset_ns + p.manual_ns;
  };
  for (const MatchedCollective& m : run.match.matched) {
    if (!measures_clocks(m.kind)) continue;
    ++out.collectives_checked;
    Wide lo = end_on_clock(0, m), hi = lo;
    for (std::size_t r = 1; r < parts.size(); ++r) {
      lo = std::min(lo, end_on_clock(r, m));
      hi = std::max(hi, end_on_clock(r, m));
    }
    out.residual_ns = std::max(out.residual_ns, clamp_to_ns(hi - lo));
  }
  return out;
}

std::string offsets_text(std::span<const Part> parts, const ClockEstimate& estimate, bool moved) {
  std::string out;
  for (std::size_t r = 1; r < parts.size(); ++r) {
    const RankClockEstimate& e = estimate.ranks[r];
    const TimeNs offset = moved ? parts[r].offset_ns : e.offset_ns;
    out += (r == 1 ? "" : ", ") + std::string("rank ") + std::to_string(parts[r].rank) + " " + signed_duration(offset) +
           " +/- " + format_duration(e.uncertainty_ns);
  }
  return out;
}

void warn_misaligned(std::span<const Part> parts, const ClockEstimate& estimate, std::vector<std::string>& warnings) {
  const std::int64_t worst = estimate.misaligned_rank();
  if (worst < 0) return;
  const Part& p = parts[static_cast<std::size_t>(worst)];
  const RankClockEstimate& e = estimate.ranks[static_cast<std::size_t>(worst)];
  const TimeNs magnitude = e.offset_ns < 0 ? saturating_sub(0, e.offset_ns) : e.offset_ns;
  warnings.push_back("rank " + std::to_string(p.rank) + "'s " + estimate.basis_words() + " end " +
                     format_duration(magnitude) + (e.offset_ns < 0 ? " before" : " after") + " rank " +
                     std::to_string(parts[0].rank) + "'s on the wall clock, yet agree within +/- " +
                     format_duration(e.uncertainty_ns) +
                     " of that: the clocks disagree and waits across ranks are wrong by as much; merge with "
                     "--clock collectives");
}

Status check_shifted_range(std::span<const Part> parts) {
  for (const Part& p : parts) {
    const Wide alignment = Wide{p.offset_ns} + p.manual_ns;
    const Wide shift = Wide{p.shift_ns} + alignment;
    const Wide first = Wide{p.summary->start_ns} + shift;
    const Wide last = Wide{p.summary->end_ns} + shift;
    const auto outside = [](Wide v) { return v < kMinTraceTimeNs || v > kMaxTraceTimeNs; };
    if (outside(p.shift_ns) || outside(alignment) || outside(shift) || outside(first) || outside(last))
      return Error{"rank " + std::to_string(p.rank) + " (" + p.summary->source + ") moved by " +
                   signed_duration(clamp_to_ns(shift)) +
                   " onto the merged clock would leave the accepted time range [-2^62, 2^62) ns"};
  }
  return ok_status();
}

std::string describe(const RankMergeOptions& options, std::span<const Part> parts, const ClockAlignment& check,
                     const ClockEstimate& estimate) {
  std::string basis;
  if (options.clock == ClockMethod::WallClock) {
    basis =
        "Each rank's own timestamps on its host's wall clock (baseTimeNanoseconds + ts): exact between ranks "
        "of one host, off by the hosts' clock difference otherwise";
  } else {
    basis = "Ranks moved so that matched collectives end together: each rank by the median, over " +
            estimate.basis_words() + ", of its end against rank " + std::to_string(parts[0].rank) + "'s (" +
            offsets_text(parts, estimate, true) + ")";
  }
  for (const auto& [rank, shift] : options.manual_shift_ns)
    if (shift != 0) basis += "; rank " + std::to_string(rank) + " moved " + signed_duration(shift) + " by hand";
  if (check.residual_ns >= 0) {
    basis += ". After alignment the ends of one collective differ by at most " + format_duration(check.residual_ns) +
             " between ranks (" + estimate.basis_words() + "; broadcasts and reduces end apart by design)";
    if (options.clock == ClockMethod::WallClock)
      basis += "; measured on them, the clocks read against rank " + std::to_string(parts[0].rank) +
               "'s: " + offsets_text(parts, estimate, false);
  } else {
    basis +=
        ". No all-reduce, all-gather, reduce-scatter or barrier ran on every rank, so the alignment could not "
        "be checked";
  }
  return basis + ".";
}

}  // namespace

TimeNs total_shift(const Part& p) { return clamp_to_ns(Wide{p.shift_ns} + p.offset_ns + p.manual_ns); }

Expected<Aligned> align_clocks(std::vector<Part>& parts, const RankMergeOptions& options) {
  Aligned out;
  TimeNs origin = parts[0].summary->origin_unix_ns;
  for (const Part& p : parts) origin = std::min(origin, p.summary->origin_unix_ns);
  for (Part& p : parts) p.shift_ns = p.summary->origin_unix_ns - origin;
  Run run = match_run(parts);
  if (options.clock == ClockMethod::Collectives) {
    const ClockEstimate estimate = estimate_clocks(run.per_rank, run.match, shifts_of(parts));
    if (estimate.collectives == 0)
      return Error{
          "no all-reduce, all-gather, reduce-scatter or barrier ran on every rank: nothing to align the clocks "
          "on (broadcasts and reduces do not end together; use the wall clock)"};
    for (std::size_t r = 1; r < parts.size(); ++r) parts[r].offset_ns = saturating_sub(0, estimate.ranks[r].offset_ns);
  }
  for (Part& p : parts)
    if (const auto it = options.manual_shift_ns.find(p.rank); it != options.manual_shift_ns.end())
      p.manual_ns = it->second;
  if (Status s = check_shifted_range(parts); !s) return s.error();
  out.clock = residual(run, parts);
  const ClockEstimate estimate = estimate_clocks(run.per_rank, run.match, shifts_of(parts));
  if (options.clock == ClockMethod::WallClock) warn_misaligned(parts, estimate, out.warnings);
  out.clock.method = options.clock == ClockMethod::WallClock ? "wall clock" : "collectives";
  if (std::any_of(options.manual_shift_ns.begin(), options.manual_shift_ns.end(),
                  [](const auto& s) { return s.second != 0; }))
    out.clock.method += " + manual";
  out.clock.basis = describe(options, parts, out.clock, estimate);
  out.match = std::move(run.match);
  return out;
}

}  // namespace gtv::ranks::detail
