// A prediction as text, Markdown or JSON.
#include <cstdio>

#include "gtv/base/printable.h"
#include "gtv/whatif/predict.h"

namespace gtv::whatif {
namespace {

std::string ms(TimeNs ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", double(ns) / 1e6);
  return buf;
}

std::string ratio(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", x);
  return buf;
}

std::string percent(TimeNs part, TimeNs whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", whole > 0 ? 100.0 * double(part) / double(whole) : 0.0);
  return buf;
}

std::string json_string(std::string_view s) { return json_quoted(s); }

std::string changes_text(std::span<const Change> changes) {
  std::string out;
  for (const Change& c : changes) out += (out.empty() ? "" : " + ") + c.text();
  return out;
}

// Names from the trace (measurements, calls, GPUs, models) and from the command line: shown on a terminal or in
// Markdown, none may act on the terminal or end a line (printable.h).
Prediction printable_prediction(const Prediction& unsafe) {
  Prediction p = unsafe;
  p.window = printable(p.window);
  for (PathShare& s : p.path) s.what = printable(s.what);
  for (auto* list : {&p.applied, &p.assumptions, &p.warnings})
    for (std::string& s : *list) s = printable(s);
  return p;
}

std::string speed_sentence(const Prediction& p) {
  // A window of zero length, recorded or predicted, has no ratio (not "infx slower").
  if (p.recorded_ns <= 0 || p.predicted_ns <= 0) return "no speed-up to state (a window of zero length)";
  const double s = p.speedup();
  if (s >= 1.0) return ratio(s) + " faster than recorded";
  return ratio(1.0 / s) + " slower than recorded";
}

TimeNs path_total(const Prediction& p) {
  TimeNs total = 0;
  for (const PathShare& s : p.path) total += s.ns;
  return total;
}

std::string text(const Prediction& unsafe, std::span<const Change> changes, bool markdown) {
  const Prediction p = printable_prediction(unsafe);
  const std::string bullet = markdown ? "- " : "  - ";
  const std::string asked = printable(changes_text(changes));
  std::string out = markdown ? "## What if: " + asked + "\n\n" : "What if: " + asked + "\n";
  out += (markdown ? "**Window:** " : "Window:     ") + p.window + "\n";
  if (markdown) out += "\n";
  out += (markdown ? "**Recorded:** " : "Recorded:   ") + ms(p.recorded_ns) +
         " (the unchanged replay: " + ms(p.replayed_ns) + ")\n";
  if (markdown) out += "\n";
  out += (markdown ? "**Predicted:** " : "Predicted:  ") + ms(p.predicted_ns) + ", band " + ms(p.low_ns) + " to " +
         ms(p.high_ns) + ": " + speed_sentence(p) + "\n";
  out += markdown ? "\n### Changes\n\n" : "Changes:\n";
  for (const std::string& s : p.applied) out += bullet + s + "\n";
  out += (markdown ? "\n### Predicted critical path of " : "Predicted critical path of ") + p.window +
         (markdown ? "\n\n" : ":\n");
  const TimeNs total = path_total(p);
  for (const PathShare& s : p.path) out += bullet + s.what + ": " + ms(s.ns) + " (" + percent(s.ns, total) + ")\n";
  out += markdown ? "\n### Assumptions\n\n" : "Assumptions:\n";
  for (const std::string& s : p.assumptions) out += bullet + s + "\n";
  if (!p.warnings.empty()) {
    out += markdown ? "\n### Warnings\n\n" : "Warnings:\n";
    for (const std::string& s : p.warnings) out += bullet + s + "\n";
  }
  return out;
}

std::string json(const Prediction& p, std::span<const Change> changes) {
  auto list = [](const std::vector<std::string>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + json_string(v[i]);
    return out + "]";
  };
  std::vector<std::string> names;
  names.reserve(changes.size());
  for (const Change& c : changes) names.push_back(c.text());
  std::string out = "{\n";
  out += "  \"changes\": " + list(names) + ",\n";
  out += "  \"window\": " + json_string(p.window) + ",\n";
  out += "  \"whole_trace\": " + std::string(p.whole_trace ? "true" : "false") + ",\n";
  out += "  \"recorded_ns\": " + std::to_string(p.recorded_ns) + ",\n";
  out += "  \"replayed_ns\": " + std::to_string(p.replayed_ns) + ",\n";
  out += "  \"predicted_ns\": " + std::to_string(p.predicted_ns) + ",\n";
  out += "  \"band_ns\": [" + std::to_string(p.low_ns) + ", " + std::to_string(p.high_ns) + "],\n";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", p.speedup());
  out += "  \"speedup\": " + std::string(buf) + ",\n";
  out += "  \"critical_path\": [";
  for (std::size_t i = 0; i < p.path.size(); ++i)
    out += std::string(i ? ", " : "") + "{\"what\": " + json_string(p.path[i].what) +
           ", \"ns\": " + std::to_string(p.path[i].ns) + "}";
  out += "],\n";
  out += "  \"applied\": " + list(p.applied) + ",\n";
  out += "  \"assumptions\": " + list(p.assumptions) + ",\n";
  out += "  \"warnings\": " + list(p.warnings) + "\n}\n";
  return out;
}

}  // namespace

std::string format_prediction(const Prediction& p, std::span<const Change> changes, Format format) {
  switch (format) {
    case Format::Json:
      return json(p, changes);
    case Format::Markdown:
      return text(p, changes, true);
    case Format::Text:
      break;
  }
  return text(p, changes, false);
}

}  // namespace gtv::whatif
