#include "gtv/analysis/report.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <future>
#include <optional>
#include <thread>
#include <utility>

#include "assembly/report_assembly.h"
#include "causes/critical_path_parts.h"
#include "report/report_document.h"
#include "summary/summary_json.h"

namespace gtv::analysis {
namespace detail {

// The order of the report: the ranks of a merged run, what happened on the GPUs, what bounded the region, why the
// GPUs were idle, where the host waited, warm-up, then the supporting numbers, communication against computation, and
// what tracing cost.
constexpr std::array<ReportPart, 14> kParts{{
    {overview_section, nullptr},
    {ranks_section, ranks_json},
    {concurrency_section, concurrency_json},
    {critical_path_section, critical_path_json},
    {idle_causes_section, idle_causes_json},
    {blocking_section, blocking_json},
    {warmup_section, warmup_json},
    {timing_section, timing_json},
    {steps_section, steps_json},
    {busy_section, busy_json},
    {launch_section, launch_json},
    {kernel_section, kernel_json},
    {communication_section, communication_json},
    {tracing_cost_section, tracing_cost_json},
}};

Document report_document(const Report& r, Listing listing) {
  Document doc;
  doc.title = "GPU timeline analysis" + (r.summary.scenario.empty() ? std::string() : ": " + r.summary.scenario);
  doc.verdict = r.verdict;
  // A part with nothing to say for this trace returns a section without a title, which is left out.
  for (const ReportPart& part : kParts)
    if (Section s = part.section(r, listing); !s.title.empty()) doc.sections.push_back(std::move(s));
  return doc;
}

namespace {

std::string ranks_only_json(const Report& r, const std::string& basis) {
  JsonWriter w;
  w.begin_object();
  json_strings(
      w, "verdict",
      r.stragglers.headline.empty() ? std::vector<std::string>{} : std::vector<std::string>{r.stragglers.headline});
  if (!basis.empty()) w.field("basis", basis);
  w.key("summary").begin_object().field("world_size", r.summary.distributed.world_size);
  w.field("backend", r.summary.distributed.backend).key("ranks").begin_array();
  for (const RankInfo& rank : r.summary.ranks) {
    w.begin_object().field("rank", rank.rank).field("source", rank.source).key("devices").begin_array();
    for (std::int64_t d : rank.local_devices) w.value(d);
    w.end_array().field("shift_ns", rank.shift_ns).field("clock_offset_ns", rank.clock_offset_ns).end_object();
  }
  w.end_array()
      .key("clock")
      .begin_object()
      .field("method", r.summary.clock.method)
      .field("basis", r.summary.clock.basis)
      .field("residual_ns", r.summary.clock.residual_ns)
      .field("collectives_checked", r.summary.clock.collectives_checked)
      .end_object()
      .end_object();
  ranks_json(w, r);
  w.end_object();
  return w.take();
}

std::string report_json(const Report& r) {
  JsonWriter w;
  w.begin_object();
  json_strings(w, "verdict", r.verdict);
  w.key("summary");
  write_summary_json(w, r.summary);
  for (const ReportPart& part : kParts)
    if (part.json) part.json(w, r);
  w.end_object();
  return w.take();
}

}  // namespace
}  // namespace detail

namespace {

// "In the timed loop, the 2 GPUs never ran..." from "The 2 GPUs never ran...": a sentence joined after a phrase.
std::string joined_after(const std::string& phrase, std::string sentence) {
  const bool capital_word = sentence.size() > 1 && std::isupper(static_cast<unsigned char>(sentence[0])) &&
                            std::islower(static_cast<unsigned char>(sentence[1]));
  if (capital_word) sentence[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(sentence[0])));
  return phrase + ", " + sentence;
}

// The warm-up headline, with how much of it the measurements paid: first-use work before a timed loop does not slow
// it, nor does work between two timed measurements.
std::string warmup_headline(const Report& r) {
  std::string out = r.warmup.headline;
  if (out.empty() || !r.region.from_measurements || r.warmup.host_cost_ns == 0 || out.back() != '.') return out;
  const TimeNs inside_ns = warmup_host_cost_within(r.warmup, r.region.measured);
  const TimeNs between_ns = warmup_host_cost_within(r.warmup, r.region.start_ns, r.region.end_ns) - inside_ns;
  out.pop_back();
  const std::string between =
      between_ns > 0 ? " (" + format_duration(between_ns) + " fell in the gaps between them, which were not timed)"
                     : "";
  if (inside_ns == 0) return out + "; none of the first-use work fell inside " + r.region.measured_name + between + ".";
  return out + "; " + format_duration(inside_ns) + " of the first-use work fell inside " + r.region.measured_name +
         between + ".";
}

std::vector<std::string> headline(const Report& r) {
  std::vector<std::string> out;
  if (r.region.from_measurements && r.region_concurrency.gpu_count > 0)
    out.push_back(joined_after("In " + r.region.name, r.region_concurrency.verdict));
  else
    out.push_back(r.concurrency.verdict);
  if (!r.stragglers.headline.empty()) out.push_back(r.stragglers.headline);
  if (!r.critical.headline.empty()) out.push_back(r.critical.headline);
  if (!r.idle.headline.empty()) out.push_back(r.idle.headline);
  if (!r.blocking.headline.empty()) out.push_back(r.blocking.headline);
  if (std::string warmup = warmup_headline(r); !warmup.empty()) out.push_back(std::move(warmup));
  for (const MeasurementTruth& m : r.timing.measurements) {
    if (out.size() >= 7) break;
    out.push_back(m.verdict);
  }
  return out;
}

}  // namespace

namespace detail {

Report analyze_with(const std::function<const causal::HappensBefore&()>& graph, const Trace& trace,
                    Parallelism parallelism) {
  // Three lines of work that share nothing but the (read-only) trace run at once: the happens-before graph, which
  // the critical path needs after the region and warm-up; the host, kernel and rank parts, which need the trace
  // alone; and the rest here. Each part computes what it computed alone, so the report does not depend on the
  // order they finish in.
  const std::launch policy = parallelism == Parallelism::Threads ? std::launch::async : std::launch::deferred;
  std::future<const causal::HappensBefore*> graph_future = std::async(policy, [&graph] { return &graph(); });
  struct TraceOnlyParts {
    HostBlocking blocking;
    Stragglers stragglers;
    LaunchAnalysis launches;
    KernelStats kernels;
    Communication communication;
  };
  std::future<TraceOnlyParts> parts_future = std::async(policy, [&trace] {
    return TraceOnlyParts{analyze_host_blocking(trace), analyze_stragglers(trace), analyze_launches(trace),
                          analyze_kernels(trace), analyze_communication(trace)};
  });
  Report r;
  r.busy = analyze_busy(trace);
  r.summary = summarize(trace, r.busy);
  const StreamActivity streams = collect_stream_activity(trace);
  r.concurrency = analyze_concurrency(r.busy, trace.metadata(),
                                      stream_overlap_within(streams, r.busy.window_start_ns, r.busy.window_end_ns));
  r.timing = analyze_timing_truth(trace);
  r.region = region_of_interest(trace, r.timing);
  r.steps = analyze_profiler_steps(trace);
  r.region_concurrency =
      r.region.from_measurements
          ? analyze_concurrency_within(r.busy, r.region.start_ns, r.region.end_ns, trace.metadata(),
                                       stream_overlap_within(streams, r.region.start_ns, r.region.end_ns))
          : r.concurrency;
  r.warmup = analyze_warmup(trace, r.region);
  r.tracing = analyze_tracing_cost(trace, r.region);
  r.steady = steady_part(trace);
  r.single_gpu = single_gpu_streams(trace, streams, r.concurrency.gpu_count);
  {
    const causal::HappensBefore& built = *graph_future.get();
    // The graph's line is done and the trace's nearly so: the causes' replays take up to 4 of the machine's
    // threads (each holds a replayed time per node).
    const unsigned replay_threads =
        parallelism == Parallelism::Threads ? std::clamp(std::thread::hardware_concurrency(), 1u, 4u) : 1u;
    r.critical = analyze_critical_path(trace, built, r.region, r.warmup, replay_threads);
  }
  TraceOnlyParts parts = parts_future.get();
  r.idle = analyze_idle_causes(trace, r.region, r.critical, &parts.stragglers);
  const std::vector<std::string> peers = peer_wait_lines(trace, r.critical, &parts.stragglers);
  r.critical.lines.insert(r.critical.lines.begin() + (r.critical.lines.empty() ? 0 : 1), peers.begin(), peers.end());
  r.blocking = std::move(parts.blocking);
  r.stragglers = std::move(parts.stragglers);
  r.launches = std::move(parts.launches);
  r.kernels = std::move(parts.kernels);
  r.communication = std::move(parts.communication);
  r.verdict = headline(r);
  return r;
}

}  // namespace detail

Report analyze(const Trace& trace, Parallelism parallelism) {
  std::optional<causal::HappensBefore> built;
  return detail::analyze_with(
      [&]() -> const causal::HappensBefore& { return built.emplace(causal::HappensBefore::build(trace)); }, trace,
      parallelism);
}

std::string format_report(const Report& report, Format format, Listing listing) {
  switch (format) {
    case Format::Text:
      return detail::render_text(detail::report_document(report, listing));
    case Format::Markdown:
      return detail::render_markdown(detail::report_document(report, listing));
    case Format::Json:
      return detail::report_json(report);
  }
  return {};
}

std::string format_ranks(const Report& report, Format format, Listing listing, const std::string& basis) {
  detail::Document doc;
  doc.title = "Ranks of a run";
  if (!report.stragglers.headline.empty()) doc.verdict.push_back(report.stragglers.headline);
  doc.basis = basis;
  if (detail::Section s = detail::ranks_section(report, listing); !s.title.empty())
    doc.sections.push_back(std::move(s));
  switch (format) {
    case Format::Text:
      return detail::render_text(doc);
    case Format::Markdown:
      return detail::render_markdown(doc);
    case Format::Json:
      return detail::ranks_only_json(report, basis);
  }
  return {};
}

}  // namespace gtv::analysis
