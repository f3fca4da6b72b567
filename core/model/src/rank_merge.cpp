#include "gtv/model/rank_merge.h"

#include <algorithm>
#include <limits>
#include <set>

#include "gtv/model/collective_clock.h"
#include "gtv/model/collectives.h"
#include "gtv/model/merge.h"

namespace gtv {
namespace {

struct RankPart {
  const RankFile* file = nullptr;
  std::int64_t rank = 0;
  std::set<std::int64_t> devices;  // as the file numbers them
  std::set<std::int64_t> pids;     // host processes
  TimeNs shift_ns = 0;             // onto the merged origin, wall clock
  TimeNs offset_ns = 0;            // the method's alignment on top of it
  TimeNs manual_ns = 0;            // and the shift given by hand
};

std::string list_of(const std::vector<std::int64_t>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size(); ++i)
    out += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[i]);
  return out;
}

std::string signed_duration(TimeNs ns) {
  return (ns < 0 ? "-" : "+") + format_duration(ns < 0 ? saturating_sub(0, ns) : ns);
}

// Sums and differences of times from several files (each inside the trace time range, so a sum of a few never
// leaves 128 bits), clamped back to int64 where a value is only reported.
__extension__ using Wide = __int128;
TimeNs clamp_to_ns(Wide v) {
  if (v > std::numeric_limits<TimeNs>::max()) return std::numeric_limits<TimeNs>::max();
  if (v < std::numeric_limits<TimeNs>::min()) return std::numeric_limits<TimeNs>::min();
  return static_cast<TimeNs>(v);
}

Status assign_ranks(std::span<const RankFile> files, std::vector<RankPart>& parts, std::vector<std::string>& warnings) {
  std::size_t with_info = 0;
  for (const RankFile& f : files) {
    if (!f.trace->metadata().ranks.empty())
      return Error{f.source + " is already a merged run of " + std::to_string(f.trace->metadata().ranks.size()) +
                   " ranks: merge the rank files themselves"};
    if (f.trace->metadata().distributed.rank >= 0) ++with_info;
  }
  if (with_info != 0 && with_info != files.size()) {
    const auto said = std::find_if(files.begin(), files.end(),
                                   [](const RankFile& f) { return f.trace->metadata().distributed.rank >= 0; });
    const auto silent = std::find_if(files.begin(), files.end(),
                                     [](const RankFile& f) { return f.trace->metadata().distributed.rank < 0; });
    return Error{said->source + " says its rank (distributedInfo) but " + silent->source +
                 " does not: give files that all say it, or none (then the order of the files numbers the ranks)"};
  }
  if (with_info == 0)
    warnings.push_back("no file says its rank (distributedInfo): ranks numbered 0 to " +
                       std::to_string(files.size() - 1) + " in the order of the files");
  for (std::size_t i = 0; i < files.size(); ++i) {
    RankPart p;
    p.file = &files[i];
    p.rank = with_info == 0 ? static_cast<std::int64_t>(i) : files[i].trace->metadata().distributed.rank;
    parts.push_back(p);
  }
  for (std::size_t i = 0; i < parts.size(); ++i)
    for (std::size_t j = i + 1; j < parts.size(); ++j)
      if (parts[i].rank == parts[j].rank)
        return Error{parts[i].file->source + " and " + parts[j].file->source + " are both rank " +
                     std::to_string(parts[i].rank)};
  std::sort(parts.begin(), parts.end(), [](const RankPart& a, const RankPart& b) { return a.rank < b.rank; });
  return ok_status();
}

Expected<std::int64_t> check_world(std::span<const RankPart> parts, std::vector<std::string>& warnings) {
  const RankPart* sized = nullptr;
  for (const RankPart& p : parts) {
    const DistributedInfo& d = p.file->trace->metadata().distributed;
    if (d.world_size <= 0) continue;
    if (sized != nullptr && sized->file->trace->metadata().distributed.world_size != d.world_size)
      return Error{"world sizes disagree: " + sized->file->source + " says " +
                   std::to_string(sized->file->trace->metadata().distributed.world_size) + ", " + p.file->source +
                   " says " + std::to_string(d.world_size)};
    if (sized == nullptr) sized = &p;
    if (sized->file->trace->metadata().distributed.backend != d.backend)
      warnings.push_back("backends differ: " + sized->file->source + " used \"" +
                         sized->file->trace->metadata().distributed.backend + "\", " + p.file->source + " \"" +
                         d.backend + "\"");
  }
  const std::int64_t world = sized == nullptr ? static_cast<std::int64_t>(parts.size())
                                              : sized->file->trace->metadata().distributed.world_size;
  std::vector<std::int64_t> missing;
  for (const RankPart& p : parts)
    if (p.rank < 0 || p.rank >= world)
      return Error{p.file->source + " is rank " + std::to_string(p.rank) + " but the world size is " +
                   std::to_string(world)};
  // Ranks are distinct and inside the world, so world - files are missing; the first few are named (a file may
  // claim a world of 10^12 ranks: the search stops after them).
  const std::int64_t missing_count = world - static_cast<std::int64_t>(parts.size());
  constexpr std::size_t kNamed = 5;
  for (std::int64_t r = 0; r < world && missing.size() < kNamed && missing_count > 0; ++r)
    if (std::none_of(parts.begin(), parts.end(), [r](const RankPart& p) { return p.rank == r; })) missing.push_back(r);
  if (missing_count > 0)
    warnings.push_back("world size " + std::to_string(world) + ", but no file for " +
                       (missing_count == 1
                            ? "rank " + list_of(missing)
                            : std::to_string(missing_count) + " ranks (" + list_of(missing) +
                                  (missing_count > static_cast<std::int64_t>(missing.size()) ? ", ..." : "") + ")") +
                       "; collectives wait for ranks this view does not show");
  return world;
}

// Absolute start of a file's recording, in Unix ns.
TimeNs absolute_start_ns(const Trace& t) { return saturating_add(t.metadata().origin_unix_ns, t.start_ns()); }

// "3.0 h" for gaps of an hour or more, else as format_duration writes it.
std::string gap_text(TimeNs gap_ns) {
  if (gap_ns < 3600 * kNsPerS) return format_duration(gap_ns);
  constexpr TimeNs kTenthHourNs = 360 * kNsPerS;
  const std::int64_t tenths = gap_ns / kTenthHourNs + (gap_ns % kTenthHourNs >= kTenthHourNs / 2 ? 1 : 0);
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " h";
}

Status check_one_run(std::span<const RankPart> parts, const RankMergeOptions& options) {
  const auto [first, last] = std::minmax_element(parts.begin(), parts.end(), [](const RankPart& a, const RankPart& b) {
    return absolute_start_ns(*a.file->trace) < absolute_start_ns(*b.file->trace);
  });
  const TimeNs gap = saturating_sub(absolute_start_ns(*last->file->trace), absolute_start_ns(*first->file->trace));
  if (!options.allow_far_apart && gap > options.max_start_gap_ns)
    return Error{last->file->source + " starts " + gap_text(gap) + " after " + first->file->source +
                 ": recordings of different runs?"};
  return ok_status();
}

// A process id that no operating system gives: Kineto's pseudo-processes ("Spans", "Traces": the reader numbers
// string pids from 10^12) and -1.
bool is_pseudo_process(std::int64_t pid) { return pid < 0 || pid >= 1'000'000'000'000; }

// Merged host process ids. A pid no earlier rank holds keeps its number; a repeated one becomes pid + rank * 10^7
// (the rank readable in it), else pid + 2, 3 or 4 times that, skipping ids taken or held by any rank's file; where
// all of those are taken or beyond the int64 range (a crafted file's huge rank or pid), the first free id from
// 2^22 (above every Linux pid) up. The search is bounded: a few candidates per pid, and the counter from 2^22
// only rises, past each taken id once.
class PidNumbers {
 public:
  explicit PidNumbers(std::span<const RankPart> parts) {
    for (const RankPart& p : parts) held_.insert(p.pids.begin(), p.pids.end());
  }

  [[nodiscard]] std::int64_t assign(std::int64_t pid, std::int64_t rank) {
    if (taken_.insert(pid).second) return pid;
    const Wide step = Wide{std::max<std::int64_t>(rank, 1)} * kRankStep;
    for (int k = 1; k <= kMultiples; ++k) {
      const Wide id = Wide{pid} + step * k;
      if (id > std::numeric_limits<std::int64_t>::max()) break;
      if (is_free(static_cast<std::int64_t>(id))) return take(static_cast<std::int64_t>(id));
    }
    while (!is_free(next_)) ++next_;
    return take(next_);
  }

 private:
  static constexpr std::int64_t kRankStep = 10'000'000;
  static constexpr int kMultiples = 4;
  [[nodiscard]] bool is_free(std::int64_t id) const { return !taken_.contains(id) && !held_.contains(id); }
  std::int64_t take(std::int64_t id) {
    taken_.insert(id);
    return id;
  }
  std::set<std::int64_t> held_;   // every pid of every rank's file
  std::set<std::int64_t> taken_;  // merged ids given so far
  std::int64_t next_ = std::int64_t{1} << 22;
};

// Devices and host processes of each rank, and distinct merged ids where ranks repeat them. A rank's devices are
// those it ran work on: every rank's file lists all GPUs of its host (deviceProperties), so ranks of one host,
// one GPU each, share those entries but not their lanes.
void number_ids(std::vector<RankPart>& parts, std::vector<MergePart>& merge_parts, std::vector<std::string>& warnings) {
  for (RankPart& p : parts) {
    const Trace& t = *p.file->trace;
    for (const Lane& lane : t.lanes()) (lane.is_gpu() ? p.devices : p.pids).insert(lane.key.pid);
    for (const Range& r : t.ranges()) p.pids.insert(r.pid);
    for (const Measurement& m : t.measurements()) p.pids.insert(m.pid);
  }
  std::set<std::int64_t> devices_seen;
  bool devices_shared = false;
  for (const RankPart& p : parts)
    for (std::int64_t d : p.devices) devices_shared = !devices_seen.insert(d).second || devices_shared;
  if (devices_shared) {
    warnings.push_back(
        "ranks name the same GPU ids (each its cuda:0, say) and the files do not say whether that is one GPU "
        "shared by ranks of one host or a GPU each: shown apart, one GPU per rank");
    std::int64_t next = 0;
    for (std::size_t i = 0; i < parts.size(); ++i)
      for (std::int64_t d : parts[i].devices) merge_parts[i].device_map[d] = next++;
  }
  // OS pids are below 2^22 on Linux: a repeated pid becomes pid + rank * 10^7, readable and distinct. Profiler
  // pseudo-processes (Kineto's "Spans" and "Traces", numbered from 10^12 by the reader; -1) repeat on every rank by
  // design: renumbered the same way, without a warning.
  PidNumbers numbers(parts);
  std::string moved;
  std::size_t moved_count = 0;
  for (std::size_t i = 0; i < parts.size(); ++i)
    for (std::int64_t pid : parts[i].pids) {
      const std::int64_t id = numbers.assign(pid, parts[i].rank);
      if (id == pid) continue;
      merge_parts[i].pid_map[pid] = id;
      if (is_pseudo_process(pid)) continue;
      if (++moved_count <= 3)
        moved += (moved.empty() ? "" : ", ") + std::string("rank ") + std::to_string(parts[i].rank) + "'s " +
                 std::to_string(pid) + " as " + std::to_string(id);
    }
  if (moved_count > 0)
    warnings.push_back("host process ids repeat across ranks (ranks on several hosts or in containers): " +
                       std::to_string(moved_count) + " renumbered (" + moved + (moved_count > 3 ? ", ..." : "") + ")");
}

// Each rank's collectives in its own file's times, matched across ranks once: moving a rank's times keeps their
// order, so the match holds for every alignment.
struct RunCollectives {
  std::vector<std::vector<Collective>> per_rank;
  CollectiveMatch match;
};

RunCollectives match_run(std::span<const RankPart> parts) {
  RunCollectives out;
  std::vector<std::string> names;
  for (const RankPart& p : parts) {
    out.per_rank.push_back(find_collectives(*p.file->trace));
    names.push_back("rank " + std::to_string(p.rank));
  }
  out.match = match_collectives(out.per_rank, names);
  return out;
}

// Where rank r's part of matched collective m ends on the merged clock, with the rank's shifts so far.
Wide end_on_clock(const RunCollectives& run, std::span<const RankPart> parts, std::size_t r,
                  const MatchedCollective& m) {
  const RankPart& p = parts[r];
  return Wide{run.per_rank[r][m.index[r]].end_ns} + p.shift_ns + p.offset_ns + p.manual_ns;
}

std::vector<TimeNs> shifts_of(std::span<const RankPart> parts) {
  std::vector<TimeNs> out;
  out.reserve(parts.size());
  for (const RankPart& p : parts) out.push_back(clamp_to_ns(Wide{p.shift_ns} + p.offset_ns + p.manual_ns));
  return out;
}

// Largest spread of the ends of one matched collective that ends together (all-reduce, all-gather, reduce-scatter,
// barrier: a broadcast's root ends early by design), and how many there were; residual -1 without any.
ClockAlignment residual(const RunCollectives& run, std::span<const RankPart> parts) {
  ClockAlignment out;
  for (const MatchedCollective& m : run.match.matched) {
    if (!measures_clocks(m.kind)) continue;
    ++out.collectives_checked;
    Wide lo = end_on_clock(run, parts, 0, m), hi = lo;
    for (std::size_t r = 1; r < parts.size(); ++r) {
      lo = std::min(lo, end_on_clock(run, parts, r, m));
      hi = std::max(hi, end_on_clock(run, parts, r, m));
    }
    out.residual_ns = std::max(out.residual_ns, clamp_to_ns(hi - lo));
  }
  return out;
}

Status align_on_collectives(const RunCollectives& run, std::vector<RankPart>& parts) {
  const ClockEstimate estimate = estimate_clocks(run.per_rank, run.match, shifts_of(parts));
  if (estimate.collectives == 0)
    return Error{
        "no all-reduce, all-gather, reduce-scatter or barrier ran on every rank: nothing to align the clocks "
        "on (broadcasts and reduces do not end together; use the wall clock)"};
  for (std::size_t r = 1; r < parts.size(); ++r) parts[r].offset_ns = saturating_sub(0, estimate.ranks[r].offset_ns);
  return ok_status();
}

// "rank 1 -302.0 us +/- 1.00 us, rank 2 ..." from an estimate.
std::string offsets_text(std::span<const RankPart> parts, const ClockEstimate& estimate, bool moved) {
  std::string out;
  for (std::size_t r = 1; r < parts.size(); ++r) {
    const RankClockEstimate& e = estimate.ranks[r];
    const TimeNs offset = moved ? parts[r].offset_ns : e.offset_ns;
    out += (r == 1 ? "" : ", ") + std::string("rank ") + std::to_string(parts[r].rank) + " " + signed_duration(offset) +
           " +/- " + format_duration(e.uncertainty_ns);
  }
  return out;
}

// On the wall clock, a rank whose collectives end much further from the reference's than their spread allows: its
// host's clock is off, and every wait measured across ranks with it.
void warn_misaligned(std::span<const RankPart> parts, const ClockEstimate& estimate,
                     std::vector<std::string>& warnings) {
  const std::int64_t worst = estimate.misaligned_rank();
  if (worst < 0) return;
  const RankPart& p = parts[static_cast<std::size_t>(worst)];
  const RankClockEstimate& e = estimate.ranks[static_cast<std::size_t>(worst)];
  const TimeNs magnitude = e.offset_ns < 0 ? saturating_sub(0, e.offset_ns) : e.offset_ns;
  warnings.push_back("rank " + std::to_string(p.rank) + "'s " + estimate.basis_words() + " end " +
                     format_duration(magnitude) + (e.offset_ns < 0 ? " before" : " after") + " rank " +
                     std::to_string(parts[0].rank) + "'s on the wall clock, yet agree within +/- " +
                     format_duration(e.uncertainty_ns) +
                     " of that: the clocks disagree and waits across ranks are wrong by as much; merge with "
                     "--clock collectives");
}

// Every rank's times, moved onto the merged clock, must stay inside the trace time range like any trace's times.
Status check_shifted_range(std::span<const RankPart> parts) {
  for (const RankPart& p : parts) {
    const Trace& t = *p.file->trace;
    // The shift and its parts (origin difference, alignment) are written into the merged file's rank table,
    // which is read back under the same rule.
    const Wide alignment = Wide{p.offset_ns} + p.manual_ns;
    const Wide shift = Wide{p.shift_ns} + alignment;
    const Wide first = Wide{t.start_ns()} + shift;
    const Wide last = Wide{t.end_ns()} + shift;
    const auto outside = [](Wide v) { return v < kMinTraceTimeNs || v > kMaxTraceTimeNs; };
    if (outside(p.shift_ns) || outside(alignment) || outside(shift) || outside(first) || outside(last))
      return Error{"rank " + std::to_string(p.rank) + " (" + p.file->source + ") moved by " +
                   signed_duration(clamp_to_ns(shift)) +
                   " onto the merged clock would leave the accepted time range [-2^62, 2^62) ns"};
  }
  return ok_status();
}

std::string describe(const RankMergeOptions& options, std::span<const RankPart> parts, const ClockAlignment& check,
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

Expected<RankMerge> merge_ranks(std::span<const RankFile> files, const RankMergeOptions& options) {
  if (files.size() < 2) return Error{"merging ranks needs at least two files"};
  RankMerge out;
  std::vector<RankPart> parts;
  if (Status s = assign_ranks(files, parts, out.warnings); !s) return s.error();
  const Expected<std::int64_t> world = check_world(parts, out.warnings);
  if (!world) return world.error();
  for (const auto& [rank, shift] : options.manual_shift_ns)
    if (std::none_of(parts.begin(), parts.end(), [r = rank](const RankPart& p) { return p.rank == r; }))
      return Error{"a shift is given for rank " + std::to_string(rank) + ", which no file holds"};
  if (Status s = check_one_run(parts, options); !s) return s.error();

  TimeNs origin = parts[0].file->trace->metadata().origin_unix_ns;
  for (const RankPart& p : parts) origin = std::min(origin, p.file->trace->metadata().origin_unix_ns);
  for (RankPart& p : parts) p.shift_ns = p.file->trace->metadata().origin_unix_ns - origin;
  const RunCollectives run = match_run(parts);
  if (!run.match.sequence_doubt.empty()) out.warnings.push_back("collectives are matched by " + match_basis(run.match));
  if (options.clock == ClockMethod::Collectives)
    if (Status s = align_on_collectives(run, parts); !s) return s.error();
  for (RankPart& p : parts)
    if (const auto it = options.manual_shift_ns.find(p.rank); it != options.manual_shift_ns.end())
      p.manual_ns = it->second;

  if (Status s = check_shifted_range(parts); !s) return s.error();

  std::vector<MergePart> merge_parts(parts.size());
  number_ids(parts, merge_parts, out.warnings);
  TraceMetadata meta;
  const TraceMetadata& first = parts[0].file->trace->metadata();
  meta.source_tool = first.source_tool;
  meta.scenario = first.scenario;
  // A setting holds for the run when every rank recorded it alike; one that differs (a rank's own number, its GPU)
  // describes one rank only and stays in the rank's own file.
  meta.config = first.config;
  for (const RankPart& p : parts)
    std::erase_if(meta.config, [&](const auto& entry) {
      const auto& theirs = p.file->trace->metadata().config;
      const auto it = theirs.find(entry.first);
      return it == theirs.end() || it->second != entry.second;
    });
  meta.origin_unix_ns = origin;
  meta.distributed = DistributedInfo{-1, *world, first.distributed.backend};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const RankPart& p = parts[i];
    MergePart& m = merge_parts[i];
    m.trace = p.file->trace;
    m.label = "rank " + std::to_string(p.rank);
    m.shift_ns = p.shift_ns + p.offset_ns + p.manual_ns;
    m.name_prefix = m.label + " · ";
    RankInfo info;
    info.rank = p.rank;
    info.source = p.file->source;
    for (std::int64_t pid : p.pids) info.pids.push_back(m.pid_map.contains(pid) ? m.pid_map.at(pid) : pid);
    for (std::int64_t d : p.devices) {
      info.devices.push_back(m.device_map.contains(d) ? m.device_map.at(d) : d);
      info.local_devices.push_back(d);
    }
    info.shift_ns = m.shift_ns;
    info.clock_offset_ns = p.offset_ns + p.manual_ns;
    meta.ranks.push_back(std::move(info));
  }
  ClockAlignment clock = residual(run, parts);
  // What the collectives say of the clocks as aligned: offsets near zero, within their error bars, unless the
  // wall clock of some host is off.
  const ClockEstimate estimate = estimate_clocks(run.per_rank, run.match, shifts_of(parts));
  if (options.clock == ClockMethod::WallClock) warn_misaligned(parts, estimate, out.warnings);
  clock.method = options.clock == ClockMethod::WallClock ? "wall clock" : "collectives";
  if (std::any_of(options.manual_shift_ns.begin(), options.manual_shift_ns.end(),
                  [](const auto& s) { return s.second != 0; }))
    clock.method += " + manual";
  clock.basis = describe(options, parts, clock, estimate);
  meta.clock = clock;
  for (const std::string& w : out.warnings) meta.notes.push_back("merge: " + w);
  meta.notes.insert(meta.notes.end(), options.notes.begin(), options.notes.end());
  Expected<Trace> merged = merge_traces(merge_parts, std::move(meta));
  if (!merged) return merged.error();
  out.trace = std::move(merged).value();
  return out;
}

}  // namespace gtv
