// gtv._core: the C++ side of the Python package. Loads traces, analyses them, predicts changes and compares runs
// with the same core calls gtv-cli makes, so every text and JSON document is byte for byte the CLI's; exposes the
// report's tables through the Arrow C stream interface. The GIL is released while the core works.
#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "arrow_table.h"
#include "gtv/analysis/analysed_trace.h"
#include "gtv/analysis/compare.h"
#include "gtv/analysis/report.h"
#include "gtv/analysis/summary.h"
#include "gtv/config.h"
#include "gtv/io/readable_formats.h"
#include "gtv/io/trace_file.h"
#include "gtv/model/rank_merge.h"
#include "gtv/whatif/predict.h"
#include "input_error.h"
#include "ranks.h"
#include "report_tables.h"

namespace nb = nanobind;

namespace gtv::python {
namespace {

// A loaded trace, its file(s), and its analysis: the report and the graph every prediction on it shares, each made
// on first need.
class TraceHandle {
 public:
  TraceHandle(Trace trace, std::vector<std::string> paths, std::string format, bool gzip,
              std::vector<std::string> warnings)
      : analysed_(analysis::AnalysedTrace::make(std::move(trace))),
        paths_(std::move(paths)),
        format_(std::move(format)),
        gzip_(gzip),
        warnings_(std::move(warnings)) {}

  [[nodiscard]] const Trace& trace() const { return analysed_->trace(); }
  [[nodiscard]] const analysis::AnalysedTrace& analysed() const { return *analysed_; }
  [[nodiscard]] const std::vector<std::string>& paths() const { return paths_; }
  [[nodiscard]] const std::string& format() const { return format_; }
  [[nodiscard]] bool gzip() const { return gzip_; }
  [[nodiscard]] const std::vector<std::string>& warnings() const { return warnings_; }

  // Computed once; later calls (and compare) reuse it. It lives as long as the analysed trace.
  [[nodiscard]] std::shared_ptr<const analysis::Report> report() const { return {analysed_, &analysed_->report()}; }

 private:
  std::shared_ptr<const analysis::AnalysedTrace> analysed_;
  std::vector<std::string> paths_;
  std::string format_;
  bool gzip_ = false;
  std::vector<std::string> warnings_;
};

struct ReadFile {
  Trace trace;
  std::string format;
  bool gzip = false;
};

// The CLI's load_trace_or_report: the reader's message already names the file; add it only if it does not.
ReadFile read_one(const std::string& path, std::vector<std::string>& warnings) {
  io::ReadStats stats;
  io::ReadOptions options;
  options.stats = &stats;
  Expected<Trace> trace = io::read_trace(path, options);
  if (!trace) {
    const std::string& message = trace.error().message;
    throw InputError(message.find(path) == std::string::npos ? path + ": " + message : message);
  }
  if (trace->event_count() == 0 && stats.events_skipped != 0) {
    for (const auto& [reason, count] : stats.skipped) {
      std::string line = path;
      line += ": no event could be read; the reader skipped ";
      line += std::to_string(count);
      line += " ";
      line += reason;
      warnings.push_back(std::move(line));
    }
  }
  // The reader tells the formats apart by their first bytes; only JSON is parsed as text.
  return {std::move(trace).value(), stats.json_bytes > 0 ? "json" : "sqlite", stats.gzip};
}

std::shared_ptr<TraceHandle> load(const std::vector<std::string>& paths, const std::string& clock) {
  if (paths.empty()) throw std::invalid_argument("load needs at least one path");
  RankMergeOptions options;
  if (clock == "collectives") {
    options.clock = ClockMethod::Collectives;
  } else if (clock != "wall") {
    throw std::invalid_argument("clock: \"" + clock + "\" is neither wall nor collectives");
  }
  if (paths.size() == 1 && options.clock != ClockMethod::WallClock)
    throw std::invalid_argument("--clock and --shift align the files of several ranks; one file was given");
  const nb::gil_scoped_release release;
  std::vector<std::string> warnings;
  if (paths.size() == 1) {
    ReadFile file = read_one(paths[0], warnings);
    return std::make_shared<TraceHandle>(std::move(file.trace), paths, file.format, file.gzip, std::move(warnings));
  }
  std::vector<ReadFile> files;
  files.reserve(paths.size());
  for (const std::string& path : paths) files.push_back(read_one(path, warnings));
  std::vector<RankFile> ranks;
  ranks.reserve(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) ranks.push_back({&files[i].trace, paths[i]});
  Expected<RankMerge> merged = merge_ranks(ranks, options);
  if (!merged) throw InputError(merged.error().message);
  for (std::string& w : merged->warnings) warnings.push_back(std::move(w));
  std::string format = files[0].format;
  for (const ReadFile& f : files)
    if (f.format != format) format = "mixed";
  return std::make_shared<TraceHandle>(std::move(merged->trace), paths, format, files[0].gzip, std::move(warnings));
}

analysis::Listing listing_of(bool all) { return all ? analysis::Listing::All : analysis::Listing::Capped; }

std::string info(TraceHandle& t, const std::string& format, bool all) {
  const Expected<analysis::Format> f = analysis::format_from_string(format);
  if (!f) throw std::invalid_argument(f.error().message);
  const nb::gil_scoped_release release;
  return analysis::format_summary(analysis::summarize(t.trace()), *f, listing_of(all));
}

// A report and the trace it belongs to (the tables name its events).
struct ReportHandle {
  std::shared_ptr<TraceHandle> trace;
  std::shared_ptr<const analysis::Report> report;
};

ReportHandle analyze(const std::shared_ptr<TraceHandle>& t) {
  const nb::gil_scoped_release release;
  return {t, t->report()};
}

std::string format_report(const ReportHandle& r, const std::string& format, bool all) {
  const Expected<analysis::Format> f = analysis::format_from_string(format);
  if (!f) throw std::invalid_argument(f.error().message);
  const nb::gil_scoped_release release;
  return analysis::format_report(*r.report, *f, listing_of(all));
}

TableHandle report_table_of(const ReportHandle& r, const std::string& name) {
  const nb::gil_scoped_release release;
  return {std::make_shared<const Table>(report_table(r.trace->trace(), *r.report, name))};
}

void delete_stream(void* p) noexcept {
  auto* stream = static_cast<ArrowArrayStream*>(p);
  if (stream->release != nullptr) stream->release(stream);
  delete stream;
}

void delete_schema(void* p) noexcept {
  auto* schema = static_cast<ArrowSchema*>(p);
  if (schema->release != nullptr) schema->release(schema);
  delete schema;
}

// The PyCapsule protocol of the Arrow C stream interface; requested_schema may be ignored by a producer.
nb::capsule arrow_c_stream(const TableHandle& t, const nb::object& /*requested_schema*/) {
  auto* stream = new ArrowArrayStream{};
  export_stream(t.table, stream);
  return {stream, "arrow_array_stream", &delete_stream};
}

nb::capsule arrow_c_schema(const TableHandle& t) {
  auto* schema = new ArrowSchema{};
  export_schema(*t.table, schema);
  return {schema, "arrow_schema", &delete_schema};
}

std::vector<std::string> column_names(const TableHandle& t) {
  std::vector<std::string> names;
  for (const Column& c : t.table->columns()) names.push_back(c.name);
  return names;
}

// A prediction and the changes it was made for (its text names them).
struct PredictionHandle {
  whatif::Prediction prediction;
  std::vector<whatif::Change> changes;
};

// The CLI's checks in its order: each change parses, they go together, the trace takes them.
PredictionHandle whatif_predict(const std::shared_ptr<TraceHandle>& t, const std::vector<std::string>& texts) {
  if (texts.empty()) throw std::invalid_argument("at least one change is needed");
  std::vector<whatif::Change> changes;
  for (const std::string& text : texts) {
    Expected<whatif::Change> c = whatif::parse_change(text);
    if (!c) throw std::invalid_argument(c.error().message);
    changes.push_back(std::move(c).value());
  }
  if (Expected<Ok> ok = whatif::check_compatible(changes); !ok) throw std::invalid_argument(ok.error().message);
  const nb::gil_scoped_release release;
  Expected<whatif::Prediction> p = whatif::predict(t->analysed(), changes);
  if (!p) throw InputError(t->paths().front() + ": " + p.error().message);
  return {std::move(p).value(), std::move(changes)};
}

std::string format_prediction(const PredictionHandle& p, const std::string& format) {
  whatif::Format f = whatif::Format::Text;
  if (format == "markdown") {
    f = whatif::Format::Markdown;
  } else if (format == "json") {
    f = whatif::Format::Json;
  } else if (format != "text") {
    throw std::invalid_argument("unknown format '" + format + "' (text, markdown or json)");
  }
  const nb::gil_scoped_release release;
  return whatif::format_prediction(p.prediction, p.changes, f);
}

// gtv-cli compare's comparison, from each run's report (computed once per trace).
analysis::Comparison compare(const std::shared_ptr<TraceHandle>& a, const std::shared_ptr<TraceHandle>& b,
                             const std::string& label_a, const std::string& label_b) {
  const nb::gil_scoped_release release;
  const std::shared_ptr<const analysis::Report> ra = a->report();
  const std::shared_ptr<const analysis::Report> rb = b->report();
  analysis::Comparison c = analysis::compare(a->trace(), *ra, b->trace(), *rb, label_a, label_b);
  analysis::note_tracing_overhead(c, *ra, *rb);
  return c;
}

std::string format_comparison(const analysis::Comparison& c, const std::string& format) {
  const Expected<analysis::Format> f = analysis::format_from_string(format);
  if (!f) throw std::invalid_argument(f.error().message);
  const nb::gil_scoped_release release;
  return analysis::format_comparison(c, *f);
}

}  // namespace
}  // namespace gtv::python

NB_MODULE(_core, m) {
  using namespace gtv::python;  // NOLINT(google-build-using-namespace): the module's own names
  m.doc() = "gtv's C++ core: loading, analysis, what-if predictions, comparisons and Arrow tables";
  m.attr("__version__") = GTV_VERSION;
  const nb::exception<InputError> gtv_error(m, "GtvError", PyExc_ValueError);

  nb::class_<TraceHandle>(m, "TraceHandle")
      .def_prop_ro("paths", &TraceHandle::paths)
      .def_prop_ro("format", &TraceHandle::format)
      .def_prop_ro("gzip", &TraceHandle::gzip)
      .def_prop_ro("warnings", &TraceHandle::warnings)
      .def("info", &info, nb::arg("format") = "text", nb::arg("all") = false);
  m.def("load", &load, nb::arg("paths"), nb::arg("clock") = "wall");
  m.def("trace_stem", [](const std::string& path) { return gtv::io::trace_stem(path); });

  nb::class_<ReportHandle>(m, "ReportHandle")
      .def("format", &format_report, nb::arg("format") = "text", nb::arg("all") = false)
      .def("table", &report_table_of, nb::arg("name"));
  m.def("analyze", &analyze, nb::arg("trace"));
  m.def("table_names", [] { return report_table_names(); });

  nb::class_<TableHandle>(m, "TableHandle")
      .def_prop_ro("num_rows", [](const TableHandle& t) { return t.table->row_count(); })
      .def_prop_ro("column_names", &column_names)
      .def("__arrow_c_stream__", &arrow_c_stream, nb::arg("requested_schema").none() = nb::none())
      .def("__arrow_c_schema__", &arrow_c_schema);

  nb::class_<PredictionHandle>(m, "PredictionHandle").def("format", &format_prediction, nb::arg("format") = "text");
  m.def("whatif", &whatif_predict, nb::arg("trace"), nb::arg("changes"));

  nb::class_<gtv::analysis::Comparison>(m, "ComparisonHandle")
      .def("format", &format_comparison, nb::arg("format") = "text");
  m.def("compare", &compare, nb::arg("a"), nb::arg("b"), nb::arg("label_a"), nb::arg("label_b"));

  bind_ranks(m);
}
