// Golden reports: every bundled trace (PyTorch profiler fixtures and gtv recordings) read and analysed, its
// Markdown report compared with tests/data/golden/<name>.md. A changed number shows up as a diff.
// GTV_UPDATE_GOLDEN=1 rewrites the golden files instead (then review the diff before committing).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtv/analysis/report.h"
#include "gtv/io/trace_file.h"

namespace gtv::analysis {
namespace {

namespace fs = std::filesystem;

const fs::path kDataDir = GTV_TEST_DATA_DIR;
const fs::path kGoldenDir = kDataDir / "golden";

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<fs::path> bundled_traces() {
  std::vector<fs::path> out;
  auto collect = [&](const fs::path& dir, bool recursive) {
    if (!fs::is_directory(dir)) return;
    if (recursive) {
      for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file() && ends_with(e.path().filename().string(), ".json.gz")) out.push_back(e.path());
    } else {
      for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file() && ends_with(e.path().filename().string(), ".json.gz")) out.push_back(e.path());
    }
  };
  collect(kDataDir / "pytorch", false);
  collect(kDataDir.parent_path().parent_path() / "resources" / "traces", true);
  std::sort(out.begin(), out.end());
  return out;
}

// tests/data/pytorch/x.json.gz -> pytorch/x.md, resources/traces/h200x1/x.json.gz -> h200x1/x.md: recordings of one
// scenario on different machines share a file name.
std::string golden_name(const fs::path& trace) {
  std::string name = trace.filename().string();
  name = name.substr(0, name.size() - std::string(".json.gz").size()) + ".md";
  return (trace.parent_path().filename() / name).generic_string();
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_atomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
  }
  fs::rename(tmp, path);
}

// The first line where two texts differ, for a readable failure.
std::string first_difference(const std::string& expected, const std::string& actual) {
  std::istringstream a(expected), b(actual);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la));
    const bool more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a && !more_b) return "texts differ only in line endings";
    if (la != lb || more_a != more_b)
      return "line " + std::to_string(line) + ":\n  golden: " + (more_a ? la : "<end>") +
             "\n  now:    " + (more_b ? lb : "<end>");
  }
}

bool updating() {
  const char* flag = std::getenv("GTV_UPDATE_GOLDEN");
  return flag != nullptr && std::string(flag) == "1";
}

}  // namespace

TEST(Golden, MarkdownReportOfEveryBundledTrace) {
  const std::vector<fs::path> traces = bundled_traces();
  ASSERT_FALSE(traces.empty()) << "no traces under " << kDataDir / "pytorch";
  std::set<std::string> names;
  for (const fs::path& path : traces) {
    SCOPED_TRACE(path.string());
    const std::string name = golden_name(path);
    EXPECT_TRUE(names.insert(name).second) << "two bundled traces map to the golden file " << name;
    Expected<Trace> trace = io::read_trace(path.string());
    ASSERT_TRUE(trace.ok()) << trace.error().message;
    const std::string report = format_report(analyze(*trace), Format::Markdown);
    const fs::path golden = kGoldenDir / name;
    if (updating()) {
      fs::create_directories(golden.parent_path());
      write_atomically(golden, report);
      continue;
    }
    ASSERT_TRUE(fs::exists(golden)) << golden << " is missing: run with GTV_UPDATE_GOLDEN=1 to create it";
    const std::string expected = read_file(golden);
    EXPECT_TRUE(expected == report) << golden << " differs at " << first_difference(expected, report);
  }
  if (updating()) return;
  for (const auto& entry : fs::recursive_directory_iterator(kGoldenDir)) {
    const std::string name = fs::relative(entry.path(), kGoldenDir).generic_string();
    if (entry.is_regular_file() && ends_with(name, ".md")) {
      EXPECT_TRUE(names.count(name)) << "golden file " << name << " has no bundled trace: remove it";
    }
  }
}

}  // namespace gtv::analysis
