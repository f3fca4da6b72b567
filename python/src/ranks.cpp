// gtv._core's rank summaries (ranks.h).
#include "ranks.h"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "arrow_table.h"
#include "gtv/analysis/format.h"
#include "gtv/io/trace_file.h"
#include "gtv/ranks/reduce.h"
#include "gtv/ranks/summary.h"
#include "gtv/ranks/summary_file.h"
#include "input_error.h"
#include "report_tables.h"

namespace nb = nanobind;

namespace gtv::python {
namespace {

// The summaries one trace file gave (one for a rank's own file, one per rank for a merged run).
struct SummaryHandle {
  std::vector<ranks::RankSummary> summaries;
};

SummaryHandle summarize_file(const std::string& path) {
  const nb::gil_scoped_release release;
  Expected<Trace> trace = io::read_trace(path);
  if (!trace) {
    const std::string& message = trace.error().message;
    throw InputError(message.find(path) == std::string::npos ? path + ": " + message : message);
  }
  return {ranks::summarize(*trace, path)};
}

SummaryHandle summary_from_bytes(const nb::bytes& bytes, const std::string& name) {
  const std::string_view view(bytes.c_str(), bytes.size());
  const nb::gil_scoped_release release;
  Expected<std::vector<ranks::RankSummary>> read = ranks::read_summary_bytes(view, name);
  if (!read) throw InputError(read.error().message);
  return {std::move(read).value()};
}

SummaryHandle read_summary(const std::string& path) {
  const nb::gil_scoped_release release;
  Expected<std::vector<ranks::RankSummary>> read = ranks::read_summary_file(path);
  if (!read) throw InputError(read.error().message);
  return {std::move(read).value()};
}

nb::bytes summary_bytes(const SummaryHandle& s) {
  std::string bytes;
  {
    const nb::gil_scoped_release release;
    bytes = ranks::summary_file_bytes(s.summaries);
  }
  return nb::bytes(bytes.data(), bytes.size());
}

void save_summary(const SummaryHandle& s, const std::string& path) {
  const nb::gil_scoped_release release;
  if (const Status written = ranks::write_summary_file(s.summaries, path); !written)
    throw InputError(written.error().message);
}

std::string summary_json(const SummaryHandle& s) {
  const nb::gil_scoped_release release;
  return ranks::summary_json(s.summaries);
}

std::vector<std::int64_t> summary_ranks(const SummaryHandle& s) {
  std::vector<std::int64_t> r;
  for (const ranks::RankSummary& one : s.summaries)
    r.push_back(one.from_merged_run ? one.merged_rank.rank : one.distributed.rank);
  return r;
}

std::vector<std::int64_t> summary_world_sizes(const SummaryHandle& s) {
  std::vector<std::int64_t> r;
  for (const ranks::RankSummary& one : s.summaries) r.push_back(one.distributed.world_size);
  return r;
}

// Each rank's first recorded activity on its host's wall clock.
std::vector<std::int64_t> summary_start_unix_ns(const SummaryHandle& s) {
  std::vector<std::int64_t> r;
  for (const ranks::RankSummary& one : s.summaries) r.push_back(one.origin_unix_ns + one.start_ns);
  return r;
}

std::size_t summary_collectives(const SummaryHandle& s) {
  std::size_t n = 0;
  for (const ranks::RankSummary& one : s.summaries) n += one.collectives.size();
  return n;
}

// The cross-rank report and the sources of the summaries it was reduced from.
struct RankReportHandle {
  ranks::RankReport report;
  std::string first_source;
};

RankReportHandle reduce(const std::vector<const SummaryHandle*>& parts, const std::string& clock) {
  RankMergeOptions options;
  if (clock == "collectives") {
    options.clock = ClockMethod::Collectives;
  } else if (clock != "wall") {
    throw std::invalid_argument("clock: \"" + clock + "\" is neither wall nor collectives");
  }
  std::vector<ranks::RankSummary> all;
  for (const SummaryHandle* p : parts) {
    if (p == nullptr) throw std::invalid_argument("reduce: a summary is None");
    all.insert(all.end(), p->summaries.begin(), p->summaries.end());
  }
  if (all.empty()) throw std::invalid_argument("reduce needs at least one summary");
  const nb::gil_scoped_release release;
  Expected<ranks::RankReport> report = ranks::reduce(all, options);
  if (!report) throw InputError(report.error().message);
  return {std::move(report).value(), all.front().source};
}

std::string format_rank_report(const RankReportHandle& r, const std::string& format, bool all) {
  const Expected<analysis::Format> f = analysis::format_from_string(format);
  if (!f) throw std::invalid_argument(f.error().message);
  const nb::gil_scoped_release release;
  return ranks::format_rank_report(r.report, *f, all ? analysis::Listing::All : analysis::Listing::Capped);
}

// The CLI's stderr lines of `gtv-cli reduce`, without its "gtv-cli: " prefix.
std::vector<std::string> rank_report_warnings(const RankReportHandle& r) {
  std::vector<std::string> lines;
  for (const std::string& w : r.report.warnings) lines.push_back("warning: " + w);
  if (r.report.summary.ranks.empty())
    lines.push_back("note: " + r.first_source + " is one rank: nothing to compare across ranks");
  return lines;
}

}  // namespace

void bind_ranks(nb::module_& m) {
  nb::class_<SummaryHandle>(m, "SummaryHandle")
      .def("bytes", &summary_bytes)
      .def("save", &save_summary, nb::arg("path"))
      .def("json", &summary_json)
      .def_prop_ro("ranks", &summary_ranks)
      .def_prop_ro("world_sizes", &summary_world_sizes)
      .def_prop_ro("start_unix_ns", &summary_start_unix_ns)
      .def_prop_ro("collective_count", &summary_collectives)
      .def_prop_ro("sources", [](const SummaryHandle& s) {
        std::vector<std::string> r;
        for (const ranks::RankSummary& one : s.summaries) r.push_back(one.source);
        return r;
      });
  m.def("summarize", &summarize_file, nb::arg("path"));
  m.def("summary_from_bytes", &summary_from_bytes, nb::arg("data"), nb::arg("name"));
  m.def("read_summary", &read_summary, nb::arg("path"));

  nb::class_<RankReportHandle>(m, "RankReportHandle")
      .def("format", &format_rank_report, nb::arg("format") = "text", nb::arg("all") = false)
      .def_prop_ro("warnings", &rank_report_warnings)
      .def("rank_waits", [](const RankReportHandle& r) {
        const nb::gil_scoped_release release;
        return TableHandle{std::make_shared<const Table>(rank_waits_table(r.report.stragglers))};
      });
  m.def("reduce", &reduce, nb::arg("summaries"), nb::arg("clock") = "wall");
}

}  // namespace gtv::python
