#include "gtv/model/collectives.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace gtv {
namespace {

std::string lower_case(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

bool is_communication_kernel(std::string_view name) { return lower_case(name).find("nccl") != std::string::npos; }

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
        if (!it->second.empty())
          out[static_cast<std::size_t>(b)].push_back({it->second, e.start_ns, e.end_ns(), EventRef{l, i}, gpu});
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

CollectiveMatch match_collectives(std::span<const std::vector<Collective>> per_rank,
                                  std::span<const std::string> rank_names) {
  CollectiveMatch out;
  if (per_rank.size() < 2) return out;
  // Per rank and kind, the positions of that kind's collectives in order.
  std::vector<std::map<std::string, std::vector<std::size_t>>> positions(per_rank.size());
  for (std::size_t r = 0; r < per_rank.size(); ++r)
    for (std::size_t i = 0; i < per_rank[r].size(); ++i) positions[r][per_rank[r][i].kind].push_back(i);
  std::map<std::string, std::vector<std::size_t>> counts;  // kind -> how many each rank ran
  for (std::size_t r = 0; r < per_rank.size(); ++r)
    for (const auto& [kind, list] : positions[r]) {
      std::vector<std::size_t>& c = counts[kind];
      c.resize(per_rank.size(), 0);
      c[r] = list.size();
    }
  std::map<std::string, std::size_t> common;  // kind -> how many every rank ran
  for (const auto& [kind, c] : counts) {
    const std::size_t n = *std::min_element(c.begin(), c.end());
    common[kind] = n;
    if (n == *std::max_element(c.begin(), c.end())) continue;
    std::string line = kind + ":";
    for (std::size_t r = 0; r < c.size(); ++r)
      line += (r == 0 ? " " : ", ") + rank_names[r] + " ran " + std::to_string(c[r]);
    out.count_differences.push_back(
        line + (n == 0 ? "; none are matched" : "; the first " + std::to_string(n) + " are matched"));
  }
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < per_rank[0].size(); ++i) {
    const std::string& kind = per_rank[0][i].kind;
    const std::size_t k = seen[kind]++;
    if (k >= common[kind]) continue;
    MatchedCollective m{kind, k, {}};
    for (std::size_t r = 0; r < per_rank.size(); ++r) m.index.push_back(positions[r][kind][k]);
    out.matched.push_back(std::move(m));
  }
  return out;
}

}  // namespace gtv
