// The "Critical path across ranks" section of the reduce report, in text, Markdown and JSON.
#include <algorithm>
#include <cstdio>
#include <map>

#include "gtv/base/printable.h"
#include "gtv/base/time.h"
#include "gtv/ranks/step_paths.h"

namespace gtv::ranks {
namespace {

// Links of one step's chain written out before "and N more links".
constexpr std::size_t kListedLinks = 8;
// Ranks named in the tally before "and N more ranks".
constexpr std::size_t kListedRanks = 5;

std::string percent(TimeNs part_ns, TimeNs whole_ns) {
  if (whole_ns <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * static_cast<double>(part_ns) / static_cast<double>(whole_ns));
  return buf;
}

std::string link_words(const PathLink& l, const analysis::Stragglers& s) {
  const std::string length = format_duration(l.end_ns - l.start_ns);
  const std::string rank = "rank " + std::to_string(l.rank);
  switch (l.kind) {
    case LinkKind::Work:
      return rank + " works " + length;
    case LinkKind::Collective: {
      const analysis::CollectiveArrivals& c = s.collectives[static_cast<std::size_t>(l.collective)];
      return analysis::collective_words(c.kind) + " #" + std::to_string(c.ordinal + 1) + " " + length + " (" + rank +
             "'s part)";
    }
    case LinkKind::Tail:
      return "tail " + length + " (to " + rank + "'s end)";
  }
  return {};
}

std::vector<std::string> section_lines(const StepPaths& p, const analysis::Stragglers& s, analysis::Listing listing) {
  std::vector<std::string> lines;
  if (p.basis == StepBasis::ProfilerSteps) {
    lines.push_back("Steps: the " + std::to_string(p.steps.size()) +
                    " profiler steps every rank marks (ProfilerStep#N), each from its earliest start on any rank to "
                    "its latest end; a step holds the collectives whose chain arrival falls between its start and "
                    "the next step's.");
  } else {
    lines.push_back("Steps: " + std::to_string(p.steps.size()) +
                    ", each ending with a collective every rank waits for (all-reduce, all-gather, reduce-scatter, "
                    "barrier, all-to-all), from the end of the one before (the first from the run's first recorded "
                    "activity) to its latest end on any rank; " +
                    (p.basis_note.empty() ? std::string("the summaries mark no profiler steps") : p.basis_note) + ".");
  }
  lines.push_back(
      "Each step's chain runs through the rank each collective waited for (the last to arrive where nobody waited): "
      "its work from where the chain stood to its arrival (whatever kept it from arriving earlier), then its part "
      "of the collective; a tail runs to the "
      "step's end. The links add up to the step's length. The bounding rank did the most work on the chain; its "
      "share is that work over the step's length.");
  std::map<std::int64_t, std::size_t> bounded;
  for (const StepPath& step : p.steps)
    if (step.bounding_rank >= 0) ++bounded[step.bounding_rank];
  std::vector<std::pair<std::int64_t, std::size_t>> tally(bounded.begin(), bounded.end());
  std::stable_sort(tally.begin(), tally.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string t = "Bounding rank: ";
  for (std::size_t i = 0; i < std::min(tally.size(), kListedRanks); ++i)
    t += (i == 0 ? "" : ", ") + std::string("rank ") + std::to_string(tally[i].first) + " in " +
         std::to_string(tally[i].second);
  if (tally.empty()) t += "none (no step's chain holds work)";
  if (tally.size() > kListedRanks) t += " and " + std::to_string(tally.size() - kListedRanks) + " more ranks";
  lines.push_back(t + " of " + std::to_string(p.steps.size()) + " steps.");
  const std::size_t shown = analysis::listed_count(p.steps.size(), listing, analysis::kMaxListedEntries);
  for (std::size_t k = 0; k < shown; ++k) {
    const StepPath& step = p.steps[k];
    const TimeNs length = step.end_ns - step.start_ns;
    std::string line = printable(step.name) + " (" + format_duration(length) + "): ";
    if (step.bounding_rank >= 0)
      line += "bounded by rank " + std::to_string(step.bounding_rank) + ", " + format_duration(step.bounding_work_ns) +
              " of work on the chain (" + percent(step.bounding_work_ns, length) + " of the step)";
    else
      line += "no work on the chain";
    line += "; chain: ";
    for (std::size_t i = 0; i < std::min(step.links.size(), kListedLinks); ++i)
      line += (i == 0 ? "" : ", ") + link_words(step.links[i], s);
    if (step.links.size() > kListedLinks)
      line += " and " + std::to_string(step.links.size() - kListedLinks) + " more links";
    lines.push_back(line);
  }
  if (const std::string more = analysis::left_out_line(p.steps.size(), shown, "step", "steps",
                                                       "gtv-cli reduce --all lists them; --format json has every one");
      !more.empty())
    lines.push_back(more);
  return lines;
}

const char* kind_name(LinkKind k) {
  switch (k) {
    case LinkKind::Work:
      return "work";
    case LinkKind::Collective:
      return "collective";
    case LinkKind::Tail:
      return "tail";
  }
  return "";
}

// The JSON value, indented to sit one level inside the report's top-level object.
std::string json_value(const StepPaths& p) {
  std::string out = "{\n    \"basis\": ";
  out += p.basis == StepBasis::ProfilerSteps ? "\"profiler_steps\"" : "\"collectives\"";
  out += ",\n    \"basis_note\": " + json_quoted(p.basis_note) + ",\n    \"steps\": [";
  for (std::size_t k = 0; k < p.steps.size(); ++k) {
    const StepPath& s = p.steps[k];
    out += (k == 0 ? "\n      " : ",\n      ");
    out += "{\"name\": " + json_quoted(s.name) + ", \"start_ns\": " + std::to_string(s.start_ns) +
           ", \"end_ns\": " + std::to_string(s.end_ns) + ", \"bounding_rank\": " + std::to_string(s.bounding_rank) +
           ", \"bounding_work_ns\": " + std::to_string(s.bounding_work_ns) + ", \"links\": [";
    for (std::size_t i = 0; i < s.links.size(); ++i) {
      const PathLink& l = s.links[i];
      out += (i == 0 ? "" : ", ");
      out += "{\"kind\": \"" + std::string(kind_name(l.kind)) + "\", \"rank\": " + std::to_string(l.rank) +
             ", \"start_ns\": " + std::to_string(l.start_ns) + ", \"end_ns\": " + std::to_string(l.end_ns) +
             ", \"collective\": " + std::to_string(l.collective) + "}";
    }
    out += "]}";
  }
  out += p.steps.empty() ? "]\n  }" : "\n    ]\n  }";
  return out;
}

}  // namespace

std::string format_step_paths(const StepPaths& paths, const analysis::Stragglers& stragglers, analysis::Format format,
                              analysis::Listing listing) {
  if (paths.basis == StepBasis::None) return {};
  const std::string title = "Critical path across ranks";
  switch (format) {
    case analysis::Format::Text: {
      std::string out = "\n" + title + "\n" + std::string(title.size(), '-') + "\n";
      for (const std::string& l : section_lines(paths, stragglers, listing)) out += "  " + l + "\n";
      return out;
    }
    case analysis::Format::Markdown: {
      std::string out = "\n## " + title + "\n\n";
      for (const std::string& l : section_lines(paths, stragglers, listing)) out += "- " + l + "\n";
      return out;
    }
    case analysis::Format::Json:
      return json_value(paths);
  }
  return {};
}

}  // namespace gtv::ranks
