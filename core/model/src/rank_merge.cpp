#include "gtv/model/rank_merge.h"

#include <algorithm>
#include <limits>
#include <set>

#include "gtv/model/collectives.h"
#include "gtv/model/merge.h"
#include "gtv/model/rank_alignment.h"

namespace gtv {
namespace {

struct RankPart {
  const RankFile* file = nullptr;
  std::int64_t rank = 0;
  std::set<std::int64_t> devices;  // as the file numbers them
  std::set<std::int64_t> pids;     // host processes
};

__extension__ using Wide = __int128;

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

}  // namespace

Expected<RankMerge> merge_ranks(std::span<const RankFile> files, const RankMergeOptions& options) {
  if (files.size() < 2) return Error{"merging ranks needs at least two files"};
  for (const RankFile& f : files)
    if (!f.trace->metadata().ranks.empty())
      return Error{f.source + " is already a merged run of " + std::to_string(f.trace->metadata().ranks.size()) +
                   " ranks: merge the rank files themselves"};
  RankMerge out;
  std::vector<std::vector<Collective>> collectives(files.size());
  std::vector<RankSide> sides;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const Trace& t = *files[i].trace;
    collectives[i] = find_collectives(t);
    sides.push_back({files[i].source, files[i].source, t.metadata().distributed, t.metadata().origin_unix_ns,
                     t.start_ns(), t.end_ns(), collectives[i]});
  }
  const Expected<RankRun> run = check_rank_run(sides, options, out.warnings);
  if (!run) return run.error();
  std::vector<RankPart> parts;
  for (std::size_t r = 0; r < run->side.size(); ++r) parts.push_back({&files[run->side[r]], run->rank[r], {}, {}});
  std::vector<MergePart> merge_parts(parts.size());
  // Ids are numbered before the clocks are aligned: the warnings come in the order a reader follows the merge.
  number_ids(parts, merge_parts, out.warnings);
  const Expected<RankClocks> clocks = align_rank_clocks(sides, *run, options, out.warnings);
  if (!clocks) return clocks.error();
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
  meta.origin_unix_ns = clocks->origin_unix_ns;
  meta.distributed = DistributedInfo{-1, run->world_size, first.distributed.backend};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const RankPart& p = parts[i];
    MergePart& m = merge_parts[i];
    m.trace = p.file->trace;
    m.label = "rank " + std::to_string(p.rank);
    m.shift_ns = clocks->shift_ns[i];
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
    info.clock_offset_ns = clocks->clock_offset_ns[i];
    meta.ranks.push_back(std::move(info));
  }
  meta.clock = clocks->clock;
  for (const std::string& w : out.warnings) meta.notes.push_back("merge: " + w);
  meta.notes.insert(meta.notes.end(), options.notes.begin(), options.notes.end());
  Expected<Trace> merged = merge_traces(merge_parts, std::move(meta));
  if (!merged) return merged.error();
  out.trace = std::move(merged).value();
  return out;
}

}  // namespace gtv
