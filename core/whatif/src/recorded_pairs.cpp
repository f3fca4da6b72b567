#include "gtv/whatif/recorded_pairs.h"

#include <array>

namespace gtv::whatif {
namespace {

// Seven pairs on one H200 (every model on cuda:0), and on two H200s the seed placement (models on cuda:0, cuda:1,
// cuda:0) undone from its recording, and its pageable copies made pinned.
constexpr std::array<RecordedPair, 9> kScored = {{
    {"h200x1/sequential", "streams", "h200x1/streams"},
    {"h200x1/copy-pageable", "pinned", "h200x1/copy-pinned"},
    {"h200x1/sequential", "graphs", "h200x1/cuda-graph"},
    {"h200x1/launch-blocking", "no-launch-blocking", "h200x1/sequential"},
    {"h200x1/threads", "processes", "h200x1/processes"},
    {"h200x1/threads", "streams", "h200x1/threads-streams"},
    {"h200x1/baseline", "no-sync=cudaDeviceSynchronize", "h200x1/sequential"},
    {"h200x2/sequential", "placement=0,0,0", "h200x1/sequential"},
    {"h200x2/copy-pageable", "pinned", "h200x2/copy-pinned"},
}};

constexpr std::array<RecordedPair, 8> kFurther = {{
    {"h200x2/sequential", "streams", "h200x2/streams"},
    {"h200x2/threads", "streams", "h200x2/threads-streams"},
    {"h200x2/threads", "processes", "h200x2/processes"},
    {"h200x2/launch-blocking", "no-launch-blocking", "h200x2/sequential"},
    {"h200x2/copy-pageable-nonblocking", "pinned", "h200x2/copy-pinned"},
    {"h200x1/sequential-50iters", "streams", "h200x1/streams-50iters"},
    {"h200x2/streams", "placement=0,0,0", "h200x1/streams"},
    {"h200x2/sequential", "placement=0,0,0 streams", "h200x1/streams"},
}};

}  // namespace

std::span<const RecordedPair> scored_pairs() { return kScored; }

std::span<const RecordedPair> further_pairs() { return kFurther; }

const RecordedPair* find_recorded_pair(std::string_view from, std::string_view changes) {
  for (const auto pairs : {scored_pairs(), further_pairs()})
    for (const RecordedPair& p : pairs)
      if (p.from == from && p.changes == changes) return &p;
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
