// The scenario catalogue: one row per scenario. Adding a scenario = a row here, resources/scenarios/NAME.md, a
// function in a scenarios_*.cpp file and its row in scenario_table.cpp.
#include "gtv/experiments/catalog.h"

#include <algorithm>

namespace gtv::exp {
namespace {

const std::vector<ScenarioInfo>& catalogue() {
  static const std::vector<ScenarioInfo> table = {
      {"baseline", "each model alone, the yardstick for the others", false, false},
      {"sequential", "method 1: the models called one after another each iteration", false, false},
      {"sequential-to", "method 2: as sequential, with a redundant .to(device) of the input", false, false},
      {"list", "method 3: each iteration's outputs collected in a list", false, false},
      {"streams", "one CUDA stream per model, the answer the seed proposed", true, false},
      {"threads", "one host thread per model, default streams", false, false},
      {"threads-streams", "one host thread and one stream per model", true, false},
      {"copy-pageable", "each output copied to the host with .to(kCPU): serializes everything", true, false},
      {"copy-pinned", "outputs copied non_blocking into pinned buffers, one synchronize at the end", true, false},
      {"copy-pageable-nonblocking", "non_blocking copies into pageable memory: still synchronous", true, false},
      {"copy-batched", "outputs stay on the GPU, one copy per model at the end", true, false},
      {"timing-methods", "one model timed by stopwatch, stopwatch after synchronize and CUDA events", true, false},
      {"warmup", "first against second matrix product and forward: where the cold-start time goes", true, false},
      {"cpu-vs-gpu", "the same matrix products on the CPU and on each GPU, small and large", true, false},
      {"processes", "one worker process per GPU, each with its own CUPTI, traces merged", true, false},
      {"launch-blocking", "sequential with CUDA_LAUNCH_BLOCKING=1: the case that really is serial", true, false},
      {"cuda-graph", "each model's forward captured once as a CUDA graph and replayed: one graph launch per forward",
       true, false},
      {"ddp", "LargeFcNet trained data-parallel, one process per GPU: one all-reduce of the gradients after backward",
       true, true},
      {"ddp-overlap",
       "as ddp, with gradients all-reduced in buckets during backward, beside the compute (as DistributedDataParallel)",
       true, true},
  };
  return table;
}

// Paragraphs of markdown text: runs of non-blank lines joined with single spaces.
std::vector<std::string> paragraphs(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line.empty()) {
      if (!current.empty()) out.push_back(std::move(current));
      current.clear();
    } else {
      if (!current.empty()) current += ' ';
      current += line;
    }
    pos = end + 1;
  }
  if (!current.empty()) out.push_back(std::move(current));
  return out;
}

// Up to and including the first ". " (or the whole text): a sentence ends at a full stop before a space.
std::string first_sentence(std::string_view text) {
  const std::size_t stop = text.find(". ");
  return std::string(stop == std::string_view::npos ? text : text.substr(0, stop + 1));
}

}  // namespace

std::vector<ScenarioInfo> list_scenarios() { return catalogue(); }

std::optional<ScenarioInfo> find_scenario(std::string_view name) {
  const auto& table = catalogue();
  auto it = std::find_if(table.begin(), table.end(), [&](const ScenarioInfo& info) { return info.name == name; });
  if (it == table.end()) return std::nullopt;
  return *it;
}

std::string lesson_sentence(std::string_view markdown) {
  static constexpr std::string_view kLesson = "**Lesson.**";
  const std::vector<std::string> paras = paragraphs(markdown);
  for (const std::string& p : paras) {
    if (p.rfind(kLesson, 0) != 0) continue;
    std::string_view rest = std::string_view(p).substr(kLesson.size());
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    return first_sentence(rest);
  }
  for (const std::string& p : paras)
    if (p.front() != '#') return first_sentence(p);
  return {};
}

std::string scenario_lesson(std::string_view name) {
  const std::optional<std::string_view> text = scenario_explanation(name);
  return text ? lesson_sentence(*text) : std::string();
}

}  // namespace gtv::exp
