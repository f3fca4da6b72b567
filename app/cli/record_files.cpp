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

bool distinct_ranks(const std::vector<Trace>& traces) {
  std::set<std::int64_t> ranks;
  for (const Trace& t : traces)
    if (t.metadata().distributed.rank < 0 || !ranks.insert(t.metadata().distributed.rank).second) return false;
  return true;
}

std::optional<Trace> merge_processes(const std::vector<Trace>& traces, const std::vector<std::string>& sources, Io io) {
  TimeNs origin = std::numeric_limits<TimeNs>::max();
  for (const Trace& t : traces) origin = std::min(origin, t.metadata().origin_unix_ns);
  std::vector<MergePart> parts;
  for (std::size_t i = 0; i < traces.size(); ++i)
    parts.push_back({.trace = &traces[i],
                     .label = sources[i],
                     .shift_ns = traces[i].metadata().origin_unix_ns - origin,
                     .pid_map = {},
                     .device_map = {},
                     .name_prefix = {}});
  TraceMetadata meta;
  meta.source_tool = traces.front().metadata().source_tool;
  meta.scenario = traces.front().metadata().scenario;
  meta.origin_unix_ns = origin;
  meta.clock = {"wall clock",
                "every process's own CUPTI timestamps, CLOCK_REALTIME of this one host: exact between them", -1, 0};
  meta.notes.push_back(std::to_string(traces.size()) +
                       " processes merged on this host's clock; GPU ids are as each process numbered them (the same "
                       "GPUs when they shared CUDA_VISIBLE_DEVICES)");
  Expected<Trace> merged = merge_traces(parts, std::move(meta));
  if (!merged) {
    io.err << "gtv-cli record: " << merged.error().message << "\n";
    return std::nullopt;
  }
  return std::move(merged).value();
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
  if (!distinct_ranks(traces)) return merge_processes(traces, sources, io);
  std::vector<RankFile> ranks;
  for (std::size_t i = 0; i < traces.size(); ++i) ranks.push_back({&traces[i], sources[i]});
  Expected<RankMerge> merged = merge_ranks(ranks, RankMergeOptions{});
  if (!merged) {
    io.err << "gtv-cli record: " << merged.error().message << "\n";
    return std::nullopt;
  }
  for (const std::string& warning : merged->warnings) io.err << "gtv-cli record: warning: " << warning << "\n";
  return std::move(merged->trace);
}

}  // namespace gtv::cli
