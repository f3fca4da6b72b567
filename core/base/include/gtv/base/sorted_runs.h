#pragma once
// Sorting a vector that is made of a few sorted runs (the events of one lane, then of the next), as the lanes of a
// trace give most lists an analysis builds: the runs are merged instead of sorted, and a sorted vector is only read.
// For a strict weak order under which equal elements are the same value (a total order on the whole element), the
// result is what std::sort gives.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace gtv {

template <typename T, typename Less>
void sort_runs(std::vector<T>& values, Less less, std::size_t max_runs = 16) {
  std::vector<std::size_t> run_ends;
  auto run_end = std::is_sorted_until(values.begin(), values.end(), less);
  while (run_end != values.end()) {
    if (run_ends.size() == max_runs) {
      std::sort(values.begin(), values.end(), less);
      return;
    }
    run_ends.push_back(static_cast<std::size_t>(run_end - values.begin()));
    run_end = std::is_sorted_until(run_end, values.end(), less);
  }
  for (const std::size_t end : run_ends) {
    const auto middle = values.begin() + static_cast<std::ptrdiff_t>(end);
    std::inplace_merge(values.begin(), middle, std::is_sorted_until(middle, values.end(), less), less);
  }
}

template <typename T>
void sort_runs(std::vector<T>& values) {
  sort_runs(values, [](const T& a, const T& b) { return a < b; });
}

}  // namespace gtv
