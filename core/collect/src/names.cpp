#include "gtv/collect/names.h"

#include "gtv/model/kineto_names.h"

namespace gtv::collect {

std::string_view to_string(SyncKind kind) {
  switch (kind) {
    case SyncKind::EventSynchronize:
      return "Event Sync";
    case SyncKind::StreamWaitEvent:
      return "Stream Wait Event";
    case SyncKind::StreamSynchronize:
      return "Stream Sync";
    case SyncKind::ContextSynchronize:
      return "Context Sync";
    case SyncKind::Unknown:
      break;
  }
  return "Sync";
}

// Kineto's form, so traces read the same as PyTorch profiler traces: "Memcpy HtoD (Pageable -> Device)".
std::string memcpy_event_name(const MemcpyDetail& detail) { return kineto::memcpy_event_name(detail); }
std::string memset_event_name(const MemsetDetail& detail) { return kineto::memset_event_name(detail); }

}  // namespace gtv::collect
