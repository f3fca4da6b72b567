#include "gtv/model/collectives.h"

#include <algorithm>
#include <map>

#include "gtv/base/text.h"

namespace gtv {

// "nccl" in any case, found without copying the name: this runs for every kernel of a trace, and kernel names run
// to hundreds of characters. OR-ing 0x20 folds exactly the ASCII upper-case letters onto the lower-case ones here
// ('n', 'c' and 'l' have no other byte that folds onto them).
bool is_communication_kernel(std::string_view name) {
  constexpr std::string_view kNccl = "nccl";
  for (std::size_t i = 0; i + kNccl.size() <= name.size(); ++i) {
    std::size_t k = 0;
    while (k < kNccl.size() &&
           (static_cast<unsigned char>(name[i + k]) | 0x20u) == static_cast<unsigned char>(kNccl[k]))
      ++k;
    if (k == kNccl.size()) return true;
  }
  return false;
}

bool CommunicationNames::operator()(StringId name) {
  if (name >= known_.size()) return is_communication_kernel(strings_->view(name));
  std::int8_t& known = known_[name];
  if (known < 0) known = is_communication_kernel(strings_->view(name)) ? 1 : 0;
  return known == 1;
}

std::string collective_kind(std::string_view kernel_name) {
  if (!is_communication_kernel(kernel_name)) return {};
  // "ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)", "ncclKernel_AllGather_RING_LL_Sum_int8_t(...)"
  const std::size_t kernel = kernel_name.find("Kernel_");
  if (kernel == std::string_view::npos) return "NCCL";
  const std::string_view rest = kernel_name.substr(kernel + 7);
  const std::size_t end = rest.find_first_of("_(< ");
  const std::string_view kind = rest.substr(0, end);
  return kind.empty() ? "NCCL" : std::string(kind);
}

bool ends_together(std::string_view kind) { return measures_clocks(kind) || kind == "AllToAll"; }

bool measures_clocks(std::string_view kind) {
  return kind == "AllReduce" || kind == "AllGather" || kind == "ReduceScatter" || kind == "Barrier";
}

bool root_sends(std::string_view kind) { return kind == "Broadcast" || kind == "Scatter"; }

bool root_receives(std::string_view kind) { return kind == "Reduce" || kind == "Gather"; }

bool is_collective_range_name(std::string_view name) {
  return name.starts_with("gloo:") || name.starts_with("nccl:") || name == "record_param_comms";
}

std::string gloo_collective_kind(std::string_view name) {
  constexpr std::string_view kPrefix = "gloo:";
  if (!name.starts_with(kPrefix) || name.size() == kPrefix.size()) return {};
  std::string kind;
  bool upper = true;
  for (const char c : name.substr(kPrefix.size())) {
    if (c == '_') {
      upper = true;
      continue;
    }
    kind += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return kind;
}

namespace {

// An integer arg written as a number or as a string of one ("12", "\"12\""); -1 for anything else.
std::int64_t int_arg(std::string_view json) {
  if (json.size() >= 2 && json.front() == '"' && json.back() == '"') json = json.substr(1, json.size() - 2);
  if (json.empty() || json.size() > 18) return -1;
  std::int64_t v = 0;
  for (const char c : json) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

std::string string_arg(std::string_view json) {
  if (json.size() >= 2 && json.front() == '"' && json.back() == '"')
    return std::string(json.substr(1, json.size() - 2));
  return std::string(json);
}

// What PyTorch's profiler writes about a collective into its args (record_param_comms; kernels of recent
// versions): sequence number, process group, message size, root.
void read_args(const Trace& trace, const Event& e, Collective& c) {
  if (e.args == kNoArgs) return;
  for (const EventArg& a : trace.extra_args(e)) {
    const std::string key = lower_case(a.key);
    if (key == "seq" || key == "sequence number" || key == "seq_num" || key == "collective sequence number")
      c.seq = int_arg(a.value_json);
    else if (key == "process group name" || key == "pg_name")
      c.group = string_arg(a.value_json);
    else if (key == "in msg nelems")
      c.elements = int_arg(a.value_json);
    else if (key == "root" || key == "root rank")
      c.root = int_arg(a.value_json);
  }
}

// Collectives of the lanes, each into the list `bucket` names for its lane (a negative bucket: none): NCCL kernels,
// then, for buckets that got none, Gloo's ranges on host lanes; each list in start order.
template <typename Bucket>
std::vector<std::vector<Collective>> collect(const Trace& trace, std::size_t buckets, Bucket bucket) {
  std::vector<std::vector<Collective>> out(buckets);
  std::map<StringId, std::string> kinds;  // name -> kind ("" for other work)
  auto scan = [&](bool gpu) {
    for (LaneIndex l = 0; l < trace.lanes().size(); ++l) {
      const Lane& lane = trace.lane(l);
      if (lane.is_gpu() != gpu) continue;
      const std::int64_t b = bucket(lane);
      if (b < 0 ||
          (!gpu && !out[static_cast<std::size_t>(b)].empty() && out[static_cast<std::size_t>(b)].front().on_gpu))
        continue;
      for (std::uint32_t i = 0; i < lane.events.size(); ++i) {
        const Event& e = lane.events[i];
        if (gpu ? e.kind != EventKind::Kernel : e.kind != EventKind::Annotation) continue;
        auto [it, fresh] = kinds.try_emplace(e.name);
        if (fresh) it->second = gpu ? collective_kind(trace.name(e)) : gloo_collective_kind(trace.name(e));
        if (it->second.empty()) continue;
        Collective c;
        c.kind = it->second;
        c.start_ns = e.start_ns;
        c.end_ns = e.end_ns();
        c.ref = EventRef{l, i};
        c.on_gpu = gpu;
        read_args(trace, e, c);
        out[static_cast<std::size_t>(b)].push_back(std::move(c));
      }
    }
  };
  scan(true);
  kinds.clear();
  scan(false);
  for (std::vector<Collective>& list : out)
    std::stable_sort(list.begin(), list.end(), [](const Collective& a, const Collective& b) {
      return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns < b.end_ns;
    });
  return out;
}

}  // namespace

std::vector<Collective> find_collectives(const Trace& trace) {
  return std::move(collect(trace, 1, [](const Lane&) { return std::int64_t{0}; }).front());
}

std::vector<std::vector<Collective>> collectives_by_rank(const Trace& trace) {
  const std::vector<RankInfo>& ranks = trace.metadata().ranks;
  return collect(trace, ranks.size(), [&](const Lane& lane) -> std::int64_t {
    const RankInfo* r = lane.is_gpu() ? trace.rank_of_device(lane.device()) : trace.rank_of_pid(lane.key.pid);
    return r == nullptr ? -1 : r - ranks.data();
  });
}

namespace {

using Lists = std::span<const std::span<const Collective>>;

// What matches a collective across ranks without sequence numbers: its group, kind and size (the k-th of that key
// on every rank is one collective).
std::string match_key(const Collective& c) { return c.group + "|" + c.kind + "|" + std::to_string(c.elements); }

// "AllReduce" for a key of kind AllReduce, "AllReduce of 1024 elements" when sizes tell collectives apart, and the
// group when there are several.
std::string key_words(const Collective& c) {
  std::string out = c.kind;
  if (c.elements >= 0) out += " of " + std::to_string(c.elements) + " elements";
  if (!c.group.empty()) out += " in group " + c.group;
  return out;
}

void count_line(std::string_view what, const std::vector<std::size_t>& c, std::size_t n,
                std::span<const std::string> rank_names, std::vector<std::string>& out) {
  std::string line = std::string(what) + ":";
  for (std::size_t r = 0; r < c.size(); ++r)
    line += (r == 0 ? " " : ", ") + rank_names[r] + " ran " + std::to_string(c[r]);
  out.push_back(line + (n == 0 ? "; none are matched" : "; the first " + std::to_string(n) + " are matched"));
}

std::string group_words(const Collective& c) { return c.group.empty() ? "" : " in group " + c.group; }

// A collective's place in the sequence numbers of its rank: its process group, whether it is a point-to-point
// send (PyTorch may number a group's sends apart from its collectives: two counters, two name spaces) and its number.
struct SequenceKey {
  std::string_view group;
  bool p2p = false;
  std::int64_t seq = -1;
  auto operator<=>(const SequenceKey&) const = default;
};

SequenceKey sequence_key(const Collective& c) {
  return {c.group, c.kind == "SendRecv" || c.kind == "Send" || c.kind == "Recv", c.seq};
}

// Where each sequence key sits in one rank's list. Ranks of one run mostly record the first rank's keys in the
// first rank's order: then position i holds the first rank's i-th key and no search is needed. Otherwise the keys
// are sorted with their positions, to be searched. A thousand ranks of a thousand collectives take a few
// comparisons each instead of a tree of strings per rank.
struct SequenceIndex {
  bool as_first = false;
  std::vector<std::pair<SequenceKey, std::size_t>> sorted;

  // The position of `key` on this rank, the first rank's collective `i` having it; npos when the rank has none.
  [[nodiscard]] std::size_t find(const SequenceKey& key, std::size_t i) const {
    if (as_first) return i;
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), key,
                                     [](const auto& entry, const SequenceKey& k) { return entry.first < k; });
    return it != sorted.end() && it->first == key ? it->second : std::string::npos;
  }
  // How many of the rank's collectives have `key`.
  [[nodiscard]] std::size_t count(const SequenceKey& key) const {
    const auto [lo, hi] = std::equal_range(sorted.begin(), sorted.end(), std::pair<SequenceKey, std::size_t>{key, 0},
                                           [](const auto& x, const auto& y) { return x.first < y.first; });
    return static_cast<std::size_t>(hi - lo);
  }
};

std::vector<SequenceIndex> index_sequences(Lists per_rank) {
  std::vector<SequenceIndex> out(per_rank.size());
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    const std::span<const Collective> list = per_rank[r];
    SequenceIndex& index = out[r];
    if (r > 0 && list.size() == per_rank[0].size()) {
      index.as_first = true;
      for (std::size_t i = 0; i < list.size() && index.as_first; ++i)
        index.as_first = sequence_key(list[i]) == sequence_key(per_rank[0][i]);
    }
    if (index.as_first) continue;
    index.sorted.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) index.sorted.emplace_back(sequence_key(list[i]), i);
    std::sort(index.sorted.begin(), index.sorted.end());
  }
  return out;
}

// Why the sequence numbers cannot match collectives across ranks, or empty when they can: a number that one rank
// gives to several collectives of one group. A rank that holds the first rank's keys in its order repeats one only
// where the first rank does, which is checked before it.
std::string repeated_sequence(Lists per_rank, std::span<const SequenceIndex> indexes,
                              std::span<const std::string> rank_names) {
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    const SequenceIndex& index = indexes[r];
    if (index.as_first) continue;
    const auto repeats = std::adjacent_find(index.sorted.begin(), index.sorted.end(), [](const auto& a, const auto& b) {
                           return a.first == b.first;
                         }) != index.sorted.end();
    if (!repeats) continue;
    for (const Collective& c : per_rank[r])
      if (const std::size_t n = index.count(sequence_key(c)); n > 1)
        return rank_names[r] + " gives sequence number " + std::to_string(c.seq) + group_words(c) + " to " +
               std::to_string(n) + " collectives";
  }
  return {};
}

// Matches by group and sequence number; `doubt` receives why the numbers contradict the collectives they name (a
// matched pair of different kinds or sizes, or matched collectives run in different orders), else stays empty.
CollectiveMatch match_by_sequence(Lists per_rank, std::span<const SequenceIndex> indexes,
                                  std::span<const std::string> rank_names, std::string& doubt) {
  CollectiveMatch out;
  out.by_sequence = true;
  std::map<std::string, std::size_t> ordinals;
  // Per rank and group: the position of the last matched collective, which the next must follow. A rank that
  // holds the first rank's keys in its order follows it by construction.
  std::vector<std::map<std::string_view, std::size_t>> last(per_rank.size());
  std::size_t missing = 0;
  for (std::size_t i = 0; i < per_rank[0].size() && doubt.empty(); ++i) {
    const Collective& first = per_rank[0][i];
    const SequenceKey key = sequence_key(first);
    MatchedCollective m{first.kind, ordinals[first.kind]++, {i}, first.seq};
    m.index.reserve(per_rank.size());
    const auto number = [&] { return "sequence number " + std::to_string(first.seq) + group_words(first) + ": "; };
    bool complete = true;
    for (std::size_t r = 1; r < per_rank.size() && complete && doubt.empty(); ++r) {
      const std::size_t at = indexes[r].find(key, i);
      complete = at != std::string::npos;
      if (!complete) break;
      const Collective& other = per_rank[r][at];
      if (other.kind != first.kind) {
        doubt = number() + rank_names[0] + " ran " + first.kind + ", " + rank_names[r] + " " + other.kind;
      } else if (first.elements >= 0 && other.elements >= 0 && first.elements != other.elements) {
        doubt = number() + rank_names[0] + " ran " + first.kind + " of " + std::to_string(first.elements) +
                " elements, " + rank_names[r] + " of " + std::to_string(other.elements);
      } else if (!indexes[r].as_first) {
        if (const auto before = last[r].find(key.group); before != last[r].end() && at < before->second)
          doubt = number() + rank_names[r] + " ran it before a collective that " + rank_names[0] + " ran earlier";
      }
      if (!indexes[r].as_first) last[r][key.group] = at;
      m.index.push_back(at);
    }
    if (complete)
      out.matched.push_back(std::move(m));
    else
      ++missing;
  }
  if (missing > 0)
    out.count_differences.push_back(std::to_string(missing) + " collective(s) of " + rank_names[0] +
                                    " have a sequence number that some rank did not record; not matched");
  return out;
}

CollectiveMatch match_by_order(Lists per_rank, std::span<const std::string> rank_names) {
  CollectiveMatch out;
  // Per rank and key, the positions of that key's collectives in order.
  std::vector<std::map<std::string, std::vector<std::size_t>>> positions(per_rank.size());
  std::map<std::string, std::string> words;  // key -> how a count line names it
  for (std::size_t r = 0; r < per_rank.size(); ++r)
    for (std::size_t i = 0; i < per_rank[r].size(); ++i) {
      const std::string key = match_key(per_rank[r][i]);
      positions[r][key].push_back(i);
      words.try_emplace(key, key_words(per_rank[r][i]));
    }
  std::map<std::string, std::vector<std::size_t>> counts;  // key -> how many each rank ran
  for (std::size_t r = 0; r < per_rank.size(); ++r)
    for (const auto& [key, list] : positions[r]) {
      std::vector<std::size_t>& c = counts[key];
      c.resize(per_rank.size(), 0);
      c[r] = list.size();
    }
  std::map<std::string, std::size_t> common;  // key -> how many every rank ran
  for (const auto& [key, c] : counts) {
    const std::size_t n = *std::min_element(c.begin(), c.end());
    common[key] = n;
    if (n != *std::max_element(c.begin(), c.end())) count_line(words[key], c, n, rank_names, out.count_differences);
  }
  std::map<std::string, std::size_t> seen, ordinals;
  for (std::size_t i = 0; i < per_rank[0].size(); ++i) {
    const Collective& first = per_rank[0][i];
    const std::string key = match_key(first);
    const std::size_t k = seen[key]++;
    const std::size_t ordinal = ordinals[first.kind]++;
    if (k >= common[key]) continue;
    MatchedCollective m{first.kind, ordinal, {}, -1};
    for (std::size_t r = 0; r < per_rank.size(); ++r) m.index.push_back(positions[r][key][k]);
    out.matched.push_back(std::move(m));
  }
  return out;
}

}  // namespace

std::vector<std::span<const Collective>> collective_views(std::span<const std::vector<Collective>> per_rank) {
  return {per_rank.begin(), per_rank.end()};
}

CollectiveMatch match_collectives(std::span<const std::vector<Collective>> per_rank,
                                  std::span<const std::string> rank_names) {
  return match_collectives(collective_views(per_rank), rank_names);
}

CollectiveMatch match_collectives(std::span<const std::span<const Collective>> per_rank,
                                  std::span<const std::string> rank_names) {
  if (per_rank.size() < 2) return {};
  const bool sequenced = std::all_of(per_rank.begin(), per_rank.end(), [](std::span<const Collective> list) {
    return !list.empty() && std::all_of(list.begin(), list.end(), [](const Collective& c) { return c.seq >= 0; });
  });
  if (!sequenced) return match_by_order(per_rank, rank_names);
  // Sequence numbers come from the file: used only when they name one collective each, agree with the kind, size
  // and order of what they match, and match something.
  const std::vector<SequenceIndex> indexes = index_sequences(per_rank);
  std::string doubt = repeated_sequence(per_rank, indexes, rank_names);
  if (doubt.empty()) {
    CollectiveMatch by_sequence = match_by_sequence(per_rank, indexes, rank_names, doubt);
    if (doubt.empty() && by_sequence.matched.empty()) doubt = "no sequence number is recorded by every rank";
    if (doubt.empty()) return by_sequence;
  }
  CollectiveMatch out = match_by_order(per_rank, rank_names);
  out.sequence_doubt = doubt;
  return out;
}

std::string match_basis(const CollectiveMatch& match) {
  if (match.by_sequence) return "process group and sequence number";
  return "process group, kind, size and order (" +
         (match.sequence_doubt.empty() ? std::string("the trace has no sequence numbers")
                                       : "the trace's sequence numbers were not used: " + match.sequence_doubt) +
         ")";
}

}  // namespace gtv
