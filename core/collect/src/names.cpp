#include "gtv/collect/names.h"

namespace gtv::collect {

std::string_view to_string(SyncKind kind) {
  switch (kind) {
    case SyncKind::EventSynchronize: return "Event Sync";
    case SyncKind::StreamWaitEvent: return "Stream Wait Event";
    case SyncKind::StreamSynchronize: return "Stream Sync";
    case SyncKind::ContextSynchronize: return "Context Sync";
    case SyncKind::Unknown: break;
  }
  return "Sync";
}

std::string memcpy_event_name(const MemcpyDetail& detail) {
  // Kineto's form, so traces read the same as PyTorch profiler traces: "Memcpy HtoD (Pageable -> Device)".
  std::string name = "Memcpy ";
  name += detail.copy_kind == CopyKind::Unknown ? std::string_view("?") : to_string(detail.copy_kind);
  name += " (";
  name += detail.src_kind == MemoryKind::Unknown ? std::string_view("?") : to_string(detail.src_kind);
  name += " -> ";
  name += detail.dst_kind == MemoryKind::Unknown ? std::string_view("?") : to_string(detail.dst_kind);
  name += ")";
  return name;
}

std::string memset_event_name(const MemsetDetail& detail) {
  std::string name = "Memset (";
  name += detail.memory_kind == MemoryKind::Unknown ? std::string_view("?") : to_string(detail.memory_kind);
  name += ")";
  return name;
}

}  // namespace gtv::collect
