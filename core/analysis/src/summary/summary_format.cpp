#include <string>

#include "gtv/analysis/summary.h"
#include "gtv/base/printable.h"
#include "summary/summary_json.h"

namespace gtv::analysis {
namespace {

std::string or_unknown(const std::string& text) { return text.empty() ? "unknown" : printable(text); }

std::string gpu_title(const GpuSummary& g) {
  return (g.label.empty() ? "GPU " + std::to_string(g.index) : g.label) +
         (g.name.empty() ? "" : " (" + printable(g.name) + ")");
}

std::string gpu_line(const GpuSummary& g) {
  return gpu_title(g) + ": " + std::to_string(g.streams.size()) + " stream(s), " + std::to_string(g.kernel_count) +
         " kernel(s), kernel time " + format_duration(g.kernel_ns) + ", busy " + format_duration(g.busy_ns);
}

std::string span_line(const TraceSummary& s) {
  std::string out = format_duration(s.duration_ns()) + " (" + format_duration(s.start_ns) + " to " +
                    format_duration(s.end_ns) + " after the origin)";
  if (s.markers_outside_activity())
    out += "; recorded activity " + format_duration(s.activity_ns()) + " (" +
           format_duration(s.activity_start_ns - s.start_ns) + " to " +
           format_duration(s.activity_end_ns - s.start_ns) +
           " after the first record), the rest is the profiler's own markers";
  return out;
}

std::string counts_line(const TraceSummary& s) {
  return std::to_string(s.event_count) + " (" + std::to_string(s.flow_count) + " flows, " +
         std::to_string(s.range_count) + " ranges, " + std::to_string(s.measurement_count) + " measurements)";
}

// Where a cut list of `gtv-cli info` points for the rest.
constexpr std::string_view kInfoListsAll = "gtv-cli info --all lists them; --json has every one";

// Text and Markdown share the layout; Markdown turns the section lines into headings and items into bullets. Each
// list keeps its order (processes by pid, threads by tid, GPUs by index, streams by id, categories by name) and
// shows its first kMaxListedEntries entries unless listing is All; the counts in the headings are over all of them.
std::string format_lines(const TraceSummary& s, bool markdown, Listing listing) {
  const std::string item = markdown ? "- " : "  ";
  const std::string sub = markdown ? "  - " : "    ";
  std::string out = markdown ? "# Trace summary\n\n" : "";
  auto field = [&](const std::string& name, const std::string& value) {
    out += (markdown ? "- **" + name + "**: " : name + ": ") + value + "\n";
  };
  field("Source", or_unknown(s.source_tool));
  if (!s.scenario.empty()) field("Scenario", printable(s.scenario));
  if (s.distributed.rank >= 0) field("Rank", printable(rank_text(s.distributed)));
  if (!s.ranks.empty()) {
    field("Ranks", printable(ranks_text(s)));
    field("Clock", printable(s.clock.method + ": " + s.clock.basis));
  }
  field("Time span", span_line(s));
  field("Events", counts_line(s));
  if (s.dropped_records > 0) field("Dropped records", std::to_string(s.dropped_records));
  for (const std::string& note : s.notes) field("Note", printable(note));
  auto section = [&](const std::string& title) { out += markdown ? "\n## " + title + "\n\n" : title + ":\n"; };
  // The first entries of a list, then one line saying how many more there are.
  auto listed = [&](const auto& entries, const std::string& prefix, std::string_view one, std::string_view many,
                    auto&& line_of) {
    const std::size_t shown = listed_count(entries.size(), listing, kMaxListedEntries);
    for (std::size_t i = 0; i < shown; ++i) line_of(entries[i]);
    if (shown < entries.size()) out += prefix + left_out_line(entries.size(), shown, one, many, kInfoListsAll) + "\n";
  };
  section("Processes (" + std::to_string(s.processes.size()) + ")");
  if (s.processes.empty()) out += item + "none\n";
  listed(s.processes, item, "process", "processes", [&](const ProcessSummary& p) {
    out += item + "process " + std::to_string(p.pid) + (p.name.empty() ? "" : " (" + printable(p.name) + ")") + ": " +
           std::to_string(p.threads.size()) + " thread(s)\n";
    listed(p.threads, sub, "thread", "threads", [&](const ThreadSummary& t) {
      out += sub + "thread " + std::to_string(t.tid) + " \"" + printable(t.name) +
             "\": " + std::to_string(t.event_count) + " events\n";
    });
  });
  section("GPUs (" + std::to_string(s.gpus.size()) + ")");
  if (s.gpus.empty()) out += item + "none: this trace holds no GPU activity\n";
  listed(s.gpus, item, "GPU", "GPUs", [&](const GpuSummary& g) {
    out += item + gpu_line(g) + "\n";
    listed(g.streams, sub, "stream", "streams", [&](const StreamSummary& st) {
      out += sub + "stream " + std::to_string(st.stream) + " \"" + printable(st.name) +
             "\": " + std::to_string(st.event_count) + " events\n";
    });
  });
  section("Events per category");
  if (s.categories.empty()) out += item + "none\n";
  listed(s.categories, item, "category", "categories",
         [&](const CategoryCount& c) { out += item + printable(c.category) + ": " + std::to_string(c.count) + "\n"; });
  return out;
}

void write_gpu(detail::JsonWriter& w, const GpuSummary& g) {
  w.begin_object().field("index", g.index).field("label", g.label).field("name", g.name);
  w.field("kernel_count", static_cast<std::uint64_t>(g.kernel_count)).field("kernel_ns", g.kernel_ns);
  w.field("busy_ns", g.busy_ns).key("streams").begin_array();
  for (const StreamSummary& st : g.streams)
    w.begin_object()
        .field("stream", st.stream)
        .field("name", st.name)
        .field("event_count", static_cast<std::uint64_t>(st.event_count))
        .end_object();
  w.end_array().end_object();
}

}  // namespace

std::string format_summary_text(const TraceSummary& summary, Listing listing) {
  return format_lines(summary, false, listing);
}

std::string ranks_text(const TraceSummary& s) {
  // A line, not a table: the first ranks and the first GPUs of each (a file may claim thousands of either).
  constexpr std::size_t kRanksNamed = 16, kGpusNamed = 8;
  std::string out = std::to_string(s.ranks.size()) + " of world size " + std::to_string(s.distributed.world_size) +
                    (s.distributed.backend.empty() ? std::string() : " (" + s.distributed.backend + ")") + ":";
  for (std::size_t i = 0; i < s.ranks.size() && i < kRanksNamed; ++i) {
    const RankInfo& r = s.ranks[i];
    out += std::string(i == 0 ? " " : ", ") + "rank " + std::to_string(r.rank) + " from " + r.source;
    std::string gpus;
    for (std::size_t d = 0; d < r.local_devices.size() && d < kGpusNamed; ++d)
      gpus += (d == 0 ? "GPU " : ", ") + std::to_string(r.local_devices[d]);
    if (r.local_devices.size() > kGpusNamed)
      gpus += " and " + grouped_count(r.local_devices.size() - kGpusNamed) + " more";
    if (!gpus.empty()) out += " (" + gpus + ")";
  }
  if (s.ranks.size() > kRanksNamed) out += " and " + grouped_count(s.ranks.size() - kRanksNamed) + " more ranks";
  return out;
}

std::string rank_text(const DistributedInfo& d) {
  return "rank " + std::to_string(d.rank) + " of " + std::to_string(d.world_size) +
         (d.backend.empty() ? std::string() : " (" + d.backend + ")");
}

void detail::write_summary_json(detail::JsonWriter& w, const TraceSummary& s) {
  w.begin_object().field("source_tool", s.source_tool).field("scenario", s.scenario);
  if (s.distributed.rank >= 0)
    w.key("distributed")
        .begin_object()
        .field("rank", s.distributed.rank)
        .field("world_size", s.distributed.world_size)
        .field("backend", s.distributed.backend)
        .end_object();
  if (!s.ranks.empty()) {
    w.key("run")
        .begin_object()
        .field("world_size", s.distributed.world_size)
        .field("backend", s.distributed.backend)
        .key("ranks")
        .begin_array();
    for (const RankInfo& r : s.ranks) {
      w.begin_object().field("rank", r.rank).field("source", r.source).key("devices").begin_array();
      for (std::int64_t d : r.devices) w.value(d);
      w.end_array().key("local_devices").begin_array();
      for (std::int64_t d : r.local_devices) w.value(d);
      w.end_array().key("pids").begin_array();
      for (std::int64_t pid : r.pids) w.value(pid);
      w.end_array().field("shift_ns", r.shift_ns).field("clock_offset_ns", r.clock_offset_ns).end_object();
    }
    w.end_array()
        .key("clock")
        .begin_object()
        .field("method", s.clock.method)
        .field("basis", s.clock.basis)
        .field("residual_ns", s.clock.residual_ns)
        .field("collectives_checked", s.clock.collectives_checked)
        .end_object()
        .end_object();
  }
  w.key("notes").begin_array();
  for (const std::string& note : s.notes) w.value(note);
  w.end_array();
  w.field("origin_unix_ns", s.origin_unix_ns).field("start_ns", s.start_ns).field("end_ns", s.end_ns);
  w.field("duration_ns", s.duration_ns()).field("event_count", static_cast<std::uint64_t>(s.event_count));
  w.field("activity_start_ns", s.activity_start_ns).field("activity_end_ns", s.activity_end_ns);
  w.field("flow_count", static_cast<std::uint64_t>(s.flow_count));
  w.field("range_count", static_cast<std::uint64_t>(s.range_count));
  w.field("measurement_count", static_cast<std::uint64_t>(s.measurement_count));
  w.field("dropped_records", s.dropped_records).key("processes").begin_array();
  for (const ProcessSummary& p : s.processes) {
    w.begin_object().field("pid", p.pid).field("name", p.name).key("threads").begin_array();
    for (const ThreadSummary& t : p.threads)
      w.begin_object()
          .field("tid", t.tid)
          .field("name", t.name)
          .field("event_count", static_cast<std::uint64_t>(t.event_count))
          .end_object();
    w.end_array().end_object();
  }
  w.end_array().key("gpus").begin_array();
  for (const GpuSummary& g : s.gpus) write_gpu(w, g);
  w.end_array().key("categories").begin_object();
  for (const CategoryCount& c : s.categories) w.field(c.category, static_cast<std::uint64_t>(c.count));
  w.end_object().end_object();
}

std::string format_summary_json(const TraceSummary& s) {
  detail::JsonWriter w;
  detail::write_summary_json(w, s);
  return w.take();
}

std::string format_summary(const TraceSummary& summary, Format format, Listing listing) {
  switch (format) {
    case Format::Text:
      return format_summary_text(summary, listing);
    case Format::Markdown:
      return format_lines(summary, true, listing);
    case Format::Json:
      return format_summary_json(summary);
  }
  return format_summary_text(summary);
}

}  // namespace gtv::analysis
