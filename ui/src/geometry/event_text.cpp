#include "gtv/ui/event_text.h"

#include <algorithm>
#include <cstdio>

#include "gtv/analysis/kernel_names.h"
#include "gtv/model/ranks.h"

namespace gtv::ui {
namespace {

std::string with_commas(std::int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string triple(const std::int32_t v[3]) {
  return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + ")";
}

void kernel_fields(const KernelDetail& k, std::vector<Field>& out) {
  // Every real launch has at least one block of one thread: zeros mean the file gave no launch configuration
  // (nor, then, registers or shared memory), which is said rather than shown as numbers.
  const auto positive = [](const std::int32_t(&v)[3]) { return v[0] > 0 && v[1] > 0 && v[2] > 0; };
  if (!positive(k.grid) || !positive(k.block)) {
    out.emplace_back("launch configuration", "not in the trace");
  } else {
    out.emplace_back("grid", triple(k.grid));
    out.emplace_back("block", triple(k.block));
    out.emplace_back("registers/thread", std::to_string(k.registers_per_thread));
    out.emplace_back("shared memory", format_bytes(k.shared_memory_bytes));
  }
  if (k.blocks_per_sm_x100 > 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", k.blocks_per_sm_x100 / 100.0);
    out.emplace_back("blocks/SM", buf);
  }
  if (k.occupancy_pct >= 0) out.emplace_back("occupancy", std::to_string(k.occupancy_pct) + " %");
}

std::string counted(std::size_t count, std::string_view one, std::string_view many) {
  return std::to_string(count) + " " + std::string(count == 1 ? one : many);
}

// A kernel that a graph launch ran: its graph and node, and the launch (joined by the shared correlation id).
std::string graph_kernel_text(const Trace& trace, EventRef ref, const KernelDetail& k) {
  std::string text = "graph " + std::to_string(k.graph_id) + ", node " + std::to_string(k.graph_node_id);
  const Event& e = trace.event(ref);
  if (e.correlation_id == kNoCorrelation) return text;
  const auto flow = trace.flow_of(ref);
  const bool has_launch = flow && flow->to == ref;
  text += ", launched by ";
  text += has_launch ? display_name(trace, trace.event(flow->from)) : std::string("a graph launch not in this trace");
  return text + " (correlation " + std::to_string(e.correlation_id) + ")";
}

// "launches" of a launch that started several GPU activities (a graph launch starts all its kernels): how many,
// and the first one; "graph" when they ran in a CUDA graph.
void multi_launch_fields(const Trace& trace, const std::vector<Flow>& flows, std::vector<Field>& out) {
  std::size_t kernels = 0;
  std::vector<std::uint32_t> graphs;
  for (const Flow& f : flows) {
    const Event& target = trace.event(f.to);
    if (target.kind != EventKind::Kernel) continue;
    ++kernels;
    const KernelDetail* k = trace.kernel_detail(target);
    if (k != nullptr && k->launched_by_graph() && std::find(graphs.begin(), graphs.end(), k->graph_id) == graphs.end())
      graphs.push_back(k->graph_id);
  }
  const EventRef first = flows.front().to;
  std::string what = kernels == flows.size() ? counted(kernels, "kernel", "kernels")
                                             : counted(flows.size(), "GPU activity", "GPU activities") + " (" +
                                                   counted(kernels, "kernel", "kernels") + ")";
  out.emplace_back("launches", what + ", first " + display_name(trace, trace.event(first)) + " (" +
                                   lane_location(trace, first.lane) + ")");
  if (graphs.empty()) return;
  std::string ids;
  for (std::uint32_t g : graphs) ids += (ids.empty() ? "" : ", ") + std::to_string(g);
  out.emplace_back("graph", std::string(graphs.size() == 1 ? "graph " : "graphs ") + ids + ", " +
                                counted(kernels, "kernel", "kernels"));
}

bool launched_by_graph(const Trace& trace, EventRef ref) {
  const KernelDetail* k = trace.kernel_detail(trace.event(ref));
  return k != nullptr && k->launched_by_graph();
}

void memcpy_fields(const MemcpyDetail& m, TimeNs duration_ns, std::vector<Field>& out) {
  out.emplace_back("bytes", format_bytes(m.bytes));
  out.emplace_back("copy kind", std::string(to_string(m.copy_kind)));
  out.emplace_back("memory", std::string(to_string(m.src_kind)) + " -> " + std::string(to_string(m.dst_kind)));
  if (m.dst_device >= 0) out.emplace_back("destination GPU", std::to_string(m.dst_device));
  if (duration_ns > 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f GB/s", static_cast<double>(m.bytes) / static_cast<double>(duration_ns));
    out.emplace_back("throughput", buf);
  }
}

// An arg's JSON value as shown: a plain string without its quotes, anything else as written.
std::string arg_value_text(std::string_view json) {
  if (json.size() >= 2 && json.front() == '"' && json.back() == '"' && json.find('\\') == std::string_view::npos)
    return std::string(json.substr(1, json.size() - 2));
  return std::string(json);
}

}  // namespace

std::string format_bytes(std::int64_t bytes) {
  const double b = static_cast<double>(bytes);
  char buf[64];
  if (bytes >= 1'000'000'000)
    std::snprintf(buf, sizeof buf, "%.2f GB", b / 1e9);
  else if (bytes >= 1'000'000)
    std::snprintf(buf, sizeof buf, "%.2f MB", b / 1e6);
  else if (bytes >= 1'000)
    std::snprintf(buf, sizeof buf, "%.2f kB", b / 1e3);
  else
    return std::to_string(bytes) + " bytes";
  return std::string(buf) + " (" + with_commas(bytes) + " bytes)";
}

std::string display_name(const Trace& trace, const Event& e) {
  const std::string_view name = trace.name(e);
  return e.kind == EventKind::Kernel ? analysis::kernel_display_name(name) : std::string(name);
}

std::string format_time_exact(TimeNs t_ns) { return format_duration_exact(t_ns); }

std::string lane_location(const Trace& trace, LaneIndex lane_index) {
  const Lane& lane = trace.lane(lane_index);
  if (lane.is_gpu()) return gpu_label(trace, lane.device()) + " / stream " + std::to_string(lane.stream());
  return rank_prefix(trace, lane) + "Process " + std::to_string(lane.key.pid) + " / thread " +
         std::to_string(lane.key.tid);
}

std::vector<Field> event_fields(const Trace& trace, EventRef ref, TimeNs origin_ns) {
  const Event& e = trace.event(ref);
  std::vector<Field> out;
  const std::string_view recorded = trace.name(e);
  const bool kernel = e.kind == EventKind::Kernel;
  const std::string demangled = kernel ? analysis::demangle(recorded) : std::string(recorded);
  // A kernel symbol the demangler cannot read (over 1,024 characters) is named by the qualified name it starts with.
  const bool unreadable = kernel && recorded.substr(0, 2) == "_Z" && demangled == recorded;
  out.emplace_back("name", unreadable ? analysis::kernel_display_name(recorded) : demangled);
  if (demangled != recorded || unreadable) out.emplace_back("symbol", std::string(recorded));
  out.emplace_back("category", std::string(trace.category(e)));
  out.emplace_back("start", format_time_exact(e.start_ns - origin_ns));
  out.emplace_back("duration", format_duration_exact(e.duration_ns));
  out.emplace_back("end", format_time_exact(e.end_ns() - origin_ns));
  out.emplace_back("where", lane_location(trace, ref.lane));
  out.emplace_back("lane", trace.lane(ref.lane).name);
  out.emplace_back("depth", std::to_string(e.depth));
  if (e.correlation_id != kNoCorrelation) out.emplace_back("correlation", std::to_string(e.correlation_id));
  if (const auto id = trace.external_id(e)) out.emplace_back("External id", std::to_string(*id));
  if (const auto flow = trace.flow_of(ref)) {
    const bool launch = flow->from == ref;
    const std::vector<Flow> launched = launch ? trace.flows_from(ref) : std::vector<Flow>{};
    if (launched.size() > 1 || (launched.size() == 1 && launched_by_graph(trace, launched.front().to))) {
      multi_launch_fields(trace, launched, out);
    } else {
      const EventRef other = launch ? flow->to : flow->from;
      out.emplace_back(launch ? "launches" : "launched by",
                       display_name(trace, trace.event(other)) + " (" + lane_location(trace, other.lane) + ")");
    }
  }
  if (const auto link = trace.backward_link_of(ref)) {
    const bool forward = link->from == ref;
    const EventRef other = forward ? link->to : link->from;
    out.emplace_back(forward ? "backward" : "forward",
                     display_name(trace, trace.event(other)) + " (" + lane_location(trace, other.lane) + ")");
  }
  // Dependency links: the work this waited for, and what waited for it (work may be waited for several times).
  for (const Flow& link : trace.dependencies_of(ref)) {
    const bool waited_for = link.from == ref;
    const EventRef other = waited_for ? link.to : link.from;
    out.emplace_back(waited_for ? "waited for by" : "waits for",
                     display_name(trace, trace.event(other)) + " (" + lane_location(trace, other.lane) + ")");
  }
  if (const KernelDetail* k = trace.kernel_detail(e)) {
    if (k->launched_by_graph()) out.emplace_back("graph", graph_kernel_text(trace, ref, *k));
    kernel_fields(*k, out);
  }
  if (const MemcpyDetail* m = trace.memcpy_detail(e)) memcpy_fields(*m, e.duration_ns, out);
  if (const MemsetDetail* s = trace.memset_detail(e)) {
    out.emplace_back("bytes", format_bytes(s->bytes));
    out.emplace_back("memory", std::string(to_string(s->memory_kind)));
  }
  for (const EventArg& arg : trace.extra_args(e))
    out.emplace_back(std::string(arg.key), arg_value_text(arg.value_json));
  return out;
}

std::string tooltip_text(const Trace& trace, EventRef ref, TimeNs origin_ns) {
  const std::vector<Field> fields = event_fields(trace, ref, origin_ns);
  std::string text = fields.front().second;
  for (std::size_t i = 1; i < fields.size(); ++i) {
    const std::string& key = fields[i].first;
    if (key == "end" || key == "lane" || key == "depth" || key == "category" || key == "symbol")
      continue;  // details panel only
    text += "\n" + key + ": " + fields[i].second;
  }
  return text;
}

}  // namespace gtv::ui
