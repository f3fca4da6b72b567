#include "gtv/model/kineto_names.h"

namespace gtv::kineto {
namespace {

std::string_view or_unknown(std::string_view text, bool known) { return known ? text : std::string_view("?"); }

}  // namespace

std::string memcpy_event_name(const MemcpyDetail& detail) {
  std::string name = "Memcpy ";
  name += or_unknown(to_string(detail.copy_kind), detail.copy_kind != CopyKind::Unknown);
  name += " (";
  name += or_unknown(to_string(detail.src_kind), detail.src_kind != MemoryKind::Unknown);
  name += " -> ";
  name += or_unknown(to_string(detail.dst_kind), detail.dst_kind != MemoryKind::Unknown);
  name += ")";
  return name;
}

std::string memset_event_name(const MemsetDetail& detail) {
  std::string name = "Memset (";
  name += or_unknown(to_string(detail.memory_kind), detail.memory_kind != MemoryKind::Unknown);
  name += ")";
  return name;
}

bool is_profiler_step(std::string_view name) { return name.starts_with("ProfilerStep#"); }

bool is_data_loader_next(std::string_view name) {
  // A prefix first: this is asked of every op of every thread.
  constexpr std::string_view kPrefix = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter";
  return name.substr(0, kPrefix.size()) == kPrefix && name.find(".__next__") != std::string_view::npos;
}

std::string thread_lane_name(std::int64_t tid, std::string_view thread_name) {
  return "thread " + std::to_string(tid) + " (" + std::string(thread_name) + ")";
}

}  // namespace gtv::kineto
