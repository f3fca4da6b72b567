// One recording written twice by tests/data/nsys/make_nsys_sqlite.py, as an Nsight Systems SQLite export and as
// Kineto JSON, must give the same trace and the same analysis: the second importer produces the model the first
// one does, so every analysis and picture of gtv works on nsys reports.
#include <gtest/gtest.h>

#include <sstream>

#include "gtv/analysis/report.h"
#include "gtv/io/trace_file.h"
#include "sqlite_test_util.h"

namespace gtv::io {
namespace {

Trace read_or_fail(const std::string& path) {
  Expected<Trace> t = read_trace(path);
  EXPECT_TRUE(t.ok()) << t.error().message;
  return t.ok() ? std::move(t).value() : Trace();
}

// The text without the lines that name the source format (the only thing the two files may disagree on).
std::string without_source_lines(const std::string& text, std::string_view marker) {
  std::istringstream in(text);
  std::string out, line;
  int dropped = 0;
  while (std::getline(in, line)) {
    if (line.find(marker) != std::string::npos) {
      ++dropped;
      continue;
    }
    out += line + "\n";
  }
  EXPECT_EQ(dropped, 1) << "expected one line with " << marker;
  return out;
}

TEST(NsysEquivalence, SameTraceAsTheKinetoJson) {
  const Trace nsys = read_or_fail(test::kNsysFixture);
  const Trace kineto = read_or_fail(test::kKinetoTwin);
  ASSERT_GT(nsys.event_count(), 0u);
  EXPECT_EQ(nsys.event_count(), kineto.event_count());
  EXPECT_EQ(nsys.start_ns(), kineto.start_ns());
  EXPECT_EQ(nsys.end_ns(), kineto.end_ns());
  EXPECT_EQ(nsys.metadata().origin_unix_ns, kineto.metadata().origin_unix_ns);
  EXPECT_EQ(nsys.metadata().notes, kineto.metadata().notes);
  EXPECT_EQ(nsys.devices(), kineto.devices());
  EXPECT_EQ(nsys.processes(), kineto.processes());
  EXPECT_EQ(nsys.flows(), kineto.flows());
  EXPECT_NE(nsys.metadata().source_tool, kineto.metadata().source_tool);
  ASSERT_EQ(nsys.lanes().size(), kineto.lanes().size());
  for (std::size_t l = 0; l < nsys.lanes().size(); ++l) {
    const Lane& a = nsys.lanes()[l];
    const Lane& b = kineto.lanes()[l];
    EXPECT_EQ(a.key, b.key);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.sort_index, b.sort_index);
    EXPECT_EQ(a.by_depth, b.by_depth);
    ASSERT_EQ(a.events.size(), b.events.size()) << a.name;
    for (std::size_t i = 0; i < a.events.size(); ++i) {
      const Event& x = a.events[i];
      const Event& y = b.events[i];
      SCOPED_TRACE(a.name + ", event " + std::to_string(i) + " " + std::string(nsys.name(x)));
      EXPECT_EQ(nsys.name(x), kineto.name(y));
      EXPECT_EQ(x.kind, y.kind);
      EXPECT_EQ(x.start_ns, y.start_ns);
      EXPECT_EQ(x.duration_ns, y.duration_ns);
      EXPECT_EQ(x.correlation_id, y.correlation_id);
      EXPECT_EQ(x.depth, y.depth);
      EXPECT_EQ(nsys.category(x), kineto.category(y));
      if (nsys.kernel_detail(x) != nullptr && kineto.kernel_detail(y) != nullptr) {
        EXPECT_EQ(*nsys.kernel_detail(x), *kineto.kernel_detail(y));
      }
      if (nsys.memcpy_detail(x) != nullptr && kineto.memcpy_detail(y) != nullptr) {
        EXPECT_EQ(*nsys.memcpy_detail(x), *kineto.memcpy_detail(y));
      }
      if (nsys.memset_detail(x) != nullptr && kineto.memset_detail(y) != nullptr) {
        EXPECT_EQ(*nsys.memset_detail(x), *kineto.memset_detail(y));
      }
      EXPECT_EQ(nsys.kernel_detail(x) == nullptr, kineto.kernel_detail(y) == nullptr);
      EXPECT_EQ(nsys.memcpy_detail(x) == nullptr, kineto.memcpy_detail(y) == nullptr);
      EXPECT_EQ(nsys.memset_detail(x) == nullptr, kineto.memset_detail(y) == nullptr);
    }
  }
}

// Every number and sentence of the report, in JSON and in text, except the line that names the source.
TEST(NsysEquivalence, SameAnalysisAsTheKinetoJson) {
  const Trace nsys = read_or_fail(test::kNsysFixture);
  const Trace kineto = read_or_fail(test::kKinetoTwin);
  const analysis::Report from_nsys = analysis::analyze(nsys);
  const analysis::Report from_kineto = analysis::analyze(kineto);
  EXPECT_EQ(from_nsys.verdict, from_kineto.verdict);
  ASSERT_FALSE(from_nsys.verdict.empty());
  const std::string json_nsys = analysis::format_report(from_nsys, analysis::Format::Json);
  const std::string json_kineto = analysis::format_report(from_kineto, analysis::Format::Json);
  EXPECT_NE(json_nsys.find("\"source_tool\": \"Nsight Systems"), std::string::npos);
  EXPECT_EQ(without_source_lines(json_nsys, "\"source_tool\""), without_source_lines(json_kineto, "\"source_tool\""));
  const std::string text_nsys = analysis::format_report(from_nsys, analysis::Format::Text, analysis::Listing::All);
  const std::string text_kineto = analysis::format_report(from_kineto, analysis::Format::Text, analysis::Listing::All);
  EXPECT_EQ(without_source_lines(text_nsys, "Source: "), without_source_lines(text_kineto, "Source: "));
}

}  // namespace
}  // namespace gtv::io
