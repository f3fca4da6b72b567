#include "gtv/whatif/change.h"

#include <algorithm>

namespace gtv::whatif {
namespace {

std::string spelled(const ChangeInfo& c) {
  return c.parameter.empty() ? std::string(c.spelling) : std::string(c.spelling) + "=" + std::string(c.parameter);
}

std::string joined_names(ChangeList list) {
  std::string out;
  auto add = [&](const std::string& text) { out += (out.empty() ? "" : ", ") + text; };
  for (const bool with_parameter : {false, true})
    for (const ChangeInfo& c : kChangeTable)
      if (c.parameter.empty() != with_parameter && (list == ChangeList::All || c.replayed)) add(spelled(c));
  if (list == ChangeList::Replayed)
    for (const ChangeInfo& c : kChangeTable)
      if (!c.replayed) add(spelled(c) + " (given alone)");
  return out;
}

}  // namespace

std::string_view change_names(ChangeList list) {
  static const std::array<std::string, 3> kNames{joined_names(ChangeList::All), joined_names(ChangeList::Replayed),
                                                 joined_names(ChangeList::Drawn)};
  return kNames[static_cast<std::size_t>(list)];
}

std::vector<Change> parameterless_changes() {
  std::vector<Change> out;
  for (const ChangeInfo& c : kChangeTable)
    if (c.parameter.empty()) out.push_back(Change{c.kind, {}, {}});
  return out;
}

std::string Change::text() const {
  const ChangeInfo& c = info(kind);
  if (kind == ChangeKind::NoSync) return std::string(c.spelling) + "=" + name;
  if (kind != ChangeKind::Placement) return std::string(c.spelling);
  std::string out = std::string(c.spelling) + "=";
  for (std::size_t i = 0; i < placement.size(); ++i) out += (i ? "," : "") + std::to_string(placement[i]);
  return out;
}

Expected<Change> parse_change(std::string_view text) {
  for (const ChangeInfo& c : kChangeTable)
    if (c.parameter.empty() && text == c.spelling) return Change{c.kind, {}, {}};
  const std::string no_sync_prefix = std::string(info(ChangeKind::NoSync).spelling) + "=";
  const std::string placement_prefix = std::string(info(ChangeKind::Placement).spelling) + "=";
  if (text.starts_with(no_sync_prefix)) {
    const std::string_view name = text.substr(no_sync_prefix.size());
    if (name.empty()) return Error{"no-sync= needs the name of a call (no-sync=cudaDeviceSynchronize)"};
    return Change{ChangeKind::NoSync, std::string(name), {}};
  }
  if (text.starts_with(placement_prefix)) {
    Change c{ChangeKind::Placement, {}, {}};
    std::string_view rest = text.substr(placement_prefix.size());
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
      if (!info(c.kind).replayed)
        return Error{c.text() +
                     " is predicted from the collectives' arrivals, not by replaying the graph: give it alone"};
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
