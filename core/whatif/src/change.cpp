#include "gtv/whatif/change.h"

#include <algorithm>

namespace gtv::whatif {
namespace {

struct Named {
  std::string_view text;
  ChangeKind kind;
};
constexpr Named kPlain[] = {
    {"streams", ChangeKind::Streams},     {"pinned", ChangeKind::Pinned},
    {"graphs", ChangeKind::Graphs},       {"no-launch-blocking", ChangeKind::NoLaunchBlocking},
    {"processes", ChangeKind::Processes}, {"balanced-ranks", ChangeKind::BalancedRanks},
};

}  // namespace

std::string_view change_names() {
  return "streams, pinned, graphs, no-launch-blocking, processes, balanced-ranks, no-sync=NAME, "
         "placement=GPU,GPU,...";
}

std::string Change::text() const {
  for (const Named& n : kPlain)
    if (n.kind == kind) return std::string(n.text);
  if (kind == ChangeKind::NoSync) return "no-sync=" + name;
  std::string out = "placement=";
  for (std::size_t i = 0; i < placement.size(); ++i) out += (i ? "," : "") + std::to_string(placement[i]);
  return out;
}

Expected<Change> parse_change(std::string_view text) {
  for (const Named& n : kPlain)
    if (text == n.text) return Change{n.kind, {}, {}};
  constexpr std::string_view kNoSync = "no-sync=";
  constexpr std::string_view kPlacement = "placement=";
  if (text.starts_with(kNoSync)) {
    const std::string_view name = text.substr(kNoSync.size());
    if (name.empty()) return Error{"no-sync= needs the name of a call (no-sync=cudaDeviceSynchronize)"};
    return Change{ChangeKind::NoSync, std::string(name), {}};
  }
  if (text.starts_with(kPlacement)) {
    Change c{ChangeKind::Placement, {}, {}};
    std::string_view rest = text.substr(kPlacement.size());
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      const std::string_view item = rest.substr(0, comma);
      if (item.empty() || item.size() > 3 ||
          !std::all_of(item.begin(), item.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
        return Error{"placement=: '" + std::string(item) + "' is not a GPU index (placement=0,1,0)"};
      int gpu = 0;
      for (const char ch : item) gpu = gpu * 10 + (ch - '0');
      c.placement.push_back(gpu);
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
      if (rest.empty()) return Error{"placement=: a GPU index is missing after the last comma"};
    }
    if (c.placement.empty()) return Error{"placement= needs a GPU per model (placement=0,1,0)"};
    return c;
  }
  return Error{"unknown change '" + std::string(text) + "' (known: " + std::string(change_names()) + ")"};
}

Expected<Ok> check_compatible(std::span<const Change> changes) {
  if (changes.size() > 1)
    for (const Change& c : changes)
      if (c.kind == ChangeKind::BalancedRanks)
        return Error{
            "balanced-ranks is predicted from the collectives' arrivals, not by replaying the graph: give it "
            "alone"};
  for (std::size_t i = 0; i < changes.size(); ++i)
    for (std::size_t j = i + 1; j < changes.size(); ++j) {
      if (changes[i].kind != changes[j].kind) continue;
      if (changes[i].kind == ChangeKind::NoSync && changes[i].name != changes[j].name) continue;
      if (changes[i].text() == changes[j].text()) return Error{"change '" + changes[i].text() + "' is given twice"};
      return Error{"changes '" + changes[i].text() + "' and '" + changes[j].text() + "' conflict"};
    }
  return Ok{};
}

}  // namespace gtv::whatif
