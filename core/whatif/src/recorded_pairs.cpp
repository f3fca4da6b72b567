#include "gtv/whatif/recorded_pairs.h"

#include <algorithm>

namespace gtv::whatif {
namespace {

constexpr RecordedPair kScored[] = {
    {"h200x1/sequential", "streams", "h200x1/streams"},
    {"h200x1/copy-pageable", "pinned", "h200x1/copy-pinned"},
    {"h200x1/sequential", "graphs", "h200x1/cuda-graph"},
    {"h200x1/launch-blocking", "no-launch-blocking", "h200x1/sequential"},
    {"h200x1/threads", "processes", "h200x1/processes"},
    {"h200x1/threads", "streams", "h200x1/threads-streams"},
    {"h200x1/baseline", "no-sync=cudaDeviceSynchronize", "h200x1/sequential"},
    {"h200x2/sequential", "placement=0,0,0", "h200x1/sequential"},
    {"h200x2/copy-pageable", "pinned", "h200x2/copy-pinned"},
};

constexpr RecordedPair kFurther[] = {
    {"h200x2/sequential", "streams", "h200x2/streams"},
    {"h200x2/threads", "streams", "h200x2/threads-streams"},
    {"h200x2/threads", "processes", "h200x2/processes"},
    {"h200x2/launch-blocking", "no-launch-blocking", "h200x2/sequential"},
    {"h200x2/copy-pageable-nonblocking", "pinned", "h200x2/copy-pinned"},
    {"h200x1/sequential-50iters", "streams", "h200x1/streams-50iters"},
    {"h200x2/streams", "placement=0,0,0", "h200x1/streams"},
    {"h200x2/sequential", "placement=0,0,0 streams", "h200x1/streams"},
    {"cpu/ddp-gloo2-straggler", "balanced-ranks", "cpu/ddp-gloo2"},
};

constexpr RecordedPair kProfiler[] = {
    {"pytorch-h200x1/seed3-sequential", "streams", "pytorch-h200x1/seed3-streams"},
    {"pytorch-h200x1/seed3-sequential", "graphs", "pytorch-h200x1/seed3-graphs"},
    {"pytorch-h200x1/seed3-copy-pageable", "pinned", "pytorch-h200x1/seed3-copy-pinned"},
    {"pytorch-h200x1/seed3-threads", "streams", "pytorch-h200x1/seed3-threads-streams"},
    {"pytorch-h200x1/small3-sequential", "streams", "pytorch-h200x1/small3-streams"},
    {"pytorch-h200x1/small3-sequential", "graphs", "pytorch-h200x1/small3-graphs"},
    {"pytorch-h200x1/cnn-sync", "no-sync=cudaDeviceSynchronize", "pytorch-h200x1/cnn"},
    {"pytorch-h200x1/cnn-launch-blocking", "no-launch-blocking", "pytorch-h200x1/cnn"},
    {"pytorch-h200x1/transformer-amp-item", "no-sync=cudaStreamSynchronize", "pytorch-h200x1/transformer-amp"},
    {"pytorch-h200x1/loader-pageable", "pinned", "pytorch-h200x1/loader-pinned"},
    {"pytorch-h200x1/ddp-gloo-straggler", "balanced-ranks", "pytorch-h200x1/ddp-gloo"},
};

std::string joined(std::span<const Change> changes) {
  std::string out;
  for (const Change& c : changes) out += (out.empty() ? "" : " ") + c.text();
  return out;
}

}  // namespace

std::span<const RecordedPair> scored_pairs() { return kScored; }
std::span<const RecordedPair> further_pairs() { return kFurther; }
std::span<const RecordedPair> profiler_pairs() { return kProfiler; }

std::optional<std::string> recorded_variant(std::string_view from, std::span<const Change> changes) {
  const std::string wanted = joined(changes);
  for (const std::span<const RecordedPair> list : {scored_pairs(), further_pairs(), profiler_pairs()})
    for (const RecordedPair& p : list)
      if (from == p.from && wanted == p.changes) return std::string(p.to);
  return std::nullopt;
}

std::string recording_key(std::string_view path) {
  std::string p(path);
  for (char& ch : p)
    if (ch == '\\') ch = '/';
  const std::size_t slash = p.rfind('/');
  if (slash == std::string::npos || slash == 0) return {};
  std::string stem = p.substr(slash + 1);
  for (const std::string_view suffix : {".json.gz", ".json", ".gz"})
    if (stem.ends_with(suffix)) {
      stem.resize(stem.size() - suffix.size());
      break;
    }
  const std::size_t folder_start = p.rfind('/', slash - 1);
  const std::string folder = p.substr(folder_start == std::string::npos ? 0 : folder_start + 1,
                                      slash - (folder_start == std::string::npos ? 0 : folder_start + 1));
  if (folder.empty() || stem.empty()) return {};
  return folder + "/" + stem;
}

const RecordedPair* find_recorded_pair(std::string_view from, std::string_view changes) {
  for (const auto pairs : {scored_pairs(), further_pairs(), profiler_pairs()})
    for (const RecordedPair& p : pairs)
      if (std::string_view(p.from) == from && std::string_view(p.changes) == changes) return &p;
  return nullptr;
}

std::string recording_path(std::string_view traces_dir, std::string_view name) {
  std::string path(traces_dir);
  path += '/';
  path += name;
  path += ".json.gz";
  return path;
}

Expected<std::vector<Change>> parse_changes(std::string_view text) {
  std::vector<Change> changes;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find(' ', start), text.size());
    if (end > start) {
      Expected<Change> c = parse_change(text.substr(start, end - start));
      if (!c) return c.error();
      changes.push_back(std::move(c).value());
    }
    start = end + 1;
  }
  return changes;
}

}  // namespace gtv::whatif
