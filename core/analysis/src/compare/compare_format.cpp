#include <cmath>
#include <set>

#include "gtv/analysis/compare.h"
#include "gtv/analysis/report.h"
#include "report/document.h"
#include "report/json_writer.h"

namespace gtv::analysis {
namespace {

std::string signed_duration(TimeNs ns) { return (ns > 0 ? "+" : "") + format_duration(ns); }

std::string change(TimeNs a, TimeNs b) {
  if (a == 0) return b == 0 ? "0%" : "new";
  return (b >= a ? "+" : "") + percent(double(b - a) / double(a), 1);
}

std::string speedup_text(double speedup) { return speedup > 0 ? fixed(speedup, 2) + "x" : "unknown"; }

// Effective parallelism means nothing without GPU work.
std::string parallelism_text(const RunFigures& f) {
  return f.gpu_busy_ns > 0 ? fixed(f.effective_parallelism, 2) : "no GPU work";
}

// A GPU's stream parallelism over the whole trace; "-" when the run has no work on that GPU.
std::string stream_parallelism_text(const RunFigures& f, std::int64_t device) {
  for (const GpuStreamFigures& g : f.gpu_streams)
    if (g.device == device)
      return fixed(g.stream_parallelism, 2) + " (" + std::to_string(g.stream_count) +
             (g.stream_count == 1 ? " stream)" : " streams)");
  return "-";
}

void add_stream_rows(detail::Table& runs, const Comparison& c) {
  std::set<std::int64_t> devices;
  for (const RunFigures* f : {&c.a, &c.b})
    for (const GpuStreamFigures& g : f->gpu_streams) devices.insert(g.device);
  for (const std::int64_t d : devices)
    runs.rows.push_back({"stream parallelism, GPU " + std::to_string(d) + " (whole trace)",
                         stream_parallelism_text(c.a, d), stream_parallelism_text(c.b, d), ""});
}

detail::Table numbers_table(const Comparison& c) {
  detail::Table runs{{"", c.a.label, c.b.label, "change"}, {false, true, true, true}, {}, {}};
  auto row = [&](const std::string& what, TimeNs a, TimeNs b) {
    runs.rows.push_back({what, format_duration(a), format_duration(b), change(a, b)});
  };
  if (c.basis != CompareBasis::WholeTrace) row(c.basis_what + " (basis)", c.basis_a_ns, c.basis_b_ns);
  if (c.iterations_a > 0 || c.iterations_b > 0)
    runs.rows.push_back(
        {"iterations in the basis", std::to_string(c.iterations_a), std::to_string(c.iterations_b), ""});
  if (c.per_iteration)
    row("basis per iteration", c.basis_a_ns / static_cast<TimeNs>(c.iterations_a),
        c.basis_b_ns / static_cast<TimeNs>(c.iterations_b));
  row("wall time (whole trace)", c.a.wall_ns, c.b.wall_ns);
  row("GPU busy (any GPU)", c.a.gpu_busy_ns, c.b.gpu_busy_ns);
  row("GPU busy (sum over GPUs)", c.a.gpu_busy_sum_ns, c.b.gpu_busy_sum_ns);
  row("2+ GPUs overlapped", c.a.overlap_ns, c.b.overlap_ns);
  row("kernel time", c.a.kernel_ns, c.b.kernel_ns);
  row("host blocked", c.a.host_blocked_ns, c.b.host_blocked_ns);
  runs.rows.push_back({"effective parallelism", parallelism_text(c.a), parallelism_text(c.b), ""});
  add_stream_rows(runs, c);
  runs.rows.push_back({"kernels run", std::to_string(c.a.kernel_count), std::to_string(c.b.kernel_count), ""});
  if (c.per_kernel)
    row("basis per kernel instance", c.basis_a_ns / static_cast<TimeNs>(c.basis_kernels_a),
        c.basis_b_ns / static_cast<TimeNs>(c.basis_kernels_b));
  const std::string unit = c.per_iteration ? " (basis, per iteration)"
                           : c.per_kernel  ? " (basis, per kernel instance)"
                                           : " (basis)";
  // Two ranks of one run: their difference is one waiting for the other, not a speedup.
  if (!c.same_run) runs.rows.push_back({"speedup on the " + c.basis_what + unit, "", speedup_text(c.speedup), ""});
  if (c.basis != CompareBasis::WholeTrace)
    runs.rows.push_back({"speedup (whole-trace wall)", "", speedup_text(c.wall_speedup), ""});
  runs.note = c.basis_what.empty() ? "" : "Basis: " + c.basis_text + ".";
  return runs;
}

detail::Section kernels_section(const Comparison& c) {
  detail::Section kernels{"Kernels", {}, {}};
  if (c.kernels.empty()) kernels.lines.emplace_back("No kernels in either trace.");
  detail::Table kt{
      {"kernel", "count " + c.a.label, "count " + c.b.label, "total " + c.a.label, "total " + c.b.label, "change"},
      {false, true, true, true, true, true},
      {},
      {}};
  for (std::size_t i = 0; i < c.kernels.size() && i < kMaxTableRows; ++i) {
    const KernelDiff& k = c.kernels[i];
    kt.rows.push_back({k.name, std::to_string(k.count_a), std::to_string(k.count_b), format_duration(k.total_a_ns),
                       format_duration(k.total_b_ns), signed_duration(k.delta_ns)});
  }
  if (c.kernels.size() > kMaxTableRows)
    kt.note = std::to_string(c.kernels.size() - kMaxTableRows) + " more kernels not shown.";
  if (!c.kernels.empty()) kernels.tables.push_back(std::move(kt));
  return kernels;
}

detail::Document comparison_document(const Comparison& c) {
  detail::Document doc;
  doc.title = "Comparison: " + c.a.label + " vs " + c.b.label;
  doc.verdict = {c.verdict};
  doc.verdict.insert(doc.verdict.end(), c.warnings.begin(), c.warnings.end());
  if (!c.wall_line.empty()) doc.verdict.push_back(c.wall_line);
  doc.sections = {detail::Section{"Numbers", {}, {numbers_table(c)}}, kernels_section(c)};
  return doc;
}

void write_run(detail::JsonWriter& w, const RunFigures& f) {
  w.begin_object().field("label", f.label).field("wall_ns", f.wall_ns).field("gpu_busy_ns", f.gpu_busy_ns);
  w.field("gpu_busy_sum_ns", f.gpu_busy_sum_ns).field("overlap_ns", f.overlap_ns);
  w.field("effective_parallelism", f.effective_parallelism, 4).field("kernel_ns", f.kernel_ns);
  w.field("kernel_count", static_cast<std::uint64_t>(f.kernel_count));
  w.field("gpu_count", static_cast<std::uint64_t>(f.gpu_count)).field("host_blocked_ns", f.host_blocked_ns);
  w.key("gpu_streams").begin_array();
  for (const GpuStreamFigures& g : f.gpu_streams) {
    w.begin_object().field("device", g.device).field("stream_count", static_cast<std::uint64_t>(g.stream_count));
    w.field("busy_ns", g.busy_ns).field("multi_stream_ns", g.multi_stream_ns);
    w.field("stream_parallelism", g.stream_parallelism, 4).end_object();
  }
  w.end_array().end_object();
}

std::string comparison_json(const Comparison& c) {
  detail::JsonWriter w;
  w.begin_object().field("verdict", c.verdict).key("a");
  write_run(w, c.a);
  w.key("b");
  write_run(w, c.b);
  w.field("iterations_a", static_cast<std::uint64_t>(c.iterations_a));
  w.field("iterations_b", static_cast<std::uint64_t>(c.iterations_b)).field("per_iteration", c.per_iteration);
  w.field("per_kernel", c.per_kernel).field("same_run", c.same_run);
  w.field("basis_kernels_a", static_cast<std::uint64_t>(c.basis_kernels_a));
  w.field("basis_kernels_b", static_cast<std::uint64_t>(c.basis_kernels_b));
  w.field("speedup", c.speedup, 4).field("basis", compare_basis_key(c.basis)).field("basis_text", c.basis_text);
  w.field("basis_what", c.basis_what).field("basis_a_ns", c.basis_a_ns).field("basis_b_ns", c.basis_b_ns);
  w.field("wall_speedup", c.wall_speedup, 4).field("wall_line", c.wall_line);
  w.field("only_a_share", c.only_a_share, 4).field("only_b_share", c.only_b_share, 4);
  w.key("warnings").begin_array();
  for (const std::string& line : c.warnings) w.value(line);
  w.end_array();
  w.key("kernels").begin_array();
  for (std::size_t i = 0; i < c.kernels.size() && i < kMaxJsonRows; ++i) {
    const KernelDiff& k = c.kernels[i];
    w.begin_object().field("name", k.name).field("full_name", k.full_name);
    w.field("count_a", static_cast<std::uint64_t>(k.count_a)).field("count_b", static_cast<std::uint64_t>(k.count_b));
    w.field("total_a_ns", k.total_a_ns).field("total_b_ns", k.total_b_ns).field("delta_ns", k.delta_ns);
    w.end_object();
  }
  w.end_array().end_object();
  return w.take();
}

}  // namespace

std::string format_comparison(const Comparison& comparison, Format format) {
  switch (format) {
    case Format::Text:
      return detail::render_text(comparison_document(comparison));
    case Format::Markdown:
      return detail::render_markdown(comparison_document(comparison));
    case Format::Json:
      return comparison_json(comparison);
  }
  return {};
}

}  // namespace gtv::analysis
