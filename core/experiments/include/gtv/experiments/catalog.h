#pragma once
// The scenario catalogue: which experiments exist, one line on each, their explanations (resources/scenarios/*.md,
// embedded at build time) and the one-sentence lessons drawn from them. It has no LibTorch in it, so every build
// lists the scenarios and teaches their lessons; only running one needs gtv_experiments (runner.h).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gtv::exp {

struct ScenarioInfo {
  std::string name;        // "sequential"
  std::string summary;     // one line for `gtv-cli list`
  bool needs_gpu = false;  // true: without a CUDA GPU the scenario cannot show its point (it may still run)
  bool ranks = false;      // one process per rank of a torch.distributed run (RunConfig::ranks, not models)
};

// Every scenario, in catalogue order.
[[nodiscard]] std::vector<ScenarioInfo> list_scenarios();
[[nodiscard]] std::optional<ScenarioInfo> find_scenario(std::string_view name);

// The scenario's explanation (resources/scenarios/NAME.md, embedded at build time); nullopt for unknown names.
[[nodiscard]] std::optional<std::string_view> scenario_explanation(std::string_view name);

// The first sentence of the "**Lesson.**" paragraph of a scenario explanation (markdown), joined onto one line;
// else the first sentence of the first paragraph that is not a heading. Empty when there is no text.
[[nodiscard]] std::string lesson_sentence(std::string_view markdown);

// lesson_sentence of the scenario's explanation; empty for unknown names.
[[nodiscard]] std::string scenario_lesson(std::string_view name);

}  // namespace gtv::exp
