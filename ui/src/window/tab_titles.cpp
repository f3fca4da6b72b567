#include "gtv/ui/tab_titles.h"

#include <algorithm>
#include <cstddef>
#include <map>

namespace gtv::ui {
namespace {

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (begin <= path.size()) {
    const std::size_t end = std::min(path.find('/', begin), path.size());
    if (end > begin) parts.push_back(path.substr(begin, end - begin));
    begin = end + 1;
  }
  return parts;
}

// The last `folders` parent folders of a path (fewer where the path has fewer), joined by '/'.
std::string parent_suffix(const std::vector<std::string>& parts, std::size_t folders) {
  const std::size_t parents = parts.empty() ? 0 : parts.size() - 1;
  const std::size_t n = std::min(folders, parents);
  std::string out;
  for (std::size_t i = parents - n; i < parents; ++i) out += (out.empty() ? "" : "/") + parts[i];
  return out;
}

}  // namespace

std::vector<std::string> distinct_tab_titles(const std::vector<std::string>& paths) {
  std::vector<std::vector<std::string>> parts;
  parts.reserve(paths.size());
  for (const std::string& p : paths) parts.push_back(split_path(p));
  auto file_name = [&](std::size_t i) { return parts[i].empty() ? paths[i] : parts[i].back(); };

  std::vector<std::string> titles(paths.size());
  std::vector<std::size_t> copy_number(paths.size(), 1);
  std::map<std::string, std::size_t> seen_paths;
  for (std::size_t i = 0; i < paths.size(); ++i) copy_number[i] = ++seen_paths[paths[i]];

  for (std::size_t i = 0; i < paths.size(); ++i) {
    titles[i] = file_name(i);
    // The others with the same file name but another path: grow the parent suffix until it differs from all.
    std::vector<std::size_t> rivals;
    for (std::size_t j = 0; j < paths.size(); ++j)
      if (paths[j] != paths[i] && file_name(j) == file_name(i)) rivals.push_back(j);
    if (!rivals.empty()) {
      const std::size_t max_folders = parts[i].empty() ? 0 : parts[i].size() - 1;
      std::size_t folders = 1;
      auto distinct = [&](std::size_t k) {
        return std::none_of(rivals.begin(), rivals.end(),
                            [&](std::size_t j) { return parent_suffix(parts[j], k) == parent_suffix(parts[i], k); });
      };
      while (folders < max_folders && !distinct(folders)) ++folders;
      const std::string where = parent_suffix(parts[i], folders);
      titles[i] += " \u2014 " + (where.empty() ? std::string("/") : where);
    }
    if (copy_number[i] > 1) titles[i] += " (" + std::to_string(copy_number[i]) + ")";
  }
  return titles;
}

}  // namespace gtv::ui
