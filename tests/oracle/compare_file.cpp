#include "compare_file.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "analyze_json.h"
#include "gtv/io/trace_file.h"
#include "oracle.h"
#include "oracle_checks.h"

namespace gtv::oracle {

std::string oracle_cli_path() {
  const char* other = std::getenv("GTV_ORACLE_CLI");
  return other != nullptr && *other != '\0' ? other : GTV_CLI_PATH;
}

// Every number of one file; returns how many were compared.
std::size_t compare_file(const std::string& path) {
  const Expected<Trace> trace = io::read_trace(path);
  const AnalyzeJson report(oracle_cli_path(), path);
  if (!trace.ok()) {
    // A file gtv cannot read must fail in analyze too.
    EXPECT_FALSE(report.error().empty()) << path << ": " << trace.error().message;
    return 0;
  }
  EXPECT_TRUE(report.error().empty()) << path << ": " << report.error();
  if (!report.error().empty()) return 0;
  const Oracle oracle(*trace);
  Checker check(path);
  check_summary(check, *trace, oracle, report.root());
  check_busy(check, oracle, report.root());
  check_concurrency(check, oracle, report.root());
  check_timing(check, oracle, report.root());
  check_idle(check, oracle, report.root());
  check_critical_path(check, *trace, oracle, report.root());
  check_communication(check, oracle, report.root());
  check_stream_overlap(check, oracle, report.root());
  check_sentences(check, oracle, report.root());
  return check.compared();
}

}  // namespace gtv::oracle
