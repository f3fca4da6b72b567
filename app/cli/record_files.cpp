#include "record_files.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <ostream>
#include <set>

#include "gtv/model/merge.h"
#include "gtv/model/rank_merge.h"
#include "load.h"

namespace gtv::cli {
namespace {

// The pid in "gtv-<pid><suffix>", or -1.
long pid_of(const std::string& name, std::string_view suffix) {
  constexpr std::string_view kPrefix = "gtv-";
  if (name.size() <= kPrefix.size() + suffix.size() || name.rfind(kPrefix, 0) != 0 || !name.ends_with(suffix))
    return -1;
  const std::string digits = name.substr(kPrefix.size(), name.size() - kPrefix.size() - suffix.size());
  if (digits.empty() || digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stol(digits);
}

std::string first_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The processes that are ranks of one job: each has a rank, none twice. Processes without a rank beside them (a
// launcher such as torchrun's agent, which may initialise CUDA to count the GPUs) are not ranks; a repeated rank
// means no job's ranks.
std::vector<std::size_t> job_ranks(const std::vector<Trace>& traces) {
  std::set<std::int64_t> ranks;
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const std::int64_t rank = traces[i].metadata().distributed.rank;
    if (rank < 0) continue;
    if (!ranks.insert(rank).second) return {};
    out.push_back(i);
  }
  return out;
}

// A trace to merge on this host's clock, with the GPU ids it gets (identity where the map says nothing).
struct HostPart {
  const Trace* trace = nullptr;
  std::string label;  // prefix of its notes; empty: none
  std::map<std::int64_t, std::int64_t> device_map;
};

// Merges the parts on this host's clock (each process's CUPTI timestamps are CLOCK_REALTIME): each moves by its
// origin's distance from the earliest one, which becomes the merged trace's origin.
std::optional<Trace> merge_on_host_clock(const std::vector<HostPart>& parts, TraceMetadata meta, Io io) {
  TimeNs origin = std::numeric_limits<TimeNs>::max();
  for (const HostPart& p : parts) origin = std::min(origin, p.trace->metadata().origin_unix_ns);
  std::vector<MergePart> merge_parts;
  merge_parts.reserve(parts.size());
  for (const HostPart& p : parts)
    merge_parts.push_back({.trace = p.trace,
                           .label = p.label,
                           .shift_ns = p.trace->metadata().origin_unix_ns - origin,
                           .pid_map = {},
                           .device_map = p.device_map,
                           .name_prefix = {}});
  meta.origin_unix_ns = origin;
  Expected<Trace> merged = merge_traces(merge_parts, std::move(meta));
  if (!merged) {
    io.err << "gtv-cli record: " << merged.error().message << "\n";
    return std::nullopt;
  }
  return std::move(merged).value();
}

std::optional<Trace> merge_processes(const std::vector<Trace>& traces, const std::vector<std::string>& sources, Io io) {
  std::vector<HostPart> parts;
  parts.reserve(traces.size());
  for (std::size_t i = 0; i < traces.size(); ++i) parts.push_back({&traces[i], sources[i], {}});
  TraceMetadata meta;
  meta.source_tool = traces.front().metadata().source_tool;
  meta.scenario = traces.front().metadata().scenario;
  meta.clock = {"wall clock",
                "every process's own CUPTI timestamps, CLOCK_REALTIME of this one host: exact between them", -1, 0};
  meta.notes.push_back(std::to_string(traces.size()) +
                       " processes merged on this host's clock; GPU ids are as each process numbered them (the same "
                       "GPUs when they shared CUDA_VISIBLE_DEVICES)");
  return merge_on_host_clock(parts, std::move(meta), io);
}

// The job's ranks, merged, with the processes that are not ranks (a launcher) beside them on this host's clock,
// which the ranks' wall-clock merge shares. Their GPU ids get numbers of their own after the ranks' GPUs: which rank's
// GPU a launcher's GPU 0 is cannot be told from the files.
std::optional<Trace> add_other_processes(const Trace& ranks, const std::vector<Trace>& traces,
                                         const std::vector<std::string>& sources,
                                         const std::vector<std::size_t>& rank_index, Io io) {
  std::int64_t next_device = 0;
  for (const Lane& lane : ranks.lanes())
    if (lane.is_gpu()) next_device = std::max(next_device, lane.device() + 1);
  for (const DeviceInfo& d : ranks.devices()) next_device = std::max<std::int64_t>(next_device, d.index + 1);
  std::vector<bool> is_rank(traces.size(), false);
  for (std::size_t i : rank_index) is_rank[i] = true;
  std::vector<HostPart> parts{{&ranks, {}, {}}};
  std::string names;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    if (is_rank[i]) continue;
    std::map<std::int64_t, std::int64_t> devices;
    for (const Lane& lane : traces[i].lanes())
      if (lane.is_gpu() && !devices.contains(lane.device())) devices[lane.device()] = next_device++;
    for (const DeviceInfo& d : traces[i].devices())
      if (!devices.contains(d.index)) devices[d.index] = next_device++;
    parts.push_back({&traces[i], sources[i], std::move(devices)});
    names += (names.empty() ? "" : ", ") + sources[i];
  }
  TraceMetadata meta = ranks.metadata();
  // The ranks' notes, costs and dropped records come with their part (its notes unprefixed).
  meta.notes.clear();
  meta.recorder_costs.clear();
  meta.dropped_records = 0;
  const bool one = parts.size() == 2;
  meta.notes.push_back(names + (one ? " has no rank in its environment" : " have no rank in their environment") +
                       " (a launcher or a helper process): merged beside the " + std::to_string(rank_index.size()) +
                       " ranks on this host's clock; " + (one ? "its" : "their") +
                       " GPU ids are numbered after the ranks' GPUs");
  return merge_on_host_clock(parts, std::move(meta), io);
}

}  // namespace

RecordFolder scan_record_folder(const std::filesystem::path& dir) {
  RecordFolder folder;
  std::set<long> traced;
  std::vector<long> forked;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (const long pid = pid_of(name, ".json"); pid >= 0) {
      folder.traces.push_back(entry.path());
      traced.insert(pid);
    } else if (pid_of(name, ".refused") >= 0) {
      folder.refusals.push_back(first_line(entry.path()));
    } else if (const long child = pid_of(name, ".forked"); child >= 0) {
      forked.push_back(child);
    }
  }
  std::sort(folder.traces.begin(), folder.traces.end(), [](const auto& a, const auto& b) {
    return pid_of(a.filename().string(), ".json") < pid_of(b.filename().string(), ".json");
  });
  std::sort(folder.refusals.begin(), folder.refusals.end());
  std::sort(forked.begin(), forked.end());
  // A forked child that exec'd a program which initialised CUDA wrote its own trace under the same pid.
  for (long pid : forked)
    if (!traced.contains(pid)) folder.forked_untraced.push_back(pid);
  return folder;
}

std::optional<Trace> merge_recorded(const std::vector<std::filesystem::path>& files, Io io) {
  std::vector<Trace> traces;
  std::vector<std::string> sources;
  traces.reserve(files.size());
  for (const std::filesystem::path& file : files) {
    std::optional<Trace> t = load_trace_or_report(file.string(), io);
    if (!t) return std::nullopt;
    traces.push_back(std::move(*t));
    sources.push_back("pid " + std::to_string(pid_of(file.filename().string(), ".json")));
  }
  if (traces.size() == 1) return std::move(traces.front());
  const std::vector<std::size_t> rank_index = job_ranks(traces);
  if (rank_index.size() < 2) return merge_processes(traces, sources, io);
  std::vector<RankFile> ranks;
  ranks.reserve(rank_index.size());
  for (std::size_t i : rank_index) ranks.push_back({&traces[i], sources[i]});
  Expected<RankMerge> merged = merge_ranks(ranks, RankMergeOptions{});
  if (!merged) {
    io.err << "gtv-cli record: " << merged.error().message << "\n";
    return std::nullopt;
  }
  for (const std::string& warning : merged->warnings) io.err << "gtv-cli record: warning: " << warning << "\n";
  if (rank_index.size() == traces.size()) return std::move(merged->trace);
  return add_other_processes(merged->trace, traces, sources, rank_index, io);
}

}  // namespace gtv::cli
