// The oracle against `gtv-cli analyze --format json` on every bundled recording (resources/traces) and every test
// fixture (tests/data, the golden reports left out): one test per file, every headline number compared.
#include "oracle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "analyze_json.h"
#include "compare_file.h"
#include "gtv/io/trace_file.h"
#include "oracle_checks.h"

namespace gtv::oracle {
namespace {

namespace fs = std::filesystem;

struct TraceFile {
  std::string path;
  std::string name;  // the test's name: the path under the source tree, letters and digits only
};

// GoogleTest prints a test's parameter: the file's path, not its bytes.
void PrintTo(const TraceFile& file, std::ostream* os) { *os << file.path; }  // NOLINT(readability-identifier-naming)

bool is_trace(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.find(".json") != std::string::npos || name.ends_with(".sqlite");
}

std::vector<TraceFile> trace_files() {
  const fs::path source = GTV_SOURCE_DIR;
  std::vector<TraceFile> out;
  for (const char* root : {"resources/traces", "tests/data"}) {
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(source / root)) {
      const fs::path relative = fs::relative(entry.path(), source);
      if (!entry.is_regular_file() || !is_trace(entry.path()) || relative.string().starts_with("tests/data/golden"))
        continue;
      std::string name = relative.string();
      for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      out.push_back({entry.path().string(), name});
    }
  }
  std::sort(out.begin(), out.end(), [](const TraceFile& a, const TraceFile& b) { return a.name < b.name; });
  return out;
}

class OracleAgrees : public testing::TestWithParam<TraceFile> {};

TEST_P(OracleAgrees, WithAnalyze) {
  const std::size_t compared = compare_file(GetParam().path);
  EXPECT_GT(compared, 10u) << GetParam().path << ": too few numbers compared";
  RecordProperty("numbers_compared", static_cast<int>(compared));
}

// A run merged from rank files (GPU ids renumbered, ranks on one clock), as `gtv-cli merge` writes it.
TEST(OracleMerged, GlooRanksAgreeWithAnalyze) {
  const std::string data = std::string(GTV_SOURCE_DIR) + "/tests/data/pytorch/";
  const std::string merged = testing::TempDir() + "oracle_ddp_gloo_merged.json.gz";
  const std::string command = "'" + oracle_cli_path() + "' merge '" + data + "ddp_gloo_rank0.json.gz' '" + data +
                              "ddp_gloo_rank1.json.gz' -o '" + merged + "' 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const Expected<Trace> trace = io::read_trace(merged);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  EXPECT_EQ(trace->metadata().ranks.size(), 2u);
  EXPECT_GT(compare_file(merged), 20u);
  std::filesystem::remove(merged);
}

INSTANTIATE_TEST_SUITE_P(EveryFile, OracleAgrees, testing::ValuesIn(trace_files()),
                         [](const testing::TestParamInfo<TraceFile>& param) { return param.param.name; });

// The comparison covers both places traces live; a change that moved them would otherwise leave no test.
TEST(OracleFiles, CoverRecordingsAndFixtures) {
  const std::vector<TraceFile> files = trace_files();
  const auto under = [&](const std::string& prefix) {
    return std::count_if(files.begin(), files.end(), [&](const TraceFile& f) { return f.name.starts_with(prefix); });
  };
  EXPECT_GE(under("resources_traces_h200x1_"), 10);
  EXPECT_GE(under("resources_traces_h200x2_"), 10);
  EXPECT_GE(under("tests_data_"), 10);
}

// Per-GPU stream overlap (time with 2+ streams running, stream parallelism) and copy/compute overlap are compared
// above wherever the report has them; this test says, as a skip, when it has none yet.
TEST(OracleFields, StreamOverlapIsInTheReport) {
  const std::string path = std::string(GTV_SOURCE_DIR) + "/tests/data/pytorch/two_gpus_streams.json.gz";
  const AnalyzeJson report(oracle_cli_path(), path);
  ASSERT_TRUE(report.error().empty()) << report.error();
  const Expected<Trace> trace = io::read_trace(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  Checker check(path);
  if (check_stream_overlap(check, Oracle(*trace), report.root()) == 0)
    GTEST_SKIP() << "analyze --json has no per-GPU stream_parallelism, multi_stream_ns, stream_overlap_ns or "
                    "copy_compute_overlap_ns and no host launching_ns / concurrent_ns: the oracle's stream overlap "
                    "is not compared";
}

}  // namespace
}  // namespace gtv::oracle
