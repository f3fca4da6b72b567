#include "gtv/ui/run_alignment.h"

#include <algorithm>

#include "gtv/analysis/compare.h"

namespace gtv::ui {
namespace {

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

std::optional<TimeNs> steady_state_anchor_ns(const Trace& trace) {
  if (const auto steady = analysis::steady_part(trace)) return steady->start_ns;
  return std::nullopt;
}

TimeNs alignment_anchor_ns(const Trace& trace) { return steady_state_anchor_ns(trace).value_or(trace.start_ns()); }

TimeNs steady_span_ns(const Trace& trace) {
  const auto steady = analysis::steady_part(trace);
  return steady ? steady->length_ns() : 0;
}

std::vector<TimeNs> alignment_offsets_ns(const std::vector<TimeNs>& anchors_ns) {
  std::vector<TimeNs> offsets;
  offsets.reserve(anchors_ns.size());
  for (TimeNs a : anchors_ns) offsets.push_back(a - anchors_ns.front());
  return offsets;
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

}  // namespace gtv::ui
