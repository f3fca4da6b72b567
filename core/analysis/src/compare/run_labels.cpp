// The names two runs go by in a comparison: never the same name for both, so "x is 1.98x faster than x" cannot be
// printed.
#include <vector>

#include "gtv/analysis/compare.h"

namespace gtv::analysis {
namespace {

// The non-empty components of a path, split at '/'.
std::vector<std::string_view> components(std::string_view path) {
  std::vector<std::string_view> out;
  std::size_t from = 0;
  while (from <= path.size()) {
    const std::size_t slash = std::min(path.find('/', from), path.size());
    if (slash > from) out.push_back(path.substr(from, slash - from));
    from = slash + 1;
  }
  return out;
}

// The last `count` folders of `folders`, then the stem: "r1/x".
std::string under_folders(const std::vector<std::string_view>& folders, std::size_t count, const std::string& stem) {
  std::string out;
  for (std::size_t i = folders.size() - count; i < folders.size(); ++i) out += std::string(folders[i]) + "/";
  return out + stem;
}

}  // namespace

std::pair<std::string, std::string> run_labels(std::string_view path_a, const std::string& stem_a,
                                               std::string_view path_b, const std::string& stem_b) {
  if (stem_a != stem_b) return {stem_a, stem_b};
  std::vector<std::string_view> a = components(path_a), b = components(path_b);
  const std::string_view file_a = a.empty() ? std::string_view() : a.back();
  const std::string_view file_b = b.empty() ? std::string_view() : b.back();
  if (file_a != file_b) return {std::string(file_a), std::string(file_b)};
  if (!a.empty()) a.pop_back();
  if (!b.empty()) b.pop_back();
  // From the nearest folder outwards, the first level where the two paths differ (one path running out of folders
  // first differs there too).
  for (std::size_t depth = 1; depth <= std::max(a.size(), b.size()); ++depth) {
    const bool in_a = depth <= a.size(), in_b = depth <= b.size();
    if (in_a && in_b && a[a.size() - depth] == b[b.size() - depth]) continue;
    return {under_folders(a, std::min(depth, a.size()), stem_a), under_folders(b, std::min(depth, b.size()), stem_b)};
  }
  return {stem_a + " (A)", stem_b + " (B)"};
}

}  // namespace gtv::analysis
